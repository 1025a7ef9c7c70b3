"""Paleolino: differential tests against the reference engine, invariants, the rulebook's examples, knobs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.engines import get_game, paleolino
from boardlab.engines.checker import check_batch, check_reference
from boardlab.engines.core import GameStream, ScriptedSource
from boardlab.engines.paleolino import INFO, POLICIES, Params, play
from boardlab.engines.paleolino import reference as ref
from boardlab.engines.paleolino.building import keep_best, keep_order, offers
from boardlab.engines.paleolino.kernels import CRYSTAL_VALUE
from boardlab.engines.paleolino.rules import (
    State,
    Turn,
    bag_tables,
    draw_chips,
    forget_cdf,
    forget_count,
    pack,
    pay_builds,
    step,
    store_chips,
)
from tests.engines.test_soundness import SEED, heuristics

POLICY_NAMES = sorted(ref.REFERENCE_POLICIES)  # the heuristics (the expert is tested at the end)
COUNTS = bag_tables()[0]
W, S, B, C = np.eye(4, dtype=np.int64)  # one wood, stone, berry, crystal as counts


def assert_same_games(params: Params, seats: list[str], n_games: int, seed: int) -> None:
    """The checker's reference differential with these knobs and seats."""
    check_reference(paleolino, params, seats, n_games, seed, length=700)


def test_the_reference_engine_returns_every_column_but_the_components() -> None:
    one = ref.play_one(Params(), ["greedy", "random"], ScriptedSource.from_seed(1, 1, 700).one_game(0))
    assert set(one) == set(play(Params(), ["greedy", "random"], 1, ScriptedSource.from_seed(1, 1, 700))) - {
        "components"
    }


# --- the batched engine plays the reference engine's games -------------------------------------------------


@pytest.mark.parametrize("policy", POLICY_NAMES)
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_batched_engine_replays_reference_games(policy: str, players: int) -> None:
    assert_same_games(Params(), [policy] * players, n_games=12 if policy == "planner" else 30, seed=players)


@pytest.mark.parametrize(
    "variant",
    [
        {"easy": True},
        {"one_build_per_turn": True},
        {"one_build_per_turn": True, "remove_singles": True},
        {"memory": 0.6},
        {"backpack": 0},
        {"backpack": 2, "cave_weights": (1.0, 2.0, 0.0, 3.0, 1.0)},
        {"chips": (5, 5, 5, 2), "goal": 6, "stacks": 4},
        {"memory": 0.0},
        {"memory": 0.8, "fade": 0.3},
        {"help": False},
        {"backpack": 3, "help_chips": 2, "backpack_swap": False},
        {"pulls": 3},
        {"pulls": 1, "inventions": ("wwb", "s", "bbw", "ssb", "sw", "b", "bb"), "goal": 5},
    ],
    ids=[
        "easy",
        "expert",
        "real-experts",
        "memory",
        "no-backpacks",
        "big-backpacks",
        "small-game",
        "no-memory",
        "fading",
        "no-help",
        "no-swap",
        "three-pulls",
        "one-pull",
    ],
)
def test_variants_replay_reference_games(variant: dict) -> None:
    assert_same_games(Params(**variant), ["planner", "greedy", "random"], n_games=10, seed=7)
    assert_same_games(Params(**variant), ["random"], n_games=10, seed=8)


