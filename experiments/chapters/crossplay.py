"""Cross-play: a strong-play figure is checked under a second strong player before a page states it as a fact.

See ``docs/explanation/strong-players.md`` (Cross-play).
Self-play can settle into a private convention (one seat's play has a blind spot the other seat's
has learned to hit), so a figure measured with ``learned`` in every seat is a property of the model until another
strong player confirms it. A page that quotes one measures the same figure again with every ``learned`` seat
played by the second strong player (:func:`second`: the expert at an affordable budget, on 1/:data:`SHARE` of the
games) and, at 2 players where asked, in the mixed seatings (learned against the expert, both orders). The two
figures agree when their 95% intervals overlap: the page states the fact and says it "holds under both"; where
they lie apart, its title says that the answer "depends on who plays" and states no game fact. The second figure
is always shown beside the first (:func:`claim` words both; :func:`rows` puts them in the page's table).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boardlab.analysis.wording import pct
from boardlab.engines import get_game
from boardlab.engines.record import record_of
from boardlab.experiments.chapters.common import Plan

STRONG = "learned"
"""The strong player whose self-play figures are checked."""
BUDGET = 32
"""Playouts per choice of the second strong player (ours): at most this, or the report's own expert budget."""
SHARE = 20
"""The second strong player plays 1/SHARE of the strong arm's games (1,000 in a default 20,000-game report:
within about ±3 points; the expert plays some 25 games a second on one core at 32 playouts)."""
SLOW_SHARE = 100
"""The share where the game's expert is slow (the skill ladder's, 200 games in a default report)."""
LABEL = "cross"


def second(game: str) -> str | None:
    """The game's second strong player: the expert at :data:`BUDGET` playouts, or at the report's budget if lower.

    None for a game whose record gives the report no expert budget (a search too slow for a report's arms).
    """
    budgets = record_of(get_game(game).module).report_budgets
    return f"expert:{min(BUDGET, *budgets)}" if budgets else None


def share(game: str) -> int:
    """The fraction (1/share) of a strong arm's games the second player plays in ``game``.

    :data:`SHARE`, or the skill ladder's expert share where the record's report budget is at most :data:`BUDGET`:
    such a game declares its expert slow even at few playouts (Panots' expert:16 plays a few games a second).
    """
    budgets = record_of(get_game(game).module).report_budgets
    return SLOW_SHARE if budgets and min(budgets) <= BUDGET else SHARE


def seats_of(seats: Sequence[str], other: str, strong: str = STRONG) -> tuple[str, ...]:
    """``seats`` with every ``strong`` seat played by ``other``."""
    return tuple(other if s == strong else s for s in seats)


def label(seats: Sequence[str], settings: tuple[tuple[str, str], ...] = (), variant: str | None = None) -> str:
    """The label of a cross arm: its seats, knobs and variant only, so two pages asking for one arm share it."""
    knobs = "".join(f" {k}={v}" for k, v in settings)
    return f"{LABEL} {','.join(seats)}{knobs}{f' variant {variant}' if variant else ''}"


def mixed(other: str, strong: str = STRONG) -> tuple[tuple[str, str], tuple[str, str]]:
    """The two mixed seatings at 2 players: the strong player first, then the second first."""
    return (strong, other), (other, strong)


FEWER = 4
"""A page's secondary figures (rows beside its headline) play 1/FEWER of a cross arm's games (250 in a default
report: within about ±6 points), so a report checks every strong-play figure without doubling its time."""


@dataclass(frozen=True)
class Check:
    """How a strong arm is checked: which seats the second player takes, on how many fewer games, mixed or not."""

    strong: str = STRONG  #: the seats the second strong player takes over
    fewer: int = 1  #: a secondary figure's cross arms play this many times fewer games (:data:`FEWER`)
    with_mixed: bool = False  #: at 2 players, the two mixed seatings too


