"""The worked example's extras (tests/example_game/swine): the exact solver, restrictions, drama and words."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from boardlab.analysis.stats import wilson
from boardlab.engines import core, get_game
from boardlab.engines.restrict import RestrictedPoint
from boardlab.engines.seating import seating_of

swine = get_game("swine").module
solver = importlib.import_module("swine.solver")
seats = seating_of(importlib.import_module("swine"))
words = importlib.import_module("swine.words")
restrictions = importlib.import_module("swine.restrictions")
Point = importlib.import_module("swine.decisions").Point
PARAMS = swine.Params(target=30)  # a small game: solved in a fraction of a second


def test_every_value_is_the_better_of_holding_and_rolling() -> None:
    """The solution satisfies its Bellman equation at every position, checked here position by position."""
    solution, p = solver.solve(PARAMS), PARAMS
    value = lambda i, j, k: 1.0 if i + k >= p.target else solution.values[k, i, j]  # noqa: E731
    start = solution.values[0]
    worst = 0.0
    for i in range(0, p.target, 3):
        for j in range(0, p.target, 4):
            for k in range(0, p.target - i):
                roll = p.bust / p.faces * (1 - start[j, i]) + sum(value(i, j, k + f) for f in range(2, 7)) / 6
                hold = 1 - (start[j, i + k] if i + k < p.target else 0.0)
                worst = max(worst, abs(value(i, j, k) - (roll if k == 0 else max(roll, hold))))
    assert worst < 1e-9


def test_win_optimal_against_itself_wins_as_often_as_the_solution_says() -> None:
    exact = solver.solve(PARAMS).values[0, 0, 0]
    n = 20_000
    out = swine.play(PARAMS, ["win-optimal"] * 2, n, np.random.default_rng(4))
    low, high = wilson(int(out["winners"][:, 0].sum()), n)
    assert low <= exact <= high and exact > 0.5
    against = swine.play(PARAMS, ["win-optimal", "chase"], 4_000, np.random.default_rng(5))["winners"][:, 0].mean()
    assert against > exact  # the exact player gains on a heuristic


def test_win_optimal_refuses_a_table_it_has_not_solved() -> None:
    with pytest.raises(ValueError, match="2-player Swine only"):
        swine.play(PARAMS, ["win-optimal"] * 3, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="targets up to"):
        swine.play(swine.Params(target=solver.MAX_TARGET + 1), ["win-optimal"] * 2, 1, np.random.default_rng(0))
    assert seats.hint_policy(PARAMS, 3) == seats.ROLLOUT and seats.hint_policy(PARAMS, 2) == "win-optimal"


def points(params: swine.Params, policy: str = "chase", n: int = 30) -> list:
    """The decision points with a choice met in ``n`` games with ``policy`` in both seats."""
    found = []

    def keep(point, games, propose):
        if point.legal()[:, 0].any():
            found.append(point.take(np.arange(len(games))))
        return propose()

    impls = seats.instances(params, [policy] * 2, 2)
    shared = seats.watching(impls[0], keep)
    seats.play(params, [shared, shared], n, core.RandomSource(np.random.default_rng(1)))
    return found


def test_exact_hint_values_are_the_solutions_and_name_each_move() -> None:
    point = points(PARAMS)[3].take(np.array([0]))
    values = seats.exact_values(point)
    solution = solver.solve(PARAMS)
    own, other, total = (
        int(point.state.score[0, 0 + int(point.seat[0])]),
        int(point.state.score[0, 1 - int(point.seat[0])]),
        int(point.state.total[0]),
    )
    assert values[1] == pytest.approx(solution.roll_value[total, own, other])
    assert dict(words.moves(point)) == {0: f"hold and bank {total} (score {own + total})", 1: "roll again"}
    assert words.view(point)[0].startswith(
        f"Turn {int(point.state.turn[0]) + 1}: seat {int(point.seat[0])} has {total}"
    )
    assert "the strong move is to roll again where chase would hold" in words.explain(point, 1, 0, "chase")


def test_a_restriction_narrows_the_expert_s_points_and_costs_the_exact_player() -> None:
    rule = restrictions.RESTRICTIONS["never-roll-at-25"]
    batch = next(p for p in points(swine.Params()) if (p.state.total >= 25).any())
    legal = RestrictedPoint(batch, (rule,)).legal()
    assert not legal[batch.state.total >= 25, 1].any() and legal[batch.state.total < 25, 1].all()
    free, held = solver.solve(PARAMS), solver.solve(PARAMS, rule.unit)
    assert held.values[0, 0, 0] < free.values[0, 0, 0]
    (policy,) = core.resolve_policies(swine.POLICIES, ["win-optimal!never-roll-at-25"])
    impl = core.instantiate(policy, PARAMS)
    view = swine.rules.View(PARAMS, swine.State.start(3, 2), None)
    view.state.total[:] = [24, 25, 29]
    assert impl.decide(view).tolist()[1:] == [False, False]


def test_mid_scores_and_lead_changes_follow_the_rounds() -> None:
    """A scripted game (faces 6 and 1): 12-12 after round 1, 12-24 after round 2, 24-24, then seat 0 wins on 30."""
    six, one = 0.9, 0.0
    stream = [six, six, six, six, one, six, six, six, six, one, six] + [0.5] * 20
    out = swine.play(PARAMS, ["hold-at-10"] * 2, 1, core.ScriptedSource(np.array([stream])))
    assert out["score"].tolist() == [[30, 24]] and out["turns"].tolist() == [7]
    assert out["mid_score"].tolist() == [[12, 24]]  # 7 turns are 4 rounds: round 2's end
    assert out["lead_changes"].tolist() == [1]  # no sole leader, seat 1, none, seat 0


def test_learned_banks_a_won_game_where_its_model_values_both_moves_as_a_win() -> None:
    """The unit is terminal-aware: a model clipped at 1 ties hold and roll; a hold that reaches the target wins."""
    from boardlab.engines.learned.model import ValueModel

    certain = ValueModel((np.zeros((5, 1), np.float32),), (np.full(1, 2.0, np.float32),))  # every position: 1
    player = swine.POLICIES["learned"].impl(swine.Params(), {2: certain})
    state = swine.State.start(3, 2)
    state.score[:, 0], state.total[:] = 40, [5, 10, 20]  # 45 short of 50; 50 and 60 reach it
    point = Point(swine.Params(), swine.POLICIES, state, np.arange(3, dtype=np.uint64))
    chosen = player.best(point, np.arange(3), lambda: np.zeros(3, np.int64))
    np.testing.assert_array_equal(chosen, [1, 0, 0])  # roll on (a tie goes to rolling), then bank the win


def test_learned_is_a_spec_on_the_shared_lifecycle() -> None:
    """Swine declares a spec only: its learned seat is the lifecycle's, its shipped 2-player model loads."""
    from boardlab.engines.learned import lifecycle, store

    learned = importlib.import_module("swine.learned")
    player = swine.POLICIES["learned"].impl
    assert issubclass(player, lifecycle.Learned) and player.spec is learned.SPEC
    assert store.obtain(lifecycle.request(player, swine.Params(), 2))[2] == "shipped"


def test_self_play_decides_by_the_games_own_unit_where_the_spec_says_so() -> None:
    """``plays_unit``: self-play's model rounds bank a won game as the player does (the generic choice would roll)."""
    from boardlab.engines.learned import lifecycle, selfplay
    from boardlab.engines.learned.model import ValueModel

    certain = ValueModel((np.zeros((5, 1), np.float32),), (np.full(1, 2.0, np.float32),))
    player = swine.POLICIES["learned"].impl
    recorder = selfplay.Recorder(certain, 1.0, 0.0, np.random.default_rng(0))
    seat = lifecycle.Table(player).seat(swine.Params(), 2, recorder)
    state = swine.State.start(2, 2)
    state.score[:, 0], state.total[:] = 40, [5, 20]
    point = Point(swine.Params(), swine.POLICIES, state, np.arange(2, dtype=np.uint64))
    np.testing.assert_array_equal(seat.choice(point, np.arange(2), lambda: np.zeros(2, np.int64)), [1, 0])
    assert len(recorder.features) == 1 and recorder.model is certain  # recorded, and the recorder left as it was
