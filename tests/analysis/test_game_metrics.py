"""Game metrics: definitions on hand-made outcomes, absent where undefined, and the same names for every game."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardlab.analysis import game_metrics as gm
from boardlab.analysis import stats
from boardlab.analysis.summary import Summary
from boardlab.engines import available_games, get_game


def outcome(winner: list[int], players: int = 2, **extra: np.ndarray) -> dict[str, np.ndarray]:
    winner_arr = np.array(winner, dtype=np.int8)
    winners = np.zeros((len(winner), players), dtype=bool)
    for g, w in enumerate(winner):
        if w >= 0:
            winners[g, w] = True
        elif w == -1:  # a win shared by seats 0 and 1
            winners[g, :2] = True
    return {
        "score": np.zeros((len(winner), players), dtype=np.int32),
        "winner": winner_arr,
        "winners": winners,
        "turns": np.arange(10, 10 + len(winner)),
        **extra,
    }


def test_advantage_counts_a_shared_win_as_half_and_decisiveness_single_winners() -> None:
    out = outcome([0, 0, 0, 1, -1, 0, 1, 0])  # seat 0: 5 + 1/2 of 8 games; fair share 1/2
    metrics = gm.compute(Summary.from_outcome(out, {}), cooperative=False)
    assert metrics["first_seat_advantage"].value == pytest.approx(5.5 / 8 - 0.5)
    assert metrics["max_seat_advantage"].value == pytest.approx(5.5 / 8 - 0.5)
    assert metrics["seat_advantage"][1].value == pytest.approx(2.5 / 8 - 0.5)
    assert metrics["decisiveness"].value == pytest.approx(7 / 8)
    assert metrics["turns"].value == pytest.approx(13.5)  # 10..17 seats' turns
    assert metrics["duration"].value == pytest.approx(7.0)  # rounds of 2 turns, the last maybe cut short: 5,6,6,..,9
    for value in (metrics["first_seat_advantage"], metrics["decisiveness"], metrics["duration"], metrics["turns"]):
        assert value.low <= value.value <= value.high
    assert "drama" not in metrics and "lead_changes" not in metrics  # no mid-game columns: absent, not zero


def test_drama_is_the_share_of_games_won_from_behind_at_mid_game() -> None:
    mid = np.array([[1, 3], [5, 2], [2, 2], [0, 4]], dtype=np.int32)
    out = outcome([0, 0, 1, 1], mid_score=mid, lead_changes=np.array([2, 0, 1, 1], dtype=np.int16))
    metrics = gm.compute(Summary.from_outcome(out, {}), cooperative=False)
    assert metrics["drama"].value == pytest.approx(1 / 4)  # game 0 only: seat 0 trailed 1 to 3 and won
    assert metrics["lead_changes"].value == pytest.approx(1.0)


def cooperative(won: list[bool], players: int) -> dict[str, np.ndarray]:
    """A cooperative game's columns: -1 the table won (every seat a winner), -2 it lost."""
    return {
        "score": np.zeros((len(won), players), dtype=np.int32),
        "winner": np.where(won, -1, -2).astype(np.int8),
        "winners": np.repeat(np.array(won)[:, None], players, axis=1),
        "turns": np.full(len(won), 12),
    }


