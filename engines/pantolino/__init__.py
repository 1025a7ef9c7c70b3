"""Pantolino: collect boot tokens by rolling four colour dice up to three times a turn."""

from engines.pantolino.policies import POLICIES
from engines.pantolino.rules import INFO, METRICS, VARIANTS, Params, State, play

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]
