"""Tournaments, sweeps and experiments from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import Result
from typer.testing import CliRunner

from boardlab.engines import get_game
from boardlab.experiments.cli import app
from boardlab.experiments.compare import plan_sweep, plan_tournament, play_tournament, split_sweep
from boardlab.experiments.run import stopping
from boardlab.experiments.spec import arm_chunk

runner = CliRunner()


def test_tournament_matrix_rotates_seats_and_is_complementary() -> None:
    result = play_tournament(plan_tournament("pantolino", ["keep-jokers", "reroll-jokers"], None, 2_000, seed=1))
    rates = result.rates()
    assert rates.loc["keep-jokers", "reroll-jokers"] > 0.8
    # 2 players, no shared wins in Pantolino's 45 boots: the two cells are complementary
    assert rates.loc["keep-jokers", "reroll-jokers"] + rates.loc["reroll-jokers", "keep-jokers"] == pytest.approx(1)
    assert int(result.games.loc["keep-jokers", "reroll-jokers"]) == 4_000


def test_tournament_command_writes_matrix_and_heatmap(tmp_path: Path) -> None:
    out = runner.invoke(
        app,
        [
            "tournament",
            "pantolino",
            "--policies",
            "keep-jokers,greedy,random",
            "--players",
            "3",
            "-n",
            "300",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert out.exit_code == 0, out.output
    frame = pd.read_csv(tmp_path / "tournament.csv")
    assert len(frame) == 6 and (frame["games"] == 900).all()
    assert (tmp_path / "tournament.png").stat().st_size > 1000
    record = json.loads((tmp_path / "tournament.json").read_text())
    assert record["policies"] == ["keep-jokers", "greedy", "random"] and record["players"] == 3
    assert (record["games_per_seating"], record["seed"], record["variant"]) == (300, 0, None)
    assert record["params"]["dice"] == 4 and record["game_version"] and "numpy" in record["versions"]


def test_sweep_command_over_joker_faces(tmp_path: Path) -> None:
    out = runner.invoke(
        app,
        [
            "sweep",
            "pantolino",
            "--set",
            "joker_faces=0,1,2",
            "-p",
            "keep-jokers",
            "-n",
            "500",
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert out.exit_code == 0, out.output
    frame = pd.read_csv(tmp_path / "sweep.csv")
    assert frame["value"].tolist() == [0, 0, 1, 1, 2, 2]
    turns = frame.groupby("value")["mean_turns"].first()
    assert turns[0] > turns[1] > turns[2]  # jokers make tokens easier to claim
    assert (tmp_path / "sweep.png").exists()


def test_a_sweep_of_two_knobs_plays_every_combination_with_its_game_metrics(tmp_path: Path) -> None:
    args = ["sweep", "pantolino", "--set", "joker_faces=1,2", "--set", "rolls=2,3", "-p", "keep-jokers", "-n", "400"]
    out = runner.invoke(app, [*args, "--jobs", "1", "--quiet", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    frame = pd.read_csv(tmp_path / "sweep.csv")
    points = frame.drop_duplicates("value")
    assert points[["joker_faces", "rolls"]].values.tolist() == [[1, 2], [1, 3], [2, 2], [2, 3]]
    record = json.loads((tmp_path / "sweep.json").read_text())
    assert record["swept"] == ["joker_faces", "rolls"] and record["points"][1] == {"joker_faces": "1", "rolls": "3"}
    assert (record["seats"], record["games_per_point"], record["fixed"]) == (["keep-jokers"] * 2, 400, {})
    assert {"first_seat_advantage", "first_seat_advantage_lo", "drama", "lead_changes_hi"} <= set(frame.columns)
    assert (points["first_seat_advantage_lo"] <= points["first_seat_advantage"]).all()


def test_a_sweep_plays_a_variant_at_every_value(tmp_path: Path) -> None:
    args = ["sweep", "pantolino", "--set", "rolls=2,3", "-p", "greedy", "-n", "300", "--jobs", "1", "--quiet"]
    plain = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    boots = runner.invoke(app, [*args, "--variant", "escaping-boots", "--out", str(tmp_path / "b")])
    assert plain.exit_code == 0 and boots.exit_code == 0, boots.output
    turns = [pd.read_csv(tmp_path / f / "sweep.csv").groupby("value")["mean_turns"].first() for f in "ab"]
    assert (turns[0] != turns[1]).all()  # steals change every game's length
    variant = plan_sweep("pantolino", ("greedy", "greedy"), (("rolls", "2,3"),), 300, 0, "escaping-boots")
    assert all(arm.spec.params.escaping_boots for arm in variant.arms)
    clash = runner.invoke(
        app,
        [
            "sweep",
            "pantolino",
            "--policy",
            "keep-jokers",
            "--set",
            "escaping_boots=false,true",
            "--variant",
            "escaping-boots",
        ],
    )
    assert clash.exit_code == 2 and "conflicts with variant 'escaping-boots'" in clash.stderr


@pytest.mark.parametrize(
    ("game", "n_games", "chunk"),
    [("pantolino", 20_000, 10_000), ("panots", 20_000, 1_000), ("pantolino", 3_000, 3_000), ("panots", 400, 400)],
)
def test_arms_are_chunked_by_the_games_size_at_most_10_000(game: str, n_games: int, chunk: int) -> None:
    assert arm_chunk(get_game(game).module.INFO, n_games) == chunk


def test_sweep_splits_tuple_knobs_on_semicolons() -> None:
    knob, values, fixed = split_sweep("pantolino", (("token_values", "2,3,4;2,3"), ("rolls", "2")))
    assert (knob, values, fixed) == ("token_values", ["2,3,4", "2,3"], (("rolls", "2"),))


def _run_study(tmp_path: Path, text: str, quiet: bool = True) -> Result:
    """``simulate experiment`` on a study file of ``text`` (one process), its tables in ``tmp_path / "o"``."""
    study = tmp_path / "s.toml"
    study.write_text(text)
    flags = ["--quiet"] if quiet else []
    return runner.invoke(app, ["experiment", str(study), "--jobs", "1", *flags, "--out", str(tmp_path / "o")])


def test_experiment_command_runs_a_shipped_study(tmp_path: Path) -> None:
    out = _run_study(
        tmp_path,
        '[study]\ngame = "pantolino"\nn = 2000\nchunk_size = 500\nmetrics = ["steals_made"]\n'
        '[[arm]]\nseats = ["keep-jokers", "keep-jokers"]\n'
        '[[arm]]\nseats = ["keep-jokers", "keep-jokers"]\nvariant = "escaping-boots"\n',
    )
    assert out.exit_code == 0, out.output
    arms = pd.read_csv(tmp_path / "o" / "arms.csv")
    assert len(arms) == 4 and arms["steals_made"].iloc[2] > 0
    comparisons = pd.read_csv(tmp_path / "o" / "comparisons.csv")
    assert set(comparisons["measure"]) == {"seat-0 win rate", "mean turns"}
    # 4 chunks an arm are too few to pair: the games are compared instead, with a real interval
    assert (comparisons["unit"] == "games").all() and (comparisons["units"] == 2000).all()
    record = json.loads((tmp_path / "o" / "study.json").read_text())
    assert (record["study"], record["file"], record["seed"], record["chunk_size"]) == (
        "s",
        str(tmp_path / "s.toml"),
        0,
        500,
    )
    assert [(a["variant"], a["games"]) for a in record["arms"]] == [(None, 2000), ("escaping-boots", 2000)]
    assert record["precision"] is None and record["precision_reached"] is None and "numpy" in record["versions"]
    assert "variant" not in record  # each arm has its own
    assert (comparisons["low"] < comparisons["difference"]).all()
    assert (comparisons["difference"] < comparisons["high"]).all()


def test_a_study_with_enough_chunks_pairs_them(tmp_path: Path) -> None:
    out = _run_study(
        tmp_path,
        '[study]\ngame = "pantolino"\nn = 2000\nchunk_size = 100\n'
        '[[arm]]\nseats = ["keep-jokers", "keep-jokers"]\n[[arm]]\nseats = ["reroll-jokers", "keep-jokers"]\n',
        quiet=False,
    )
    assert out.exit_code == 0, out.output
    comparisons = pd.read_csv(tmp_path / "o" / "comparisons.csv")
    assert (comparisons["unit"] == "chunks").all() and (comparisons["units"] == 20).all()
    assert (comparisons["high"] - comparisons["low"] > 0).all() and "unit: chunks when paired" in out.output


def test_an_arm_short_of_the_studys_precision_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stopping, "MAX_CHUNKS", 2)
    out = _run_study(
        tmp_path,
        '[study]\ngame = "pantolino"\nn = 500\nchunk_size = 500\nprecision = 0.01\n'
        '[[arm]]\nlabel = "mirror"\nseats = ["keep-jokers", "keep-jokers"]\n',
    )
    assert out.exit_code == 0, out.output
    assert "warning: arm 'mirror': precision 0.01 not reached: stopped at 1,000 games (2 chunks" in out.stderr
    record = json.loads((tmp_path / "o" / "study.json").read_text())
    assert record["precision"] == 0.01 and record["precision_reached"] is False
    assert pd.read_csv(tmp_path / "o" / "arms.csv")["games"].eq(1_000).all()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tournament", "pantolino", "--policies", "random,random"], "at least two different policies"),
        (["tournament", "pantolino", "--policies", "random,greedyy"], "did you mean 'greedy'"),
        (
            ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "dice=3"],
            "a sweep needs at least one --set knob=v1,v2",
        ),
        (["sweep", "pantolino", "--policy", "keep-jokers", "--set", "dices=3,4"], "unknown knob 'dices'"),
        (["sweep", "pantolino", "--policy", "keep-jokers", "--set", "dice=4,9", "-n", "10"], "dice=9 is out of range"),
        (["experiment", "no-such-study"], "no such file or shipped study"),
    ],
)
def test_bad_comparisons_are_one_line_errors(args: list[str], message: str) -> None:
    out = runner.invoke(app, [*args, "--quiet"])
    assert out.exit_code == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_experiment_tables_show_counts_metrics_as_shares(tmp_path: Path) -> None:
    out = _run_study(
        tmp_path,
        '[study]\ngame = "pantolino"\nn = 1000\nmetrics = ["turn_best_count", "comeback"]\n'
        '[[arm]]\npolicy = "keep-jokers"\n',
    )
    assert out.exit_code == 0, out.output
    arms = pd.read_csv(tmp_path / "o" / "arms.csv")
    shares = [c for c in arms.columns if c.startswith("turn_best_count: ")]
    assert len(shares) == 5 and arms[shares].sum(axis=1).round(9).eq(1).all()
    assert {"comeback", "comeback_lo", "comeback_hi"} <= set(arms.columns)


def _fail_figures(monkeypatch) -> None:
    """Every figure written from now on fails half-way, as on a full disk."""
    from matplotlib.figure import Figure

    def full_disk(self, path, *args, **kwargs):
        Path(path).write_bytes(b"\x89PNG trunc")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)


def test_a_failed_figure_leaves_the_previous_tournament_and_sweep_whole(tmp_path: Path, monkeypatch) -> None:
    from boardlab.experiments.compare import sweep

    played = play_tournament(plan_tournament("pantolino", ["greedy", "random"], None, 200, seed=1))
    swept = sweep("pantolino", ("greedy", "greedy"), (("rolls", "2,3"),), 200, seed=1)
    before = {}
    tables = (played, ("tournament.csv", "tournament.png", "tournament.json"))
    for result, names in (tables, (swept, ("sweep.csv", "sweep.png", "sweep.json"))):
        result.save(tmp_path)
        before |= {name: (tmp_path / name).read_bytes() for name in names}
    changed = play_tournament(plan_tournament("pantolino", ["greedy", "random"], None, 300, seed=2))
    changed_sweep = sweep("pantolino", ("greedy", "greedy"), (("rolls", "2,3"),), 300, seed=2)
    _fail_figures(monkeypatch)
    for result in (changed, changed_sweep):
        with pytest.raises(OSError, match="No space"):
            result.save(tmp_path)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before)
