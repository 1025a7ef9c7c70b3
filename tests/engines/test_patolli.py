"""Patolli: reference vs batched engine, invariants, hand-set rule positions, knob validation.

The default board (52 squares, indices clockwise from the north arm; 51/12/25/38 are the 2×2 centre;
seat 0 starts on 12, seat 1 on 38; grey corners 5, 6, 18, 19, 31, 32, 44, 45):

                      5  6
                      4  7
                      3  8
                      2  9
                      1 10
                      0 11
    45 46 47 48 49 50 51 12 13 14 15 16 17 18
    44 43 42 41 40 39 38 25 24 23 22 21 20 19
                     37 26
                     36 27
                     35 28
                     34 29
                     33 30
                     32 31

Hand-set tests use safe squares {3, 29} and bad-luck squares {16, 42}. In the strips below, ``A``/``a`` are
seat 0's buttons (``a`` = the one that moves), ``B`` seat 1's, ``S`` safe, ``X`` bad luck, ``G`` grey.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.analysis.stats import wilson
from boardlab.engines import core, get_game, patolli
from boardlab.engines.checker import check_batch, check_reference
from boardlab.engines.core import ScriptedSource
from boardlab.engines.expert import Search
from boardlab.engines.patolli import INFO, METRICS, POLICIES, VARIANTS, Params, decisions, play, playouts, reference
from boardlab.engines.patolli.policies import lost_faces, stretch_keeps_extra
from boardlab.engines.patolli.rules import (
    ALL_FINISHED,
    BAD_LUCK,
    BANKRUPT,
    CAPTURE,
    NEVER,
    SKIP,
    State,
    grey_squares,
    layout,
    marker_sets,
    outcome,
    place_markers,
    play_on,
    progress_metrics,
    rotate,
    start,
    step,
)
from boardlab.engines.record import record_of
from tests.engines.test_soundness import SEED, heuristics

HEURISTICS = sorted(name for name in POLICIES if name not in ("expert", "learned"))  # the reference engine plays these
TEST = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), first_player=0)
STARTS = (12, 38)

# --- differential: batched engine vs reference on the same pre-drawn streams --------------------------------


def assert_same(params: Params, seats: list[str], n: int = 12, seed: int = 7, length: int = 4000) -> None:
    """The checker's reference differential with these knobs and seats."""
    check_reference(patolli, params, seats, n, seed, length)


@pytest.mark.parametrize("policy", HEURISTICS)
@pytest.mark.parametrize("opponent", HEURISTICS)
def test_reference_matches_engine(policy: str, opponent: str) -> None:
    assert_same(Params(), [policy, opponent], n=8, seed=hash((policy, opponent)) % 1000)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("policy", ["random", "cautious", "balanced"])
def test_reference_matches_engine_variants(variant: str, policy: str) -> None:
    params = Params().with_strings(VARIANTS[variant])
    assert_same(params, [policy, "aggressive"], n=8)


@pytest.mark.parametrize(
    "knobs",
    [
        {"roll_again": (5, 6), "enter_roll": 6, "first_player": 1},
        {"buttons": 3, "tokens": 4, "random_markers": 3},
        {"die_faces": 4, "roll_again": (4,), "safe_squares": ()},
        {"start_squares": (0, 26), "exit_overshoot": True, "pay_when_empty": True},
        {"overshoot_pays": False, "grey_safe": True},
        {"overshoot_pays": False, "pay_when_empty": True, "tokens": 3},
    ],
)
def test_reference_matches_engine_knobs(knobs: dict) -> None:
    for seats in (["balanced", "random"], ["cautious", "runner"]):
        assert_same(Params(**knobs), seats, n=6)


def test_batch_equals_batches_of_one() -> None:
    check_batch(patolli, ["random", "balanced"], TEST, n=10, seed=3, length=4000)


# --- invariants ----------------------------------------------------------------------------------------------


