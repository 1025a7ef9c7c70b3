"""Every game's words: each legal move is named once, and a view never changes with what its seat cannot see."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest

from boardlab.engines import core, get_game
from boardlab.engines.cargolino import words as cargolino_words
from boardlab.engines.paleolino import words as paleolino_words
from boardlab.engines.paleolino.decisions import CAVE
from boardlab.engines.paleolino.decisions import Point as PaleolinoPoint
from boardlab.engines.panots import words as panots_words
from boardlab.engines.panots.decisions import Point as PanotsPoint
from boardlab.engines.pantolino import words as pantolino_words
from boardlab.engines.patolli import words as patolli_words
from boardlab.engines.patolli.decisions import Point as PatolliPoint
from boardlab.engines.seating import seating_of

SMALL = {
    "pantolino": {"colours": "3", "dice": "3", "token_values": "2,3"},
    "patolli": {"buttons": "2"},
    "cargolino": {"races": "1"},
    "panots": {"cards_per_player": "3"},
    "paleolino": {"goal": "3", "memory": "0.5"},
}


def points_of(game: str) -> list:
    """Seat 0's decisions in one game against ``random``, seat 0 a person playing the rollout policy's moves.

    Where the rollout policy has no say (a Panots placement, a Paleolino build) the person takes the first move.
    """
    module = get_game(game).module
    seats = seating_of(module)
    params = module.Params().with_strings(SMALL[game])
    seen = []

    def decide(point, games, propose):
        seen.append(point.take(np.zeros(1, dtype=np.int64)))
        return propose() if getattr(point, "searchable", True) else point.legal().argmax(axis=1)

    me = seats.seat(seats.instances(params, [seats.ROLLOUT], 2)[0], decide, True)
    other = seats.seat(seats.instances(params, ["random"], 2)[0], lambda p, g, propose: propose(), False)
    seats.play(params, [me, other], 1, np.random.default_rng(7))
    return [p for p in seen if int(p.seat[0]) == 0]


@pytest.mark.parametrize("game", sorted(SMALL))
def test_views_hide_what_the_seat_cannot_see_and_moves_name_every_legal_candidate(game: str) -> None:
    words = importlib.import_module(f"engines.{game}.words")
    points = points_of(game)
    assert points
    for k, point in enumerate(points):
        moves = words.moves(point)
        assert [c for c, _ in moves] == np.flatnonzero(point.legal()[0]).tolist()
        assert len({said for _, said in moves}) == len(moves)
        seen = words.view(point)
        if not getattr(point, "searchable", True):  # a Panots placement: no hidden part to redraw
            continue
        for draw in range(3):  # redraw the hidden part (snail owners, cave contents, decks) from the seat's knowledge
            other = point.take(np.zeros(1, dtype=np.int64))
            other.determinise(core.StreamSource(np.array([k * 7 + draw + 1], dtype=np.uint64)))
            assert words.view(other) == seen
        assert words.turn(point) >= 0
    assert words.RULES.strip()
    if game in ("panots", "paleolino"):  # a person also lays the cards, or builds
        assert any(not getattr(p, "searchable", True) for p in points)


def test_hidden_parts_do_change_when_redrawn() -> None:
    """The invariance above is not vacuous: redrawing changes Paleolino's caves and Cargolino's owners."""
    changed = {"paleolino": False, "cargolino": False}
    for game, field in (("paleolino", "caves"), ("cargolino", "owner")):
        for k, point in enumerate(p for p in points_of(game) if getattr(p, "searchable", True)):
            other = point.take(np.zeros(1, dtype=np.int64))
            other.determinise(core.StreamSource(np.array([k + 99], dtype=np.uint64)))
            changed[game] |= not np.array_equal(getattr(other.state, field), getattr(point.state, field))
    assert all(changed.values())


def test_pantolino_explains_a_difference_with_the_score_and_the_supply_its_view_shows() -> None:
    explained = 0
    for point in points_of("pantolino"):
        legal = np.flatnonzero(point.legal()[0])
        if len(legal) < 2:
            continue
        said = dict(pantolino_words.moves(point))
        sentence = pantolino_words.explain(point, int(legal[0]), int(legal[-1]), "turn-optimal")
        view = "\n".join(pantolino_words.view(point))
        boots = [int(b) for b in re.findall(r"Seat \d(?: \(you\))?: (\d+) boots", view)]
        supply = re.search(r"Supply: (.*)", view).group(1)
        left = [int(v) for part in supply.split("; ") for v in part.split()[1:]] if supply != "empty" else []
        lead, total = boots[0] - boots[1], sum(left)  # seat 0 decides (points_of keeps its decisions)
        need = (total - lead) // 2 + 1
        assert sentence.startswith(f"Seat 0 {'leads' if lead > 0 else 'trails' if lead < 0 else 'is level'}")
        assert f"({total} boots) left in the supply" in sentence
        assert (f"needs {need} of them" in sentence) == (0 < need <= total), sentence
        assert sentence.endswith(".") and "\n" not in sentence and "where turn-optimal" in sentence
        if said[int(legal[0])].startswith("take the "):
            assert all(said[int(m)].removeprefix("take ") in sentence for m in (legal[0], legal[-1]))
        explained += 1
    assert explained >= 5


def _differing(game: str) -> list[tuple[object, int, int]]:
    """Seat 0's decisions of :func:`points_of` with a choice, each with its first and last legal move."""
    out = []
    for point in points_of(game):
        legal = np.flatnonzero(point.legal()[0])
        if len(legal) >= 2:
            out.append((point, int(legal[0]), int(legal[-1])))
    return out


