"""Pantolino's features: a position as a seat sees it, for the learned player's value model.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardlab.engines.pantolino.rules import (
    SUPPLY,
    Params,
    Turn,
    start_boots,
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
