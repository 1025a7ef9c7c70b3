"""The exact best response of 2-player base Pantolino, on a tiny table (three colours, tokens of 1 and 2 boots)."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines.pantolino import bestresponse, solver
from boardlab.engines.pantolino.rules import Params

TINY = Params(dice=2, colours=3, token_values=(1, 2))
FULL, OFFSET = (1 << TINY.n_tokens) - 1, 9


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOARDLAB_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def random_table() -> np.ndarray:
    rng = np.random.default_rng(3)
    return bestresponse.policy_table(TINY, lambda supply, own, rival: rng.random(len(supply)))


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
