"""The best reply to two turn-optimal rivals (3 players): its values against simulation, dominance, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardlab.engines.cachedir import checksum_path
from boardlab.engines.pantolino import play
from boardlab.engines.pantolino import response as rp
from boardlab.engines.pantolino.heuristics import TurnOptimal
from boardlab.engines.pantolino.rules import Params, play_with

SMALL = Params(colours=4, token_values=(2, 4))  # 8 tokens, 3,876 positions: solved in a fraction of a second
GAMES = 20_000


@pytest.fixture(scope="module")
def following() -> np.ndarray:
    return rp.solve(SMALL, follow=True)


@pytest.fixture(scope="module")
def best() -> np.ndarray:
    return rp.solve(SMALL)


def shares(winners: np.ndarray) -> np.ndarray:
    """Each game's share per seat, a shared win split evenly."""
    won = winners.astype(np.float64)
    return won / won.sum(axis=1, keepdims=True)


def test_positions_are_every_multiset_once() -> None:
    where = rp.Positions(SMALL)
    assert len(where.pattern) == rp.positions(SMALL) == math.comb(16 + 3, 4)
    assert (np.diff(where.pattern, axis=1) >= 0).all()  # each row sorted, as ranked
    assert len(np.unique(where.pattern, axis=0)) == len(where.pattern)
    assert where.level[0] == SMALL.n_tokens  # rank 0: every token in the supply


def test_following_turn_optimal_matches_simulation(following: np.ndarray) -> None:
    simulated = shares(play(SMALL, ["turn-optimal"] * 3, GAMES, np.random.default_rng(1))["winners"])
    error = simulated.std(axis=0) / math.sqrt(GAMES)
    assert (np.abs(rp.seat_values(following) - simulated.mean(axis=0)) < 4 * error).all()
    assert rp.seat_values(following).sum() == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("seat", range(3))
def test_best_reply_plays_its_value(best: np.ndarray, seat: int) -> None:
    impls: list[object] = [TurnOptimal(SMALL) for _ in range(3)]
    impls[seat] = rp.BestReply(SMALL, best)
    share = shares(play_with(SMALL, impls, GAMES, np.random.default_rng([2, seat]))["winners"])[:, seat]
    assert abs(share.mean() - rp.seat_values(best)[seat]) < 4 * share.std() / math.sqrt(GAMES)


def test_a_level_s_chunks_solved_by_several_threads_give_the_same_values_as_by_one(best, monkeypatch) -> None:
    monkeypatch.setattr(rp, "CHUNK", 37)  # every level of SMALL in many chunks
    monkeypatch.setattr(rp, "threads", lambda: 1)
    alone = rp.solve(SMALL)
    monkeypatch.setattr(rp, "threads", lambda: 3)
    assert np.array_equal(rp.solve(SMALL), alone)
    assert np.allclose(alone, best, rtol=0, atol=1e-14)  # other chunks: other roundings in the dice's sums


def test_best_reply_is_never_worse_than_following(following: np.ndarray, best: np.ndarray) -> None:
    assert np.array_equal(np.isnan(best), np.isnan(following))
    assert np.nanmin(best - following) >= -1e-12
    assert (rp.seat_values(best) > rp.seat_values(following) + 0.01).all()


