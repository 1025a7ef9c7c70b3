"""Paleolino: a cooperative race to build ten inventions from chips that roll down a mountain into caves."""

from collections.abc import Sequence
from typing import Any

from engines import core
from engines.paleolino import rules
from engines.paleolino.policies import POLICIES
from engines.paleolino.record import RECORD
from engines.paleolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]


def play(params: Params, seat_policies: Sequence[str], n_games: int, rng: Any, **options: Any) -> core.Outcome:
    """Play ``n_games`` games, seat ``i`` following the policy named ``seat_policies[i]`` (``rules.play_with``).

    Paleolino's policies are built for the table size, one instance per distinct policy shared by its seats
    (the expert also gets its budget: ``impl(params, players, playouts)``).
    """
    players = len(seat_policies)
    core.check_players(INFO, players)
    made = {
        p.name: p.impl(params, players, p.arg) if p.parse_arg else p.impl(params, players)
        for p in core.resolve_policies(POLICIES, seat_policies)
    }
    return rules.play_with(params, [made[name] for name in seat_policies], n_games, rng, **options)
