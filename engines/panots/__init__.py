"""Panots: draft domino-like panot cards and lay a sidewalk that scores objective patterns."""

from engines import core
from engines.panots import rules
from engines.panots.policies import POLICIES
from engines.panots.record import RECORD
from engines.panots.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
