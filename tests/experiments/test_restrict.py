"""`simulate restrict` and its library (experiments.restrict): the cost table, the dominant-strategy answer, bad
input, --json, resume, the same output with 1 or 2 jobs, and the chunk identity of a restricted seat."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from boardlab.experiments import restrict as rp
from boardlab.experiments.cli import app
from boardlab.experiments.run import RunSpec, open_runner
from boardlab.experiments.run.spec import Knobs

runner = CliRunner()
GAME = "pantolino"
SMALL = ["restrict", GAME, "--restrictions", "never-keep-joker,largest-token", "-n", "40", "--quiet"]


def test_bad_input_is_one_line_and_exit_2(tmp_path) -> None:
    for args, words in (
        (["restrict", GAME, "--restrictions", "never-keep-jokr"], "did you mean 'never-keep-joker'"),
        (["restrict", GAME, "--strong", "random"], "takes no restriction"),
        (["restrict", GAME, "--strong", "learned!largest-token"], "unrestricted"),
        (["restrict", GAME, "--restrictions", "never-steal"], "nothing to play"),
        (["restrict", GAME, "-n", "0"], "-n"),
    ):
        result = runner.invoke(app, [*args, "--out", str(tmp_path / "x")])
        assert result.exit_code == 2, (args, result.output)
        assert words in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_never_steal_is_skipped_without_escaping_boots_and_played_with_it() -> None:
    plain = rp.plan_restrict(GAME, ["never-steal", "largest-token"], n_games=10, shape=rp.Shape(False))
    assert [e.restriction for e in plain.entries] == ["largest-token"] and "escaping-boots" in plain.skipped[0]
    steals = rp.plan_restrict(
        GAME, ["never-steal"], n_games=10, knobs=Knobs(variant="escaping-boots"), shape=rp.Shape(False)
    )
    assert [a.spec.seats for _, a in steals.arms] == [
        ("learned!never-steal", "learned"),
        ("learned", "learned!never-steal"),
    ]


def test_json_ranks_the_restrictions_by_cost_and_answers_the_dominant_question(tmp_path) -> None:
    result = runner.invoke(app, [*SMALL, "--json", "--jobs", "1", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    rows = pd.DataFrame(record["policies"])
    restricted = rows[rows["kind"] == "restriction"]
    assert list(restricted["cost"]) == sorted(restricted["cost"], reverse=True)
    assert set(rows["policy"]) == {
        "learned!never-keep-joker", "learned!largest-token", "random", "keep-jokers", "reroll-jokers", "greedy",
        "turn-optimal",
    }  # fmt: skip
    for row in record["policies"]:
        assert row["cost"] == pytest.approx(0.5 - row["share"]) and row["cost_lo"] <= row["cost"] <= row["cost_hi"]
        assert row["games"] == 80
    assert record["dominant_text"].startswith(("Yes: the simplest", "No: no named policy"))
    assert len(record["findings"]) == 2 and all(f.startswith("A player who") for f in record["findings"])
    saved = json.loads((tmp_path / "a" / "run.json").read_text())
    assert saved["policies"] == record["policies"] and (tmp_path / "a" / "choices.parquet").is_file()
    assert saved["game_version"] and "numpy" in saved["versions"] and isinstance(saved["command"], str)


def test_one_and_two_jobs_give_the_same_table_and_a_second_run_resumes(tmp_path) -> None:
    for jobs, folder in (("1", "one"), ("2", "two")):
        result = runner.invoke(app, [*SMALL, "--jobs", jobs, "--out", str(tmp_path / folder)])
        assert result.exit_code == 0, result.output
        shown = result.stdout.split("written:")[0]  # --quiet hides the progress only: the table is the answer
        assert "costliest first" in shown and "A player who" in shown, shown
        assert not re.search(r"\b[a-z]+_[a-z_]+\b|95% CI", shown), shown  # worded headers, no identifier
    one, two = ((tmp_path / f / "choices.csv").read_bytes() for f in ("one", "two"))
    assert one == two
    plan = rp.plan_restrict(GAME, ["never-keep-joker", "largest-token"], n_games=40)
    with open_runner(tmp_path / "one" / "chunks", False, "loky", 1) as again:
        played = again.play([arm.spec for _, arm in plan.arms])
    assert all(r.chunks_resumed == len(r.spec.chunks()) for r in played)
    choices = rp.analyse(plan, played)
    assert choices.table.to_csv(index=False).encode() == one
    shown = choices.display()  # each value with its interval as every page writes it: "value (low–high)"
    assert list(shown.columns) == [
        "policy", "its player", "games", "win share (95% interval)", "cost in points (95% interval)", "verdict"
    ]  # fmt: skip
    row = shown[shown["policy"] == "learned (largest-token)"].iloc[0]
    assert re.fullmatch(r"\d+\.\d% \(-?\d+\.\d–\d+\.\d\)", row["win share (95% interval)"]), row
    assert re.fullmatch(r"[+-]\d+\.\d \([+-]\d+\.\d to [+-]\d+\.\d\)", row["cost in points (95% interval)"]), row


def test_a_restricted_seat_is_part_of_the_chunk_identity() -> None:
    base = RunSpec(GAME, ("learned", "learned"), 10, 0)
    restricted = RunSpec(GAME, ("learned!never-keep-joker", "learned"), 10, 0)
    other = RunSpec(GAME, ("learned!largest-token", "learned"), 10, 0)
    assert len({base.identity_text(), restricted.identity_text(), other.identity_text()}) == 3
    assert restricted.identity()["models"]["learned!never-keep-joker"] == base.identity()["models"]["learned"]


def test_the_dominant_answer_names_the_simplest_within_the_margin_or_the_closest() -> None:
    rows = [
        {"policy": "a!x", "kind": "restriction", "does": "never does x", "cost": 0.01, "cost_lo": -0.01,
         "cost_hi": 0.03, "verdict": "never needed", "simplicity": 2},
        {"policy": "h1", "kind": "heuristic", "does": "plays h1", "cost": 0.3, "cost_lo": 0.28, "cost_hi": 0.32,
         "verdict": "costs", "simplicity": 0},
        {"policy": "h2", "kind": "heuristic", "does": "plays h2", "cost": 0.015, "cost_lo": 0.0, "cost_hi": 0.03,
         "verdict": "never needed", "simplicity": 1},
    ]  # fmt: skip
    found = rp.Choices("g", 2, "a", pd.DataFrame(rows), [], {})
    assert found.dominant()["policy"] == "h2" and found.dominant_text().startswith("Yes: the simplest policy")
    assert "only its estimate is within 2 points (its interval reaches +3.0)" in found.dominant_text()  # 0.03 > 0.02
    sure = rp.Choices("g", 2, "a", pd.DataFrame([{**r, "cost_hi": min(r["cost_hi"], 0.02)} for r in rows]), [], {})
    assert sure.dominant()["policy"] == "h2" and "only its estimate" not in sure.dominant_text()
    far = rp.Choices("g", 2, "a", pd.DataFrame([{**r, "cost": r["cost"] + 0.1} for r in rows]), [], {})
    assert far.dominant()["policy"] is None and "the closest is a!x" in far.dominant_text()
    assert rp.verdict(0.05, 0.01, 0.09) == "costs" and rp.verdict(-0.05, -0.09, -0.01) == "better without"


@pytest.mark.parametrize("game", ["cargolino", "panots", "paleolino"])
def test_every_game_that_declares_restrictions_plays_them(game: str, tmp_path) -> None:
    result = runner.invoke(app, ["restrict", game, "-n", "4", "--jobs", "1", "--json", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    declared = [r for r in record["policies"] if r["kind"] == "restriction"]
    seatings = 1 if record["cooperative"] else 2  # a cooperative restriction holds for the whole table
    assert len(declared) >= 2 and all(r["games"] == 4 * seatings for r in record["policies"])


def test_a_cooperative_table_is_measured_against_the_unrestricted_table_on_the_same_games() -> None:
    plan = rp.plan_restrict("paleolino", ["never-store"], n_games=30, shape=rp.Shape(True))
    assert plan.cooperative and plan.players == 2
    assert [arm.spec.seats for _, arm in plan.arms] == [
        ("learned", "learned"), ("learned!never-store", "learned!never-store"), ("random", "random"),
        ("greedy", "greedy"), ("planner", "planner"),
    ]  # fmt: skip
    assert len({(a.spec.n_games, a.spec.seed, a.spec.chunk_size) for _, a in plan.arms}) == 1  # the same games
    found = rp.play_restrict(plan)
    base, low, high = found.baseline
    assert low <= base <= high and found.fair == base and found.unit == "table win rate"
    for row in found.table.to_dict(orient="records"):
        assert row["games"] == 30 and row["cost"] == pytest.approx(base - row["share"])
        assert row["cost_lo"] <= row["cost"] <= row["cost_hi"]
    assert found.lines()[0].startswith("Cooperative: each row is a whole table")
    assert found.findings()[0].startswith("A table where every player never keeps a chip")
    assert "points of table win rate" in found.findings()[0] and "(a table where every" in found.dominant_text()
    random_row = found.table[found.table["policy"] == "random"].iloc[0]
    assert random_row["cost"] > 0  # a random table wins less often than a learned one
    # a solo table, with the expert as its strong player: no 1-player model ships, and training one takes minutes
    solo = rp.plan_restrict("paleolino", ["fullest-cave"], 1, 5, strong="expert", shape=rp.Shape(False))
    assert [arm.spec.seats for _, arm in solo.arms] == [("expert",), ("expert!fullest-cave",)]
