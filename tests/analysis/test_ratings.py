"""Bradley–Terry ratings, the skill chain and the luck share on small hand-made tables."""

from __future__ import annotations

import math

import choix
import numpy as np
import pandas as pd
import pytest

from boardlab.analysis import ratings


def table(rows: list[tuple[str, str, int, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["policy", "opponent", "games", "points"])


HAND = table(
    [
        ("random", "a", 100, 30),
        ("random", "b", 100, 20),
        ("a", "b", 100, 40),
    ]
)


def test_fit_matches_choix_maximum_likelihood_on_expanded_games() -> None:
    # the same table as one (winner, loser) pair per game, fitted by choix's optimiser instead of spectral ranking
    data = []
    index = {"random": 0, "a": 1, "b": 2}
    for r in HAND.itertuples():
        i, j = index[r.policy], index[r.opponent]
        data += [(i, j)] * int(r.points) + [(j, i)] * int(r.games - r.points)
    expected = choix.opt_pairwise(3, data, alpha=1e-9)
    fitted = ratings.fit_ratings(HAND, ["random", "a", "b"], reps=50)
    theta = fitted["theta"].to_numpy()
    assert theta - theta.mean() == pytest.approx(expected - expected.mean(), abs=2e-3)
    elo = fitted.set_index("policy")["rating"]
    assert elo["random"] == 0 and elo["b"] > elo["a"] > 0
    assert elo["a"] == pytest.approx(ratings.ELO * (expected[1] - expected[0]), abs=0.5)


def test_shared_wins_count_half_and_two_policies_fit_the_log_odds() -> None:
    fitted = ratings.fit_ratings(table([("random", "a", 50, 19.5)]), ["random", "a"], reps=50)
    theta = fitted.set_index("policy")["theta"]
    assert theta["a"] - theta["random"] == pytest.approx(math.log(30.5 / 19.5), abs=1e-3)


def test_intervals_hold_the_estimate_and_shrink_with_more_games() -> None:
    small = ratings.fit_ratings(HAND, ["random", "a", "b"]).set_index("policy")
    big_table = HAND.assign(games=HAND["games"] * 100, points=HAND["points"] * 100)
    big = ratings.fit_ratings(big_table, ["random", "a", "b"]).set_index("policy")
    assert (small["rating_lo"] <= small["rating"]).all() and (small["rating"] <= small["rating_hi"]).all()
    assert small.loc["random", "rating_lo"] == small.loc["random", "rating_hi"] == 0
    assert (big["rating_hi"] - big["rating_lo"])["b"] < (small["rating_hi"] - small["rating_lo"])["b"] / 5
    again = ratings.fit_ratings(HAND, ["random", "a", "b"]).set_index("policy")
    assert again.equals(small)  # the bootstrap is seeded


def test_a_pair_won_every_time_stays_finite() -> None:
    fitted = ratings.fit_ratings(table([("random", "a", 200, 0)]), ["random", "a"], reps=20)
    assert np.isfinite(fitted["rating"]).all() and fitted["rating"].iloc[1] > 400


def test_skill_chain_is_the_longest_path_from_random_by_the_margin() -> None:
    pairs = table(
        [
            ("random", "a", 1000, 300),  # a beats random 70%
            ("random", "b", 1000, 100),
            ("random", "c", 1000, 50),
            ("a", "b", 1000, 350),  # b beats a 65%
            ("a", "c", 1000, 200),
            ("b", "c", 1000, 440),  # c beats b 56%: a link (lower bound 0.529)
            ("random", "d", 40, 17),  # d beats random 57.5% on 40 games: lower bound below 0.5, no link
        ]
    )
    chain = ratings.skill_chain(pairs, "random")
    assert [(c.weaker, c.stronger) for c in chain] == [("random", "a"), ("a", "b"), ("b", "c")]
    assert chain[2].rate == pytest.approx(0.56) and chain[2].low > 0.5 and chain[2].games == 1000
    stricter = ratings.skill_chain(pairs, "random", min_rate=0.6, rating={"b": 1, "c": 2})  # c over b (56%) fails
    assert [c.stronger for c in stricter] == ["a", "c"]  # equal length: the chain ending higher (c) wins
    assert ratings.skill_chain(pairs, "c") == []


def test_skill_chain_follows_a_cycle_once() -> None:
    pairs = table([("random", "a", 1000, 100), ("a", "b", 1000, 100), ("b", "random", 1000, 100)])
    chain = ratings.skill_chain(pairs, "random")
    assert [c.stronger for c in chain] == ["a", "b"]


def test_luck_share_matches_a_hand_computation() -> None:
    strength = {"random": 0.0, "a": 100.0, "b": 200.0}
    per_pair, (share, low, high) = ratings.luck_share(HAND, strength)
    # weaker: random (30 of 100), random (20 of 100), a (40 of 100)
    assert per_pair["weaker"].tolist() == ["random", "random", "a"]
    assert per_pair["weaker_win_rate"].tolist() == pytest.approx([0.3, 0.2, 0.4])
    assert share == pytest.approx(90 / 300) and low < share < high and low >= 0 and high <= 1
    flipped = table([("b", "random", 100, 80)])  # the weaker can be the opponent column
    per_pair, (share, _, _) = ratings.luck_share(flipped, strength)
    assert per_pair["weaker"].tolist() == ["random"] and share == pytest.approx(0.2)
