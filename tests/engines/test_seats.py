"""Every game's seat adapter: seats that watch their policy change nothing, and a person's seat is asked."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.engines import get_game
from boardlab.engines.seating import seating_of

SMALL = {  # knobs for games of seconds
    "pantolino": {"colours": "3", "dice": "3", "token_values": "2,3"},
    "patolli": {"buttons": "2"},
    "cargolino": {"races": "1"},
    "panots": {"cards_per_player": "3"},
    "paleolino": {"goal": "3"},
}
GAMES = sorted(SMALL)


def setup(game: str):
    module = get_game(game).module
    seats = seating_of(module)
    return module, seats, module.Params().with_strings(SMALL[game])


@pytest.mark.parametrize("game", GAMES)
def test_watched_seats_play_the_games_their_policies_play(game: str) -> None:
    module, seats, params = setup(game)
    names = ["random", "detective" if game == "cargolino" else "expert:2"]  # cargolino's expert takes seconds
    seen: list[int] = []

    def decide(point, games, propose):
        moves = propose()
        assert point.legal()[np.arange(len(moves)), moves].all()
        seen.append(len(moves))
        return moves

    impls = [seats.watching(i, decide) for i in seats.instances(params, names, 2)]
    watched = seats.play(params, impls, 6, np.random.default_rng(3))
    plain = module.play(params, names, 6, np.random.default_rng(3))
    assert seen
    for column in ("score", "winner", "turns"):
        np.testing.assert_array_equal(watched[column], plain[column])


@pytest.mark.parametrize("game", GAMES)
def test_a_person_is_asked_only_about_their_own_seat(game: str) -> None:
    _, seats, params = setup(game)
    rollout = seats.instances(params, [seats.ROLLOUT], 2)[0]
    asked: list[int] = []

    def ask(point, games, propose):
        asked.extend(point.seat.tolist())
        return np.flatnonzero(point.legal()[0])[-1:].repeat(len(games))  # the last legal move

    person = seats.seat(rollout, ask, True)
    policy = seats.seat(seats.instances(params, ["random"], 2)[0], lambda p, g, propose: propose(), False)
    seats.play(params, [person, policy], 1, np.random.default_rng(4))
    assert asked
    assert set(asked) == {0}


def test_a_games_seats_travel_to_worker_processes() -> None:
    """A setup holding its game's seats is sent to loky workers (cloudpickle): unpickling must not recurse."""
    import cloudpickle

    seating = seating_of(get_game("patolli").module)
    again = cloudpickle.loads(cloudpickle.dumps(seating))
    assert again.ROLLOUT == seating.ROLLOUT and again.module is seating.module
