"""Pantolino's learned player: its spec (features, unit, settings, models) for the learned lifecycle.

The player's parts live by job: the features of a position as a seat sees it (:mod:`engines.pantolino.features`),
the per-turn unit that turns model values into keeps and a token (:mod:`engines.pantolino.unit`), and the
self-play samples with their exact one-turn backups (:mod:`engines.pantolino.selfplay`). This module declares how
its models are trained (:func:`settings_for`), its n-tuples (:func:`tuples_for`) and the spec
(:data:`SPEC`) from which the lifecycle (:mod:`engines.learned.lifecycle`) loads, trains, caches and
fingerprints them.

With two players and no escaping boots the model is an n-tuple network (:func:`tuples_for`) over the supply
flags, the lead and the boots left; elsewhere a small network (``engines.learned``' two families).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from boardlab.engines.learned import ntuple, training
from boardlab.engines.learned.lifecycle import Spec
from boardlab.engines.learned.ntuple import Input
from boardlab.engines.pantolino import response
from boardlab.engines.pantolino.features import (  # noqa: F401 (the names other modules read here)
    BOOTS_SCALE,
    FEATURES,
    FEATURES_MANY,
    View,
    candidate_views,
    decided,
    features_of,
    n_features,
    view_of,
)
from boardlab.engines.pantolino.rules import INFO, Params, play_with, token_colour, token_value
from boardlab.engines.pantolino.selfplay import Recorder, SelfPlay, outputs  # noqa: F401 (read here)
from boardlab.engines.pantolino.unit import TurnRule, Unit  # noqa: F401 (read here)

UNIT = 2  #: bump when the unit's decisions change (training plays it): 2 = decided games, the boots tie-break
#: how the 2-player models ``learned`` plays are trained (ours; see the README): an n-tuple network where its
#: tuples apply (:func:`tuples_for`), else the network with the same rounds and sweeps
SETTINGS = training.Settings(games=60_000, rounds=3, sweeps=6, sweep_epochs=3, family=ntuple.FAMILY)
#: with more players a backup follows every seat's share through the mover's turn, and positions repeat less in
#: a batch: fewer games keep training within minutes (ours)
SETTINGS_MANY = training.Settings(games=20_000, rounds=2, sweeps=3, sweep_epochs=3)
TEACHER = "best-reply"  #: the 3-player teacher's name in a model's settings (:mod:`engines.pantolino.teacher`)
#: with 3 players where the best reply is solved: a wider network fitted to its values, no backups, four rounds of
#: the learner's games and closing passes at a tenth of the rate (ours; the README measures each)
SETTINGS_TAUGHT = training.Settings(
    games=60_000, rounds=4, hidden=(128, 128), epochs=15, sweeps=0, teacher=TEACHER, anneal_epochs=5
)
#: the n-tuple network's largest size (ours: about 1 MB of float32 weights); beyond it the network plays
MAX_CELLS = 1 << 18
#: a training's positions (games times turns a game) at most (ours: every shipped setting's training stays below,
#: the largest, no joker faces, at 3.4 million; each round's samples then hold at most about 350 MB)
MAX_TRAINING_POSITIONS = 6_000_000
PILOT_GAMES = 100  #: games played to measure how many turns a setting's games last (ours)


@lru_cache(maxsize=64)
def tuples_for(params: Params, players: int) -> ntuple.Spec | None:
    """The n-tuples of a 2-player game without escaping boots (None elsewhere, or beyond :data:`MAX_CELLS`).

    Each tuple reads the viewer's lead (in boots, clipped to the tokens' total) and one part of the supply (ours):
    the boots left; each colour's tokens (one table shared by the colours, which the dice treat alike); each
    value's tokens (a table per value); how many tokens of each value are left. Where the boots lead is decided
    the unit uses the exact result, so the tables only need the leads the supply can still overturn.
    """
    if players != 2 or params.escaping_boots:
        return None
    t, c = params.n_tokens, params.colours
    total = sum(params.token_values) * c
    unit = total / BOOTS_SCALE  # boots per feature unit
    lead = Input((t + players,), (unit,), float(total), 2 * total + 1)
    colour, value = token_colour(params), token_value(params)

    def bits(tokens: np.ndarray) -> Input:
        return Input(
            tuple(int(k) for k in tokens), tuple(float(1 << i) for i in range(len(tokens))), 0.0, 1 << len(tokens)
        )

    by_value = [np.flatnonzero(value == v) for v in params.token_values]
    groups = (
        ntuple.Group(((lead, Input((t + players + 1,), (unit,), 0.0, total + 1)),)),
        ntuple.Group(tuple((lead, bits(np.flatnonzero(colour == k))) for k in range(c))),
        *(ntuple.Group(((lead, bits(tokens)),)) for tokens in by_value),
        ntuple.Group(((lead, *(Input(tuple(int(k) for k in tokens), (1.0,) * c, 0.0, c + 1) for tokens in by_value)),)),
    )
    if sum(group.cells for group in groups) > MAX_CELLS:
        return None
    return ntuple.Spec(groups, n_features(params, players))


def settings_for(params: Params, players: int) -> training.Settings:
    """How the model ``learned`` plays for ``params`` and ``players`` seats is trained (see :func:`resolved`).

    With 3 players where the best reply is solved (:func:`engines.pantolino.response.solvable`) the model is taught
    by it (:data:`SETTINGS_TAUGHT`, :mod:`engines.pantolino.teacher`). Elsewhere it learns by self-play:
    A setting whose games cost more to train than the default game's (:func:`training_work`) trains on
    proportionally fewer games (in whole thousands, at least a thousand), so it trains in about the default's time
    (ours; the README measures what it costs in strength). A setting whose games last so many turns (few rolls, no
    joker: a turn often takes nothing) that the games would meet more than :data:`MAX_TRAINING_POSITIONS`
    positions (:func:`turns_per_game`) trains on as many games as that allows, so its time and memory stay bounded.
    """
    if response.solvable(params, players):
        return SETTINGS_TAUGHT
    base = SETTINGS if players == 2 else SETTINGS_MANY
    work, default = training_work(params), training_work(Params())
    games = base.games if work <= default else max(1, base.games * default // work // 1_000) * 1_000
    turns = turns_per_game(params, players)
    if games * turns > MAX_TRAINING_POSITIONS:
        games = max(1, int(MAX_TRAINING_POSITIONS / turns) // 1_000) * 1_000
    return base if games == base.games else replace(base, games=games)


@lru_cache(maxsize=64)
def training_work(params: Params) -> int:
    """How a game's training cost grows with the knobs, up to a constant: tokens² × rolls × dice transitions.

    A game lasts about a turn per token; a position's backup plays the next mover's turn, a keep programme over
    every roll's transitions between multisets of dice, and values the position after every token.
    """
    return params.n_tokens**2 * params.rolls * int(np.count_nonzero(params.tables.transition))


@lru_cache(maxsize=64)
def turns_per_game(params: Params, players: int) -> float:
    """Mean turns of :data:`PILOT_GAMES` seeded games of players to whom every position is worth the same.

    Such a player keeps for the most boots and takes the largest token, as ``turn-optimal`` does, so its games last
    about as long as round 0's (18 turns at default knobs, 143 with two rolls and no joker face; under
    ``turn-optimal`` 18 and 159).
    """
    player = Unit(params, {players: Indifferent(outputs(players))})
    games = play_with(params, [player] * players, PILOT_GAMES, np.random.default_rng(0), metrics=False)
    return float(games["turns"].mean())


@dataclass(frozen=True)
class Indifferent:
    """A model to which every position is worth nothing: the unit with it keeps for the most boots."""

    outputs: int

    def predict_all(self, features: np.ndarray) -> np.ndarray:
        """Zeros, one row per position."""
        return np.zeros((len(features), self.outputs), np.float32)


def sampler(player: type, settings: training.Settings) -> training.Sampler:
    """What trains a model of ``settings``: its teacher's values where they name one, else self-play."""
    return player.teacher(player.baseline) if settings.teacher else SelfPlay(player.baseline)


SPEC = Spec(
    info=INFO,
    n_features=n_features,
    features={2: FEATURES, 3: FEATURES_MANY},
    unit=UNIT,
    settings=settings_for,
    shipped=Path(__file__).parent / "models",
    play=play_with,
    sampler=sampler,
    tuples=tuples_for,
    trains=None,  #: ``simulate train``'s settings are used whole
)


class Learned(Unit):
    """``learned``: the per-turn unit with the models of :data:`SPEC`.

    ``baseline`` (a policy implementation class) plays round 0 of training; the registry sets it and ``teacher``
    (the sampler class of a taught model, given the baseline), so this module needs no policy registry.
    """

    spec = SPEC
    baseline: type
    teacher: type
