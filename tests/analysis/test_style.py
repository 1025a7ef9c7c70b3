"""One visual language: seaborn's colour-blind palette, one colour and marker per policy in every game."""

from __future__ import annotations

import seaborn as sns

from analysis import style
from engines import available_games, get_game


def test_palette_is_seaborns_colour_blind_palette() -> None:
    assert list(style.PALETTE) == sns.color_palette("colorblind").as_hex()
    assert sorted(style.SERIES) == sorted(style.PALETTE) and style.SERIES[-1] == "#949494"


def test_every_policy_of_every_game_is_registered_and_a_game_never_repeats_a_colour() -> None:
    for game in available_games():
        names = list(get_game(game).module.POLICIES)
        assert all(style.is_policy(n) for n in names), game
        colours = [style.policy_style(n).color for n in names]
        assert len(set(colours)) == len(colours), game


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
