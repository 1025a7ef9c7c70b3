"""Panots's learned player: each grab takes the card whose resulting position the value model values most.

The grab is Panots's decision point (:class:`~engines.panots.decisions.Point`); where the card is laid and what a
stuck seat swaps for follow the baseline heuristic (``planner``, whose values the round's view then holds for
this seat, so the features can read them). In the last round nothing is hidden (every deck is spent), so there
the grab is played out instead of valued: each card by one playout of the round with the baseline in every seat,
the exact result under it (ties by the model). Features are :mod:`engines.panots.features` (public only: no deck's
order enters). Models are trained by self-play (:mod:`engines.learned.selfplay`): round 0 plays the baseline's
grabs, later rounds the model so far; targets are the seat's share of the win (solo: its VP over
``SOLO_SCALE``, as there is nobody to beat), then λ-returns under the model just fitted. See the README.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.learned import lifecycle, searchplay, selfplay, training
from boardlab.engines.learned.choice import choose, searched_candidates, where_chosen
from boardlab.engines.learned.model import ValueModel
from boardlab.engines.panots import features
from boardlab.engines.panots.decisions import Point, Seat
from boardlab.engines.panots.rules import INFO, Params, play_with

SETTINGS = training.Settings(games=60_000, rounds=3, hidden=(64,), epochs=12, sweeps=1, chunk_games=2_000)
SEAT_GAMES = 120_000  #: self-play games times seats (ours): 60,000 two-player games, 30,000 four-player ones
SEARCH_ROUNDS = 2  #: expert-iteration rounds after self-play, 2 players (ours: a third bought nothing, README)
SEARCH = {"search_games": 5_000, "search_playouts": 8}  #: games per such round, playouts per candidate (ours)
SEARCH_SHARE = 0.1  #: share of real choices valued by search in an expert-iteration round (ours)
SOLO_SCALE = 50.0  #: solo targets are the VP over this, clipped to 1 (ours: solo scores stay well below 50)


def settings_for(params: Params, players: int) -> training.Settings:
    """The training of a table of ``players``: ``SEAT_GAMES`` seat-games (solo: as two players), in thousands.

    Two players then add ``SEARCH_ROUNDS`` rounds of expert iteration (``SEARCH``); solo has no win to search
    for, and at 4 players a search costs twice the seats' playouts (not measured).
    """
    games = replace(SETTINGS, games=SEAT_GAMES // max(players, 2) // 1_000 * 1_000)
    return replace(games, search_rounds=SEARCH_ROUNDS, **SEARCH) if players == 2 else games


class Grabbing(Seat):
    """Panots's seat as the learned player is: it wraps the baseline, which lays every card and swaps."""

    values = True  #: the view holds every seat's best gains (the features read the opponents')

    @property
    def mode(self) -> int:
        """The baseline's valuation: the view values this seat's cards as the baseline does."""
        return self.inner.mode


def best(seat: Any, point: Point, model: ValueModel, propose: Callable[[], np.ndarray]) -> np.ndarray:
    """The model's choice at ``point`` (see :func:`engines.learned.choice.choose`); the last round played out.

    In the last round, with a rival, each legal card of a row with a choice is played out once with the baseline
    in every seat (the rest of the round: later grabs, placements, swaps, the final score), the best result taken,
    ties by the model (:func:`engines.learned.choice.searched_candidates`). Nothing is hidden there and the
    baseline is deterministic, so one playout is exact; solo keeps the model (its value is the VP, not the win).
    """
    if point.players == 1 or point.state.round < seat.params.cards_per_player - 1:
        return choose(point, model)
    return where_chosen(point, lambda sub, _: searched_candidates(sub, model, seat.baseline, 1))


@dataclass(frozen=True)
class SelfPlay(searchplay.SearchPlay):
    """:class:`engines.learned.selfplay.SelfPlay` whose solo targets are the VP (over ``SOLO_SCALE``, at most 1).

    With one player ``winners`` is always true (nobody to beat), so a win share would teach nothing; the search
    rounds of expert iteration (:class:`~engines.learned.searchplay.SearchPlay`) value wins, so solo has none.
    """

    def samples(
        self, params: Params, players: int, model: ValueModel | None, n_games: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, selfplay.Trajectories]:
        """Play ``n_games`` (the baseline when ``model`` is None); each recorded position and its seat's value."""
        recorder = selfplay.Recorder(model, self.keep, self.explore, np.random.default_rng(rng.integers(1 << 63)))
        seat = self.table.seat(params, players, recorder)
        out = self.table.play(params, [seat] * players, n_games, core.as_source(rng))
        records = recorder.trajectories(np.asarray(out["winners"], dtype=bool), self.width(params, players), players)
        if players == 1:
            value = np.minimum(out["score"][:, 0] / SOLO_SCALE, 1.0).astype(np.float32)
            records = selfplay.Trajectories(records.features, records.owner, value[records.owner])
        return records.features, records.returns, records


def keyed(players: int, settings: training.Settings) -> dict[str, float]:
    """Sampling constants only some trainings read: solo's scale, expert iteration's searched share."""
    solo = {"solo_scale": SOLO_SCALE} if players == 1 else {}
    return solo | ({"search_share": SEARCH_SHARE} if settings.search_rounds else {})


SPEC = lifecycle.Spec(
    info=INFO,
    n_features=features.n_features,
    features=1,
    unit=2,  #: 2: the last round played out
    settings=settings_for,
    shipped=Path(__file__).parent / "models",
    play=play_with,
    #: half of real choices recorded (a game's positions are correlated), λ 0.7, 5% explored, a tenth of real
    #: choices searched in an expert-iteration round (ours)
    sampling=lifecycle.Sampling(keep=0.5, lam=0.7, explore=0.05, keyed=keyed, search_share=SEARCH_SHARE),
    seat=Grabbing,
    wraps=True,
    unit_choice=best,
    selfplay=SelfPlay,
    trains=("games", "seed", "search_games"),  #: expert iteration's games scale with the self-play games
)
Learned = lifecycle.player(SPEC, __name__)
