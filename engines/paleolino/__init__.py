"""Paleolino: a cooperative race to build ten inventions from chips that roll down a mountain into caves."""

from boardlab.engines import core
from boardlab.engines.paleolino import rules
from boardlab.engines.paleolino.policies import POLICIES
from boardlab.engines.paleolino.record import RECORD
from boardlab.engines.paleolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
