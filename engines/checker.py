"""The public game checker (like pgx's ``api_test`` or Gymnasium's ``check_env``): does a game honour the contract?

:func:`check_game` runs every check of :data:`CHECKS` on a game package (a registered one, or one from outside
before it registers) and raises :class:`CheckError` naming the game, the check and what is wrong. The checks
(DESIGN.md §2 and ``engines/README.md``):

- ``contract``: ``INFO``, a frozen ``Params`` whose knobs are documented and sourced, the policy registry, the
  metrics, variants that apply;
- ``columns``: for every policy, the standard outcome columns' shapes, dtypes and bounds, and each metric's;
- ``batch``: a batch of B games equals B batches of one on the same scripted stream;
- ``seeds``: the same seed plays the same games, another seed others;
- ``reference``: the reference engine plays the same games as ``play`` on the same scripted streams (the seats
  the game's record names for it, else those it benchmarks; every column the reference engine returns; floats
  to 1e-9, NaN equal to NaN).

Searching policies are checked at a budget of 4 (the contract, not their strength). Each check plays a few games.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from engines.core import GameInfo, Metric, Policy, ScriptedSource
from engines.record import record_of

STREAM = 50_000  # uniforms per scripted game: more than any game draws


class CheckError(AssertionError):
    """A game breaks the contract: the message names the game, the check and the problem."""


def _require(ok: bool, game: str, check: str, problem: str) -> None:
    if not ok:
        raise CheckError(f"{game}: {check}: {problem}")


def seats_for(module: Any, policy: str) -> list[str]:
    """Every seat plays ``policy`` (an ``expert...`` at budget 4), at the smallest table of at least 2 if allowed."""
    name = f"{policy}:4" if policy.startswith("expert") else policy
    return [name] * max(module.INFO.min_players, 2 if module.INFO.max_players >= 2 else 1)


def check_contract(module: Any) -> None:
    """``INFO``, ``Params``, ``POLICIES``, ``METRICS`` and ``VARIANTS`` are declared as the contract says."""
    game = getattr(getattr(module, "INFO", None), "id", module.__name__)
    need = lambda ok, problem: _require(ok, game, "contract", problem)  # noqa: E731
    need(isinstance(module.INFO, GameInfo), "INFO is not a GameInfo")
    need(isinstance(module.INFO.chunk_games, int) and 1_000 <= module.INFO.chunk_games <= 50_000, "chunk_games")
    params = module.Params()
    need(dataclasses.is_dataclass(params), "Params is not a dataclass")
    try:
        params.__setattr__(dataclasses.fields(params)[0].name, None)
    except dataclasses.FrozenInstanceError:
        pass
    else:
        need(False, "Params is not frozen")
    need(all(k.doc and k.allowed for k in module.Params.knobs()), "a knob without a docstring or allowed range")
    undeclared = [k.name for k in module.Params.knobs() if not k.source]
    need(not undeclared, f"knobs whose default's source is not declared: {undeclared}")
    policies = module.POLICIES
    need(bool(policies) and all(isinstance(p, Policy) and p.description for p in policies.values()), "POLICIES")
    need(all(name == name.lower() and " " not in name for name in policies), "policy names must be kebab-case")
    need(all(isinstance(m, Metric) for m in module.METRICS.values()), "METRICS")
    for overrides in module.VARIANTS.values():
        params.with_strings(overrides)


def check_columns(module: Any, n: int = 16) -> None:
    """Every policy's outcome: the standard columns' shapes, dtypes and bounds, and each metric's length."""
    game = module.INFO.id
    for policy in module.POLICIES:
        seats = seats_for(module, policy)
        out = module.play(module.Params(), seats, n, np.random.default_rng(0))
        players = len(seats)
        need = lambda ok, problem, p=policy: _require(ok, game, "columns", f"{p}: {problem}")  # noqa: E731
        need(out["score"].shape == (n, players) and out["score"].dtype == np.int32, "score must be (n, P) int32")
        need(out["winner"].shape == (n,) and out["winner"].dtype == np.int8, "winner must be (n,) int8")
        need(out["winners"].shape == (n, players) and out["winners"].dtype == bool, "winners must be (n, P) bool")
        turns = out["turns"]
        need(turns.shape == (n,) and bool(np.all((turns > 0) & (turns <= module.INFO.turn_cap))), "turns cap")
        need(bool(np.all(out["winner"] >= -2) and np.all(out["winner"] < players)), "winner out of range")
        need(bool(np.all(out["winners"][out["winner"] >= 0].sum(axis=1) == 1)), "a sole winner with others")
        for column, metric in module.METRICS.items():
            need(len(out[column]) == n, f"metric {column} has another length")
            if metric.kind == "seat":
                need(out[column].shape == (n, players), f"seat metric {column} must be (n, P)")


def check_batch(module: Any, n: int = 6) -> None:
    """A batch of ``n`` games equals ``n`` batches of one on the same scripted stream."""
    seats = seats_for(module, next(iter(module.POLICIES)))
    source = ScriptedSource.from_seed(1, n, STREAM)
    together = module.play(module.Params(), seats, n, source)
    for g in range(n):
        alone = module.play(module.Params(), seats, 1, ScriptedSource(source.uniforms[g : g + 1]))
        for column, value in alone.items():
            same = np.array_equal(value[0], together[column][g], equal_nan=True)
            _require(same, module.INFO.id, "batch", f"game {g}'s {column} differs when played alone")


def check_seeds(module: Any, n: int = 200) -> None:
    """The same seed plays the same games; another seed other games."""
    seats = seats_for(module, next(iter(module.POLICIES)))
    a, b, c = (module.play(module.Params(), seats, n, np.random.default_rng(s)) for s in (5, 5, 6))
    _require(all(np.array_equal(a[k], b[k], equal_nan=True) for k in a), module.INFO.id, "seeds", "not repeatable")
    _require(not np.array_equal(a["score"], c["score"]), module.INFO.id, "seeds", "another seed, the same games")


def check_reference(module: Any, n: int = 4) -> None:
    """The reference engine plays ``play``'s games on the same scripted streams (every column it returns)."""
    record = record_of(module)
    seats = list(record.reference_seats or (record.bench.seats if record.bench else ()))
    if not seats:  # no seats declared that the reference engine plays
        return
    reference = importlib.import_module(f"{module.__name__}.reference")
    params = module.Params()
    source = ScriptedSource.from_seed(3, n, STREAM)
    batched = module.play(params, seats, n, source, **record.reference_options)
    for g in range(n):
        for column, value in reference.play_one(params, seats, source.one_game(g)).items():
            mine, theirs = np.asarray(batched[column][g]), np.asarray(value)
            floats = np.issubdtype(mine.dtype, np.floating) or np.issubdtype(theirs.dtype, np.floating)
            same = (
                np.allclose(mine, theirs, rtol=0, atol=1e-9, equal_nan=True) if floats else np.array_equal(mine, theirs)
            )
            _require(same, module.INFO.id, "reference", f"game {g}'s {column} differs from the reference engine's")


CHECKS: dict[str, Callable[[Any], None]] = {
    "contract": check_contract,
    "columns": check_columns,
    "batch": check_batch,
    "seeds": check_seeds,
    "reference": check_reference,
}
"""Every check, by name, in the order :func:`check_game` runs them."""


def check_game(module: Any) -> None:
    """Run every check on the game package ``module``; the first problem raises :class:`CheckError`."""
    for check in CHECKS.values():
        check(module)
