"""Pantolino: differential tests against the reference engine, invariants, exact Markov-chain anchors, rules."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.engines import core, pantolino
from boardlab.engines.checker import check_batch, check_reference
from boardlab.engines.core import ScriptedSource
from boardlab.engines.pantolino import POLICIES, Params, play
from boardlab.engines.pantolino import reference as ref
from boardlab.engines.pantolino.rules import State, Turn, TurnMemo, play_turns, token_colour, token_value

POLICY_NAMES = sorted(set(POLICIES) - {"win-optimal", "expert", "learned"})  # each tested on its own


def assert_same_games(params: Params, seats: list[str], n_games: int, seed: int, length: int = 20_000) -> None:
    """The checker's reference differential with these knobs and seats (the last throw rolled die by die)."""
    check_reference(pantolino, params, seats, n_games, seed, length)


# --- the batched engine plays the reference engine's games -------------------------------------------------


@pytest.mark.parametrize("policy", ["keep-jokers", "reroll-jokers", "random"])
@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"no_token_rule": "remove-smallest"},
        {"escaping_boots": True, "steal_from": "any"},
        {"escaping_boots": True, "steal_from": "tail"},
    ],
    ids=["base", "remove-smallest", "steal-any", "steal-tail"],
)
def test_batched_engine_replays_reference_games(policy: str, variant: dict) -> None:
    seats = [policy, "keep-jokers", policy] if variant.get("escaping_boots") else [policy, policy]
    assert_same_games(Params(**variant), seats, n_games=12, seed=11, length=60_000)


@pytest.mark.parametrize(
    "variant",
    [
        {},
        {"escaping_boots": True, "no_token_rule": "remove-smallest"},
        {"escaping_boots": True, "steal_from": "any"},
    ],
    ids=["base", "tail-remove", "steal-any"],
)
def test_table_policies_replay_reference_games(variant: dict) -> None:
    assert_same_games(Params(**variant), ["turn-optimal", "greedy"], n_games=4, seed=3)


def test_designer_knobs_replay_reference_games() -> None:
    params = Params(dice=3, colours=3, joker_faces=2, rolls=4, token_values=(1, 2, 3), escaping_boots=True)
    assert_same_games(params, ["turn-optimal", "greedy", "random", "keep-jokers"], n_games=8, seed=5, length=60_000)
    assert_same_games(Params(joker_faces=0, dice=5, token_values=(2, 3, 5)), ["greedy", "reroll-jokers"], 6, 9)


def test_batch_of_many_equals_many_batches_of_one() -> None:
    check_batch(pantolino, ["keep-jokers", "turn-optimal"], n=20, seed=4, length=20_000)


# --- invariants ---------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.lists(st.sampled_from(POLICY_NAMES), min_size=2, max_size=4),
    escaping=st.booleans(),
    tail=st.booleans(),
    remove=st.booleans(),
    jokers=st.integers(0, 2),
)
def test_invariants(seed: int, seats: list[str], escaping: bool, tail: bool, remove: bool, jokers: int) -> None:
    params = Params(
        escaping_boots=escaping,
        steal_from="tail" if tail else "any",
        no_token_rule="remove-smallest" if remove else "nothing",
        joker_faces=jokers,
    )
    n = 64
    out = play(params, seats, n, np.random.default_rng(seed))
    total = sum(params.token_values) * params.colours
    players = len(seats)
    # tokens are conserved: on centipedes, removed, or (only when capped) still in the supply
    held = out["taken"].sum(axis=1)
    assert np.all(held + out["removed"] <= params.n_tokens)
    assert np.all(out["steals_made"].sum(axis=1) == out["steals_suffered"].sum(axis=1))
    finished = ~out["capped"]
    assert np.all((held + out["removed"])[finished] == params.n_tokens)
    assert np.all(out["score"].sum(axis=1) <= total)
    if not remove:
        assert np.all(out["score"].sum(axis=1)[finished] == total)
    # games end within the cap, each turn counted once
    assert np.all(out["turns"] <= 2000)
    assert np.all(out["turn_best_count"].sum(axis=1) == out["turns"])
    # the winner has the most boots; shared winners tie on boots
    best = out["score"].max(axis=1)
    for g in range(n):
        winners = np.flatnonzero(out["winners"][g])
        assert np.all(out["score"][g, winners] == best[g])
        assert (out["winner"][g] == -1) == (len(winners) > 1)
        if out["winner"][g] >= 0:
            assert winners.tolist() == [out["winner"][g]]
    assert out["score"].shape == (n, players)


