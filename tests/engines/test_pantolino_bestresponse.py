"""The exact best response of 2-player base Pantolino, on tiny tables (three colours, two token values)."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines.pantolino import bestresponse, solver
from boardlab.engines.pantolino.rules import Params

TINY = Params(dice=2, colours=3, token_values=(1, 2))
SMALL = Params(dice=3, colours=3, token_values=(2, 3))  #: three dice, tokens of 2 and 3: keeps that matter
FULL, OFFSET = (1 << TINY.n_tokens) - 1, 9


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOARDLAB_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def random_table(params: Params = TINY) -> np.ndarray:
    rng = np.random.default_rng(3)
    return bestresponse.policy_table(params, lambda supply, own, rival: rng.random(len(supply)))


class Dense(bestresponse.PolicySolver):
    """The same tabulated policy through the solver's own dense turn: the slow path the kernels replace."""

    optimise_turn = solver.Solver.optimise_turn
    follow_turn = solver.Solver.follow_turn

    def tabled_turn(self, supply: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        take, stay = self.policy_take(supply, d)
        keeps = solver.Solver.optimise_turn(self, self.best_fit(take), stay)[2]
        return keeps, solver.pick_token(take[:, None, :], self.fits[None])


@pytest.mark.parametrize("rules", [(solver.OPTIMISE, solver.TABLED), (solver.TABLED,)])
def test_sparse_turns_agree_with_the_dense_solver(rules: tuple[str, ...]) -> None:
    table = random_table(SMALL)
    fast = bestresponse.PolicySolver(SMALL, rules, table, 1e-9).solve()
    slow = Dense(SMALL, rules, table, 1e-9).solve()
    assert np.array_equal(np.isnan(fast), np.isnan(slow))
    assert np.nanmax(np.abs(fast - slow)) < 1e-12


def test_a_weak_heuristic_is_exploitable(cache: None) -> None:
    """A policy that only pushes its lead in boots loses to the best response in both seats; the equilibrium not."""
    total = sum(SMALL.token_values) * SMALL.colours
    lead = bestresponse.policy_table(SMALL, lambda supply, own, rival: 0.5 + (own - rival) / (2 * total))
    weak = bestresponse.exploitability(SMALL, lead)
    assert min(weak.gains) > 0.005 and weak.exploitability > 0.01
    exact = bestresponse.exploitability(SMALL, bestresponse.policy_table(SMALL, bestresponse.equilibrium_valuer(SMALL)))
    assert abs(exact.exploitability) < 1e-9


def test_tabulated_equilibrium_plays_as_win_optimal(cache: None) -> None:
    table = bestresponse.policy_table(TINY, bestresponse.equilibrium_valuer(TINY))
    ours = bestresponse.PolicySolver(TINY, (solver.OPTIMISE, solver.TABLED), table).solve()
    theirs = solver.Solver(TINY, (solver.OPTIMISE, solver.TABLED)).solve()
    assert np.allclose(ours, theirs, equal_nan=True, atol=1e-12)


def test_equilibrium_is_not_exploitable(cache: None) -> None:
    exact = bestresponse.exploitability(TINY, bestresponse.policy_table(TINY, bestresponse.equilibrium_valuer(TINY)))
    assert abs(exact.exploitability) < 1e-9
    assert max(abs(g) for g in exact.gains) < 1e-9


def test_best_response_beats_every_fixed_reply(cache: None) -> None:
    """Brute force over the solver's other replies: none does better against the policy than the best response."""
    table = random_table()
    exact = bestresponse.exploitability(TINY, table)
    assert exact.exploitability > 0.01  # a policy of random values is far from the equilibrium
    replies = [(solver.TABLED, solver.TABLED), *((name, solver.TABLED) for name in solver.FIXED)]
    for rules in replies:
        values = bestresponse.PolicySolver(TINY, rules, table).solve()[:, FULL, OFFSET]
        first, second = values[0], 1.0 - values[1]
        assert first <= exact.best[0] + 1e-12 and second <= exact.best[1] + 1e-12
    assert exact.own[0] + exact.own[1] == pytest.approx(1.0)


def test_head_start_is_refused() -> None:
    with pytest.raises(ValueError, match="head_start"):
        bestresponse.check_supported(Params(head_start=2))


def test_the_best_response_played_wins_its_exact_share(cache: None) -> None:
    """Monte Carlo: the best response and the lead-only policy as players (win-optimal's turn on their tables)."""
    from boardlab.engines.pantolino.policies import WinOptimal
    from boardlab.engines.pantolino.rules import play_with

    total = sum(SMALL.token_values) * SMALL.colours
    lead_table = bestresponse.policy_table(SMALL, lambda supply, own, rival: 0.5 + (own - rival) / (2 * total))
    pair = bestresponse.best_response(SMALL, lead_table)
    exact = bestresponse.exploitability(SMALL, lead_table, pair=pair)
    lead = WinOptimal(SMALL)
    lead.solver.table = (1.0 - lead_table[:, ::-1])[None]  # its value to move: one less the rival's just after
    best = bestresponse.responder(SMALL, pair)
    n = 4000
    for seats, expected in (
        ([best, lead], exact.best[0]),
        ([lead, best], 1 - exact.best[1]),
        ([lead, lead], exact.own[0]),
    ):
        winners = play_with(SMALL, seats, n, np.random.default_rng(5), metrics=False)["winners"].astype(float)
        share = (winners[:, 0] / winners.sum(axis=1)).mean()
        assert abs(share - expected) < 3.5 * np.sqrt(expected * (1 - expected) / n)
