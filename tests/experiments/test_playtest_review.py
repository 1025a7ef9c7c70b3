"""`simulate review`: a deliberately losing token choice is ranked first, its exact loss inside the interval."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.engines.pantolino import solver
from boardlab.engines.pantolino.decisions import CHOOSE
from boardlab.engines.pantolino.rules import token_value
from boardlab.experiments.cli import app
from boardlab.experiments.playtest import record, sources, table
from boardlab.experiments.playtest.setup import Setup

SMALL = (("colours", "3"), ("dice", "3"), ("token_values", "2,3"))  # its exact table builds in well under a second


def exact_token_values(point) -> np.ndarray:
    """The mover's chance to win after taking each token, from the solved table (both then play it)."""
    params = point.params
    values = solver.cached_values(params)[0]
    total = sum(params.token_values) * params.colours
    mover = int(point.seat[0])
    boots = point.turn().boots[0]
    d = int(boots[mover] - boots[1 - mover])
    supply = int(point.state.supply_bits[0])
    out = np.full(params.n_tokens, np.nan)
    for t in np.flatnonzero(point.legal()[0, : params.n_tokens]):
        after = supply & ~(1 << int(t))
        out[t] = 1 - values[after, total - (d + int(token_value(params)[t]))]
    return out


def play_with_one_blunder(setup: Setup) -> tuple[list[tuple[int, int]], int, float]:
    """Seat 0 plays win-optimal except once: the worst token where that costs most. Returns the decisions too."""
    blunder: dict[str, float] = {}

    def live(point, seat, propose, index):
        best = int(point.suggest("win-optimal")[0])
        if seat != 0 or point.stage != CHOOSE or point.legal()[0].sum() < 2 or blunder:
            return best
        values = exact_token_values(point)
        worst = int(np.nanargmin(values))
        if values[best] - values[worst] < 0.15:
            return best
        blunder.update(index=index, loss=values[best] - values[worst], turn=int(point.state.turn[0]) + 1)
        return worst

    played = table.play(setup, [], live)
    assert blunder, "no token choice costing 15% in this game: pick another seed"
    return played.decisions, int(blunder["turn"]), float(blunder["loss"])


def test_the_losing_token_choice_is_listed_first_valued_exactly_with_its_dice(tmp_path: Path) -> None:
    setup = Setup("pantolino", ("human", "win-optimal"), 11, SMALL)
    decisions, turn, loss = play_with_one_blunder(setup)
    path = tmp_path / "game.json"
    record.SavedGame(setup, decisions).save(path)
    result = CliRunner().invoke(app, ["review", str(path), "--hint-playouts", "400"])
    assert result.exit_code == 0, result.output
    first = re.search(
        r"^\s+1\. turn (\d+) \(dice ([a-z, ]+)\): .*?gave up (-?[\d.]+)%, exact\)", result.output, re.M | re.S
    )
    assert first is not None, result.output
    assert int(first.group(1)) == turn
    assert float(first.group(3)) == pytest.approx(100 * loss, abs=0.051)  # the solved table's loss, not playouts'
    assert "interval" not in result.output.split("summary")[0]
    assert (tmp_path / "game-review.png").stat().st_size > 0


def test_another_strong_player_is_valued_by_playouts_with_the_exact_loss_beside(tmp_path: Path) -> None:
    setup = Setup("pantolino", ("human", "win-optimal"), 11, SMALL)
    decisions, _, _ = play_with_one_blunder(setup)
    path = tmp_path / "game.json"
    record.SavedGame(setup, decisions).save(path)
    args = ["review", str(path), "--hint-policy", "turn-optimal", "--hint-playouts", "20"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert re.search(r"gave up -?[\d.]+%, 95% interval -?[\d.]+% to -?[\d.]+%; exact -?[\d.]+%\)", result.output)


def test_a_game_or_chunk_size_no_run_can_have_is_refused_before_replaying() -> None:
    seats = ("keep-jokers", "greedy")
    for chunk, number, message in (
        (0, 0, "chunk_size=0 is out of range"),
        (10**7, 0, "chunk_size=10000000 is out of range"),
        (None, -1, "game=-1 is out of range"),
        (None, 10**12, "game=1000000000000 is out of range; allowed 0..999,999,999,999"),
    ):
        with pytest.raises(ValueError, match=message):
            sources.from_run("pantolino", seats, 0, SMALL, None, chunk, number)


def test_a_game_of_a_run_is_replayed_as_the_run_played_it() -> None:
    from boardlab.engines.pantolino import play
    from boardlab.experiments.run.seeds import chunk_rng

    seats, seed, chunk = ("keep-jokers", "expert:4"), 9, 6
    setup, seen = sources.from_run("pantolino", seats, seed, SMALL, None, chunk, 8)
    outcome = play(setup.params, list(seats), chunk, chunk_rng(seed, 1))
    tokens = [d for d in seen if d.point.stage == CHOOSE]
    taken = {(int(d.point.state.turn[0]) % 2, d.move) for d in tokens if d.move < setup.params.n_tokens}
    values = token_value(setup.params)
    boots = [sum(int(values[t]) for s, t in taken if s == seat) for seat in range(2)]
    assert boots == [int(x) for x in outcome["score"][2]]
