"""Patolli's restrictions: each mask removes exactly its moves on positions from real games, forced moves stay, and
the restricted learned player and expert keep to them in play."""

from __future__ import annotations

import numpy as np

from boardlab.engines import core
from boardlab.engines.patolli import POLICIES, Params, play
from boardlab.engines.patolli.decisions import ExtraPoint, Point
from boardlab.engines.patolli.policies import Balanced
from boardlab.engines.patolli.restrictions import RESTRICTIONS
from boardlab.engines.patolli.rules import ONE, U64, play_with
from boardlab.engines.restrict import RestrictedDecide, RestrictedSearch, restricted_legal


class Spy(Balanced):
    """``balanced``, keeping every decision point it met."""

    def __init__(self, params: Params) -> None:
        super().__init__(params)
        self.points: list[Point] = []

    def choose(self, moves: object) -> np.ndarray:
        self.points.append(Point.at(moves, POLICIES))
        return super().choose(moves)


def sampled_points(n: int = 40) -> list[Point]:
    params = Params()
    spy = Spy(params)
    play_with(params, [spy, spy], n, np.random.default_rng(1))
    return spy.points[::7]


def bits(point: Point, value: np.ndarray) -> np.ndarray:
    return ((value[:, None] >> np.arange(point.params.track_length, dtype=U64)) & ONE).astype(bool)


def test_never_capture_and_always_capture_remove_exactly_the_moves_they_say() -> None:
    captures = 0
    for point in sampled_points():
        moves = point.moves()
        capturing = np.concatenate([moves.enter_captures[:, None], bits(point, moves.capture)], axis=1)
        captures += int(capturing.any(axis=1).sum())
        never = RESTRICTIONS["never-capture"].allowed(point)
        np.testing.assert_array_equal(never, ~capturing)
        always = RESTRICTIONS["always-capture"].allowed(point)
        has = capturing.any(axis=1)
        np.testing.assert_array_equal(always[has], capturing[has])
        assert always[~has].all()
    assert captures > 0  # the sample holds positions with a capture


def test_never_enter_removes_entering_and_a_forced_entry_stays() -> None:
    forced = 0
    for point in sampled_points():
        moves = point.moves()
        allowed = RESTRICTIONS["never-enter"].allowed(point)
        np.testing.assert_array_equal(allowed[:, 0], ~moves.enter)
        assert allowed[:, 1:].all()
        legal = point.legal()
        mask = restricted_legal(point, [RESTRICTIONS["never-enter"]])
        only = moves.enter & (moves.legal == 0)
        forced += int(only.sum())
        np.testing.assert_array_equal(mask[only], legal[only])
        assert not mask[moves.enter & (moves.legal != 0), 0].any()
    assert forced > 0


def test_never_extra_passes_on_the_extra_move_and_leaves_moves_alone() -> None:
    point = sampled_points()[0]
    extra = ExtraPoint(point.params, POLICIES, point.state, point.key)
    assert RESTRICTIONS["never-extra"].allowed(extra).tolist() == [[False, True]] * len(point.key)
    assert RESTRICTIONS["never-extra"].allowed(point) is None
    assert not RESTRICTIONS["never-extra"].applies(Params().with_strings({"grey_extra": "always"}))


def test_restricted_strong_players_keep_to_never_capture_in_play() -> None:
    out = play(Params(), ["learned!never-capture", "learned"], 60, np.random.default_rng(2))
    free = play(Params(), ["learned", "learned"], 60, np.random.default_rng(2))
    assert out["captures"][:, 0].sum() < free["captures"][:, 0].sum() / 4  # captures left: only forced ones
    (impl,) = core.policy_instances(POLICIES, ["learned!never-capture"], Params())
    (full,) = core.policy_instances(POLICIES, ["learned"], Params())
    assert impl is not full and full.decide == full.best  # the shared unrestricted player is untouched


def test_the_restricted_expert_searches_restricted_points() -> None:
    (impl,) = core.policy_instances(POLICIES, ["expert:16!never-capture"], Params())
    point = next(p for p in sampled_points() if RESTRICTIONS["never-capture"].allowed(p)[p.legal()].size)
    assert isinstance(impl.decide, RestrictedDecide) and impl.decide.search(2).playouts == 16
    seen = []
    spy = type("Spy", (), {"choose": lambda self, q: seen.append(q) or q.legal().argmax(axis=1)})()
    RestrictedSearch(spy, impl.decide.restrictions).choose(point)
    np.testing.assert_array_equal(seen[0].legal(), restricted_legal(point, [RESTRICTIONS["never-capture"]]))