def test_boots_equal_sum_of_token_values_in_reference() -> None:
    params = Params(escaping_boots=True)
    source = ScriptedSource.from_seed(8, 3, 60_000)
    for game in range(3):
        out = ref.play_one(params, ["keep-jokers", "random"], source.one_game(game))
        assert sum(out["score"]) == 45
        assert out["score"] == [int(v) for v in out["score"]]


# --- exact anchors: the per-turn Markov chain over dice multisets -------------------------------------------


def markov_best_count(params: Params, policy: str) -> dict[int, Fraction]:
    """Exact distribution of a turn's best count from a full supply, by a chain over dice multisets (fractions)."""
    faces = params.colours + params.joker_faces
    p = [Fraction(1, faces)] * params.colours + [Fraction(params.joker_faces, faces)]

    def outcomes(n: int) -> list[tuple[tuple[int, ...], Fraction]]:
        out = []
        for rolled in itertools.combinations_with_replacement(range(params.colours + 1), n):
            ways = math.factorial(n)
            for c in set(rolled):
                ways //= math.factorial(rolled.count(c))
            out.append((rolled, ways * math.prod((p[c] for c in rolled), start=Fraction(1))))
        return out

    tokens = [ref.Token(c, v) for c in range(params.colours) for v in params.token_values]
    dist: dict[tuple[int, ...], Fraction] = dict(outcomes(params.dice))
    for roll in range(1, params.rolls):
        after: dict[tuple[int, ...], Fraction] = {}
        for dice, mass in dist.items():
            kept = ref.keep(params, policy, list(dice), params.rolls - roll, tokens, stream=None)
            for rolled, q in outcomes(params.dice - len(kept)):
                key = tuple(sorted(kept + list(rolled)))
                after[key] = after.get(key, Fraction(0)) + mass * q
        dist = after
    best: dict[int, Fraction] = {}
    for dice, mass in dist.items():
        k = max(ref.colour_counts(params, list(dice)))
        best[k] = best.get(k, Fraction(0)) + mass
    return best


@pytest.mark.parametrize("policy", ["keep-jokers", "reroll-jokers", "turn-optimal"])
def test_monte_carlo_best_count_matches_markov_chain(policy: str) -> None:
    params = Params()
    exact = markov_best_count(params, policy)
    assert sum(exact.values()) == 1
    n = 200_000
    for sampled_whole in (True, False):
        turns = play_turns(
            params, core.instantiate(POLICIES[policy], params), n, np.random.default_rng(2026), exact=sampled_whole
        )
        observed = np.bincount(turns["best_count"], minlength=params.dice + 1) / n
        for k in range(params.dice + 1):
            prob = float(exact.get(k, 0))
            se = math.sqrt(max(prob * (1 - prob), 1e-12) / n)
            assert abs(observed[k] - prob) <= 4 * se + 1e-12, (policy, sampled_whole, k, observed[k], prob)


@pytest.mark.parametrize("policy", ["keep-jokers", "turn-optimal"])
def test_batched_chain_equals_fraction_chain(policy: str) -> None:
    params = Params()
    impl = POLICIES[policy].impl(params)
    key = impl.turn_key(_full_turn(params))
    weights = impl.sampler.distribution(key[:1])[0]
    total = params.tables.unit**params.rolls
    assert weights.sum() == total
    exact = markov_best_count(params, policy)
    for k in range(params.dice + 1):
        assert Fraction(int(weights[params.tables.best_count == k].sum()), total) == exact.get(k, 0)


