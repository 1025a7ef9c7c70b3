"""`simulate tune`: parsing knobs and targets, the objective, pruning, reproducibility and resuming after a kill."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import optuna
import pandas as pd
import pytest
from typer.testing import CliRunner

from boardlab.analysis.game_metrics import Value
from boardlab.engines import core, get_game
from boardlab.engines.pantolino import learned as learned_pantolino
from boardlab.experiments import tune as tn
from boardlab.experiments import tune_study, variants
from boardlab.experiments.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_loaded_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(variants, "_loaded", {})  # variants read by one test stay out of the others


def tiny(seed: int = 3, trials: int = 7) -> tn.TuneSpec:
    return tn.TuneSpec(
        "pantolino",
        ("keep-jokers", "keep-jokers"),
        (tn.parse_vary("pantolino", "joker_faces=0..3"), tn.parse_vary("pantolino", "rolls=2,3,4")),
        (tn.Target("first_seat_advantage", 0.0, 0.0),),
        seed=seed,
        games=1200,
        chunk_size=300,
        trials=trials,
    )


def test_vary_takes_ranges_and_lists_including_tuple_knobs() -> None:
    assert tn.parse_vary("pantolino", "rolls=1..4") == tn.Knob("rolls", low=1, high=4, whole=True)
    assert tn.parse_vary("pantolino", "no-token-rule=nothing,remove-smallest").values == ("nothing", "remove-smallest")
    assert tn.parse_vary("pantolino", "token_values=2,3,4;1,2,3").values == ("2,3,4", "1,2,3")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rols=1..3", "did you mean 'rolls'"),
        ("rolls=3..1", "empty or inverted"),
        ("rolls=2..2", "empty or inverted"),
        ("rolls=3", "at least two values"),
        ("escaping_boots=0..1", "needs a number knob"),
        ("rolls", "not of the form"),
    ],
)
def test_bad_vary_is_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(tn.TuneError, match=message):
        tn.parse_vary("pantolino", text)


@pytest.mark.parametrize(
    ("vary", "settings", "message"),
    [
        (["rolls=1..9"], (), "--vary rolls=9 is never allowed here: rolls=9 is out of range"),
        (["dice=3..5"], (), "--vary dice=3 is never allowed here: token_values=\\(2, 3, 4\\) is not allowed"),
        (["token_values=2,3,4;1,2,3"], (("dice", "3"),), "--vary token_values=2,3,4 is never allowed here"),
        (["rolls=2..4"], (("dice", "3"),), "no trial can play --vary rolls=2 beside the fixed knobs: token_values"),
        (["dice=4..5", "token_values=1,2,3;5,6"], (), "--vary token_values=5,6 is never allowed here"),
    ],
)
def test_a_varied_value_no_trial_can_play_is_refused(vary: list[str], settings: tuple, message: str) -> None:
    knobs = [tn.parse_vary("pantolino", text) for text in vary]
    with pytest.raises(tn.TuneError, match=message):
        tn.check_trials("pantolino", knobs, settings, None)


def test_a_value_another_knob_makes_playable_is_accepted() -> None:
    dice = tn.parse_vary("pantolino", "dice=3..5")  # dice=3 needs token values up to 3
    assert tn.check_trials("pantolino", [dice], (("token_values", "1,2,3"),), None) == (("dice", "3"),)
    values = tn.parse_vary("pantolino", "token_values=1,2,3;4,5,6")  # 4,5,6 needs dice=6: found among the ends
    wide = tn.parse_vary("pantolino", "dice=4..6")
    assert tn.check_trials("pantolino", [wide, values], (), None) == (("dice", "4"), ("token_values", "1,2,3"))
    assert tn.check_trials("pantolino", [], (), None) == ()


def test_targets_parse_values_ranges_and_weights() -> None:
    defined = tn.defined_metrics("pantolino", ("greedy", "greedy"), (), None)
    assert {"drama", "lead_changes", "first_seat_advantage", "comeback"} <= set(defined)
    assert tn.parse_target("pantolino", "duration=15..25@0.5", defined) == tn.Target("duration", 15, 25, 0.5, False)
    assert tn.parse_target("pantolino", "first_seat_advantage=0", defined).share


@pytest.mark.parametrize(
    ("game", "text", "message"),
    [
        ("pantolino", "dramma=0.3", "did you mean 'drama'"),
        ("pantolino", "duration=25..15", "empty or inverted"),
        ("pantolino", "duration=20@0", "weight must be positive"),
        ("pantolino", "skill_depth=3", "skill ladder"),
        ("pantolino", "duration=abc", "must be numbers"),
        ("paleolino", "first_seat_advantage=0", "cannot define it \\(the game is cooperative\\)"),
        ("pantolino", "table_win_rate=0.5", "cannot define it \\(the game is not cooperative"),
    ],
)
def test_bad_targets_are_refused_with_the_reason(game: str, text: str, message: str) -> None:
    from boardlab.engines import get_game

    module = get_game(game).module
    seats = (next(iter(module.POLICIES)),) * max(2, module.INFO.min_players)
    with pytest.raises(tn.TuneError, match=message):
        tn.parse_target(game, text, tn.defined_metrics(game, seats, (), None))


def test_a_cooperative_game_tunes_toward_a_table_win_rate() -> None:
    defined = tn.defined_metrics("paleolino", ("planner", "planner"), (), None)
    assert set(defined) >= {"table_win_rate", "duration"} and "first_seat_advantage" not in defined
    target = tn.parse_target("paleolino", "table_win_rate=0.5", defined)
    assert target == tn.Target("table_win_rate", 0.5, 0.5, 1.0, True)  # a share: distances in points
    assert tn.objective({"table_win_rate": Value(0.4, 0.38, 0.42)}, [target]).value == pytest.approx(0.1)


def test_objective_is_the_weighted_distance_with_bounds_from_the_intervals() -> None:
    targets = [tn.Target("first_seat_advantage", 0, 0), tn.Target("duration", 15, 25, 2.0, False)]
    metrics = {"first_seat_advantage": Value(0.05, 0.03, 0.07), "duration": Value(30, 28, 32)}
    value = tn.objective(metrics, targets)
    assert value.value == pytest.approx(0.05 + 2 * 5 / 25)
    assert value.low == pytest.approx(0.03 + 2 * 3 / 25) and value.high == pytest.approx(0.07 + 2 * 7 / 25)
    inside = tn.objective({"first_seat_advantage": Value(0.01, -0.01, 0.03), "duration": Value(20, 19, 21)}, targets)
    assert inside.low == 0 and inside.value == pytest.approx(0.01) and inside.high == pytest.approx(0.03)


def test_rungs_grow_by_eta_and_end_at_the_full_trial() -> None:
    assert tune_study.rungs(8) == [1, 3, 8]
    assert tune_study.rungs(1) == [1]
    assert tune_study.rungs(9) == [1, 3, 9]


def test_same_seed_same_trials_and_pruning_saves_games(tmp_path: Path) -> None:
    a = tn.tune(tiny(), tmp_path / "a")
    b = tn.tune(tiny(), tmp_path / "b")
    assert a.best == b.best and a.trials.equals(b.trials)
    assert (a.trials["state"] == "pruned").any()  # some settings were stopped early ...
    assert a.games_used < len(a.trials) * 1200  # ... so fewer games than every trial in full
    assert math.isfinite(a.best["objective"]["value"]) and a.best["objective"]["ci"][0] <= a.best["objective"]["value"]
    assert {p.name for p in a.files} >= {"trials.csv", "trials.parquet", "best.json", "tune.png", "importances.csv"}


def test_a_resumed_run_keeps_its_trials_and_a_different_question_is_refused(tmp_path: Path) -> None:
    first = tn.tune(tiny(trials=3), tmp_path)
    more = tn.tune(tiny(trials=5), tmp_path)
    assert more.trials["trial"].tolist()[:3] == first.trials["trial"].tolist() and len(more.trials) == 5
    with pytest.raises(tn.TuneError, match="another tuning question"):
        tn.tune(tiny(seed=4, trials=5), tmp_path)


KILLER = """
import os, signal, sys
from pathlib import Path
from boardlab.experiments import tune as tn
from boardlab.experiments import variants
sys.path.insert(0, {tests!r})
from test_tune import tiny
calls = [0]
from boardlab.experiments.run import loop
real_play = loop.play
def play(*args, **kwargs):
    calls[0] += 1
    if calls[0] == {kill_at}:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_play(*args, **kwargs)
