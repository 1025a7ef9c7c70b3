"""The reference engine still plays the golden games, move for move; the batched engine agrees on the result."""

from __future__ import annotations

import pytest

from boardlab.engines.core import ScriptedSource
from boardlab.engines.pantolino import play
from tests.golden.regenerate import FOLDER, TRACES, trace


@pytest.mark.parametrize("name", sorted(TRACES))
def test_golden_trace_is_unchanged(name: str) -> None:
    params, seats, seed = TRACES[name]
    assert trace(params, seats, seed) == (FOLDER / name).read_text(), "run `make golden` if the change is deliberate"


@pytest.mark.parametrize("name", sorted(TRACES))
def test_batched_engine_reaches_the_golden_result(name: str) -> None:
    params, seats, seed = TRACES[name]
    out = play(params, seats, 1, ScriptedSource.from_seed(seed, 1, 20_000), exact=False)
    last = (FOLDER / name).read_text().strip().splitlines()[-1]
    assert last == f"# result: boots {out['score'][0].tolist()}, winner {out['winner'][0]}, {out['turns'][0]} turns"
