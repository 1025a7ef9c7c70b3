"""Red team: what a careless user or script gives every command ends in one line and exit 2, before any work.

Each case runs the real command line (in this process, with a 90-second alarm as the harness's bound: a case
that starts playing instead of refusing fails, it is not a speed test) and requires exit code 2, at most 3
lines on stderr, no traceback, and no output folder made. A few run as real processes, to see the whole stderr.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.experiments import validate
from boardlab.experiments.cli import app
from boardlab.experiments.compare import plan_sweep, plan_tournament
from boardlab.experiments.ladder import plan_ladder
from boardlab.experiments.restrict import plan_restrict
from boardlab.experiments.run import RunSpec, local_runner
from boardlab.experiments.study import run_arms
from boardlab.experiments.tune import Target, TuneSpec, parse_vary

BOUND_S = 90  # a hang guard, not a speed test: loose enough for a cold numba compile on a loaded machine
SIMULATE = str(Path(sys.executable).with_name("simulate"))
STUDY = "[study]\ngame = 'pantolino'\nn = 200\n"
ARM = "[[arm]]\nseats = ['greedy', 'random']\n"
TUNE = [
    "tune",
    "pantolino",
    "--policy",
    "keep-jokers",
    "--vary",
    "rolls=2..4",
    "--target",
    "duration=15",
    "-n",
    "200",
    "--chunk-size",
    "100",
]


def files(root: Path) -> dict[str, Path]:
    """The bad files the cases name."""
    made = {
        "deep": ("[study]\ngame = 'pantolino'\nx = " + "[" * 3000 + "]" * 3000 + "\n").encode(),
        "deep_ok_parse": (STUDY + "x = " + "[" * 40 + "]" * 40 + "\n" + ARM).encode(),
        "big": b"# " + b"x" * (validate.MAX_FILE_BYTES + 10) + b"\n",
        "latin1": "[study]\ngame = 'pantolino'\ntitle = 'caf\u00e9'\n".encode("latin-1"),
        "arm_int": b"[study]\ngame = 'pantolino'\narm = [1, 2]\n",
        "arms_20000": (STUDY + ARM * 20_000).encode(),
        "arms_x_games": ("[study]\ngame = 'pantolino'\nn = 1_000_000_000_000\n" + ARM * 50).encode(),
        "name_abs": (STUDY + "name = '/tmp/evil'\n" + ARM).encode(),
        "name_up": (STUDY + "name = '../../evil'\n" + ARM).encode(),
        "title_table": (STUDY + "title = { a = 1 }\n" + ARM).encode(),
        "label_list": (STUDY + ARM + "label = [1]\n").encode(),
        "chunk_bool": (STUDY + "chunk_size = true\n" + ARM).encode(),
        "seed_float": (STUDY + "seed = 1.5\n" + ARM).encode(),
        "v_deep": ("[pantolino.a]\nrolls = " + "[" * 3000 + "]" * 3000 + "\n").encode(),
        "v_slash": b"[pantolino.'a/b']\nrolls = 2\n",
        "v_dots": b"[pantolino.'..']\nrolls = 2\n",
        "v_shadow": b"[pantolino.no-jokers]\nrolls = 2\n",
        "v_table": b"[pantolino.a]\nrolls = { x = 1 }\n",
        "game_deep": b"[" * 100_000 + b"]" * 100_000,
        "game_garbage": b"{not json",
        "corrupt_db": b"this is not a database" * 50,
    }
    out = {}
    for name, data in made.items():
        out[name] = root / f"{name}.{'json' if name.startswith('game') else 'db' if 'db' in name else 'toml'}"
        out[name].write_bytes(data)
    (root / "folder").mkdir()
    out["folder"] = root / "folder"
    (root / "dbfolder" / "study.db").mkdir(parents=True)
    out["dbfolder"] = root / "dbfolder"
    out["a_file"] = root / "a_file"
    out["a_file"].write_text("x")
    return out


Case = Callable[[dict[str, Path]], list[str]]
CASES: dict[str, tuple[Case, str]] = {
    # files: devices, folders, size, depth, encoding, shape
    "study /dev/zero": (lambda f: ["experiment", "/dev/zero"], "not a regular file"),
    "study is a folder": (lambda f: ["experiment", str(f["folder"])], "a folder, not a study file"),
    "study nested thousands deep": (lambda f: ["experiment", str(f["deep"])], "nests more than 32 levels"),
    "study nested past the cap": (lambda f: ["experiment", str(f["deep_ok_parse"])], "nests more than 32 levels"),
    "study over 1 MiB": (lambda f: ["experiment", str(f["big"])], "larger than the 1,048,576 bytes"),
    "study in latin-1": (lambda f: ["experiment", str(f["latin1"])], "not UTF-8 text (byte 0xe9"),
    "study arm not a table": (lambda f: ["experiment", str(f["arm_int"])], "study.arm"),
    "study title a table": (lambda f: ["experiment", str(f["title_table"])], "'study.title' must be text"),
    "study label a list": (lambda f: ["experiment", str(f["label_list"])], "'arm[0].label' must be text"),
    "study chunk_size true": (lambda f: ["experiment", str(f["chunk_bool"])], "study.chunk_size"),
    "study seed 1.5": (lambda f: ["experiment", str(f["seed_float"])], "study.seed"),
    "variants /dev/zero": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", "/dev/zero"],
        "not a regular file",
    ),
    "variants a folder": (lambda f: ["list", "pantolino", "--variants-file", str(f["folder"])], "a folder"),
    "variants deep": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", str(f["v_deep"])],
        "nests more than 32",
    ),
    "variants in latin-1": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", str(f["latin1"])],
        "not UTF-8",
    ),
    "variants knob a table": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", str(f["v_table"])],
        "must be a number",
    ),
    "tournament variants /dev/zero": (
        lambda f: ["tournament", "pantolino", "--policies", "greedy,random", "--variants-file", "/dev/zero"],
        "not a regular file",
    ),
    "saved game /dev/zero": (lambda f: ["review", "/dev/zero"], "not a regular file"),
    "saved game a folder": (lambda f: ["play", "--resume", str(f["folder"])], "a folder, not a saved game"),
    "saved game deep": (lambda f: ["review", str(f["game_deep"])], "nests more than 32"),
    "saved game garbage": (lambda f: ["review", str(f["game_garbage"])], "not valid JSON"),
    # names that would become paths or shadow built-ins
    "study name absolute": (lambda f: ["experiment", str(f["name_abs"])], "would be a path"),
    "study name ..": (lambda f: ["experiment", str(f["name_up"])], "would be a path"),
    "variant name a/b": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", str(f["v_slash"])],
        "would be a path",
    ),
    "variant name ..": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", str(f["v_dots"])],
        "would be a path",
    ),
    "variant shadows a built-in": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--variants-file", str(f["v_shadow"])],
        "shadows",
    ),
    "tune --name a/b": (lambda f: [*TUNE, "--name", "a/b"], "would be a path"),
    "tune --name a built-in": (lambda f: [*TUNE, "--name", "no-jokers"], "shadows pantolino's own"),
    "tune --name empty": (lambda f: [*TUNE, "--name", ""], "non-empty name"),
    # sizes, products included, before anything is built
    "study of 20,000 arms": (lambda f: ["experiment", str(f["arms_20000"])], "allowed at most 10,000"),
    "study arms x games": (lambda f: ["experiment", str(f["arms_x_games"])], "games in all"),
    "tournament of 2,000 policies": (
        lambda f: ["tournament", "pantolino", "--policies", ",".join(f"expert:{b}" for b in range(1, 2001))],
        "arms; allowed at most 10,000",
    ),
    "tournament of 8 players x 1e12": (
        lambda f: ["tournament", "pantolino", "--policies", "greedy,random", "--players", "8", "-n", "1e12"],
        "chunks",
    ),
    "ladder of 2,000 budgets": (
        lambda f: ["ladder", "pantolino", "--budgets", ",".join(map(str, range(1, 2001)))],
        "arms; allowed at most 10,000",
    ),
    "sweep grid 150 x 150": (
        lambda f: [
            "sweep",
            "pantolino",
            "--set",
            "rolls=" + ",".join(map(str, range(1, 151))),
            "--set",
            "colours=" + ",".join(map(str, range(1, 151))),
        ],
        "22,500 points",
    ),
    "tune -n 1e12": (lambda f: [*TUNE[:-4], "-n", "1e12"], "chunks a trial; allowed at most 100,000"),
    "run of 1e9 one-game chunks": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "-n", "1e9", "--chunk-size", "1"],
        "chunks",
    ),
    "run --seats of 5,000": (lambda f: ["pantolino", "--seats", ",".join(["greedy"] * 5000)], "players=5000"),
    # the same thing twice, or contradicting itself
    "tournament names a policy twice": (
        lambda f: ["tournament", "pantolino", "--policies", "greedy,greedy,random"],
        "names greedy twice",
    ),
    "sweep sets a knob twice": (
        lambda f: ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,3", "--set", "rolls=3,4"],
        "--set rolls is given twice",
    ),
    "tune varies a knob twice": (lambda f: [*TUNE, "--vary", "rolls=3..5"], "given twice"),
    "sweep gives a value twice": (
        lambda f: ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,02,3"],
        "gives a value twice",
    ),
    # an empty item in a list would silently drop a seat, a policy or a value
    "run --seats with an empty item": (
        lambda f: ["pantolino", "--seats", "greedy,,random", "-n", "100"],
        "'greedy,,random' has an empty item",
    ),
    "tournament --policies ending in a comma": (
        lambda f: ["tournament", "pantolino", "--policies", "greedy,random,"],
        "has an empty item",
    ),
    "ladder --budgets with an empty item": (lambda f: ["ladder", "pantolino", "--budgets", "4,,16"], "empty item"),
    "restrict --restrictions with an empty item": (
        lambda f: ["restrict", "pantolino", "--restrictions", "never-steal,,largest-token"],
        "empty item",
    ),
    "sweep --set with an empty value": (
        lambda f: ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,,3"],
        "empty item",
    ),
    "tune --vary with an empty value": (lambda f: [*TUNE, "--vary", "colours=4,,5"], "empty item"),
    "a tuple knob with an empty value": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--set", "token_values=2,,4", "-n", "100"],
        "token_values='2,,4' has an empty value",
    ),
    "play --seats with an empty item": (lambda f: ["play", "pantolino", "--seats", "human,,greedy"], "empty item"),
    "tune varies what its variant fixes": (
        lambda f: [*TUNE, "--variant", "no-jokers", "--vary", "joker_faces=0..2"],
        "set by variant 'no-jokers'",
    ),
    # options out of range
    "tune --jobs 0": (lambda f: [*TUNE, "--jobs", "0"], "--jobs 0 must be at least 1"),
    "sweep --jobs 0": (
        lambda f: ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,3", "--jobs", "0"],
        "--jobs 0",
    ),
    "experiment --jobs 0": (lambda f: ["experiment", "pantolino-joker-value", "--jobs", "0"], "--jobs 0"),
    "tournament --backend spark": (
        lambda f: ["tournament", "pantolino", "--policies", "greedy,random", "--backend", "spark"],
        "--backend spark",
    ),
    "report --jobs 0": (lambda f: ["report", "pantolino", "--jobs", "0"], "--jobs 0"),
    "report a study with -n": (lambda f: ["report", "pantolino-joker-value", "-n", "100"], "is a study: its file"),
    "report a study with --seed": (lambda f: ["report", "pantolino-joker-value", "--seed", "3"], "sets the games"),
    "report --seed -3": (lambda f: ["report", "pantolino", "--seed", "-3"], "seed=-3 is out of range"),
    "a knob set twice": (
        lambda f: ["pantolino", "--policy", "keep-jokers", "--set", "rolls=2", "--set", "rolls=3", "-n", "100"],
        "knob rolls is set twice",
    ),
    "train --games past its bound": (lambda f: ["train", "pantolino", "--games", "1e9"], "games=1000000000 is out"),
    "review --game past any run": (
        lambda f: ["review", "pantolino", "--seats", "greedy,random", "--game", str(10**12)],
        "game=1000000000000 is out of range",
    ),
    "explain --games 0": (lambda f: ["explain", "pantolino", "--games", "0"], "--games 0 is out of range"),
    "explain --playouts 1": (lambda f: ["explain", "pantolino", "--playouts", "1"], "--playouts 1 is out of range"),
    "explain --strong win-optimal at 3 players": (
        lambda f: ["explain", "pantolino", "--strong", "win-optimal", "--players", "3"],
        "2 players",
    ),
    # storage for tuning
    "tune --storage not a URL": (lambda f: [*TUNE, "--storage", "not a url"], "is not a database URL"),
    "tune --storage without its driver": (
        lambda f: [*TUNE, "--storage", "postgresql://user@localhost:1/x"],
        "driver is not installed",
    ),
    "tune --storage a corrupt file": (
        lambda f: [*TUNE, "--storage", f"sqlite:///{f['corrupt_db']}"],
        "file is not a database",
    ),
    "tune study.db a folder": (lambda f: [*TUNE, "--out", str(f["dbfolder"])], "is not a file"),
    # outputs
    "report --out x.html": (lambda f: ["report", "pantolino", "--out", "x.html"], "must name the PDF"),
    "report --out a folder": (lambda f: ["report", "pantolino", "--out", str(f["folder"])], "must name the PDF"),
    "tournament --out a file": (
        lambda f: ["tournament", "pantolino", "--policies", "greedy,random", "-n", "100", "--out", str(f["a_file"])],
        "not a folder",
    ),
}


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory) -> dict[str, Path]:
    return files(tmp_path_factory.mktemp("bad"))


@pytest.fixture(autouse=True)
def in_tmp_folder(tmp_path, monkeypatch) -> None:
    """Each case runs in an empty folder: whatever a command wrongly made would show up there."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def bounded() -> Iterator[None]:
    """The harness's time bound: an alarm that turns a case still running after BOUND_S seconds into a failure."""

    def expire(signum, frame):
        raise TimeoutError(f"still running after {BOUND_S} s: it did not refuse its input up front")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(BOUND_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def refused(result, message: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, (result.exception, result.output)
    assert isinstance(result.exception, SystemExit), result.exception  # not an exception escaping the command
    assert 1 <= len(lines) <= 3 and "Traceback" not in result.stderr, result.stderr
    assert message in result.stderr, result.stderr


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_exit_2_before_any_work(case: str, bad_files, tmp_path: Path, bounded) -> None:
    build, message = CASES[case]
    args = build(bad_files)
    if args[0] in ("tournament", "sweep", "ladder", "experiment", "tune") and "--out" not in args:
        args += ["--out", str(tmp_path / "never")]
    refused(CliRunner().invoke(app, args), message)
    assert not (tmp_path / "never").exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["experiment", "/dev/zero"],
        ["tune", *TUNE[1:], "--storage", "not a url"],
        ["sweep", "pantolino", "--policy", "keep-jokers", "--set", "rolls=2,3", "--set", "rolls=3"],
    ],
    ids=["study /dev/zero", "tune bad storage", "sweep knob twice"],
)
def test_a_real_process_prints_one_line_and_no_warning(args: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [SIMULATE, *args, "--out", str(tmp_path / "never")], capture_output=True, text=True, timeout=BOUND_S
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr and "Warning" not in done.stderr


TUNED = ((parse_vary("pantolino", "rolls=2..3"),), (Target("duration", 10, 10),))  # what TuneSpec varies, aims at
API_CASES = [
    (lambda: RunSpec("pantolino", ("greedy", "random"), 100, seed=1.5), "seed=1.5 must be a whole number"),
    (lambda: RunSpec("pantolino", ("greedy", "random"), 100, seed=True), "seed=True"),
    (lambda: RunSpec(3, ("greedy", "random"), 100), "game=3 must be text"),
    (lambda: RunSpec("pantolino", "greedy,random", 100), "seats='greedy,random'"),
    (lambda: RunSpec("pantolino", ("greedy", 7), 100), "seats="),
    (lambda: RunSpec("pantolino", ("greedy", "random"), 100, settings={"rolls": "2"}), "settings="),
    (lambda: RunSpec("pantolino", ("greedy", "random"), 100, settings=(("rolls", 2),)), "settings="),
    (lambda: RunSpec("pantolino", ("greedy", "random"), 100, variant=1), "variant=1 must be text"),
    (lambda: RunSpec("pantolino", ("greedy", "random"), 1e5), "n_games=100000.0"),
    (lambda: RunSpec("pantolino", ("greedy", "random"), 100, chunk_size="10"), "chunk_size='10'"),
    (lambda: plan_tournament("pantolino", ["greedy", "greedy", "random"], None, 100, 0), "names greedy twice"),
    (lambda: plan_tournament("pantolino", ["greedy", 3], None, 100, 0), "policies=['greedy', 3] must be a list"),
    (lambda: plan_tournament("pantolino", "greedy,random", None, 100, 0), "policies='greedy,random' must be a list"),
    (lambda: plan_ladder("pantolino", policies="random,greedy"), "policies='random,greedy' must be a list"),
    (lambda: plan_restrict("pantolino", "never-keep-joker"), "restrictions='never-keep-joker' must be a list"),
    (lambda: plan_sweep("pantolino", "greedy,greedy", (("rolls", "2,3"),), 100, 0), "seats='greedy,greedy'"),
    (lambda: plan_sweep("pantolino", ("greedy",) * 2, {"rolls": "2,3"}, 100, 0), "settings={'rolls': '2,3'}"),
    (lambda: TuneSpec("pantolino", "greedy,greedy", *TUNED), "seats='greedy,greedy' must be a list"),
    (lambda: TuneSpec("pantolino", ("greedy",) * 2, *TUNED, seed=-1), "seed=-1 is out of range"),
    (lambda: TuneSpec("pantolino", ("greedy",) * 2, *TUNED, games=0, chunk_size=1), "games=0 is out of range"),
    (lambda: plan_sweep("pantolino", ("greedy",) * 2, (("rolls", "2,3"), ("rolls", "4")), 100, 0), "given twice"),
    (lambda: plan_ladder("pantolino", policies=["random", "greedy", "random"]), "two distinct policies"),
    (lambda: plan_ladder(["pantolino"]), "game=['pantolino'] must be text"),
    (lambda: plan_tournament(3, ["greedy", "random"], None, 100, 0), "game=3 must be text"),
    (lambda: run_arms([], local_runner(), precision="0.01"), "precision='0.01' must be a number"),
    (lambda: run_arms([], local_runner(), precision=0.7), "precision=0.7 must be a number"),
    (lambda: run_arms("abc", local_runner()), "arms='abc' must be a list of Arm"),  # was an AttributeError
    (lambda: run_arms([RunSpec("pantolino", ("greedy",) * 2, 10)], local_runner()), "must be a list of Arm"),
    (lambda: local_runner().play(RunSpec("pantolino", ("greedy",) * 2, 10)), "must be a list of RunSpec"),
]


@pytest.mark.parametrize(("make", "message"), API_CASES, ids=[m for _, m in API_CASES])
def test_the_python_api_raises_a_value_error_naming_the_field(make, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        make()


def test_the_api_takes_lists_where_it_keeps_tuples() -> None:
    spec = RunSpec("pantolino", ["greedy", "random"], 100, settings=[("rolls", "2")])
    assert spec.seats == ("greedy", "random") and spec.settings == (("rolls", "2"),)


# --- issue 61: outside games, cache files, model training, API types, reports, explain intervals ---------------

UNICODE_CASES: dict[str, tuple[list[str], str]] = {
    "expert:１６ (full-width digits)": (["pantolino", "--seats", "expert:１６,greedy", "-n", "10"], "digits 0-9"),
    "--set rolls=２ (full-width digit)": (["pantolino", "--set", "rolls=２", "-n", "10"], "ASCII digits"),
    "ladder --budgets ١٦ (Arabic-Indic digits)": (["ladder", "pantolino", "--budgets", "١٦"], "positive whole"),
}


@pytest.mark.parametrize("case", list(UNICODE_CASES))
def test_digits_of_other_scripts_are_refused_not_renamed(case: str, tmp_path: Path, bounded) -> None:
    args, message = UNICODE_CASES[case]
    refused(CliRunner().invoke(app, [*args, "--out", str(tmp_path / "never")]), message)
    assert not (tmp_path / "never").exists()


def test_api_types_raise_value_errors_naming_the_field() -> None:
    from boardlab.engines import get_game
    from boardlab.experiments.playtest.setup import Setup
    from boardlab.experiments.restrict import check_game
    from boardlab.experiments.train import training

    cases = [
        (lambda: training("pantolino", "2", (), None), "players='2' must be a whole number"),
        (lambda: training("pantolino", 2, {"rolls": "2"}, None), "settings="),
        (lambda: training("pantolino", 2, (), 3), "variant=3 must be text"),
        (lambda: get_game(5), "game=5 must be text"),
        (lambda: Setup("pantolino", ("human", "greedy"), 1.5), "seed=1.5 must be a whole number"),
        (lambda: Setup("pantolino", "human,greedy"), "seats='human,greedy' must be a list"),
        (lambda: check_game("pantolino", "2"), "players='2' must be a whole number"),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            make()


# outside games: a fake installed distribution whose entry points name small modules beside it
PLUGINS = {
    "boom": "raise RuntimeError('kaboom')\n",
    "quitter": "import sys\nsys.exit(0)\n",
    "halter": "raise GeneratorExit('a BaseException')\n",
    "noinfo": "class I:\n    id = 'noinfo'\nINFO = I()\n",
    "badtype": "from dataclasses import replace\nfrom swine import *\nfrom swine import INFO as _I\n"
    "INFO = replace(_I, id='badtype', min_players='2')\n",
}
BROKEN_WHY = {
    "boom": "cannot be imported: RuntimeError: kaboom",
    "quitter": "cannot be imported: it called sys.exit(0)",
    "halter": "cannot be imported: GeneratorExit: a BaseException",
    "noinfo": "is not a usable game: its INFO has no field 'name'",
    "badtype": "is not a usable game: its INFO.min_players='2' must be a whole number",
}


def plugin_site(root: Path, clash: bool) -> Path:
    """A folder for PYTHONPATH holding the broken games and a distribution registering them (and a clash)."""
    site = root / ("site-clash" if clash else "site")
    info = site / "broken_games-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-games\nVersion: 0\n")
    points = "".join(f"{name} = {name}_game\n" for name in PLUGINS) + ("pantolino = swine\n" if clash else "")
    (info / "entry_points.txt").write_text(f"[boardlab.games]\n{points}")
    for name, text in PLUGINS.items():
        (site / f"{name}_game.py").write_text(text)
    return site


def simulate(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env}
    return subprocess.run([SIMULATE, *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=60)


def test_broken_outside_games_leave_list_and_the_built_in_games_whole(tmp_path: Path) -> None:
    import json

    site = str(plugin_site(tmp_path, clash=True))
    listed = simulate(["list", "--json"], tmp_path, PYTHONPATH=site)
    assert listed.returncode == 0, listed.stderr
    assert {g["game"] for g in json.loads(listed.stdout)["games"]} >= {"pantolino", "swine"}
    lines = listed.stderr.splitlines()
    assert sum("ignoring entry point 'pantolino = swine'" in line for line in lines) == 1  # once a command
    for name, why in BROKEN_WHY.items():
        assert [line for line in lines if f"game '{name}'" in line] == [
            f"unavailable: game '{name}' (entry point {name}_game in boardlab.games) {why}"
        ]
    assert len(lines) == 1 + len(PLUGINS) and "Traceback" not in listed.stderr


@pytest.mark.parametrize("name", list(PLUGINS))
def test_only_a_command_naming_a_broken_outside_game_fails(name: str, tmp_path: Path, monkeypatch) -> None:
    import importlib

    from boardlab import engines

    site = plugin_site(tmp_path, clash=False)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(engines, "registry", lambda: {**engines.BUILT_IN, name: f"{name}_game"})
    monkeypatch.setattr(engines, "_broken", {})
    importlib.invalidate_caches()
    assert engines.available_games() == sorted(engines.BUILT_IN)  # any caller that visits every game is safe
    with pytest.raises(ValueError, match=re.escape(BROKEN_WHY[name])):
        engines.get_game(name).module  # noqa: B018
    assert engines.get_game("pantolino").module.INFO.name == "Pantolino"


def test_a_clashing_entry_point_is_said_by_the_command_never_by_the_registry(monkeypatch, capsys) -> None:
    """Workers only use the registry: it says nothing, so a command with --jobs 2 prints the warning once."""
    from boardlab import engines

    class Point:
        name, value = "pantolino", "swine"

    monkeypatch.setattr(engines, "entry_points", lambda group: [Point()])
    engines._scan.cache_clear()
    try:
        assert engines.registry()["pantolino"] == "boardlab.engines.pantolino"
        assert capsys.readouterr().err == ""
        assert engines.ignored_entry_points() == [
            "boardlab: ignoring entry point 'pantolino = swine' in boardlab.games: 'pantolino' is a built-in game"
        ]
        result = CliRunner().invoke(app, ["list", "--json"])
        assert result.exit_code == 0 and result.stderr.count("ignoring entry point") == 1
        result = CliRunner().invoke(app, ["list", "--json"])  # the next command says it again
        assert result.stderr.count("ignoring entry point") == 1
    finally:
        engines._scan.cache_clear()


# the model cache: files that are not models never hang, never train first, never get replaced silently
RUN_LEARNED = ["pantolino", "--seats", "learned,greedy", "--set", "rolls=2", "-n", "100", "--jobs", "1"]


@pytest.fixture
def model_path(tmp_path: Path, monkeypatch) -> Path:
    """The cache path of the 2-player rolls=2 Pantolino model (none shipped) in an empty cache; no training."""
    from boardlab.engines.learned import cache, lifecycle, store
    from boardlab.engines.pantolino import learned, rules

    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()

    def never(*args, **kwargs):
        raise AssertionError("trained")

    monkeypatch.setattr(store, "train", never)
    params = rules.Params(rolls=2)
    key = lifecycle.model_key(
        learned.Learned, params, 2, learned.SPEC.resolved(params, 2, learned.settings_for(params, 2))
    )
    return tmp_path / "cache" / cache.file_name(key)


MODEL_FILES = {
    "a FIFO": (lambda p: os.mkfifo(p), "is a pipe, device or socket, not a file"),
    "a link to /dev/zero": (lambda p: p.symlink_to("/dev/zero"), "is a pipe, device or socket, not a file"),
    "a folder": (lambda p: p.mkdir(), "is a folder, not a file"),
}


@pytest.mark.parametrize("training", ["0", "1"])
@pytest.mark.parametrize("what", list(MODEL_FILES))
def test_a_non_file_at_a_models_path_is_refused_before_any_training(
    what: str, training: str, model_path: Path, tmp_path: Path, monkeypatch, bounded
) -> None:
    make, message = MODEL_FILES[what]
    make(model_path)
    monkeypatch.setenv("BOARDLAB_TRAIN", training)
    refused(CliRunner().invoke(app, [*RUN_LEARNED, "--out", str(tmp_path / "never")]), message)
    assert str(model_path) in CliRunner().invoke(app, [*RUN_LEARNED, "--out", str(tmp_path / "never")]).stderr
    if what == "a folder":  # `train` as well, before it trains
        refused(CliRunner().invoke(app, ["train", "pantolino", "--set", "rolls=2", "--jobs", "1"]), message)
    assert not (tmp_path / "never").exists()


def test_a_model_with_a_deeply_nested_header_is_one_line(model_path: Path, tmp_path: Path, monkeypatch) -> None:
    model_path.write_bytes(b"[" * 100_000 + b"\n" + b"x" * 10)
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    refused(CliRunner().invoke(app, [*RUN_LEARNED, "--out", str(tmp_path / "never")]), "not a learned-model file")


def test_train_says_it_replaces_a_corrupt_model(model_path: Path, monkeypatch) -> None:
    from boardlab.engines.learned import store

    class Tiny:
        def to_bytes(self) -> bytes:
            return b"model"

    monkeypatch.setattr(store, "train", lambda *args: Tiny())
    model_path.write_bytes(b"garbage")
    result = CliRunner().invoke(app, ["train", "pantolino", "--set", "rolls=2", "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"training it again and replacing {model_path}" in result.stderr
    assert model_path.read_bytes().endswith(b"\nmodel")


def test_a_second_training_of_one_setting_waits_for_the_first_then_uses_its_model(tmp_path: Path, monkeypatch) -> None:
    import fcntl
    import threading

    import numpy as np

    from boardlab.engines.learned import cache, store
    from boardlab.engines.learned.model import ValueModel

    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    key = {"game": "toy", "players": 2, "version": 1}
    model = ValueModel((np.ones((3, 1), np.float32),), (np.zeros(1, np.float32),))
    path = tmp_path / cache.file_name(key)

    class Sampler:
        def n_features(self, params, players):
            return 3

        def n_outputs(self, players):
            return 1

    def never(*args):
        raise AssertionError("trained a second time")

    monkeypatch.setattr(store, "train", never)
    lines: list[str] = []
    monkeypatch.setattr(
        sys, "stderr", type("Err", (), {"write": lambda self, text: lines.append(text), "flush": lambda self: None})()
    )
    holder = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)  # the first training, in "another process"
    found: list = []
    second = threading.Thread(target=lambda: found.append(store.obtain(store.Request(Sampler(), key, None, 2, None))))
    second.start()
    second.join(1.0)
    assert second.is_alive() and any("waiting for another process training" in line for line in lines)
    cache.save(path, key, model)  # the first training ends
    os.close(holder)
    second.join(10)
    assert found[0][1:] == (path, "cached")


# interrupted commands say what is true
def test_an_interrupt_before_any_chunk_does_not_claim_saved_chunks(tmp_path: Path, monkeypatch) -> None:
    from boardlab.experiments.run import chunk, store

    def interrupt(spec):
        raise KeyboardInterrupt

    monkeypatch.setattr(chunk, "check_playable", interrupt)
    monkeypatch.setattr(store, "_kept", [0])
    result = CliRunner().invoke(app, ["pantolino", "-n", "100", "--jobs", "1", "--out", str(tmp_path / "r")])
    assert result.exit_code == 130
    assert result.stderr == "interrupted before any chunk of games was finished: nothing is saved\n"


def test_an_interrupted_training_does_not_claim_saved_chunks(tmp_path: Path, monkeypatch) -> None:
    from boardlab.engines.learned import store

    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "train", interrupt)
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    result = CliRunner().invoke(app, ["train", "pantolino", "--retrain", "--jobs", "1", "--quiet"])
    assert result.exit_code == 130 and "finished chunks are saved" not in result.stderr
    assert "a training keeps nothing until it ends" in result.stderr


# reports check what they can before making their chunk folder
def test_report_refuses_a_bad_source_date_epoch_at_once(tmp_path: Path, monkeypatch, bounded) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    out = tmp_path / "r" / "p.pdf"
    refused(CliRunner().invoke(app, ["report", "pantolino", "--out", str(out)]), "SOURCE_DATE_EPOCH='yesterday'")
    assert not out.parent.exists()


def test_report_of_a_study_with_a_learned_arm_refuses_before_its_chunk_folder(
    model_path: Path, tmp_path: Path, monkeypatch, bounded
) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    study = tmp_path / "lrn.toml"
    study.write_text(
        "[study]\ngame = 'pantolino'\nn = 100\n[[arm]]\nseats = ['learned', 'greedy']\nset = { rolls = 2 }\n"
    )
    out = tmp_path / "r" / "lrn.pdf"
    refused(CliRunner().invoke(app, ["report", str(study), "--out", str(out)]), "BOARDLAB_TRAIN=0 forbids training")
    assert not out.parent.exists()


def test_a_fifo_at_a_chunk_path_is_refused_not_waited_on(tmp_path: Path, bounded) -> None:
    run = ["pantolino", "--policy", "greedy", "-n", "100", "--chunk-size", "100", "--jobs", "1", "--quiet"]
    out = tmp_path / "r"
    (out / "chunks").mkdir(parents=True)
    os.mkfifo(out / "chunks" / "chunk-000000-100.ckpt")  # the run's only chunk
    refused(CliRunner().invoke(app, [*run, "--out", str(out)]), "is a pipe, device or socket, not a file")


def test_explain_intervals_of_a_difference_stay_inside_minus_one_to_one() -> None:
    import numpy as np

    from boardlab.analysis.stats import paired_shares
    from boardlab.experiments.playtest.hints import Estimate

    estimate = Estimate(np.array([0, 1]), np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    gain, half = estimate.gain(0, 1)
    assert gain + half > 1  # the normal interval this replaces
    d, low, high = estimate.gain_interval(0, 1)
    assert -1 <= low < d < high <= 1 and d == pytest.approx(1 / 3)
    assert paired_shares(np.ones(2), np.zeros(2))[2] == 1.0  # every pair differs: the upper end is 1, not more
    rng = np.random.default_rng(5)
    for n in (2, 3, 5, 10):
        a, b = rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float)
        d, low, high = paired_shares(a, b)
        assert -1 <= low <= d <= high <= 1