loop.play = play
tn.tune(tiny(), Path({folder!r}))
"""


def test_a_run_killed_mid_trial_resumes_and_ends_like_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = tn.tune(tiny(), tmp_path / "whole")
    folder = tmp_path / "killed"
    code = KILLER.format(tests=str(Path(__file__).parent), kill_at=6, folder=str(folder))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr
    resumed = tn.tune(tiny(), folder)
    kept = resumed.trials  # the trials before the kill were kept, the killed one played again
    assert kept[["state", "objective"]].equals(whole.trials[["state", "objective"]])
    assert resumed.best == whole.best
    study = optuna.load_study(study_name=tune_study.STUDY_NAME, storage=f"sqlite:///{folder / 'study.db'}")
    assert [t.state.name for t in study.trials].count("FAIL") == 1  # the killed trial, left out and played again


def test_cli_prints_the_best_setting_and_writes_the_winner_as_a_variant(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = [
        "tune",
        "pantolino",
        "--policy",
        "keep-jokers",
        "--vary",
        "joker_faces=0..2",
        "--target",
        "first_seat_advantage=0",
        "-n",
        "600",
    ]
    result = runner.invoke(app, [*args, "--chunk-size", "300", "--trials", "4", "-j", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "target first_seat_advantage=0: MISSED: +" in result.output  # keep-jokers' first seat: +7.7 points at best
    said = " ".join(result.output.split())  # the console wraps long lines
    assert "if its 95% interval comes within 1.0 point of the target" in said  # the tolerance in points
    assert re.search(r"closest: \+\d+\.\d% \(\+\d+\.\d to \+\d+\.\d\)\)", result.output)  # as the reports write it
    assert "No target was reached with these knobs" in result.output and "the setting you started from" in result.output
    written = (out / "variants.toml").read_text()
    assert written.startswith("# CLOSEST SETTING ONLY: no target was reached") and '[pantolino."tuned"]' in written
    assert pd.read_csv(out / "trials.csv")["joker_faces"].tolist() == [1, 0, 2]  # each once, the rulebook's first
    record = json.loads((out / "best.json").read_text())
    assert (record["seed"], record["games_per_trial"], record["chunk_size"], record["fixed"]) == (0, 600, 300, {})
    assert record["game_version"] and "optuna" in record["versions"] and record["variant"] is None
    best = record["best"]["setting"]
    variant = ["--variant", "tuned", "--variants-file", str(out / "variants.toml")]
    run = runner.invoke(
        app,
        [
            "pantolino",
            "--policy",
            "keep-jokers",
            *variant,
            "-n",
            "300",
            "-j",
            "1",
            "--json",
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert run.exit_code == 0, run.output
    assert json.loads(run.output)["params"]["joker_faces"] == int(best["joker_faces"])


def test_cli_tunes_paleolino_toward_half_the_games_won(tmp_path: Path) -> None:
    args = ["tune", "paleolino", "--policy", "greedy", "--players", "2", "--vary", "pulls=1,2,3"]
    args += ["--target", "table_win_rate=0.5", "-n", "400", "--chunk-size", "200", "--trials", "3", "-j", "1"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "target table_win_rate=0.5:" in result.output and "table_win_rate" in result.output
    best = json.loads((tmp_path / "best.json").read_text())["best"]
    assert best["setting"]["pulls"] in ("1", "2", "3") and "table_win_rate" in best["metrics"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vary", "jokers=0..2", "--target", "drama=0.3"], "did you mean 'joker_faces'"),
        (["--vary", "joker_faces=2..0", "--target", "drama=0.3"], "empty or inverted"),
        (["--vary", "joker_faces=0..2", "--target", "balance=0"], "unknown metric"),
        (["--vary", "joker_faces=0..2", "--target", "table_win_rate=0.5"], "the game is not cooperative"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["tune", "pantolino", "--policy", "keep-jokers", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_fewer_games_than_the_default_chunk_play_in_one_chunk(tmp_path: Path) -> None:
    args = [
        "tune",
        "pantolino",
        "--policy",
        "keep-jokers",
        "--vary",
        "rolls=2,3",
        "--target",
        "first_seat_advantage=0",
        "--trials",
        "2",
    ]
    result = runner.invoke(app, [*args, "-n", "200", "-j", "1", "--quiet", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output  # was refused: --chunk-size 2500 (the default) above -n 200
    assert "target first_seat_advantage=0: " in result.stdout and "trial 0:" not in result.output  # --quiet
    assert pd.read_csv(tmp_path / "trials.csv")["games"].eq(200).all()
    assert sorted(p.name for p in (tmp_path / "chunks").glob("*/chunk-*")) == ["chunk-000000-200.ckpt"] * 2
    given = runner.invoke(app, [*args, "-n", "200", "--chunk-size", "300", "--out", str(tmp_path / "b")])
    assert given.exit_code == 2 and "--chunk-size 300 is out of range; allowed 1..200" in given.output


OPENER = """
import sys, time
sys.path.insert(0, {tests!r})
from boardlab.experiments import tune as tn
from test_tune import tiny
{patch}
time.sleep(max(0.0, {start} - time.time()))  # every process opens the new study at the same moment
tn.open_study(tiny(), {url!r}, False)
"""


def open_together(url: str, tmp_path: Path, patch: str = "", processes: int = 4) -> list[subprocess.CompletedProcess]:
    import time

    code = OPENER.format(tests=str(Path(__file__).parent), patch=patch, start=time.time() + 4, url=url)
    started = [
        subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True) for _ in range(processes)
    ]
    return [subprocess.CompletedProcess(p.args, p.wait(timeout=120), "", p.stderr.read()) for p in started]


def test_processes_opening_one_new_sqlite_study_together_all_succeed(tmp_path: Path) -> None:
    for attempt in range(2):  # without the schema lock, most attempts fail (tables created twice)
        url = f"sqlite:///{tmp_path / f'shared-{attempt}.db'}"
        done = open_together(url, tmp_path)
        assert all(d.returncode == 0 for d in done), [d.stderr.strip().splitlines()[-1:] for d in done]
        assert len(optuna.get_all_study_summaries(url)) == 1


LEARNED_TUNE = [
    "tune", "pantolino", "--policy", "learned", "--set", "colours=2", "--vary", "token_values=2,3;2,4",
    "--target", "first_seat_advantage=0", "--trials", "3", "-n", "200", "--chunk-size", "100", "--jobs", "1",
]  # fmt: skip


@pytest.fixture
def fresh_players():
    """Policy implementations are kept per process with their models: none made under another test's settings."""
    core.instantiate.cache_clear()
    yield
    core.instantiate.cache_clear()


