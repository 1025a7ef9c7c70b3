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

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import Policy
from boardlab.engines.learned import searchplay, selfplay, store, training
from boardlab.engines.learned.choice import choose, searched_candidates, where_chosen
from boardlab.engines.learned.model import ValueModel, checksum
from boardlab.engines.panots import features
from boardlab.engines.panots.decisions import Point, Seat
from boardlab.engines.panots.rules import INFO, Params, play_with

FEATURES = 1  #: bump when the features change: every cached or shipped model is refused and retrained
UNIT = 2  #: bump when the decisions the model drives change (training plays them): 2, the last round played out
SETTINGS = training.Settings(games=60_000, rounds=3, hidden=(64,), epochs=12, sweeps=1, chunk_games=2_000)
SEAT_GAMES = 120_000  #: self-play games times seats (ours): 60,000 two-player games, 30,000 four-player ones
KEEP = 0.5  #: share of real choices recorded as samples (ours: a game's positions are correlated)
LAM = 0.7  #: λ of the backed-up targets (ours; see the README)
EXPLORE = 0.05  #: share of real choices made at random in self-play (ours)
SEARCH_ROUNDS = 2  #: expert-iteration rounds after self-play, 2 players (ours: a third bought nothing, README)
SEARCH = {"search_games": 5_000, "search_playouts": 8}  #: games per such round, playouts per candidate (ours)
SEARCH_SHARE = 0.1  #: share of real choices valued by search in an expert-iteration round (ours)
SOLO_SCALE = 50.0  #: solo targets are the VP over this, clipped to 1 (ours: solo scores stay well below 50)
SHIPPED = Path(__file__).parent / "models"  #: models shipped with the package, checked like cached ones