def add_arms(
    plan: Plan,
    seats: Sequence[str],
    n: int,
    seed: int,
    chunk: int,
    *,
    settings: tuple[tuple[str, str], ...] = (),
    variant: str | None = None,
    check: Check = Check(),
) -> list[str]:
    """Add the cross arms of a strong arm (``seats``, ``n`` games, ``settings``, ``variant``) to ``plan``; their labels.

    Everyone second where ``seats`` has ``check.strong`` (``learned``, or the strong heuristic a page measures), on
    ``n //`` :func:`share` games (``check.fewer`` times fewer for a secondary figure: :data:`FEWER`; at least 2) in
    chunks the expert can take; with ``check.with_mixed`` at 2 players, the two mixed seatings too. None without a
    second player.
    """
    strong, fewer, with_mixed = check.strong, check.fewer, check.with_mixed
    other = second(plan.game)
    if other is None or strong not in seats:
        return []
    games = max(2, n // (share(plan.game) * fewer))
    module = get_game(plan.game).module
    cap = module.POLICIES[other.split(":")[0]].chunk_games or chunk
    seatings = [seats_of(seats, other, strong)]
    if with_mixed and len(seats) == 2:
        seatings += list(mixed(other, strong))
    labels = []
    for seating in seatings:
        name = label(seating, settings, variant)
        plan.add(name, seating, games, seed, min(chunk, cap, games), variant, settings)
        labels.append(name)
    return labels


def result_of(
    results: Mapping[str, Any],
    game: str,
    seats: Sequence[str],
    settings: tuple[tuple[str, str], ...] = (),
    variant: str | None = None,
    strong: str = STRONG,
) -> Any:
    """The cross arm's result of a strong arm (as :func:`add_arms` named it), or None where none was played."""
    other = second(game)
    return None if other is None else results.get(label(seats_of(seats, other, strong), settings, variant))


@dataclass(frozen=True)
class Figure:
    """One strong player's figure: who played (``"two learned players"``), the value and its 95% interval."""

    who: str
    value: float
    low: float
    high: float
    games: int = 0

    @property
    def interval(self) -> tuple[float, float, float]:
        """``(value, low, high)``."""
        return self.value, self.low, self.high


def agree(first: Figure, other: Figure) -> bool:
    """Whether two figures agree: their 95% intervals overlap."""
    return first.low <= other.high and other.low <= first.high


Word = Callable[[float, float, float], str]


def both(figures: Sequence[Figure], word: Word = pct) -> str:
    """``"89.1% (88.6–89.5) between two learned players, 52.0% (47.6–56.4) between two expert:32 players"``."""
    return ", ".join(f"{word(*f.interval)} {f.who}" for f in figures)


def holds(figures: Sequence[Figure]) -> bool:
    """Whether every figure agrees with the first (one figure alone holds for nobody but its player)."""
    return len(figures) > 1 and all(agree(figures[0], f) for f in figures[1:])


def agreed(figures: Sequence[Figure], fact: Callable[[Figure], str] | None = None) -> bool:
    """Whether the figures agree (:func:`holds`) and, given ``fact``, support the same fact: a claim stands."""
    return holds(figures) and (fact is None or len({fact(f) for f in figures}) == 1)


def claim(subject: str, figures: Sequence[Figure], fact: Callable[[Figure], str], word: Word = pct) -> str:
    """A title's clause on ``subject`` under strong play, checked under every strong player of ``figures``.

    ``fact(figure)`` is the game fact one figure would support ("seat 0 wins most games"). Where the figures agree
    and give the same fact: ``"FACT: holds under both strong players (…)"``; else ``"SUBJECT depends on who plays:
    …"`` and no fact. A single figure (no second player) states its fact for that player only.
    """
    if len(figures) == 1:
        return f"{fact(figures[0])} {figures[0].who} ({word(*figures[0].interval)}; not checked under a second player)"
    shown = both(figures, word)
    if agreed(figures, fact):
        return f"{fact(figures[0])}: holds under both strong players ({shown})"
    return f"{subject} depends on who plays: {shown}"


def beside(figures: Sequence[Figure], word: Word = pct) -> str:
    """A title's clause quoting a strong figure with the second player's beside it, and whether they agree.

    ``"62.0% (61.3–62.7) between two learned players, 55.0% (52.0–58.0) between two expert:32 players (they
    agree)"``; a lone figure says it was "not checked under a second strong player".
    """
    if len(figures) == 1:
        return f"{word(*figures[0].interval)} {figures[0].who} (not checked under a second strong player)"
    return f"{both(figures, word)} ({'they agree' if holds(figures) else 'it depends on who plays'})"


def rows(subject: str, figures: Sequence[Figure], word: Word = pct) -> list[dict[str, str]]:
    """The page's table rows: each strong player's figure beside the others, with its games."""
    return [
        {"strong play": f.who, subject: word(*f.interval), "games": f"{f.games:,}" if f.games else "—"} for f in figures
    ]


def even_share(who: str, context: str = "") -> Callable[[Figure], str]:
    """The fact a share of ``who`` (a seat, a player) supports: more than half, less, or no detectable edge."""

    def fact(f: Figure) -> str:
        if f.low <= 0.5 <= f.high:
            return f"{who} has no detectable edge{context}"
        return f"{who} wins {'more' if f.value > 0.5 else 'less'} than half{context}"

    return fact


def note(figures: Sequence[Figure], fact: Callable[[Figure], str] | None = None, strong: str = STRONG) -> str:
    """How the figures were checked against each other (and, given ``fact``, whether they support it alike)."""
    if len(figures) == 1:
        return f"Measured under {strong} only: this game has no second strong player affordable in a report."
    other = figures[1]
    games = f", {other.games:,} games" if other.games else ""
    if agreed(figures, fact):
        verdict = "agree: their 95% intervals overlap" + (" and support the same answer" if fact else "")
    elif holds(figures):
        verdict = "overlap but support different answers, so the page states neither"
    else:
        verdict = "disagree: their 95% intervals lie apart"
    return (
        f"Cross-play: the strong-play figure is measured again with a second strong player ({other.who}{games}) in "
        f"place of {strong}; the two {verdict}. A figure only one strong player shows is a property of how that "
        "player answers itself, not of the game."
    )