def check_state(params: Params, state: State) -> None:
    lay = layout(params)
    buttons = np.bitwise_count(state.track).astype(int) + state.off + state.home
    assert (buttons == params.buttons).all()  # buttons conserved
    assert (state.track < (1 << lay.length)).all()  # positions on the track
    assert (state.tokens >= 0).all()
    assert (state.tokens.sum(axis=0) + state.bank == 2 * params.tokens).all()  # tokens conserved
    # opposing buttons share a square only on a safe square (seat 1 seen in seat 0's frame)
    other = rotate(state.track[1], lay.to_me[0], lay.length)
    assert ((other & state.track[0] & ~(state.safe[0] | lay.shelter_frame[0])) == 0).all()
    assert (state.paid.sum(axis=(0, 1)) == state.bank).all()
    assert (state.turn <= INFO.turn_cap).all()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    seats=st.lists(st.sampled_from(HEURISTICS), min_size=2, max_size=2),
    buttons=st.integers(1, 6),
    tokens=st.integers(1, 10),
    overshoot=st.booleans(),
    pay=st.booleans(),
    grey=st.booleans(),
)
def test_invariants_every_roll(seed, seats, buttons, tokens, overshoot, pay, grey) -> None:
    params = Params(buttons=buttons, tokens=tokens, exit_overshoot=overshoot, pay_when_empty=pay, grey_bonus=grey)
    source = ScriptedSource.from_seed(seed, 6, 4000)
    impls = core.seat_policies_of(INFO, POLICIES, seats, params)
    state = start(params, np.arange(6), source)
    check_state(params, state)
    rolls = 0
    while len(state.game):
        done = step(params, impls, state, source)
        check_state(params, state)
        state = state.keep_rows(np.flatnonzero(~done))
        rolls += 1
        assert rolls < 10 * INFO.turn_cap  # every game ends (the turn cap stops the rest)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    seats=st.lists(st.sampled_from(HEURISTICS), min_size=2, max_size=2),
    tokens=st.integers(1, 10),
)
def test_outcome_columns(seed, seats, tokens) -> None:
    params = Params(tokens=tokens)
    out = play(params, seats, 40, np.random.default_rng(seed))
    n = 40
    assert out["score"].shape == (n, 2) and out["score"].dtype == np.int32
    assert out["winner"].dtype == np.int8 and out["turns"].dtype == np.int32
    assert ((out["score"] >= 0) & (out["score"] <= params.buttons)).all()
    assert (out["turns"] <= INFO.turn_cap).all() and (out["turns"] >= 1).all()
    assert (out["win_reason"].sum(axis=1) == 1).all()
    for name, metric in METRICS.items():
        assert len(out[name]) == n
        if metric.kind == "seat":
            assert out[name].shape == (n, 2)
    capped = out["capped"]
    kept = np.where(capped, out["bank"], 0)
    assert (out["tokens"].sum(axis=1) + kept == 2 * tokens).all()  # the winner took the bank
    paid = out["paid_skip"] + out["paid_capture"] + out["paid_bad_luck"]
    assert (paid.sum(axis=1) == out["bank"]).all()
    assert (out["captures"][:, ::-1] == out["paid_capture"]).all()
    rows = np.arange(n)
    finished = out["win_reason"][:, ALL_FINISHED] == 1
    assert (out["score"][rows[finished], out["winner"][finished]] == params.buttons).all()
    bankrupt = out["win_reason"][:, BANKRUPT] == 1
    loser = 1 - out["winner"][bankrupt]
    assert (out["tokens"][rows[bankrupt], loser] == 0).all()
    assert (out["winners"].sum(axis=1) >= 1).all()


def test_same_seed_same_games() -> None:
    a = play(Params(), ["balanced", "cautious"], 300, np.random.default_rng(5))
    b = play(Params(), ["balanced", "cautious"], 300, np.random.default_rng(5))
    c = play(Params(), ["balanced", "cautious"], 300, np.random.default_rng(6))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["turns"], c["turns"])


