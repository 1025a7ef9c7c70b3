"""Compiled playouts: positions played to the end with ``balanced``, ``home-stretch`` or ``random`` in both seats.

The expert's budget is spent almost entirely in playouts, and a Patolli game has a long tail (over 140 turns), so
the numpy engine's per-roll overhead on ever smaller batches dominated a search (about 15,000 playouts/s/core).
:func:`play_out` plays each row to its end in one compiled loop. It is the engine's roll, written per game: the
same chance (row ``g``'s ``k``-th uniform of a :class:`~engines.core.StreamSource`, one per die roll and, for
``random``, one per pick, whatever is used), the same moves, payments and turn order, so its games are identical
to :func:`~engines.patolli.rules.play_on`'s (``tests/engines/test_patolli.py`` checks them row by row).
"""

from __future__ import annotations

from boardlab.engines import core
from boardlab.engines.patolli.kernels import STRETCH_WEIGHTS, WEIGHTS, play_to_end
from boardlab.engines.patolli.rules import INFO, Params, State, layout

ROLLOUTS = {"random": 0, "balanced": 1, "home-stretch": 1}  # the policies compiled here: 1 = a weighted score


def supports(params: Params, seat_policies: list[str] | tuple[str, ...], source: object) -> bool:
    """Whether :func:`play_out` can play these games: one compiled rollout in every seat, counter-based chance."""
    return isinstance(source, core.StreamSource) and len(set(seat_policies)) == 1 and seat_policies[0] in ROLLOUTS


def play_out(params: Params, policy: str, state: State, source: core.StreamSource) -> State:
    """Play every game of ``state`` to its end with ``policy`` in both seats (in place); returns ``state``.

    Row ``b`` reads the stream ``source.keys[state.game[b]]`` from its cursor on, as the numpy engine does.
    """
    lay = layout(params)
    rules = (
        lay.length,
        params.die_faces,
        params.enter_roll,
        params.buttons,
        lay.again_bits,
        int(params.exit_overshoot),
        int(params.pay_when_empty),
        int(params.overshoot_pays),
        INFO.turn_cap,
        int(params.grey_extra == "optional"),
    )
    play_to_end(
        state.game,
        state.track,
        state.off,
        state.home,
        state.tokens,
        state.bank,
        state.safe,
        state.bad,
        state.mover,
        state.turn,
        state.captures,
        state.paid,
        state.finished_at,
        state.winner,
        state.reason,
        source.keys,
        source.cursor,
        lay.to_me,
        lay.to_them,
        lay.grey_frame,
        lay.shelter_frame,
        rules,
        ROLLOUTS[policy],
        STRETCH_WEIGHTS if policy == "home-stretch" else WEIGHTS,
    )
    return state
