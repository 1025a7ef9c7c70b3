"""The game checker catches a game that breaks the contract, naming the game, the check and the problem."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest

from boardlab.engines import get_game
from boardlab.engines.checker import (
    CheckError,
    check_batch,
    check_columns,
    check_contract,
    check_decisions,
    check_features,
    check_reference,
)


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

    with pytest.raises(
        CheckError, match="pantolino: batch: keep-jokers,keep-jokers: game 0's turns differs when played alone"
    ):
        check_batch(broken(play=play))


def test_a_policy_name_with_a_space_and_a_reference_mismatch_are_caught() -> None:
    module = get_game("pantolino").module
    policies = {**module.POLICIES, "Keep Jokers": module.POLICIES["keep-jokers"]}
    with pytest.raises(CheckError, match="contract: policy names must be kebab-case"):
        check_contract(broken(POLICIES=policies))
    with pytest.raises(CheckError, match="reference: keep-jokers,keep-jokers: game 0's score differs"):
        check_reference(broken(RECORD=type(module.RECORD)(bench=module.RECORD.bench)))  # without exact=False


def swine_points(monkeypatch: pytest.MonkeyPatch, **methods) -> object:
    """The example game (tests/example_game) with some of its decision point's methods replaced."""
    module = get_game("swine").module
    point = importlib.import_module("swine.decisions").Point
    for name, method in methods.items():
        monkeypatch.setattr(point, name, method)
    return module


def test_a_copy_that_shares_the_original_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def take(self, rows):
        self.state.game = self.state.game[rows]
        return self

    with pytest.raises(CheckError, match=r"swine: decisions: Point point: a copy .* changed the original"):
        check_decisions(swine_points(monkeypatch, take=take))


def test_a_determinisation_the_seat_could_see_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def determinise(self, source):
        self.state.total = self.state.total * 0  # as if the turn's points were hidden from the seat that made them

    with pytest.raises(CheckError, match="determinise changed what the deciding seat sees"):
        check_decisions(swine_points(monkeypatch, determinise=determinise))


def test_an_illegal_suggestion_and_a_row_without_candidates_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module("swine.decisions").Point.legal
    with pytest.raises(CheckError, match="a row with no legal candidate"):
        check_decisions(swine_points(monkeypatch, legal=lambda self: real(self) & False))
    only_hold = lambda self: np.where(real(self)[:, :1], [True, False], real(self))  # noqa: E731
    with pytest.raises(CheckError, match="the policy's own choice is not legal"):
        check_decisions(swine_points(monkeypatch, legal=only_hold))


def test_features_that_ignore_the_applied_candidate_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    point = importlib.import_module("swine.decisions").Point
    real = point.features
    check_features(get_game("swine").module)  # the real encoding passes

    def broken(self, viewer=None):  # the position before the decision, whatever was applied
        action, self.action = self.action, None
        try:
            return real(self, viewer)
        finally:
            self.action = action

    with pytest.raises(CheckError, match="swine: features: Point point: seat 0's features after its applied"):
        check_features(swine_points(monkeypatch, features=broken))


def test_a_mid_score_without_lead_changes_is_caught() -> None:
    module = get_game("swine").module

    def play(*args, **kwargs):
        out = module.play(*args, **kwargs)
        del out["lead_changes"]
        return out

    broken = SimpleNamespace(**{k: getattr(module, k) for k in ("INFO", "POLICIES", "METRICS", "Params")}, play=play)
    with pytest.raises(CheckError, match="columns: random: mid_score and lead_changes come together"):
        check_columns(broken, n=2, searched=1)