def _full_turn(params: Params):
    state = State.initial(params, 1, 1)
    return Turn(params, 1, core.RandomSource(np.random.default_rng(0)), state, np.zeros(1, dtype=np.int64))


def test_turn_optimal_expected_value_matches_monte_carlo_and_dominates() -> None:
    params = Params()
    exact = float(params.tables.expected_turn_value((1 << params.n_tokens) - 1))
    n = 100_000
    means = {}
    for policy in ("turn-optimal", "greedy", "keep-jokers", "reroll-jokers"):
        value = play_turns(params, core.instantiate(POLICIES[policy], params), n, np.random.default_rng(7))["value"]
        means[policy] = value.mean()
        if policy == "turn-optimal":
            assert abs(value.mean() - exact) <= 4 * value.std() / math.sqrt(n)
    assert exact >= max(means.values()) - 0.02
    assert means["keep-jokers"] > means["reroll-jokers"]


# --- rules on hand-set positions -------------------------------------------------------------------------


def test_token_numbering_orders_by_value_then_lowest_colour() -> None:
    params = Params()
    values, colours = token_value(params), token_colour(params)
    # ids 0..4 are the 2-boot tokens of black(4) .. yellow(0); ids 10..14 the 4-boot tokens
    assert values.tolist() == [2] * 5 + [3] * 5 + [4] * 5
    assert colours.tolist() == [4, 3, 2, 1, 0] * 3


def test_a_boot_and_a_joker_claim_two_and_a_lone_die_nothing() -> None:
    params = Params()
    tokens = [ref.Token(c, v) for c in range(5) for v in (2, 3, 4)]
    # dice: red red yellow joker  -> red 3, yellow 2 (the rulebook's example: 3 red or 2 yellow)
    counts = ref.colour_counts(params, [1, 1, 0, 5])
    choice = ref.choose(params, "keep-jokers", counts, tokens, 0, tokens, 2, stream=None)
    assert (choice.colour, choice.value) == (1, 3)
    # without the 3-red token the best is the 2-red (lower colour wins ties among 2s: yellow(0) first)
    rest = [t for t in tokens if (t.colour, t.value) != (1, 3)]
    choice = ref.choose(params, "keep-jokers", counts, rest, 0, rest, 2, stream=None)
    assert (choice.colour, choice.value) == (0, 2)
    # four different colours: nothing fits
    counts = ref.colour_counts(params, [0, 1, 2, 3])
    assert ref.choose(params, "keep-jokers", counts, tokens, 0, tokens, 2, stream=None) is None


def _tokens(owners: dict[tuple[int, int], tuple[int, int]]) -> list[ref.Token]:
    """The 15 tokens in the supply, except ``(colour, value) -> (owner, taken_at)``."""
    tokens = [ref.Token(c, v) for c in range(5) for v in (2, 3, 4)]
    for t in tokens:
        if (t.colour, t.value) in owners:
            t.owner, t.taken_at = owners[t.colour, t.value]
    return tokens


def _choice(params: Params, tokens: list[ref.Token], counts: list[int], players: int) -> tuple[int, int, object]:
    claimable = [t for t in tokens if t.owner == ref.SUPPLY or ref.is_stealable(params, tokens, t, 0)]
    token = ref.choose(params, "keep-jokers", counts, tokens, 0, claimable, players, stream=None)
    return token.colour, token.value, token.owner