@pytest.mark.parametrize("where", ["rulebook", "restricted"])
def test_random_markers_are_distinct_and_legal(where: str) -> None:
    params = Params(marker_squares=where)
    state = start(params, np.arange(2000), ScriptedSource.from_seed(1, 2000, 40))
    lay = layout(params)
    grey, starts = set(lay.grey), set(lay.starts)
    forbidden_safe = grey | starts if where == "restricted" else set()
    forbidden_bad = grey | starts if where == "restricted" else grey
    seen = 0
    for seat, start_square in enumerate(lay.starts):
        safe = rotate(state.safe[seat], np.uint64(start_square), lay.length)
        bad = rotate(state.bad[seat], np.uint64(start_square), lay.length)
        assert (np.bitwise_count(safe) == 2).all() and (np.bitwise_count(bad) == 2).all()
        assert ((safe & bad) == 0).all()
        for s in forbidden_safe:
            assert (safe & np.uint64(1 << s) == 0).all()
        for s in forbidden_bad:
            assert (bad & np.uint64(1 << s) == 0).all()
        seen |= int(np.bitwise_or.reduce(safe)) | int(np.bitwise_or.reduce(bad))
    allowed = {s for s in range(52) if s not in forbidden_safe}
    assert seen == sum(1 << s for s in allowed)  # every allowed square is used by some game


def squares_of(bits: int) -> set[int]:
    return {s for s in range(64) if bits >> s & 1}


def test_players_place_markers_by_their_rule() -> None:
    # seat 0 starts on 12, seat 1 on 38: safe markers just before each home (11, 37), then bad luck on the free
    # squares the opponent reaches last (seat 1 places first: 10 before seat 0's home; seat 0: 36)
    params = Params()
    impls = core.policy_instances(POLICIES, ["balanced", "cautious"], params)
    state = start(params, np.arange(3), core.RandomSource(np.random.default_rng(1)), impls)
    safe, bad = marker_sets(params, state)
    assert {squares_of(int(b)) == {11, 37} for b in safe} == {True}
    assert {squares_of(int(b)) == {10, 36} for b in bad} == {True}
    # random placement (the knob, or the random policy) draws from the free squares
    drawn = start(Params(marker_placement="random"), np.arange(50), core.RandomSource(np.random.default_rng(1)), impls)
    assert len({int(b) for b in marker_sets(params, drawn)[0]}) > 40


def test_the_expert_places_markers_on_free_squares() -> None:
    params = Params()
    state = start(params, np.arange(4), core.RandomSource(np.random.default_rng(2)))
    state.set_markers(params, np.zeros(4, dtype=np.uint64), np.zeros(4, dtype=np.uint64))
    point = decisions.MarkerPoint(params, POLICIES, state, 0, core.mix64(np.arange(4, dtype=np.uint64)))
    assert point.legal().sum(axis=1).tolist() == [52] * 4 and point.seat.tolist() == [0] * 4
    chosen = Search(8, "balanced").choose(point)
    copy = point.take(np.arange(4))
    copy.apply(chosen)
    assert [squares_of(int(b)) for b in marker_sets(params, copy.state)[0]] == [{int(c)} for c in chosen]
    winners, _ = copy.play_out(["balanced", "balanced"], core.StreamSource(np.arange(4, dtype=np.uint64)))
    assert (winners.sum(axis=1) == 1).all()


def test_layout_of_default_board() -> None:
    lay = layout(Params())
    assert lay.starts == STARTS
    assert grey_squares(52, 6) == (5, 6, 18, 19, 31, 32, 44, 45)
    assert layout(Params(track_length=60, arm_length=7)).starts == (14, 44)


# --- hand-set positions --------------------------------------------------------------------------------------


def progress(seat: int, square: int) -> int:
    return (square - STARTS[seat]) % 52


def position(
    mine: tuple[int, ...] = (),
    theirs: tuple[int, ...] = (),
    mover: int = 0,
    home: tuple[int, int] = (0, 0),
    tokens: tuple[int, int] = (10, 10),
    params: Params = TEST,
) -> State:
    """One game; ``mine`` are the mover's squares, ``theirs`` the other seat's."""
    state = State.empty(params, np.arange(1))
    place_markers(params, state, ScriptedSource(np.zeros((1, 1))))
    for seat, squares in ((mover, mine), (1 - mover, theirs)):
        state.track[seat, 0] = np.uint64(sum(1 << progress(seat, s) for s in squares))
        state.home[seat, 0] = home[seat]
        state.off[seat, 0] = params.buttons - len(squares) - home[seat]
        state.tokens[seat, 0] = tokens[seat]
    state.bank[0] = 2 * params.tokens - sum(tokens)
    state.paid[SKIP, :, 0] = params.tokens - np.array(tokens)  # keep the books consistent
    state.mover[0] = mover
    return state


