"""Patolli: a two-player race around a cross-shaped track, with captures, bonus and penalty squares and a purse."""

from collections.abc import Sequence

import numpy as np

from engines import core
from engines.patolli import rules
from engines.patolli.policies import POLICIES
from engines.patolli.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]


def play(
    params: Params, seat_policies: Sequence[str], n_games: int, rng: np.random.Generator | core.Source
) -> core.Outcome:
    """Play ``n_games`` games, seat ``i`` following the policy named ``seat_policies[i]`` (see ``rules.play_with``)."""
    return rules.play_with(params, core.seat_policies(INFO, POLICIES, seat_policies, params), n_games, rng)