@pytest.mark.parametrize("players", [1, 3])
def test_a_cooperative_game_has_duration_and_the_tables_win_rate_only(players: int) -> None:
    summary = Summary.from_outcome(cooperative([True, False, True, True], players), {}, cooperative=True)
    metrics = gm.compute(summary, cooperative=True)
    assert set(metrics) == {"duration", "turns", "table_win_rate"}
    assert metrics["duration"].value == -(-12 // players) and metrics["turns"].value == 12
    rate = metrics["table_win_rate"]
    low, high = stats.wilson(3, 4)
    assert (rate.value, rate.low, rate.high) == pytest.approx((0.75, float(low), float(high)))
    assert gm.format_value("table_win_rate", rate).startswith("75.0% (")


def test_the_tables_win_rate_is_absent_not_zero_for_a_competitive_game() -> None:
    metrics = gm.compute(Summary.from_outcome(outcome([0, 1, 1, 0]), {}), cooperative=False)
    assert "table_win_rate" not in metrics and "decisiveness" in metrics
    lost = gm.compute(Summary.from_outcome(cooperative([False] * 5, 2), {}, cooperative=True), cooperative=True)
    assert lost["table_win_rate"].value == 0 and lost["table_win_rate"].high > 0  # never won: zero, with a bound


def test_the_tables_win_rate_reaches_the_json_the_metrics_file_and_the_summary(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from boardlab.experiments.cli import app

    args = ["paleolino", "-p", "greedy", "--players", "2", "-n", "600", "--jobs", "1", "--out", str(tmp_path)]
    printed = CliRunner().invoke(app, args)
    assert printed.exit_code == 0, printed.output
    assert "table_win_rate" in printed.output and "first_seat_advantage" not in printed.output
    as_json = CliRunner().invoke(app, [*args, "--json"])
    metrics = json.loads(as_json.output)["metrics"]["game_metrics"]
    assert set(metrics) == {"duration", "turns", "table_win_rate"}
    low, high = metrics["table_win_rate"]["ci"]
    assert 0 < low < metrics["table_win_rate"]["value"] < high < 1
    saved = json.loads((tmp_path / "metrics.json").read_text())["game_metrics"]
    assert saved["table_win_rate"] == metrics["table_win_rate"]


def test_metrics_survive_merging_and_checkpoint_arrays() -> None:
    whole_out = outcome([0, 1, 0, 1, 1])
    a = Summary.from_outcome({k: v[:3] for k, v in whole_out.items()}, {})
    b = Summary.from_outcome({k: v[3:] for k, v in whole_out.items()}, {})
    merged = Summary.from_arrays(a.merge(b).to_arrays())
    whole = Summary.from_outcome(whole_out, {})
    assert gm.compute(merged, False) == gm.compute(whole, False)


@pytest.mark.parametrize("game", available_games())
def test_every_game_reports_the_metrics_it_can_define(game: str) -> None:
    module = get_game(game).module
    seats = [next(iter(module.POLICIES))] * max(module.INFO.min_players, 2 if module.INFO.max_players >= 2 else 1)
    out = module.play(module.Params(), seats, 200, np.random.default_rng(1))
    summary = Summary.from_outcome(out, module.METRICS, module.INFO.cooperative)
    metrics = gm.compute(summary, module.INFO.cooperative, module.INFO.turns_are_rounds)
    turns, players = out["turns"], len(seats)
    rounds = turns if module.INFO.turns_are_rounds else -(-turns // players)  # a round: every seat's turn once
    assert metrics["duration"].value == pytest.approx(rounds.mean())
    assert ("turns" in metrics) != module.INFO.turns_are_rounds
    competitive = not module.INFO.cooperative
    assert ("first_seat_advantage" in metrics) == competitive and ("decisiveness" in metrics) == competitive
    assert ("drama" in metrics) == (competitive and "mid_score" in out and "lead_changes" in out)
    assert ("table_win_rate" in metrics) == (not competitive)
    for name, value in metrics.items():
        assert name in gm.DEFINITIONS or name == "seat_advantage"
        for v in value if isinstance(value, list) else [value]:
            assert v.low <= v.value + 1e-12 and v.value <= v.high + 1e-12


def test_pantolino_lead_changes_and_mid_scores_are_plausible() -> None:
    from boardlab.engines.pantolino import Params, play

    out = play(Params(), ["greedy", "greedy"], 2000, np.random.default_rng(0))
    assert np.all(out["mid_score"] <= out["score"])  # boots never fall without steals
    assert np.all(out["mid_score"].sum(axis=1) <= out["score"].sum(axis=1))
    assert 0 < out["lead_changes"].mean() < out["turns"].mean()
    drama = gm.compute(Summary.from_outcome(out, {}), False)["drama"]
    assert 0.05 < drama.value < 0.5


def test_ladder_metrics_reuse_the_ladder_chain_and_luck_share() -> None:
    from types import SimpleNamespace

    ladder = SimpleNamespace(chain=[object(), object(), object()], luck=(0.3, 0.28, 0.32))
    metrics = gm.from_ladder(ladder)
    assert metrics["skill_depth"].value == 3
    assert (metrics["luck_share"].value, metrics["luck_share"].low, metrics["luck_share"].high) == (0.3, 0.28, 0.32)


def test_a_game_that_counts_rounds_as_turns_has_no_separate_turns() -> None:
    metrics = gm.compute(Summary.from_outcome(outcome([0, 1, 1, 0]), {}), False, turns_are_rounds=True)
    assert metrics["duration"].value == pytest.approx(11.5) and "turns" not in metrics


def test_duration_is_rounds_in_every_game() -> None:
    """Panots deals one card a round; Pantolino and Patolli count each player's turn, so a round is two turns."""
    from boardlab.engines.panots import Params as PanotsParams

    def length(game: str, seats: list[str], n: int = 50) -> tuple[dict, np.ndarray]:
        module = get_game(game).module
        out = module.play(module.Params(), seats, n, np.random.default_rng(3))
        summary = Summary.from_outcome(out, module.METRICS, module.INFO.cooperative)
        return gm.compute(summary, module.INFO.cooperative, module.INFO.turns_are_rounds), out["turns"]

    panots, _ = length("panots", ["greedy", "greedy"])
    assert panots["duration"].value == PanotsParams().cards_per_player and "turns" not in panots
    for game in ("pantolino", "patolli"):
        metrics, turns = length(game, ["random", "random"])
        assert metrics["duration"].value == pytest.approx(np.ceil(turns / 2).mean()), game
        assert metrics["turns"].value == pytest.approx(turns.mean()), game


def test_a_name_means_one_thing_in_every_game_and_the_list_shows_what_tune_accepts() -> None:
    """Every game's metric table: a shared name has one meaning; no game redefines a game metric; the names
    ``simulate list GAME`` offers as tuning targets are exactly those ``simulate tune --target`` accepts."""
    from boardlab.experiments import tune
    from boardlab.experiments.commands.listing import target_names

    meanings = {name: (d.label, "game") for name, d in gm.DEFINITIONS.items()}
    for game in available_games():
        module = get_game(game).module
        for name, metric in module.METRICS.items():
            assert name not in gm.DEFINITIONS, f"{game} redefines the game metric {name}"
            assert meanings.setdefault(name, (metric.label, metric.kind)) == (metric.label, metric.kind), (game, name)
        listed = target_names(game)
        for name in tune.metric_names(module):
            if name in listed:
                assert tune.parse_target(game, f"{name}=1", listed).metric == name
            else:
                with pytest.raises(tune.TuneError):
                    tune.parse_target(game, f"{name}=1", listed)


def test_a_run_prints_lengths_in_rounds_and_turns_and_shares_of_games_as_shares(tmp_path: Path) -> None:
    """Patolli's roll-off prints as the share of games seat 1 moved first, not as a mean seat number."""
    from typer.testing import CliRunner

    from boardlab.experiments.cli import app

    printed = CliRunner().invoke(app, ["patolli", "-p", "random", "-n", "300", "--jobs", "1", "--out", str(tmp_path)])
    assert printed.exit_code == 0, printed.output
    text = " ".join(printed.output.split())
    assert "mean game length: " in text and " rounds, " in text and " turns" in text
    assert "games in which seat 1 moved first (the roll-off's or the knob's choice): " in text
    share = text.split("games in which seat 1 moved first (the roll-off's or the knob's choice): ")[1].split()[0]
    assert share.endswith("%") and 20 < float(share[:-1]) < 80
    assert "seat that moved first per game" not in text
