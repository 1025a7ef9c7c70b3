"""The shared head-start question: its arms, and how it words the fair value of a series."""

from __future__ import annotations

import pandas as pd

from boardlab.experiments.chapters import handicap
from boardlab.experiments.chapters.common import Plan

PLAIN = handicap.Series("greedy", "greedy", (0, 1, 2))
FIXED = handicap.Series("greedy, seat order", "greedy", (0, 1, 2), (("grab_order", "seat"),))
ONE = handicap.Series("learned", "learned", (0,))
H = handicap.Handicap("head_start", "VP", "the second seat starts with head_start VP", (PLAIN, FIXED, ONE), "0..4")


def rows(series: handicap.Series, edges: list[tuple[float, float, float]]) -> list[dict]:
    return [{"play": series.name, "h": h, "edge": e, "low": lo, "high": hi} for h, (e, lo, hi) in enumerate(edges)]


def test_every_value_of_every_series_is_an_arm_with_its_knobs() -> None:
    plan = Plan("panots")
    handicap.add_arms(plan, 100, 7, 50, H)
    assert [a.label for a in plan.arms][:3] == [f"handicap greedy head_start={h}" for h in range(3)]
    *own, cross = plan.arms  # the learned series again under the second strong player (cross-play), fewer games
    assert len(own) == 7 and {a.spec.n_games for a in own} == {100}
    assert cross.spec.seats == ("expert:16",) * 2 and cross.spec.settings == (("head_start", "0"),)
    fixed = [a for a in plan.arms if "seat order" in a.label]
    assert [a.spec.settings for a in fixed] == [(("head_start", str(h)), ("grab_order", "seat")) for h in range(3)]
    assert H.command("panots", FIXED).endswith(
        "--set grab_order=seat --vary head_start=0..4 --target first_seat_advantage=0"
    )


def test_the_fair_value_is_the_edge_closest_to_zero_in_plain_words() -> None:
    frame = pd.DataFrame(
        rows(PLAIN, [(0.30, 0.28, 0.32), (0.01, -0.01, 0.03), (-0.2, -0.22, -0.18)])
        + rows(FIXED, [(0.004, -0.01, 0.02), (-0.1, -0.12, -0.08), (-0.2, -0.22, -0.18)])
        + rows(ONE, [(0.05, 0.04, 0.06)])
    )
    fair = handicap.answer(frame, H, PLAIN)
    assert "a 1-VP head start (head_start=1) is fair, ±3.0 points" in fair and "+30.0 (+28.0 to +32.0)" in fair
    assert "none is needed" in handicap.answer(frame, H, FIXED)
    assert "no other value played" in handicap.answer(frame, H, ONE)
    missed = pd.DataFrame(rows(PLAIN, [(0.30, 0.28, 0.32), (0.1, 0.08, 0.12), (-0.2, -0.22, -0.18)]))
    assert "(head_start=1) comes closest to fair (the first seat's edge +10.0" in handicap.answer(missed, H, PLAIN)
    overshoot = pd.DataFrame(rows(FIXED, [(-0.05, -0.06, -0.04), (-0.3, -0.31, -0.29), (-0.4, -0.41, -0.39)]))
    worded = handicap.answer(overshoot, H, FIXED)
    assert "none is closest to fair" in worded and "the smallest, 1 VP, overshoots to -30.0" in worded
