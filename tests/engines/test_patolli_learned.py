"""Patolli's learned player: features from the deciding seat's view, legal choices, seeding and the shipped model."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from boardlab.engines import core
from boardlab.engines.expert import Rollout
from boardlab.engines.learned import cache, lifecycle, selfplay, store, training
from boardlab.engines.learned.choice import Featured, choose
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.patolli import POLICIES, Params, features, learned, reference
from boardlab.engines.patolli.decisions import ExtraPoint, MarkerPoint, Point
from boardlab.engines.patolli.rules import INFO, VARIANTS, Moves, State, grey_squares, play_with, start, step

Player = POLICIES["learned"].impl
SPEC = learned.SPEC
TINY = replace(SPEC.settings, games=60, rounds=2, hidden=(4,), epochs=1, sweeps=1, chunk_games=30)


def random_model(params: Params, seed: int = 0) -> ValueModel:
    rng = np.random.default_rng(seed)
    shapes = [(features.n_features(params), 8), (8, 1)]
    return ValueModel(
        tuple(rng.normal(size=s).astype(np.float32) for s in shapes),
        tuple(rng.normal(size=s[1]).astype(np.float32) for s in shapes),
    )


def midgame(params: Params, n: int, rolls: int, seed: int) -> State:
    """``n`` games after ``rolls`` rolls of random play."""
    (impl,) = core.policy_instances(POLICIES, ["random"], params)
    source = core.RandomSource(np.random.default_rng(seed))
    state = start(params, np.arange(n), source, [impl, impl])
    for _ in range(rolls):
        step(params, [impl, impl], state, source)
    return state


def swapped(state: State) -> State:
    """The same games with the seats' roles exchanged (the default starts are opposite: a symmetry)."""
    out = state.keep_rows(np.arange(len(state.game)))
    for name in ("track", "off", "home", "tokens", "safe", "bad", "captures"):
        setattr(out, name, getattr(state, name)[::-1].copy())
    out.mover = (1 - state.mover).astype(np.int8)
    out.winner = np.where(state.winner >= 0, 1 - state.winner, state.winner).astype(np.int8)
    return out


def test_features_are_the_deciding_seats_view_and_nothing_else() -> None:
    params = Params()
    state = midgame(params, 60, 120, seed=1)
    viewer = np.arange(60) % 2
    got = features.features_of(params, state, viewer)
    assert got.shape == (60, features.n_features(params)) and np.isfinite(got).all()
    np.testing.assert_array_equal(features.features_of(params, swapped(state), 1 - viewer), got)
    other = state.keep_rows(np.arange(60))
    other.game, other.first = other.game[::-1].copy(), (1 - other.first).astype(np.int8)  # not part of a position
    np.testing.assert_array_equal(features.features_of(params, other, viewer), got)
    assert not np.array_equal(features.features_of(params, state, 1 - viewer), got)


@pytest.mark.parametrize("variant", ["board-60", "exit-overshoot", "grey-safe", "test-markers"])
def test_features_are_defined_for_variants(variant: str) -> None:
    params = Params().with_strings(VARIANTS[variant])
    state = midgame(params, 20, 80, seed=2)
    got = features.features_of(params, state, state.mover.astype(np.int64))
    assert got.shape == (20, features.n_features(params)) and np.isfinite(got).all()


def squares(bits: int, length: int) -> set[int]:
    return {p for p in range(length) if bits >> p & 1}


