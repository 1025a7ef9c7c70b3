"""Cargolino Valentino: differential tests against the reference, invariants, hand-set rules, knob errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.engines import cargolino, core
from boardlab.engines.cargolino import INFO, METRICS, POLICIES, VARIANTS, Params, decisions, play, reference, rules
from boardlab.engines.cargolino.policies import EXPERT_HIDE
from boardlab.engines.checker import check_batch, check_reference
from boardlab.engines.expert import by_table_size

HEURISTICS = sorted(
    name for name in POLICIES if not name.startswith("expert") and name != "learned"
)  # the reference plays these

R, G, Y, B, P, W = range(6)  # snails and colours: red, green, yellow, blue, purple, white
# Default board (position: colour): 0 start | 1 purple 2 blue 3 red 4 green 5 yellow 6 white | 7 purple 8 blue
# 9 red 10 green 11 yellow 12 white | 13 .. 18 | 19 .. 24 (same cycle) | 25 finish
# Shells: start and 1..8 -> 3, 9..16 -> 2, 17..24 and finish -> 1.


# --- (a) differential tests --------------------------------------------------------------------------------

SEATINGS = [
    ["random", "random"],
    ["selfish", "selfish", "selfish"],
    ["selfish"] * 4,
    ["blocker", "selfish", "random", "blocker", "selfish"],
    ["detective", "selfish", "random", "blocker"],
    ["detective", "detective", "oracle"],
    ["oracle", "detective", "selfish", "blocker", "random", "detective"],
    ["hindmost", "detective:hide=0.5,own=2,other=3", "oracle:rest=0,cross=0,end=0"],
    ["hindmost:hide=0.25", "detective:rest=1", "hindmost", "selfish"],
]


@pytest.mark.parametrize("seats", SEATINGS, ids=lambda s: "-".join(s))
def test_play_matches_reference(seats: list[str]) -> None:
    check_reference(cargolino, Params(), seats, n=8, seed=len(seats), length=3000)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_variants_match_reference(variant: str) -> None:
    params = Params().with_strings(VARIANTS[variant])
    check_reference(cargolino, params, ["detective", "blocker", "random", "selfish"], n=6, seed=7, length=3000)


def test_batch_equals_batches_of_one() -> None:
    check_batch(cargolino, ["detective", "random", "oracle"], n=5, seed=3, length=3000)


@st.composite
def knobs(draw: st.DrawFn) -> Params:
    colours = st.sampled_from(rules.COLOURS)
    track = tuple(draw(st.lists(colours, min_size=1, max_size=14)))
    shells = draw(
        st.one_of(st.just(()), st.lists(st.integers(0, 9), min_size=len(track) + 2, max_size=len(track) + 2).map(tuple))
    )
    faces = tuple(draw(st.lists(colours, min_size=1, max_size=8)))
    return Params(
        track=track,
        shells=shells,
        faces=faces,
        dice=draw(st.integers(1, 7)),
        races=draw(st.integers(1, 3)),
        tokens=draw(st.sampled_from([(2, 2, 1, 1, 1), (1, 1, 1, 1, 1), (3, 2, 1, 1, 1)])),
        open_ownership=draw(st.booleans()),
        next_starter=draw(st.sampled_from(["last-mover", "next-player"])),
    )


@settings(max_examples=15, deadline=None)
@given(
    params=knobs(),
    seats=st.lists(st.sampled_from(HEURISTICS), min_size=2, max_size=6),
    seed=st.integers(0, 10**6),
)
def test_random_knobs_match_reference(params: Params, seats: list[str], seed: int) -> None:
    check_reference(cargolino, params, seats, n=3, seed=seed, length=6000)


# --- (b) invariants ------------------------------------------------------------------------------------------


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 6), policy=st.sampled_from(HEURISTICS), seed=st.integers(0, 10**6))
def test_games_end_and_scores_match_positions(players: int, policy: str, seed: int) -> None:
    params = Params()
    n = 20
    out = play(params, [policy] * players, n, np.random.default_rng(seed))
    t = params.tables
    assert out["score"].dtype == np.int32 and out["score"].shape == (n, players)
    assert (out["turns"] < INFO.turn_cap).all() and not out["capped"].any()
    assert (out["turns"] == out["race1_turns"].astype(int) + out["race2_turns"]).all()
    # a race needs at least (track + 1) / dice turns: one snail must walk the whole track
    assert (out["race1_turns"] * params.dice >= t.finish).all()
    final = np.stack([out[f"final_{c}"] for c in rules.COLOURS], axis=1)
    assert (final.max(axis=1) == t.finish).all()  # the last race ended with a snail on the finish
    race2 = out["score"] - out["race1_shells"]
    each = Params().each(players)
    values = t.value[final]
    if each == 1:  # the seat's only snail is its most-delayed one
        assert (race2 == t.value[out["delayed"]]).all()
    else:
        assert (race2 >= t.value[out["delayed"]] + t.value[t.finish]).all()
        assert (race2 <= t.value[out["delayed"]] * 2).all()
    assert (race2.sum(axis=1) <= values.sum(axis=1)).all()
    single = out["winner"] >= 0
    assert out["winners"][np.flatnonzero(single), out["winner"][single]].all()
    assert (out["winners"].sum(axis=1)[~single] >= 2).all()
    assert (out["score"][out["winners"]] == np.repeat(out["score"].max(axis=1), out["winners"].sum(axis=1))).all()
    acc = out["belief_accuracy"]
    if policy == "detective":
        assert ((acc >= 0) & (acc <= 1 + 1e-12)).all()
    else:
        assert np.isnan(acc).all()


@settings(max_examples=10, deadline=None)
@given(players=st.integers(2, 6), policy=st.sampled_from(HEURISTICS), seed=st.integers(0, 10**6))
def test_each_die_moves_one_snail_one_space_forward(players: int, policy: str, seed: int) -> None:
    params = Params()
    table, state, impls = _batch(params, [policy] * players, 16, np.random.default_rng(seed))
    rules.start_races(table, state, np.arange(16))
    for _ in range(40):
        before = state.pos.copy()
        rules.play_turn(table, impls, state)
        step = state.pos.astype(int) - before
        assert (step >= 0).all()  # never backwards
        assert (step.sum(axis=1) <= params.dice).all()  # at most one space per die
        running = state.pos.max(axis=1) < table.tables.finish
        # while no snail is on the finish every die has a legal move (its own snail at least)
        assert (step.sum(axis=1)[running] == params.dice).all()
        if not running.any():
            break


# --- (c) hand-set rules --------------------------------------------------------------------------------------


def _batch(params: Params, seats: list[str], n: int, rng) -> tuple[rules.Table, rules.State, list[object]]:
    players = len(seats)
    impls = core.policy_instances(POLICIES, seats, params)
    table = rules.Table.of(params, impls, core.as_source(rng))
    state = rules.State.initial(players, n, table.n_beliefs, table.hyps.size if table.n_beliefs else 1)
    return table, state, impls


def _hand_set(
    pos: list[int], owner: list[int], players: int, seats: list[str] | None = None, faces: list[int] | None = None
) -> tuple[rules.Table, rules.State, list[object]]:
    """One game at ``pos`` with tokens ``owner``; the next roll shows ``faces`` (default-face indices)."""
    uniforms = np.full((1, 50), 0.5)
    if faces:
        uniforms[0, : len(faces)] = (np.array(faces) + 0.5) / 6
    table, state, impls = _batch(Params(), seats or ["selfish"] * players, 1, core.ScriptedSource(uniforms))
    state.pos[0] = pos
    state.owner[0] = owner
    state.held[0] = [sum(1 << s for s in range(6) if owner[s] == p) for p in range(players)]
    return table, state, impls


class Scripted:
    """A policy that plays given (colour, snail) pairs, asserting each is legal."""

    def __init__(self, moves: list[tuple[int, int]]) -> None:
        self.moves = list(moves)
        self.legal_seen: list[np.ndarray] = []

    def choose(self, step: rules.Step) -> tuple[np.ndarray, np.ndarray]:
        legal = step.legal[0]
        self.legal_seen.append(legal.copy())
        colour, snail = self.moves.pop(0)
        assert legal[snail] >> colour & 1, f"illegal move {colour} on {snail}"
        return np.array([snail]), np.array([colour])


def legal_snails(pos: list[int], dice: list[int]) -> set[int]:
    legal = Params().tables.legal(np.array([pos], dtype=np.int8), np.array([rules.dice_code(dice)]))[0]
    return {s for s in range(6) if legal[s]}


def test_example_1_red_die() -> None:
    # red snail on a yellow space (5); green and yellow snails on a red space (3); the others elsewhere
    #   pos:  2 blue  3 red   5 yellow  6 white  7 purple
    #         B       G,Y     R         W        P
    pos = [5, 3, 3, 2, 7, 6]
    assert legal_snails(pos, [R]) == {R, G, Y}
    t = Params().tables
    for snail, landing in ((R, W), (G, G), (Y, G)):  # red to a white space, or a red-space snail to green
        table, state, _ = _hand_set(pos, [0, 0, 1, 1, -1, -1], 2, faces=[R])
        table.params = Params(dice=1)
        rules.play_turn(table, [Scripted([(R, snail)])] * 2, state)
        assert state.pos[0, snail] == pos[snail] + 1
        assert t.space_colour[state.pos[0, snail]] == landing
        assert int(state.pos[0].sum()) == sum(pos) + 1


def test_example_2_martas_turn_replays() -> None:
    # Pablo 0 (blue, red), Roberto 1 (yellow, green), Marta 2 (purple, white); Marta rolls green, blue, purple, red
    #   pos:  1 purple  3 red  6 white  7 purple  11 yellow  12 white
    #         P         G      W        Y         R          B
    pos = [11, 3, 7, 12, 1, 6]
    owner = [0, 1, 1, 0, 2, 2]
    moves = [(P, Y), (B, Y), (R, G), (G, G)]
    table, state, _ = _hand_set(pos, owner, 3, faces=[G, B, P, R])
    state.starter[0] = 2  # Marta's turn
    marta = Scripted(moves)
    rules.play_turn(table, [marta] * 3, state)
    seen = marta.legal_seen
    assert {s for s in range(6) if seen[0][s] >> P & 1} == {Y, P}  # purple die: yellow or her own purple
    assert {s for s in range(6) if seen[1][s] >> B & 1} == {Y, B}  # yellow now on blue
    assert {s for s in range(6) if seen[2][s] >> R & 1} == {R, G, Y}  # yellow now on red too
    assert {s for s in range(6) if seen[3][s] >> G & 1} == {G}  # the only option
    assert state.pos[0].tolist() == [11, 5, 9, 12, 1, 6]
    assert Params().tables.space_colour[[9, 5]].tolist() == [R, Y]  # yellow on red, green on yellow
    # the reference engine agrees on the same legality
    board = reference.Board(Params())
    assert {s for s in range(6) if board.can_move(pos, s, P)} == {Y, P}


def test_example_3_scoring_and_tie() -> None:
    # blue on the finish (1), red 10 (2), yellow 12 (2), green 15 (2), purple 4 (3), white 20 (1)
    pos = np.array([[10, 15, 12, 25, 4, 20]], dtype=np.int8)
    owner = np.array([[0, 1, 1, 0, 2, 2]], dtype=np.int8)  # Pablo, Roberto, Marta
    table, _, _ = _hand_set(pos[0].tolist(), owner[0].tolist(), 3)
    shells = rules.race_shells(table, pos, owner)
    assert shells.tolist() == [[3, 4, 4]]
    delayed = rules.most_delayed(table, pos, owner)
    winner, winners = core.rank_winners(shells, -delayed.astype(np.int64))
    assert winner[0] == 2 and winners[0].tolist() == [False, False, True]  # Marta's purple is further back
    same = np.array([[12, 15, 4, 25, 10, 20]], dtype=np.int8)  # now both tied seats' worst snail is on 4 / 10
    owner2 = np.array([[0, 1, 2, 0, 1, 2]], dtype=np.int8)
    assert rules.race_shells(table, same, owner2).tolist() == [[3, 4, 4]]


def test_start_stone_takes_any_colour_and_finish_never_moves() -> None:
    # all on the start: every die moves any snail; red on the finish cannot move even with a red die
    assert legal_snails([0] * 6, [W]) == set(range(6))
    assert legal_snails([25, 1, 1, 1, 1, 1], [R]) == set()
    assert legal_snails([25, 3, 1, 1, 1, 1], [R]) == {G}  # green stands on a red space


def test_die_without_move_is_ignored() -> None:
    # red snail on the finish, nobody on a red space or the start: the three red dice are ignored
    #   pos: 1 purple 2 blue 4 green 5 yellow 6 white | 25 finish
    pos = [25, 4, 5, 2, 1, 6]
    table, state, impls = _hand_set(pos, [0, 0, 1, 1, -1, -1], 2, faces=[R, R, G, R])
    rules.play_turn(table, impls, state)
    assert int(state.pos[0].sum()) == sum(pos) + 1


def test_race_ends_only_at_end_of_turn() -> None:
    # red on the last space (24, white): the first die takes it to the finish, the other three are still used
    pos = [24, 3, 3, 2, 1, 6]
    table, state, impls = _hand_set(pos, [1, 1, 0, 0, -1, -1], 2, faces=[R, G, G, G])
    rules.play_turn(table, impls, state)
    assert state.pos[0, R] == 25
    assert int(state.pos[0].sum()) == sum(pos) + 4


def test_selfish_spares_own_snails() -> None:
    # seat 0 holds red (on 20); green on 3 and red could both go with a red die: selfish pushes green
    pos = [20, 3, 1, 2, 1, 6]
    table, state, impls = _hand_set(pos, [0, 1, 0, 1, -1, -1], 2, faces=[R])
    table.params = Params(dice=1)
    rules.play_turn(table, impls, state)
    assert state.pos[0].tolist() == [20, 4, 1, 2, 1, 6]


def test_oracle_pushes_the_leaders_snail() -> None:
    # 4 players, seat 3 (oracle) to move with a red die; seat 1 leads on banked shells and holds yellow
    #   yellow on 3 (red) and blue on 9 (red) can both go; blue is farther but belongs to seat 2
    pos = [10, 2, 3, 9, 1, 6]
    owner = [0, -1, 1, 2, -1, 3]
    table, state, _ = _hand_set(pos, owner, 4, faces=[R])
    table.params = Params(dice=1)
    state.banked[0] = [5, 9, 2, 0]
    state.starter[0] = 3
    rules.play_turn(table, core.policy_instances(POLICIES, ["oracle"] * 4, Params()), state)
    assert state.pos[0].tolist() == [10, 2, 4, 9, 1, 6]


def test_next_race_starter(monkeypatch: pytest.MonkeyPatch) -> None:
    for knob, shift in (("next-player", 1), ("last-mover", 0)):
        movers: list[tuple[int, int, int, int]] = []
        original = rules.play_turn

        def spy(table, impls, state, _orig=original, _log=movers):
            race = state.race.copy()
            games = state.game.copy()
            mover = _orig(table, impls, state)
            _log.extend(zip(games.tolist(), race.tolist(), mover.tolist(), strict=True))
            return mover

        monkeypatch.setattr(rules, "play_turn", spy)
        play(Params(next_starter=knob), ["selfish"] * 3, 10, np.random.default_rng(5))
        monkeypatch.setattr(rules, "play_turn", original)
        for g in range(10):
            seq = [(r, m) for gg, r, m in movers if gg == g]
            last1 = [m for r, m in seq if r == 0][-1]
            first2 = next(m for r, m in seq if r == 1)
            assert first2 == (last1 + shift) % 3
            assert next(m for r, m in seq if r == 0) == 0  # seat 0 starts race 1


def test_detective_learns_more_than_the_prior() -> None:
    out = play(Params(), ["detective", "selfish", "selfish", "selfish"], 150, np.random.default_rng(11))
    prior = (3 * (1 / 5) + 2 * (2 / 5)) / 5  # three held snails at 1/5, two unowned at 2/5
    assert np.nanmean(out["belief_accuracy"][:, 0]) > prior + 0.1


def test_metrics_columns_present() -> None:
    out = play(Params(), ["random"] * 4, 3, np.random.default_rng(0))
    for name, metric in METRICS.items():
        assert out[name].shape[0] == 3
        assert out[name].ndim == (2 if metric.kind == "seat" else 1)


# --- (d) knob errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ({"dice": 0}, ["dice=0", "1..7"]),
        ({"dice": 8}, ["dice=8", "1..7"]),
        ({"races": 6}, ["races=6", "1..5"]),
        ({"tokens": (2, 2, 2, 1, 1)}, ["tokens=(2, 2, 2, 1, 1)", "players × tokens <= 6"]),
        ({"tokens": (2, 2, 1, 1)}, ["tokens=", "5 whole numbers"]),
        ({"tokens": (0, 2, 1, 1, 1)}, ["tokens=", ">= 1"]),
        ({"open_ownership": "yes"}, ["open_ownership='yes'", "False, True"]),
        ({"track": ("red", "pink")}, ["track=", "pink", "red, green"]),
        ({"track": ()}, ["track=()", "1..60"]),
        ({"faces": ("red",) * 13}, ["faces=", "1..12"]),
        ({"shells": (1, 2, 3)}, ["shells=(1, 2, 3)", "26"]),
        ({"shells": (10,) * 26}, ["shells=", "0..9"]),
        ({"next_starter": "holder"}, ["next_starter='holder'", "next-player"]),
    ],
)
def test_params_errors_name_knob_value_and_range(knobs: dict, words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        Params(**knobs)
    for word in words:
        assert word in str(err.value)


def test_default_board_and_shells() -> None:
    t = Params().tables
    assert t.finish == 25
    assert t.value.tolist() == [3] * 9 + [2] * 8 + [1] * 9
    assert [rules.COLOURS[c] for c in t.space_colour[1:7]] == list(rules.TRACK_CYCLE)


def test_players_out_of_range() -> None:
    with pytest.raises(ValueError, match="players=7"):
        play(Params(), ["random"] * 7, 1, np.random.default_rng(0))


# --- (d) the experts -------------------------------------------------------------------------------------------


def _seat0_decision(players: int, expert: str, swap: bool, turns: int = 7, n: int = 24) -> tuple[list, rules.Step]:
    """The first die of a seat-0 turn in ``n`` games after ``turns`` hindmost turns (own tokens fixed).

    ``swap`` re-deals the tokens of every other seat among the snails seat 0 does not hold (the hidden truth).
    Returns the seat policies (``expert`` in seat 0) and the decision's step.
    """
    params = Params()
    expert_impls = core.policy_instances(POLICIES, [expert] + ["hindmost"] * (players - 1), params)
    pushers = core.policy_instances(POLICIES, ["hindmost"] * players, params)
    table, state, _ = _batch(params, [expert] + ["hindmost"] * (players - 1), n, np.random.default_rng(3))
    table = rules.Table.of(params, expert_impls, table.source)
    rules.start_races(table, state, np.arange(n))
    for _ in range(turns):
        rules.play_turn(table, pushers, state)
        state.race_turn += 1
    state.starter[:] = (-state.race_turn) % players  # seat 0 moves next
    if swap:
        for g in range(n):
            others = [s for s in range(6) if state.owner[g, s] != 0]
            old = state.owner[g, others].copy()
            state.owner[g, others] = np.roll(old, 1)
            state.held[g] = [sum(1 << s for s in range(6) if state.owner[g, s] == p) for p in range(players)]
    mover, code = rules.roll(table, state)
    assert (mover == 0).all()
    return expert_impls, rules.Step(table, state, slice(None), mover, state.held[:, 0].copy(), code, 0)


def _expert_choices(players: int, expert: str, swap: bool) -> np.ndarray:
    """The expert's choice (``6 * snail + colour``) at :func:`_seat0_decision`."""
    impls, step = _seat0_decision(players, expert, swap)
    snail, colour = impls[0].choose(step)
    return snail * 6 + colour


