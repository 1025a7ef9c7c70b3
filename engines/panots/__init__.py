"""Panots: draft domino-like panot cards and lay a sidewalk that scores objective patterns."""

from engines.panots.policies import POLICIES
from engines.panots.rules import INFO, METRICS, VARIANTS, Params, State, play

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]
