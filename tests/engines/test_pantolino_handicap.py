"""Pantolino's head start (``head_start``): the engines agree on it, it shifts scores only, strong players see it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.engines import core, pantolino
from boardlab.engines.checker import check_reference
from boardlab.engines.pantolino import Params, learned, play
from boardlab.engines.pantolino import solver as sv
from boardlab.engines.pantolino.rules import State, Turn, start_boots

SMALL = Params(colours=3, token_values=(2, 3), dice=3)  # 15 boots: solved in a fraction of a second
HEURISTICS = ["keep-jokers", "reroll-jokers", "greedy", "turn-optimal", "random"]


@pytest.mark.parametrize(
    ("knobs", "seats"),
    [
        ({"head_start": 3}, ["turn-optimal", "greedy"]),
        ({"head_start": 4}, ["keep-jokers", "random", "reroll-jokers"]),
        ({"head_start": 2, "escaping_boots": True}, ["keep-jokers", "random", "turn-optimal"]),
        ({"head_start": 5, "escaping_boots": True, "steal_from": "any"}, ["greedy", "keep-jokers"]),
    ],
    ids=["2p-odd", "3p", "tail-steals", "any-steals"],
)
def test_batched_engine_replays_reference_games_with_a_head_start(knobs: dict, seats: list[str]) -> None:
    check_reference(pantolino, Params(**knobs), seats, 8, seed=13, length=60_000)


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.lists(st.sampled_from(HEURISTICS), min_size=2, max_size=4),
    half=st.integers(1, 10),
)
def test_a_head_start_adds_i_times_h_to_seat_i_and_changes_nothing_else(seed: int, seats: list[str], half: int) -> None:
    # without steals a token adds its value to the lead whatever the scores, so the heuristics play the same games;
    # with 2 players an even head start keeps the total odd, so the colour tie-break stays unused as before
    h = 2 * half if len(seats) == 2 else 2 * half - seed % 2
    before = play(Params(), seats, 32, np.random.default_rng(seed))
    after = play(Params(head_start=h), seats, 32, np.random.default_rng(seed))
    shift = h * np.arange(len(seats))
    np.testing.assert_array_equal(after["score"], before["score"] + shift)
    np.testing.assert_array_equal(after["mid_score"], before["mid_score"] + shift)
    for column in ("turns", "taken", "turn_best_count"):
        np.testing.assert_array_equal(after[column], before[column])


def test_the_start_boots_are_i_times_h() -> None:
    assert start_boots(Params(head_start=3), 4).tolist() == [0, 3, 6, 9]
    assert start_boots(Params(), 3).tolist() == [0, 0, 0]


def test_a_head_start_is_left_out_of_the_keys_at_its_default() -> None:
    assert "head_start" not in Params().as_dict()
    assert Params(head_start=2).as_dict()["head_start"] == 2
    assert sv.cache_path(Params(head_start=2)) != sv.cache_path(Params())


def test_the_exact_solution_of_a_head_start_holds_every_smaller_even_one() -> None:
    table = sv.Solver(SMALL.with_strings({"head_start": "4"}), ["optimise"]).solve()
    for h in (0, 2, 4):
        params = SMALL.with_strings({"head_start": str(h)})
        own = sv.start_value(sv.Solver(params, ["optimise"]).solve(), params)
        assert sv.start_value(table, params) == pytest.approx(own, abs=1e-12)
    first = [sv.start_value(table, SMALL.with_strings({"head_start": str(h)}))[0] for h in (0, 2, 4)]
    assert first[0] > first[1] > first[2]  # a head start for the second seat helps it


def test_win_optimal_with_a_head_start_wins_its_exact_share(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    params = SMALL.with_strings({"head_start": "2"})
    value = sv.start_value(sv.cached_values(params), params)[0]
    n = 20_000
    out = play(params, ["win-optimal", "win-optimal"], n, np.random.default_rng(5))
    rate = (out["winner"] == 0).mean()
    assert abs(rate - value) <= 4 * np.sqrt(value * (1 - value) / n), (rate, value)


def test_an_odd_head_start_is_refused_by_the_exact_solution_in_one_line() -> None:
    with pytest.raises(ValueError, match="head_start=1 make 46 boots in all; the exact solution needs an odd total"):
        sv.check_supported(Params(head_start=1))


@pytest.mark.parametrize("players", [2, 3])
def test_learned_sees_the_head_start_in_every_seats_boots(players: int) -> None:
    params = Params(head_start=3)
    state = State.initial(params, players, 1)
    for mover in range(players):
        view = learned.view_of(params, players, state.owner, state.taken_at, np.array([mover]))
        assert view.boots[0].tolist() == [3 * ((mover + k) % players) for k in range(players)]
    turn = Turn(params, players, core.RandomSource(np.random.default_rng(0)), state, np.zeros(1, dtype=np.int64))
    assert turn.boots[0].tolist() == start_boots(params, players).tolist()