@pytest.mark.parametrize("players", [2, 4])
def test_expert_ignores_the_hidden_deal(players: int) -> None:
    # the same games with the other seats' tokens re-dealt: the expert chooses the same moves ...
    assert np.array_equal(_expert_choices(players, "expert:8", False), _expert_choices(players, "expert:8", True))


def test_expert_oracle_reads_the_deal() -> None:
    # ... while the expert-oracle, searching the true deal, changes some (so the test above can fail)
    assert not np.array_equal(_expert_choices(2, "expert-oracle:8", False), _expert_choices(2, "expert-oracle:8", True))


def test_hiding_move_advances_an_own_snail_that_loses_nothing() -> None:
    _, step = _seat0_decision(4, "expert", False, turns=3, n=64)
    point = decisions.Point.at(step, POLICIES, truth=False)
    assert (decisions.hiding_move(point, 0.0) == -1).all()
    always = decisions.hiding_move(point, 1.0)
    rows = np.arange(len(always))
    own = step.own_snails & (step.legal != 0) & Params().tables.cheap[step.pos]
    assert np.array_equal(always >= 0, own.any(axis=1)) and 0 < own.any(axis=1).sum() < len(rows)
    hid = np.flatnonzero(always >= 0)
    snail, colour = always[hid] // 6, always[hid] % 6
    assert own[hid, snail].all() and ((step.legal[hid, snail] >> colour) & 1).all()
    sometimes = decisions.hiding_move(point, 0.5)
    assert 0 < (sometimes >= 0).sum() < len(hid) and np.array_equal(sometimes[sometimes >= 0], always[sometimes >= 0])


