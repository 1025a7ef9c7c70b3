"""The expert: a game-agnostic Monte Carlo search over any game's decision points.

The expert improves on a rollout policy (Tesauro and Galperin 1996, "On-line policy improvement using Monte-Carlo
search"). At each decision it starts from the move the rollout policy would make, and scores every legal candidate
by playing copies of the position to the end with the rollout policy in every seat; a copy's value is the deciding
seat's share of the win (``1/k`` for a win shared by ``k``; a cooperative win counts 1). Half the budget of ``N``
playouts per decision goes to successive halving (Karnin, Koren and Somekh 2013): each round shares an equal part
among the challengers still running and drops the worse half (equal win rates are told apart by the mean score
margin). The other half is a duel on fresh streams between the default move and the last challenger, which
replaces it only when the paired gain is ``SWITCH_Z`` standard errors above zero (the spread measured about zero,
:func:`duel_statistic`): picking the best of many noisy challengers and then testing it on the same playouts would
switch on luck. All candidates of a position are played on the same random streams (common random numbers), so
their differences are far less noisy than their values.

The expert sees only what its seat sees. Each playout first redraws what the seat cannot see from what it knows
(:meth:`~engines.core.DecisionPoint.determinise`), and its chance comes from streams keyed by the decision and the
playout's number, never from the game's own source. So its choice is a function of the seat's information alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np

from boardlab.engines.core import DecisionPoint, Policy, StreamSource, ascii_whole, mix64, policy_instances

MAX_PLAYOUTS = 1 << 16  #: the largest budget ``expert:N`` accepts
MAX_COPIES = 1 << 17  #: positions played out at once; a larger batch is searched in groups of rows
SWITCH_Z = 2.0  #: leave the rollout policy's move only for one better by this many standard errors (paired)
MIN_PAIRED = 8  #: the duel between the default and its best challenger plays at least this many streams
EXTEND_T = 1.0  #: a duel whose challenger leads by this many standard errors, but not SWITCH_Z, goes on ...
DUEL_EXTENSIONS = 3  #: ... at most this many times, doubling its streams each time


Budget = int | Mapping[int, int]
"""A default budget: one number, or playouts by player count (``{2: 512, 3: 2048}``: 512 with two players, 2048
with three or more), for games where a decision moves a seat's chance of winning less at a larger table."""
Entry = TypeVar("Entry")


def by_table_size(values: Mapping[int, Entry], players: int) -> Entry:
    """The entry of ``values`` (keyed by player count) for a table of ``players``.

    That is the entry of the largest count not above ``players``, else that of the smallest count.
    """
    return values[max((k for k in values if k <= players), default=min(values))]


def default_playouts(default: Budget, players: int) -> int:
    """The default playouts per decision at a table of ``players``."""
    return default if isinstance(default, int) else by_table_size(default, players)


def describe_budget(default: Budget) -> str:
    """``"512"``, or ``"512 with 2 players, 2048 with 3 or more"``."""
    if isinstance(default, int):
        return str(default)
    counts = sorted(default)
    parts = [f"{default[k]} with {k} player{'s' * (k > 1)}" for k in counts[:-1]]
    return ", ".join([*parts, f"{default[counts[-1]]} with {counts[-1]} or more"])


@dataclass(frozen=True, slots=True)
class Rollout:
    """The argument of ``expert:N@P``: ``N`` playouts per decision (``None``: the default) with ``P`` in every seat."""

    playouts: int | None
    rollout: str


