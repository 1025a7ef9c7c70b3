"""Panots's head start (``head_start``): the engines agree on it, it shifts scores only, strong players see it."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import core, panots
from boardlab.engines.checker import check_reference
from boardlab.engines.panots import POLICIES, Params, features, play
from boardlab.engines.panots.decisions import Point
from boardlab.engines.panots.rules import State, open_round, start_vp


@pytest.mark.parametrize(
    ("knobs", "seats"),
    [
        ({"head_start": 3}, ["planner", "greedy"]),
        ({"head_start": 2, "grab_order": "seat"}, ["denier", "random", "majority-aware"]),
    ],
    ids=["2p", "3p-seat-order"],
)
def test_batched_engine_replays_reference_games_with_a_head_start(knobs: dict, seats: list[str]) -> None:
    check_reference(panots, Params(**knobs), seats, 2, seed=7, length=2_000)


@pytest.mark.parametrize(("seats", "h"), [(["planner", "planner"], 4), (["greedy", "denier", "random"], 1)])
def test_a_head_start_adds_i_times_h_to_seat_i_and_changes_nothing_else(seats: list[str], h: int) -> None:
    # the heuristics value cards by their own gains, never by the scores, so they play the same games
    before = play(Params(grab_order="seat"), seats, 40, np.random.default_rng(3))
    after = play(Params(grab_order="seat", head_start=h), seats, 40, np.random.default_rng(3))
    shift = h * np.arange(len(seats))
    np.testing.assert_array_equal(after["score"], before["score"] + shift)
    np.testing.assert_array_equal(after["mid_score"], before["mid_score"] + shift)
    for column in ("placed", "swapped", "discarded", "vp_majority", "width"):
        np.testing.assert_array_equal(after[column], before[column])
    assert (after["winner"] != before["winner"]).any()  # 4 VP turn some games round


def test_the_start_vp_are_i_times_h_and_left_out_of_the_keys_at_the_default() -> None:
    assert start_vp(Params(head_start=3), 4).tolist() == [0, 3, 6, 9]
    assert "head_start" not in Params().as_dict()
    assert Params(head_start=2).as_dict()["head_start"] == 2


def test_a_head_start_out_of_range_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="head_start=21"):
        Params(head_start=21)


@pytest.mark.parametrize("players", [2, 3])
def test_learned_sees_the_head_start_in_every_seats_score(players: int) -> None:
    def first_grab(h: int) -> Point:
        params = Params(head_start=h)
        source = core.RandomSource(np.random.default_rng(0))
        st = State.initial(params, players, source, np.arange(4))
        impls = core.policy_instances(POLICIES, ["planner"] * players, params)
        view = open_round(params, impls, st, source)
        return Point.at(view, st, np.arange(4), view.order[:, 0], 0, POLICIES)

    own = 29  # the viewer's block follows the 29 scalars; its first value is the seat's VP now
    plain, ahead = first_grab(0), first_grab(5)
    for viewer in range(players):
        seat = np.full(4, viewer)
        gap = ahead.features(seat)[:, own] - plain.features(seat)[:, own]
        np.testing.assert_allclose(gap, 5 * viewer / features.VP_SCALE, rtol=1e-5)
