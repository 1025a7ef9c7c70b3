"""Game metrics: what a designer asks of a ruleset, with the same names and meanings for every game.

Every run measures, from its chunk summaries (:class:`analysis.summary.Summary`), with a 95% interval each:

- ``seat_advantage`` (per seat), ``first_seat_advantage`` and ``max_seat_advantage``: a seat's share of the wins
  minus its fair share. A game with one winner gives that seat 1 point; a win shared by ``k`` seats gives each
  ``1/k``; the fair share is the mean over seats (``1/P`` when every game has a winner). The largest is the
  advantage of largest size, with its sign. Browne's *advantage* and Ludii's *Balance* ask the same question
  (Browne 2008, *Automatic generation and evaluation of recombination games*, §5; Ludii's ``Balance`` metric,
  Piette, Soemers, Stephenson et al. 2020, *Ludii – The Ludemic General Game System*).
- ``decisiveness``: the share of games with a single winner (Ludii's *Decisiveness*, Browne's *drawishness*
  read the other way).
- ``table_win_rate`` (cooperative games only): the share of games the table wins together, the difficulty a
  cooperative designer tunes (Wilson interval). A competitive game has no table win.
- ``duration``: the mean game length in rounds (Browne's and Ludii's *Duration*), in every game: a round is every
  seat's turn once, so a game of ``t`` seats' turns at ``P`` seats lasts ``ceil(t / P)`` rounds (its last round
  may end early). ``turns``: the mean number of seats' turns per game, beside it in a game whose engine counts
  each seat's turn (all but those whose ``INFO.turns_are_rounds``: every seat moves in one turn, as in Panots).
- ``drama``: the share of games won by a player who trailed at mid-game, i.e. whose score at the end of round
  ``⌊R/2⌋`` of a game of ``R`` rounds was below the highest (Browne's *drama*: how often the eventual winner
  was behind; Ludii's *Drama*), and ``lead_changes``: how often per game the sole leader at a round's end
  changed (Ludii's *Lead change*). They need the engine's ``mid_score`` and ``lead_changes`` columns.
- From a skill ladder (:mod:`experiments.ladder`, computed by :mod:`analysis.ratings`): ``skill_depth``, the
  number of links of the skill chain (Lantz, Isaksen, Jaffe, Nealen and Togelius 2017, *Depth in strategic
  games*), and ``luck_share``, how often the weaker policy of a pair wins.

A metric a game cannot define is **absent**, never zero: a cooperative game (the table wins or loses together)
has no seat advantage, decisiveness or drama, a competitive one no table win rate; a game whose engine reports
no mid-game scores has no drama.
Intervals: Wilson for shares of games, normal (from sums and sums of squares) for means; a seat advantage's
interval is its share's interval shifted by the fair share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from boardlab.analysis import stats
from boardlab.analysis.wording import interval

POINTS = math.lcm(*range(1, 9))
"""A win shared by ``k`` seats is worth ``POINTS / k`` to each (whole numbers for up to 8 seats)."""
PREFIX = "game:"
"""Summary sums of the game metrics are stored under this prefix (beside the game's own metrics)."""


@dataclass(frozen=True)
class Definition:
    """A game metric: its label, what it needs, and whether it is a share (of games) or a mean."""

    label: str
    needs: str  # "any"; "competitive": not cooperative; "cooperative"; "rounds": the mid-game columns; "ladder";
    # "turns": an engine counting each seat's turn apart (not INFO.turns_are_rounds)
    share: bool  # a share of games (0..1), compared in absolute points; else a count compared relatively
    words: str  # what a title calls it, in plain words


DEFINITIONS: dict[str, Definition] = {
    "first_seat_advantage": Definition(
        "first seat's share of wins minus the fair share", "competitive", True, "the first seat's edge"
    ),
    "max_seat_advantage": Definition(
        "largest seat advantage (signed)", "competitive", True, "the largest edge of any seat"
    ),
    "decisiveness": Definition("games with a single winner", "competitive", True, "the share of games with one winner"),
    "table_win_rate": Definition("games the table wins together", "cooperative", True, "the table's win rate"),
    "duration": Definition("rounds per game (every player's turn once)", "any", False, "the game's length in rounds"),
    "turns": Definition("turns per game (each player's turn counts one)", "turns", False, "the game's length in turns"),
    "drama": Definition(
        "games won by a player trailing at mid-game", "rounds", True, "the share of games won from behind"
    ),
    "lead_changes": Definition("lead changes per game", "rounds", False, "the lead changes per game"),
    "skill_depth": Definition("links of the skill chain", "ladder", False, "the steps of the skill chain"),
    "luck_share": Definition(
        "share of games the weaker policy wins", "ladder", True, "the weaker policy's share of the wins"
    ),
}
"""Every scalar game metric by name (``seat_advantage`` is the per-seat form of the advantages)."""


@dataclass(frozen=True)
class Value:
    """A measured metric: the estimate and its 95% interval."""

    value: float
    low: float
    high: float

    def as_json(self) -> dict[str, Any]:
        """``{"value": v, "ci": [low, high]}``."""
        return {"value": self.value, "ci": [self.low, self.high]}


def accumulate(outcome: Mapping[str, np.ndarray], cooperative: bool) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """One chunk's sums (and sums of squares) that the game metrics need, keyed by name (whole numbers).

    ``points`` (per seat, see :data:`POINTS`) unless cooperative; ``trailing_wins`` and ``lead_changes`` when
    the outcome has the contract's ``mid_score`` and ``lead_changes`` columns and the game is not cooperative.
    """
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if cooperative:
        return out
    winner = np.asarray(outcome["winner"]).astype(np.int64)
    winners = np.asarray(outcome["winners"])
    players = winners.shape[1]
    alone = winner >= 0
    sole = np.bincount(winner[alone], minlength=players)  # a sole win is worth POINTS
    shared = winners[~alone]  # shared wins (and games nobody won): rare, so handled apart
    split = np.where(shared, POINTS // np.maximum(shared.sum(axis=1), 1)[:, None], 0).astype(np.int64)
    out["points"] = (POINTS * sole + split.sum(axis=0), POINTS * POINTS * sole + (split * split).sum(axis=0))
    if "mid_score" in outcome and "lead_changes" in outcome:
        mid = np.asarray(outcome["mid_score"])
        top = mid[:, 0]
        for seat in range(1, players):  # seat by seat: faster than a reduction over a short axis
            top = np.maximum(top, mid[:, seat])
        winner_mid = mid[np.arange(len(mid)), np.maximum(winner, 0)]
        trailing = np.int64(np.count_nonzero(alone & (winner_mid < top)))
        out["trailing_wins"] = (trailing, trailing)
        changes = np.asarray(outcome["lead_changes"]).astype(np.int64)
        out["lead_changes"] = (changes.sum(), np.dot(changes, changes))
    return out


def compute(summary: Any, cooperative: bool, turns_are_rounds: bool = False) -> dict[str, Value | list[Value]]:
    """Every game metric a run of this game defines, from its merged summary (absent: not in the result).

    ``turns_are_rounds``: the game's ``INFO.turns_are_rounds`` (its turns are rounds: no separate ``turns``).
    """
    n = summary.n_games
    out: dict[str, Value | list[Value]] = {"duration": Value(*summary.mean_rounds(turns_are_rounds))}
    if not turns_are_rounds:
        out["turns"] = Value(*summary.mean_turns())
    if cooperative:  # every seat wins or loses with the table: seat 0's wins are the table's
        out["table_win_rate"] = _share(int(summary.wins[0] + summary.shared_wins[0]), n)
        return out
    sums, squares = summary.sums, summary.squares
    if PREFIX + "points" not in sums:
        return out
    share, s_low, s_high = stats.mean_interval(sums[PREFIX + "points"], squares[PREFIX + "points"], n)
    share, s_low, s_high = share / POINTS, s_low / POINTS, s_high / POINTS
    fair = float(share.mean())
    bounds = zip(share - fair, s_low - fair, s_high - fair, strict=True)
    seats = [Value(float(v), float(lo), float(hi)) for v, lo, hi in bounds]
    out["seat_advantage"] = seats
    out["first_seat_advantage"] = seats[0]
    out["max_seat_advantage"] = max(seats, key=lambda v: round(abs(v.value), 12))  # a tie goes to the first
    single = int(summary.wins.sum())
    out["decisiveness"] = _share(single, n)
    if PREFIX + "trailing_wins" in sums:
        out["drama"] = _share(int(sums[PREFIX + "trailing_wins"]), n)
        m, lo, hi = stats.mean_interval(sums[PREFIX + "lead_changes"], squares[PREFIX + "lead_changes"], n)
        out["lead_changes"] = Value(float(m), float(lo), float(hi))
    return out


def _share(k: int, n: int) -> Value:
    low, high = stats.wilson(k, n)
    return Value(k / n, float(low), float(high))


def from_ladder(ladder: Any) -> dict[str, Value]:
    """``skill_depth`` (the chain's links; an integer, its margin is in the chain's definition) and ``luck_share``."""
    depth = float(len(ladder.chain))
    share, low, high = ladder.luck
    return {"skill_depth": Value(depth, depth, depth), "luck_share": Value(share, low, high)}


def as_json(metrics: Mapping[str, Value | list[Value]]) -> dict[str, Any]:
    """The metrics JSON-ready: ``{name: {"value", "ci"}}``, a list of those for ``seat_advantage``."""
    return {k: [x.as_json() for x in v] if isinstance(v, list) else v.as_json() for k, v in metrics.items()}


def lines(metrics: Mapping[str, Value | list[Value]]) -> list[str]:
    """One readable line per metric (shares in percent), in the order of :data:`DEFINITIONS`."""
    out = []
    for name, definition in DEFINITIONS.items():
        value = metrics.get(name)
        if isinstance(value, Value):
            out.append(f"{name}: {format_value(name, value)}  ({definition.label})")
    if isinstance(seats := metrics.get("seat_advantage"), list):
        out.append("seat_advantage by seat: " + ", ".join(format_value("seat_advantage", v) for v in seats))
    return out


def format_value(name: str, value: Value) -> str:
    """``+1.2% (+0.9 to +1.6)`` for an advantage, ``45.6% (45.1–46.1)`` for a share, ``23.1 (22.9–23.3)`` else.

    The style is :func:`analysis.wording.interval`'s, the one every report and table uses.
    """
    if name.endswith("advantage"):
        return interval(100 * value.value, 100 * value.low, 100 * value.high, 1, "%", signed=True)
    if DEFINITIONS[name].share:
        return interval(100 * value.value, 100 * value.low, 100 * value.high, 1, "%")
    digits = 2 if abs(value.value) < 10 else 1
    return interval(value.value, value.low, value.high, digits)
