"""Paleolino: a cooperative race to build ten inventions from chips that roll down a mountain into caves."""

from engines import core
from engines.paleolino import rules
from engines.paleolino.policies import POLICIES
from engines.paleolino.record import RECORD
from engines.paleolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
