"""Pantolino's exact 2-player solution: exact values against simulation, dominance, a hand-built case, the cache."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardlab.engines import cachedir, core
from boardlab.engines.core import ScriptedSource
from boardlab.engines.pantolino import POLICIES, Params, play
from boardlab.engines.pantolino import solver as sv
from boardlab.engines.pantolino.rules import play_turns

SMALL = Params(colours=3, token_values=(2, 3), dice=3)  # 6 tokens, 15 boots: solved in a fraction of a second
FULL = (1 << SMALL.n_tokens) - 1
LEVEL = 15  # column of a level score (d = 0) for SMALL


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    return tmp_path


def exact(rules: list[str], params: Params = SMALL) -> np.ndarray:
    """Chance that the first mover wins from the start, for each rule moving first."""
    return sv.start_value(sv.Solver(params, rules).solve(), params)


def seat0_rate(params: Params, seats: list[str], n: int, seed: int) -> tuple[float, float]:
    out = play(params, seats, n, np.random.default_rng(seed))
    rate = (out["winner"] == 0).mean() + 0.5 * (out["winner"] == -1).mean()
    return rate, math.sqrt(rate * (1 - rate) / n)


# exact values of SMALL from the solver (shared wins count half; none can happen with 15 boots)
WIN_OPTIMAL = 0.7386785099
TURN_OPTIMAL = 0.7294499306
MIXED = (0.7510927800, 0.7231879200)  # win-optimal first against turn-optimal; turn-optimal first


def test_exact_values_are_the_goldens() -> None:
    assert exact(["optimise"])[0] == pytest.approx(WIN_OPTIMAL, abs=1e-9)
    assert exact(["win-optimal"])[0] == pytest.approx(WIN_OPTIMAL, abs=1e-9)  # the policy plays its equilibrium
    assert exact(["turn-optimal"])[0] == pytest.approx(TURN_OPTIMAL, abs=1e-9)
    assert exact(["win-optimal", "turn-optimal"]) == pytest.approx(MIXED, abs=1e-8)


@pytest.mark.parametrize(
    ("seats", "value"),
    [
        (["win-optimal", "win-optimal"], WIN_OPTIMAL),
        (["turn-optimal", "turn-optimal"], TURN_OPTIMAL),
        (["win-optimal", "turn-optimal"], MIXED[0]),
        (["turn-optimal", "win-optimal"], MIXED[1]),
    ],
)
def test_simulation_agrees_with_the_exact_value(seats: list[str], value: float) -> None:
    rate, sigma = seat0_rate(SMALL, seats, 40_000, seed=11)
    assert abs(rate - value) <= 4 * sigma, (rate, value, sigma)


def test_win_optimal_is_never_worse_than_turn_optimal() -> None:
    equilibrium = sv.Solver(SMALL, ["optimise"]).solve()[0]
    mixed = sv.Solver(SMALL, ["win-optimal", "turn-optimal"]).solve()
    known = ~np.isnan(equilibrium)
    # from every position, win-optimal to move wins at least the equilibrium share against turn-optimal, and
    # turn-optimal to move wins at most that share against win-optimal
    assert np.all(mixed[0][known] >= equilibrium[known] - 1e-12)
    assert np.all(mixed[1][known] <= equilibrium[known] + 1e-12)
    # from the start, putting win-optimal in either seat of a turn-optimal pair helps that seat
    assert MIXED[0] > TURN_OPTIMAL > MIXED[1]


def test_trailing_by_three_win_optimal_takes_the_small_token() -> None:
    params = Params()  # the published game; only the positions below this supply are solved
    s = sv.Solver(params, ["optimise"])
    colour, value = s.colour, s.value
    yellow4 = int(np.flatnonzero((colour == 0) & (value == 4))[0])
    red2 = int(np.flatnonzero((colour == 1) & (value == 2))[0])
    supply = (1 << yellow4) | (1 << red2)
    values = s.solve(root=supply)
    take = s.successor_values(values, np.array([supply]), np.array([-3]), np.zeros(1, dtype=np.int64))
    throw = _throw(params, {0: 2, params.colours: 2})  # yellow, yellow, joker, joker: fits both
    assert s.fits[throw, yellow4] and s.fits[throw, red2]
    assert sv.pick_token(take, s.fits[throw][None])[0] == red2
    assert take[0, red2] > take[0, yellow4] + 0.1  # by a wide margin, not a rounding accident


def _throw(params: Params, counts: dict[int, int]) -> int:
    t = params.tables
    code = sum(n * int(t.weight[c]) for c, n in counts.items())
    return int(t.full_position[t.index_of_code[code]])


def test_cache_round_trip_and_corrupt_file_rebuilt(cache, monkeypatch) -> None:
    built = sv.cached_values(SMALL)[0]
    path = sv.cache_path(SMALL)
    assert path.parent == cache and path.exists() and not list(cache.glob("*.tmp"))
    assert built[FULL, LEVEL] == pytest.approx(WIN_OPTIMAL, abs=1e-9)

    def refuse(*args, **kwargs):
        raise AssertionError("solved again although the cache was fine")

    with monkeypatch.context() as m:
        m.setattr(sv.Solver, "solve", refuse)
        assert np.array_equal(sv.cached_values(SMALL)[0], built, equal_nan=True)
    path.write_bytes(b"\x93NUMPY not really")
    assert np.array_equal(sv.cached_values(SMALL)[0], built, equal_nan=True)
    assert np.array_equal(np.load(path)[0], built, equal_nan=True)
    assert sv.cache_path(Params(colours=3, token_values=(2, 3), dice=3, rolls=2)) != path


def test_a_cache_folder_that_cannot_take_the_solution_is_refused_before_solving(cache, monkeypatch) -> None:
    (cache / "a-file").write_text("in the way")
    monkeypatch.setenv("BOARDLAB_CACHE", str(cache / "a-file"))

    def refuse(*args, **kwargs):
        raise AssertionError("solved although the result could not be saved")

    monkeypatch.setattr(sv.Solver, "solve", refuse)
    with pytest.raises(ValueError, match=r"^the cache folder .*a-file cannot be used"):
        sv.cached_values(SMALL)


def _interior_zeros(values: np.ndarray) -> np.ndarray:
    """The decided values kept, every value to be solved 0: right shape, right terminals, wrong answer."""
    out = values.copy()
    known, _ = sv.Solver(SMALL, (sv.OPTIMISE,)).skeleton()
    out[np.isnan(known) & ~np.isnan(values)] = 0.0
    return out


@pytest.mark.parametrize(
    ("damage", "keep_checksum", "reason"),
    [
        (np.zeros_like, False, "decided positions"),
        (lambda v: np.full_like(v, np.nan), False, "decided positions"),
        (_interior_zeros, False, "equations"),
        (_interior_zeros, True, "checksum does not match"),
        (lambda v: np.where(np.isnan(v), 0.5, v), False, "unreachable position"),
    ],
)
def test_a_cache_of_the_right_shape_but_wrong_values_is_solved_again(
    cache, capsys, damage, keep_checksum: bool, reason: str
) -> None:
    built = sv.cached_values(SMALL)
    path = sv.cache_path(SMALL)
    assert cachedir.checksum_path(path).exists()
    if not keep_checksum:  # as a cache from before checksums: the values alone must be refused
        cachedir.checksum_path(path).unlink()
    np.save(path, damage(built))
    again = sv.cached_values(SMALL)
    assert np.array_equal(again, built, equal_nan=True)
    lines = capsys.readouterr().err.strip().splitlines()  # the warning, then the solve's start and end lines
    warning = [line for line in lines if line.startswith("warning: ")]
    assert len(warning) == 1 and reason in warning[0] and "computing it again" in warning[0]
    assert np.array_equal(np.load(path), built, equal_nan=True)


def test_a_good_cache_from_before_checksums_is_used_and_gains_one(cache, monkeypatch) -> None:
    built = sv.cached_values(SMALL)
    path = sv.cache_path(SMALL)
    cachedir.checksum_path(path).unlink()
    monkeypatch.setattr(sv.Solver, "solve", lambda *a, **k: pytest.fail("solved again although the cache was fine"))
    assert np.array_equal(sv.cached_values(SMALL), built, equal_nan=True)
    assert cachedir.checksum_path(path).exists()


@pytest.mark.parametrize(
    ("params", "players", "message"),
    [
        (SMALL, 3, "players=3 is not supported by the exact solution; it needs exactly 2 players"),
        (Params(escaping_boots=True), 2, "escaping_boots=True is not supported"),
        (Params(no_token_rule="remove-smallest"), 2, "no_token_rule='remove-smallest' is not supported"),
        (Params(colours=4), 2, "36 boots in all; the exact solution needs an odd total"),
        (Params(colours=6), 2, "18 tokens is too many for the exact solution; allowed at most 16"),
    ],
)
def test_unsupported_settings_are_refused_before_play(params: Params, players: int, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        play(params, ["win-optimal"] + ["turn-optimal"] * (players - 1), 4, np.random.default_rng(0))


def test_a_batch_plays_the_same_games_as_one_game_at_a_time() -> None:
    source = ScriptedSource.from_seed(6, 12, 4_000)
    together = play(SMALL, ["win-optimal", "turn-optimal"], 12, source)
    for game in range(12):
        alone = play(SMALL, ["win-optimal", "turn-optimal"], 1, ScriptedSource(source.uniforms[game : game + 1]))
        for column, value in alone.items():
            assert np.array_equal(value[0], together[column][game]), column


def test_single_turns_of_win_optimal_are_refused() -> None:
    with pytest.raises(ValueError, match="players=1 is not supported by the exact solution"):
        play_turns(SMALL, core.instantiate(POLICIES["win-optimal"], SMALL), 10, np.random.default_rng(0))


REPORT_TABLES = [  # what the shipped report (experiments/chapters/pantolino.py) reads from the solver
    (Params(), ["optimise"]),
    (Params(), ["turn-optimal"]),
    (Params(), ["win-optimal", "turn-optimal"]),
    (Params(head_start=6), ["optimise"]),
]


def test_every_shipped_table_is_one_the_report_reads_under_its_cache_name() -> None:
    """A shipped table is found by its cache file's name, which covers the knobs, engine version and format."""
    wanted = {sv.cache_path(params, rules).name + ".xz" for params, rules in REPORT_TABLES}
    shipped = {path.name for path in sv.SHIPPED.glob("*.xz")}
    assert shipped and shipped <= wanted


def test_a_shipped_table_is_read_not_solved(cache, monkeypatch) -> None:
    name = sv.cache_path(Params()).name
    assert (sv.SHIPPED / f"{name}.xz").exists()
    monkeypatch.setattr(sv.Solver, "solve", lambda *a, **k: pytest.fail("solved a shipped table"))
    values = sv.cached_values(Params())  # the shipped file passed the solver's check to be used
    assert np.array_equal(np.load(cache / name), values, equal_nan=True)


def test_a_damaged_shipped_table_is_solved_instead(tmp_path, monkeypatch) -> None:
    name = sv.cache_path(SMALL).name
    monkeypatch.setattr(sv, "SHIPPED", tmp_path)
    (tmp_path / f"{name}.xz").write_bytes(b"not xz")
    assert sv.shipped_values(name, lambda v: None) is None
    assert sv.start_value(sv.cached_values(SMALL), SMALL)[0] == exact(["optimise"])[0]