def roll(state: State, faces: list[int], policy: str = "runner", params: Params = TEST) -> bool:
    """Play one roll per face; returns whether the game ended."""
    source = ScriptedSource(np.array([[(f - 0.5) / params.die_faces for f in faces]]))
    impls = core.seat_policies_of(INFO, POLICIES, [policy, policy], params)
    done = False
    for _ in faces:
        done = bool(step(params, impls, state, source)[0])
        if done:
            break
    return done


def squares(state: State, seat: int) -> set[int]:
    bits = int(state.track[seat, 0])
    return {(STARTS[seat] + p) % 52 for p in range(52) if bits >> p & 1}


def test_enter_on_a_one_only() -> None:
    # 11 [12] 13 : seat 0 has nothing on the board; a 2 does nothing and costs nothing, a 1 enters on 12
    state = position()
    roll(state, [2])
    assert squares(state, 0) == set() and state.tokens[0, 0] == 10 and state.mover[0] == 1
    state = position()
    roll(state, [1])
    assert squares(state, 0) == {12} and state.off[0, 0] == 5 and state.mover[0] == 1


def test_pay_when_empty_knob() -> None:
    params = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), pay_when_empty=True)
    state = position(params=params)
    roll(state, [2], params=params)
    assert state.tokens[0, 0] == 9 and state.paid[SKIP, 0, 0] == 1 and state.bank[0] == 1


def test_one_may_move_instead_of_entering() -> None:
    # [12] 13 14 : a on 13, B on 14; aggressive moves a onto B with the 1 rather than entering
    #   .  a  B
    state = position(mine=(13,), theirs=(14,))
    roll(state, [1], policy="aggressive")
    assert squares(state, 0) == {14} and state.off[0, 0] == 5 and squares(state, 1) == set()


def test_move_exactly_and_not_onto_own_button() -> None:
    # 20 21 22 23 24 25 26 : A on 20 and 23, roll 3: 20 -> 23 is blocked, so the runner's move is 23 -> 26
    #  A  .  .  A  .  .  .
    state = position(mine=(20, 23))
    roll(state, [3])
    assert squares(state, 0) == {20, 26}
    # the leading button on 11 (one step from home) cannot overshoot, so again 23 -> 26
    #  9 10 11 [12] ... 20 21 22 23 : A on 11, 20 and 23; roll 3
    state = position(mine=(11, 20, 23))
    roll(state, [3])
    assert squares(state, 0) == {11, 20, 26}


def test_capture_sends_button_back_and_costs_a_token() -> None:
    # 20 21 22 23 : a on 20, B on 23; roll 3 captures
    #  a  .  .  B
    state = position(mine=(20,), theirs=(23,))
    roll(state, [3])
    assert squares(state, 0) == {23} and squares(state, 1) == set()
    assert state.off[1, 0] == 6 and state.tokens[1, 0] == 9 and state.bank[0] == 1
    assert state.captures[0, 0] == 1 and state.paid[CAPTURE, 1, 0] == 1


def test_entering_captures_on_the_start_square() -> None:
    # 11 [12] 13 : B stands on seat 0's start square; a 1 enters and captures it
    state = position(mine=(), theirs=(12,))
    roll(state, [1])
    assert squares(state, 0) == {12} and squares(state, 1) == set() and state.tokens[1, 0] == 9


def test_safe_square_is_shared_not_captured() -> None:
    # 26 27 28 29 : a on 26, B on the safe square 29; roll 3 lands beside it
    #  a  .  .  S(B)
    state = position(mine=(26,), theirs=(29,))
    roll(state, [3])
    assert squares(state, 0) == {29} and squares(state, 1) == {29} and state.tokens[1, 0] == 10


