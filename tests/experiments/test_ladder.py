"""The skill ladder: which policies it plays, how seatings reduce to pairwise results, the command and its errors."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from boardlab.analysis.summary import Summary
from boardlab.engines import core
from boardlab.engines.record import Record
from boardlab.experiments import ladder as lad
from boardlab.experiments.cli import app

runner = CliRunner()


def fake_game(*names: str, descriptions: dict[str, str] | None = None, exact=("win-optimal",)) -> SimpleNamespace:
    descriptions = descriptions or {}
    policies = {n: core.Policy(n, descriptions.get(n, f"{n} plays."), None) for n in names}
    return SimpleNamespace(POLICIES=policies, INFO=SimpleNamespace(id="fake"), RECORD=Record(exact=exact))


def test_ladder_plays_random_heuristics_win_optimal_and_expert_budgets() -> None:
    game = fake_game(
        "greedy",
        "random",
        "expert",
        "win-optimal",
        "oracle",
        "turn-optimal",
        descriptions={"oracle": "Sees the hidden cards (cheats; an upper bound)."},
    )
    names, notes = lad.ladder_policies(game, 2, (4, 16), probe=lambda *_: None)
    assert names == ["random", "greedy", "turn-optimal", "win-optimal", "expert:4", "expert:16"]
    assert notes == ["left out (cheat): oracle"]
    # a name is special only where its game declares it exact: elsewhere "win-optimal" is a heuristic like any
    plain = fake_game("random", "win-optimal", "solved", exact=("solved",))
    assert lad.ladder_policies(plain, 2, (), probe=lambda *_: None)[0] == ["random", "win-optimal", "solved"]


def test_ladder_without_expert_or_win_optimal_for_this_count_says_so() -> None:
    game = fake_game("random", "keep", "win-optimal")
    names, notes = lad.ladder_policies(game, 3, (4,), probe=lambda _m, _n, k: None if k == 2 else "2 players only")
    assert names == ["random", "keep"]
    assert notes == [
        "win-optimal left out: it does not play these 3-player games (2 players only)",
        "fake has no 'expert' policy yet: no expert rungs",
    ]


def test_a_ladder_plays_a_variant_and_knobs_and_records_them() -> None:
    plan = lad.plan_ladder("pantolino", n_games=100, budgets=(), variant="escaping-boots")  # discovered rungs
    assert all(arm.spec.variant == "escaping-boots" and arm.spec.params.escaping_boots for *_, arm in plan.arms)
    assert "win-optimal" not in plan.policies  # the exact solution is of the base game: the probe plays the variant
    assert any(note.startswith("win-optimal left out") and "escaping_boots" in note for note in plan.notes)
    knobs = lad.plan_ladder("pantolino", n_games=100, policies=["random", "greedy"], settings=(("rolls", "2"),))
    assert {arm.spec.params.rolls for *_, arm in knobs.arms} == {2}
    assert knobs.settings["knobs"] == {"rolls": "2"} and plan.settings["variant"] == "escaping-boots"
    with pytest.raises(ValueError, match="unknown variant 'nope'"):
        lad.plan_ladder("pantolino", policies=["random", "greedy"], variant="nope")


def test_seatings_put_each_policy_alone_in_every_seat() -> None:
    assert lad.seatings("a", "b", 2) == [("a", "b"), ("b", "a")]
    three = lad.seatings("a", "b", 3)
    assert len(three) == 6 and three[0] == ("a", "b", "b") and three[3] == ("b", "a", "a")


def summary(wins: list[int], shared: list[int], n: int) -> SimpleNamespace:
    s = Summary(n, np.array(wins), np.array(shared), *(np.zeros(3) for _ in range(3)), np.zeros(1))
    return SimpleNamespace(summary=s)


def test_pair_points_count_the_lone_seat_and_half_its_shared_wins() -> None:
    # a alone at seat 1 among b: a won 10 alone, shared 4 with a b; b players won the other 86 (2 shared between bs)
    result = summary([50, 10, 32], [4, 4, 2], 100)
    assert lad.pair_points(("b", "a", "b"), "a", result) == 12
    assert lad.pair_points(("b", "a", "b"), "b", result) == 88
    assert lad.pair_points(("a", "b"), "a", summary([60, 30], [10, 10], 100)) == 65


@pytest.fixture(scope="module")
def pantolino_ladder() -> lad.Ladder:
    return lad.play_ladder(lad.plan_ladder("pantolino", n_games=600, budgets=(4,), seed=3))


def test_pantolino_ladder_rates_heuristics_above_random(pantolino_ladder: lad.Ladder) -> None:
    result = pantolino_ladder
    rating = result.ratings.set_index("policy")["rating"]
    assert result.policies[0] == "random" and result.policies[-1] == "expert:4"
    assert rating["random"] == 0 and (rating.drop("random") > 300).all()
    assert rating["keep-jokers"] > rating["reroll-jokers"]
    assert result.chain[0].weaker == "random" and len(result.chain) >= 2
    assert [c.weaker for c in result.chain[1:]] == [c.stronger for c in result.chain[:-1]]
    assert all(c.rate >= 0.55 and c.low > 0.5 for c in result.chain)
    assert 0 <= result.luck[1] <= result.luck[0] <= result.luck[2] <= 1
    searching = result.pairs["policy"].str.startswith("expert") | result.pairs["opponent"].str.startswith("expert")
    assert (result.pairs["games"] == np.where(searching, 1200 // lad.SEARCH_SHARE, 1200)).all()
    assert len(result.pairs) == len(result.policies) * (len(result.policies) - 1) // 2


def test_three_players_balance_seats_so_pairs_are_fair(tmp_path: Path) -> None:
    result = lad.play_ladder(
        lad.plan_ladder("pantolino", players=3, n_games=500, seed=1, policies=["random", "keep-jokers"])
    )
    row = result.pairs.iloc[0]
    assert row["games"] == 3000 and row["policy"] == "random" and row["win_rate"] < 0.2


def test_ladder_command_prints_and_writes_tables_and_figure(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(
        lad, "default_budgets", lambda game: ()
    )  # heuristics only: the expert plays a few games a second
    out = runner.invoke(app, ["ladder", "cargolino", "-n", "300", "--jobs", "1", "--quiet", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "skill chain:" in out.stdout and "luck share:" in out.stdout and "no expert rungs" in out.stdout
    ratings = pd.read_parquet(tmp_path / "ratings.parquet")
    assert ratings["policy"].iloc[0] == "random" and {"rating", "rating_lo", "rating_hi"} <= set(ratings.columns)
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    assert len(pairs) == 15 and (pairs["games"] == 600).all()  # random, selfish, blocker, hindmost, detective, learned
    record = json.loads((tmp_path / "ladder.json").read_text())
    assert record["games_per_seating"] == 300 and record["chain_margin"]["min_rate"] == 0.55
    assert (record["seed"], record["variant"], record["knobs"]) == (0, None, {}) and "command" in record
    assert (tmp_path / "ladder.png").stat().st_size > 1000 and (tmp_path / "chain.csv").exists()
    assert any((tmp_path / "chunks").iterdir())  # finished chunks are kept: a stopped ladder resumes


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ladder", "pantolinoo"], "did you mean 'pantolino'"),
        (["ladder", "pantolino", "--budgets", "4,x"], "'x' is not a positive whole number"),
        (["ladder", "pantolino", "--budgets", "0"], "'0' is not a positive whole number"),
        (["ladder", "pantolino", "--budgets", "4,4"], "repeats a budget"),
        (["ladder", "pantolino", "--budgets", " "], "names no budget"),
        (["ladder", "pantolino", "--budgets", ","], "has an empty item"),
        (["ladder", "pantolino", "--players", "9"], "players=9 is out of range"),
        (["ladder", "patolli", "--players", "3"], "players=3 is out of range"),
        (["ladder", "paleolino"], "is cooperative"),
        (["ladder", "pantolino", "-n", "0"], "is not a positive whole number"),
        (["ladder", "pantolino", "--jobs", "0"], "--jobs 0 must be at least 1"),
    ],
)
def test_bad_ladder_input_is_one_line_and_exit_2_before_any_work(args: list[str], message: str, tmp_path: Path) -> None:
    out = runner.invoke(app, [*args, "--quiet", "--out", str(tmp_path / "never")])
    assert out.exit_code == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "never").exists()


def test_a_failed_figure_leaves_the_previous_ladder_whole(pantolino_ladder: lad.Ladder, tmp_path, monkeypatch) -> None:
    import dataclasses

    from matplotlib.figure import Figure

    written = pantolino_ladder.save(tmp_path)
    before = {p.name: p.read_bytes() for p in written}
    later = dataclasses.replace(pantolino_ladder, notes=["a later run"])  # its ladder.json differs

    def full_disk(self, path, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    with pytest.raises(OSError, match="No space"):
        later.save(tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def rated(*rows: tuple[str, float, float, float]) -> lad.Ladder:
    frame = pd.DataFrame(rows, columns=["policy", "rating", "rating_lo", "rating_hi"])
    return lad.Ladder("fake", 2, list(frame["policy"]), None, frame, [], (0.3, 0.2, 0.4))


def test_the_top_rung_is_the_measured_strongest_whatever_its_kind() -> None:
    # a heuristic rated clearly above the expert is named strongest, though the expert's rung is listed last
    clear = rated(("random", 0, 0, 0), ("heuristic", 900, 880, 920), ("expert:512", 700, 680, 720))
    assert clear.strongest() == ("heuristic", None)
    assert clear.lines()[0] == "strongest: heuristic (rated highest, its interval clear of every other)"
    close = rated(("random", 0, 0, 0), ("expert:512", 890, 860, 920), ("heuristic", 900, 870, 930))
    assert close.strongest() == ("heuristic", "expert:512")
    assert close.lines()[0] == (
        "strongest: none detectably; heuristic rates highest, its interval overlapping expert:512's"
    )