def test_a_steal_counts_what_the_victim_loses_and_only_the_tail_may_go() -> None:
    params = Params(escaping_boots=True)
    # 2 players: the opponent's tail is red 3; yellow 4 is in the supply. Stealing 3 moves the lead by 6
    tokens = _tokens({(1, 3): (1, 0)})
    assert _choice(params, tokens, [4, 3, 0, 0, 0], 2) == (1, 3, 1)
    # a steal of 2 moves the lead by 4, as much as the supply's 4: the higher value wins the tie
    tokens = _tokens({(1, 2): (1, 0), (1, 3): (ref.REMOVED, -1)})
    assert _choice(params, tokens, [4, 3, 0, 0, 0], 2) == (0, 4, ref.SUPPLY)
    # red 4 added after red 3 buries it: the tail rule protects red 3
    tokens = _tokens({(1, 3): (1, 0), (1, 4): (1, 1)})
    assert not ref.is_stealable(params, tokens, tokens[[(t.colour, t.value) for t in tokens].index((1, 3))], 0)
    assert _choice(params, tokens, [4, 3, 0, 0, 0], 2) == (0, 4, ref.SUPPLY)
    assert _choice(Params(escaping_boots=True, steal_from="any"), tokens, [4, 3, 0, 0, 0], 2) == (1, 3, 1)


def test_with_three_players_a_steal_is_worth_what_it_takes_from_the_leader() -> None:
    params = Params(escaping_boots=True)
    # seat 1 leads with 11 (its tail is red 3), seat 2 has 5. Stealing red 3 leaves the best rival at 8 (lead
    # -5); the best supply token, yellow 3 (yellow 4 is gone), leaves it at 11 (lead -8)
    owners = {(2, 4): (1, 0), (3, 4): (1, 1), (1, 3): (1, 2), (4, 2): (2, 3), (4, 3): (2, 4), (0, 4): (ref.REMOVED, -1)}
    tokens = _tokens(owners)
    assert ref.boots_of(params, tokens, 3) == [0, 11, 5]
    assert _choice(params, tokens, [4, 3, 0, 0, 0], 3) == (1, 3, 1)
    # red 3 at the tail of seat 2, not the leader: stealing it adds 3, like green 3 from the supply, which wins
    tokens = _tokens({(2, 4): (1, 0), (3, 4): (1, 1), (1, 3): (2, 2)})
    assert _choice(params, tokens, [0, 3, 3, 0, 0], 3) == (2, 3, ref.SUPPLY)


def test_equal_tokens_go_to_the_colour_held_most_where_a_tie_on_boots_can_happen() -> None:
    tokens = _tokens({(3, 3): (0, 0)})  # the mover holds blue 3; yellow 2 and blue 2 both fit
    assert _choice(Params(), tokens, [2, 0, 0, 2, 0], 3) == (3, 2, ref.SUPPLY)
    assert _choice(Params(no_token_rule="remove-smallest"), tokens, [2, 0, 0, 2, 0], 2) == (3, 2, ref.SUPPLY)
    # 2 players sharing 45 boots never end level: the lowest colour, as the solver assumes
    assert _choice(Params(), tokens, [2, 0, 0, 2, 0], 2) == (0, 2, ref.SUPPLY)