def test_bad_luck_costs_a_token() -> None:
    # 13 14 15 16 : a on 13, roll 3 lands on bad luck 16
    #  a  .  .  X
    state = position(mine=(13,))
    roll(state, [3])
    assert squares(state, 0) == {16} and state.tokens[0, 0] == 9 and state.paid[BAD_LUCK, 0, 0] == 1


def test_grey_corner_gives_another_roll_and_chains() -> None:
    # 14 15 16 17 18 | 19 20 ... : a on 14 (the other five home, so the 1 cannot enter); roll 4 reaches grey 18,
    #  a  .  X  .  G    G          roll 1 reaches grey 19, roll 2 ends on 21
    state = position(mine=(14,), home=(5, 0))
    roll(state, [4])
    assert squares(state, 0) == {18} and state.mover[0] == 0 and state.turn[0] == 0
    roll(state, [1])
    assert squares(state, 0) == {19} and state.mover[0] == 0
    roll(state, [2])
    assert squares(state, 0) == {21} and state.mover[0] == 1 and state.turn[0] == 1


def test_no_grey_bonus_knob() -> None:
    params = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), grey_bonus=False)
    state = position(mine=(14,), params=params)
    roll(state, [4], params=params)
    assert squares(state, 0) == {18} and state.mover[0] == 1


def test_five_rolls_again_six_does_not() -> None:
    # 20 .. 25 .. 26 : a on 20; a 5 reaches 25 and rolls again; a 6 from 20 reaches 26 and the turn passes
    state = position(mine=(20,))
    roll(state, [5])
    assert squares(state, 0) == {25} and state.mover[0] == 0
    state = position(mine=(20,))
    roll(state, [6])
    assert squares(state, 0) == {26} and state.mover[0] == 1


def test_exact_finish_and_overshoot_knob() -> None:
    # 9 10 11 [12] : a on 10 needs exactly 2 to come home on 12
    state = position(mine=(10,))
    roll(state, [2])
    assert squares(state, 0) == set() and state.home[0, 0] == 1
    state = position(mine=(10,))
    roll(state, [3])  # too far: no legal move, the turn is lost and costs a token
    assert squares(state, 0) == {10} and state.tokens[0, 0] == 9 and state.paid[SKIP, 0, 0] == 1
    params = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), exit_overshoot=True)
    state = position(mine=(10,), params=params)
    roll(state, [3], params=params)
    assert squares(state, 0) == set() and state.home[0, 0] == 1


def test_overshoot_pays_knob() -> None:
    # 9 10 11 [12] : a on 10 needs exactly 2; a 3 is too high: skipped, and free under this reading
    params = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), overshoot_pays=False)
    state = position(mine=(10,), params=params)
    roll(state, [3], params=params)
    assert squares(state, 0) == {10} and state.tokens[0, 0] == 10 and state.mover[0] == 1
    # a roll lost with no button held back by its finish still pays (here: an empty track under pay_when_empty)
    params = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), overshoot_pays=False, pay_when_empty=True)
    state = position(params=params)
    roll(state, [2], params=params)
    assert state.tokens[0, 0] == 9 and state.paid[SKIP, 0, 0] == 1


def test_grey_safe_knob() -> None:
    # 14 15 16 17 18 : a on 14, B on grey 18; roll 4 lands on B
    #  a  .  X  .  G(B)
    params = Params(safe_squares=(3, 29), bad_luck_squares=(16, 42), grey_safe=True)
    state = position(mine=(14,), theirs=(18,), params=params)
    roll(state, [4], params=params)
    assert squares(state, 0) == {18} and squares(state, 1) == {18} and state.tokens[1, 0] == 10
    state = position(mine=(14,), theirs=(18,))  # the default: a grey corner does not protect
    roll(state, [4])
    assert squares(state, 0) == {18} and squares(state, 1) == set() and state.tokens[1, 0] == 9


