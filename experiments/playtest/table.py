"""One game played a decision at a time, through the game's seat adapter; and one game of a run, observed.

A game's seat adapter (``decisions.Seat``, reached through :mod:`engines.seating`) wraps each seat's policy so that
every decision point goes through a ``decide`` hook. Here that hook replays a script of recorded decisions, then
hands each further decision to a live chooser: a person's terminal, or the seat's policy. The game's dice come from
``SeedSequence(seed)`` alone and a policy's own coin from a stream of its decision's (:class:`GameSource`), so the
same setup and decisions always give the same game, whether or not a replay asks the policies again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.experiments.playtest.record import RecordError
from boardlab.experiments.playtest.setup import HUMAN, Setup

Live = Callable[[Any, int, Callable[[], np.ndarray], int], int]
"""``(point, seat, propose, index) -> candidate`` for decision ``index`` (``propose()``: the seat policy's)."""


POLICY_STREAM = 0x504F4C  #: the spawn key that keeps the seats' own randomness apart from the game's dice


class GameSource(core.RandomSource):
    """The chance of a played game of seed ``seed``: ``SeedSequence(seed)``'s stream, for the dice alone.

    A policy that draws chance to choose (``random``'s coin) draws it, while its proposal for decision ``index`` is
    asked, from a stream of that decision's own (:meth:`proposing`). So the dice never depend on whether a
    proposal was asked: a replay that feeds recorded decisions without asking meets the same dice as the game did.
    """

    def __init__(self, seed: int) -> None:
        """The game's dice stream; the search seed is fixed now, from the dice stream's seed."""
        super().__init__(np.random.default_rng(np.random.SeedSequence(seed)))
        self.seed, self.dice = seed, self.rng
        self.search_seed  # noqa: B018 - fixed before any proposal could replace the stream it derives from

    @contextlib.contextmanager
    def proposing(self, index: int) -> Iterator[None]:
        """Within the block, draws come from decision ``index``'s own stream, not the dice."""
        self.rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(POLICY_STREAM, index)))
        try:
            yield
        finally:
            self.rng = self.dice


def game_source(seed: int) -> GameSource:
    """The chance of a played game of seed ``seed``."""
    return GameSource(seed)


def seated(setup: Setup, names: Sequence[str], decide: Any, as_run: bool = False) -> list[object]:
    """One wrapped implementation per seat; seats of the same name share one (as a run's seats do).

    A :data:`HUMAN` seat asks and uses the game's rollout policy for whatever is not a decision point; with
    ``as_run`` every seat plays exactly as its policy plays in a run.
    """
    seats = setup.seating
    inner_names = [seats.ROLLOUT if n == HUMAN else n for n in names]
    inner = seats.instances(setup.params, inner_names, len(names))
    made: dict[str, object] = {}
    for name, impl in zip(names, inner, strict=True):
        if name not in made:
            made[name] = seats.watching(impl, decide) if as_run else seats.seat(impl, decide, name == HUMAN)
    return [made[n] for n in names]


@dataclass
class Observed:
    """A decision of an observed game: its position (one row), the seat that decided and the candidate chosen."""

    point: Any
    seat: int
    move: int


@dataclass
class Played:
    """A played game: each seat's final score and who won, and every decision made."""

    scores: list[float]
    winners: list[bool]
    decisions: list[tuple[int, int]]


@dataclass
class Log:
    """The decisions of a game so far, ``(seat, candidate)``, and how many legal moves each one had."""

    decisions: list[tuple[int, int]] = field(default_factory=list)
    options: list[int] = field(default_factory=list)

    def previous_choice(self, seat: int, before: int) -> int | None:
        """The index of ``seat``'s last decision before ``before`` that had a choice, or ``None``."""
        for index in range(min(before, len(self.decisions)) - 1, -1, -1):
            if self.decisions[index][0] == seat and self.options[index] >= 2:
                return index
        return None


def play(
    setup: Setup,
    script: Sequence[tuple[int, int]],
    live: Live,
    log: Log | None = None,
    watch: Callable[[Observed], None] | None = None,
) -> Played:
    """Play the setup's game: the script's decisions first, then ``live``'s, each written to ``log``.

    ``log`` keeps what was decided when ``live`` stops the game by raising; ``watch`` sees every decision made.

    Raises:
        RecordError: where a scripted decision is not the seat's to make or not legal there.
    """
    log = Log() if log is None else log
    source = game_source(setup.seed)

    def decide(point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        index, seat = len(log.decisions), int(point.seat[0])
        legal = point.legal()[0]
        if index < len(script):
            want, move = script[index]
            if want != seat or not 0 <= move < len(legal) or not legal[move]:
                raise RecordError(f"decision {index + 1} does not replay (seat {want} move {move} at seat {seat})")
        else:

            def proposal() -> np.ndarray:
                with source.proposing(index):
                    return propose()

            move = live(point, seat, proposal, index)
        log.decisions.append((seat, move))
        log.options.append(int(legal.sum()))
        if watch is not None:
            watch(Observed(point.take(np.zeros(1, dtype=np.int64)), seat, move))
        return np.array([move], dtype=np.int64)

    impls = seated(setup, setup.seats, decide)
    out = setup.seating.play(setup.params, impls, 1, source)
    scores = [float(x) for x in np.asarray(out["score"])[0]]
    return Played(scores, [bool(w) for w in np.asarray(out["winners"])[0]], log.decisions)


def observe_run_game(setup: Setup, chunk_seed: np.random.SeedSequence, size: int, row: int) -> list[Observed]:
    """Every decision of game ``row`` of a run's chunk of ``size`` games drawn from ``chunk_seed``.

    The whole chunk is played as the run plays it (same seats, same batch, same chance), each seat's policy
    answering itself; the seats' wrappers only watch row ``row``'s decisions.
    """
    seen: list[Observed] = []

    def decide(point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        moves = np.asarray(propose(), dtype=np.int64)
        for j in np.flatnonzero(games == row).tolist():
            seen.append(Observed(point.take(np.array([j])), int(point.seat[j]), int(moves[j])))
        return moves

    impls = seated(setup, setup.seats, decide, as_run=True)
    source = core.RandomSource(np.random.default_rng(chunk_seed))
    setup.seating.play(setup.params, impls, size, source)
    return seen