@pytest.mark.parametrize(
    ("knob", "value", "message"),
    [
        ("dice", 0, "dice=0 is out of range; allowed 1..6"),
        ("colours", 9, "colours=9 is out of range; allowed 2..8"),
        ("joker_faces", -1, "joker_faces=-1 is out of range; allowed 0..3"),
        ("rolls", 6, "rolls=6 is out of range; allowed 1..5"),
        ("token_values", (3, 2), "token_values=(3, 2) is not allowed"),
        ("token_values", (2, 5), "token_values=(2, 5) is not allowed"),
        ("no_token_rule", "burn", "no_token_rule='burn' is not allowed; choose one of nothing, remove-smallest"),
        ("steal_from", "head", "steal_from='head' is not allowed"),
    ],
)
def test_invalid_knobs_name_the_knob_value_and_range(knob: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Params(**{knob: value})


def test_too_many_players_and_unknown_policy_are_refused() -> None:
    with pytest.raises(ValueError, match="players=9 is out of range"):
        play(Params(), ["random"] * 9, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="did you mean 'keep-jokers'"):
        play(Params(), ["keep-joker", "random"], 1, np.random.default_rng(0))


def test_exact_sampling_and_dice_rolling_agree_on_whole_games() -> None:
    n = 40_000
    whole = play(Params(), ["keep-jokers", "reroll-jokers"], n, np.random.default_rng(1))
    dice = play(Params(), ["keep-jokers", "reroll-jokers"], n, np.random.default_rng(2), exact=False)
    for column in ("turns",):
        a, b = whole[column].astype(float), dice[column].astype(float)
        se = math.sqrt(a.var() / n + b.var() / n)
        assert abs(a.mean() - b.mean()) <= 4 * se
    wa, wb = (whole["winner"] == 0).mean(), (dice["winner"] == 0).mean()
    assert abs(wa - wb) <= 4 * math.sqrt(2 * 0.25 / n)


def test_turn_tables_do_not_depend_on_which_positions_were_computed_together() -> None:
    from boardlab.engines.pantolino.dice import ThrowSampler
    from boardlab.engines.pantolino.heuristics import KeepJokers

    params = Params()
    keys = np.arange(0, 4**5, 37)
    uniforms = np.random.default_rng(0).random(len(keys))
    keeps = KeepJokers(params).keeps_for_keys
    together = KeepJokers(params).sampler
    assert together.ready.all()  # the default game's 1024 keys are built up front
    one_by_one = ThrowSampler(params.tables, 4**5, keeps, prebuild=False)
    for key in keys[::-1]:
        one_by_one.sample(np.array([key]), np.array([0.5]))
    assert np.array_equal(together.sample(keys, uniforms), one_by_one.sample(keys, uniforms))
    signatures = np.array([(1 << 15) - 1, 0b101010101010101, 0b111000000000111], dtype=np.int64)
    batch = params.tables.keep_tables(signatures, None)
    for i, signature in enumerate(signatures):
        assert np.array_equal(params.tables.keep_tables(signature[None], None)[0], batch[i])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 10**6), min_size=1, max_size=40), min_size=1, max_size=6), st.integers(0, 9))
def test_alias_tables_give_each_column_its_exact_share(rows: list[list[int]], zeros: int) -> None:
    from boardlab.engines.pantolino.dice import alias_tables

    width = max(map(len, rows))
    weights = np.array([row + [0] * (width - len(row)) for row in rows], dtype=np.int64)
    weights[:, zeros % width] = 0
    weights[weights.sum(axis=1) == 0, -1] = 1
    threshold, alias = alias_tables(weights)
    for row, (limit, other) in enumerate(zip(threshold, alias, strict=True)):
        share = limit.copy()
        np.add.at(share, other, 1 - limit)
        expected = weights[row] / weights[row].sum()
        assert np.allclose(share / width, expected, rtol=0, atol=1e-12), (weights[row], share / width)
        assert np.all((limit == 1) | (other != np.arange(width)))


def test_turn_memo_computes_once_a_turn_and_again_for_another() -> None:
    """Asked about the same turn, the memo answers from memory; another owner, mover or set of games recomputes."""
    params = Params()
    state = State.initial(params, 3, 4)
    calls: list[int] = []

    def turn_of(state: State, mover: int = 0) -> Turn:
        return Turn(params, 3, core.RandomSource(np.random.default_rng(0)), state, np.full(len(state.game), mover))

    def ask(turn: Turn) -> int:
        return memo.get(turn, lambda: calls.append(1) or len(calls))

    memo: TurnMemo[int] = TurnMemo()
    assert ask(turn_of(state)) == ask(turn_of(state)) == 1  # a fresh Turn of the same position: remembered
    state.owner[2, 0] = 1  # a token changed hands (in place: the memo keeps its own copy of the key)
    state.supply_bits[2] &= ~1
    assert ask(turn_of(state)) == 2
    assert ask(turn_of(state, mover=1)) == 3
    assert ask(turn_of(state.keep_rows(np.arange(3)), mover=1)) == 4
    assert ask(turn_of(state.keep_rows(np.arange(3)), mover=1)) == 4
