"""Features of Paleolino positions for the learned player's value model: the table's public view.

Everything a seat sees is seen by the whole table (memory is shared, backpacks lie on the table), so a position's
features do not depend on which seat views it. What no seat sees never enters: the chips in a cave the table
does not remember (only what it remembers, ``belief``, and which chips it saw fall unplaced, ``forgotten``, from
which :func:`~engines.paleolino.kernels.expected_caves` spreads the unplaced ones by weight share), and the cards
under the stack tops (only the multiset of unseen cards, which follows from the built cards and the tops). Seats
are counted from the one to act next (``turn % players``). Counts are scaled to about one unit. In order, for
``P`` players, ``V`` caves, ``S`` stacks:

- the phase (4, one-hot): before a cave is opened, after it was opened (builds pending), before the keep, at the
  start of a turn (after a keep);
- the hand axe by chip type over 9 (4), its chips over 32, the turns left in it over 16 (2);
- the middle by type over 4 (4); each backpack by type, from the seat to act (``4P``);
- the chips lying in caves by type over 9 (public: pulled less collected) (4);
- per cave, sorted by expected chips (most first): remembered chips by type over 4, expected unremembered ones by
  type over 4, and its weight share (``9V``);
- per stack: its top's cost by resource over 3, and the cards left in it over 8 (``4S``);
- the unseen cards' cost by resource over 15 and their number over 15 (4);
- inventions built over the goal, and still needed over the goal (2);
- affordability, per non-empty set of visible tops (``2^S - 1`` each): the chips short of paying for the set
  from the chips at hand (the middle, the own backpack and the other backpacks when help is on) over 4, and the
  least such shortfall over the caves when one cave's remembered chips are added;
- the turns played over the turn cap (1).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from boardlab.engines.paleolino import kernels
from boardlab.engines.paleolino.rules import INFO, Params, State


def n_features(params: Params, players: int) -> int:
    """Length of a position's feature vector."""
    stacks, caves = params.n_stacks(players), params.caves
    return 4 + 6 + 4 + 4 * players + 4 + 9 * caves + 4 * stacks + 4 + 2 + 2 * (2**stacks - 1) + 1


@lru_cache(maxsize=8)
def top_sets(stacks: int) -> np.ndarray:
    """Every non-empty set of stacks, ``(M, S)`` 0/1, in ``itertools.product`` order."""
    return np.array(list(itertools.product((0, 1), repeat=stacks))[1:], dtype=np.int64)


def features_of(params: Params, players: int, state: State, phase: int) -> np.ndarray:
    """``(N, n_features)`` float32 for every row of ``state``, all standing at ``phase`` (module docstring).

    Games move in lock-step, so every row has the same seat to act. One compiled pass per row
    (:func:`~engines.paleolino.kernels.position_features`).
    """
    n = len(state.game)
    tables = params.tables(players)
    chips = np.array(params.chips, dtype=np.int64)
    wide = {name: getattr(state, name).astype(np.int64) for name in ("axe", "pit", "middle", "backpack", "belief")}
    expected = kernels.expected_caves(
        wide["axe"],
        wide["pit"],
        wide["middle"],
        wide["backpack"],
        wide["belief"],
        state.forgotten.astype(np.int64),
        chips,
        params.cave_shares,
    )
    seat = int(state.turn[0]) % players if n else 0
    scalars = np.array(
        [phase, seat, params.goal, params.pulls, float(params.help), INFO.turn_cap, tables.n], dtype=np.float64
    )
    out = np.empty((n, n_features(params, players)), dtype=np.float32)
    kernels.position_features(
        wide["axe"],
        wide["pit"],
        wide["middle"],
        wide["backpack"],
        wide["belief"],
        expected,
        state.deck.astype(np.int64),
        state.taken.astype(np.int64),
        state.built.astype(np.int64),
        state.turn.astype(np.int64),
        chips,
        params.cave_shares,
        tables.cost,
        tables.stack_len,
        top_sets(tables.stacks),
        scalars,
        out,
    )
    return out
