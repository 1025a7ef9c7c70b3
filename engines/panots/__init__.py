"""Panots: draft domino-like panot cards and lay a sidewalk that scores objective patterns."""

from boardlab.engines import core
from boardlab.engines.panots import rules
from boardlab.engines.panots.policies import POLICIES
from boardlab.engines.panots.record import RECORD
from boardlab.engines.panots.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
