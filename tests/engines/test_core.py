"""The shared engine contract: knob parsing, sources, winners, the registry."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import available_games, get_game
from boardlab.engines.core import (
    GameStream,
    RandomSource,
    ScriptedSource,
    check_choice,
    did_you_mean,
    parse_value,
    rank_winners,
    rows_of,
)
from boardlab.engines.pantolino import Params


def test_with_strings_parses_each_knob_type() -> None:
    params = Params().with_strings(
        {"dice": "5", "token_values": "2,3,5", "escaping-boots": "yes", "steal_from": "tail", "rolls": "1_0"[:1]}
    )
    assert (params.dice, params.token_values, params.escaping_boots, params.steal_from) == (5, (2, 3, 5), True, "tail")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"dices": "4"}, "unknown knob 'dices'; did you mean 'dice'?"),
        ({"dice": "four"}, "dice='four' is not a whole number"),
        ({"escaping_boots": "maybe"}, "escaping_boots='maybe' is not a boolean"),
        ({"steal_from": "tial"}, "did you mean 'tail'"),
        ({"dice": "9"}, "dice=9 is out of range"),
    ],
)
def test_with_strings_rejects_bad_text(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("?", r"\?")):
        Params().with_strings(settings)


def test_knobs_describe_every_field() -> None:
    knobs = {k.name: k for k in Params.knobs()}
    assert knobs["dice"].default == 4 and knobs["dice"].allowed == "1..6" and knobs["dice"].doc
    assert knobs["token_values"].type == "tuple[int, ...]"
    assert Params().as_dict()["token_values"] == [2, 3, 4]
    assert knobs["dice"].source == "rulebook"


def test_a_knob_source_must_say_rulebook_published_or_ours() -> None:
    from boardlab.engines.core import knob

    assert knob(1, "doc", "1..2", source="ours: a reason").metadata["source"] == "ours: a reason"
    with pytest.raises(ValueError, match="source"):
        knob(1, "doc", "1..2", source="guessed")


def test_scripted_source_matches_one_game_reader() -> None:
    source = ScriptedSource.from_seed(1, 3, 10)
    rows = source.draw(np.array([2, 0]), 6, width=3, used=np.array([1, 3]))
    stream2, stream0 = source.one_game(2), source.one_game(0)
    assert rows[0, 0] == stream2.integer(6)
    assert rows[1].tolist() == [stream0.integer(6) for _ in range(3)]
    assert source.cursor.tolist() == [3, 0, 1]
    with pytest.raises(IndexError, match="exhausted"):
        source.draw(np.array([1]), 6, width=11)


def test_sources_accept_per_row_highs() -> None:
    highs = np.array([1, 5, 1000])
    assert np.all(RandomSource(np.random.default_rng(0)).draw(np.arange(3), highs, 4) < highs[:, None])
    assert np.all(ScriptedSource.from_seed(0, 3, 4).draw(np.arange(3), highs, 4) < highs[:, None])
    stream = GameStream(np.array([0.5, 0.99]))
    assert (stream.integer(4), stream.uniform()) == (2, 0.99)


def test_rank_winners_breaks_ties_then_shares() -> None:
    score = np.array([[5, 5, 1], [2, 7, 7], [3, 3, 3]])
    tiebreak = np.array([[1, 2, 9], [0, 4, 4], [1, 1, 1]])
    winner, winners = rank_winners(score, tiebreak)
    assert winner.tolist() == [1, -1, -1]
    assert winners.tolist() == [[False, True, False], [False, True, True], [True, True, True]]


def test_registry_lists_games_and_suggests_names() -> None:
    assert "pantolino" in available_games()
    assert get_game("pantolino").module.INFO.id == "pantolino"
    with pytest.raises(ValueError, match="did you mean 'pantolino'"):
        get_game("pantolin")
    assert did_you_mean("zzz", ["a", "b"]) == "; choose one of a, b"


def test_a_bad_choice_names_the_choices_once_and_a_bool_choice_is_not_a_number() -> None:
    from typing import Literal

    with pytest.raises(ValueError) as err:
        parse_value("rule", "zzz", Literal["tail", "any"])
    assert str(err.value).count("choose one of") == 1
    with pytest.raises(ValueError, match="did you mean 'tail'"):
        parse_value("rule", "tial", Literal["tail", "any"])
    check_choice("open", True, (False, True))
    with pytest.raises(ValueError, match="open=1 is not allowed"):
        check_choice("open", 1, (False, True))
    check_choice("cards", 7, (6, 7, 8))


def test_a_tuple_knob_takes_commas_semicolons_or_brackets_but_refuses_an_empty_value() -> None:
    for text in ("2,4", "2;4", "(2, 4)", "[2,4]"):
        assert parse_value("token_values", text, tuple[int, ...]) == (2, 4)
    assert parse_value("token_values", "()", tuple[int, ...]) == ()
    for text in ("2,,4", "2,4,", ",2", "(2,;4)"):
        with pytest.raises(ValueError, match="has an empty value"):
            parse_value("token_values", text, tuple[int, ...])


@pytest.mark.parametrize("n_games", [-1, 2.0, True, "10"])
def test_a_game_s_play_refuses_a_count_that_is_not_a_whole_number_of_games(n_games) -> None:
    game = get_game("pantolino").module
    with pytest.raises(ValueError, match=rf"^n_games={n_games!r} must be a whole number of games, 0 or more$"):
        game.play(game.Params(), ["greedy", "greedy"], n_games, np.random.default_rng(0))
    assert len(game.play(game.Params(), ["greedy", "greedy"], np.int64(3), np.random.default_rng(0))["winner"]) == 3


def test_a_game_s_play_refuses_seats_given_as_one_string_and_a_seed_for_a_generator() -> None:
    game = get_game("pantolino").module  # "greedy,greedy" was 13 seats, one a letter: "players=13 is out of range"
    with pytest.raises(ValueError, match="seat_policies='greedy,greedy' must be a list of policy names"):
        game.play(game.Params(), "greedy,greedy", 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng=5 must be a numpy Generator or a source, not int"):
        game.play(game.Params(), ["greedy", "greedy"], 3, 5)  # was a TypeError


def test_rows_of_turns_a_mask_into_indices_and_keeps_indices() -> None:
    mask = np.array([True, False, True, True])
    assert rows_of(mask).tolist() == [0, 2, 3]
    assert rows_of(np.array([3, 3, 0])).tolist() == [3, 3, 0]  # repeats and order kept
    assert rows_of([1, 2]).tolist() == [1, 2]
    assert rows_of(np.zeros(0, dtype=bool)).tolist() == []
