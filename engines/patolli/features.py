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

from boardlab.engines.patolli import kernels
from boardlab.engines.patolli.rules import INFO, ONE, U64, Params, State, layout

#: the State arrays :func:`~engines.patolli.kernels.features_into` reads, in its order
STATE_READ = ("track", "off", "home", "tokens", "bank", "safe", "bad", "mover", "turn", "winner", "reason")


def n_features(params: Params, players: int = 2) -> int:
    """Length of a position's feature vector."""
    return 4 * params.track_length + 2 * params.die_faces + 15


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
    """``(N, n_features)`` float32: every row of ``state`` as seat ``viewer[row]`` sees it (module docstring).

    One compiled pass over the rows (:func:`engines.patolli.kernels.features_into`).
    """
    lay = layout(params)
    sizes = (lay.length, params.die_faces, params.buttons, params.tokens, INFO.turn_cap)
    rules = (params.enter_roll, int(params.exit_overshoot), int(params.pay_when_empty), int(params.overshoot_pays))
    out = np.empty((len(viewer), n_features(params)), dtype=np.float32)
    kernels.features_into(
        out,
        np.asarray(viewer, dtype=np.int64),
        *(getattr(state, name) for name in STATE_READ),
        lay.to_me,
        lay.shelter_frame,
        sizes,
        rules,
    )
    return out