@pytest.mark.usefixtures("fresh_players")
def test_tune_with_learned_trains_each_proposed_setting_once_then_plays_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    quick = learned_pantolino.SETTINGS.__class__(games=200, rounds=1, sweeps=1, sweep_epochs=1, chunk_games=100)
    monkeypatch.setattr(learned_pantolino, "SETTINGS", quick)  # the model `learned` plays: cheap for a test
    result = runner.invoke(app, [*LEARNED_TUNE, "--out", str(tmp_path / "tune")])
    assert result.exit_code == 0, result.output
    played = set(pd.read_csv(tmp_path / "tune" / "trials.csv")["token_values"].astype(str))
    models = sorted((tmp_path / "cache").glob("pantolino-learned-2p-*.model"))
    assert len(models) == len(played) >= 1  # one model per setting proposed, trained before its games
    assert result.stderr.count("its learned model trained first") == len(played)
    for model in models:  # each is the model a later run of that setting plays, found in the cache
        key = json.loads(model.read_bytes().partition(b"\n")[0])["key"]
        assert key["training"]["games"] == 200 and key["knobs"]["colours"] == 2


@pytest.mark.usefixtures("fresh_players")
def test_tune_with_learned_and_training_off_fails_in_one_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    result = runner.invoke(app, [*LEARNED_TUNE, "--out", str(tmp_path / "tune")])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "BOARDLAB_TRAIN=0 forbids training" in result.stderr