@pytest.mark.parametrize(
    ("held", "share"),
    [
        (((4, 4, 2, 0), (9, 0, 0, 0), (4, 4, 0, 0)), 1.0),  # most boots wins outright, whatever the colours
        (((9, 0, 0, 0), (4, 4, 2, 0), (4, 4, 0, 0)), 0.0),
        (((6, 4, 0, 0), (4, 4, 2, 0), (4, 0, 0, 0)), 1.0),  # level on boots: most boots of one colour
        (((4, 4, 2, 0), (6, 4, 0, 0), (4, 0, 0, 0)), 0.0),
        (((6, 4, 0, 0), (4, 6, 0, 0), (4, 0, 0, 0)), 0.5),  # still level: shared
        (((4, 4, 0, 0), (4, 4, 0, 0), (4, 4, 0, 0)), 1 / 3),
        (((4, 4, 0, 0), (4, 4, 0, 0), (6, 2, 0, 0)), 0.0),
        (((4, 4, 0, 0), (6, 2, 0, 0), (4, 4, 0, 0)), 0.0),
    ],
)
def test_an_ended_games_share(held: tuple[tuple[int, ...], ...], share: float) -> None:
    by_colour = np.array(held, dtype=np.int64)
    assert rp._final_share(by_colour.sum(axis=1), by_colour) == pytest.approx(share)


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ({"escaping_boots": True}, "base game only"),
        ({"head_start": 2}, "base game only"),
        ({"no_token_rule": "remove-smallest"}, "base game only"),
        ({"colours": 8}, "positions"),
    ],
)
def test_unsupported_knobs_are_refused(knobs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        rp.check_supported(Params(**knobs))


def test_best_reply_refuses_values_of_other_knobs(best: np.ndarray) -> None:
    with pytest.raises(ValueError, match="not a solution of these knobs"):
        rp.BestReply(Params(colours=3, token_values=(2, 4)), best)


def test_the_cached_solution_is_solved_once_per_knobs_and_a_wrong_table_is_solved_again(
    best: np.ndarray, tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    assert np.array_equal(rp.cached_solution(SMALL), best)
    path = rp.cache_path(SMALL)
    assert path.parent == tmp_path and rp.cache_path(Params(colours=3, token_values=(2, 4))) != path
    assert rp.check(SMALL, best) is None
    assert "expected (3, 816)" in rp.check(Params(colours=3, token_values=(2, 4)), best)
    assert "not a chance" in rp.check(SMALL, best + 0.5)
    with monkeypatch.context() as m:
        m.setattr(rp, "solve", lambda *a, **k: pytest.fail("solved again although the cache was fine"))
        assert np.array_equal(rp.cached_solution(SMALL), best)
    np.save(path, best[:, :10])  # another table, as from before checksums: refused by its shape
    checksum_path(path).unlink()
    assert np.array_equal(rp.cached_solution(SMALL), best)
    assert "is not usable" in capsys.readouterr().err


def test_best_reply_keeps_only_the_row_it_reads(best: np.ndarray) -> None:
    reply = rp.BestReply(SMALL, best)
    assert reply.after_seat.base is None and np.array_equal(reply.after_seat, best[1])  # the table can be freed


def test_best_reply_refuses_another_table(best: np.ndarray) -> None:
    with pytest.raises(ValueError, match="3-player"):
        play_with(SMALL, [rp.BestReply(SMALL, best), TurnOptimal(SMALL)], 1, np.random.default_rng(0))


def test_a_rival_takes_the_colour_it_holds_most_of() -> None:
    """Two 2-boot tokens fit; the next rival holds 4 boots of one colour and none of the other, so takes the first."""
    where = rp.Positions(SMALL)
    seat, rival = 1, 2  # owner codes in a pattern (0 is the supply); value index 0 is 2 boots, 1 is 4
    patterns = np.array(sorted([0, seat | seat << 2, seat | seat << 2, rival << 2]), dtype=np.int64)
    held_colour, free_colour = 3, 0  # their places in the sorted patterns
    rank = rp._sorted_rank(patterns, where.binomial)
    supply = rp._holdings(where.pattern[rank], where.values, SMALL.colours)[0]
    tables = SMALL.tables
    counts = np.zeros(SMALL.colours + 1, dtype=np.int64)
    counts[[held_colour, free_colour]] = 2  # two dice of each: both 2-boot tokens fit, no 4-boot one
    throw = tables.full_position[tables.index_of_code[counts @ tables.weight]]
    throws = np.zeros((1 << SMALL.n_tokens, len(tables.full)))
    throws[supply, throw] = 1.0
    values = np.zeros((3, len(where.pattern)))
    values[2, rp._after(patterns, held_colour, 0, rival, where.binomial)] = 1.0  # the last rival moves next
    args = (np.array([rank]), np.array([supply]), where.pattern, values, throws, tables.fit_mask.astype(np.int64))
    a, miss = rp._rival_terms(*args, where.values, SMALL.colours, where.binomial, 1)
    assert (a[0], miss[0]) == (1.0, 0.0)