def reference_row(params: Params, state: State, b: int, me: int) -> list[float]:
    """Row ``b`` as seat ``me`` sees it, feature by feature as the features module's docstring lists them."""
    length, faces, them = params.track_length, params.die_faces, 1 - me
    buttons, tokens, starts = params.buttons, params.tokens, params.starts
    mine, theirs_own = squares(int(state.track[me, b]), length), squares(int(state.track[them, b]), length)
    safe, bad = squares(int(state.safe[me, b]), length), squares(int(state.bad[me, b]), length)
    to_me = (starts[them] - starts[me]) % length  # their progress q is my progress (q + to_me) % L
    theirs = {(q + to_me) % length for q in theirs_own}
    grey = {(g - starts[me]) % length for g in grey_squares(length, params.arm_length)} if params.grey_safe else set()
    sheltered = safe | grey
    row = [float(p in s) for s in (mine, theirs_own, safe, bad) for p in range(length)]
    row += [
        len({(q + f + to_me) % length for q in theirs_own if q + f < length} & mine - sheltered) / buttons
        for f in range(1, faces + 1)
    ]
    row += [len({p + f for p in mine if p + f < length} & theirs - sheltered) / buttons for f in range(1, faces + 1)]
    off_me, off_them = int(state.off[me, b]), int(state.off[them, b])
    over, winner = state.reason[b] >= 0, int(state.winner[b])
    row += [
        off_them > 0 and 0 not in theirs_own and to_me in mine - sheltered,
        off_me > 0 and 0 not in mine and 0 in theirs,
        off_me / buttons,
        off_them / buttons,
        state.home[me, b] / buttons,
        state.home[them, b] / buttons,
        state.tokens[me, b] / tokens,
        state.tokens[them, b] / tokens,
        state.bank[b] / (2 * tokens),
        state.mover[b] == me,
        state.turn[b] / INFO.turn_cap,
        reference.lost_faces(params, mine, off_me) / (2 * faces),
        reference.lost_faces(params, theirs_own, off_them) / (2 * faces),
        over and winner == me,
        over and winner not in (-1, me),
    ]
    return [float(x) for x in row]


@pytest.mark.parametrize(
    "knobs",
    [
        {},
        VARIANTS["board-60"],
        VARIANTS["grey-safe"],
        {"exit_overshoot": "true", "pay_when_empty": "true", "overshoot_pays": "false"},
        {"die_faces": "4", "enter_roll": "3", "roll_again": "2", "buttons": "3", "tokens": "7", "head_start": "5"},
        {"track_length": "20", "arm_length": "2", "die_faces": "12", "enter_roll": "12", "start_squares": "0,8"},
    ],
)
def test_features_match_a_row_by_row_reference(knobs: dict[str, str]) -> None:
    params = Params().with_strings(knobs)
    for seed, rolls in enumerate((0, 40, 150, 600)):  # from the setup to finished games
        state = midgame(params, 40, rolls, seed)
        viewer = np.random.default_rng(seed).integers(0, 2, 40)
        expected = [reference_row(params, state, b, int(viewer[b])) for b in range(40)]
        got = features.features_of(params, state, viewer)
        assert got.dtype == np.float32 and np.array_equal(got, np.array(expected, dtype=np.float32))


def test_every_decision_point_is_featured_and_every_choice_legal() -> None:
    params = Params()
    model, seen = random_model(params), set()

    def checked(point, games, propose):
        assert isinstance(point, Featured)
        chosen = choose(point, model)
        assert point.legal()[np.arange(len(chosen)), chosen].all()
        seen.add(type(point))
        return chosen

    player = Player(params, decide=checked)
    play_with(params, [player, player], 40, np.random.default_rng(3))
    assert seen == {Point, ExtraPoint, MarkerPoint}


def test_the_model_decides_and_differs_from_the_baseline() -> None:
    params = Params()
    state = midgame(params, 400, 60, seed=4)
    moves = Moves(params, core.RandomSource(np.random.default_rng(5)), state, np.full(400, 3, dtype=np.int64))
    one, two = Player(params, {2: random_model(params, 1)}), Player(params, {2: random_model(params, 2)})
    assert not np.array_equal(one.choose(moves), two.choose(moves))
    assert np.array_equal(one.choose(moves), Player(params, {2: random_model(params, 1)}).choose(moves))


def test_same_seed_same_model_bytes_with_tiny_settings() -> None:
    params, sampler = Params(), lifecycle.sampler(Player)

    def backwards(function, jobs):  # runs the chunks in reverse and yields them in order, as workers would
        return reversed([function(*args) for args in reversed(jobs)])

    first = training.train(sampler, params, 2, TINY).to_bytes()
    assert training.train(sampler, params, 2, TINY, backwards).to_bytes() == first
    assert training.train(sampler, params, 2, replace(TINY, seed=1)).to_bytes() != first