# --- invariants ----------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(1, 4),
    policy=st.sampled_from(POLICY_NAMES),
    easy=st.booleans(),
    expert=st.booleans(),
    remove_singles=st.booleans(),
    memory=st.sampled_from([0.0, 0.5, 1.0]),
    backpack=st.integers(0, 3),
    pulls=st.integers(1, 4),
    fade=st.sampled_from([0.0, 0.4]),
    swap=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_invariants(players, policy, easy, expert, remove_singles, memory, backpack, pulls, fade, swap, seed) -> None:
    params = Params(
        easy=easy,
        one_build_per_turn=expert,
        remove_singles=remove_singles,
        memory=memory,
        backpack=backpack,
        pulls=pulls,
        fade=fade,
        backpack_swap=swap,
    )
    n = 20
    out = play(params, [policy] * players, n, np.random.default_rng(seed), components=True)
    chips = np.array(params.chips)
    held = out["axe"] + out["caves"].sum(axis=1) + out["middle"] + out["backpack"].sum(axis=1) + out["pit"]
    assert np.all(held == chips)  # every chip is somewhere, exactly once
    assert np.all((out["turns"] >= 1) & (out["turns"] <= INFO.turn_cap))
    assert np.all(out["turns"] <= -(-chips.sum() // pulls))
    won = out["inventions"] >= params.goal
    assert np.array_equal(out["won"], won) and np.all(out["inventions"] <= params.goal)
    assert np.array_equal(out["winner"], np.where(won, -1, -2))
    assert np.all(out["winners"] == won[:, None]) and np.all(out["score"] == out["inventions"][:, None])
    assert np.all(out["axe"][~won].sum(axis=1) == 0)  # a lost game ran the hand axe dry
    assert np.all(out["middle"][~won] == 0)
    assert np.all(out["backpack"].sum(axis=2) <= backpack)
    tables = params.tables(players)
    built_cost = np.zeros((n, 3), dtype=np.int64)  # cost of every card built, from the final stacks
    for s in range(tables.stacks):
        for j in range(tables.depth):
            built = out["taken"][:, s] > j
            built_cost += tables.cost[out["deck"][:, s, j]] * built[:, None]
    assert np.array_equal(built_cost.sum(axis=1) + out["wasted"], out["pit"].sum(axis=1))  # exact payments
    assert np.array_equal(out["taken"].sum(axis=1), out["inventions"])
    assert np.all(out["crystals_used"] <= out["pit"][:, 3])
    missing = np.maximum(built_cost - out["pit"][:, :3], 0).sum(axis=1)  # resources no chip of their own paid for
    assert np.all(missing <= out["crystals_used"])
    if players == 1 or backpack == 0:
        assert np.all(out["help_given"] == 0)


def test_batch_equals_single_games() -> None:
    check_batch(paleolino, ["random", "planner"], n=5, seed=4, length=400)


def test_blocks_of_games_do_not_change_results(monkeypatch) -> None:
    import boardlab.engines.paleolino.rules as rules

    source = ScriptedSource.from_seed(5, 7, 400)
    whole = play(Params(), ["random", "greedy"], 7, source)
    monkeypatch.setattr(rules, "CHUNK", 3)
    source = ScriptedSource.from_seed(5, 7, 400)
    blocks = play(Params(), ["random", "greedy"], 7, source)
    assert all(np.array_equal(whole[k], blocks[k]) for k in whole)


# --- hand-set positions: the rulebook's examples -----------------------------------------------------------

INVENTIONS = ("bb", "s", "sw", "wwb", "ss")  # ids 0 Sign, 1 Clay Flute, 2 Seesaw, 3 Bed, 4 two stones
SIGN, FLUTE, SEESAW, BED, STONES = range(5)


def position(
    players: int,
    stacks: list[list[int]],
    caves: dict[int, np.ndarray],
    backpacks: dict[int, np.ndarray],
    axe: np.ndarray,
    turn: int = 0,
    **knobs,
) -> tuple[Params, State]:
    """A one-game batched state: stacks listed from the top, caves fully remembered."""
    params = Params(inventions=INVENTIONS, goal=knobs.pop("goal", 5), stacks=len(stacks), **knobs)
    state = State.initial(params, players, 1, None)
    state.deck[:] = params.tables(players).dummy
    for s, cards in enumerate(stacks):
        state.deck[0, s, : len(cards)] = cards
    state.taken[0] = 0
    for cave, chips in caves.items():
        state.caves[0, cave] = state.belief[0, cave] = pack(chips)
    for seat, chips in backpacks.items():
        state.backpack[0, seat] = pack(chips)
    state.axe[0] = pack(axe)
    state.turn[0] = turn
    return params, state


def reference_position(
    params: Params,
    players: int,
    stacks: list[list[int]],
    caves: dict[int, np.ndarray],
    backpacks: dict[int, np.ndarray],
    axe: np.ndarray,
    turn: int,
    uniforms: list[float],
) -> ref.Game:
    """The same position for the reference engine, its stream holding ``uniforms`` after the (unused) shuffle."""
    game = ref.Game(params, players, GameStream(np.array([0.0] * (len(INVENTIONS) - 1) + uniforms)))
    game.stacks = [list(cards) for cards in stacks]
    for cave, chips in caves.items():
        game.caves[cave] = [int(x) for x in chips]
        game.belief[cave] = [int(x) for x in chips]
    for seat, chips in backpacks.items():
        game.backpacks[seat] = [int(x) for x in chips]
    game.axe = [int(x) for x in axe]
    game.turn = turn
    return game


def play_both(players: int, stacks, caves, backpacks, axe, uniforms, turn=0, policy="greedy", **knobs):
    """One turn of ``policy`` on the same position in both engines; returns (params, state, reference game)."""
    params, state = position(players, stacks, caves, backpacks, axe, turn, **knobs)
    impl = POLICIES[policy].impl(params)
    step(params, params.tables(players), players, [impl] * players, state, ScriptedSource(np.array([uniforms])))
    game = reference_position(params, players, stacks, caves, backpacks, axe, turn, uniforms)
    ref.play_turn(game, ref.REFERENCE_POLICIES[policy]())
    assert [int(pack(np.array(b))) for b in game.backpacks] == state.backpack[0].tolist()
    assert int(pack(np.array(game.pit))) == state.pit[0] and game.built == state.built[0]
    assert game.help_given == state.help_given[0].tolist() and game.wasted == state.wasted[0]
    return params, state, game


# Each chip pulled uses three uniforms: which chip, which cave (0.6 is cave 2 of 4), remembered (0.0: yes).
TWO_CHIPS_TO_CAVE_2 = [0.5, 0.6, 0.0, 0.5, 0.6, 0.0]


def test_crystal_replaces_a_missing_resource() -> None:
    # cave 0: berry + crystal      stacks: [Sign(bb)] [two stones(ss)]      axe: 2 wood, rolled into cave 2
    # The Sign is built with the berry and the crystal, both dumped into the pit.
    _, state, _ = play_both(1, [[SIGN], [STONES]], {0: B + C}, {}, 2 * W, TWO_CHIPS_TO_CAVE_2)
    assert state.built[0] == 1 and state.crystals_used[0] == 1
    assert COUNTS[state.pit[0]].tolist() == [0, 0, 1, 1]
    assert COUNTS[state.caves[0, 2]].tolist() == [2, 0, 0, 0] and state.backpack[0, 0] == 0


def test_leftover_chip_goes_on_the_backpack() -> None:
    # cave 0: 1 wood (the fullest remembered cave)     stacks: [Sign(bb)] [two stones(ss)]     nothing fits
    # The wood goes on the backpack; nothing is wasted.
    _, state, _ = play_both(2, [[SIGN], [STONES]], {0: W}, {}, 2 * B, [0.5, 0.9, 0.0, 0.5, 0.9, 0.7], memory=0.5)
    assert state.built[0] == 0 and COUNTS[state.backpack[0, 0]].tolist() == [1, 0, 0, 0]
    assert state.wasted[0] == 0 and state.empty_caves[0] == 0
    # The second chip fell into cave 3 unseen (u = 0.7 >= memory 0.5): the table forgets it.
    assert COUNTS[state.caves[0, 3]].tolist() == [0, 0, 2, 0] and COUNTS[state.belief[0, 3]].tolist() == [0, 0, 1, 0]


def test_help_from_another_backpack() -> None:
    # Elmar (seat 1) to move; cave 0: 1 stone; your backpack (seat 0): 1 wood; stacks: [Seesaw(sw)] [Sign(bb)]
    # The 2 berries pulled roll into caves 2 and 3 (one chip each: greedy opens the first fullest cave, 0).
    # You give the wood and Elmar builds the Seesaw.
    _, state, _ = play_both(2, [[SEESAW], [SIGN]], {0: S}, {0: W}, 2 * B, [0.5, 0.6, 0.0, 0.5, 0.9, 0.0], turn=1)
    assert state.built[0] == 1 and state.help_given[0].tolist() == [1, 0]
    assert state.backpack[0].tolist() == [0, 0] and COUNTS[state.pit[0]].tolist() == [1, 1, 0, 0]


def test_rulebook_example_turn() -> None:
    # You (seat 0) open cave 0: 2 stones + 1 wood. Elmar (seat 1) has a wood, Eva (seat 2) a crystal.
    # Stacks: [Bed(wwb), Clay Flute(s)] [Sign(bb)]. The 2 berries you pull roll into cave 2.
    # Bed: wood from the middle and from Elmar, Eva's crystal for the berry; then the Clay Flute with a stone;
    # the last stone goes on your backpack.
    _, state, _ = play_both(3, [[BED, FLUTE], [SIGN]], {0: 2 * S + W}, {1: W, 2: C}, 2 * B, TWO_CHIPS_TO_CAVE_2)
    assert state.built[0] == 2 and state.taken[0].tolist() == [2, 0]
    assert COUNTS[state.pit[0]].tolist() == [2, 1, 0, 1] and state.crystals_used[0] == 1
    assert state.help_given[0].tolist() == [0, 1, 1] and state.wasted[0] == 0
    assert [COUNTS[b].tolist() for b in state.backpack[0]] == [[0, 1, 0, 0], [0] * 4, [0] * 4]
    assert COUNTS[state.caves[0, 2]].tolist() == [0, 0, 2, 0]


def test_expert_builds_one_invention_per_turn() -> None:
    # The same turn with one build per turn: only the Bed; of the 2 stones left one is kept, one wasted.
    _, state, _ = play_both(
        3, [[BED, FLUTE], [SIGN]], {0: 2 * S + W}, {1: W, 2: C}, 2 * B, TWO_CHIPS_TO_CAVE_2, one_build_per_turn=True
    )
    assert state.built[0] == 1 and state.wasted[0] == 1
    assert COUNTS[state.backpack[0, 0]].tolist() == [0, 1, 0, 0]


def test_the_last_slot_wins_at_once() -> None:
    # goal 1: the Bed wins the game; the stone left in the middle is not stored and the turn still counts.
    _, state, game = play_both(
        3, [[BED, FLUTE], [SIGN]], {0: 2 * S + W}, {1: W, 2: C}, 2 * B, TWO_CHIPS_TO_CAVE_2, goal=1
    )
    assert state.built[0] == 1 and COUNTS[state.middle[0]].tolist() == [0, 2, 0, 0] and state.turn[0] == 1
    assert game.middle == [0, 2, 0, 0]


def test_empty_cave_and_crystal_kept_first() -> None:
    # The 2 woods pulled roll into cave 2 unseen (memory 0.5, u = 0.9): nothing is remembered anywhere, so greedy
    # opens the first cave, which is empty. The crystal stays on the backpack.
    _, state, _ = play_both(2, [[SIGN], [STONES]], {}, {0: C}, 2 * W, [0.5, 0.6, 0.9, 0.5, 0.6, 0.9], memory=0.5)
    assert state.empty_caves[0] == 1 and COUNTS[state.backpack[0, 0]].tolist() == [0, 0, 0, 1]


def test_empty_hand_axe_loses() -> None:
    # One wood in the hand axe: turn 1 pulls it (three uniforms); turn 2 starts with an empty axe: lost.
    params = Params(inventions=("s",), chips=(1, 0, 0, 0), goal=1)
    source = ScriptedSource(np.array([[0.3, 0.3, 0.3, 0.99]]))
    out = play(params, ["greedy"], 1, source, components=True)
    assert out["turns"][0] == 1 and out["winner"][0] == -2 and not out["won"][0]
    assert source.cursor[0] == 3


def test_chip_drawn_and_cave_from_uniforms() -> None:
    # Axe: 1 wood, 2 stones, 1 berry; u = 0.5 picks the 3rd chip (a stone); cave weights 1:0:3 put u=0.25 in cave 2.
    params = Params(chips=(1, 2, 1, 0), cave_weights=(1.0, 0.0, 3.0), goal=1, memory=0.5)
    state = State.initial(params, 1, 2, None)
    draw_chips(params, params.tables(1), state, ScriptedSource(np.array([[0.5, 0.25, 0.4, 0.0, 0.0, 0.7]] * 2)))
    assert COUNTS[state.axe[0]].tolist() == [0, 1, 1, 0]  # second chip: u = 0 is the first chip left, the wood
    assert COUNTS[state.caves[0, 2]].tolist() == [0, 1, 0, 0] and COUNTS[state.caves[0, 0]].tolist() == [1, 0, 0, 0]
    assert state.belief[0, 2] == state.caves[0, 2] and state.belief[0, 0] == 0  # 0.7 >= memory: forgotten


def test_stacks_follow_the_rulebook() -> None:
    assert [Params().n_stacks(p) for p in (1, 2, 3, 4)] == [3, 2, 2, 2]
    assert [Params(easy=True).n_stacks(p) for p in (1, 2)] == [4, 3]
    assert Params(stacks=5, easy=True).n_stacks(2) == 5
    assert len(Params(remove_singles=True).in_play) == 12
    tables = Params().tables(2)
    assert tables.stack_len.tolist() == [8, 7]
    state = State.initial(Params(), 2, 50, ScriptedSource.from_seed(0, 50, 20))
    cards = np.sort(np.where(state.deck < 15, state.deck, 99).reshape(50, -1), axis=1)[:, :15]
    assert np.all(cards == np.arange(15))  # every invention dealt once


def test_keep_order_ranks_by_value_then_lower_type() -> None:
    """The compiled order is the rule's: a resource worth 10 + its demand, a crystal 100, ties to the lower type."""
    demand = np.array(list(itertools.product(range(0, 100, 3), repeat=3)), dtype=np.int64)
    value = np.concatenate([10 + demand, np.full((len(demand), 1), CRYSTAL_VALUE)], axis=1)
    expected = np.argsort(-(value * 4 + (3 - np.arange(4))), axis=1, kind="stable")
    assert np.array_equal(keep_order(demand), expected)
    assert keep_order(np.array([[0, 0, 0]])).tolist() == [[3, 0, 1, 2]]
    assert keep_order(np.array([[95, 0, 90]])).tolist() == [[0, 2, 3, 1]]


def test_keep_rule() -> None:
    assert keep_best(np.array([1, 1, 1, 1]), np.array([0, 0, 0]), 1).tolist() == [0, 0, 0, 1]
    assert keep_best(np.array([1, 1, 1, 0]), np.array([0, 2, 1]), 2).tolist() == [0, 1, 1, 0]
    assert keep_best(np.array([2, 0, 3, 0]), np.array([1, 0, 1]), 2).tolist() == [2, 0, 0, 0]  # ties to wood


def test_turn_view_hides_the_caves() -> None:
    params, state = position(2, [[SIGN]], {1: 2 * S}, {1: W}, 2 * B)
    state.caves[0, 3] = pack(C)  # a chip the table forgot
    turn = Turn(params, params.tables(2), ScriptedSource(np.zeros((1, 1))), state, 0, slice(None))
    assert turn.counts(turn.belief)[0].tolist() == [[0] * 4, [0, 2, 0, 0], [0] * 4, [0] * 4]
    assert turn.counts(offers(turn))[0].tolist() == [[0] * 4, [1, 0, 0, 0]] and turn.own[0] == 0
    assert turn.expected()[0, 3].tolist() == [0.0] * 4  # the crystal is in no public record: never expected


# --- knobs ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"memory": 1.5}, "memory=1.5 is out of range; allowed 0..1"),
        ({"backpack": 4}, "backpack=4 is out of range; allowed 0..3"),
        ({"stacks": 7}, "stacks=7 is out of range; allowed 0..6"),
        ({"goal": 0}, "goal=0 is out of range; allowed 1..24"),
        ({"goal": 13, "remove_singles": True}, "goal=13 is out of range; allowed 1..12"),
        ({"chips": (16, 9, 9, 3)}, "chips=(16, 9, 9, 3) is not allowed"),
        ({"chips": (9, 9, 9)}, "chips=(9, 9, 9) is not allowed"),
        ({"inventions": ("wx",)}, "inventions=('wx',) is not allowed"),
        ({"cave_weights": (0.0, 0.0)}, "cave_weights=(0.0, 0.0) is not allowed"),
        ({"cave_weights": (1e308, 1e308)}, "cave_weights=(1e"),
        ({"easy": "yes"}, "easy='yes' is not allowed"),
        ({"pulls": 5}, "pulls=5 is out of range; allowed 1..4"),
        ({"fade": 2}, "fade=2 is out of range; allowed 0..1"),
        ({"help_chips": 0}, "help_chips=0 is out of range; allowed 1..3"),
        ({"help": "no"}, "help='no' is not allowed"),
    ],
)
def test_params_reject_bad_knobs(knobs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Params(**knobs)


def test_variants_parse() -> None:
    from boardlab.engines.paleolino import VARIANTS

    for overrides in VARIANTS.values():
        Params().with_strings(overrides)
    assert Params().with_strings({"cave_weights": "1,2,3,4"}).cave_thresholds == (0.1, 0.3, 0.6)
    with pytest.raises(ValueError, match="players=5 is out of range"):
        play(Params(), ["greedy"] * 5, 1, np.random.default_rng(0))


# --- v2: public memory, honest planning, payment as a decision, new knobs -------------------------------------


def test_forgetting_is_a_binomial_quantile() -> None:
    cdf = forget_cdf(0.5)
    assert cdf[2, :3].tolist() == [0.25, 0.75, 1.0] and cdf[0, 0] == 1.0
    assert forget_count(cdf, np.array([2, 2, 2, 0]), np.array([0.1, 0.5, 0.9, 0.9])).tolist() == [0, 1, 2, 0]
    params = Params(fade=1.0)  # everything remembered is forgotten at the next turn's start
    state = State.initial(params, 1, 1, None)
    state.belief[0, 1] = state.caves[0, 1] = pack(2 * W)
    from boardlab.engines.paleolino.rules import fade_memory

    fade_memory(params, state, ScriptedSource(np.full((1, 16), 0.5)))
    assert state.belief[0, 1] == 0 and COUNTS[state.forgotten[0]].tolist() == [[2, 0, 0, 0]] * 4


def test_greedy_opens_the_cave_with_most_expected_chips() -> None:
    # Nothing remembered; cave 0 was opened after the chips fell, so only caves 1-3 can hold them; cave 3 is
    # twice as likely as the others to catch a chip.
    params = Params(memory=0.0, cave_weights=(1.0, 1.0, 1.0, 2.0))
    state = State.initial(params, 2, 1, None)
    state.caves[0, 2] = pack(2 * W)
    state.axe[0] -= pack(2 * W)
    state.forgotten[0, 1:] = pack(2 * W)
    turn = Turn(params, params.tables(2), ScriptedSource(np.zeros((1, 1))), state, 0, slice(None))
    assert np.allclose(turn.expected()[0, :, 0], [0.0, 0.5, 0.5, 1.0])
    assert POLICIES["greedy"].impl(params).cave(turn).tolist() == [3]
    assert POLICIES["planner"].impl(params).cave(turn).tolist() == [3]


def test_greedy_wins_without_memory() -> None:
    # The memory=0 artefact of v1 (every turn the same cave, 0 of 4,000 won) is gone.
    out = play(Params(memory=0.0), ["greedy", "greedy"], 2_000, np.random.default_rng(3))
    assert out["won"].mean() > 0.28 and out["empty_caves"].mean() < 3


def test_planner_never_reads_under_the_tops() -> None:
    # One build per turn: the planner's choice must not change when the cards below the tops are dealt anew.
    params = Params(one_build_per_turn=True)
    rng = np.random.default_rng(5)
    state = State.initial(params, 1, 300, ScriptedSource(rng.random((300, 20))))
    state.middle[:] = pack(rng.integers(0, 3, size=(300, 4)))
    impl = POLICIES["planner"].impl(params)
    first = impl.builds(Turn(params, params.tables(1), ScriptedSource(np.zeros((300, 1))), state, 0, slice(None)))
    other = state.keep_rows(np.arange(300))
    tops = other.deck[:, :, :1].copy()
    below = other.deck[:, :, 1:]
    for g in range(300):  # permute every hidden card among the positions below the tops
        cards = below[g][below[g] < 15]
        below[g][below[g] < 15] = rng.permutation(cards)
    other.deck[:, :, :1] = tops
    second = impl.builds(Turn(params, params.tables(1), ScriptedSource(np.zeros((300, 1))), other, 0, slice(None)))
    assert np.array_equal(first, second) and first.sum() > 50


def test_policy_pays_with_a_crystal_to_spare_a_helper() -> None:
    # Seat 0 opens cave 0: stone + crystal; its backpack holds a crystal, seat 1's a wood; Seesaw (stone + wood).
    # Matching chips first would take seat 1's wood and then dump one crystal; paying the wood with the middle's
    # crystal keeps both the backpack crystal and the helper's wood (one build a turn: the Sign waits).
    _, state, _ = play_both(
        2, [[SEESAW], [SIGN]], {0: S + C}, {0: C, 1: W}, 2 * B, TWO_CHIPS_TO_CAVE_2, one_build_per_turn=True
    )
    assert state.built[0] == 1 and state.help_given[0].tolist() == [0, 0] and state.crystals_used[0] == 1
    assert [COUNTS[b].tolist() for b in state.backpack[0]] == [[0, 0, 0, 1], [1, 0, 0, 0]]


def test_no_help_and_swap_knobs() -> None:
    # Without help the Seesaw cannot be built from the other backpack's wood.
    split = [0.5, 0.6, 0.0, 0.5, 0.9, 0.0]  # one berry each into caves 2 and 3: cave 0 (the stone) is opened
    _, state, _ = play_both(2, [[SEESAW], [SIGN]], {0: S}, {0: W}, 2 * B, split, turn=1, help=False)
    assert state.built[0] == 0 and state.help_given[0].tolist() == [0, 0]
    # Without swapping, the stone on the backpack stays although the crystal in the middle is worth more.
    _, state, _ = play_both(1, [[SIGN], [BED]], {0: C}, {0: S}, 2 * W, split, backpack_swap=False)
    assert COUNTS[state.backpack[0, 0]].tolist() == [0, 1, 0, 0] and state.wasted[0] == 1


def test_the_engine_checks_payments_and_stores() -> None:
    params, state = position(2, [[SEESAW], [SIGN]], {}, {0: S, 1: W}, 2 * B, help_chips=1)
    tables, rows, k = params.tables(2), np.array([0]), np.array([[1, 0]])
    one = np.array([1])
    with pytest.raises(ValueError, match="does not match"):
        pay_builds(params, tables, state, rows, k, np.array([[0, pack(S), 0]]), 0, one)
    with pytest.raises(ValueError, match="does not have"):
        pay_builds(params, tables, state, rows, k, np.array([[0, pack(S + W), 0]]), 0, one)
    no_help = Params(inventions=INVENTIONS, goal=5, stacks=2, help=False)
    with pytest.raises(ValueError, match="more help"):
        pay_builds(no_help, tables, state, rows, k, np.array([[0, pack(S), pack(W)]]), 0, one)
    pay_builds(params, tables, state, rows, k, np.array([[0, pack(S), pack(W)]]), 0, one)
    assert state.built[0] == 1 and state.help_given[0].tolist() == [0, 1]
    fixed = Params(inventions=INVENTIONS, goal=5, stacks=2, backpack_swap=False)
    _, state = position(1, [[SIGN]], {}, {0: S}, 2 * B)
    state.middle[0] = pack(C)
    with pytest.raises(ValueError, match="backpack_swap=false"):
        store_chips(fixed, state, slice(None), np.array([pack(C)]), 0)


# --- the expert -------------------------------------------------------------------------------------------------


def midgame(players: int = 2, n: int = 48, turns: int = 5, **knobs) -> tuple[Params, State]:
    """Games after ``turns`` planner turns and the next turn's chips pulled (at the cave decision)."""
    from boardlab.engines.paleolino.rules import begin_turn

    params = Params(**{"memory": 0.5, **knobs})
    source = ScriptedSource.from_seed(9, n, 400)
    state = State.initial(params, players, n, source)
    impls = [POLICIES["planner"].impl(params)] * players
    for _ in range(turns):
        step(params, params.tables(players), players, impls, state, source)
    state = state.keep_rows(state.built < params.goal)
    begin_turn(params, params.tables(players), state, source)
    return params, state


def test_determinised_caves_and_cards_agree_with_what_the_table_knows() -> None:
    from boardlab.engines.paleolino.decisions import CAVE, Point

    params, state = midgame()
    turn = Turn(params, params.tables(2), ScriptedSource(np.zeros((len(state.game), 1))), state, 0, slice(None))
    point = Point.at(turn, CAVE, POLICIES)
    point.determinise(ScriptedSource.from_seed(1, len(state.game), 400))
    new = point.state
    caves, belief = COUNTS[new.caves].astype(int), COUNTS[new.belief].astype(int)
    assert np.all(caves >= belief) and np.all(caves - belief <= COUNTS[new.forgotten])
    assert np.array_equal(caves.sum(axis=1), COUNTS[state.caves].astype(int).sum(axis=1))  # chips by type
    tops = np.take_along_axis(new.deck, new.taken[:, :, None].astype(np.int64), axis=2)
    assert np.array_equal(tops, np.take_along_axis(state.deck, state.taken[:, :, None].astype(np.int64), axis=2))
    assert np.array_equal(
        np.sort(new.deck.reshape(len(state.game), -1)), np.sort(state.deck.reshape(len(state.game), -1))
    )
    assert not np.array_equal(new.caves, state.caves) and not np.array_equal(new.deck, state.deck)


def test_expert_choice_never_depends_on_the_hidden_truth() -> None:
    from boardlab.engines.paleolino.decisions import CAVE, Point, expert

    params, state = midgame(memory=0.3)
    n = len(state.game)
    other = state.keep_rows(np.arange(n))
    turn = Turn(params, params.tables(2), ScriptedSource(np.zeros((n, 1))), state, 0, slice(None))
    truth = Point.at(turn, CAVE, POLICIES)
    truth.determinise(ScriptedSource.from_seed(2, n, 400))  # another truth the table cannot tell apart
    other.caves[:], other.deck[:] = truth.state.caves, truth.state.deck
    assert not np.array_equal(other.caves, state.caves)
    searching = expert(params, 8, POLICIES)
    mover = int(state.turn[0]) % 2
    choices = [
        searching.cave(Turn(params, params.tables(2), ScriptedSource(np.zeros((n, 1))), s, mover, slice(None)))
        for s in (state, other)
    ]
    assert np.array_equal(choices[0], choices[1])


def test_expert_plays_legal_games() -> None:
    out = play(Params(memory=0.5), ["expert:4", "planner"], 6, np.random.default_rng(0), components=True)
    assert np.all(
        out["axe"] + out["caves"].sum(axis=1) + out["middle"] + out["backpack"].sum(axis=1) + out["pit"] == (9, 9, 9, 3)
    )
    assert POLICIES["expert"].chunk_games and "planner" in POLICIES["expert"].description


def test_the_experts_default_budget_grows_when_the_table_remembers_nothing() -> None:
    from boardlab.engines.core import resolve_policies
    from boardlab.engines.paleolino.decisions import MEMORYLESS_PLAYOUTS, PLAYOUTS, expert

    plain, bound = resolve_policies(POLICIES, ["expert", "expert:8"])
    assert (plain.arg, bound.arg) == (None, 8)  # no argument: the budget is chosen from the knobs
    budget = lambda params, arg: expert(params, arg, POLICIES).decide.search(2).playouts  # noqa: E731
    assert budget(Params(), plain.arg) == PLAYOUTS
    assert budget(Params(memory=0.0), plain.arg) == MEMORYLESS_PLAYOUTS > PLAYOUTS
    assert budget(Params(memory=0.0), bound.arg) == 8  # expert:N always wins
    assert f"{MEMORYLESS_PLAYOUTS} with memory=0" in POLICIES["expert"].argument
    with pytest.raises(ValueError, match=r"1\.\.65536"):
        resolve_policies(POLICIES, ["expert:0"])


# --- soundness at the game's own settings (tests/engines/test_soundness.py covers the defaults) ---

PALEOLINO_GAMES = 600  # per table: greedy and planner win 25-60% against random's 15-25%, a z of 4 or more


@pytest.mark.parametrize("memory", [1.0, 0.0])
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_paleolino_heuristics_beat_random_at_every_table_size(k: int, memory: float) -> None:
    """Paleolino at 1-4 players, also with no memory: every heuristic's table beats a random table (p < 0.05)."""
    module = get_game("paleolino").module
    params = module.Params(memory=memory)
    n = PALEOLINO_GAMES
    for policy in heuristics("paleolino"):
        wins = [
            int(module.play(params, [name] * k, n, np.random.default_rng([SEED, k]))["won"].sum())
            for name in (policy, "random")
        ]
        pooled = (wins[0] + wins[1]) / (2 * n)
        z = (wins[0] - wins[1]) / n / math.sqrt(pooled * (1 - pooled) * 2 / n)
        p = 0.5 * math.erfc(z / math.sqrt(2))
        assert p < 0.05, f"paleolino {policy} at {k} players, memory {memory}: {wins[0]} vs random's {wins[1]} wins"
