"""Paleolino's restrictions: each mask keeps exactly the caves or keeps it says on positions from real games and
never reads the hidden caves, forced keeps stay, the restricted learned player and expert decide within them, and
unrestricted play is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import core
from boardlab.engines.paleolino import POLICIES, Params, play
from boardlab.engines.paleolino.decisions import CAVE, KEEP, Point, keep_options
from boardlab.engines.paleolino.restrictions import RESTRICTIONS
from boardlab.engines.paleolino.rules import bag_tables
from boardlab.engines.restrict import RestrictedDecide, restricted_legal
from tests.engines.digests import outcome_digest
from tests.engines.paleolino_points import points_at

Player = POLICIES["learned"].impl
COUNTS = bag_tables()[0].astype(int)


def own_counts(point: Point) -> np.ndarray:
    mover = int(point.state.turn[0]) % point.players
    return COUNTS[point.state.backpack[:, mover].astype(np.int64)]


def test_never_store_keeps_nothing_and_never_swap_keeps_the_backpack() -> None:
    point = points_at(Params(), KEEP, 6, n=120)
    options = COUNTS[keep_options(point.params.backpack)]
    store = RESTRICTIONS["never-store"].allowed(point)
    swap = RESTRICTIONS["never-swap"].allowed(point)
    own = own_counts(point)
    assert own.any()  # some backpacks hold a chip
    for b in range(len(point.key)):
        for j, option in enumerate(options):
            assert store[b, j] == (option.sum() == 0)
            assert swap[b, j] == bool((option >= own[b]).all())
    legal = point.legal()
    assert (legal & ~swap).any() and (legal & ~store).any()
    for name in ("never-store", "never-swap", "fullest-cave"):
        assert (
            RESTRICTIONS[name].allowed(points_at(Params(), CAVE if name != "fullest-cave" else KEEP, 6, n=120)) is None
        )


def test_without_swaps_a_chip_on_the_backpack_stays_under_never_store() -> None:
    params = Params().with_strings({"backpack_swap": "false"})
    assert not RESTRICTIONS["never-swap"].applies(params) and RESTRICTIONS["never-store"].applies(params)
    point = points_at(params, KEEP, 6, n=120)
    held = own_counts(point).any(axis=1)
    assert held.any() and (~held).any()
    mask = restricted_legal(point, [RESTRICTIONS["never-store"]])
    np.testing.assert_array_equal(mask[held], point.legal()[held])  # forced: the rules keep the chip
    assert (mask[~held].sum(axis=1) == 1).all() and mask[~held, 0].all()  # elsewhere: keep nothing


def test_fullest_cave_is_the_cave_of_most_expected_chips_whatever_the_caves_hold() -> None:
    point = points_at(Params(memory=0.5), CAVE, 8, n=120)
    allowed = RESTRICTIONS["fullest-cave"].allowed(point)
    expected = point.turn(core.StreamSource(point.key)).expected().sum(axis=2)
    np.testing.assert_array_equal(allowed, np.isclose(expected, expected.max(axis=1, keepdims=True)))
    assert (allowed.sum(axis=1) < point.params.caves).any()
    other = point.take(np.arange(len(point.key)))
    other.determinise(core.StreamSource(np.arange(len(point.key), dtype=np.uint64) + np.uint64(7)))
    assert not np.array_equal(other.state.caves, point.state.caves)  # another truth the table cannot tell apart
    np.testing.assert_array_equal(RESTRICTIONS["fullest-cave"].allowed(other), allowed)


@pytest.mark.parametrize(("name", "stage"), [("fullest-cave", CAVE), ("never-store", KEEP), ("never-swap", KEEP)])
@pytest.mark.parametrize("strong", ["learned", "expert:4"])
def test_restricted_strong_players_decide_within_the_restriction(strong: str, name: str, stage: int) -> None:
    point = points_at(Params(), stage, 6, n=40)
    (impl,) = core.policy_instances(POLICIES, [f"{strong}!{name}"], Params())
    allowed = restricted_legal(point, [RESTRICTIONS[name]])
    assert (allowed.sum(axis=1) < point.legal().sum(axis=1)).any()
    assert isinstance(impl.decide, RestrictedDecide)  # the model or the search, either seeing restricted points
    chosen = impl.decide(point, np.arange(len(point.key)), lambda: np.zeros(len(point.key), dtype=np.int64))
    assert allowed[np.arange(len(chosen)), chosen].all()


def digest(seats: list[str], n: int, seed: int) -> str:
    return outcome_digest(play, Params(), seats, n, seed)


def test_unrestricted_strong_players_play_the_games_they_played_before_restrictions() -> None:
    # digests of the same runs before restrictions existed (commit ac23568); the first is ac23568's under OpenBLAS's
    # SkylakeX kernel (02114d394e11cc1c under Haswell's, which valued two caves leading to one position a float32
    # step apart): inference no longer uses BLAS, so those ties are exact and go to the lowest cave
    # the expert's run re-pinned when its duel came to measure the gain's spread about zero (engines/expert.py)
    assert digest(["learned", "learned"], 100, 5) == "3f4c8aff164639dc"
    assert digest(["expert:4", "learned"], 8, 3) == "b8226a6d28f01e9c"


def test_a_restricted_learned_table_plays_other_games() -> None:
    assert digest(["learned!fullest-cave", "learned!fullest-cave"], 100, 5) != "02114d394e11cc1c"
