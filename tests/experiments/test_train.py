"""`simulate train` (experiments/train.py): the model for a setting, the same bytes for any --jobs, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from boardlab.engines import available_games, get_game
from boardlab.engines.learned import training as engine_training
from boardlab.engines.panots.rules import Params
from boardlab.experiments.cli import app
from boardlab.experiments.train import executor_mapper, training

runner = CliRunner()
SMALL = ("--set", "colours=2", "--set", "token_values=2,3")  # 4 tokens: games of a few turns


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_same_seed_same_model_bytes_for_any_jobs(tmp_path: Path, monkeypatch) -> None:
    blobs = []
    for jobs in ("1", "2"):
        monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / jobs))
        result = invoke("train", "pantolino", *SMALL, "--games", "300", "--jobs", jobs, "--json")
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["how"] == "trained" and report["players"] == 2
        blobs.append(Path(report["path"]).read_bytes())
    assert blobs[0] == blobs[1]
    again = invoke("train", "pantolino", *SMALL, "--games", "300")
    assert again.exit_code == 0 and again.stdout.startswith("cached: ")
    quiet = invoke("train", "pantolino", *SMALL, "--games", "300", "--quiet")  # no progress lines, the result
    assert quiet.stdout.startswith("cached: ") and quiet.stderr == ""


def test_the_mapper_hands_each_chunk_on_in_order_as_soon_as_those_before_it_are_in() -> None:
    pulled = []

    class Backwards:
        """Finishes the chunks in the order 1, 0, 3, 2, counting what the caller has pulled."""

        def map_unordered(self, task, todo):
            for i in (1, 0, 3, 2):
                pulled.append(i)
                yield task(*todo[i])

    results = executor_mapper(Backwards())(lambda x: x * 10, [(0,), (1,), (2,), (3,)])
    assert [next(results), next(results)] == [0, 10] and pulled == [1, 0]  # chunks 2 and 3 not waited for
    assert list(results) == [20, 30] and pulled == [1, 0, 3, 2]


def test_a_training_round_too_large_for_memory_is_one_line_and_exit_2(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    monkeypatch.setattr(engine_training, "MAX_ROUND_BYTES", 1000)
    result = invoke("train", "pantolino", *SMALL, "--games", "300", "--jobs", "1")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: a training round would hold about")
    assert result.stderr.splitlines()[-1] == errors[0]
    assert not list(tmp_path.glob("*.model"))


def test_a_missing_model_with_training_off_fails_in_one_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    seats = ("--seats", "learned,turn-optimal")
    result = invoke("pantolino", *seats, *SMALL, "-n", "100", "--quiet", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "BOARDLAB_TRAIN=0 forbids training" in result.stderr


def test_bad_input_is_one_line_and_exit_2() -> None:
    for args in (
        ("--players", "9"),
        ("--players", "0"),  # not read as "the default"
        ("--games", "0"),
        ("--set", "colours=99"),
        ("--variant", "nope"),
        ("--seed", "-1"),
    ):
        result = invoke("train", "pantolino", *args, "--quiet")
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.count("\n") == 1, result.stderr
    assert (
        invoke("train", "pantolino", "--seed", "-1").stderr == "error: --seed -1 must be zero or positive\n"
    )  # as everywhere
    assert "players=0 is out of range for pantolino" in invoke("train", "pantolino", "--players", "0").stderr


def test_the_games_are_bounded_by_ten_times_the_setting_s_default_before_anything_runs() -> None:
    default = training("pantolino", 2, (), None).settings.games
    assert training("pantolino", 2, (), None, 10 * default).settings.games == 10 * default
    too_many = invoke("train", "pantolino", "--games", str(10 * default + 1), "--quiet")
    assert too_many.exit_code == 2 and too_many.stderr.count("\n") == 1
    assert f"games={10 * default + 1} is out of range; allowed 1..{10 * default:,}" in too_many.stderr
    seven = (("colours", "7"),)  # a dearer setting has a smaller default, so a smaller bound
    assert invoke("train", "pantolino", "--set", "colours=7", "--games", str(10 * default), "--quiet").exit_code == 2
    assert training("pantolino", 2, seven, None, 10 * training("pantolino", 2, seven, None).settings.games)
    bare = [game for game in available_games() if "learned" not in get_game(game).module.POLICIES]
    for game in bare[:1]:  # a game without a learned player, while there is one
        assert "no learned player" in invoke("train", game, "--quiet").stderr


def test_designer_commands_seat_learned(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")  # the shipped 2-player model
    args = ["tournament", "pantolino", "--policies", "learned,keep-jokers", "-n", "100", "--jobs", "1", "-q"]
    result = invoke(*args, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "learned" in result.stdout


def test_simulate_train_trains_even_with_implicit_training_off(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    result = invoke("train", "pantolino", *SMALL, "--games", "100", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["how"] == "trained"


def test_the_progress_counts_the_expert_iteration_rounds_games_scaled_with_the_self_play_games() -> None:
    job = training("panots", 2, (), None)
    default = job.settings
    assert default == get_game("panots").module.POLICIES["learned"].impl.settings(Params(), 2)
    assert default.search_rounds > 0
    assert job.progress_games == default.games + default.search_rounds * default.search_games
    quick = training("panots", 2, (), None, default.games // 10, 3).settings
    assert (quick.games, quick.seed, quick.search_games) == (default.games // 10, 3, default.search_games // 10)
    tiny = training("panots", 2, (), None, 100)
    assert tiny.progress_games == 100 + default.search_rounds * (default.search_games * 100 // default.games)
    assert training("pantolino", None, (), None, 100).progress_games == 100  # no search rounds


def test_the_settings_are_the_game_s_own_for_the_setting_and_the_games_a_user_asks_for() -> None:
    seven = (("colours", "7"),)
    job = training("pantolino", None, seven, None)
    assert (job.players, job.params.colours, job.settings.games) == (2, 7, 10_000)  # 21 tokens: a smaller budget
    assert training("pantolino", 2, seven, None, 60_000).settings.games == 60_000
    assert training("pantolino", 2, (), None).settings.games == 60_000
