"""RunSpec: chunking, and every check made before a game is played."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from boardlab.engines import core
from boardlab.engines.pantolino import POLICIES
from boardlab.experiments.run import (
    RunSpec,
)
from boardlab.experiments.run.spec import MAX_CHUNKS
from tests.experiments.run.helpers import SPEC


def test_chunks_cover_n_with_a_short_last_chunk() -> None:
    assert SPEC.chunks() == [(0, 1000), (1, 1000), (2, 500)]


def test_chunks_are_the_games_own_size_unless_given() -> None:
    assert RunSpec("panots", ("greedy", "greedy"), 2_500).chunks() == [(0, 1000), (1, 1000), (2, 500)]
    assert RunSpec("pantolino", ("greedy", "greedy"), 2_500).chunks() == [(0, 2500)]
    assert RunSpec("panots", ("greedy", "greedy"), 2_500, chunk_size=2_000).chunks() == [(0, 2000), (1, 500)]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"n_games": 0}, "n_games=0 must be a positive whole number"),
        ({"seats": ("keep-jokers",)}, "players=1 is out of range"),
        ({"seats": ("keep-joker", "random")}, "did you mean 'keep-jokers'"),
        ({"variant": "escaping"}, "unknown variant 'escaping'"),
        ({"settings": (("dice", "9"),)}, "dice=9 is out of range"),
        ({"game": "pantolin"}, "did you mean 'pantolino'"),
        ({"chunk_size": 0}, "chunk_size=0 must be a positive whole number"),
        ({"chunk_size": True}, "chunk_size=True must be a positive whole number"),
        ({"n_games": 10**13}, "n_games=10000000000000 is out of range; allowed 1..1e\\+12"),
        ({"n_games": 2**63 - 1}, "is out of range"),
        ({"n_games": 10**9, "chunk_size": 1}, f"makes 1,000,000,000 chunks; allowed at most {MAX_CHUNKS:,}"),
        ({"chunk_size": 10**7}, "chunk_size=10000000 is out of range"),
        ({"settings": (("dice", "99999999999999999999"),)}, "dice=99999999999999999999 is out of range"),
        ({"variant": "escaping-boots", "settings": (("escaping_boots", "false"),)}, "conflicts with variant"),
        ({"settings": (("dice", "4"), ("dice", "5"))}, "knob dice is set twice"),
        ({"settings": (("head-start", "1"), ("head_start", "1"))}, "knob head_start is set twice"),
    ],
)
def test_bad_specs_fail_before_playing(changes: dict, message: str) -> None:

    with pytest.raises(ValueError, match=message):
        RunSpec(**{**asdict(SPEC), **changes})


def test_a_setting_equal_to_the_variants_is_no_conflict() -> None:

    spec = replace(SPEC, variant="escaping-boots", settings=(("escaping_boots", "true"),))
    assert spec.params.escaping_boots is True


def test_a_learned_seat_keys_its_chunks_by_the_model_it_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = RunSpec("pantolino", ("learned", "greedy"), 1_000)
    assert "models" not in RunSpec("pantolino", ("greedy", "greedy"), 1_000).identity()  # old run folders resume
    before = spec.identity()
    assert set(before["models"]) == {"learned"} and len(before["models"]["learned"]) == 64
    impl = core.instantiate(POLICIES["learned"], spec.params)
    model = impl.models[2]  # the 2-player model: an n-tuple network
    monkeypatch.setitem(impl.models, 2, replace(model, bias=model.bias + 0.5))  # another model (say, retrained)
    assert spec.identity()["models"] != before["models"]


def test_the_expert_rolling_out_with_a_learned_player_keys_its_chunks_by_that_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = RunSpec("pantolino", ("expert:4@learned", "greedy"), 100)
    assert "models" not in RunSpec("pantolino", ("expert:4", "greedy"), 100).identity()
    before = spec.identity()["models"]
    learned = RunSpec("pantolino", ("learned", "greedy"), 100).identity()["models"]["learned"]
    assert before == {"expert:4@learned": learned}
    impl = core.instantiate(POLICIES["learned"], spec.params)
    model = impl.models[2]
    monkeypatch.setitem(impl.models, 2, replace(model, bias=model.bias + 0.5))
    assert spec.identity()["models"] != before
