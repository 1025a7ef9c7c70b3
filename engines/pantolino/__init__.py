"""Pantolino: collect boot tokens by rolling four colour dice up to three times a turn."""

from collections.abc import Sequence

import numpy as np

from engines import core
from engines.pantolino import rules
from engines.pantolino.policies import POLICIES
from engines.pantolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]


def play(
    params: Params,
    seat_policies: Sequence[str],
    n_games: int,
    rng: np.random.Generator | core.Source,
    exact: bool = True,
) -> core.Outcome:
    """Play ``n_games`` games, seat ``i`` following the policy named ``seat_policies[i]`` (see ``rules.play_with``)."""
    return rules.play_with(params, core.seat_policies(INFO, POLICIES, seat_policies, params), n_games, rng, exact)
