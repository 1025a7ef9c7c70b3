"""Pantolino's learned player: features of a position as a seat sees it, and the per-turn unit that uses them.

Features (:func:`features_of`) describe the position right after a seat's turn, from that seat's view; seats are
numbered relative to it (0 = the viewer, 1 = the next to move, ...). Pantolino hides nothing, so every feature is
public; the rule for any game is that a feature may use only what the viewing seat can see. In order:

- one flag per token: still in the supply (``T``);
- each seat's boots (its head start and its centipede), in eighths of the tokens' total boots (:data:`BOOTS_SCALE`)
  (``P``);
- the viewer's lead over the strongest opponent, and the boots left in the supply, likewise (2);
- with escaping boots, per token and seat: the token can be stolen from that seat (its tail token under
  ``steal_from=tail``, any of its tokens under ``any``) (``T * P``);
- where the colour tie-break can decide (:func:`~engines.pantolino.rules.tie_possible`), each seat's most boots
  of one colour, likewise (``P``); with three or more players also each seat's boots in each colour (``P * C``).

With three or more players the colours are first put in one order (:func:`canonical_colours`), so the model sees
positions that differ only in colour names alike.

With two players and no escaping boots the model is an n-tuple network (:func:`tuples_for`) over the supply
flags, the lead and the boots left; elsewhere a small network (``engines.learned``' two families).

The unit (:class:`Learned`): at the start of a turn the model values the position after each token the mover
could take and after taking nothing; the keeps are then the exact per-turn dynamic programme over the dice that
maximises the expected value of where the turn ends (:mod:`engines.pantolino.keepdp`), and the token is the best
valued one the last throw allows. Model values are computed once per turn and reused by every roll's keep and by
the token choice.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from boardlab.engines.learned import ntuple, store, training
from boardlab.engines.learned.model import checksum
from boardlab.engines.learned.ntuple import Input
from boardlab.engines.learned.training import Model
from boardlab.engines.pantolino import keepdp, response
from boardlab.engines.pantolino.dice import DiceTables
from boardlab.engines.pantolino.rules import (
    INFO,
    SUPPLY,
    Params,
    State,
    Turn,
    TurnMemo,
    finished,
    fits,
    play_with,
    score,
    start_boots,
    take_token,
    tie_possible,
    token_colour,
    token_value,
)

#: bump when the features change: every cached or shipped model is refused and retrained (2 players, and more)
FEATURES = 2
FEATURES_MANY = 3  #: 3 = each seat's boots in each colour, colours in canonical order
#: boots are counted in eighths of the game's total (ours): a one-boot lead is then 0.18 of an input unit, so the
#: network draws sharp steps in the lead with small weights (2 players, against `turn-optimal`: 52.8% against 51.7%)
BOOTS_SCALE = 8.0
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
BACKUP_ROWS = 50_000  #: positions backed up at once (bounds memory)
TERMINAL_ROWS = 1024  #: positions whose restricted last-throw values are computed at once (bounds memory)
SHIPPED = Path(__file__).parent / "models"  #: models shipped with the package, checked like cached ones
#: the n-tuple network's largest size (ours: about 1 MB of float32 weights); beyond it the network plays
MAX_CELLS = 1 << 18
#: a training's positions (games times turns a game) at most (ours: every shipped setting's training stays below,
#: the largest, no joker faces, at 3.4 million; each round's samples then hold at most about 350 MB)
MAX_TRAINING_POSITIONS = 6_000_000
PILOT_GAMES = 100  #: games played to measure how many turns a setting's games last (ours)


def n_features(params: Params, players: int) -> int:
    """Length of a position's feature vector for these knobs and players."""
    t = params.n_tokens
    return (
        t
        + players
        + 2
        + (t * players if params.escaping_boots else 0)
        + ((players + (players * params.colours if players > 2 else 0)) if tie_possible(params, players) else 0)
    )


def features_version(players: int) -> int:
    """The version of the features of ``players`` seats (part of a model's key)."""
    return FEATURES if players == 2 else FEATURES_MANY