def test_a_space_larger_than_the_trials_is_searched_without_playing_a_setting_twice(tmp_path: Path) -> None:
    knobs = (tn.parse_vary("pantolino", "joker_faces=0..1"), tn.parse_vary("pantolino", "rolls=2,3,4"))
    target = (tn.Target("first_seat_advantage", 0.0, 0.0),)
    spec = tn.TuneSpec("pantolino", ("greedy",) * 2, knobs, target, seed=1, games=100, chunk_size=100, trials=5)
    assert spec.plan is None  # 6 settings, 5 trials: the sampler proposes them
    result = tn.tune(spec, tmp_path)
    played = list(zip(result.trials["joker_faces"], result.trials["rolls"], strict=True))
    assert len(played) == 5 and len(set(played)) == 5 and played[0] == ("1", "3")  # the rulebook's first
    study = optuna.load_study(study_name=tune_study.STUDY_NAME, storage=f"sqlite:///{tmp_path / 'study.db'}")
    repeats = [t for t in study.trials if "repeat_of" in t.user_attrs]
    assert repeats  # the sampler did propose a played setting: told its result, not played again
    assert result.games_used == 5 * 100


def test_the_baseline_is_added_to_a_search_that_leaves_it_out_and_reported() -> None:
    spec = tn.TuneSpec(
        "pantolino",
        ("greedy",) * 2,
        (tn.parse_vary("pantolino", "rolls=1,2"), tn.parse_vary("pantolino", "joker_faces=2..3")),
        (tn.Target("duration", 40, 40),),
        trials=6,
    )
    assert dict(spec.start) == {"rolls": "3", "joker_faces": "1"}  # the rulebook's values, outside both
    assert spec.knobs[0].values == ("1", "2", "3") and (spec.knobs[1].low, spec.knobs[1].high) == (1, 3)
    assert spec.plan is None and tn.tune_plan.size(spec.knobs) == 9  # more settings than trials: sampled


