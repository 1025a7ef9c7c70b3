"""The game checker catches a game that breaks the contract, naming the game, the check and the problem."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from engines import get_game
from engines.checker import CheckError, check_batch, check_columns, check_contract, check_reference


def broken(**changes) -> SimpleNamespace:
    """Pantolino's package with some of its parts replaced."""
    module = get_game("pantolino").module
    parts = {name: getattr(module, name) for name in ("INFO", "Params", "POLICIES", "METRICS", "VARIANTS", "RECORD")}
    return SimpleNamespace(__name__=module.__name__, **{**parts, "play": module.play, **changes})


def test_wide_scores_are_caught() -> None:
    real = get_game("pantolino").module.play

    def play(*args, **kwargs):
        out = real(*args, **kwargs)
        return {**out, "score": out["score"].astype(np.int64)}

    with pytest.raises(CheckError, match=r"pantolino: columns: keep-jokers: score must be \(n, P\) int32"):
        check_columns(broken(play=play))


def test_a_game_whose_draws_depend_on_the_batch_is_caught() -> None:
    real = get_game("pantolino").module.play

    def play(params, seats, n, source, **kwargs):
        out = real(params, seats, n, source, **kwargs)
        return {**out, "turns": out["turns"] + (n > 1)}  # as if a game read another game's dice

    with pytest.raises(CheckError, match="pantolino: batch: game 0's turns differs when played alone"):
        check_batch(broken(play=play))


def test_a_policy_name_with_a_space_and_a_reference_mismatch_are_caught() -> None:
    module = get_game("pantolino").module
    policies = {**module.POLICIES, "Keep Jokers": module.POLICIES["keep-jokers"]}
    with pytest.raises(CheckError, match="contract: policy names must be kebab-case"):
        check_contract(broken(POLICIES=policies))
    with pytest.raises(CheckError, match="reference: game 0's score differs"):
        check_reference(broken(RECORD=type(module.RECORD)(bench=module.RECORD.bench)))  # without exact=False
