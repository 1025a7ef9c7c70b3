"""The worked example game from outside (``tests/example_game``, installed by ``make install``) gets every command.

It registers through the ``boardlab.games`` entry point only, so these tests also show that the workers of a run
(loky and Dask) see a game the registry found in installed metadata. Every command runs from the command line
in a subprocess, with tiny sizes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from boardlab.engines import GROUP, get_game
from boardlab.engines.checker import check_game
from boardlab.engines.record import record_of

GAME = "swine"
RESTRICTIONS = record_of(get_game(GAME).module).restrictions
SIMULATE = Path(sys.executable).with_name("simulate")


def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``simulate ARGS`` in ``cwd`` with ``env`` added to the environment (and ``SOURCE_DATE_EPOCH=0``)."""
    environment = {**os.environ, "SOURCE_DATE_EPOCH": "0", **env}
    return subprocess.run([str(SIMULATE), *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)


def simulate(*args: str, cwd: Path) -> dict:
    """The JSON output of ``simulate ARGS --json`` in ``cwd`` (the command must succeed)."""
    done = run(*args, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_game_comes_from_its_entry_point_and_passes_the_checker() -> None:
    assert [p.value for p in entry_points(group=GROUP) if p.name == GAME] == [GAME]
    module = get_game(GAME).module
    assert Path(module.__file__).parent.parent.name == "example_game"
    notes = check_game(module)
    passed_over = {name: note for name, note in notes.items() if "no model" in note}
    assert "learned" in notes and not passed_over, notes  # the shipped model is played, not left out or skipped


def test_list_and_a_run_with_an_expert_seat_give_the_same_games_on_loky_and_dask(tmp_path: Path) -> None:
    listed = simulate("list", cwd=tmp_path)
    assert GAME in [g["game"] for g in listed["games"]]
    assert {k["knob"] for k in simulate("list", GAME, cwd=tmp_path)["knobs"]} == {"target", "faces", "bust"}
    run = f"{GAME} --seats chase,hold-at-20,expert:4 -n 600 --chunk-size 200 --jobs 2".split()
    loky = simulate(*run, "--out", str(tmp_path / "loky"), cwd=tmp_path)
    dask = simulate(*run, "--backend", "dask", "--out", str(tmp_path / "dask"), cwd=tmp_path)
    for result in (loky, dask):
        del result["elapsed_s"], result["run_dir"]
    assert loky == dask
    assert loky["n_games"] == 600 and [s["policy"] for s in loky["seats"]][2] == "expert:4"


def test_tournament_sweep_ladder_and_tune(tmp_path: Path) -> None:
    def command(text: str, out: str) -> dict:
        return simulate(*text.split(), "--jobs", "1", "--out", str(tmp_path / out), cwd=tmp_path)

    tournament = command(f"tournament {GAME} --policies chase,hold-at-10 -n 200", "t")
    assert {(p["policy"], p["opponent"]) for p in tournament["pairs"]} >= {("chase", "hold-at-10")}
    sweep = command(f"sweep {GAME} --set target=30,80 --policy chase -n 200", "s")
    assert {r["value"] for r in sweep["rows"]} == {"30", "80"}
    ladder = command(f"ladder {GAME} -n 40 --budgets 4", "l")
    rungs = {"random", "hold-at-20", "hold-at-10", "chase", "win-optimal", "learned", "expert:4"}
    assert {r["policy"] for r in ladder["ratings"]} == rungs
    tune = command(
        f"tune {GAME} --policy chase --vary target=20..80 --target first_seat_advantage=0 --trials 2 -n 400 "
        "--chunk-size 200",
        "u",
    )
    assert 20 <= int(tune["best"]["setting"]["target"]) <= 80


def test_report_uses_the_generic_chapter(tmp_path: Path) -> None:
    out = tmp_path / "swine.pdf"
    done = run("report", GAME, "-n", "80", "--jobs", "1", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = out.with_suffix(".html").read_text()
    pages = ("Seat balance", "Game length", "Head to head", "How much skill matters", "Balance by skill")
    pages += ("Balance: metrics",)
    for page in pages:
        assert page in html, page
    assert out.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("problem", ["clash", "malformed", "unimportable"])
def test_a_bad_entry_point_is_one_line_and_never_shadows_a_built_in(tmp_path: Path, problem: str) -> None:
    name, value = {
        "clash": ("pantolino", "swine"),
        "malformed": ("Bad Name", "swine"),
        "unimportable": ("ghost", "no_such_package_here"),
    }[problem]
    info = tmp_path / "site" / "fake_games-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-games\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{name} = {value}\n")
    listed = run("list", "--json", cwd=tmp_path, PYTHONPATH=str(tmp_path / "site"))
    games = {g["game"]: g for g in json.loads(listed.stdout)["games"]} if listed.returncode == 0 else {}
    if problem == "unimportable":  # listed as unavailable, the other games as ever
        assert listed.returncode == 0 and listed.stderr.count("\n") == 1 and "ghost" not in games
        assert "game 'ghost' (entry point no_such_package_here in boardlab.games) cannot be imported" in listed.stderr
        assert games["pantolino"]["name"] == "Pantolino"
        return
    assert listed.returncode == 0 and listed.stderr.count("\n") == 1 and "ignoring entry point" in listed.stderr
    assert games["pantolino"]["name"] == "Pantolino" and "Bad Name" not in games


def test_a_person_plays_reviews_and_explains_and_a_restriction_is_priced(tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    moves = "\n".join(["2", "2", "1"] * 60) + "\n"  # roll, roll, hold, ... (a forced first roll asks nothing)
    environment = {**os.environ, "SOURCE_DATE_EPOCH": "0"}
    played = subprocess.run(
        [str(SIMULATE), "play", GAME, "--seats", "human,win-optimal", "--hints", "--save", str(game)],
        cwd=tmp_path, env=environment, input=moves, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "exact" in played.stdout and "game over" in played.stdout  # the hints are the solver's
    reviewed = run("review", str(game), cwd=tmp_path)
    assert reviewed.returncode == 0 and "against win-optimal" in reviewed.stdout, reviewed.stderr
    first = next(iter(RESTRICTIONS))
    restrict = f"restrict {GAME} --strong win-optimal --restrictions {first} -n 100 --jobs 1".split()
    assert f"win-optimal!{first}" in {p["policy"] for p in simulate(*restrict, cwd=tmp_path)["policies"]}
    explained = run("explain", GAME, "--strong", "win-optimal", "--games", "1", "--playouts", "20", "-q", cwd=tmp_path)
    assert explained.returncode == 0 and "gap" in explained.stdout, explained.stderr
