"""Who plays when no policy is named: each game's default player, said in `--help` and the run; `--rotate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.engines import get_game
from boardlab.engines.record import default_policy
from boardlab.experiments.cli import app

runner = CliRunner()
GAMES = ["pantolino", "patolli", "panots", "paleolino", "cargolino"]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_names_a_default_player_other_than_random_with_a_reason(game: str) -> None:
    module = get_game(game).module
    policy, why = default_policy(module)
    assert policy in module.POLICIES and policy not in ("random", "learned", "expert") and len(why) > 30
    shown = runner.invoke(app, [game, "--help"], terminal_width=200).output
    assert f"every seat plays {policy}, this game's default" in " ".join(shown.split())


def test_a_plain_patolli_run_plays_and_names_its_default_not_random(tmp_path: Path) -> None:
    result = runner.invoke(app, ["patolli", "-n", "200", "-j", "1", "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert [s["policy"] for s in record["seats"]] == ["balanced", "balanced"]
    assert record["players"].startswith("players: balanced in every seat, this game's default")
    assert "note" not in record


def test_fixed_seats_of_different_policies_say_they_mix_seat_and_policy(tmp_path: Path) -> None:
    args = ["pantolino", "--seats", "keep-jokers,greedy", "-n", "200", "-j", "1", "--out", str(tmp_path)]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "a seat's edge and a policy's strength are mixed here" in result.stdout
    assert "--rotate or run `simulate tournament pantolino --policies keep-jokers,greedy`" in result.stdout


def test_rotate_plays_every_seating_on_the_same_seed_and_averages_each_policy(tmp_path: Path) -> None:
    args = ["pantolino", "--seats", "keep-jokers,greedy,greedy", "--rotate", "-n", "100", "-j", "1", "--json"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    seatings = [[s["policy"] for s in r["seats"]] for r in record["seatings"]]
    assert seatings == [["keep-jokers", "greedy", "greedy"], ["greedy", "greedy", "keep-jokers"],
                        ["greedy", "keep-jokers", "greedy"]]  # fmt: skip
    assert {r["seed"] for r in record["seatings"]} == {0} and "note" not in record
    rates = {p: [] for p in ("keep-jokers", "greedy")}
    for r in record["seatings"]:
        for s in r["seats"]:
            rates[s["policy"]].append(s["win_rate"])
    averaged = {row["policy"]: row for row in record["policies"]}
    for policy, seen in rates.items():
        assert averaged[policy]["win_rate"] == pytest.approx(sum(seen) / len(seen))
        low, high = averaged[policy]["win_rate_ci"]
        assert low < averaged[policy]["win_rate"] < high
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["seating-0", "seating-1", "seating-2"]
    same = runner.invoke(app, ["pantolino", "--seats", "keep-jokers,keep-jokers", "--rotate", "--out", str(tmp_path)])
    assert same.exit_code == 2 and "--rotate needs at least two different policies" in same.output
