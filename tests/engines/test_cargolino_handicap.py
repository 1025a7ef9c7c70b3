"""Cargolino's head start (``head_start``): public shells for the earlier seats; the engines agree, players see it."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import cargolino, core
from boardlab.engines.cargolino import POLICIES, Params, features, play, rules
from boardlab.engines.checker import check_reference


@pytest.mark.parametrize(
    ("knobs", "seats"),
    [
        ({"head_start": 1}, ["detective", "blocker"]),
        ({"head_start": 2}, ["hindmost", "selfish", "detective", "random"]),
        ({"head_start": 3, "races": 1}, ["detective", "detective", "selfish"]),
    ],
    ids=["2p", "4p", "3p-one-race"],
)
def test_batched_engine_replays_reference_games_with_a_head_start(knobs: dict, seats: list[str]) -> None:
    check_reference(cargolino, Params(**knobs), seats, n=6, seed=3, length=3000)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_a_head_start_adds_shells_to_the_earlier_seats_and_changes_nothing_else(players: int) -> None:
    # random players read no score, so they play the same games; the shells are credited before the first race
    seats = ["random"] * players
    before = play(Params(), seats, 40, np.random.default_rng(4))
    after = play(Params(head_start=2), seats, 40, np.random.default_rng(4))
    shift = 2 * np.arange(players - 1, -1, -1)
    np.testing.assert_array_equal(after["score"], before["score"] + shift)
    np.testing.assert_array_equal(after["mid_score"], before["mid_score"] + shift)
    for column in ("turns", "race1_shells", "delayed", "final_red"):
        np.testing.assert_array_equal(after[column], before[column])


def test_the_start_shells_favour_the_earlier_seats_and_stay_out_of_the_keys_at_the_default() -> None:
    assert Params(head_start=3).start_shells(4).tolist() == [9, 6, 3, 0]
    assert Params().start_shells(2).tolist() == [0, 0]
    assert "head_start" not in Params().as_dict()
    with pytest.raises(ValueError, match="head_start=21"):
        Params(head_start=21)


@pytest.mark.parametrize("players", [2, 4])
def test_learned_sees_the_head_start_in_the_shells_banked(players: int) -> None:
    params = Params(head_start=2)
    impls = core.policy_instances(POLICIES, ["detective"] * players, params)
    table = rules.Table.of(params, impls, core.as_source(np.random.default_rng(0)))
    state = rules.State.initial(players, 3, table.n_beliefs, table.hyps.size, params.start_shells(players))
    rules.start_races(table, state, np.arange(3))
    holdings = np.zeros((3, players, 6), dtype=np.float32)
    scale = float(params.tables.value.max()) * params.each(players) * params.races
    at = 6 * (features.PER_SNAIL + players) + 6  # the shells banked follow the snails and the dice
    for viewer in range(players):
        view = np.full(3, viewer)
        row = features.features_of(params, state.pos, np.zeros(3, np.int64), state.banked, state.race, view, holdings)
        seen = np.rint(row[:, at : at + players] * scale)
        assert (seen == np.roll(params.start_shells(players), -viewer)).all()
