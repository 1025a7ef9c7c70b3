"""Every registered game honours the engine contract (DESIGN.md §2)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engines import available_games, get_game
from engines.core import GameInfo, Metric, Policy, ScriptedSource

GAMES = available_games()


def seats_for(module, policy: str) -> list[str]:
    """Every seat plays ``policy``; a searching policy at a small budget (the contract, not its strength, is tested)."""
    name = f"{policy}:4" if policy.startswith("expert") else policy
    return [name] * max(module.INFO.min_players, 2 if module.INFO.max_players >= 2 else 1)


@pytest.mark.parametrize("game", GAMES)
def test_module_declares_the_contract(game: str) -> None:
    module = get_game(game).module
    assert isinstance(module.INFO, GameInfo) and module.INFO.id == game
    assert isinstance(module.INFO.chunk_games, int) and 1_000 <= module.INFO.chunk_games <= 50_000
    params = module.Params()
    assert dataclasses.is_dataclass(params)
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.__setattr__(dataclasses.fields(params)[0].name, None)
    assert all(k.doc and k.allowed for k in module.Params.knobs())
    undeclared = [k.name for k in module.Params.knobs() if not k.source]
    assert not undeclared, f"{game}: knobs whose default's source is not declared: {undeclared}"
    assert module.POLICIES and all(isinstance(p, Policy) and p.description for p in module.POLICIES.values())
    assert all(name == name.lower() and " " not in name for name in module.POLICIES)
    assert all(isinstance(m, Metric) for m in module.METRICS.values())
    for overrides in module.VARIANTS.values():
        params.with_strings(overrides)


@pytest.mark.parametrize("game", GAMES)
def test_outcome_columns_have_fixed_shapes_and_bounds(game: str) -> None:
    module = get_game(game).module
    for policy in module.POLICIES:
        seats = seats_for(module, policy)
        out = module.play(module.Params(), seats, 16, np.random.default_rng(0))
        n, players = 16, len(seats)
        assert out["score"].shape == (n, players) and out["score"].dtype == np.int32
        assert out["winner"].shape == (n,) and out["winner"].dtype == np.int8
        assert out["winners"].shape == (n, players) and out["winners"].dtype == bool
        assert out["turns"].shape == (n,) and np.all((out["turns"] > 0) & (out["turns"] <= module.INFO.turn_cap))
        assert np.all(out["winner"] >= -2) and np.all(out["winner"] < players)
        single = out["winner"] >= 0
        assert np.all(out["winners"][single].sum(axis=1) == 1)
        for column, metric in module.METRICS.items():
            assert len(out[column]) == n
            if metric.kind == "seat":
                assert out[column].shape == (n, players)


@pytest.mark.parametrize("game", GAMES)
def test_batch_equals_single_games_on_the_same_stream(game: str) -> None:
    module = get_game(game).module
    seats = seats_for(module, next(iter(module.POLICIES)))
    source = ScriptedSource.from_seed(1, 6, 50_000)
    together = module.play(module.Params(), seats, 6, source)
    for g in range(6):
        alone = module.play(module.Params(), seats, 1, ScriptedSource(source.uniforms[g : g + 1]))
        for column, value in alone.items():
            assert np.array_equal(value[0], together[column][g], equal_nan=True), (game, column, g)


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_games_other_seed_other_games(game: str) -> None:
    module = get_game(game).module
    seats = seats_for(module, next(iter(module.POLICIES)))
    a = module.play(module.Params(), seats, 200, np.random.default_rng(5))
    b = module.play(module.Params(), seats, 200, np.random.default_rng(5))
    c = module.play(module.Params(), seats, 200, np.random.default_rng(6))
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    assert not np.array_equal(a["score"], c["score"])
