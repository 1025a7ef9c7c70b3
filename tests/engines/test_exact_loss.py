"""The exact-loss script (tests/example_game/exact_loss.py) sees every decision of the policy it measures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from boardlab.engines import core, get_game
from boardlab.engines.pantolino import decisions
from boardlab.engines.seating import seating_of

SCRIPT = Path(__file__).parents[1] / "example_game" / "exact_loss.py"


def test_a_policy_that_draws_whole_turns_is_seen_at_its_keeps_too() -> None:
    # turn-optimal draws each turn's last throw whole in a run: seen only at its tokens, its keeps' loss was missed
    spec = importlib.util.spec_from_file_location("exact_loss", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    module = get_game("pantolino").module
    seats = seating_of(module)
    params = module.Params()
    stages: list[int] = []

    def hook(point, games, propose):
        stages.append(point.stage)
        return propose()

    impls = seats.instances(params, ["turn-optimal", "turn-optimal"], 2)
    impls[0] = script.every_decision(seats, impls[0], hook)
    seats.play(params, impls, 4, core.RandomSource(np.random.default_rng(0)))
    assert {decisions.KEEP, decisions.CHOOSE} <= set(stages)
