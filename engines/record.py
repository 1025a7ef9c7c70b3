"""A game's record: everything the shared layers need to know about a game, declared by the game itself.

As ``engines/README.md`` (The record) says: the ladder's and the reports' budgets, its balance question, how its
policies look in figures, and its test and benchmark sizes live in the game package (``RECORD`` in
``engines/<game>/__init__.py``), so that no shared module names a game and a game from outside needs no edit
anywhere else. Plain data only: the shared layers (experiments, analysis, tests, benchmarks) decide what to do
with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from boardlab.engines.restrict import Restriction


@dataclass(frozen=True)
class Tuning:
    """A balance page's tuning question: a grid of knob values (text, as ``--set`` takes it) and a target."""

    ask: str  # the designer's question, in words
    grid: Mapping[str, tuple[str, ...]]
    target: str  # metric=value or metric=lo..hi
    share: int = 4  # each setting plays 1/share of the chapter's games per arm
    names: Mapping[str, str] = field(default_factory=dict)  # short names of long values (text -> name), for the page

    def describe(self, point: Mapping[str, str]) -> str:
        """``knob=value, ...`` of a grid point, long values by their short names."""
        return ", ".join(f"{k}={self.names.get(v, v)}" for k, v in point.items())

    def short(self, point: Mapping[str, str]) -> str:
        """``value | value`` of a grid point, long values by their short names."""
        return " | ".join(self.names.get(v, v) for v in point.values())


@dataclass(frozen=True)
class Balance:
    """How a game's balance page plays: everyone's policy, the player count, and its tuning question."""

    policy: str
    players: int = 2
    question: Tuning | None = None
    notes: tuple[str, ...] = ()
    strong: str | None = None  # a strong policy the page plays too (default rules and every point of the question)


@dataclass(frozen=True)
class Bench:
    """What ``make bench`` plays of the game: engine speed against the reference engine, and one search chunk."""

    seats: tuple[str, ...]  # the seats of the engine's and the reference engine's games
    games: int  # games of ``play`` timed
    reference_games: int  # games of the reference engine timed
    stream: int  # random numbers drawn per reference game (its scripted stream's length)
    rival: str  # the expert's opponent in the search benchmark
    search_games: int  # games with one expert seat at its default budget (one chunk)
    learned_games: int = 0  # games of two ``learned`` seats timed (0: the game has no learned player yet)


HANDICAP_LABEL = "handicap"  # the handicap page's arms are labelled "handicap SERIES KNOB=VALUE"
HANDICAP_PLAYERS = 2  # the handicap page plays 2-player games

Settings = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Series:
    """One line of the page: everyone plays ``policy`` under the knobs ``settings`` at each of ``values``."""

    name: str  # what the line shows, for titles and the legend ("planner, seat-order grabbing")
    policy: str
    values: tuple[int, ...]  # 0 first
    settings: Settings = ()


@dataclass(frozen=True)
class Handicap:
    """A game's compensation for a seat and how the page measures it (the first series: the default rules)."""

    knob: str  # the game's handicap knob (0 = the rulebook)
    unit: str  # what one step of the knob is worth, singular ("VP", "token")
    gives: str  # what a value does ("the second seat starts with head_start VP")
    series: tuple[Series, ...]
    search: str  # the values ``simulate tune`` searches ("0..6")
    share: int = 1  # each value plays 1/share of the chapter's games
    question: str = "What head start makes the second seat fair?"
    notes: tuple[str, ...] = ()  # what the game's page adds (why this policy, what the models need)

    def arm(self, series: Series, h: int) -> str:
        """The label of the arm of value ``h`` in ``series``."""
        return f"{HANDICAP_LABEL} {series.name} {self.knob}={h}"

    def command(self, game: str, series: Series) -> str:
        """The ``simulate tune`` command that searches the fair value of ``series``."""
        fixed = "".join(f" --set {k}={v}" for k, v in series.settings)
        return (
            f"simulate tune {game} --policy {series.policy} --players {HANDICAP_PLAYERS}{fixed} "
            f"--vary {self.knob}={self.search} --target first_seat_advantage=0"
        )


