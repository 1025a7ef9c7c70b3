"""Cargolino Valentino: advance the other players' hidden snails, keep your own behind."""

from engines import core
from engines.cargolino import rules
from engines.cargolino.policies import POLICIES
from engines.cargolino.record import RECORD
from engines.cargolino.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
