"""The generic learned choice (engines.learned.choice), on the tiny pile game (:mod:`tests.engines.pile`).

Under :func:`~tests.engines.pile.perfect` a position is worth 0.75 to the mover who left a multiple of three to the
opponent, 1.0 to the one who took the last stone, and 0.25 otherwise.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.learned.choice import (
    Featured,
    best_candidates,
    best_of,
    choose,
    guarded_candidates,
    model_values,
    where_chosen,
)
from tests.engines.pile import Pile, perfect


def piles(*sizes: int) -> Pile:
    """Seat 0 to move on each pile."""
    return Pile(np.array(sizes, dtype=np.int64), np.zeros(len(sizes), dtype=np.int64))


def test_the_tiny_game_point_is_featured() -> None:
    assert isinstance(piles(1), Featured)


def test_model_values_are_the_movers_values_after_each_legal_candidate() -> None:
    expected = [[0.75, 0.25], [0.25, 0.75], [0.25, 1.0], [1.0, -np.inf]]
    np.testing.assert_array_equal(model_values(piles(4, 5, 2, 1), perfect()), expected)
    seat_one = Pile(np.array([4]), np.array([1]))  # the mover's view, whoever moves
    np.testing.assert_array_equal(model_values(seat_one, perfect()), [[0.75, 0.25]])


def test_best_of_breaks_ties_to_the_highest_numbered_candidate() -> None:
    values = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [-np.inf, 3.0, -np.inf], [5.0, -np.inf, -np.inf]])
    np.testing.assert_array_equal(best_of(values), [1, 2, 1, 0])


def test_best_candidates_take_the_best_valued_position() -> None:
    # 4: leave 3; 5: leave 3; 2: take the last; 1: the only move; 3: both lose alike, the tie to the higher
    np.testing.assert_array_equal(best_candidates(piles(4, 5, 2, 1, 3), perfect()), [0, 1, 1, 0, 1])


def test_guarded_candidates_keep_the_default_unless_another_is_clearly_better() -> None:
    point, default = piles(4, 5, 2, 1), np.array([1, 0, 0, 0])  # each default is 0.5, 0.5, 0.75, 0 below the best
    np.testing.assert_array_equal(guarded_candidates(point, perfect(), default, 0.4), [0, 1, 1, 0])
    np.testing.assert_array_equal(guarded_candidates(point, perfect(), default, 0.6), [1, 0, 1, 0])
    np.testing.assert_array_equal(guarded_candidates(point, perfect(), default, 0.8), default)
    np.testing.assert_array_equal(guarded_candidates(point, perfect(), default, 0.5), [1, 0, 1, 0])  # not more above
    # a default the row may not take (illegal, or no candidate at all) gives way to the best, whatever the margin
    for margin, last in ((0.4, 1), (np.inf, 0)):  # the last row's legal default: overruled below its gap, 0.5
        chosen = guarded_candidates(piles(1, 4, 4, 5), perfect(), np.array([1, -1, 2, 0]), margin)
        np.testing.assert_array_equal(chosen, [0, 0, 0, last])


def test_choose_asks_the_model_only_where_there_is_a_choice() -> None:
    point = piles(1, 4, 5, 2)
    # a pile of 4 or 5: leave 3 to the opponent; a pile of 2: take both; a pile of 1: the only move
    np.testing.assert_array_equal(choose(point, perfect()), [0, 0, 1, 1])
    asked = []

    def default() -> np.ndarray:
        asked.append(True)
        return np.array([1, 1, 0, 0])  # the pile of 1's default is illegal, but that row has no choice

    np.testing.assert_array_equal(choose(point, perfect(), default, 0.6), [0, 1, 0, 1])
    np.testing.assert_array_equal(choose(point, perfect(), default, 0.0), [0, 0, 1, 1])  # no margin: the model's
    assert len(asked) == 1


def test_where_chosen_picks_only_among_rows_with_two_legal_candidates() -> None:
    point = Pile(np.array([1, 4, 1, 2, 7]), np.arange(5) % 2)
    seen = []

    def pick(sub: Pile, rows: np.ndarray) -> np.ndarray:
        seen.append((sub.pile.copy(), sub.seat.copy(), rows.copy()))
        return np.ones(len(rows), dtype=np.int64)

    np.testing.assert_array_equal(where_chosen(point, pick), [0, 1, 0, 1, 1])
    ((sizes, seats, rows),) = seen  # one call, with the rows that have a choice (and their seats)
    np.testing.assert_array_equal(rows, [1, 3, 4])
    np.testing.assert_array_equal(sizes, [4, 2, 7])
    np.testing.assert_array_equal(seats, [1, 1, 0])
    assert where_chosen(piles(1, 1, 1), pick).tolist() == [0, 0, 0]
    assert len(seen) == 1  # no row with a choice: never asked
