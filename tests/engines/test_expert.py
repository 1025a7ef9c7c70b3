"""The decision-point contract and the game-agnostic expert (engines/expert.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import boardlab.engines.expert as expert
from boardlab.engines import core
from boardlab.engines.core import ScriptedSource, StreamSource
from boardlab.engines.pantolino import POLICIES as PANTOLINO_POLICIES
from boardlab.engines.pantolino import Params as PantolinoParams
from boardlab.engines.pantolino import decisions as pantolino_points
from boardlab.engines.pantolino import play as play_pantolino
from boardlab.engines.pantolino.rules import SUPPLY, State, Turn, token_value
from boardlab.engines.patolli import POLICIES as PATOLLI_POLICIES
from boardlab.engines.patolli import Params as PatolliParams
from boardlab.engines.patolli import decisions as patolli_points
from boardlab.engines.patolli import play as play_patolli
from boardlab.engines.patolli.rules import Moves, start

YELLOW_4, RED_2 = 14, 3  # token ids: value index * colours + (colours - 1 - colour)


def test_policy_arguments_are_parsed_bound_and_checked() -> None:
    (plain,) = core.resolve_policies(PANTOLINO_POLICIES, ["expert"])
    (bound,) = core.resolve_policies(PANTOLINO_POLICIES, ["expert:64"])
    assert (plain.name, plain.arg) == ("expert", None)  # the default depends on the table: bound when playing
    assert (bound.name, bound.arg) == ("expert:64", 64)
    for bad in ("expert:0", "expert:lots", f"expert:{expert.MAX_PLAYOUTS + 1}", "random:3", "expret:8"):
        with pytest.raises(ValueError):
            core.resolve_policies(PANTOLINO_POLICIES, [bad])


def test_default_budgets_follow_the_player_count() -> None:
    by_players = {2: 512, 3: 2048}
    assert [expert.default_playouts(by_players, k) for k in (1, 2, 3, 6)] == [512, 512, 2048, 2048]
    assert expert.default_playouts(32, 4) == 32
    assert expert.describe_budget(by_players) == "512 with 2 players, 2048 with 3 or more"
    (impl,) = core.policy_instances(PANTOLINO_POLICIES, ["expert"], PantolinoParams())
    assert [impl.decide.search(k).playouts for k in (2, 3)] == [512, 2048]
    (impl,) = core.policy_instances(PANTOLINO_POLICIES, ["expert:64"], PantolinoParams())
    assert [impl.decide.search(k).playouts for k in (2, 3)] == [64, 64]


def test_equal_stream_keys_give_equal_chance_whatever_the_batch() -> None:
    keys = np.array([7, 9, 7], dtype=np.uint64)
    source = StreamSource(keys)
    first = source.draw(np.arange(3), 6, 4)
    assert (first[0] == first[2]).all() and (first[0] != first[1]).any()
    alone = StreamSource(keys[:1]).draw(np.arange(1), 6, 4)
    assert (alone[0] == first[0]).all()
    later = source.uniform(np.array([2]), 3)
    assert (later[0] == StreamSource(keys[2:]).uniform(np.arange(1), 7)[0, 4:]).all()


def endgame(params: PantolinoParams, source: core.Source) -> Turn:
    """Seat 0 to move, trailing by 3; only yellow 4 and red 2 are left in the supply."""
    values = token_value(params)
    others = [t for t in range(params.n_tokens) if t not in (YELLOW_4, RED_2)]
    mine = next(c for c in itertools.combinations(others, 6) if values[list(c)].sum() == 18)
    state = State.initial(params, 2, 1)
    state.owner[0] = 1
    state.owner[0, list(mine)] = 0
    state.owner[0, [YELLOW_4, RED_2]] = SUPPLY
    state.supply_bits[0] = (1 << YELLOW_4) | (1 << RED_2)
    state.turn[0] = 14
    return Turn(params, 2, source, state, np.zeros(1, dtype=np.int64))


def throw_of(params: PantolinoParams, counts: dict[int, int]) -> np.ndarray:
    tables = params.tables
    code = sum(n * int(tables.weight[c]) for c, n in counts.items())
    return tables.full_position[tables.index_of_code[np.array([code])]].astype(np.int64)


def test_the_expert_plays_for_the_win_not_the_boots() -> None:
    """Yellow, yellow, joker, joker when trailing by 3: yellow 4 wins about 7.5%, red 2 about 43%."""
    params = PantolinoParams()
    turn = endgame(params, ScriptedSource.from_seed(1, 1, 10))
    throw = throw_of(params, {0: 2, params.colours: 2})
    (heuristic,) = core.policy_instances(PANTOLINO_POLICIES, [pantolino_points.ROLLOUT], params)
    assert heuristic.choose(turn, throw)[0] == YELLOW_4
    (impl,) = core.policy_instances(PANTOLINO_POLICIES, ["expert:64"], params)
    assert impl.choose(turn, throw)[0] == RED_2


def test_the_expert_never_reads_the_hidden_truth() -> None:
    """Two games that differ only in the dice still to come: the expert keeps and takes the same."""
    params = PantolinoParams()
    (impl,) = core.policy_instances(PANTOLINO_POLICIES, ["expert:32"], params)
    throw = throw_of(params, {0: 2, params.colours: 2})
    code = params.tables.codes[params.tables.full[throw]]
    choices = []
    for future in (1, 2):
        turn = endgame(params, ScriptedSource.from_seed(future, 1, 50))
        choices.append((impl.choose(turn, throw)[0], impl.keep(turn, code, 2)[0]))
    assert choices[0] == choices[1]


def test_an_expert_that_never_switches_plays_its_rollout_policy_game_for_game(monkeypatch) -> None:
    monkeypatch.setattr(expert, "SWITCH_Z", 1e9)
    core.instantiate.cache_clear()
    rollout = pantolino_points.ROLLOUT
    params = PantolinoParams()
    searched = play_pantolino(params, ["expert:8", rollout], 20, np.random.default_rng(3), exact=False)
    plain = play_pantolino(params, [rollout, rollout], 20, np.random.default_rng(3), exact=False)
    assert (searched["score"] == plain["score"]).all() and (searched["turns"] == plain["turns"]).all()
    params = PatolliParams()
    searched = play_patolli(params, ["expert:4", patolli_points.ROLLOUT], 6, np.random.default_rng(4))
    plain = play_patolli(params, [patolli_points.ROLLOUT] * 2, 6, np.random.default_rng(4))
    assert (searched["score"] == plain["score"]).all() and (searched["turns"] == plain["turns"]).all()
    core.instantiate.cache_clear()


@pytest.mark.parametrize("paired", [8, 16, 32])
def test_the_duel_switches_on_luck_no_more_often_than_its_threshold_says(paired: int) -> None:
    # no true gain: each paired stream favours the challenger or the default equally often, most favour neither;
    # beyond SWITCH_Z = 2 standard errors a fair test switches in at most 2.3% of duels (one-sided normal tail);
    # the t statistic switched in 5.5% at 8 streams, 3.6% at 16
    gains = np.random.default_rng(paired).choice([-1.0, 0.0, 1.0], p=[0.2, 0.6, 0.2], size=(40_000, paired))
    stat = expert.duel_statistic(gains.sum(axis=1), (gains**2).sum(axis=1))
    assert (stat > expert.SWITCH_Z).mean() <= 0.025
    assert expert.duel_statistic(np.array([6.0, 0.0]), np.array([6.0, 0.0])) == pytest.approx([6**0.5, 0.0])


def pantolino_point() -> core.DecisionPoint:
    params = PantolinoParams()
    state = State.initial(params, 2, 3)
    source = core.RandomSource(np.random.default_rng(0))
    turn = Turn(params, 2, source, state, np.zeros(3, dtype=np.int64))
    faces = np.array([[0, 0, 5, 1], [2, 3, 4, 0], [5, 5, 5, 5]])
    code = params.tables.roll_codes(faces, np.full(3, params.dice))
    return pantolino_points.Point.at(turn, pantolino_points.KEEP, code, 2, PANTOLINO_POLICIES)


def patolli_point() -> core.DecisionPoint:
    params = PatolliParams()
    source = core.RandomSource(np.random.default_rng(1))
    state = start(params, np.arange(4), source)
    state.off[:, :] = 3
    state.track[:, :] = np.uint64(0b1000100010)
    moves = Moves(params, source, state, np.array([1, 2, 5, 1]))
    return patolli_points.Point.at(moves, PATOLLI_POLICIES)


@pytest.mark.parametrize("make", [pantolino_point, patolli_point], ids=["pantolino", "patolli"])
def test_decision_points_keep_the_contract(make) -> None:
    point = make()
    assert isinstance(point, core.DecisionPoint)
    legal = point.legal()
    assert legal.any(axis=1).all()
    suggested = point.suggest("random")
    assert legal[np.arange(len(suggested)), suggested].all()
    rows = np.repeat(np.arange(len(legal)), 2)
    copies = point.take(rows)
    before = point.legal().copy()
    copies.apply(legal[rows].argmax(axis=1))
    assert (point.legal() == before).all()  # copies are independent
    source = StreamSource(np.arange(len(rows), dtype=np.uint64))
    winners, score = copies.play_out(["random"] * point.players, source)
    assert winners.shape == score.shape == (len(rows), point.players)
    assert (winners.sum(axis=1) >= 1).all()


def test_candidate_values_are_each_legal_candidates_share_over_the_same_playouts() -> None:
    point = patolli_point()
    legal = point.legal()
    values = expert.candidate_values(point, patolli_points.ROLLOUT, 6)
    assert np.isnan(values[~legal]).all() and (values[legal] >= 0).all() and (values[legal] <= 1).all()
    np.testing.assert_array_equal(values, expert.candidate_values(point, patolli_points.ROLLOUT, 6))
    one = expert.candidate_values(point, patolli_points.ROLLOUT, 1)
    for row, candidate in zip(*np.nonzero(legal), strict=True):  # one playout: stream 0 of this decision
        copy = point.take(np.array([row]))
        source = StreamSource(core.mix64(copy.key ^ core.mix64(np.zeros(1, dtype=np.uint64))))
        copy.determinise(source)
        copy.apply(np.array([candidate]))
        winners, _ = copy.play_out([patolli_points.ROLLOUT] * point.players, source)
        share = expert.seat_reward(winners, point.seat[[row]], point.cooperative)[0]
        assert one[row, candidate] == share
