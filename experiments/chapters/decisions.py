"""The "Which decisions matter?" question, one of the report's standard questions (:mod:`.flow`).

It plays no arms of its own: :mod:`experiments.explain` plays a few games on the report's runner with the strong
player (``learned``, else the expert: ``engines.restrict.default_strong``) in every seat at 2 players, from the
chapter's seed, values every move where the game's strongest heuristic would choose otherwise (paired playouts,
exact where the game has them) and the page shows the :data:`SHOWN` positions with the largest gaps: what the seat
sees, every move's chance to win with its interval, and the game's sentence on what the strong move knows. Games
scale with the chapter's ``n`` (:func:`games_for`), and so do the playouts up to a modest cap (:func:`playouts_for`:
a small-``n`` smoke build costs little); a slow game's chapter asks for fewer of both. In a cooperative game the
chance is the table's: it wins together.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd

from boardlab.analysis.book import Page
from boardlab.analysis.decision_figure import Panel, draw_positions
from boardlab.experiments import explain as ex
from boardlab.experiments.chapters.common import Plan, Question
from boardlab.experiments.run import Executor, RunResult

LABEL = "decisions"
PLAYERS = 2
SHOWN = 3  #: positions drawn on the page
PLAYOUTS = 200  #: per legal move (ours: intervals of about ±7 points; the exact values rank where a game has them)
GAMES_PER = 2_000  #: one game explained per this many of the chapter's games per arm …
MOST_GAMES = 10  #: … up to this many (a default 20,000-game report: 10 games, 25 CPU-seconds, 5% of it)
GAMES_PER_PLAYOUT = 20  #: one playout per move per this many of the chapter's games per arm, up to the cap …
FEWEST_PLAYOUTS = 20  #: … and at least this many (intervals of about ±22 points: a smoke build's)


def games_for(n: int, most: int = MOST_GAMES) -> int:
    """Games explained for a chapter of ``n`` games per arm: at least 2, at most ``most``."""
    return max(2, min(most, n // GAMES_PER))


def playouts_for(n: int, most: int = PLAYOUTS) -> int:
    """Playouts per legal move for a chapter of ``n`` games per arm: ``n / 20``, within [20, ``most``]."""
    return max(min(FEWEST_PLAYOUTS, most), min(most, n // GAMES_PER_PLAYOUT))


def no_arms(plan: Plan, n: int, seed: int, chunk: int) -> None:
    """The question plays its own games (see the module); it adds no arm."""


def question(
    game: str,
    n: int,
    seed: int,
    most: int = MOST_GAMES,
    playouts: int = PLAYOUTS,
    strong: str | None = None,
    executor: Executor | None = None,
) -> Question:
    """The question: no arms, and its page (:func:`decisions_page`) from ``games_for(n, most)`` games of ``seed``.

    A slow game's chapter passes a smaller ``most`` and ``playouts`` (its report's time stays modest); the
    playouts are ``playouts_for(n, playouts)``; ``strong`` as the chapter spells it (default: the game's); the
    games are tasks on ``executor`` (the report's runner; this process when None).
    """
    page = partial(
        decisions_page,
        game=game,
        games=games_for(n, most),
        seed=seed,
        playouts=playouts_for(n, playouts),
        strong=strong,
        executor=executor,
    )
    return Question(LABEL, no_arms, page)


def panel(rank: int, p: ex.Position, strong: str, heuristic: str) -> Panel:
    """A position as the figure draws it."""
    moves = [c.move for c in p.candidates]
    return Panel(
        f"#{rank}: game {p.game}, turn {p.turn}, seat {p.seat}: gap {ex.signed(p.gap)} points",
        p.view,
        [c.words for c in p.candidates],
        [c.chance for c in p.candidates],
        [max(0.0, c.chance - c.half) for c in p.candidates],
        [min(1.0, c.chance + c.half) for c in p.candidates],
        None if p.exact_gap is None else [float(c.exact or 0.0) for c in p.candidates],
        moves.index(p.strong),
        moves.index(p.heuristic),
    )


def finding(result: ex.Explained) -> str:
    """Who, what, how much: where the two players part, and the costliest such decision in plain words."""
    r, top = result.request, result.positions[0]
    winner = "the table" if r.setup.module.INFO.cooperative else f"seat {top.seat}"
    return (
        f"{r.strong} and {r.heuristic} part at {len(result.positions)} of {result.decisions} decisions in "
        f"{len(r.games)} strong-play games; the costliest: seat {top.seat} at turn {top.turn} "
        f"({top.candidate(top.strong).words} rather than {top.candidate(top.heuristic).words}), and {winner} wins "
        f"{100 * top.gap:.1f} points more often{' (exact)' if top.exact_gap is not None else ''}"
    )


def decisions_page(
    results: dict[str, RunResult],
    game: str,
    games: int,
    seed: int,
    playouts: int = PLAYOUTS,
    strong: str | None = None,
    executor: Executor | None = None,
) -> tuple[Page, str]:
    """Which decisions matter: where the heuristic's move costs the strong player (default: the game's) most."""
    asked = ex.request(game, PLAYERS, strong, None, seed, tuple(range(games)), playouts)
    result = ex.explain(asked, executor)
    strong, heuristic = asked.strong, asked.heuristic
    shown = result.positions[:SHOWN]
    if not shown:
        title = f"Which decisions matter? In {games} games {heuristic} always chose as {strong} did"
        return Page(title, lambda fig: None, None, [], finding="", short="Which decisions matter"), title
    said = finding(result)
    title = f"Which decisions matter? {said}"
    table = pd.DataFrame(
        {
            "#": range(1, len(shown) + 1),
            "position": [f"game {p.game}, turn {p.turn}, seat {p.seat}" for p in shown],
            f"{strong}'s move": [p.candidate(p.strong).words for p in shown],
            f"{heuristic}'s move": [p.candidate(p.heuristic).words for p in shown],
            "gap, points": [f"{ex.signed(p.gap)}{' (exact)' if p.exact_gap is not None else ''}" for p in shown],
            "paired playouts, points (95% interval)": [
                f"{ex.signed(p.estimated_gap)} ({ex.signed(p.gap_low)} to {ex.signed(p.gap_high)})" for p in shown
            ],
        }
    )
    gaps = [p.gap for p in result.positions]
    worth = (
        "the table's chance to win per game"
        if asked.setup.module.INFO.cooperative
        else "the chance to win per game (both seats)"
    )
    again = f"--games {games}" + ("" if asked.playouts == ex.PLAYOUTS else f" --playouts {asked.playouts}")
    notes = [
        *(f"#{k}: {p.why}" for k, p in enumerate(shown, 1)),
        f"{len(asked.games)} games of {PLAYERS} {strong} players (seed {seed}); at each of the {result.decisions} "
        f"decisions with a choice {heuristic} was asked too, and where it chose otherwise every legal move was "
        f"played out {asked.playouts} times with the same streams for every move (paired; 95% normal intervals)"
        + (
            ", beside the exact chance where the game has it (its playouts then play the exact solution). "
            if shown[0].exact_gap is not None
            else ". "
        )
        + f"At {result.heuristic_better} of the {len(gaps)} positions {heuristic}'s move is the better one (a "
        f"negative gap: {strong} erred); all {len(gaps)} gaps add up to {ex.signed(sum(gaps) / len(asked.games))} "
        f"points of {worth}. `simulate explain {game} --seed {seed} {again}` prints every position.",
    ]

    def draw(fig: Any) -> None:
        draw_positions(fig, [panel(k, p, strong, heuristic) for k, p in enumerate(shown, 1)], strong, heuristic)

    meaning = (
        f"These are the positions where {heuristic}'s fixed rule misleads a player: what the strong move knows "
        "there is what a rulebook hint or a player aid could teach, and where a designer sees skill at work."
    )
    return Page(title, draw, table, notes, finding=said, short="Which decisions matter", meaning=meaning), title
