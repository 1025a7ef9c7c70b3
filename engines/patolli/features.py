"""Features of Patolli positions as one seat sees them, for the learned player's value model.

Nothing in Patolli is hidden (markers are public and the die is the only chance), so every feature is public; they
are taken from the viewer's side: "mine" is the viewer, "theirs" the other seat, and squares are counted in the
viewer's progress frame unless said. In order (``L`` squares, ``F`` die faces):

- the viewer's buttons by progress (``L``), the opponent's by its own progress (``L``);
- the safe squares and the bad-luck squares, in the viewer's frame (``2L``);
- exposure: per face ``f``, the viewer's buttons off shelter that an opponent button ``f`` squares behind could
  capture with ``f`` (``F``), and the same for the viewer's attacks on the opponent (``F``); whether a waiting
  opponent button could capture on its start square, and whether one of the viewer's could on its own (2);
- buttons waiting and finished, the viewer's and the opponent's, over the buttons (4);
- tokens held by each, over the starting tokens, and the bank over twice that (3);
- the viewer is to move next; the turns played over the turn cap (2);
- each seat's lost faces (:func:`lost_faces`: faces whose roll has no legal move, paid ones twice), over twice
  the faces (2);
- the game is over and won by the viewer, or by the opponent (2).
"""

from __future__ import annotations

import numpy as np

from engines.patolli.rules import INFO, ONE, U64, Params, State, layout, rotate


def n_features(params: Params, players: int = 2) -> int:
    """Length of a position's feature vector."""
    return 4 * params.track_length + 2 * params.die_faces + 15


def bits_of(sets: np.ndarray, length: int) -> np.ndarray:
    """``(..., length)`` float32 0/1: the bits of ``(...,)`` uint64 sets, lowest first."""
    raw = np.ascontiguousarray(sets, dtype="<u8").view(np.uint8).reshape(*sets.shape, 8)
    return np.unpackbits(raw, axis=-1, count=length, bitorder="little").astype(np.float32)


def lost_faces(params: Params, mine: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Per position, the die faces whose roll has no legal move, counted 2 when the lost roll costs a token, else 1.

    ``mine``: the seat's buttons on the track (its own frame); ``off``: its waiting buttons. As the kernel's
    :func:`~engines.patolli.kernels.lost_faces`.
    """
    length = params.track_length
    total = np.zeros(len(mine), dtype=np.int64)
    for face in range(1, params.die_faces + 1):
        f = U64(face)
        lands = (ONE << (U64(length) - f)) - ONE
        movable = (mine & lands & ~(mine >> f)) | (mine & (~lands if params.exit_overshoot else lands + ONE))
        lost = movable == 0
        if face == params.enter_roll:
            lost &= ~((off > 0) & ((mine & ONE) == 0))
        pays = (mine != 0) | params.pay_when_empty
        if not params.overshoot_pays:
            pays &= (mine & ~lands & ~(lands + ONE)) == 0
        total += lost * (1 + pays)
    return total


def features_of(params: Params, state: State, viewer: np.ndarray) -> np.ndarray:
    """``(N, n_features)`` float32: every row of ``state`` as seat ``viewer[row]`` sees it (module docstring)."""
    lay = layout(params)
    length, faces = lay.length, params.die_faces
    rows = np.arange(len(viewer))
    me = viewer.astype(np.int64)
    them = 1 - me
    mine, theirs_own = state.track[me, rows], state.track[them, rows]
    theirs = rotate(theirs_own, lay.to_me[me], length)  # the opponent's buttons in the viewer's frame
    safe, bad = state.safe[me, rows], state.bad[me, rows]
    sheltered = safe | lay.shelter_frame[me]  # no capture on these squares (viewer's frame)
    off_me, off_them = state.off[me, rows], state.off[them, rows]
    exposed = np.empty((len(rows), faces), dtype=np.float32)
    attacks = np.empty((len(rows), faces), dtype=np.float32)
    for f in range(1, faces + 1):
        on_track = (ONE << U64(length - f)) - ONE  # own progress p with p + f < L
        theirs_moving = rotate(theirs_own & on_track, lay.to_me[me], length)
        exposed[:, f - 1] = np.bitwise_count(rotate(theirs_moving, U64(f), length) & mine & ~sheltered)
        attacks[:, f - 1] = np.bitwise_count(((mine & on_track) << U64(f)) & theirs & ~sheltered)
    their_start = rotate(np.full(len(rows), ONE), lay.to_me[me], length)  # the opponent's progress 0, my frame
    enter_threat = (off_them > 0) & ((theirs_own & ONE) == 0) & ((mine & their_start & ~sheltered) != 0)
    enter_attack = (off_me > 0) & ((mine & ONE) == 0) & ((theirs & ONE) != 0)
    buttons, tokens = float(params.buttons), float(params.tokens)
    over = state.reason >= 0
    scalars = np.stack(
        [
            enter_threat,
            enter_attack,
            off_me / buttons,
            off_them / buttons,
            state.home[me, rows] / buttons,
            state.home[them, rows] / buttons,
            state.tokens[me, rows] / tokens,
            state.tokens[them, rows] / tokens,
            state.bank / (2 * tokens),
            state.mover == me,
            state.turn / INFO.turn_cap,
            lost_faces(params, mine, off_me) / (2.0 * faces),
            lost_faces(params, theirs_own, off_them) / (2.0 * faces),
            over & (state.winner == me),
            over & (state.winner >= 0) & (state.winner != me),
        ],
        axis=1,
    ).astype(np.float32)
    squares = bits_of(np.stack([mine, theirs_own, safe, bad], axis=1), length).reshape(len(rows), 4 * length)
    return np.concatenate([squares, exposed / buttons, attacks / buttons, scalars], axis=1)
