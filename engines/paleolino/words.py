"""Paleolino in words: the table as the deciding seat sees it, and each legal cave or keep.

Shown: the village, the chips left in the hand axe, what the table remembers lying in each cave and how many
chips it saw fall without placing them, the top invention of every stack, the middle and every backpack. Not
shown, because no player sees it: what really lies in the caves and the inventions under the stack tops.
Plain strings only.
"""

from __future__ import annotations

import numpy as np

from boardlab.engines.paleolino.decisions import CAVE, Build, Point, keep_options
from boardlab.engines.paleolino.kernels import expected_caves
from boardlab.engines.paleolino.rules import bag_tables

CHIPS = ("wood", "stone", "berry", "crystal")
LETTER_NAMES = {"w": "wood", "s": "stone", "b": "berry"}

RULES = """\
Paleolino, in our words (a cooperative game: the whole table wins or loses).
Each turn two chips are pulled from the hand axe and roll into the caves below the mountain; you then open one
cave and take all its chips to the middle. Build inventions from the tops of the stacks with exactly the chips
they show (a crystal replaces any chip); your backpack chip and chips the others give from their backpacks
may help. Then keep one chip on your backpack; the rest go to the pit. Build the whole village before the hand
axe runs dry. Here you choose the cave, each build (one top at a time, or stop) and the chip kept; which chips
pay for a build follows the planner."""


def bag(code: int) -> str:
    """``"2 wood, 1 crystal"`` or ``"nothing"``."""
    counts = bag_tables()[0][code]
    parts = [f"{int(n)} {name}" for n, name in zip(counts, CHIPS, strict=True) if n]
    return ", ".join(parts) or "nothing"


def cost(letters: str) -> str:
    """An invention's cost in words: ``"stone + wood"``."""
    return " + ".join(LETTER_NAMES[c] for c in letters)


def turn(point: Point | Build, row: int = 0) -> int:
    """The number of the turn of ``row``'s decision, counted from 1."""
    return int(point.state.turn[row]) + 1


def building(point: Build, row: int = 0) -> list[str]:
    """What a builder sees: the chips that can pay and the top of every stack."""
    costs = point.params.in_play
    lines = [
        f"Turn {turn(point, row)}: seat {int(point.seat[row])} builds.",
        f"Chips that can pay (the middle, your backpack, the others' offers): {bag(int(point.supply[row]))}",
    ]
    for stack, top in enumerate(point.tops[row].tolist()):
        said = cost(costs[top]) if top < len(costs) else "empty"
        lines.append(f"Stack {stack + 1}: {said}{'' if point.ok[row, stack] or top >= len(costs) else ' (too dear)'}")
    return lines


def view(point: Point | Build, row: int = 0) -> list[str]:
    """What ``row``'s mover sees (public information only; see the module docstring)."""
    if isinstance(point, Build):
        return building(point, row)
    st, params = point.state, point.params
    tables = params.tables(point.players)
    chips_in = bag_tables()[1]
    me = int(point.seat[row])
    doing = "opens a cave" if point.stage == CAVE else "keeps chips on the backpack"
    lines = [
        f"Turn {turn(point, row)}: seat {me} {doing}.",
        f"Village: {int(st.built[row])} of {params.goal} built; hand axe: {int(chips_in[st.axe[row]])} chips left",
    ]
    for cave in range(params.caves):
        unplaced = int(chips_in[st.forgotten[row, cave]])
        extra = f"; {unplaced} chip(s) seen falling since it was opened, cave not remembered" if unplaced else ""
        lines.append(f"Cave {cave + 1}: remembered {bag(int(st.belief[row, cave]))}{extra}")
    costs = params.in_play
    for stack in range(tables.stacks):
        left = int(tables.stack_len[stack] - st.taken[row, stack])
        top = int(st.deck[row, stack, st.taken[row, stack]]) if left else tables.dummy
        said = f"{cost(costs[top])} ({left} card(s) in the stack)" if left else "empty"
        lines.append(f"Stack {stack + 1}: {said}")
    lines.append(f"Middle: {bag(int(st.middle[row]))}")
    for seat in range(point.players):
        you = " (you)" if seat == me else ""
        lines.append(f"Seat {seat}{you} backpack: {bag(int(st.backpack[row, seat]))}")
    return lines