def test_home_stretch_counts_lost_faces_and_declines_a_doomed_extra_move() -> None:
    params = Params()

    def bits(*progress: int) -> np.ndarray:
        return np.array([sum(1 << p for p in progress)], dtype=np.uint64)

    none = np.zeros(1, dtype=np.int8)
    # buttons at progress 50 and 51 (nothing waiting): faces 1 and 2 finish one, 3..6 overshoot and pay
    assert lost_faces(params, bits(50, 51), none)[0] == 8
    assert not stretch_keeps_extra(params, bits(50, 51), none)[0]
    # 46 and 50: only a 4 is lost (46 -> 50 is blocked, 50 + 4 overshoots)
    assert lost_faces(params, bits(46, 50), none)[0] == 2
    assert stretch_keeps_extra(params, bits(46, 50), none)[0]
    # with the overshoot free, a lost face counts once; a waiting button makes the 1 playable
    free = Params(overshoot_pays=False)
    assert lost_faces(free, bits(50, 51), none)[0] == 4
    assert lost_faces(params, bits(50, 51), np.ones(1, dtype=np.int8))[0] == 8
    game = reference.Game(params, set(), set(), track=[{50, 51}, set()], off=[0, 6], tokens=[10, 10])
    assert reference.lost_faces(params, game.track[0], 0) == 8 and not reference.keeps_extra(game, "home-stretch", 0)
    assert reference.keeps_extra(game, "balanced", 0)


def test_grey_extra_point_takes_or_passes() -> None:
    # 14 15 16 17 18 : a on 14 rolls 4 and lands on grey 18; the expert's extra decision: 0 takes, 1 passes
    state = position(mine=(14,), home=(5, 0))
    roll(state, [4], policy="balanced", params=TEST)
    assert state.mover[0] == 0  # balanced takes the extra move
    for action, mover, turn in ((0, 0, 0), (1, 1, 1)):
        point = decisions.ExtraPoint(TEST, POLICIES, state.keep_rows(np.arange(1)), np.zeros(1, dtype=np.uint64))
        assert point.legal().tolist() == [[True, True]] and point.suggest("balanced").tolist() == [0]
        point.apply(np.array([action]))
        assert point.state.mover[0] == mover and point.state.turn[0] == turn
        winners, _ = point.play_out(["balanced", "balanced"], core.StreamSource(np.ones(1, dtype=np.uint64)))
        assert winners.sum() == 1


def test_mid_score_and_lead_changes() -> None:
    # 10 turns = 5 rounds; seat 0 finishes in turns 2 and 8 (rounds 1, 4), seat 1 in turns 5, 6, 9 (rounds 2, 3,
    # 4). Ends of rounds: 0-0, 1-0 (seat 0 leads), 1-1, 1-2 (seat 1 leads: one change), 2-3. Mid-game = the end
    # of round 2 (counted from 1): 1-0.
    finished_at = np.full((2, 6, 1), NEVER, dtype=np.int16)
    finished_at[0, :2, 0] = (2, 8)
    finished_at[1, :3, 0] = (5, 6, 9)
    metrics = progress_metrics(finished_at, np.array([10]))
    assert metrics["mid_score"].tolist() == [[1, 0]] and metrics["lead_changes"].tolist() == [1]
    assert reference.progress_metrics([[2, 8], [5, 6, 9]], 10) == {"mid_score": [1, 0], "lead_changes": 1}


def test_running_out_of_tokens_loses() -> None:
    # 13 14 15 16 : a on 13 with 1 token left lands on bad luck 16 and goes bankrupt
    state = position(mine=(13,), tokens=(1, 10))
    assert roll(state, [3])
    assert state.winner[0] == 1 and state.reason[0] == BANKRUPT


def test_capture_that_bankrupts_spares_the_bad_luck_payment() -> None:
    # 13 14 15 16 : a on 13, B on the bad-luck square 16 with its last token; the capture ends the game first
    state = position(mine=(13,), theirs=(16,), tokens=(1, 1))
    assert roll(state, [3])
    assert state.winner[0] == 0 and state.reason[0] == BANKRUPT and state.tokens[0, 0] == 1