@dataclass
class View:
    """Positions as their viewer sees them (seats relative to the viewer), the parts features are made of."""

    supply: np.ndarray  # (N, T) bool
    boots: np.ndarray  # (N, P) int64, seat 0 = the viewer
    colour_boots: np.ndarray | None  # (N, P, C) int64 when the colour tie-break can decide
    stealable: np.ndarray | None  # (N, T, P) bool with escaping boots: token t can be stolen from seat r


def features_of(params: Params, view: View) -> np.ndarray:
    """``(..., n_features)`` float32 features (see the module docstring); 3+ players' in canonical colour order."""
    if view.boots.shape[-1] > 2:
        view = canonical_colours(params, view)
    total = float(sum(params.token_values) * params.colours) / BOOTS_SCALE
    value = token_value(params).astype(np.float32)
    parts = [view.supply.astype(np.float32), view.boots / total]
    lead = view.boots[..., 0] - view.boots[..., 1:].max(axis=-1)
    parts += [lead[..., None] / total, (view.supply @ value)[..., None] / total]
    if view.stealable is not None:
        parts.append(view.stealable.reshape(*view.stealable.shape[:-2], -1))
    if view.colour_boots is not None:
        parts.append(view.colour_boots.max(axis=-1) / total)
        if view.boots.shape[-1] > 2:
            parts.append(view.colour_boots.reshape(*view.colour_boots.shape[:-2], -1) / total)
    return np.concatenate([np.asarray(p, dtype=np.float32) for p in parts], axis=-1)


def canonical_colours(params: Params, view: View) -> View:
    """``view`` with each position's colours renamed into one order (ties keep the colours' own).

    The order sorts a colour by its tokens in the supply, then each seat's boots in it, then who its tokens can be
    stolen from: all as the features show them. The dice and the rules treat colours alike, so positions that differ
    only in the names of their colours are worth the same to every seat: a model that sees them the same needs to
    learn each once, not once per renaming (up to 120 with five colours).
    """
    colours, values = params.colours, len(params.token_values)
    token = np.arange(values)[None, :] * colours + (colours - 1 - np.arange(colours))[:, None]  # (C, V): its id
    lead = view.supply.shape[:-1]
    keys = [view.supply[..., token]]  # (..., C, V)
    if view.colour_boots is not None:
        keys.append(np.swapaxes(view.colour_boots, -1, -2))  # (..., C, P)
    if view.stealable is not None:
        keys.append(view.stealable[..., token, :].reshape(*lead, colours, -1))  # (..., C, V * P)
    key = np.concatenate([k.astype(np.int64) for k in keys], axis=-1)
    order = np.broadcast_to(np.arange(colours), (*lead, colours))
    for column in range(key.shape[-1] - 1, -1, -1):  # least significant first: each stable sort keeps the last's
        by = np.take_along_axis(key[..., column], order, axis=-1)
        order = np.take_along_axis(order, np.argsort(by, axis=-1, kind="stable"), axis=-1)
    colour, value = token_colour(params), np.arange(params.n_tokens) // colours
    source = token[np.take_along_axis(order, np.broadcast_to(colour, (*lead, len(colour))), axis=-1), value]
    supply = np.take_along_axis(view.supply, source, axis=-1)
    colour_boots = view.colour_boots
    if colour_boots is not None:
        colour_boots = np.take_along_axis(colour_boots, order[..., None, :], axis=-1)
    stealable = view.stealable
    if stealable is not None:
        stealable = np.take_along_axis(stealable, source[..., None], axis=-2)
    return View(supply, view.boots, colour_boots, stealable)


def decided(params: Params, view: View) -> np.ndarray:
    """The viewer's share where the game's result is already certain (1 won, 0 lost), else -1.

    Without escaping boots no seat loses boots, so a viewer ahead of every rival by more than the supply's boots
    has won, and one behind a rival by more has lost. A model's values there are only close to 1 or 0; with
    noise a mover to whom every choice is worth a win may prefer to take nothing and draw a decided game out
    for hundreds of turns.
    """
    if params.escaping_boots:
        return np.full(view.boots.shape[:-1], -1.0)
    left = view.supply @ token_value(params)
    own, rivals = view.boots[..., 0], view.boots[..., 1:]
    won = own > rivals.max(axis=-1) + left
    lost = (rivals > own[..., None] + left[..., None]).any(axis=-1)
    return np.where(won, 1.0, np.where(lost, 0.0, -1.0))


