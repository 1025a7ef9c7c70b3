"""One visual language: seaborn's colour-blind palette, one colour and marker per policy in every game."""

from __future__ import annotations

import pytest
import seaborn as sns

from boardlab import engines
from boardlab.analysis import style
from boardlab.engines import BUILT_IN, available_games, get_game


def test_palette_is_seaborns_colour_blind_palette() -> None:
    assert list(style.PALETTE) == sns.color_palette("colorblind").as_hex()
    assert sorted(style.SERIES) == sorted(style.PALETTE) and style.SERIES[-1] == "#949494"


def test_every_policy_of_every_game_is_registered_and_a_game_never_repeats_a_colour() -> None:
    for game in available_games():
        names = list(get_game(game).module.POLICIES)
        with style.drawing_for(game):
            assert all(style.is_policy(n) for n in names), game
            colours = [style.policy_style(n).color for n in names]
        assert len(set(colours)) == len(colours), game


def _built_in_styles() -> dict[tuple[str | None, str], style.Look]:
    """Every built-in game's policies as drawn for that game and with no game set."""
    out = {}
    for game in BUILT_IN:
        for name in (*get_game(game).module.POLICIES, "expert:64"):
            with style.drawing_for(game):
                out[game, name] = style.policy_style(name)
            out[None, name] = style.policy_style(name)
    return out


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch):
    """Replace the registry's games (built-in ones stay) and forget the looks read from the old one."""

    def use(extra: dict[str, str]) -> None:
        monkeypatch.setattr(engines, "registry", lambda: dict(BUILT_IN) | extra)
        style.game_looks.cache_clear()

    yield use
    style.game_looks.cache_clear()


def test_an_installed_game_changes_no_built_in_look_and_a_broken_one_stops_no_figure(registered, monkeypatch) -> None:
    registered({})
    alone = _built_in_styles()
    registered({"swine": "swine"})
    assert _built_in_styles() == alone
    with style.drawing_for("swine"):  # the plug-in's figures take its own looks
        assert style.policy_style("hold-at-20") == style.Look(style.PALETTE[0], "o")
    # a plug-in that restyles a built-in policy's name, and one that cannot even be imported
    fake = type("Module", (), {"RECORD": engines.record.Record(looks={"win-optimal": (5, "x")})})
    real = engines.GameSpec.module
    monkeypatch.setattr(engines.GameSpec, "module", property(lambda s: fake if s.id == "fake" else real.fget(s)))
    registered({"fake": "fake_game", "broken": "no_such_package_anywhere"})
    assert _built_in_styles() == alone
    with style.drawing_for("fake"):
        assert style.policy_style("win-optimal") == style.Look(style.PALETTE[5], "x")


def test_a_policy_looks_the_same_everywhere_and_looks_are_distinct() -> None:
    looks = {name: style.policy_style(name) for name in style.policy_looks()}
    assert len({(look.color, look.marker) for look in looks.values()}) == len(looks)
    assert style.policy_style("greedy") == style.policy_style("greedy")
    assert style.policy_style("random").color == "#949494"


def test_an_expert_budget_keeps_its_marker_and_is_lighter_below_the_full_budget() -> None:
    full, small = style.policy_style("expert"), style.policy_style("expert:64")
    assert small.marker == full.marker and small.linestyle == "--"
    assert style.policy_style("expert:512").color == full.color
    assert sum(int(small.color[i : i + 2], 16) for i in (1, 3, 5)) > sum(
        int(full.color[i : i + 2], 16) for i in (1, 3, 5)
    )


def test_unknown_names_get_a_stable_look_and_plain_series_take_the_palette_in_order() -> None:
    assert style.policy_style("newcomer") == style.policy_style("newcomer")
    assert style.policy_style("newcomer").color in style.PALETTE
    series = style.series_styles(["base rules", "variant"])
    assert [s.color for s in series] == list(style.SERIES[:2])
    assert style.series_styles(["greedy", "random"]) == [style.policy_style("greedy"), style.policy_style("random")]
