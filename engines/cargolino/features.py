"""Features of Cargolino positions as the deciding seat sees them, for the learned player's value model.

A seat sees the snails, the dice still to use, the shells banked and its own tokens; who holds the other snails
it only believes (the detective's Bayesian belief, :mod:`~engines.cargolino.beliefs`, computed from the public
moves and its own tokens). So the features read the seat's own snails and its *holdings*, the chance each seat
holds each snail under that belief, never the true deal; where the deal is seen (open ownership, or a search's
playout, where every seat plays the drawn deal as known) the holdings are that deal. Seats are numbered from the
viewer (0 = the viewer, 1 = the next to move, ...). In order, with ``P`` players:

- per snail (6 × (7 + P)): its space over the finish's; the shells it scores now and those one more step costs
  (over the most a space scores); on the finish; the dice still to use that can move it, over the dice rolled;
  the share of die faces that could move it from its space; the viewer's own; the chance each other seat holds it
  (P - 1); the chance nobody does;
- the dice still to use per colour, over the dice rolled (6);
- per seat, shells banked and the live total expected under the holdings (banked plus what its snails would
  score now), over the most a seat can bank (2P); the viewer's expected lead over the best other seat, likewise;
- races finished over races, and whether this is the last race (2).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from boardlab.engines.cargolino import beliefs
from boardlab.engines.cargolino.rules import CODE_BITS, N_SNAILS, Params

PER_SNAIL = 7  #: per-snail features besides the P holdings columns


def n_features(params: Params, players: int) -> int:
    """Length of a position's feature vector."""
    return N_SNAILS * (PER_SNAIL + players) + N_SNAILS + 2 * players + 3


def belief_holdings(belief: np.ndarray, hyp: np.ndarray, hyps: beliefs.Hypotheses) -> np.ndarray:
    """``(r, P, 6)``: the chance each seat holds each snail under ``belief`` over the hypotheses ``hyp``."""
    owners = hyps.owners[hyp]  # (r, H, 6)
    seats = np.arange(hyps.players, dtype=np.int8)
    hot = (owners[:, :, None, :] == seats[None, None, :, None]).astype(np.float64)  # (r, H, P, 6)
    return np.einsum("rh,rhps->rps", belief, hot)


def deal_holdings(owner: np.ndarray, players: int) -> np.ndarray:
    """``(r, P, 6)``: the holdings of a seen deal (``owner``: ``(r, 6)`` seat of each snail, -1 unowned)."""
    return (owner[:, None, :] == np.arange(players)[None, :, None]).astype(np.float64)


@lru_cache(maxsize=16)
def snail_tables(params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Per (snail, space), flattened as ``snail * n_pos + space``: the board features and the colours that move it.

    ``(6 n_pos, 5)`` float32: space over the finish's, shells now and lost by one more step (over the most a space
    scores), on the finish, the share of die faces that move it; ``(6 n_pos, 6)`` float32: 1 per colour moving it.
    """
    t = params.tables
    pos = np.arange(t.n_pos)
    top = float(t.value.max()) or 1.0
    loss = t.value - t.value[np.minimum(pos + 1, t.finish)]
    bits = ((t.move[:, :, None] >> np.arange(N_SNAILS)) & 1).astype(np.float32)  # (snail, pos, colour)
    board = np.stack(
        [
            np.broadcast_to(pos / t.finish, bits.shape[:2]),
            np.broadcast_to(t.value / top, bits.shape[:2]),
            np.broadcast_to(loss / top, bits.shape[:2]),
            np.broadcast_to(pos == t.finish, bits.shape[:2]),
            bits[:, :, t.face_colour].mean(axis=2),
        ],
        axis=2,
    )
    return board.reshape(-1, 5).astype(np.float32), bits.reshape(-1, N_SNAILS)


def features_of(
    params: Params,
    pos: np.ndarray,
    code: np.ndarray,
    banked: np.ndarray,
    race: np.ndarray,
    viewer: np.ndarray,
    holdings: np.ndarray,
) -> np.ndarray:
    """``(r, n_features)`` float32 (module docstring).

    ``pos`` ``(r, 6)`` the snails' spaces, ``code`` ``(r,)`` the dice still to use, ``banked`` ``(r, P)`` and
    ``race`` ``(r,)`` as in the state; ``holdings`` ``(r, P, 6)`` as the viewer sees them (its own row exact).
    """
    t = params.tables
    n, players = len(viewer), banked.shape[1]
    rows = np.arange(n)
    board, bits = snail_tables(params)
    index = pos.astype(np.intp) + t.snail_offset  # (r, 6)
    order = (viewer[:, None] + np.arange(players)[None, :]) % players  # absolute seat of each relative seat
    hold = holdings[rows[:, None], order].astype(np.float32)  # (r, P, 6), the viewer first
    counts = ((code[:, None] >> (CODE_BITS * np.arange(N_SNAILS))) & 7).astype(np.float32)  # (r, colours)
    width = PER_SNAIL + players
    out = np.empty((n, n_features(params, players)), dtype=np.float32)
    snails = out[:, : N_SNAILS * width].reshape(n, N_SNAILS, width)
    snails[:, :, :5] = board.take(index, axis=0)  # take: several times faster than fancy indexing here
    snails[:, :, 5] = np.matmul(bits.take(index, axis=0), counts[:, :, None])[:, :, 0] / params.dice
    snails[:, :, 6] = hold[:, 0]
    snails[:, :, 7 : 6 + players] = np.swapaxes(hold[:, 1:], 1, 2)
    held = hold[:, 0].copy()
    for seat in range(1, players):  # seat by seat, as ``sum(axis=1)`` adds them, without its slow short axis
        held += hold[:, seat]
    snails[:, :, 6 + players] = np.clip(1.0 - held, 0.0, 1.0)
    top = float(t.value.max()) or 1.0
    scale = top * params.each(players) * params.races
    at = N_SNAILS * width
    out[:, at : at + N_SNAILS] = counts / params.dice
    at += N_SNAILS
    own_banked = np.take_along_axis(banked, order, axis=1).astype(np.float32)
    expected = own_banked + np.matmul(hold, t.value[pos].astype(np.float32)[:, :, None])[:, :, 0]
    out[:, at : at + players] = own_banked / scale
    out[:, at + players : at + 2 * players] = expected / scale
    at += 2 * players
    out[:, at] = (expected[:, 0] - expected[:, 1:].max(axis=1)) / scale
    out[:, at + 1] = race / params.races
    out[:, at + 2] = race == params.races - 1
    return out
