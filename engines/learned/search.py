"""A small settings search, the learned recipe's last step: train a few candidates and keep the best measured one.

:func:`candidates` varies the spec's own settings one field at a time (the hidden layer halved and doubled, the
closing passes switched on or off); :func:`search` trains each (cached like any model: a candidate equal to what
``learned`` plays is the shipped or cached model) and measures it at a fixed seed on the game's validation
measure (:func:`measure_for`):

- where the game has an exact player (``RECORD.exact``) whose seats give ``exact_values`` at this table, the
  **exact loss**: the candidate plays against the exact player from each seat in turn, and at each of its
  decisions with a choice the exact chance to win it gave up (the best candidate's exact value less its move's)
  is added up per game; lower is better. By the performance difference lemma it is the candidate's shortfall from
  the exact player's share, in expectation, and far less noisy than counting wins;
- else the **share** of the win against the game's first heuristic (every seat in turn); higher is better.

The best measure wins; the words say by how much, paired game by game with the runner-up (every candidate plays
the same validation games), and whether that difference's interval clears zero. The same seed
gives the same table. A game adopts the winner by putting its settings in its spec's ``settings``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.learned import checks, lifecycle, store, training
from boardlab.engines.learned.exploit import interval
from boardlab.engines.learned.training import Settings
from boardlab.engines.record import record_of
from boardlab.engines.seating import seating_of

VALIDATION_GAMES = 1_000  #: validation games per seat (ours: a few seconds each on Swine)
ANNEAL = 5  #: the closing passes a candidate switches on where the spec has none (ours, as Swine's)


@dataclass(frozen=True)
class Candidate:
    """A setting tried: what it changes from the spec's own, and the settings."""

    name: str
    settings: Settings


@dataclass(frozen=True)
class Scored:
    """A candidate measured: the measure's mean and 95% interval, the training's source and seconds."""

    candidate: Candidate
    mean: float
    low: float
    high: float
    how: str  #: "shipped", "cached" or "trained"
    seconds: float
    games: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)  #: each validation game's measure

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly fields."""
        settings = self.candidate.settings.as_key()
        return {
            "candidate": self.candidate.name,
            "settings": settings,
            "mean": self.mean,
            "low": self.low,
            "high": self.high,
            "how": self.how,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class Measure:
    """The validation measure: its name, unit words, whether lower is better, and ``score(model)``."""

    name: str
    lower_is_better: bool
    score: Callable[[Any], np.ndarray]  #: ``model -> each validation game's measure``, in points


def candidates(base: Settings) -> list[Candidate]:
    """The spec's own settings, then one change each: hidden layers halved and doubled, closing passes toggled.

    A network only (an n-tuple model has no hidden layers or step size): its own settings alone.
    """
    out = [Candidate("the spec's own", base)]
    if base.family != training.MLP:
        return out
    half = tuple(max(1, h // 2) for h in base.hidden)
    double = tuple(2 * h for h in base.hidden)
    out.append(Candidate(f"hidden {','.join(map(str, half))}", replace(base, hidden=half)))
    out.append(Candidate(f"hidden {','.join(map(str, double))}", replace(base, hidden=double)))
    toggled = 0 if base.anneal_epochs else ANNEAL
    out.append(Candidate(f"closing passes {toggled}", replace(base, anneal_epochs=toggled)))
    return out


def exact_loss(module: Any, player: type, params: Any, model: Any, n: int, seed: int) -> np.ndarray:
    """The exact loss per game, in points, of ``player`` playing ``model`` against the exact player (see the module).

    ``n`` games in each of the two seats, seeded ``seed + seat``.
    """
    seating = seating_of(module)
    exact = record_of(module).exact[0]
    loss = np.zeros(n)

    def hook(point: Any, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        chosen = np.asarray(propose())
        for r in np.flatnonzero(point.legal().sum(axis=1) >= 2):
            values = seating.exact_values(point, int(r))
            if values is not None:
                loss[int(games[r])] += np.nanmax(values) - values[chosen[r]]
        return chosen

    every = []
    for seat in (0, 1):
        loss[:] = 0
        impls = seating.instances(params, [exact, exact], 2)
        for impl in impls:
            getattr(impl, "prepare", lambda players: None)(2)
        impls[seat] = seating.watching(player(params, models={2: model}), hook)
        seating.play(params, impls, n, core.RandomSource(np.random.default_rng(seed + seat)))
        every.append(loss.copy())
    return 100 * np.concatenate(every)


def share_against(
    module: Any, player: type, params: Any, players: int, model: Any, rival: str, n: int, seed: int
) -> np.ndarray:
    """The share of the win, in points, of ``player`` playing ``model`` alone among ``rival`` (every seat in turn).

    Cooperative games: the share of games a table of ``player`` wins (``rival`` unused).
    """
    if module.INFO.cooperative:
        impls = [player(params, models={players: model})] * players
        out = player.spec.play(params, impls, n * players, core.RandomSource(np.random.default_rng(seed)))
        return 100 * np.asarray(out["winners"], dtype=np.float64)[:, 0]
    shares = []
    for seat in range(players):
        impls = core.policy_instances(module.POLICIES, [rival] * players, params)
        impls[seat] = player(params, models={players: model})
        out = player.spec.play(params, impls, n, core.RandomSource(np.random.default_rng([seed, seat])))
        winners = np.asarray(out["winners"], dtype=np.float64)
        shares.append(winners[:, seat] / np.maximum(winners.sum(axis=1), 1))
    return 100 * np.concatenate(shares)


def measure_for(module: Any, player: type, params: Any, players: int, n: int, seed: int) -> Measure:
    """The exact loss where the game's exact player and exact values cover this table, else the share (module)."""
    exact = record_of(module).exact
    seating = None
    with contextlib.suppress(ModuleNotFoundError):
        seating = seating_of(module)
    if exact and players == 2 and getattr(seating, "exact_values", None) is not None:
        name = f"exact loss per game against {exact[0]} (points; lower is better)"
        return Measure(name, True, lambda model: exact_loss(module, player, params, model, n, seed))
    rival = checks.first_heuristic(module) or "random"
    name = f"share against {rival} (points; higher is better)"
    if module.INFO.cooperative:
        name = "games a table of learned wins (points; higher is better)"
    return Measure(name, False, lambda model: share_against(module, player, params, players, model, rival, n, seed))