def test_the_cache_key_holds_every_setting_and_the_versions() -> None:
    key = lifecycle.model_key(Player, Params(), 2, SPEC.settings)
    assert key["features"] == SPEC.features and key["unit"] == SPEC.unit
    assert key["training"] == SPEC.settings.as_key() and key["sampling"]["lambda"] == SPEC.sampling.lam
    assert key["sampling"]["markers by the model"] == learned.MARKER_MODEL
    (earlier,) = lifecycle.request(Player, Params(), 2).earlier
    assert "markers by the model" not in earlier["sampling"] and {**earlier, "sampling": key["sampling"]} == key
    assert lifecycle.model_key(Player, Params(), 2, replace(SPEC.settings, epochs=3)) != key
    assert lifecycle.model_key(Player, Params(tokens=12), 2, SPEC.settings) != key


def test_the_shipped_model_loads_and_plays(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    params = Params()
    model, path, how = store.obtain(lifecycle.request(Player, params, 2, SPEC.settings))
    assert how == "shipped" and path.parent == SPEC.shipped
    (rival,) = core.policy_instances(POLICIES, ["runner"], params)
    out = play_with(params, [Player(params, {2: model}), rival], 300, np.random.default_rng(6))
    assert out["winners"][:, 0].mean() > 0.6
    with pytest.raises(ValueError, match="BOARDLAB_TRAIN=0"):
        store.obtain(lifecycle.request(Player, Params(tokens=11), 2, SPEC.settings))


def test_a_setting_not_retrained_plays_its_shipped_model_from_before(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BOARDLAB_TRAIN", "0")
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    for params, now in ((Params(head_start=4), False), (Params(), True)):
        wanted = lifecycle.request(Player, params, 2)
        _, path, how = store.obtain(wanted)
        key = wanted.key if now else wanted.earlier[0]
        assert how == "shipped" and path == SPEC.shipped / cache.file_name(key)
    with pytest.raises(ValueError, match="BOARDLAB_TRAIN=0"):  # `simulate train` trains a model of its own
        store.obtain(lifecycle.request(Player, Params(head_start=4), 2), explicit=False, retrain=True)


def test_the_expert_rolls_out_with_learned() -> None:
    params = Params()
    (expert,) = core.policy_instances(POLICIES, ["expert:8@learned"], params)
    assert expert.decide.rollout == "learned" and expert.decide.search(2).playouts == 8
    (default,) = core.policy_instances(POLICIES, ["expert:@learned"], params)
    assert default.decide.search(2).playouts == POLICIES["expert"].parse_arg(None)
    assert isinstance(POLICIES["expert"].parse_arg("8@learned"), Rollout)
    state = midgame(params, 6, 80, seed=7)
    moves = Moves(params, core.RandomSource(np.random.default_rng(8)), state, np.full(6, 1, dtype=np.int64))
    point = Point.at(moves, POLICIES)
    chosen = expert.decide(point, np.arange(6), point.legal().argmax)
    assert point.legal()[np.arange(6), chosen].all()


def test_later_rounds_place_a_share_of_markers_by_the_model() -> None:
    params, model = Params(), random_model(Params(), 3)

    class Seen(selfplay.Recorder):
        """Notes, at each marker, whether the square kept is the model's."""

        def record(self, point, games, chosen, rows) -> None:
            if isinstance(point, MarkerPoint):
                agree.extend(chosen == choose(point, model))
            super().record(point, games, chosen, rows)

    shares = []
    for recorder_model in (None, model):  # round 0 (the baseline), then a later round
        agree: list[bool] = []
        seat = lifecycle.Table(Player).seat(params, 2, Seen(recorder_model, 1.0, 0.0, np.random.default_rng(4)))
        play_with(params, [seat, seat], 100, np.random.default_rng(5))
        shares.append(np.mean(agree))
    # random squares meet the model's about one time in 50; later rounds keep the model's at MARKER_MODEL's share
    assert shares[0] < 0.1 and abs(shares[1] - learned.MARKER_MODEL) < 0.1
