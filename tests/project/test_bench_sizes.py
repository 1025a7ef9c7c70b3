"""`benchmarks/bench.py` measures a game that declares no bench sizes (the example game) with a default."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from boardlab.engines import get_game
from boardlab.engines.record import record_of


def _bench():
    path = Path(__file__).parents[2] / "benchmarks" / "bench.py"
    spec = importlib.util.spec_from_file_location("bench_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_game_without_bench_sizes_gets_a_default_and_one_with_them_keeps_its_own() -> None:
    bench = _bench()
    assert record_of(get_game("swine").module).bench is None
    sizes = bench.bench_sizes("swine")
    assert sizes.seats == ("hold-at-20", "chase", "random") and sizes.rival == "hold-at-20"
    assert not bench.declares_bench("swine")
    assert bench.bench_sizes("pantolino") == record_of(get_game("pantolino").module).bench