def test_a_listed_tuple_baseline_is_matched_by_meaning_and_targets_say_if_reached() -> None:
    knob = tn.parse_vary("pantolino", "token_values=1,2,3;[2,3,4]")
    assert tn.tune_plan.baseline("pantolino", [knob], (), None) == {"token_values": "[2,3,4]"}
    count = tn.parse_target("pantolino", "duration=20~1", ["duration"])
    share = tn.Target("first_seat_advantage", 0.0, 0.0)
    assert (count.tolerance, share.tolerance, tn.Target("duration", 50, 50, share=False).tolerance) == (1, 0.01, 1)
    metrics = {
        "duration": {"value": 21.5, "ci": [21.2, 21.8]},
        "first_seat_advantage": {"value": 0.02, "ci": [0.005, 0.035]},
    }
    verdicts = tn.tune_plan.verdict(metrics, [count, share])
    assert [v["reached"] for v in verdicts] == [False, True]
    assert [tn.tolerance_worded(v) for v in verdicts] == ["1", "1.0 point"]  # a share's in points, as its value
    assert tn.tolerance_worded({**verdicts[1], "tolerance": 0.025}) == "2.5 points"


def test_tune_name_must_be_a_plain_toml_key_and_any_written_name_loads_again(tmp_path: Path) -> None:
    import tomllib

    result = runner.invoke(
        app,
        [
            "tune",
            "pantolino",
            "--policy",
            "keep-jokers",
            "--vary",
            "rolls=2,3",
            "--target",
            "duration=15",
            "--name",
            'a"b',
        ],
    )
    assert result.exit_code == 2 and "must be 1..100 letters, digits" in result.output
    assert len(result.output.strip().splitlines()) == 1
    text = variants.render("pantolino", {'a"b\\c': {"rolls": "2"}}, {'a"b\\c': "note"})
    assert tomllib.loads(text)["pantolino"] == {'a"b\\c': {"rolls": "2"}}


@pytest.mark.parametrize("game", ["pantolino", "patolli", "panots", "paleolino", "cargolino"])
def test_every_metric_list_offers_as_a_target_is_accepted(game: str) -> None:
    from boardlab.experiments.commands.listing import describe

    record = describe(game)
    module = get_game(game).module
    defined = tn.defined_metrics(game, (next(iter(module.POLICIES)),) * max(2, module.INFO.min_players), (), None)
    assert record["targets"] and set(record["targets"]) <= set(record["metrics"]) | set(tn.metric_names(module))
    for name in record["targets"]:
        assert tn.parse_target(game, f"{name}=1", defined).metric == name
