"""Pantolino's restrictions: each mask removes what it says, the learned unit's restricted programme matches a slow
reference, forced moves stay, and the unrestricted learned player plays the same games as before."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import core
from boardlab.engines.pantolino import POLICIES, Params, decisions, learned, play
from boardlab.engines.pantolino.restrictions import RESTRICTIONS
from boardlab.engines.pantolino.rules import State, Turn, fits, step
from tests.engines.digests import outcome_digest


def position(params: Params, owner: dict[int, int], taken_at: dict[int, int], turn: int = 0) -> Turn:
    """One game: ``owner`` (token -> seat; others in the supply), ``taken_at`` (token -> turn); ``turn % 2`` moves."""
    state = State.initial(params, 2, 1)
    for token, seat in owner.items():
        state.owner[0, token] = seat
        state.taken_at[0, token] = taken_at.get(token, 0)
        state.supply_bits[0] &= ~(np.int64(1) << token)
    state.turn[0] = turn
    return Turn(params, 2, core.RandomSource(np.random.default_rng(0)), state, np.array([turn % 2]))


def throw_index(params: Params, colour_counts: dict[int, int], jokers: int) -> int:
    """The complete-throw index of a throw with ``colour_counts`` (colour -> dice) and ``jokers``."""
    tables = params.tables
    code = sum(n * int(tables.weight[c]) for c, n in colour_counts.items()) + jokers * int(tables.weight[tables.joker])
    return int(tables.full_position[tables.index_of_code[code]])


def kept(params: Params, throw: int) -> tuple[np.ndarray, np.ndarray]:
    """Each keep option of ``throw``: its counts by category, and whether it is a real option (not padding)."""
    options = params.tables.keep_options[throw]
    return params.tables.counts[np.maximum(options, 0)], options >= 0


def test_the_keep_masks_remove_what_they_say() -> None:
    params = Params()
    tables = params.tables
    throw = throw_index(params, {0: 2, 1: 1}, 1)  # two of colour 0, one of colour 1, a joker
    counts, real = kept(params, throw)
    joker = tables.joker
    no_joker = RESTRICTIONS["never-keep-joker"].unit.keeps(tables)[throw]
    assert (no_joker[real] == (counts[real, joker] == 0)).all() and no_joker[real].sum() == real.sum() // 2
    every = RESTRICTIONS["never-reroll-joker"].unit.keeps(tables)[throw]
    assert (every[real] == (counts[real, joker] == 1)).all()
    reroll = RESTRICTIONS["always-reroll"].unit.keeps(tables)[throw]
    assert (~reroll[real]).sum() == 1 and counts[real][~reroll[real]].sum() == params.dice  # only "keep all" goes


def test_the_token_masks_remove_what_they_say() -> None:
    params = Params().with_strings({"escaping_boots": "true"})
    colour = params.colours - 1 - np.arange(params.n_tokens) % params.colours
    value = np.array(params.token_values)[np.arange(params.n_tokens) // params.colours]
    two, three = [int(np.flatnonzero((colour == 0) & (value == v))[0]) for v in (2, 3)]
    turn = position(params, {three: 1}, {three: 0}, turn=2)  # seat 0 moves; colour 0's 3 is on seat 1's tail
    fitting = turn.available & fits(turn, np.array([throw_index(params, {0: 3}, 1)]))
    assert fitting[0, two] and fitting[0, three] and turn.stealable[0, three]
    steal = RESTRICTIONS["never-steal"].unit.tokens(turn, fitting)
    assert not steal[0, three] and steal[0, two]
    largest = RESTRICTIONS["largest-token"].unit.tokens(turn, fitting)
    assert set(np.flatnonzero(largest[0])) == set(np.flatnonzero(fitting[0] & (value == value[fitting[0]].max())))


def test_a_forced_steal_stays_legal_at_a_restricted_point() -> None:
    from boardlab.engines.restrict import RestrictedPoint

    params = Params().with_strings({"escaping_boots": "true"})
    colour = params.colours - 1 - np.arange(params.n_tokens) % params.colours
    value = np.array(params.token_values)[np.arange(params.n_tokens) // params.colours]
    of_colour = [int(t) for t in np.flatnonzero(colour == 0)]
    four = int(np.flatnonzero((colour == 0) & (value == 4))[0])
    others = {t: 0 for t in of_colour if t != four}  # seat 0 holds colour 0's 2 and 3; seat 1 its 4
    turn = position(params, {**others, four: 1}, {four: 1}, turn=2)
    point = decisions.Point.at(turn, decisions.CHOOSE, np.array([throw_index(params, {0: 4}, 0)]), 0, POLICIES)
    assert np.flatnonzero(point.legal()[0]).tolist() == [four]  # only the stolen 4 fits
    restricted = RestrictedPoint(point, [RESTRICTIONS["never-steal"]])
    assert np.flatnonzero(restricted.legal()[0]).tolist() == [four]  # forced: it stays


def reference_values(impl: learned.Learned, turn: Turn, rules: list) -> list[np.ndarray]:
    """Slow reference of the restricted programme: values of every throw by rolls left, per game, with dense tables."""
    tables, params = impl.tables, impl.params
    shares = impl.candidate_shares(turn)[..., 0]
    n_tokens = params.n_tokens
    take = np.where(turn.available, shares[:, :-1] + impl.boots_tiebreak * impl.value, -np.inf)
    fit = ((tables.fit_mask[:, None] >> np.arange(n_tokens)) & 1).astype(bool)
    keeps = [r.keeps(tables) for r in rules if r.keeps is not None]
    options = tables.keep_options
    out = []
    for g in range(len(turn.mover)):
        one = turn.subset(np.array([g]))
        terminal = np.empty(len(fit))
        for f in range(len(fit)):
            fitting = (one.available & fit[f])[0]
            allowed = fitting.copy()
            for r in rules:
                if r.tokens is not None:
                    allowed &= r.tokens(one, fitting[None])[0]
            chosen = allowed if allowed.any() else fitting
            terminal[f] = take[g][chosen].max() if chosen.any() else shares[g, -1]
        values = [terminal]
        for _ in range(tables.rolls - 1):
            expected = tables.transition @ values[-1] / tables.unit
            step_values = np.empty(len(fit))
            for f in range(len(fit)):
                real = options[f] >= 0
                ok = real & np.logical_and.reduce([k[f] for k in keeps]) if keeps else real
                ok = ok if ok.any() else real
                step_values[f] = expected[options[f][ok]].max()
            values.append(step_values)
        out.append(np.stack(values))
    return out


@pytest.mark.parametrize(
    "names, knobs",
    [
        (["never-keep-joker"], {}),
        (["never-reroll-joker", "largest-token"], {}),
        (["always-reroll"], {}),
        (["never-steal"], {"escaping_boots": "true"}),
    ],
)
def test_the_restricted_programme_matches_a_slow_reference_on_sampled_turns(names, knobs) -> None:
    params = Params().with_strings(knobs)
    (impl,) = core.policy_instances(POLICIES, ["!".join(["learned", *names])], params)
    (state_policy,) = core.policy_instances(POLICIES, ["random"], params)
    source = core.RandomSource(np.random.default_rng(3))
    state = State.initial(params, 2, 6)
    for _ in range(5):
        step(params, [state_policy] * 2, state, source, exact=False)
    turn = Turn(params, 2, source, state, (state.turn % 2).astype(np.int64))
    values = impl.throw_values(turn, params.rolls - 1)
    expected = reference_values(impl, turn, [RESTRICTIONS[n].unit for n in names])
    for g in range(len(turn.mover)):
        got = np.stack([v[values.inverse[g]] for v in values.by_rolls])
        np.testing.assert_allclose(got, expected[g], rtol=0, atol=1e-6)  # float32 values: last-bit rounding


def test_with_no_rules_the_restricted_terminal_is_the_full_one() -> None:
    params = Params().with_strings({"escaping_boots": "true"})
    (impl,) = core.policy_instances(POLICIES, ["learned"], params)
    (state_policy,) = core.policy_instances(POLICIES, ["random"], params)
    source = core.RandomSource(np.random.default_rng(4))
    state = State.initial(params, 2, 30)
    for _ in range(6):
        step(params, [state_policy] * 2, state, source, exact=False)
    turn = Turn(params, 2, source, state, (state.turn % 2).astype(np.int64))
    full = impl.successor_values(turn)
    shares = impl.candidate_shares(turn)[..., 0]
    take = np.where(turn.available, shares[:, :-1] + impl.boots_tiebreak * impl.value, -np.inf)
    # the model's float32 outputs may differ in the last bit with the batch they are computed in (BLAS kernels)
    restricted = impl.restricted_terminal(turn, take, shares[:, -1])
    np.testing.assert_allclose(restricted, full.by_rolls[0][full.inverse], rtol=0, atol=1e-6)


def digest(seats: list[str], n: int, seed: int, **knobs: object) -> str:
    return outcome_digest(play, Params(**knobs), seats, n, seed, ("score", "winners", "turns"))


#: the base game's games of ``learned`` against ``turn-optimal`` (300, seed 5) with the n-tuple model of the exact
#: fit (session 14; the same code with the model fitted by ``Ridge`` gave 1a522fbdad58201b, which matched main
#: before restrictions existed, commit afe988a; the network's was db5aa4e780f65f39)
BASE_DIGEST = "141e7c4bff726134"


def test_the_unrestricted_learned_player_plays_the_games_it_played_before_restrictions() -> None:
    # the escaping-boots model is still the network of commit afe988a: its digest is the one from before restrictions
    assert digest(["learned", "turn-optimal"], 300, 5) == BASE_DIGEST
    assert digest(["learned", "greedy"], 200, 7, escaping_boots=True) == "a3f3c846a0385a21"


def test_a_restricted_learned_player_plays_other_games_and_refuses_a_choice_the_rules_lack() -> None:
    assert digest(["learned!never-keep-joker", "turn-optimal"], 300, 5) != BASE_DIGEST
    with pytest.raises(ValueError, match="removes nothing under these rules"):
        play(Params(), ["learned!never-steal", "learned"], 1, np.random.default_rng(0))
