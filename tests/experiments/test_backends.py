"""Every command's library call gives the same numbers in this process and on a Dask cluster (a local one)."""

from __future__ import annotations

import pytest

from boardlab.experiments import compare, explain, ladder, tune
from boardlab.experiments.run import MemoryStore, Runner, local_runner, open_executor

pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def dask_runner():
    with open_executor("dask", 2) as executor:
        yield lambda: Runner(MemoryStore(), executor)


def test_a_tournament_and_a_sweep_are_the_same_on_dask(dask_runner) -> None:
    plan = compare.plan_tournament("pantolino", ["keep-jokers", "random"], None, 600, 4)
    play = lambda runner: compare.play_tournament(plan, runner)  # noqa: E731
    assert play(dask_runner()).long().equals(play(local_runner()).long())
    sweep = lambda runner: compare.sweep("pantolino", ("greedy", "greedy"), (("rolls", "2,3"),), 500, 4, runner)  # noqa: E731
    assert sweep(dask_runner()).frame.equals(sweep(local_runner()).frame)


def test_a_ladder_is_the_same_on_dask(dask_runner) -> None:
    plan = ladder.plan_ladder("pantolino", n_games=300, seed=2, policies=["random", "keep-jokers", "greedy"])
    rate = lambda runner: ladder.play_ladder(plan, runner)  # noqa: E731
    on_dask, here = rate(dask_runner()), rate(local_runner())
    assert on_dask.ratings.equals(here.ratings) and on_dask.pairs.equals(here.pairs)


def test_a_tuning_run_is_the_same_on_dask(dask_runner, tmp_path) -> None:
    spec = tune.TuneSpec(
        "pantolino",
        ("keep-jokers", "keep-jokers"),
        (tune.parse_vary("pantolino", "rolls=2,3,4"),),
        (tune.Target("first_seat_advantage", 0.0, 0.0),),
        seed=5,
        games=600,
        chunk_size=300,
        trials=3,
    )
    on_dask = tune.summary(tune.tune(spec, tmp_path / "dask", dask_runner().executor))
    here = tune.summary(tune.tune(spec, tmp_path / "here", local_runner().executor))
    assert {**on_dask, "folder": None} == {**here, "folder": None}


def test_an_explanation_is_the_same_on_dask(dask_runner) -> None:
    asked = explain.request("pantolino", seed=3, games=(0, 1, 2), playouts=20)
    assert explain.explain(asked, dask_runner().executor) == explain.explain(asked)
