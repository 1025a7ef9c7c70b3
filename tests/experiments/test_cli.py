"""`simulate`: commands, JSON output, run folders and one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.engines import available_games
from boardlab.experiments.cli import app
from boardlab.experiments.clikit import parse_count
from boardlab.experiments.run import stopping

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


@pytest.mark.parametrize(("text", "value"), [("1e6", 10**6), ("1_000_000", 10**6), ("1000000", 10**6), ("2E3", 2000)])
def test_counts_accept_three_spellings(text: str, value: int) -> None:
    assert parse_count(text) == value


def test_json_run_reports_seats_metrics_and_params(tmp_path: Path) -> None:
    result = invoke(
        "pantolino",
        "--seats",
        "turn-optimal,random",
        "-n",
        "3000",
        "--seed",
        "4",
        "--json",
        "--jobs",
        "1",
        "--out",
        str(tmp_path / "run"),
        "--set",
        "rolls=2",
        "--chunk-size",
        "1000",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == "pantolino" and data["n_games"] == 3000 and data["seed"] == 4
    assert data["params"]["rolls"] == 2 and data["params"]["token_values"] == [2, 3, 4]
    assert [s["policy"] for s in data["seats"]] == ["turn-optimal", "random"]
    first = data["seats"][0]
    assert first["win_rate_ci"][0] <= first["win_rate"] <= first["win_rate_ci"][1]
    assert first["mean_score_ci"][0] <= first["mean_score"] <= first["mean_score_ci"][1]
    assert len(data["metrics"]["turn_best_count"]) == 5 and data["metrics"]["mean_turns"] > 0
    assert data["elapsed_s"] > 0 and data["versions"]["boardlab"] and data["reproduce"]
    folder = tmp_path / "run"
    for name in (
        "summary.parquet",
        "summary.csv",
        "metrics.json",
        "run.json",
        "score_distribution.png",
        "game_length.png",
    ):
        assert (folder / name).exists(), name
    record = json.loads((folder / "run.json").read_text())
    assert record["seats"] == ["turn-optimal", "random"] and record["chunk_size"] == 1000
    same = set(record) - {"command", "chunks_resumed", "n_games", "seats", "elapsed_s"}  # one record: --json holds it
    assert {k: data[k] for k in same} == {k: record[k] for k in same}


def test_jobs_one_and_two_give_identical_json(tmp_path: Path) -> None:
    outputs = []
    for jobs in ("1", "2"):
        result = invoke(
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "4000",
            "--chunk-size",
            "1000",
            "--json",
            "--jobs",
            jobs,
            "--out",
            str(tmp_path / jobs),
        )
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        for key in ("elapsed_s", "run_dir"):
            data.pop(key)
        outputs.append(data)
    assert outputs[0] == outputs[1]


def test_table_output_and_save_games(tmp_path: Path) -> None:
    result = invoke(
        "pantolino",
        "-p",
        "greedy",
        "--players",
        "3",
        "-n",
        "1_500",
        "--variant",
        "escaping-boots",
        "--save-games",
        "--jobs",
        "1",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    assert "win rate" in result.stdout and "greedy" in result.stdout and "tokens stolen" in result.stdout
    import pandas as pd

    games = pd.read_parquet(tmp_path / "games.parquet")
    assert len(games) == 1500 and {"score_0", "score_2", "winner", "turns"} <= set(games.columns)


def test_list_describes_games_and_a_game() -> None:
    assert "pantolino" in invoke("list").stdout
    out = invoke("list", "pantolino").stdout
    for word in ("keep-jokers", "joker_faces", "escaping-boots-any", "remove-smallest", "chunks of 50,000 games"):
        assert word in out


def test_a_run_is_chunked_by_the_games_own_size(tmp_path: Path) -> None:
    result = invoke("panots", "--policy", "greedy", "-n", "2500", "--jobs", "1", "--quiet", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "players: greedy in every seat" in result.stdout and "game metrics" in result.stdout  # --quiet: no bar only
    assert json.loads((tmp_path / "run.json").read_text())["chunk_size"] == 1000
    assert len(list((tmp_path / "chunks").glob("chunk-*.ckpt"))) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pantolino", "-p", "keep-joker"], "unknown policy 'keep-joker'; did you mean 'keep-jokers'?"),
        (["pantolino", "--policy", "keep-jokers", "--set", "dices=3"], "unknown knob 'dices'; did you mean 'dice'?"),
        (["pantolino", "--policy", "keep-jokers", "--variant", "escaping"], "unknown variant 'escaping'"),
        (["pantolino", "--policy", "keep-jokers", "-n", "abc"], "-n 'abc' is not a positive whole number"),
        (["pantolino", "--policy", "keep-jokers", "-n", "0"], "-n '0' is not a positive whole number"),
        (["pantolino", "--policy", "keep-jokers", "-n", "-5"], "-n '-5' is not a positive whole number"),
        (["pantolino", "--policy", "keep-jokers", "-n", "2.5"], "-n '2.5' is not a positive whole number"),
        (
            ["pantolino", "--policy", "keep-jokers", "--players", "9"],
            "players=9 is out of range for pantolino; allowed 2..8",
        ),
        (["pantolino", "--seats", "random,random,random", "--players", "2"], "--seats names 3 policies"),
        (["pantolino", "--policy", "keep-jokers", "--set", "dice=9"], "dice=9 is out of range; allowed 1..6"),
        (["pantolino", "--policy", "keep-jokers", "--set", "dice=four"], "dice='four' is not a whole number"),
        (["pantolino", "--policy", "keep-jokers", "--set", "dice"], "is not of the form knob=value"),
        (["pantolino", "--policy", "keep-jokers", "--jobs", "0"], "--jobs 0 must be at least 1"),
        (["pantolino", "--policy", "keep-jokers", "--chunk-size", "0"], "--chunk-size 0 must be at least 1"),
        (["pantolino", "-p", "win-optimal", "--players", "3"], "players=3 is not supported by the exact solution"),
        (["pantolino", "-p", "win-optimal", "--variant", "escaping-boots"], "escaping_boots=True is not supported"),
        (
            ["panots", "--policy", "greedy", "--players", "1", "--set", "faces=majority,space,l,surrounded"],
            "error: faces='majority' is not",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = invoke(*args, "--out", str(tmp_path / "x"))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not (tmp_path / "x").exists()  # refused before the run folder is made


@pytest.mark.parametrize(
    "args",
    [
        ["pantolino", "--policy", "keep-jokers", "-n", "2000"],
        ["tournament", "pantolino", "--policies", "greedy,random", "-n", "2000"],
        ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,3", "-n", "2000"],
        ["experiment", "pantolino-seat-advantage"],
    ],
)
def test_ctrl_c_says_how_to_resume(args: list[str], tmp_path: Path, monkeypatch) -> None:
    def stopped(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("boardlab.experiments.run.chunk.play_chunk", stopped)
    result = invoke(*args, "--jobs", "1", "--quiet", "--out", str(tmp_path))
    hint = "interrupted before any chunk of games was finished: nothing is saved"  # every chunk was stopped
    assert result.exit_code == 130 and result.stderr.strip() == hint


def test_a_stopped_tournament_resumes_with_the_chunks_it_finished(tmp_path: Path, monkeypatch) -> None:
    from boardlab.experiments.run import chunk

    play, played = chunk.play_chunk, []

    def counted(*args, **kwargs):
        if len(played) == limit:
            raise KeyboardInterrupt
        played.append(args[1:3])
        return play(*args, **kwargs)

    monkeypatch.setattr("boardlab.experiments.run.chunk.play_chunk", counted)
    args = ["tournament", "pantolino", "--policies", "greedy,random,keep-jokers", "-n", "2000", "--jobs", "1", "-q"]
    limit = 2  # of the 6 chunks: 3 x 2 seatings of two players, each played once, one chunk each
    assert invoke(*args, "--out", str(tmp_path / "t")).exit_code == 130
    limit, played = 6, []
    assert invoke(*args, "--out", str(tmp_path / "t")).exit_code == 0 and len(played) == 4
    played = []
    assert invoke(*args, "--out", str(tmp_path / "t"), "--fresh").exit_code == 0 and len(played) == 6
    played = []
    assert invoke(*args, "--out", str(tmp_path / "whole")).exit_code == 0 and len(played) == 6
    matrix = sorted(p.name for p in (tmp_path / "whole").glob("*.csv"))
    assert matrix and all((tmp_path / "t" / m).read_bytes() == (tmp_path / "whole" / m).read_bytes() for m in matrix)


def test_unwritable_output_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = invoke("pantolino", "--policy", "keep-jokers", "-n", "10", "--out", str(blocker / "run"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_installed_simulate_runs_in_a_subprocess(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("simulate")
    proc = subprocess.run(
        [
            str(exe),
            "pantolino",
            "--policy",
            "keep-jokers",
            "-n",
            "2000",
            "--json",
            "--jobs",
            "1",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["n_games"] == 2000
    unknown = subprocess.run([str(exe), "pantolin"], capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "did you mean 'pantolino'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pantolino", "--policy", "keep-jokers", "--bogus"], "error: No such option: --bogus"),
        (["pantolino", "--policy", "keep-jokers", "--jobs", "two"], "error: Invalid value for '--jobs'"),
        (["report"], "error: Missing argument 'target'."),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    exe = Path(sys.executable).with_name("simulate")
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith(message), proc.stderr


POOL_SEMAPHORES_AFTER_MAIN = """
import json, sys
from joblib.externals.loky.backend import resource_tracker

