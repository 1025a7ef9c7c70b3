"""Patolli's head start (``head_start``): tokens for seat 1; the engines agree, strong players see it."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import core, patolli
from boardlab.engines.checker import check_reference
from boardlab.engines.patolli import Params, features, play
from boardlab.engines.patolli.rules import BANKRUPT, start, start_tokens


@pytest.mark.parametrize(
    ("knobs", "seats"),
    [
        ({"head_start": 3}, ["balanced", "aggressive"]),
        ({"head_start": 5, "first_player": 1, "tokens": 4}, ["home-stretch", "random"]),
    ],
    ids=["roll-off", "seat-1-first"],
)
def test_batched_engine_replays_reference_games_with_a_head_start(knobs: dict, seats: list[str]) -> None:
    check_reference(patolli, Params(**knobs), seats, 8, seed=5, length=4000)


@pytest.mark.parametrize("first_player", [-1, 0, 1])
def test_seat_1_starts_with_the_head_start_whoever_moves_first(first_player: int) -> None:
    params = Params(head_start=4, first_player=first_player)
    state = start(params, np.arange(50), core.RandomSource(np.random.default_rng(1)))
    assert (state.tokens[0] == 10).all() and (state.tokens[1] == 14).all()
    assert start_tokens(params).tolist() == [0, 4]


def test_tokens_are_conserved_with_a_head_start() -> None:
    out = play(Params(head_start=3, tokens=4), ["balanced", "balanced"], 200, np.random.default_rng(2))
    kept = np.where(out["capped"], out["bank"], 0)
    assert (out["tokens"].sum(axis=1) + kept == 2 * 4 + 3).all()
    bankrupt = out["win_reason"][:, BANKRUPT] == 1
    assert (out["winner"][bankrupt] == 1).mean() > 0.5  # three tokens more: seat 1 goes bankrupt less often


def test_learned_sees_the_head_start_in_the_tokens_held() -> None:
    params = Params(head_start=5, first_player=0)
    state = start(params, np.arange(2), core.RandomSource(np.random.default_rng(0)))
    tokens_at = 4 * params.track_length + 2 * params.die_faces + 6  # squares, exposures, attacks, 6 scalars before
    for viewer, (mine, theirs) in ((0, (10, 15)), (1, (15, 10))):
        row = features.features_of(params, state, np.full(2, viewer))[0]
        assert row[tokens_at : tokens_at + 2].tolist() == [mine / 10, theirs / 10]


@pytest.mark.parametrize(
    ("knobs", "message"), [({"head_start": 21}, "head_start=21"), ({"head_start": 8, "tokens": 55}, "allowed 0..5")]
)
def test_a_head_start_out_of_range_is_refused_in_one_line(knobs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Params(**knobs)
    assert "head_start" not in Params().as_dict()
