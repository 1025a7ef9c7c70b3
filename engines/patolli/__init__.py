"""Patolli: a two-player race around a cross-shaped track, with captures, bonus and penalty squares and a purse."""

from engines.patolli.policies import POLICIES
from engines.patolli.rules import INFO, METRICS, VARIANTS, Params, State, play

__all__ = ["INFO", "METRICS", "POLICIES", "VARIANTS", "Params", "State", "play"]
