"""Cargolino Valentino: advance the other players' hidden snails, keep your own behind."""

from engines.cargolino.policies import POLICIES
from engines.cargolino.rules import INFO, METRICS, VARIANTS, Params, State, play

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]