@dataclass(frozen=True)
class Result:
    """The search's table, its measure, the winner and why."""

    measure: str
    rows: list[Scored]
    chosen: Scored
    why: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly fields."""
        return {
            "measure": self.measure,
            "rows": [r.as_dict() for r in self.rows],
            "chosen": self.chosen.as_dict(),
            "why": self.why,
        }


def search(
    module: Any,
    params: Any,
    players: int,
    base: Settings,
    games: int = VALIDATION_GAMES,
    mapper: training.Mapper = training.serial,
    retrain: bool = False,
    say: Callable[[str], None] | None = None,
) -> Result:
    """Train each of :func:`candidates` of ``base`` and measure it on ``games`` validation games a seat.

    The validation seed is ``base.seed``. ``say`` hears each row as it is measured.
    """
    player = checks.learned_player(module)
    assert player is not None, "the search needs a lifecycle learned player"
    measure = measure_for(module, player, params, players, games, base.seed)
    rows = []
    for candidate in candidates(base):
        start = time.perf_counter()
        wanted = lifecycle.request(player, params, players, candidate.settings)
        model, _, how = store.obtain(wanted, None, mapper, None, retrain, True)
        seconds = time.perf_counter() - start
        games_measured = measure.score(model)
        rows.append(Scored(candidate, *interval(games_measured), how, seconds, games_measured))
        if say is not None:
            say(row_words(rows[-1]))
    ranked = sorted(rows, key=lambda r: r.mean if measure.lower_is_better else -r.mean)
    return Result(measure.name, rows, ranked[0], why(ranked, measure.lower_is_better))


def row_words(row: Scored) -> str:
    """One line of the table."""
    return (
        f"{row.candidate.name:<22} {row.mean:6.2f} (95% {row.low:.2f} to {row.high:.2f})  "
        f"{row.how}, {row.seconds:.0f} s"
    )


def why(ranked: list[Scored], lower: bool) -> str:
    """Why the first of ``ranked`` was chosen, in a sentence: by how much, paired game by game with the runner-up.

    Every candidate plays the same validation games (seeds), so the difference is taken game by game and its 95%
    interval says whether the winner is detectably better.
    """
    best = ranked[0]
    words = f"{best.candidate.name}: the {'lowest' if lower else 'highest'} measure, {best.mean:.2f}"
    if len(ranked) == 1:
        return f"{words} (the only candidate)"
    runner = ranked[1]
    gain, low, high = interval((runner.games - best.games) * (1 if lower else -1))
    tail = (
        "detectably better" if low > 0 else "not detectably better: no candidate is (more validation games would tell)"
    )
    return (
        f"{words}, against {runner.mean:.2f} for {runner.candidate.name}: {gain:.2f} points better game by game "
        f"(95% {low:.2f} to {high:.2f}), {tail}"
    )