def relative_owner(owner: np.ndarray, viewer: np.ndarray, players: int) -> np.ndarray:
    """Owner seats relative to ``viewer`` (0 = the viewer), supply and removed tokens kept as their codes."""
    owner = owner.astype(np.int64)
    return np.where(owner >= 0, (owner - viewer[:, None]) % players, owner)


def relative_start(params: Params, viewer: np.ndarray, players: int) -> np.ndarray:
    """``(N, P)``: each seat's head start, seats counted from ``viewer`` (0 = the viewer)."""
    return start_boots(params, players)[(viewer[:, None] + np.arange(players)) % players]


def tails(rel: np.ndarray, taken_at: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(tail, previous)``, each ``(N, P)``: each seat's last-added token and the one before it, -1 for none."""
    seats = np.arange(players)
    on_seat = rel[:, None, :] == seats[None, :, None]  # (N, P, T)
    when = np.where(on_seat, taken_at[:, None, :].astype(np.int64), -1)
    order = np.argsort(-when, axis=2, kind="stable")
    tail, previous = order[:, :, 0], order[:, :, 1] if rel.shape[1] > 1 else order[:, :, 0]
    has = np.take_along_axis(when, order[:, :, :2], axis=2) >= 0
    return np.where(has[:, :, 0], tail, -1), np.where(has[:, :, 1], previous, -1)


def stealable_of(params: Params, rel: np.ndarray, tail: np.ndarray, players: int) -> np.ndarray:
    """``(N, T, P)``: token t could be stolen from seat r (its tail token, or any token under ``steal_from=any``)."""
    seats = np.arange(players)
    if params.steal_from == "any":
        return rel[:, :, None] == seats[None, None, :]
    tokens = np.arange(rel.shape[1])
    return tail[:, None, :] == tokens[None, :, None]


def view_of(params: Params, players: int, owner: np.ndarray, taken_at: np.ndarray, viewer: np.ndarray) -> View:
    """The positions given by ``owner`` and ``taken_at`` as seat ``viewer`` of each row sees them."""
    rel = relative_owner(owner, viewer, players)
    value = token_value(params)
    seats = np.arange(players)
    held = rel[:, None, :] == seats[None, :, None]  # (N, P, T)
    colour_boots = None
    if tie_possible(params, players):
        by_colour = token_colour(params)[None, :] == np.arange(params.colours)[:, None]  # (C, T)
        colour_boots = (held * value) @ by_colour.T.astype(np.int64)
    stealable = None
    if params.escaping_boots:
        stealable = stealable_of(params, rel, tails(rel, taken_at, players)[0], players)
    boots = (held * value).sum(axis=2) + relative_start(params, viewer, players)
    return View(rel == SUPPLY, boots, colour_boots, stealable)


def candidate_views(turn: Turn) -> View:
    """The position after each candidate of the mover, as the mover sees it: rows ``(B, T + 1)``.

    Candidate ``t < T`` takes token ``t`` (from the supply or an opponent; meaningless where not available);
    candidate ``T`` takes nothing (and, under ``remove-smallest``, removes a smallest supply token).
    """
    params, players = turn.params, turn.players
    n, t = turn.owner.shape
    value, colour = token_value(params), token_colour(params)
    rel = relative_owner(turn.owner, turn.mover, players)
    base = view_of(params, players, turn.owner, turn.state.taken_at, turn.mover)
    eye = np.eye(t + 1, t, dtype=bool)
    supply = base.supply[:, None, :] & ~eye[None]
    if params.no_token_rule == "remove-smallest":
        lowest = np.where(base.supply.any(axis=1), base.supply.argmax(axis=1), -1)  # token 0 is a smallest
        rows = np.flatnonzero(lowest >= 0)
        supply[rows, t, lowest[rows]] = False
    victim = np.concatenate([np.where(rel >= 1, rel, 0), np.zeros((n, 1), np.int64)], axis=1)  # (B, T + 1)
    gain = np.r_[value, 0]
    seats = np.arange(players)
    delta = gain * (
        (seats[:, None] == 0).astype(np.int64) - (seats[:, None] == victim[:, None, :]) * (victim[:, None, :] > 0)
    )
    boots = base.boots[:, None, :] + delta.transpose(0, 2, 1)  # (B, T + 1, P)
    colour_boots = None
    if base.colour_boots is not None:
        hit = np.eye(params.colours, dtype=np.int64)[np.r_[colour, 0]] * (np.arange(t + 1) < t)[:, None]  # (T+1, C)
        colour_boots = base.colour_boots[:, None] + delta.transpose(0, 2, 1)[..., None] * hit[None, :, None, :]
    stealable = None
    if base.stealable is not None:
        stealable = np.repeat(base.stealable[:, None], t + 1, axis=1)  # (B, T + 1, T, P)
        tokens = np.arange(t)
        if params.steal_from == "any":
            stealable[:, tokens, tokens, :] = False
            stealable[:, tokens, tokens, 0] = True
        else:
            previous = tails(rel, turn.state.taken_at, players)[1]
            rows = np.arange(n)[:, None]
            v = victim[:, :t]
            stealable[rows, tokens[None], tokens[None], v] = False  # the token leaves its victim (v > 0) ...
            stealable[:, :t, :, 0] = eye[None, :t, :]  # ... and is the mover's new tail
            prev = previous[rows, v]
            r_idx, c_idx = np.nonzero((v > 0) & (prev >= 0))  # the victim's token before it is its tail again
            stealable[r_idx, c_idx, prev[r_idx, c_idx], v[r_idx, c_idx]] = True
    return View(supply, boots, colour_boots, stealable)


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
    player = Learned(params, {players: Indifferent(outputs(players))})
    games = play_with(params, [player] * players, PILOT_GAMES, np.random.default_rng(0), metrics=False)
    return float(games["turns"].mean())


@dataclass(frozen=True)
class Indifferent:
    """A model to which every position is worth nothing: :class:`Learned` with it keeps for the most boots."""

    outputs: int

    def predict_all(self, features: np.ndarray) -> np.ndarray:
        """Zeros, one row per position."""
        return np.zeros((len(features), self.outputs), np.float32)


def resolved(params: Params, players: int, settings: training.Settings) -> training.Settings:
    """``settings`` as they apply here: the n-tuple family where :func:`tuples_for` has none is the network."""
    if settings.family == ntuple.FAMILY and tuples_for(params, players) is None:
        return replace(settings, family=training.MLP)
    return settings


def model_tuples(params: Params, players: int, settings: training.Settings | None = None) -> ntuple.Spec | None:
    """The tuples of the model ``settings`` train here (default: the ones ``learned`` plays); None for a network."""
    chosen = resolved(params, players, settings or settings_for(params, players))
    return tuples_for(params, players) if chosen.family == ntuple.FAMILY else None


def model_key(params: Params, players: int, settings: training.Settings | None = None) -> dict:
    """Everything that determines a model's bytes (default: the settings ``learned`` plays)."""
    chosen = resolved(params, players, settings or settings_for(params, players))
    return store.model_key(
        INFO, params, players, features_version(players), UNIT, chosen, tuples=model_tuples(params, players, chosen)
    )


class Learned:
    """``learned``: the value model's per-turn unit (see the module docstring).

    ``baseline`` (a policy implementation class) plays round 0 of training; the registry sets it and ``teacher``
    (the sampler class of a taught model, given the baseline), so this module needs no policy registry.
    """

    baseline: type
    teacher: type
    #: worth of a boot when model values tie (ours): a decided game is still played to its end, not drawn out for
    #: hundreds of turns by a mover to whom every choice is worth exactly a win (or a loss)
    boots_tiebreak = 1e-9

    def __init__(self, params: Params, models: dict[int, Model] | None = None) -> None:
        """Play ``params``; models by player count are loaded (or trained) on first use unless given."""
        self.params, self.tables = params, params.tables
        self.models = dict(models or {})
        self.colour, self.value = token_colour(params), token_value(params)
        self.sparse = keepdp.Sparse.of(self.tables)
        self.memo: TurnMemo[TurnValues] = TurnMemo()
        self.rules: tuple[TurnRule, ...] = ()  # restrictions of the keeps and the token (none: the full player)

    def restrict(self, rules: Sequence[TurnRule]) -> None:
        """Play under ``rules`` from now on: keep options masked in the programme, tokens masked in the choice.

        Where a rule leaves a throw no keep option, or a throw's fitting tokens none, all of them stay (a forced
        move). Rules only ever remove candidates; the values and the model are the full player's.
        """
        self.rules, self.memo = tuple(rules), TurnMemo()
        keeps = [rule.keeps(self.tables) for rule in self.rules if rule.keeps is not None]
        if keeps:
            self.sparse = replace(self.sparse, options=keepdp.restricted_options(self.sparse.options, keeps))

    @property
    def token_rules(self) -> bool:
        """Whether a rule restricts the token choice."""
        return any(rule.tokens is not None for rule in self.rules)

    @staticmethod
    def settings(params: Params, players: int) -> training.Settings:
        """How the model ``learned`` plays for these knobs and players is trained (``simulate train``'s default)."""
        return settings_for(params, players)

    @classmethod
    def train(
        cls,
        params: Params,
        players: int,
        settings: training.Settings,
        mapper: training.Mapper = training.serial,
        progress: training.Progress | None = None,
        retrain: bool = False,
    ) -> tuple[Model, Path, str]:
        """The model for ``settings`` (``simulate train``): cached, or trained now; ``(model, path, how)``."""
        return obtain(params, players, cls.samples_from(settings), settings, None, mapper, progress, retrain, True)

    @classmethod
    def samples_from(cls, settings: training.Settings) -> training.Sampler:
        """What trains a model of ``settings``: its teacher's values where they name one, else self-play."""
        return cls.teacher(cls.baseline) if settings.teacher else SelfPlay(cls.baseline)

    def prepare(self, players: int) -> None:
        """Load the model for ``players``, or train it now (saying so on stderr) unless training is off."""
        if players not in self.models:
            settings = settings_for(self.params, players)
            self.models[players] = ensure_model(self.params, players, self.samples_from(settings))

    def fingerprint(self, players: int) -> str:
        """SHA-256 of the model bytes ``players`` seats play with: saved chunks of another model are not reused."""
        self.prepare(players)
        return checksum(self.models[players].to_bytes())

    def successor_values(self, turn: Turn) -> TurnValues:
        """The model's values after each candidate of this turn, per distinct position (computed once a turn)."""
        return self.memo.get(turn, lambda: self.compute_successor_values(turn))

    def compute_successor_values(self, turn: Turn) -> TurnValues:
        """:meth:`successor_values`, computed."""
        first, inverse = distinct_positions(turn)
        unique = turn.subset(first)
        values = self.candidate_shares(unique)[..., 0]
        stay = values[:, -1]  # taking nothing
        take = np.where(unique.available, values[:, :-1] + self.boots_tiebreak * self.value, -np.inf)
        if self.token_rules:
            terminal = self.restricted_terminal(unique, take, stay)
        else:
            terminal = keepdp.terminal_values(take, stay, self.colour, self.value, self.sparse.eff)
        return TurnValues(take, stay, inverse, [terminal])

    def restricted_terminal(self, turn: Turn, take: np.ndarray, stay: np.ndarray) -> np.ndarray:
        """``(U, F)``: :func:`keepdp.terminal_values` with the token rules: the best allowed fitting token's value."""
        n_tokens = len(self.value)
        fit = ((self.tables.fit_mask[:, None] >> np.arange(n_tokens)) & 1).astype(bool)  # (F, T)
        out = np.empty((len(take), len(fit)))
        for lo in range(0, len(take), TERMINAL_ROWS):
            rows = np.arange(lo, min(lo + TERMINAL_ROWS, len(take)))
            fitting = turn.available[rows, None, :] & fit[None]  # (rows, F, T)
            allowed = allowed_tokens(self.rules, turn.subset(rows), fitting)
            best = np.where(allowed, take[rows, None, :], -np.inf).max(axis=2)
            out[rows] = np.where(fitting.any(axis=2), best, stay[rows, None])
        return out

    def candidate_shares(self, turn: Turn) -> np.ndarray:
        """``(B, T + 1, K)``: the model's shares (seats from the mover) after each candidate, certain ones exact."""
        self.prepare(turn.players)
        view = candidate_views(turn)
        n, width = view.supply.shape[:2]
        flat = features_of(self.params, view).reshape(n * width, -1)
        shares = self.models[turn.players].predict_all(flat).reshape(n, width, -1).astype(np.float64)
        certain = decided(self.params, view)
        won, lost = certain == 1.0, certain == 0.0
        shares[won] = np.eye(shares.shape[2])[0]
        shares[lost, 0] = 0.0
        if shares.shape[2] > 1:  # a lost viewer's share goes to the others, in the model's proportions
            rest = shares[lost, 1:]
            total = rest.sum(axis=1, keepdims=True)
            shares[lost, 1:] = np.where(total > 0, rest / np.where(total > 0, total, 1), 1 / rest.shape[1])
        return shares

    def throw_values(self, turn: Turn, rolls_left: int) -> TurnValues:
        """This turn's values, with the value of every throw known up to ``rolls_left`` rolls left."""
        values = self.successor_values(turn)
        while len(values.by_rolls) <= rolls_left:
            values.by_rolls.append(keepdp.advance(values.by_rolls[-1], self.sparse))
        return values

    def turn_value(self, turn: Turn) -> np.ndarray:
        """Each mover's expected model value of where its turn ends, under the best keeps: ``(B,)``."""
        values = self.throw_values(turn, self.tables.rolls - 1)
        return keepdp.first_roll(values.by_rolls[self.tables.rolls - 1], self.sparse)[values.inverse]

    def turn_shares(self, turn: Turn) -> np.ndarray:
        """Every seat's expected model share (seats from the mover) where the mover's turn ends: ``(B, K)``.

        The mover keeps and takes what maximises its own share (:meth:`keep`, :meth:`choose`); the other seats'
        shares follow those decisions.
        """
        first, inverse = distinct_positions(turn)
        unique = turn.subset(first)
        shares = self.candidate_shares(unique)
        take = np.where(unique.available, shares[:, :-1, 0] + self.boots_tiebreak * self.value, -np.inf)
        mover = keepdp.terminal_values(take, shares[:, -1, 0], self.colour, self.value, self.sparse.eff)
        others = keepdp.terminal_companions(take, shares[:, -1, 0], shares, self.colour, self.value, self.sparse.eff)
        for _ in range(self.tables.rolls - 1):
            mover, others = keepdp.advance(mover, self.sparse), keepdp.advance_companions(mover, others, self.sparse)
        return keepdp.first_roll(others, self.sparse)[inverse]

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The keep that maximises the expected value of where the turn ends."""
        values = self.throw_values(turn, rolls_left - 1)
        throw = self.tables.full_position[self.tables.index_of_code[code]].astype(np.int64)
        kept = keepdp.pick(values.by_rolls[rolls_left - 1], values.inverse, throw, self.sparse)
        return self.tables.codes[kept]

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The best valued token the throw allows (near-ties to the preferred token), or -1."""
        values = self.successor_values(turn)
        fitting = fits(turn, throw)
        if self.token_rules:
            fitting = allowed_tokens(self.rules, turn, fitting & turn.available)
        masked = np.where(fitting, values.take[values.inverse], -np.inf)
        best = masked.max(axis=1, keepdims=True)
        near = masked >= best - keepdp.NEAR
        preferred = masked.shape[1] - 1 - near[:, ::-1].argmax(axis=1)
        return np.where(np.isneginf(best[:, 0]), -1, preferred)


class TurnRule(Protocol):
    """A restriction as the learned unit reads it (see :mod:`engines.pantolino.restrictions`)."""

    #: ``tables -> (F, J)``: which keep options of each complete throw are allowed (None: keeps are free)
    keeps: Callable[[DiceTables], np.ndarray] | None
    #: ``(turn, fitting) -> allowed``: which of the fitting claimable tokens ``(B, ..., T)`` may be taken (None: any)
    tokens: Callable[[Turn, np.ndarray], np.ndarray] | None


def allowed_tokens(rules: Sequence[TurnRule], turn: Turn, fitting: np.ndarray) -> np.ndarray:
    """``fitting`` narrowed by every rule's tokens; where none is left, ``fitting`` itself (a forced take)."""
    allowed = fitting.copy()
    for rule in rules:
        if rule.tokens is not None:
            allowed &= rule.tokens(turn, fitting)
    return np.where(allowed.any(axis=-1, keepdims=True), allowed, fitting)


@dataclass
class TurnValues:
    """One turn's model values, per distinct position: what every keep and the token choice read."""

    take: np.ndarray  # (U, T): the mover's value after taking each token, -inf where it is not available
    stay: np.ndarray  # (U,): the mover's value after taking nothing
    inverse: np.ndarray  # (B,): each game's distinct position
    by_rolls: list[np.ndarray]  # [r]: (U, F) value of each throw with r rolls left (r = 0: where the turn ends)


def distinct_positions(turn: Turn) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)``: one game per distinct position as its mover sees it, and each game's position.

    Games in lock-step meet the same positions often (in 2-player games of 20,000, five times per position on
    average), and a position determines the model's values and so the keep tables. The position is what the
    features and candidates read: supply and boots by relative seat, or, where colours or steals matter, every
    token's relative owner and each seat's last two tokens; with a head start, the seats' head starts too.
    """
    params, players = turn.params, turn.players
    rel = relative_owner(turn.owner, turn.mover, players)
    if not params.escaping_boots and not tie_possible(params, players):
        seats = np.arange(players)
        boots = ((rel[:, None, :] == seats[None, :, None]) * turn.value).sum(axis=2)
        parts = np.concatenate([turn.supply_bits[:, None], boots], axis=1)
    elif params.escaping_boots and params.steal_from == "tail":
        parts = np.concatenate([rel, *tails(rel, turn.state.taken_at, players)], axis=1)
    else:
        parts = rel
    if params.head_start:  # seen from the mover, the head starts depend on who moves
        parts = np.concatenate([parts, relative_start(params, turn.mover, players)], axis=1)
    rows = np.ascontiguousarray(parts.astype(np.int64))
    _, first, inverse = np.unique(
        rows.view(np.dtype((np.void, rows.shape[1] * 8))).ravel(), return_index=True, return_inverse=True
    )
    return first, inverse.ravel()


class Recorder:
    """Plays like ``inner``; records the position every turn led to, itself and as features from its mover's view."""

    def __init__(self, inner: object) -> None:
        """Wrap the policy implementation ``inner``."""
        self.inner = inner
        self.features: list[np.ndarray] = []
        self.games: list[np.ndarray] = []
        self.seats: list[np.ndarray] = []
        self.after: list[State] = []

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The inner policy's keep."""
        return self.inner.keep(turn, code, rolls_left)

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The inner policy's token; the position after it is recorded."""
        choice = self.inner.choose(turn, throw)
        after = turn.state.keep_rows(np.arange(len(choice)))
        take_token(Turn(turn.params, turn.players, turn.source, after, turn.mover), choice)
        seen = view_of(turn.params, turn.players, after.owner, after.taken_at, turn.mover)
        self.features.append(features_of(turn.params, seen))
        self.games.append(turn.games)
        self.seats.append(turn.mover)
        self.after.append(after)
        return choice


