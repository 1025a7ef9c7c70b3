"""The learned recipe's settings search (engines/learned/search.py, `simulate train --search`)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from boardlab.engines import get_game
from boardlab.engines.learned import search
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.learned.training import Settings
from boardlab.experiments.cli import app

runner = CliRunner()


def test_candidates_change_one_setting_each_from_the_specs_own() -> None:
    base = Settings(hidden=(64,), anneal_epochs=5)
    found = {c.name: c.settings for c in search.candidates(base)}
    assert found == {
        "the spec's own": base,
        "hidden 32": replace(base, hidden=(32,)),
        "hidden 128": replace(base, hidden=(128,)),
        "closing passes 0": replace(base, anneal_epochs=0),
    }
    assert [c.name for c in search.candidates(replace(base, family="ntuple"))] == ["the spec's own"]


def scored(name: str, games: list[float]) -> search.Scored:
    values = np.array(games)
    return search.Scored(search.Candidate(name, Settings()), *search.interval(values), "cached", 0.0, values)


def test_the_winner_is_said_detectably_better_only_when_the_paired_difference_clears_zero() -> None:
    a, b = scored("a", [1.0, 2.0, 3.0, 4.0]), scored("b", [1.5, 2.4, 3.6, 4.4])  # b worse by about 0.5 each game
    assert search.why([a, b], lower=True) == (
        "a: the lowest measure, 2.50, against 2.98 for b: 0.48 points better game by game (95% 0.38 to 0.57), "
        "detectably better"
    )
    c = scored("c", [0.0, 3.0, 2.0, 5.0])  # as good as a on average, worse or better game by game
    assert search.why([a, c], lower=True).endswith(
        "not detectably better: no candidate is (more validation games would tell)"
    )
    assert search.why([b, a], lower=False).startswith("b: the highest measure, 2.98, against 2.50 for a: 0.48")


def test_the_search_on_swine_measures_every_candidate_by_exact_loss_the_same_each_time(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    args = [
        "train",
        "swine",
        "--set",
        "target=30",
        "--search",
        "--games",
        "60",
        "--validation-games",
        "8",
        "--jobs",
        "1",
        "--json",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["measure"].startswith("exact loss per game against win-optimal")
    rows = report["rows"]
    assert [r["candidate"] for r in rows] == ["the spec's own", "hidden 32", "hidden 128", "closing passes 0"]
    assert {r["how"] for r in rows} == {"trained"} and report["chosen"]["mean"] == min(r["mean"] for r in rows)
    again = json.loads(runner.invoke(app, args).stdout)  # the models cached now; the same validation
    assert [r["how"] for r in again["rows"]] == ["cached"] * 4
    assert [r["mean"] for r in again["rows"]] == [r["mean"] for r in rows]


def test_search_options_are_checked_in_one_line() -> None:
    for args, words in (
        (["--validation-games", "100"], "--validation-games goes with --search"),
        (["--search", "--validation-games", "1"], "--validation-games must be 2 to 100,000, not 1"),
        (["--search", "--validation-games", "lots"], "--validation-games"),
        (["--search", "--jobs", "0"], "jobs=0 must be at least 1"),
    ):
        result = runner.invoke(app, ["train", "swine", *args])
        assert result.exit_code == 2, (args, result.output)
        assert words in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert result.stdout == ""  # not even the table's header


def test_without_an_exact_player_at_the_table_the_measure_is_the_share_against_the_first_heuristic() -> None:
    module = get_game("swine").module
    player = module.POLICIES["learned"].impl
    flat = ValueModel((np.zeros((5, 2), np.float32), np.zeros((2, 1), np.float32)), (np.zeros(2, np.float32),) * 2)
    measure = search.measure_for(module, player, module.Params(), 3, 6, 0)  # the exact player plays 2 seats only
    assert measure.name == "share against hold-at-20 (points; higher is better)" and not measure.lower_is_better
    games = measure.score(flat)
    assert games.shape == (18,) and set(np.unique(games)) <= {0.0, 50.0, 100.0}  # 6 games a seat, shares of a win
    assert np.array_equal(measure.score(flat), games)