def parse_playouts(text: str | None, default: Budget, rollouts: tuple[str, ...] = ()) -> int | Rollout | None:
    """Parse the ``N`` of ``expert:N`` (or ``expert:N@P`` and ``expert:@P``, ``P`` one of ``rollouts``).

    No text gives ``default`` when it is one number, else ``None``: the adapter picks the budget for its table
    with :func:`default_playouts` once it knows the number of players. Out-of-range text: one-line ``ValueError``.
    """
    if text is not None and "@" in text:
        budget, _, rollout = text.partition("@")
        if rollout not in rollouts:
            allowed = f"one of {', '.join(rollouts)}" if rollouts else "none here"
            raise ValueError(f"expert:{text}: the playout policy after @ must be {allowed}")
        return Rollout(parse_playouts(budget or None, default) if budget else None, rollout)
    if text is None:
        return default if isinstance(default, int) else None
    if (value := ascii_whole(text)) is None:
        raise ValueError(
            f"expert:{text}: the budget must be a whole number of playouts in digits 0-9, 1..{MAX_PLAYOUTS}"
        )
    if not 1 <= value <= MAX_PLAYOUTS:
        raise ValueError(f"expert:{text}: the budget must be 1..{MAX_PLAYOUTS} playouts per decision")
    return value


def expert_policy(
    make: Callable[..., object], rollout: str, default: Budget, chunk_games: int, rollouts: tuple[str, ...] = ()
) -> Policy:
    """The ``expert`` entry of a game's policy registry; ``make(params, playouts)`` builds the game's adapter.

    ``chunk_games`` caps the games per chunk of a run with an expert seat: enough games that every decision is
    searched in large batches, few enough that a chunk takes about a minute. ``rollouts`` names the other playout
    policies ``expert:N@P`` may ask for; the adapter then gets a :class:`Rollout`.
    """
    other = ""
    if rollouts:
        other = f"; expert:N@P plays out with P, one of {', '.join(rollouts)} (e.g. expert:64@{rollouts[0]})"
    return Policy(
        "expert",
        f"Monte Carlo search improving on {rollout}: N playouts per decision ({rollout} in every seat) try the "
        f"legal moves, and {rollout}'s move is left only for one that wins clearly more often; sees only its "
        "seat's information.",
        make,
        argument=f"N = playouts per decision, 1..{MAX_PLAYOUTS} (default {describe_budget(default)}); e.g. "
        f"expert:{default_playouts(default, 2) * 4}{other}",
        parse_arg=partial(parse_playouts, default=default, rollouts=rollouts),
        chunk_games=chunk_games,
    )


