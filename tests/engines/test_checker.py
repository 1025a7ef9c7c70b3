"""The game checker catches a game that breaks the contract, naming the game, the check and the problem."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from boardlab.engines import core, get_game
from boardlab.engines.checker import (
    CheckError,
    check_batch,
    check_collapse,
    check_columns,
    check_contract,
    check_decisions,
    check_features,
    check_game,
    check_learned,
    check_reference,
)
from boardlab.engines.learned import cache, checks, lifecycle, training
from boardlab.engines.learned.model import ValueModel


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


def swine_shipping(folder: Path, **changes) -> SimpleNamespace:
    """Swine whose learned player's shipped models are those in ``folder``, its spec's other ``changes`` made."""
    module = get_game("swine").module
    spec = dataclasses.replace(importlib.import_module("swine.learned").SPEC, shipped=folder, **changes)
    policies = dict(module.POLICIES)
    base = lifecycle.player(spec, "swine.learned")
    player = type("LearnedPlayer", (base,), {"baseline": "chase", "policies": policies})
    policies["learned"] = dataclasses.replace(policies["learned"], impl=player)
    parts = {name: getattr(module, name) for name in ("INFO", "Params", "METRICS", "VARIANTS", "RECORD", "rules")}
    play = core.play_by_name(module.rules.play_with, module.INFO, policies)
    return SimpleNamespace(__name__="swine", **parts, POLICIES=policies, play=play)


def constant_model(value: float) -> ValueModel:
    """A network that values every position ``value`` (a collapsed training: every weight zero)."""
    width = 5
    return ValueModel(
        (np.zeros((width, 4), np.float32), np.zeros((4, 1), np.float32)),
        (np.zeros(4, np.float32), np.full(1, value, np.float32)),
    )


def test_a_collapsed_model_fails_the_learned_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    module = swine_shipping(tmp_path)
    key = lifecycle.model_key(module.POLICIES["learned"].impl, module.Params(), 2)
    cache.save(tmp_path / cache.file_name(key), key, constant_model(0.5))
    with pytest.raises(CheckError, match="swine: collapse: the model's self-play: its values do not spread"):
        check_collapse(module)
    with pytest.raises(CheckError, match="swine: learned: learned does not beat hold-at-20"):
        check_learned(module)


def test_a_learned_player_that_never_ends_its_games_fails_the_collapse_check() -> None:
    rolls = lambda seat, point, model, propose: np.ones(len(point.seat), dtype=np.int64)  # noqa: E731
    module = swine_shipping(importlib.import_module("swine.learned").SPEC.shipped, unit_choice=rolls)
    with pytest.raises(CheckError, match=r"swine: collapse: a table of learned stops 100% of 60 games at the turn"):
        check_collapse(module)


def test_values_all_equal_or_saturated_are_a_collapse() -> None:
    spread = np.linspace(0.1, 0.9, 50)
    assert checks.value_spread(spread) is None
    assert "do not spread" in checks.value_spread(np.full(50, 0.5))
    assert "saturated: 60%" in checks.value_spread(np.r_[np.ones(30), spread[:20]])


def test_without_a_model_the_learned_checks_are_skipped_unless_asked_to_train(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    quick = training.Settings(games=200, rounds=1, epochs=1, sweeps=0, chunk_games=200)
    module = swine_shipping(tmp_path / "none", settings=quick)
    notes = check_game(module, only=("learned", "collapse"))
    assert notes == {
        name: "skipped: no model for 2 players shipped or cached (train it, or ask the checker to)"
        for name in ("learned", "collapse")
    }
    player = module.POLICIES["learned"].impl
    model = lifecycle.model_at_hand(player, module.Params(), 2, train=True)  # explicit: BOARDLAB_TRAIN=0 allows it
    assert model is not None and lifecycle.model_at_hand(player, module.Params(), 2) is not None  # now cached


def test_the_first_heuristic_is_a_plain_named_policy() -> None:
    assert checks.first_heuristic(get_game("swine").module) == "hold-at-20"
    assert checks.first_heuristic(get_game("panots").module) == "greedy"


def test_the_checks_that_play_every_policy_leave_out_a_learned_player_without_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")  # a learned seat without a model would refuse to play
    module = swine_shipping(tmp_path / "none")
    left_out = "learned left out: no model shipped or cached"
    assert check_columns(module, n=2, searched=1) == left_out
    assert check_batch(module, n=2) == left_out
    assert check_decisions(module) == left_out
    assert check_columns(get_game("swine").module, n=2, searched=1) is None  # its model ships: played