def test_finishing_every_button_wins_and_takes_the_bank() -> None:
    # 10 11 [12] : the last button of seat 0 (5 already home) comes home with a 2
    state = position(mine=(10,), home=(5, 0), tokens=(7, 8))
    assert roll(state, [2])
    assert state.winner[0] == 0 and state.reason[0] == ALL_FINISHED
    out = outcome(TEST, state)
    assert out["score"].tolist() == [[6, 0]] and out["tokens"].tolist() == [[12, 8]] and out["bank"][0] == 5


def test_aggressive_captures_runner_runs() -> None:
    # 20 21 22 23 ... 40 41 42 43 : a on 20 can capture B on 23 with a 3; A on 40 leads
    state = position(mine=(20, 40), theirs=(23,))
    roll(state, [3], policy="aggressive")
    assert squares(state, 0) == {23, 40}
    state = position(mine=(20, 40), theirs=(23,))
    roll(state, [3], policy="runner")
    assert squares(state, 0) == {20, 43}


@pytest.mark.parametrize("policy", ["runner", "aggressive", "cautious"])
def test_heuristics_enter_whenever_they_may(policy: str) -> None:
    # [12] 13 ... 40 : A on 13 and 40 could move with the 1; each heuristic enters a button on 12 instead
    state = position(mine=(13, 40))
    roll(state, [1], policy=policy)
    assert squares(state, 0) == {12, 13, 40} and state.off[0, 0] == 3


def test_cautious_steps_out_of_reach() -> None:
    # B on 14 threatens 15..20; A on 15 (threatened) and A on 40 (safe from B); roll 6: cautious moves 15 -> 21
    state = position(mine=(15, 40), theirs=(14,))
    roll(state, [6], policy="cautious")
    assert squares(state, 0) == {21, 40}


# --- knob validation -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ({"track_length": 60}, ["track_length=60", "arm_length=6"]),
        ({"arm_length": 9, "track_length": 76}, ["arm_length=9", "2..7"]),
        ({"bad_luck_squares": (5, 29)}, ["bad_luck_squares=(5, 29)", "forbidden", "5, 6, 18"]),
        ({"marker_squares": "restricted", "safe_squares": (5, 29)}, ["safe_squares=(5, 29)", "forbidden"]),
        ({"marker_squares": "restricted", "bad_luck_squares": (12,)}, ["bad_luck_squares=(12,)", "12"]),
        ({"marker_squares": "anywhere"}, ["marker_squares='anywhere'", "rulebook, restricted"]),
        ({"safe_squares": (3,), "bad_luck_squares": (3,)}, ["bad_luck_squares=(3,)"]),
        ({"random_markers": 9}, ["random_markers=9", "0..8"]),
        ({"track_length": 20, "arm_length": 2, "random_markers": 7}, ["random_markers=7", "free squares"]),
        ({"buttons": 0}, ["buttons=0", "1..12"]),
        ({"tokens": 61}, ["tokens=61", "1..60"]),
        ({"die_faces": 1}, ["die_faces=1", "2..12"]),
        ({"enter_roll": 7}, ["enter_roll=7", "1..6"]),
        ({"roll_again": (7,)}, ["roll_again=(7,)", "1..6"]),
        ({"first_player": 2}, ["first_player=2", "-1..1"]),
        ({"start_squares": (12,)}, ["start_squares=(12,)", "2 squares"]),
    ],
)
def test_params_validation_names_knob_value_and_range(knobs: dict, words: list[str]) -> None:
    with pytest.raises(ValueError) as error:
        Params(**knobs)
    for word in words:
        assert word in str(error.value)


def test_with_strings_parses_square_lists() -> None:
    params = Params().with_strings({"safe-squares": "3,29", "bad_luck_squares": "16, 42", "first_player": "1"})
    assert params.safe_squares == (3, 29) and params.bad_luck_squares == (16, 42) and params.first_player == 1
    assert Params().with_strings({"safe_squares": "none"}).safe_squares is None