@dataclass(frozen=True)
class Searcher:
    """The expert as a decide function, ``searcher(point, games, propose)``: the search's candidate of every row.

    It never asks for ``propose()``: its default move is the rollout policy's, from the point itself.
    """

    params: object
    playouts: int | None  #: None: ``defaults`` for the table's player count
    rollout: str  #: the playout policy and default move
    defaults: Budget
    policies: Mapping[str, Policy]  #: the registry the rollout policy is named in

    @classmethod
    def of(
        cls, params: object, playouts: int | Rollout | None, rollout: str, defaults: Budget, policies: Mapping
    ) -> Searcher:
        """The search ``expert:N`` (or ``expert:N@P``, which names the rollout policy too) asks for."""
        if isinstance(playouts, Rollout):
            return cls(params, playouts.playouts, playouts.rollout, defaults, policies)
        return cls(params, playouts, rollout, defaults, policies)

    def search(self, players: int) -> Search:
        """The search at a table of ``players``."""
        return Search(self.playouts or default_playouts(self.defaults, players), self.rollout)

    def prepare(self, players: int) -> None:
        """Let the rollout policy load (or train) what it needs before play starts."""
        (impl,) = policy_instances(self.policies, [self.rollout], self.params)
        hook = getattr(impl, "prepare", None)
        if hook is not None:
            hook(players)

    def __call__(self, point: DecisionPoint, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The searched candidate of every row of ``point``."""
        return self.search(point.players).choose(point)


def searching(
    params: object,
    playouts: int | Rollout | None,
    seat: Callable[..., object],
    rollout: str,
    defaults: Budget,
    policies: Mapping[str, Policy],
) -> object:
    """The ``expert``'s implementation: the game's seat adapter ``seat(inner, decide, policies)``, the search deciding.

    It has no inner policy: the search's default move is the rollout policy's, from the point.
    """
    return seat(None, Searcher.of(params, playouts, rollout, defaults, policies), policies)


def seat_reward(winners: np.ndarray, seat: np.ndarray, cooperative: bool) -> np.ndarray:
    """The deciding seat's share of each game: 1 for a win, ``1/k`` for a win shared by ``k``, else 0."""
    won = winners[np.arange(len(seat)), seat].astype(np.float64)
    if cooperative:
        return won
    return won / np.maximum(winners.sum(axis=1), 1)


def seat_margin(score: np.ndarray, seat: np.ndarray, cooperative: bool) -> np.ndarray:
    """The deciding seat's score less the best other seat's (cooperative: the table's score)."""
    rows = np.arange(len(seat))
    own = score[rows, seat].astype(np.float64)
    if cooperative or score.shape[1] == 1:
        return own
    others = score.astype(np.float64)
    others[rows, seat] = -np.inf
    return own - others.max(axis=1)


@dataclass(frozen=True, slots=True)
class Search:
    """Policy improvement over the rollout policy by successive halving with common random numbers."""

    playouts: int  #: playouts per decision and row, shared among the candidates
    rollout: str  #: the policy every seat follows in the playouts, and the default move

    def choose(self, point: DecisionPoint) -> np.ndarray:
        """The chosen candidate of every row of ``point``: ``(B,)`` int64."""
        legal = point.legal()
        choice = point.suggest(self.rollout).astype(np.int64)  # rows with one candidate need no search
        open_rows = np.flatnonzero(legal.sum(axis=1) >= 2)
        group = max(1, MAX_COPIES // self.playouts)
        for start in range(0, len(open_rows), group):
            rows = open_rows[start : start + group]
            choice[rows] = self._improve(point.take(rows), legal[rows], choice[rows])
        return choice

    def _improve(self, point: DecisionPoint, legal: np.ndarray, default: np.ndarray) -> np.ndarray:
        """Halve the challengers of the default move, then duel the best one against it on fresh streams.

        Half the budget goes to the halving rounds and half to the duel; the duel alone decides, so the luck that
        made a challenger look best in the rounds does not carry over (no winner's curse).
        """
        n_rows, n_actions = legal.shape
        rows = np.arange(n_rows)
        alive = legal.copy()
        rounds = np.ceil(np.log2(legal.sum(axis=1))).astype(np.int64)
        wins = np.zeros((n_rows, n_actions))
        margin = np.zeros((n_rows, n_actions))
        played = np.zeros(n_rows, dtype=np.int64)  # streams every live candidate of the row has been played on
        halving = max(1, self.playouts // 2)
        while True:
            open_rows = (alive.sum(axis=1) > 2) | (played == 0)
            if not open_rows.any():
                break
            per_candidate = np.where(open_rows, np.maximum(1, halving // (alive.sum(axis=1) * rounds)), 0)
            row_idx, action_idx, stream, reward, score_margin = self._play(point, alive, per_candidate, played)
            np.add.at(wins, (row_idx, action_idx), reward)
            np.add.at(margin, (row_idx, action_idx), score_margin)
            played += per_candidate
            closing = open_rows & (alive.sum(axis=1) > 2)
            alive = _keep_better_half(alive, wins / np.maximum(played, 1)[:, None], margin, closing, default)

        challenger = np.where(alive & (np.arange(n_actions) != default[:, None]), 1, 0).argmax(axis=1)
        better = np.zeros(n_rows, dtype=bool)
        pending = alive.sum(axis=1) == 2
        sums, squares = np.zeros(n_rows), np.zeros(n_rows)
        size = max(MIN_PAIRED, (self.playouts - halving) // 2)
        for look in range(1 + DUEL_EXTENSIONS):
            per_candidate = np.where(pending, size, 0)
            row_idx, action_idx, stream, reward, _ = self._play(point, alive, per_candidate, played)
            gain = np.zeros((n_rows, size))
            sign = np.where(action_idx == default[row_idx], -1.0, 1.0)
            np.add.at(gain, (row_idx, stream - played[row_idx]), sign * reward)  # challenger less default
            sums += gain.sum(axis=1)
            squares += (gain**2).sum(axis=1)
            played += per_candidate
            t = duel_statistic(sums, squares)
            better |= pending & (t > SWITCH_Z)
            pending &= ~better & (t > EXTEND_T) & (look < DUEL_EXTENSIONS)
            if not pending.any():
                break
            size *= 2
        return np.where(better, challenger, default)[rows]

    def _play(
        self, point: DecisionPoint, alive: np.ndarray, per_candidate: np.ndarray, played: np.ndarray
    ) -> tuple[np.ndarray, ...]:
        """Play every live candidate of every row ``per_candidate[row]`` times, on streams from ``played[row]`` on.

        Returns per playout its row, candidate, stream number, the deciding seat's reward and score margin.
        """
        row_of, action_of = np.nonzero(alive & (per_candidate > 0)[:, None])
        repeats = per_candidate[row_of]
        row_idx, action_idx = np.repeat(row_of, repeats), np.repeat(action_of, repeats)
        first = np.repeat(np.cumsum(repeats) - repeats, repeats)
        stream = played[row_idx] + np.arange(len(row_idx)) - first  # the same numbers for every candidate
        source = StreamSource(mix64(point.key[row_idx] ^ mix64(stream.astype(np.uint64))))
        copies = point.take(row_idx)
        copies.determinise(source)
        copies.apply(action_idx)
        winners, score = copies.play_out([self.rollout] * point.players, source)
        seat = point.seat[row_idx]
        reward = seat_reward(winners, seat, point.cooperative)
        return row_idx, action_idx, stream, reward, seat_margin(score, seat, point.cooperative)


def duel_statistic(sums: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """How many standard errors the challenger's paired gain is above zero, per row (sums of gains and squares).

    The spread is measured about zero, the gain the test rules out, not about the observed mean: a sum over the
    root of the sum of squares (with win-or-lose gains, the sign test on the playouts the two moves split). The t
    statistic's spread about the mean shrinks when a few differing playouts all agree, so it switched on luck at
    small budgets: 3 of 8 pairs favouring the challenger and none against gave t = 2.05 (here 1.73).
    """
    return np.where(squares > 0, sums / np.sqrt(np.maximum(squares, 1e-12)), 0.0)


def candidate_values(point: DecisionPoint, rollout: str, per_candidate: int) -> np.ndarray:
    """``(B, A)``: each legal candidate's mean share of the win over ``per_candidate`` playouts; NaN if illegal.

    The playouts are the expert's (:class:`Search`): ``rollout`` in every seat, what the deciding seat cannot see
    redrawn first, and every candidate of a row played on the same streams, so the differences between a row's
    values are far less noisy than the values. Expert iteration's targets (search-improved values for a learned
    player to fit).
    """
    legal = point.legal()
    values = np.full(legal.shape, np.nan)
    search = Search(per_candidate, rollout)
    group = max(1, MAX_COPIES // max(1, per_candidate * legal.shape[1]))
    for start in range(0, len(legal), group):
        rows = np.arange(start, min(start + group, len(legal)))
        each = np.full(len(rows), per_candidate, dtype=np.int64)
        row_idx, action_idx, _, reward, _ = search._play(point.take(rows), legal[rows], each, np.zeros_like(each))
        total = np.zeros((len(rows), legal.shape[1]))
        np.add.at(total, (row_idx, action_idx), reward)
        values[rows] = np.where(legal[rows], total / per_candidate, np.nan)
    return values


def _keep_better_half(
    alive: np.ndarray, wins: np.ndarray, margin: np.ndarray, rows: np.ndarray, default: np.ndarray
) -> np.ndarray:
    """In each of ``rows``, keep the default and the better half (rounded up) of the other live candidates.

    Better: a higher mean win share; among equals, a higher mean score margin; then the lower number.
    """
    n_actions = alive.shape[1]
    number = np.broadcast_to(np.arange(n_actions), alive.shape)
    is_default = number == default[:, None]
    challengers = alive & ~is_default
    order = np.lexsort((number, -np.where(challengers, margin, -np.inf), -np.where(challengers, wins, -np.inf)), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(n_actions)[None, :].repeat(len(order), axis=0), axis=1)
    keep = (challengers.sum(axis=1) + 1) // 2
    return np.where(rows[:, None], (challengers & (rank < keep[:, None])) | is_default, alive)
