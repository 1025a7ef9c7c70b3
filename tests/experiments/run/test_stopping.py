"""Stopping rules: a precision target adds chunks up to a cap, and a run stopped at the cap says so."""

from __future__ import annotations

import pytest

from boardlab.analysis import stats
from boardlab.experiments.run import InProcess, MemoryStore, Precision, RunSpec, play, shortfall, stopping

SPEC = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), 1_000, seed=5, chunk_size=500)


def test_a_reached_target_leaves_no_shortfall() -> None:
    [arm] = play([SPEC], MemoryStore(), InProcess(), Precision(0.03))
    assert stopping.widest_half_width(arm.summary) <= 0.03
    assert shortfall(arm.summary, 0.03, SPEC.chunk_size) is None
    assert shortfall(arm.summary, None, SPEC.chunk_size) is None  # no target, nothing to reach


def test_the_cap_on_games_stops_a_run_short_and_says_so() -> None:
    [arm] = play([SPEC], MemoryStore(), InProcess(), Precision(0.001, max_games=2_000))
    assert arm.summary.n_games == 2_000
    line = shortfall(arm.summary, 0.001, SPEC.chunk_size)
    assert line is not None and line.startswith("precision 0.001 not reached: stopped at 2,000 games")
    assert "the most games an arm may play" in line
    wins = stats.wilson_half_width(arm.summary.wins, 2_000).max()
    assert f"half-width is {wins:.2g}" in line


def test_the_cap_on_chunks_names_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stopping, "MAX_CHUNKS", 3)
    [arm] = play([SPEC], MemoryStore(), InProcess(), Precision(0.001))
    assert arm.summary.n_games == 1_500
    line = shortfall(arm.summary, 0.001, SPEC.chunk_size)
    assert line is not None and "3 chunks of 500 games" in line and "a larger chunk size" in line


def test_a_chunk_of_one_game_is_worded_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stopping, "MAX_CHUNKS", 3)
    spec = RunSpec("pantolino", ("keep-jokers", "keep-jokers"), 3, seed=5, chunk_size=1)
    [arm] = play([spec], MemoryStore(), InProcess(), Precision(0.001))
    line = shortfall(arm.summary, 0.001, 1)
    assert line is not None and "3 chunks of 1 game, the most" in line
