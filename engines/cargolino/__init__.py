"""Cargolino Valentino: advance the other players' hidden snails, keep your own behind."""

from boardlab.engines import core
from boardlab.engines.cargolino import rules
from boardlab.engines.cargolino.policies import POLICIES
from boardlab.engines.cargolino.record import RECORD
from boardlab.engines.cargolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