@dataclass(frozen=True)
class Pages:
    """The budgets of a report's standard pages for one game: a share plays 1/share of the chapter's games per arm.

    ``choices_share`` None: 2, or 40 times that where the strong player searches (tens of games a second).
    ``decisions_games`` and ``decisions_playouts``: the most games explained and playouts per move (a slow game
    asks for fewer).
    """

    balance_share: int = 4
    by_skill_share: int = 1
    choices_share: int | None = None
    decisions_games: int = 10
    decisions_playouts: int = 200


@dataclass(frozen=True)
class Record:
    """What the shared layers need about one game.

    ``balance`` None: the balance page plays the first policy at the smallest table of at least 2, no question.
    ``bench`` None: ``make bench`` skips the game. ``ladder_budgets`` None: the ladder's own default rungs.
    ``report_budgets``: the expert's rungs on the report's skill page (empty: no expert there). ``looks``: palette
    index and marker of the game's own policies in every figure (policies several games share are drawn alike, see
    :mod:`analysis.style`). ``soundness_games``: games per seating with which each heuristic must beat ``random``;
    ``search_games`` likewise for the expert against each heuristic; ``more_players``: further ``(players, games
    per seating)`` to check; ``learned_soundness_games``: games per seating with which ``learned`` (its shipped
    model) must beat each heuristic and ``random`` (empty: the game has no learned player yet).
    ``reference_seats``: the seats of :mod:`engines.checker`'s reference differential (empty: the bench's seats;
    neither: no differential). ``reference_options``: what ``play`` takes to draw chance as the reference engine
    does (for that differential). ``restrictions``: the named choices a player can give up, by name, in order from
    the one that removes most (:mod:`engines.restrict`; ``simulate restrict GAME`` plays its strong player under
    each); the policies that take them carry the matching ``restrict`` hook. ``default_policy``: who plays when a
    command names none, the strongest player that plays a million games in minutes at any setting (no training,
    no long search), with ``default_reason`` saying why in one line. ``exact``: the game's exactly solved
    players (not heuristics: the ladder plays each as its own rung where it plays the table), whatever their names.
    ``handicap``: the knob that compensates the second seat and the series the generic chapter's handicap page
    plays (:mod:`experiments.chapters.handicap`), in every report. ``pages``: the budgets of the report's
    standard pages (:class:`Pages`).
    """

    balance: Balance | None = None
    bench: Bench | None = None
    ladder_budgets: tuple[int, ...] | None = None
    report_budgets: tuple[int, ...] = ()
    looks: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    soundness_games: int = 2_000
    search_games: int = 4
    more_players: tuple[tuple[int, int], ...] = ()
    learned_soundness_games: Mapping[str, int] = field(default_factory=dict)
    reference_seats: tuple[str, ...] = ()
    reference_options: Mapping[str, object] = field(default_factory=dict)
    restrictions: Mapping[str, Restriction] = field(default_factory=dict)
    default_policy: str | None = None  # who plays when a command names no policy (None: the first listed)
    default_reason: str = ""  # why, in one line for designers
    exact: tuple[str, ...] = ()
    handicap: Handicap | None = None
    pages: Pages = field(default_factory=Pages)


def default_policy(module: object) -> tuple[str, str]:
    """The policy a command plays when none is named, and why (the record's, else the first the game lists)."""
    record = record_of(module)
    policies = getattr(module, "POLICIES", {})
    if record.default_policy is not None and record.default_policy in policies:
        return record.default_policy, record.default_reason
    return next(iter(policies)), "the first policy the game lists (it names no default)"


def record_of(module: object) -> Record:
    """The record a game package declares (``RECORD``), or the defaults for one that declares none."""
    found = getattr(module, "RECORD", None)
    return found if isinstance(found, Record) else Record()