held = set()
register, unregister = resource_tracker.register, resource_tracker.unregister
resource_tracker.register = lambda name, kind: (held.add(name), register(name, kind))[1]
resource_tracker.unregister = lambda name, kind: (held.discard(name), unregister(name, kind))[1]
from boardlab.experiments.cli import main

report, sys.argv = sys.argv[1], ["simulate", *sys.argv[2:]]
try:
    main()
except SystemExit as stop:
    code = stop.code
with open(report, "w") as f:
    json.dump({"code": code, "held": sorted(held)}, f)
"""


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["pantolino", "--policy", "keep-jokers", "--bogus", "--jobs", "2"], 2),
        (["pantolino", "--policy", "keep-jokers", "-n", "4000", "--chunk-size", "1000", "--jobs", "2", "--quiet"], 0),
        (["tournament", "pantolino", "--policies", "greedy,random", "-n", "2000", "--jobs", "2", "--quiet"], 0),
    ],
)
def test_the_worker_pool_is_gone_before_the_process_exits(tmp_path: Path, args: list[str], code: int) -> None:
    """Semaphores loky releases during interpreter teardown reach its tracker late: it then prints warnings."""
    report = tmp_path / "report.json"
    command = [sys.executable, "-c", POOL_SEMAPHORES_AFTER_MAIN, str(report), *args, "--out", str(tmp_path / "run")]
    subprocess.run(command, capture_output=True, timeout=120, check=False)
    assert json.loads(report.read_text()) == {"code": code, "held": []}


def test_auto_n_adds_chunks_until_the_precision_is_met(tmp_path: Path) -> None:
    args = [
        "pantolino",
        "--policy",
        "keep-jokers",
        "-n",
        "auto",
        "--precision",
        "0.01",
        "--chunk-size",
        "2000",
        "--json",
        "--jobs",
        "1",
    ]
    first = invoke(*args, "--out", str(tmp_path / "a"))
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    half = max((s["win_rate_ci"][1] - s["win_rate_ci"][0]) / 2 for s in data["seats"])
    assert half <= 0.01 and data["n_games"] % 2000 == 0 and data["n_games"] > 8000
    again = json.loads(invoke(*args, "--out", str(tmp_path / "b")).stdout)
    assert again["n_games"] == data["n_games"] and again["seats"] == data["seats"]
    record = json.loads((tmp_path / "a" / "run.json").read_text())
    assert record["precision"] == 0.01 and record["precision_reached"] is True
    missing = invoke("pantolino", "--policy", "keep-jokers", "-n", "auto", "--out", str(tmp_path / "c"))
    assert missing.exit_code == 2 and "-n auto needs --precision" in missing.stderr


def test_a_precision_cut_short_by_the_cap_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stopping, "MAX_CHUNKS", 4)
    args = [
        "pantolino",
        "--policy",
        "keep-jokers",
        "-n",
        "auto",
        "--precision",
        "0.001",
        "--chunk-size",
        "500",
        "--jobs",
        "1",
        "--json",
    ]
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["n_games"] == 2_000 and data["precision"] == 0.001 and data["precision_reached"] is False
    assert "warning: precision 0.001 not reached: stopped at 2,000 games (4 chunks of 500 games" in result.stderr
    assert json.loads((tmp_path / "run.json").read_text())["precision_reached"] is False


def test_cooperative_games_print_the_tables_win_rate(tmp_path: Path) -> None:
    result = invoke("paleolino", "-p", "greedy", "--players", "2", "-n", "1000", "--jobs", "1", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "the table wins" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["pantolino", "--policy", "keep-jokers", "-n", "99999999999999999999"],
            "-n 99999999999999999999 is more than the maximum of 1e+12",
        ),
        (["pantolino", "--policy", "keep-jokers", "-n", "1e18"], "-n 1e18 is more than the maximum"),
        (["pantolino", "--policy", "keep-jokers", "-n", "1e999999"], "-n '1e999999' is not a positive whole number"),
        (["pantolino", "--policy", "keep-jokers", "-n", "1e12", "--chunk-size", "1000"], "makes 1,000,000,000 chunks"),
        (["pantolino", "--policy", "keep-jokers", "--jobs", "10000"], "jobs=10000 is out of range"),
        (
            ["pantolino", "--policy", "keep-jokers", "--jobs", "10000", "--backend", "dask"],
            "jobs=10000 is out of range",
        ),
        (["pantolino", "--policy", "keep-jokers", "--players", "-5"], "players=-5 is out of range for pantolino"),
        (
            ["pantolino", "--policy", "keep-jokers", "--players", "99999999999999999999"],
            "players=99999999999999999999 is out of range",
        ),
        (["pantolino", "--policy", "keep-jokers", "--players", "1000000000"], "players=1000000000 is out of range"),
        (
            ["pantolino", "--policy", "keep-jokers", "--chunk-size", "99999999999"],
            "chunk_size=99999999999 is out of range",
        ),
        (["pantolino", "--policy", "keep-jokers", "--backend", "spark"], "--backend spark is not allowed"),
        (
            ["paleolino", "--policy", "random", "--set", "cave_weights=1e308,1e308"],
            "cave_weights=(1e+308, 1e+308) is not allowed",
        ),
        (
            ["pantolino", "--policy", "keep-jokers", "--variant", "escaping-boots", "--set", "escaping_boots=false"],
            "conflicts with variant",
        ),
        (["tournament", "pantolino", "--policies", "greedy,random", "-n", "1e18"], "is more than the maximum"),
        (
            ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=1,2", "-n", "1e12"],
            "chunks; allowed at most",
        ),
        (
            ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=1,2", "--jobs", "0"],
            "--jobs 0 must be at least 1",
        ),
        (["report", "pantolino", "-n", "99999999999999999999"], "is more than the maximum"),
    ],
)
def test_unbounded_input_is_refused_before_any_work(args: list[str], message: str, tmp_path: Path) -> None:
    import time

    start = time.perf_counter()
    result = invoke(*args, "--out", str(tmp_path / "x"))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("command", [["pantolino", "-p", "keep-jokers", "-n", "100"], ["report", "pantolino"]])
def test_an_empty_out_is_refused(command: list[str], tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = subprocess.run(
        [str(Path(sys.executable).with_name("simulate")), *command, "--out", ""],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
    assert "'--out': must not be empty" in result.stderr and list(tmp_path.iterdir()) == []


def test_solo_with_a_face_it_cannot_use_is_one_line_in_every_command(tmp_path: Path) -> None:
    study = tmp_path / "solo.toml"
    study.write_text(
        '[study]\ngame = "panots"\nn = 10\n\n[[arm]]\npolicy = "greedy"\nplayers = 1\n'
        'set = { faces = "line,surrounded,adjacent,majority" }\n'
    )
    result = invoke("experiment", str(study), "--jobs", "1", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: faces='majority' is not allowed in solo; the solo face of card 4 is space"
    ]


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["tournament", "pantolino", "--policies", "greedy,random", "-n", "300"], "pairs"),
        (["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,3", "-n", "300"], "rows"),
        (["ladder", "pantolino", "-n", "200"], "ratings"),
        (["ladder", "pantolino", "-n", "200", "--variant", "escaping-boots", "--set", "rolls=2"], "ratings"),
    ],
)
def test_every_command_that_plays_prints_one_json_object(
    tmp_path: Path, args: list[str], key: str, monkeypatch
) -> None:
    from boardlab.experiments import ladder

    monkeypatch.setattr(ladder, "ladder_policies", lambda *_: (["random", "keep-jokers"], []))  # two rungs: cheap
    result = invoke(*args, "--json", "--jobs", "1", "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert key in json.loads(result.stdout)


def test_list_prints_one_json_object() -> None:
    games = json.loads(invoke("list", "--json").stdout)["games"]
    assert [g["game"] for g in games] == available_games()
    assert {k["knob"] for k in json.loads(invoke("list", "pantolino", "--json").stdout)["knobs"]} >= {"dice", "rolls"}


def test_shell_completion_is_offered_as_the_readme_says() -> None:
    simulate = Path(sys.executable).with_name("simulate")
    shown = subprocess.run(
        [str(simulate), "--show-completion", "bash"], capture_output=True, text=True, timeout=120, env={"SHELL": "bash"}
    )
    assert shown.returncode == 0 and "_simulate_completion()" in shown.stdout
    assert "--install-completion" in (Path(__file__).parents[2] / "README.md").read_text()


def test_help_texts_carry_no_source_markup() -> None:
    """A designer reads ``--help``: no reStructuredText (double backquotes, :func: roles) from the docstrings."""
    from boardlab.experiments.cli import COMMANDS

    for name in [*COMMANDS, *available_games()]:
        shown = invoke(name, "--help").output
        assert "``" not in shown and ":func:" not in shown and ":class:" not in shown, name


@pytest.mark.parametrize(
    "command",
    [
        ["pantolino", "-n", "100", "--out"],
        ["ladder", "pantolino", "--out"],
        ["tournament", "pantolino", "--policies", "greedy,random", "--out"],
        ["restrict", "pantolino", "--out"],
        ["explain", "pantolino", "--game", "0", "--top"],  # it writes no file: its last option is --top 1
        ["tune", "pantolino", "--vary", "rolls=2,3", "--target", "duration=10", "--out"],
        ["play", "pantolino", "--seats", "human,greedy", "--save"],
    ],
    ids=lambda c: c[0],
)
def test_a_negative_seed_is_one_line_and_exit_2_in_every_command(command: list[str], tmp_path: Path) -> None:
    last = "1" if command[0] == "explain" else str(tmp_path / "o")
    result = invoke(*command, last, "--seed", "-1")
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == "error: --seed -1 must be zero or positive"
    assert not (tmp_path / "o").exists()
