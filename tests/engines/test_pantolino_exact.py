"""Exact chances of every candidate at a 2-player Pantolino decision, against the solved table and playouts."""

from __future__ import annotations

import numpy as np

from boardlab.engines import core
from boardlab.engines.pantolino import POLICIES, exact, solver
from boardlab.engines.pantolino.decisions import CHOOSE, KEEP, Seat
from boardlab.engines.pantolino.rules import Params, play_with, token_value
from boardlab.experiments.playtest import hints

PARAMS = Params(colours=3, dice=3, token_values=(2, 3))  # its table builds in well under a second


def decisions_of_seat_0() -> list:
    seen = []

    def decide(point, games, propose):
        if int(point.seat[0]) == 0:
            seen.append(point.take(np.zeros(1, dtype=np.int64)))
        return propose()

    seats = [Seat(i, decide, POLICIES, False) for i in core.policy_instances(POLICIES, ["win-optimal"] * 2, PARAMS)]
    play_with(PARAMS, seats, 1, np.random.default_rng(5))
    return seen


def test_token_values_are_one_less_the_opponents_value_after_the_token() -> None:
    table = solver.cached_values(PARAMS)[0]
    total = sum(PARAMS.token_values) * PARAMS.colours
    checked = 0
    for point in decisions_of_seat_0():
        if point.stage != CHOOSE:
            continue
        assert exact.supported(point)
        got = exact.values(point)
        boots = point.turn().boots[0]
        d = int(boots[0] - boots[1])
        supply = int(point.state.supply_bits[0])
        for t in np.flatnonzero(point.legal()[0, : PARAMS.n_tokens]).tolist():
            want = 1 - table[supply & ~(1 << t), total - (d + int(token_value(PARAMS)[t]))]
            assert got[t] == want
            checked += 1
    assert checked


def test_keep_values_agree_with_paired_playouts_of_the_solution() -> None:
    point = next(p for p in decisions_of_seat_0() if p.stage == KEEP and p.legal()[0].sum() >= 4)
    values = exact.values(point)
    estimate = hints.evaluate(point, "win-optimal", 3000)
    for move in estimate.moves.tolist():
        mean, half = estimate.estimated(move)
        assert abs(mean - values[move]) <= 1.7 * half  # 99.9% interval
    assert np.isnan(values[~point.legal()[0]]).all()
