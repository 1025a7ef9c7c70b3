"""Patolli: a two-player race around a cross-shaped track, with captures, bonus and penalty squares and a purse."""

from boardlab.engines import core
from boardlab.engines.patolli import rules
from boardlab.engines.patolli.policies import POLICIES
from boardlab.engines.patolli.record import RECORD
from boardlab.engines.patolli.rules import INFO, METRICS, VARIANTS, Params, State

__all__ = ["INFO", "METRICS", "POLICIES", "RECORD", "VARIANTS", "Params", "State", "play"]

play = core.play_by_name(rules.play_with, INFO, POLICIES)
