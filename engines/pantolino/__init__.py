"""Pantolino: collect boot tokens by rolling four colour dice up to three times a turn."""

from boardlab.engines import core
from boardlab.engines.pantolino import rules
from boardlab.engines.pantolino.policies import POLICIES
from boardlab.engines.pantolino.record import RECORD
from boardlab.engines.pantolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