@pytest.mark.parametrize("game", ["patolli", "cargolino", "panots", "paleolino"])
def test_every_game_explains_a_difference_in_one_sentence_from_what_the_seat_sees(game: str) -> None:
    words = importlib.import_module(f"engines.{game}.words")
    for k, (point, strong, other) in enumerate(_differing(game)):
        sentence = words.explain(point, strong, other, "greedy")
        assert sentence.endswith(".") and "\n" not in sentence and "greedy" in sentence, sentence
        if getattr(point, "searchable", True):  # what it says never changes with what the seat cannot see
            redrawn = point.take(np.zeros(1, dtype=np.int64))
            redrawn.determinise(core.StreamSource(np.array([k + 5], dtype=np.uint64)))
            assert words.explain(redrawn, strong, other, "greedy") == sentence


def test_patolli_names_both_moves_and_what_each_risks() -> None:
    rolls = [(p, a, b) for p, a, b in _differing("patolli") if isinstance(p, PatolliPoint)]
    assert rolls
    for point, strong, other in rolls:
        said = dict(patolli_words.moves(point))
        sentence = patolli_words.explain(point, strong, other, "balanced")
        assert f"the strong move will {said[strong]}, which " in sentence and f"would {said[other]}, which " in sentence
        assert sentence.startswith("Seat 0 has ") and "tokens against the opponent's" in sentence
        for move in (strong, other):
            if said[move].endswith("and capture"):
                assert "captures" in sentence


def test_cargolino_says_which_snails_are_the_seat_s_own_as_its_view_does() -> None:
    for point, strong, other in _differing("cargolino"):
        mine = [line.split()[0] for line in cargolino_words.view(point) if line.endswith("← yours")]
        sentence = cargolino_words.explain(point, strong, other, "detective")
        assert sentence.startswith(f"Seat 0 holds the {' and '.join(mine)} snail(s)"), sentence
        for move in (strong, other):
            colour = cargolino_words.COLOURS[move // cargolino_words.N_SNAILS]
            own = "its own" if colour in mine else "not its own"
            assert f"the {colour} snail ({own})" in sentence
        assert "from the others' play" in sentence and "space(s) from the finish" in sentence


def test_panots_names_each_card_and_the_objectives_it_serves() -> None:
    grabs = [(p, a, b) for p, a, b in _differing("panots") if isinstance(p, PanotsPoint)]
    assert grabs
    for point, strong, other in grabs:
        sentence = panots_words.explain(point, strong, other, "planner")
        faces = [
            line.split(": ")[1].split(" (")[0] for line in panots_words.view(point) if line.startswith("Objective")
        ]
        for move in (strong, other):
            assert f"the {panots_words.card(int(point.wh[0, move]))} card (serving " in sentence
        assert any(f"{face} (" in sentence for face in faces) or "serving no objective" in sentence
        assert "the patterns the unseen cards may complete" in sentence


def test_paleolino_values_each_cave_by_its_expected_chips_and_the_tops_in_reach() -> None:
    caves = [(p, a, b) for p, a, b in _differing("paleolino") if isinstance(p, PaleolinoPoint) and p.stage == CAVE]
    assert caves
    for point, strong, other in caves:
        sentence = paleolino_words.explain(point, strong, other, "planner")
        assert re.match(r"The table has built \d of 3 with \d+ chips", sentence)  # the table: it wins together
        assert f"opens cave {strong + 1} (" in sentence and f"planner opens cave {other + 1} (" in sentence
        assert sentence.count("chips expected") == 2 and "by the builds it makes sure of" in sentence
