"""Paleolino: a cooperative race to build ten inventions from chips that roll down a mountain into caves."""

from engines.paleolino.policies import POLICIES
from engines.paleolino.rules import INFO, METRICS, VARIANTS, Params, State, play

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]
