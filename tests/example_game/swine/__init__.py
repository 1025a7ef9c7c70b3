"""Swine: a push-your-luck dice race for 2-4 players, registered with boardlab from outside (entry point)."""

from boardlab.engines import core
from swine import rules
from swine.policies import POLICIES
from swine.record import RECORD
from swine.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
