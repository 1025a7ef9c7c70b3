"""Panots's learned player: features from the deciding seat's view, legal grabs, seeding and the shipped models."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from boardlab.engines import core, expert
from boardlab.engines.expert import Rollout
from boardlab.engines.learned import choice, lifecycle, searchplay, store, training
from boardlab.engines.learned.choice import Featured
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.panots import POLICIES, Params, features, learned
from boardlab.engines.panots.decisions import Point
from boardlab.engines.panots.rules import VARIANTS, State, open_round, play_round, play_with

Player = POLICIES["learned"].impl
SPEC = learned.SPEC
TINY = replace(learned.SETTINGS, games=24, rounds=2, hidden=(4,), epochs=1, sweeps=1, chunk_games=12)
MAJORITY = Params().with_strings(VARIANTS["second-faces"])  # the majority face up
SHIPPED = [(2, Params()), (4, Params()), (2, MAJORITY), (4, MAJORITY)]


def random_model(seed: int = 0) -> ValueModel:
    rng = np.random.default_rng(seed)
    shapes = [(features.N_FEATURES, 8), (8, 1)]
    return ValueModel(
        tuple(rng.normal(size=s).astype(np.float32) for s in shapes),
        tuple(rng.normal(size=s[1]).astype(np.float32) for s in shapes),
    )


def grabs(params: Params, players: int, n: int, seed: int) -> list[Point]:
    """Copies of the grab points met in ``n`` games with ``learned`` (a random model) in every seat, applied."""
    found: list[Point] = []
    model = random_model(seed)

    def keep(point: Point, games: np.ndarray, propose) -> np.ndarray:
        chosen = choice.choose(point, model)
        after = point.take(np.arange(len(chosen)))
        after.apply(chosen)
        found.append(after)
        return chosen

    player = Player(params, decide=keep)
    play_with(params, [player] * players, n, np.random.default_rng(seed))
    return found


def relabelled(point: Point, perm: np.ndarray) -> Point:
    """The same rows with seat ``s`` renamed ``perm[s]``: the same positions, other seat numbers."""
    out = point.take(np.arange(len(point.key)))
    inverse = np.argsort(perm)
    st = out.state
    for name in ("cell", "bits", "nbc", "cells", "n_cells", "bbox", "deck", "swapped", "discarded", "local"):
        setattr(st, name, getattr(st, name)[:, inverse].copy())
    out.counts, out.gains, out.plans = (getattr(out, a)[:, inverse].copy() for a in ("counts", "gains", "plans"))
    out.grabbed = out.grabbed[:, inverse].copy()
    out.order = perm[out.order]
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_features_are_the_deciding_seats_view_and_nothing_else(players: int) -> None:
    params = Params()
    points = grabs(params, players, 12, seed=1)
    assert len(points) == params.cards_per_player * players
    for point in points[:: players + 1]:
        got = point.features()
        assert got.shape == (len(point.key), features.N_FEATURES) and np.isfinite(got).all()
        hidden = point.take(np.arange(len(point.key)))
        hidden.determinise(core.RandomSource(np.random.default_rng(2)))  # the coming cards dealt anew
        hidden.state.deck[:, :, hidden.state.round + 1 :] = hidden.state.deck[:, ::-1, hidden.state.round + 1 :]
        np.testing.assert_array_equal(hidden.features(), got)
        perm = np.roll(np.arange(players), 1)
        np.testing.assert_array_equal(relabelled(point, perm).features(perm[point.seat]), got)
        other = (point.seat + 1) % players
        assert not np.array_equal(point.features(other), got)


@pytest.mark.parametrize("players", [1, 7])
def test_one_and_seven_players_play_legal_grabs(players: int) -> None:
    params = Params(cards_per_player=4)
    model, seen = random_model(3), []

    def checked(point, games, propose):
        assert isinstance(point, Featured)
        chosen = choice.choose(point, model)
        assert point.legal()[np.arange(len(chosen)), chosen].all()
        seen.append(len(chosen))
        return chosen

    player = Player(params, decide=checked)
    out = play_with(params, [player] * players, 30, np.random.default_rng(4))
    assert sum(seen) == 30 * players * params.cards_per_player
    assert (out["placed"] + out["discarded"] == params.cards_per_player).all()


def test_solo_targets_are_the_score_and_two_player_targets_the_win_share() -> None:
    params = Params(cards_per_player=3)
    one = lifecycle.sampler(Player).samples(params, 1, None, 20, np.random.default_rng(5))
    assert one[1].min() >= 0 and one[1].max() <= 1 and len(np.unique(one[1])) > 2  # not one win share
    two = lifecycle.sampler(Player).samples(params, 2, None, 20, np.random.default_rng(5))
    assert set(np.unique(two[1])) <= {0.0, 0.5, 1.0} or SPEC.sampling.lam < 1


def test_the_model_decides_and_differs_from_the_baseline() -> None:
    params = Params()
    one, two = Player(params, {2: random_model(1)}), Player(params, {2: random_model(2)})
    (planner,) = core.policy_instances(POLICIES, ["planner"], params)
    a = play_with(params, [one, planner], 40, np.random.default_rng(6))["score"]
    b = play_with(params, [two, planner], 40, np.random.default_rng(6))["score"]
    assert not np.array_equal(a, b)
    again = play_with(params, [Player(params, {2: random_model(1)}), planner], 40, np.random.default_rng(6))
    np.testing.assert_array_equal(again["score"], a)


def test_same_seed_same_model_bytes_with_tiny_settings() -> None:
    params, sampler = Params(cards_per_player=4), lifecycle.sampler(Player)

    def backwards(function, jobs):  # runs the chunks in reverse and yields them in order, as two workers might
        return reversed([function(*args) for args in reversed(jobs)])

    first = training.train(sampler, params, 2, TINY).to_bytes()
    assert training.train(sampler, params, 2, TINY, backwards).to_bytes() == first
    assert training.train(sampler, params, 2, replace(TINY, seed=1)).to_bytes() != first


def test_the_cache_key_holds_every_setting_and_the_versions() -> None:
    key = lifecycle.model_key(Player, Params(), 2, learned.SETTINGS)
    assert key["features"] == SPEC.features and key["unit"] == SPEC.unit
    assert key["training"] == learned.SETTINGS.as_key() and key["sampling"]["lambda"] == SPEC.sampling.lam
    assert key["sampling"]["baseline"] == "planner"
    assert lifecycle.model_key(Player, Params(), 2, replace(learned.SETTINGS, epochs=3)) != key
    assert lifecycle.model_key(Player, MAJORITY, 2, learned.SETTINGS) != key
    assert "solo_scale" in lifecycle.model_key(Player, Params(), 1, learned.SETTINGS)["sampling"]


@pytest.mark.parametrize(("players", "params"), SHIPPED, ids=["2p", "4p", "2p-majority", "4p-majority"])
def test_the_shipped_models_load(players: int, params: Params, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    model, path, how = store.obtain(lifecycle.request(Player, params, players, learned.settings_for(Params(), players)))
    assert how == "shipped" and path.parent == SPEC.shipped and model.n_features == features.N_FEATURES


def test_a_shipped_model_plays_and_a_corrupt_one_is_refused(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path / "cache"))
    params = Params()
    model, path, _ = store.obtain(lifecycle.request(Player, params, 2, learned.settings_for(Params(), 2)))
    (rival,) = core.policy_instances(POLICIES, ["greedy"], params)
    out = play_with(params, [Player(params, {2: model}), rival], 200, np.random.default_rng(7))
    assert out["winners"][:, 0].mean() > 0.6
    blob = bytearray(path.read_bytes())
    blob[-20] ^= 0xFF
    (tmp_path / "shipped").mkdir()
    (tmp_path / "shipped" / path.name).write_bytes(bytes(blob))
    monkeypatch.setattr(Player, "spec", replace(SPEC, shipped=tmp_path / "shipped"))
    with pytest.raises(ValueError, match=r"unusable.*BOARDLAB_TRAIN=0"):
        store.obtain(lifecycle.request(Player, params, 2, learned.settings_for(Params(), 2)))
    with pytest.raises(ValueError, match="BOARDLAB_TRAIN=0"):
        store.obtain(lifecycle.request(Player, Params(cards_per_player=9), 2, learned.settings_for(Params(), 2)))


def test_the_expert_rolls_out_with_learned(monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")  # the playouts' learned seats play the shipped model
    params = Params()
    (expert,) = core.policy_instances(POLICIES, ["expert:4@learned"], params)
    assert expert.decide.rollout == "learned" and expert.decide.search(2).playouts == 4
    (default,) = core.policy_instances(POLICIES, ["expert:@learned"], params)
    assert default.decide.search(2).playouts == POLICIES["expert"].parse_arg(None)
    assert isinstance(POLICIES["expert"].parse_arg("4@learned"), Rollout)
    searched = []

    def search_once(point, games, propose):
        if not searched:
            chosen = expert.decide(point, games, propose)
            assert point.legal()[np.arange(len(chosen)), chosen].all()
            searched.append(chosen)
        return propose()

    player = Player(params, decide=search_once)
    play_with(params, [player, player], 3, np.random.default_rng(9))
    assert searched


def test_every_seat_is_valued_as_the_planner_values_it_whoever_plays() -> None:
    params = Params()
    (planner,) = core.policy_instances(POLICIES, ["planner"], params)
    (greedy,) = core.policy_instances(POLICIES, ["greedy"], params)
    source = core.RandomSource(np.random.default_rng(10))
    st = State.initial(params, 2, source, np.arange(8))
    for _ in range(3):
        play_round(params, [planner, planner], st, source)
    points = []
    for impls in ([planner, planner], [planner, greedy]):  # the round's own values reused, or valued again
        copy = st.take(np.arange(8))
        view = open_round(params, impls, copy, core.RandomSource(np.random.default_rng(11)))
        points.append(Point.at(view, copy, np.arange(8), view.order[:, 0], 0, POLICIES))
    for name in ("counts", "gains", "plans"):
        np.testing.assert_array_equal(getattr(points[0], name), getattr(points[1], name))
    np.testing.assert_array_equal(points[0].features(), points[1].features())


def test_expert_iteration_values_every_candidate_by_playouts_with_the_model_in_training() -> None:
    params, model = Params(cards_per_player=4), random_model(3)
    sampler = lifecycle.sampler(Player)
    recorder = searchplay.SearchRecorder(model, 1.0, 2, np.random.default_rng(0))
    expected = []  # per searched point: the search's values and the model's, of every legal candidate

    def spy(point, games, propose):
        real = np.flatnonzero(point.legal().sum(axis=1) >= 2)
        if len(real):
            searched = point.take(real)
            values = expert.candidate_values(searched, searchplay.ROLLOUT, 2)
            row, candidate = np.nonzero(searched.legal())
            after = searched.take(row)
            after.apply(candidate)
            own = np.full(values.shape, np.nan)
            own[row, candidate] = model.predict(after.features(searched.seat[row]))
            expected.append((values, own))
        return recorder(point, games, propose)

    seat = sampler.table.searching_seat(params, 2, spy, model)
    play_with(params, [seat, seat], 6, np.random.default_rng(1))
    assert len(expected) == len(recorder.targets) > 3
    (rollout,) = core.policy_instances(seat.policies, [searchplay.ROLLOUT], params)
    assert rollout.models[2] is model and POLICIES[searchplay.ROLLOUT].impl is Player  # the registry untouched
    for (values, own), targets in zip(expected, recorder.targets, strict=True):
        got = np.full(values.shape, np.nan)
        got[~np.isnan(values)] = targets
        inside = ((got > 0) & (got < 1)).sum(axis=1) == (~np.isnan(values)).sum(axis=1)  # nothing clipped
        np.testing.assert_allclose(np.nanmean(got, axis=1)[inside], np.nanmean(own, axis=1)[inside], atol=1e-6)
        spread = got - np.nanmean(got, axis=1, keepdims=True) - (values - np.nanmean(values, axis=1, keepdims=True))
        np.testing.assert_allclose(spread[inside][~np.isnan(spread[inside])], 0, atol=1e-6)
    features_, targets = recorder.samples(features.N_FEATURES)
    assert (
        features_.shape
        == (len(targets), features.N_FEATURES)
        == (sum(v.size - np.isnan(v).sum() for v, _ in expected), features.N_FEATURES)
    )
    tiny = replace(TINY, search_rounds=1, search_games=6, search_playouts=2)
    assert lifecycle.model_key(Player, params, 2, tiny)["sampling"]["search_share"] == learned.SEARCH_SHARE
    assert "search_share" not in lifecycle.model_key(Player, params, 2, TINY)["sampling"]

    def backwards(function, jobs):
        return reversed([function(*args) for args in reversed(jobs)])

    first = training.train(sampler, params, 2, tiny).to_bytes()
    assert training.train(sampler, params, 2, tiny, backwards).to_bytes() == first


def test_train_takes_the_games_seed_and_search_games_and_keeps_the_rest(monkeypatch) -> None:
    asked = []
    monkeypatch.setattr(store, "obtain", lambda request, *rest: asked.append(request.settings))
    default = learned.settings_for(Params(), 2)
    Player.train(Params(), 2, replace(default, games=6_000, seed=3, search_games=500, epochs=default.epochs + 1))
    assert asked == [replace(default, games=6_000, seed=3, search_games=500)]  # the epochs stay Panots's own


@pytest.mark.parametrize("players", [2, 3])
def test_the_last_round_is_played_out_and_the_others_are_valued(players: int) -> None:
    params, model = Params(cards_per_player=4), random_model(1)
    player = Player(params, {players: model})
    met = {"last": 0, "overruled": 0, "earlier": 0, "tie broken by the model": 0}

    def check(point: Point, games: np.ndarray, propose) -> np.ndarray:
        chosen = player.best(point, games, propose)
        by_model = choice.choose(point, model)
        hidden = point.take(np.arange(len(point.key)))  # only what the seat cannot see changed: the coming cards
        hidden.determinise(core.RandomSource(np.random.default_rng(3)))
        hidden.state.deck[:, :, hidden.state.round + 1 :] = hidden.state.deck[:, ::-1, hidden.state.round + 1 :]
        assert point.state.round >= params.cards_per_player - 1 or not np.array_equal(
            hidden.state.deck, point.state.deck
        )
        np.testing.assert_array_equal(player.best(hidden, games, propose), chosen)
        if point.state.round < params.cards_per_player - 1:
            np.testing.assert_array_equal(chosen, by_model)
            met["earlier"] += 1
            return chosen
        legal = point.legal()
        values = np.full(legal.shape, -np.inf)
        for row, card in zip(*np.nonzero(legal), strict=True):  # each card's round played out by hand
            after = point.take(np.array([row]))
            after.apply(np.array([card]))
            winners, _ = after.play_out(["planner"] * players, core.RandomSource(np.random.default_rng(row)))
            values[row, card] = winners[0, point.seat[row]] / winners[0].sum()
        top = values == values.max(axis=1, keepdims=True)
        own = np.where(top, choice.model_values(point, model), -np.inf)
        expected = np.where(legal.sum(axis=1) >= 2, choice.best_of(own), by_model)
        np.testing.assert_array_equal(chosen, expected)
        met["last"] += 1
        met["overruled"] += int((chosen != by_model).sum())
        met["tie broken by the model"] += int((expected != choice.best_of(np.where(top, 0.0, -np.inf))).sum())
        return chosen

    play_with(params, [Player(params, {players: model}, decide=check)] * players, 40, np.random.default_rng(12))
    assert met["last"] == players and met["earlier"] == 3 * players and met["overruled"] > 0
    assert met["tie broken by the model"] > 0  # tied cards met where the model, not the card's number, decides
