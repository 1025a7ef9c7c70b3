"""Restrictions over decision points (engines.restrict): the mask, forced moves, the expert and the learned choice
on restricted points, and the ``policy!restriction`` name grammar."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from boardlab.engines import core, get_game
from boardlab.engines.expert import Search
from boardlab.engines.learned.choice import choose
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.record import record_of
from boardlab.engines.restrict import RestrictedPoint, Restriction, default_strong, parse_names, restricted_legal

CANDIDATES = 4


class Pick:
    """A one-decision game: seat 0 picks a number; candidate ``c`` wins with chance ``c / 3`` (3 always wins)."""

    players, cooperative = 2, False

    def __init__(self, legal: np.ndarray, action: np.ndarray | None = None) -> None:
        self.mask = legal
        self.seat = np.zeros(len(legal), dtype=np.int64)
        self.key = np.arange(len(legal), dtype=np.uint64)
        self.action = np.zeros(len(legal), dtype=np.int64) if action is None else action

    def legal(self) -> np.ndarray:
        return self.mask.copy()

    def suggest(self, policy: str) -> np.ndarray:
        return self.mask.argmax(axis=1)  # the lowest legal number

    def take(self, rows: np.ndarray) -> Pick:
        return Pick(self.mask[rows], self.action[rows].copy())

    def determinise(self, source: core.Source) -> None:
        """Nothing is hidden."""

    def apply(self, actions: np.ndarray) -> None:
        self.action = np.asarray(actions, dtype=np.int64)

    def features(self, viewer: np.ndarray | None = None) -> np.ndarray:
        return (self.action[:, None] / 3).astype(np.float32)

    def play_out(self, seat_policies: Sequence[str], source: core.Source) -> tuple[np.ndarray, np.ndarray]:
        won = source.uniform(np.arange(len(self.action)))[:, 0] < self.action / 3
        return np.stack([won, ~won], axis=1), np.stack([won, ~won], axis=1).astype(np.int64)


def no_three(point: Pick) -> np.ndarray:
    return np.arange(CANDIDATES)[None, :].repeat(len(point.mask), 0) != 3


def odd_only(point: Pick) -> np.ndarray:
    return np.arange(CANDIDATES)[None, :].repeat(len(point.mask), 0) % 2 == 1


NO_THREE = Restriction("no-three", "never picks 3", no_three)
ODD = Restriction("odd", "picks only odd numbers", odd_only)
IDENTITY = ValueModel((np.ones((1, 1), np.float32),), (np.zeros(1, np.float32),))  # value = action / 3


def test_a_restriction_removes_its_candidates_and_a_forced_row_keeps_its_legal_ones() -> None:
    legal = np.array([[1, 1, 1, 1], [0, 0, 0, 1], [1, 0, 1, 1]], dtype=bool)
    mask = restricted_legal(Pick(legal), [NO_THREE])
    assert mask.tolist() == [[1, 1, 1, 0], [0, 0, 0, 1], [1, 0, 1, 0]]  # row 1: only 3 is legal, so it stays
    both = restricted_legal(Pick(legal), [NO_THREE, ODD])
    assert both.tolist() == [[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 1, 1]]  # row 2: 1 is illegal, 3 forbidden: forced


def test_a_restricted_point_suggests_only_allowed_candidates_and_takes_rows_restricted() -> None:
    legal = np.array([[1, 1, 1, 1], [0, 0, 1, 1]], dtype=bool)
    point = RestrictedPoint(Pick(legal), [ODD])
    assert point.suggest("any").tolist() == [1, 3]  # 0 and 2 are not allowed
    assert point.take(np.array([1, 1])).legal().tolist() == [[0, 0, 0, 1]] * 2
    assert point.players == 2 and point.seat.tolist() == [0, 0]


def test_the_expert_on_a_restricted_point_searches_only_the_allowed_moves() -> None:
    legal = np.ones((6, CANDIDATES), dtype=bool)
    search = Search(256, "any")
    assert search.choose(Pick(legal)).tolist() == [3] * 6
    assert search.choose(RestrictedPoint(Pick(legal), [NO_THREE])).tolist() == [2] * 6


def test_the_generic_learned_choice_on_a_restricted_point_takes_the_best_allowed_move() -> None:
    legal = np.array([[1, 1, 1, 1], [1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    assert choose(Pick(legal), IDENTITY).tolist() == [3, 2, 3]
    assert choose(RestrictedPoint(Pick(legal), [NO_THREE]), IDENTITY).tolist() == [2, 2, 3]  # row 2 is forced


def restricted_games() -> list[str]:
    """The games that declare restrictions."""
    from boardlab.engines import available_games

    return [g for g in available_games() if record_of(get_game(g).module).restrictions]


def test_restricted_names_resolve_in_the_declared_order_and_bad_ones_are_refused() -> None:
    for game in restricted_games():
        module = get_game(game).module
        names = list(record_of(module).restrictions)
        strong = default_strong(module.POLICIES)  # learned, or the expert in a game without one (Swine)
        (one,) = core.resolve_policies(module.POLICIES, [f"{strong}!{names[0]}"])
        assert one.name == f"{strong}!{names[0]}"
        if len(names) > 1:
            (two,) = core.resolve_policies(module.POLICIES, [f"{strong}!{names[1]}!{names[0]}"])
            assert two.name == f"{strong}!{names[0]}!{names[1]}"  # canonical: the same player has one name
        if strong == "learned":
            (expert,) = core.resolve_policies(module.POLICIES, [f"expert:8@learned!{names[0]}"])
            assert expert.name == f"expert:8@learned!{names[0]}" and expert.chunk_games is not None
        with pytest.raises(ValueError, match="did you mean"):
            core.resolve_policies(module.POLICIES, [f"{strong}!{names[0]}x"])
        with pytest.raises(ValueError, match="takes no restriction"):
            core.resolve_policies(module.POLICIES, [f"random!{names[0]}"])
        with pytest.raises(ValueError, match="twice"):
            core.resolve_policies(module.POLICIES, [f"{strong}!{names[0]}!{names[0]}"])
    assert "swine" in restricted_games()  # the worked example restricts its expert


def test_parse_names_keeps_the_declared_order() -> None:
    declared = {"a": NO_THREE, "b": ODD}
    assert parse_names("b!a", declared, "p") == ("a", "b")
    with pytest.raises(ValueError, match="unknown restriction 'c'"):
        parse_names("c", declared, "p")
