"""Pantolino: collect boot tokens by rolling four colour dice up to three times a turn."""

from engines import core
from engines.pantolino import rules
from engines.pantolino.policies import POLICIES
from engines.pantolino.record import RECORD
from engines.pantolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