def concat_states(parts: list[State]) -> State:
    """The rows of several states, in order."""
    return State(*(np.concatenate([getattr(p, name) for p in parts]) for name in State.__slots__))


@dataclass(frozen=True)
class SelfPlay:
    """Training samples for :func:`engines.learned.training.train`: self-play, then exact one-turn backups.

    A sample is the position a turn led to, as its mover saw it. Its first target is the share of the win the mover
    went on to get (a Monte Carlo return; with more than two players every seat's). :meth:`backups` then gives each
    sample the exact expectation, over the next mover's whole turn played to maximise its own model share, of the
    model's shares where that turn ends (fitted value iteration; a finished game's target is its result).
    """

    baseline: type  #: round 0's policy implementation class

    def n_features(self, params: Params, players: int) -> int:
        """See :func:`n_features`."""
        return n_features(params, players)

    def n_outputs(self, players: int) -> int:
        """See :func:`outputs`."""
        return outputs(players)

    def samples(
        self, params: Params, players: int, model: Model | None, n_games: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, State]:
        """Every turn's resulting position (features and state) and the eventual shares of the win.

        Targets are the viewer's share ``(N,)`` with two players (the rival's is the rest), else every seat's
        ``(N, players)``, column ``i`` the share of the seat ``i`` places after the viewer (:func:`outputs`).
        """
        inner = self.baseline(params) if model is None else Learned(params, {players: model})
        recorder = Recorder(inner)
        out = play_with(params, [recorder] * players, n_games, rng, metrics=False)
        winners = out["winners"].astype(np.float64)
        share = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1)
        games, seats = np.concatenate(recorder.games), np.concatenate(recorder.seats)
        after = concat_states(recorder.after)
        after.game = seats  # the seat whose view the sample takes (the state's own game numbers are not needed)
        relative = (seats[:, None] + np.arange(outputs(players))) % players
        targets = share[games[:, None], relative].astype(np.float32)
        return np.concatenate(recorder.features), targets[:, 0] if players == 2 else targets, after

    def backups(
        self, params: Params, players: int, model: Model, positions: list[State], mapper: training.Mapper
    ) -> np.ndarray:
        """Exact one-turn backups of every position's targets (as :meth:`samples` shapes them), in order.

        The positions are backed up in blocks of :data:`BACKUP_ROWS` (bounded memory), each a job of ``mapper``.
        """
        merged = concat_states(positions)
        blocks = [
            np.arange(lo, min(lo + BACKUP_ROWS, len(merged.game))) for lo in range(0, len(merged.game), BACKUP_ROWS)
        ]
        jobs = [(params, players, model, merged.keep_rows(rows)) for rows in blocks]
        return np.concatenate(list(mapper(self.backup, jobs)))

    def backup(self, params: Params, players: int, model: Model, positions: State) -> np.ndarray:
        """Exact one-turn backups of ``positions``' targets.

        A finished game's target is its result. Otherwise the next mover plays its whole turn to maximise its
        own model share; with two players the target is one minus that turn's expected value, with more the
        expectation of every seat's model share where that turn ends.
        """
        impl = Learned(params, {players: model})
        out = np.empty((len(positions.game), players), dtype=np.float32)
        seats = np.arange(players)
        viewer = positions.game
        done = finished(positions)
        _, _, winners = score(params, positions.owner[done], players)
        shares = winners / winners.sum(axis=1, keepdims=True)
        out[done] = shares[np.arange(done.sum())[:, None], (viewer[done, None] + seats) % players]
        live = positions.keep_rows(~done)
        if len(live.game):
            mover = (live.turn % players).astype(np.int64)
            turn = Turn(params, players, None, live, mover)
            if players == 2:
                out[~done, 0] = 1.0 - impl.turn_value(turn)
            else:
                ahead = impl.turn_shares(turn)  # seats from the mover
                offset = (mover - live.game) % players
                out[~done] = ahead[np.arange(len(mover))[:, None], (seats - offset[:, None]) % players]
        return out[:, 0] if players == 2 else out