def test_turn_cap_scores_games_as_they_stand(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from boardlab.engines.patolli import rules

    short = dataclasses.replace(INFO, turn_cap=40)
    monkeypatch.setattr(rules, "INFO", short)
    monkeypatch.setattr(reference, "INFO", short)
    assert_same(Params(), ["balanced", "runner"], n=10)
    out = play(Params(), ["balanced", "runner"], 50, np.random.default_rng(2))
    capped = out["capped"]
    assert capped.any() and (out["turns"][capped] == 40).all()
    assert (out["win_reason"][capped, 2] == 1).all()
    best = out["score"][capped].max(axis=1)
    assert (out["score"][capped][out["winners"][capped]] == np.repeat(best, out["winners"][capped].sum(axis=1))).all()


# --- compiled playouts: the same games as the numpy engine ---------------------------------------------------


@pytest.mark.parametrize("policy", sorted(playouts.ROLLOUTS))
@pytest.mark.parametrize(
    "knobs",
    [{}, {"overshoot_pays": False, "grey_safe": True}, {"exit_overshoot": True, "pay_when_empty": True, "tokens": 3}],
)
def test_compiled_playouts_match_engine(policy: str, knobs: dict) -> None:
    params = Params(**knobs)
    impls = core.policy_instances(POLICIES, [policy, policy], params)
    state = start(params, np.arange(400), core.RandomSource(np.random.default_rng(5)))
    source = core.RandomSource(np.random.default_rng(6))
    for _ in range(40):  # into the middle game, so positions differ
        step(params, impls, state, source)
    keys = core.mix64(np.arange(400, dtype=np.uint64))
    numpy_games = play_on(params, impls, state.keep_rows(np.arange(400)), core.StreamSource(keys))
    compiled = state.keep_rows(np.arange(400))
    compiled.game = np.arange(400)
    playouts.play_out(params, policy, compiled, core.StreamSource(keys))
    assert (compiled.reason >= 0).all()
    for name in State.__slots__:
        assert np.array_equal(getattr(numpy_games, name), getattr(compiled, name)), name


# --- soundness at the game's own settings (tests/engines/test_soundness.py covers the defaults) ---

# --- Patolli: the contested readings at their other setting (the defaults are covered above) ------------------

PATOLLI = record_of(get_game("patolli").module)
PATOLLI_READINGS = {
    "free-overshoot": {"overshoot_pays": False},
    "grey-safe": {"grey_safe": True},
    "grey-extra-always": {"grey_extra": "always"},
    "restricted-markers": {"marker_squares": "restricted"},
    "random-markers": {"marker_placement": "random"},
}


def patolli_share(policy: str, opponent: str, knobs: dict, n: int) -> tuple[float, float, float]:
    """Seat-averaged share of the win of ``policy`` against ``opponent`` in Patolli with ``knobs``."""
    module = get_game("patolli").module
    params = module.Params(**knobs)
    total = 0.0
    for seat in range(2):
        seats = [opponent, opponent]
        seats[seat] = policy
        winners = module.play(params, seats, n, np.random.default_rng([SEED, seat]))["winners"].astype(np.float64)
        total += float((winners[:, seat] / np.maximum(winners.sum(axis=1), 1)).sum())
    low, high = wilson(total, 2 * n)
    return total / (2 * n), float(low), float(high)


@pytest.mark.parametrize("reading", sorted(PATOLLI_READINGS))
@pytest.mark.parametrize("policy", heuristics("patolli"))
def test_patolli_heuristics_beat_random_under_each_reading(reading: str, policy: str) -> None:
    share, low, high = patolli_share(
        policy, "random", PATOLLI_READINGS[reading], record_of(get_game("patolli").module).soundness_games
    )
    assert low > 0.5, f"patolli ({reading}) {policy} does not beat random: {share:.1%} [{low:.1%}, {high:.1%}]"


@pytest.mark.parametrize("reading", sorted(PATOLLI_READINGS))
def test_patolli_expert_does_not_lose_to_balanced_under_each_reading(reading: str) -> None:
    share, low, high = patolli_share("expert", "balanced", PATOLLI_READINGS[reading], PATOLLI.search_games)
    assert high >= 0.5, f"patolli ({reading}): the expert loses to balanced: {share:.1%} [{low:.1%}, {high:.1%}]"