def settings_for(players: int) -> training.Settings:
    """The training of a table of ``players``: ``SEAT_GAMES`` seat-games (solo: as two players), in thousands.

    Two players then add ``SEARCH_ROUNDS`` rounds of expert iteration (``SEARCH``); solo has no win to search
    for, and at 4 players a search costs twice the seats' playouts (not measured).
    """
    games = replace(SETTINGS, games=SEAT_GAMES // max(players, 2) // 1_000 * 1_000)
    return replace(games, search_rounds=SEARCH_ROUNDS, **SEARCH) if players == 2 else games


class Learned(Seat):
    """``learned``: each grab's legal card with the best-valued resulting position; the baseline places and swaps.

    It is the game's seat deciding by the model, wrapping the baseline, which proposes.

    ``baseline`` (a policy name; round 0 of training grabs as it does, and it lays every card) and ``policies``
    (the registry names resolve in) are set by the registry, so this module needs none. ``decide`` replaces the
    model's choice (self-play records through it); by default the model for the table decides.
    """

    baseline: str
    policies: Mapping[str, Policy]
    values = True  #: the view holds every seat's best gains (the features read the opponents')

    def __init__(
        self, params: Params, models: dict[int, ValueModel] | None = None, decide: selfplay.Decide | None = None
    ) -> None:
        """Play ``params``; the model is loaded (or trained) on first use unless given."""
        (base,) = core.policy_instances(self.policies, [self.baseline], params)
        super().__init__(base, decide or self.best, self.policies)
        self.params = params
        self.models = dict(models or {})

    @property
    def mode(self) -> int:
        """The baseline's valuation: the view values this seat's cards as the baseline does."""
        return self.inner.mode

    @staticmethod
    def settings(params: Params, players: int) -> training.Settings:
        """How the model ``learned`` plays is trained (``simulate train``'s default; one table size, any knobs)."""
        return settings_for(players)

    @classmethod
    def train(
        cls,
        params: Params,
        players: int,
        settings: training.Settings,
        mapper: training.Mapper = training.serial,
        progress: training.Progress | None = None,
        retrain: bool = False,
    ) -> tuple[ValueModel, Path, str]:
        """The model for ``settings`` (``simulate train``): cached, or trained now; ``(model, path, how)``.

        ``simulate train`` sets only the games, the seed and the expert-iteration games (which it scales with the
        self-play games); the other settings stay Panots's own.
        """
        base = settings_for(players)
        chosen = replace(base, games=settings.games, seed=settings.seed, search_games=settings.search_games)
        return obtain(params, players, cls, chosen, None, mapper, progress, retrain, True)

    def prepare(self, players: int) -> None:
        """Load the model for ``players``, or train it now (saying so on stderr) unless training is off."""
        if players not in self.models:
            say = lambda text: print(text, file=sys.stderr)  # noqa: E731
            self.models[players] = obtain(self.params, players, type(self), settings_for(players), say)[0]

    def fingerprint(self, players: int) -> str:
        """SHA-256 of the model bytes ``players`` seats play with: saved chunks of another model are not reused."""
        self.prepare(players)
        return checksum(self.models[players].to_bytes())

    def best(self, point: Point, games: np.ndarray, propose: Callable[[], np.ndarray]) -> np.ndarray:
        """The model's choice at ``point`` (see :func:`engines.learned.choice.choose`); the last round played out.

        In the last round, with a rival, each legal card of a row with a choice is played out once with the
        baseline in every seat (the rest of the round: later grabs, placements, swaps, the final score), the best
        result taken, ties by the model (:func:`engines.learned.choice.searched_candidates`). Nothing is hidden
        there and the baseline is deterministic, so one playout is exact; solo keeps the model (its value is the
        VP, not the win).
        """
        self.prepare(point.players)
        model = self.models[point.players]
        if point.players == 1 or point.state.round < self.params.cards_per_player - 1:
            return choose(point, model)
        return where_chosen(point, lambda sub, _: searched_candidates(sub, model, self.baseline, 1))


@dataclass(frozen=True)
class Table:
    """Self-play seating (:class:`engines.learned.selfplay.Table`): ``player`` grabbing through a recorder."""

    player: type[Learned]

    def seat(self, params: Params, players: int, recorder: selfplay.Recorder) -> Learned:
        """A ``player`` whose every grab is ``recorder``'s."""
        return self.player(params, decide=recorder)

    def searching_seat(
        self, params: Params, players: int, recorder: searchplay.SearchRecorder, model: ValueModel
    ) -> Learned:
        """A ``player`` grabbing through ``recorder``, whose decision points play ``learned`` out with ``model``."""
        seat = self.player(params, decide=recorder)
        registry = self.player.policies
        rollout = replace(registry[searchplay.ROLLOUT], impl=partial(self.player, models={players: model}))
        seat.policies = {**registry, searchplay.ROLLOUT: rollout}
        return seat

    def play(self, params: Params, seats: Sequence[object], n_games: int, source: core.Source) -> core.Outcome:
        """The batched engine."""
        return play_with(params, seats, n_games, source)


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


def sampler(player: type[Learned]) -> SelfPlay:
    """Self-play for ``player``'s training."""
    return SelfPlay(Table(player), features.n_features, KEEP, LAM, EXPLORE, SEARCH_SHARE)


def model_key(params: Params, players: int, player: type[Learned], settings: training.Settings) -> dict:
    """Everything that determines a model's bytes."""
    sampling = {"baseline": player.baseline, "keep": KEEP, "lambda": LAM, "explore": EXPLORE}
    if players == 1:
        sampling["solo_scale"] = SOLO_SCALE
    if settings.search_rounds:
        sampling["search_share"] = SEARCH_SHARE
    return store.model_key(INFO, params, players, FEATURES, UNIT, settings, sampling)


def obtain(
    params: Params,
    players: int,
    player: type[Learned],
    settings: training.Settings,
    say: Callable[[str], None] | None = None,
    mapper: training.Mapper = training.serial,
    progress: training.Progress | None = None,
    retrain: bool = False,
    explicit: bool = False,
) -> tuple[ValueModel, Path, str]:
    """:func:`engines.learned.store.obtain` for Panots: ``(model, path, "shipped" | "cached" | "trained")``."""
    key = model_key(params, players, player, settings)
    return store.obtain(
        sampler(player), key, params, players, settings, SHIPPED, say, mapper, progress, retrain, explicit
    )