def test_the_expert_hides_only_at_four_and_five_players() -> None:
    assert [by_table_size(EXPERT_HIDE, k) for k in range(2, 7)] == [0.0, 0.0, 0.0625, 0.0625, 0.0]


def test_expert_moves_are_legal_and_reproducible() -> None:
    seats = ["expert:4", "selfish"]
    one = play(Params(), seats, 4, np.random.default_rng(8))
    two = play(Params(), seats, 4, np.random.default_rng(8))
    for name, value in one.items():
        np.testing.assert_array_equal(value, two[name], err_msg=name)
    assert not one["capped"].any()


def test_expert_arguments() -> None:
    with pytest.raises(ValueError, match=r"1\.\.65536"):
        core.resolve_policies(POLICIES, ["expert:0"])
    with pytest.raises(ValueError, match="hide=2"):
        core.resolve_policies(POLICIES, ["detective:hide=2"])
    with pytest.raises(ValueError, match="keys hide"):
        core.resolve_policies(POLICIES, ["hindmost:own=2"])
    (p,) = core.resolve_policies(POLICIES, ["detective:hide=0.125,own=1,other=3"])
    assert (p.arg.hide, p.arg.other, p.arg.cross) == (0.125, 3.0, 2)
    (q,) = core.resolve_policies(POLICIES, ["detective:hide=0.125/own=1/other=3"])
    assert q.arg == p.arg
