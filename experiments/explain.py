"""The decisions that matter: where a strong player's move and a heuristic's differ most in the chance to win.

Games are played one decision at a time with the strong player in every seat (game ``g`` of seed ``s`` from
``SeedSequence(s, spawn_key=(g,))``; :func:`table_seed`). At every decision with a real choice the named heuristic
is asked what it would do there; where it differs from the strong move, every legal move is valued by
:func:`experiments.playtest.hints.evaluate`: paired playouts (the same streams for every move) with a 95%
interval, and the exact chance where the game computes one (2-player base-game Pantolino, whose playouts then
play the exact solution that the exact values describe; elsewhere the strong player plays them). Positions are
ranked by the gap: the strong move's chance less the heuristic's (exact where known, else paired), each with the
game's words for the position and its moves and one sentence on what the strong move knows (the game's
``words.explain`` hook, else a generic sentence). Games are independent tasks, so they may run on any executor
(``--jobs``, ``--backend dask``); same arguments, same output wherever they ran.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.analysis.wording import pct, points
from boardlab.engines import get_game
from boardlab.engines.restrict import default_strong
from boardlab.experiments import validate
from boardlab.experiments.playtest import hints, table
from boardlab.experiments.playtest.setup import Setup, check_playouts
from boardlab.experiments.run import Executor, InProcess, run_tasks
from boardlab.experiments.run.spec import Knobs

STRONG = "learned"  #: the default strong player
PLAYOUTS = 200  #: default playouts per legal move (ours: the 2-seat hint budget of most games)
MAX_GAMES = 1_000  #: games one explanation may play


@dataclass(frozen=True)
class Candidate:
    """A legal move of a position: its words, its chance to win from playouts (95% half-width) and exact."""

    move: int
    words: str
    chance: float
    half: float
    exact: float | None


@dataclass(frozen=True)
class Position:
    """A decision where the heuristic's move differs from the strong one, valued move by move.

    ``gap`` is the strong move's chance less the heuristic's: exact where known, else the paired estimate
    ``estimated_gap`` (whose 95% interval is ``gap_low..gap_high``, Newcombe's paired hybrid score interval, inside
    [-1, 1]). ``game`` and ``decision`` (its index among the
    game's decisions) find it again with the same arguments.
    """

    game: int
    decision: int
    turn: int
    seat: int
    view: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    strong: int
    heuristic: int
    estimated_gap: float
    gap_low: float
    gap_high: float
    exact_gap: float | None
    why: str

    @property
    def gap(self) -> float:
        """The strong move's chance to win less the heuristic's (exact where known)."""
        return self.estimated_gap if self.exact_gap is None else self.exact_gap

    def candidate(self, move: int) -> Candidate:
        """The candidate of ``move``."""
        return next(c for c in self.candidates if c.move == move)

    def as_json(self) -> dict[str, Any]:
        """The position as a JSON object."""
        return {**dataclasses.asdict(self), "gap": self.gap}


@dataclass(frozen=True)
class Request:
    """What to explain, checked (:func:`request`): the table, its strong player and heuristic, the games."""

    setup: Setup  #: the table's game, knobs and seats (its seed is the root seed)
    strong: str
    heuristic: str
    games: tuple[int, ...]
    playouts: int


@dataclass(frozen=True)
class Explained:
    """Every differing position of the games, ranked by gap (largest first), and what was played."""

    request: Request
    decisions: int  #: decisions with a real choice visited
    positions: tuple[Position, ...]

    @property
    def heuristic_better(self) -> int:
        """Positions where the heuristic's move is the better one (a negative gap: the strong player erred)."""
        return sum(p.gap < 0 for p in self.positions)

    def as_json(self, top: int | None = None) -> dict[str, Any]:
        """The request, the counts and the ``top`` positions (all by default) as a JSON object."""
        r = self.request
        return {
            "game": r.setup.game,
            "players": r.setup.players,
            "knobs": r.setup.params.as_dict(),
            "variant": r.setup.variant,
            "seed": r.setup.seed,
            "games": list(r.games),
            "strong": r.strong,
            "heuristic": r.heuristic,
            "playouts": r.playouts,
            "decisions": self.decisions,
            "differing": len(self.positions),
            "heuristic_better": self.heuristic_better,
            "positions": [p.as_json() for p in self.positions[:top]],
        }


def request(
    game: str,
    players: int | None = None,
    strong: str | None = None,
    heuristic: str | None = None,
    seed: int = 0,
    games: Sequence[int] = (0,),
    playouts: int = PLAYOUTS,
    knobs: Knobs | None = None,
) -> Request:
    """Check every input before any game is played; ``heuristic`` defaults to the game's strongest (its rollout).

    The games are played with ``knobs`` (a variant and knobs set over it; None: the game's own).

    Raises:
        ValueError: one line naming the input.
    """
    knobs = knobs or Knobs()
    module = get_game(validate.text(game, "game")).module
    count = max(module.INFO.min_players, 2) if players is None else validate.whole(players, "players", 1)
    strong = default_strong(module.POLICIES) if strong is None else validate.text(strong, "strong")
    setup = Setup(game, (strong,) * count, validate.whole(seed, "seed"), knobs.settings, knobs.variant)
    chosen = setup.seating.ROLLOUT if heuristic is None else validate.text(heuristic, "heuristic")
    if chosen == strong:
        raise ValueError(f"--heuristic {chosen} is the strong player; name another policy")
    if not isinstance(games, Sequence) or isinstance(games, str):
        raise ValueError(f"games={games!r} must be a list of game numbers, not {type(games).__name__}")
    if not 1 <= len(games) <= MAX_GAMES:
        raise ValueError(f"games: {len(games):,} game numbers; allowed 1..{MAX_GAMES:,}")
    numbers = tuple(validate.whole(g, "game number") for g in games)
    check_playouts(validate.whole(playouts, "playouts"), "--playouts")
    setup.ready(chosen)
    setup.ready(strong)
    return Request(setup, strong, chosen, numbers, playouts)


def table_seed(seed: int, game: int) -> int:
    """The seed of game ``game`` of root seed ``seed``: ``SeedSequence(seed, spawn_key=(game,))``'s first word."""
    word = np.random.SeedSequence(seed, spawn_key=(game,)).generate_state(1, np.uint64)[0]
    return int(word >> np.uint64(1))


def observe(r: Request, game: int) -> list[table.Observed]:
    """Every decision of game ``game``, each seat playing the strong player's move."""
    setup = dataclasses.replace(r.setup, seed=table_seed(r.setup.seed, game))
    seen: list[table.Observed] = []
    table.play(setup, [], lambda point, seat, propose, index: int(propose()[0]), watch=seen.append)
    return seen


def value(r: Request, point: Any, game: int, decision: int, made: int, other: int) -> Position:
    """Every legal move of ``point`` valued; ``made`` the strong move, ``other`` the heuristic's."""
    setup = r.setup
    exact = hints.exact(point, setup.seating)
    policy = r.strong if exact is None else setup.hint_policy()  # the play the exact values describe
    estimate = dataclasses.replace(hints.evaluate(point, policy, r.playouts), exact=exact)
    candidates = []
    for move, words in setup.words.moves(point):
        chance, half = estimate.estimated(move)
        candidates.append(Candidate(move, words, chance, half, None if exact is None else float(exact[move])))
    gap, gap_low, gap_high = estimate.gain_interval(made, other)
    exact_gap = None if exact is None else float(exact[made] - exact[other])
    return Position(
        game,
        decision,
        setup.words.turn(point),
        int(point.seat[0]),
        tuple(setup.words.view(point)),
        tuple(candidates),
        made,
        other,
        gap,
        gap_low,
        gap_high,
        exact_gap,
        because(r, point, made, other, exact_gap if exact_gap is not None else gap),
    )


def because(r: Request, point: Any, made: int, other: int, gap: float) -> str:
    """One sentence on what the strong move knows: the game's own (``words.explain``), else a generic one."""
    said = getattr(r.setup.words, "explain", None)
    if said is not None:
        return str(said(point, made, other, r.heuristic))
    whose = "the table's" if r.setup.module.INFO.cooperative else f"seat {int(point.seat[0])}'s"
    return (
        f"{r.strong} weighs where each move leads for the rest of the game, which {r.heuristic}'s fixed rule "
        f"does not: here that is worth {signed(gap)} points of {whose} chance to win."
    )


def explain(r: Request, executor: Executor | None = None) -> Explained:
    """Play the request's games and rank every position where the heuristic's move differs from the strong one.

    Each game is one task on ``executor`` (this process when None); the ranking does not depend on where or in
    which order they ran.
    """
    tasks = [functools.partial(explain_game, r, game) for game in r.games]
    played = run_tasks(executor or InProcess(), tasks)
    found = [p for _, positions in played for p in positions]
    ranked = sorted(found, key=lambda p: (-p.gap, p.game, p.decision))
    return Explained(r, sum(visited for visited, _ in played), tuple(ranked))


def explain_game(r: Request, game: int) -> tuple[int, list[Position]]:
    """Game ``game``'s decisions with a real choice (their count) and its positions where the two moves differ."""
    found, visited = [], 0
    for decision, seen in enumerate(observe(r, game)):
        point = seen.point
        if point.legal()[0].sum() < 2 or not hints.searchable(point):
            continue
        visited += 1
        other = int(point.suggest(r.heuristic)[0])
        if other != seen.move:
            found.append(value(r, point, game, decision, seen.move, other))
    return visited, found


def percent(value: float) -> str:
    """``"61.2%"``."""
    return f"{100 * value:.1f}%"


def signed(value: float) -> str:
    """A difference of chances in points, signed, never ``-0.0``: ``"+7.6"``."""
    return f"{round(100 * value, 1) + 0.0:+.1f}"


def headline(p: Position, strong: str, heuristic: str) -> str:
    """``"game 3, turn 14, seat 1: gap +8.2 points (learned 61.2% against turn-optimal 53.0%, exact); …"``."""
    low, high = p.gap_low, p.gap_high
    exact = p.exact_gap is not None
    chances = [p.candidate(m).exact if exact else p.candidate(m).chance for m in (p.strong, p.heuristic)]
    return (
        f"game {p.game}, turn {p.turn}, seat {p.seat}: gap {signed(p.gap)} points ({strong} "
        f"{percent(chances[0])} against {heuristic} {percent(chances[1])}{', exact' if exact else ''}); "
        f"paired playouts {points(p.estimated_gap, low, high)} points (95% interval)"
    )


def describe(p: Position, strong: str, heuristic: str) -> list[str]:
    """The position in words, every move's chance to win (interval; exact beside it), the two moves, and why."""
    width = max(len(c.words) for c in p.candidates)
    chances = [pct(c.chance, max(0.0, c.chance - c.half), min(1.0, c.chance + c.half)) for c in p.candidates]
    head = "chance to win (95% interval)"
    column = max(len(head), *map(len, chances))
    rows = [f"  {'move':<{width}}  {head:<{column}}{'   exact' if p.exact_gap is not None else ''}"]
    for c, chance in zip(p.candidates, chances, strict=True):
        marks = [name for name, move in ((strong, p.strong), (heuristic, p.heuristic)) if move == c.move]
        exact = "" if c.exact is None else f"  {percent(c.exact):>6}"
        rows.append(f"  {c.words:<{width}}  {chance:<{column}}{exact}{'  <- ' + ', '.join(marks) if marks else ''}")
    return [*p.view, *rows, f"Why: {p.why}"]