def moves(point: Point | Build, row: int = 0) -> list[tuple[int, str]]:
    """Every legal candidate of ``row`` and its words, in candidate order."""
    legal = np.flatnonzero(point.legal()[row]).tolist()
    if isinstance(point, Build):
        costs, stacks = point.params.in_play, point.tops.shape[1]
        said = {s: f"build the {cost(costs[int(point.tops[row, s])])} of stack {s + 1}" for s in legal if s < stacks}
        return [(s, said.get(s, "stop building")) for s in legal]
    if point.stage == CAVE:
        return [(v, f"open cave {v + 1}") for v in legal]
    options = keep_options(point.params.backpack)
    return [(j, f"keep {bag(int(options[j]))} on the backpack") for j in legal]


AIMS = {
    "greedy": "opens the cave with the most expected chips and builds the dearest top it can",
    "planner": "opens the cave by the builds it makes sure of, then by expected chips, and plans only the tops in view",
    "random": "chooses at random",
}
"""What each heuristic aims at, completing "planner …"."""


def _expected(point: Point, row: int) -> np.ndarray:
    """``(caves, 4)``: each cave's expected chips by type, from what the table saw (never the caves themselves)."""
    st = point.state
    wide = [np.asarray(a[row : row + 1], dtype=np.int64) for a in (st.axe, st.pit, st.middle, st.backpack, st.belief)]
    chips = np.array(point.params.chips, dtype=np.int64)
    forgotten = st.forgotten[row : row + 1].astype(np.int64)
    return expected_caves(*wide, forgotten, chips, point.params.cave_shares)[0]


def _tops(point: Point, row: int) -> list[str]:
    """The cost of every stack's top invention (empty stacks left out)."""
    st, costs = point.state, point.params.in_play
    tables = point.params.tables(point.players)
    return [
        costs[int(st.deck[row, s, st.taken[row, s]])]
        for s in range(tables.stacks)
        if st.taken[row, s] < tables.stack_len[s]
    ]


def _pays(letters: str, have: np.ndarray) -> bool:
    """Whether chips ``have`` (wood, stone, berry, crystal; crystals wild) pay an invention of cost ``letters``."""
    short = sum(max(letters.count(c) - have[r], 0.0) for r, c in enumerate("wsb"))
    return short <= have[3] + 1e-9


def _opens(point: Point, cave: int, expected: np.ndarray, row: int) -> tuple[str, bool]:
    """The cave in words (``"cave 1 (2.0 chips expected: …; … it pays stone + stone)"``) and whether it pays a top."""
    st = point.state
    have = expected[cave] + bag_tables()[0][int(st.middle[row])]
    have = have + sum(bag_tables()[0][int(b)] for b in st.backpack[row])
    parts = [f"{n:.1f} {name}" for n, name in zip(expected[cave], CHIPS, strict=True) if n >= 0.05]
    paid = [cost(c) for c in _tops(point, row) if _pays(c, have)]
    reach = f"; with the middle and the backpacks it pays {' or '.join(paid)}" if paid else "; it completes no top"
    said = f"cave {cave + 1} ({expected[cave].sum():.1f} chips expected: {', '.join(parts) or 'none'}{reach})"
    return said, bool(paid)


def explain(point: Point | Build, strong: int, heuristic: int, name: str, row: int = 0) -> str:
    """One sentence on what the strong move knows that heuristic ``name``'s does not, in Paleolino's terms.

    Only what the table saw: the caves' expected chips spread the chips it could not place (never the caves).
    """
    said = dict(moves(point, row))
    aim = AIMS.get(name, "follows its own fixed rule")
    if isinstance(point, Build):
        return f"Seat {int(point.seat[row])} will {said[strong]} where {name} would {said[heuristic]}; {name} {aim}."
    st, params = point.state, point.params
    left = int(bag_tables()[1][st.axe[row]])
    standing = f"The table has built {int(st.built[row])} of {params.goal} with {left} chips left in the hand axe"
    if point.stage == CAVE:
        expected = _expected(point, row)
        (said_strong, pays), (said_other, other_pays) = (_opens(point, c, expected, row) for c in (strong, heuristic))
        waits = not pays and not other_pays and expected[strong].sum() < expected[heuristic].sum()
        why = (
            "; with no top in reach the chips taken go to the pit (but what a backpack keeps), so the strong move "
            "leaves the fuller cave to grow"
            if waits
            else ""
        )
        return f"{standing}: the strong move opens {said_strong}, where {name} opens {said_other}{why}; {name} {aim}."
    tops = "; ".join(cost(c) for c in _tops(point, row)) or "none"
    return (
        f"{standing} and the stack tops {tops}: the strong move will {said[strong]} where {name} would "
        f"{said[heuristic]}; the chip kept is what the next turns' builds can count on."
    )