def outputs(players: int) -> int:
    """Values a model predicts: the viewer's share with two players, every seat's with more."""
    return 1 if players == 2 else players


def ensure_model(params: Params, players: int, sampler: SelfPlay) -> Model:
    """The model ``learned`` plays for these knobs and players: shipped, cached, or trained now (said on stderr).

    Raises:
        ValueError: when the model is missing and training is turned off (``BOARDLAB_TRAIN=0``).
    """
    say = lambda text: print(text, file=sys.stderr)  # noqa: E731
    return obtain(params, players, sampler, settings_for(params, players), say=say)[0]


def obtain(
    params: Params,
    players: int,
    sampler: SelfPlay,
    settings: training.Settings,
    say: Callable[[str], None] | None = None,
    mapper: training.Mapper = training.serial,
    progress: training.Progress | None = None,
    retrain: bool = False,
    explicit: bool = False,
) -> tuple[Model, Path, str]:
    """:func:`engines.learned.store.obtain` for Pantolino: ``(model, path, "shipped" | "cached" | "trained")``."""
    settings = resolved(params, players, settings)
    key, tuples = model_key(params, players, settings), model_tuples(params, players, settings)
    return store.obtain(
        sampler, key, params, players, settings, SHIPPED, say, mapper, progress, retrain, explicit, tuples
    )
