"""Panots, one game at a time in plain Python: the readable statement of the rules the batched engine follows.

Sidewalks are dicts ``(row, col) -> panot type``; coordinates, card ids, slots and tie-breaks are those of
:mod:`engines.panots.rules`, and chance events are read in the order the batched engine draws them.
"""

from __future__ import annotations

from collections.abc import Sequence

from boardlab.engines import core
from boardlab.engines.panots.geometry import (
    CARD_FACES,
    CARDS,
    DIRS,
    FACES,
    N_CARDS,
    START,
    TITLES,
    TOKENS,
    UNPLACEABLE,
    UNPLACEABLE_VALUE,
)
from boardlab.engines.panots.policies import MASKED
from boardlab.engines.panots.rules import Params

Cell = tuple[int, int]
Sidewalk = dict[Cell, int]


def colour(t: int) -> int:
    """Colour of panot type ``t``."""
    return t // 4


def shape(t: int) -> int:
    """Shape of panot type ``t``."""
    return t % 4


def compatible(t: int, u: int) -> bool:
    """Two panots may touch when they share colour or shape."""
    return colour(t) == colour(u) or shape(t) == shape(u)


def has_token(t: int, token: int) -> bool:
    """Does a panot of type ``t`` carry feature token ``token`` (colours 0..3, shapes 4..7)?"""
    return colour(t) == token if token < 4 else shape(t) == token - 4


def neighbours(cell: Cell) -> list[Cell]:
    """The four orthogonal neighbours."""
    return [(cell[0] + dr, cell[1] + dc) for dr, dc in DIRS]


class Objectives:
    """The objective faces of one game: which are up, and the token on each slot."""

    def __init__(self, up: set[str], slot_token: list[int], params: Params) -> None:
        """``up`` names the faces up; ``slot_token`` the 8 slot tokens; ``params`` the VP and the readings."""
        self.up = up
        self.slot_token = slot_token
        self.params = params

    def vp(self, name: str) -> int:
        """VP per occurrence of face ``name`` (or of 'space-diagonal', the diagonal reading of space), 0 when down."""
        if name == "space-diagonal":
            return self.vp("space") if self.params.space_diagonal else 0
        return self.params.face_vp[FACES.index(name)] if name in self.up else 0

    def m(self, t: int | None, slot: int) -> bool:
        """Does the panot (``None`` = empty) carry the token on ``slot``?"""
        return t is not None and has_token(t, self.slot_token[slot])

    def pair(self, x: int | None, y: int | None, s: tuple[int, int]) -> bool:
        """Two panots match the two slot tokens in either order."""
        return (self.m(x, s[0]) and self.m(y, s[1])) or (self.m(x, s[1]) and self.m(y, s[0]))

    def triple(self, x: int | None, y: int | None, z: int | None, wild: bool = False) -> bool:
        """Three panots along a path match slots 0, 1, 2 in order, read either way (``None`` wild if asked)."""

        def ok(t: int | None, slot: int) -> bool:
            return (wild and t is None) or self.m(t, slot)

        return ok(y, 1) and ((ok(x, 0) and ok(z, 2)) or (ok(z, 0) and ok(x, 2)))


PAIR_STEPS = {
    "adjacent": ((0, 1), (1, 0)),
    "diagonal": ((1, 1), (1, -1)),
    "space": ((0, 2), (2, 0)),
    "space-diagonal": ((2, 2), (2, -2)),
}
PAIR_SLOTS = {"adjacent": (4, 5), "diagonal": (4, 5), "space": (6, 7), "space-diagonal": (6, 7)}


def pair_instances(cell: Cell) -> dict[str, list[tuple[Cell, Cell]]]:
    """Every adjacent / diagonal / one-space-apart (straight or diagonal) pair of cells containing ``cell``."""
    r, c = cell
    return {
        name: [((r, c), (r + a, c + b)) for a, b in s] + [((r - a, c - b), (r, c)) for a, b in s]
        for name, s in PAIR_STEPS.items()
    }


def triple_instances(cell: Cell) -> dict[str, list[tuple[Cell, Cell, Cell]]]:
    """Every straight line of three and every L of three (end, corner, end) containing ``cell``."""
    lines, ls = [], []
    for dr, dc in ((0, 1), (1, 0)):
        for start in range(-2, 1):
            lines.append(tuple((cell[0] + (start + i) * dr, cell[1] + (start + i) * dc) for i in range(3)))
    corners = [cell, *neighbours(cell)]
    for corner in corners:
        for k in range(4):
            u, v = DIRS[k], DIRS[(k + 1) % 4]
            path = ((corner[0] + u[0], corner[1] + u[1]), corner, (corner[0] + v[0], corner[1] + v[1]))
            if cell in path:
                ls.append(path)
    return {"line": lines, "l": ls}


def local_points(walk: Sidewalk, obj: Objectives, cells: list[Cell]) -> int:
    """Objective VP (majorities excluded) of every pattern instance that involves one of ``cells``.

    Pair and triple instances are counted once each; the single-panot objectives (surrounded, three free
    sides) are counted on ``cells`` and their neighbours, whose status a change at ``cells`` can alter.
    """
    seen: set[frozenset[Cell]] = set()
    total = 0
    for cell in cells:
        for name, insts in pair_instances(cell).items():
            for x, y in insts:
                key = frozenset((name, x, y))
                if key in seen:
                    continue
                seen.add(key)
                total += obj.vp(name) * obj.pair(walk.get(x), walk.get(y), PAIR_SLOTS[name])
        for name, insts in triple_instances(cell).items():
            for x, y, z in insts:
                key = frozenset((name, x, y, z))
                if key in seen:
                    continue
                seen.add(key)
                total += obj.vp(name) * obj.triple(walk.get(x), walk.get(y), walk.get(z))
    region = set(cells)
    for cell in cells:
        region.update(neighbours(cell))
    for cell in region:
        if cell in walk and obj.m(walk[cell], 3):
            taken = sum(n in walk for n in neighbours(cell))
            total += obj.vp("surrounded") * (taken == 4) + obj.vp("free") * (taken == 1)
    return total


def points(walk: Sidewalk, obj: Objectives) -> dict[str, int]:
    """Objective VP per local face (majorities apart) of a whole sidewalk, by brute force."""
    out = dict.fromkeys(FACES[:7], 0)
    for (r, c), t in walk.items():
        for name, steps in PAIR_STEPS.items():
            for dr, dc in steps:  # the diagonal reading of space scores as space
                out[name.removesuffix("-diagonal")] += obj.vp(name) * obj.pair(
                    t, walk.get((r + dr, c + dc)), PAIR_SLOTS[name]
                )
        for dr, dc in ((0, 1), (1, 0)):
            out["line"] += obj.vp("line") * obj.triple(walk.get((r - dr, c - dc)), t, walk.get((r + dr, c + dc)))
        for k in range(4):
            u, v = DIRS[k], DIRS[(k + 1) % 4]
            out["l"] += obj.vp("l") * obj.triple(walk.get((r + u[0], c + u[1])), t, walk.get((r + v[0], c + v[1])))
        if obj.m(t, 3):
            taken = sum(n in walk for n in neighbours((r, c)))
            out["surrounded"] += obj.vp("surrounded") * (taken == 4)
            out["free"] += obj.vp("free") * (taken == 1)
    return out


def largest_group(walk: Sidewalk, obj: Objectives, slot: int) -> int:
    """Size of the largest connected group of panots carrying the token on ``slot``.

    Panots connect through their sides, and through their corners too when the knob ``group_diagonal`` says so.
    """
    steps = [*DIRS, (1, 1), (1, -1), (-1, 1), (-1, -1)] if obj.params.group_diagonal else list(DIRS)
    members = {cell for cell, t in walk.items() if obj.m(t, slot)}
    best, seen = 0, set()
    for cell in members:
        if cell in seen:
            continue
        stack, size = [cell], 0
        seen.add(cell)
        while stack:
            x = stack.pop()
            size += 1
            for n in ((x[0] + dr, x[1] + dc) for dr, dc in steps):
                if n in members and n not in seen:
                    seen.add(n)
                    stack.append(n)
        best = max(best, size)
    return best


def is_legal(walk: Sidewalk, card: int, p: Cell, d: int) -> bool:
    """May ``card`` go with its first panot on ``p`` and its second one step in direction ``d``?"""
    a, b = (int(x) for x in CARDS[card])
    q = (p[0] + DIRS[d][0], p[1] + DIRS[d][1])
    if p in walk or q in walk:
        return False
    touches = any(n in walk for n in neighbours(p) + neighbours(q))
    fits = all(compatible(a, walk[n]) for n in neighbours(p) if n in walk) and all(
        compatible(b, walk[n]) for n in neighbours(q) if n in walk
    )
    return touches and fits


def legal_placements(walk: Sidewalk, card: int) -> list[tuple[int, Cell]]:
    """Every legal ``(d, p)`` in ``(d, row, col)`` order; the first card has only the canonical placement."""
    if not walk:
        return [(0, START)]
    rows = [r for r, _ in walk]
    cols = [c for _, c in walk]
    out = []
    for d in range(4):
        for r in range(min(rows) - 2, max(rows) + 3):
            for c in range(min(cols) - 2, max(cols) + 3):
                if is_legal(walk, card, (r, c), d):
                    out.append((d, (r, c)))
    return out


def put(walk: Sidewalk, card: int, d: int, p: Cell) -> Sidewalk:
    """A copy of the sidewalk with ``card`` placed at ``(d, p)``."""
    out = dict(walk)
    out[p] = int(CARDS[card][0])
    out[(p[0] + DIRS[d][0], p[1] + DIRS[d][1])] = int(CARDS[card][1])
    return out


def gain(walk: Sidewalk, obj: Objectives, card: int, d: int, p: Cell) -> int:
    """Change in objective VP (majorities excluded) from placing ``card`` at ``(d, p)``."""
    q = (p[0] + DIRS[d][0], p[1] + DIRS[d][1])
    return local_points(put(walk, card, d, p), obj, [p, q]) - local_points(walk, obj, [p, q])


def open_edges(walk: Sidewalk, card: int, d: int, p: Cell) -> int:
    """Empty neighbours of the new panots that some panot type could still fill, once ``card`` is at ``(d, p)``."""
    after = put(walk, card, d, p)
    q = (p[0] + DIRS[d][0], p[1] + DIRS[d][1])
    total = 0
    for cell in (p, q):
        for n in neighbours(cell):
            if n in after:
                continue
            around = [after[x] for x in neighbours(n) if x in after]
            total += any(all(compatible(t, u) for u in around) for t in range(16))
    return total


def growth(walk: Sidewalk, obj: Objectives, after: Sidewalk) -> int:
    """Cells by which the largest groups of the two majority tokens grow (0 when the majority face is down)."""
    if not obj.vp("majority"):
        return 0
    return sum(largest_group(after, obj, slot) - largest_group(walk, obj, slot) for slot in (6, 7))


def potential(walk: Sidewalk, obj: Objectives, pool: list[int], cells: list[Cell]) -> int:
    """Sum over instances touching ``cells`` with one empty cell: VP x unseen panots that complete it and fit there."""
    total, seen = 0, set()
    for cell in cells:
        for name, insts in {**pair_instances(cell), **triple_instances(cell)}.items():
            if not obj.vp(name):
                continue
            for inst in insts:
                key = frozenset((name, *inst))
                if key in seen:
                    continue
                seen.add(key)
                empty = [x for x in inst if x not in walk]
                if len(empty) != 1:
                    continue
                around = [walk[n] for n in neighbours(empty[0]) if n in walk]
                for t in range(16):
                    vals = [t if x == empty[0] else walk[x] for x in inst]
                    hit = obj.triple(*vals) if name in ("line", "l") else obj.pair(*vals, PAIR_SLOTS[name])
                    if pool[t] and hit and all(compatible(t, u) for u in around):
                        total += obj.vp(name) * pool[t]
    return total


def value(walk: Sidewalk, obj: Objectives, card: int, d: int, p: Cell, kind: str, pool: list[int], look: bool) -> int:
    """A policy's value of placing ``card`` at ``(d, p)`` (see :mod:`engines.panots.policies`).

    ``kind``: 'gain', 'majority' (majority-aware) or 'plan' (planner); ``pool`` counts the unseen panots per type,
    ``look`` says whether a card is still to come.
    """
    g = gain(walk, obj, card, d, p)
    if kind == "gain":
        return g
    after = put(walk, card, d, p)
    score = g + growth(walk, obj, after)
    if kind == "plan":
        score *= max(1, sum(pool))
        if look:
            q = (p[0] + DIRS[d][0], p[1] + DIRS[d][1])
            score += potential(after, obj, pool, [p, q]) - potential(walk, obj, pool, [p, q])
    return 8 * score + open_edges(walk, card, d, p)


class Seat:
    """One player's sidewalk and counters."""

    def __init__(self) -> None:
        """An empty sidewalk."""
        self.walk: Sidewalk = {}
        self.swapped = 0
        self.discarded = 0


KIND = {"planner": "plan", "majority-aware": "majority"}  # the value each policy maximises; others: gain


def evaluate(
    seat: Seat, obj: Objectives, card: int, kind: str, pool: list[int], look: bool
) -> tuple[int, tuple[int, Cell] | None]:
    """Best value (see :func:`value`) and placement of ``card``; UNPLACEABLE (VALUE) when none."""
    best, at = None, None
    for d, p in legal_placements(seat.walk, card):
        v = value(seat.walk, obj, card, d, p, kind, pool, look)
        if best is None or v > best:
            best, at = v, (d, p)
    if best is None:
        return (UNPLACEABLE if kind == "gain" else UNPLACEABLE_VALUE), None
    return best, at


def face_points(seats: list[Seat], obj: Objectives, params: Params, solo: bool) -> list[list[int]]:
    """VP per seat and face (FACES order) if the game ended now."""
    per_face = []
    for seat in seats:
        pts = points(seat.walk, obj)
        per_face.append([pts[f] for f in FACES[:7]] + [0])
    if not solo and "majority" in obj.up:
        for slot in (6, 7):
            sizes = [largest_group(seat.walk, obj, slot) for seat in seats]
            top = max(sizes)
            alone = sizes.count(top) == 1
            for s in range(len(seats)):
                if sizes[s] == top and top > 0 and (alone or params.majority_ties == "all"):
                    per_face[s][7] += obj.vp("majority")
    return per_face


def play_one(params: Params, seat_policies: Sequence[str], stream: core.GameStream) -> dict:
    """Play one game; returns the same columns as :func:`engines.panots.rules.play` for one game."""
    players = len(seat_policies)
    solo = players == 1
    # setup: faces, tokens, then the shuffle of the cards used
    if params.faces:
        up = set(params.faces)
    else:
        face = [stream.integer(2) for _ in range(4)]
        if solo:
            face[3] = 0
        up = {CARD_FACES[k][face[k]] for k in range(4)}
    if params.tokens:
        slot_token = [TOKENS.index(t) for t in params.tokens]
    else:
        slot_token = list(range(8))
        for i in range(7):
            j = i + stream.integer(8 - i)
            slot_token[i], slot_token[j] = slot_token[j], slot_token[i]
    obj = Objectives(up, slot_token, params)
    n_left = params.leftovers + solo
    used = n_left + players * params.cards_per_player
    cards = list(range(N_CARDS))
    for i in range(used):
        j = i + stream.integer(N_CARDS - i)
        cards[i], cards[j] = cards[j], cards[i]
    leftover = cards[:n_left]
    decks = [
        cards[n_left + s * params.cards_per_player : n_left + (s + 1) * params.cards_per_player] for s in range(players)
    ]
    seats = [Seat() for _ in range(players)]

    seen: set[int] = set()
    mid_score, leader, lead_changes = [0] * players, None, 0

    def place(s: int, card: int, pool: list[int], look: bool) -> None:
        """Let seat ``s`` choose a legal placement of ``card`` and put it down."""
        seat, policy = seats[s], seat_policies[s]
        options = legal_placements(seat.walk, card)
        if policy == "random":
            d, p = options[stream.integer(len(options))] if seat.walk else options[0]
        else:
            _, (d, p) = evaluate(seat, obj, card, KIND.get(policy, "gain"), pool, look)
        seat.walk = put(seat.walk, card, d, p)

    for rnd in range(params.cards_per_player):
        wh = leftover + [decks[s][rnd] for s in range(players)]
        seen.update(wh)
        pool = [0] * 16
        for card in set(range(N_CARDS)) - seen:
            for t in CARDS[card]:
                pool[int(t)] += 1
        look = rnd + 1 < params.cards_per_player
        value, placeable = {}, {}
        for s in range(players):
            for k in range(len(wh)):
                if seat_policies[s] == "random":
                    placeable[s, k] = bool(legal_placements(seats[s].walk, wh[k]))
                else:
                    kind = KIND.get(seat_policies[s], "gain")
                    value[s, k], at = evaluate(seats[s], obj, wh[k], kind, pool, look)
                    placeable[s, k] = at is not None
        order = list(range(players))
        if params.grab_order == "random" and players > 1:
            for i in range(players - 1):
                j = i + stream.integer(players - i)
                order[i], order[j] = order[j], order[i]
        free = list(range(len(wh)))
        grabbed = {}
        for k, s in enumerate(order):
            policy = seat_policies[s]
            if policy == "random":
                options = [x for x in free if placeable[s, x]] or list(free)
                pick = options[stream.integer(len(options))]
            else:
                score = {x: value[s, x] for x in free}
                if policy == "denier" and players > 1:
                    score = {x: score[x] * (players - 1) for x in free}
                    for later in order[k + 1 :]:
                        theirs = {x: evaluate(seats[later], obj, wh[x], "gain", pool, look)[0] for x in free}
                        top = max(free, key=lambda x: (theirs[x], -x))
                        rest = [theirs[x] for x in free if x != top]
                        score[top] += max(theirs[top] - (max(rest) if rest else MASKED), 0)
                pick = max(free, key=lambda x: (score[x], -x))
            grabbed[s] = pick
            free.remove(pick)
        stuck = []
        for s in order:
            if placeable[s, grabbed[s]]:
                place(s, wh[grabbed[s]], pool, look)
            else:
                stuck.append(s)
        for s in stuck:
            options = [x for x in sorted(free) if placeable[s, x]]
            if not options and params.unplaceable == "discard-grabbed":  # no exchange: the grabbed card goes
                seats[s].discarded += 1
                continue
            if not options:  # exchanged for the first leftover, which is discarded in turn
                taken = min(free)
            elif seat_policies[s] == "random":
                taken = options[stream.integer(len(options))]
            else:
                taken = max(options, key=lambda x: (value[s, x], -x))
            free.remove(taken)
            free.append(grabbed[s])
            grabbed[s] = taken
            seats[s].swapped += 1
            if options:
                place(s, wh[taken], pool, look)
            else:
                seats[s].discarded += 1
        leftover = [wh[x] for x in sorted(free)]
        now = [s * params.head_start + sum(row) for s, row in enumerate(face_points(seats, obj, params, solo))]
        if rnd + 1 == params.cards_per_player // 2:
            mid_score = now
        if now.count(max(now)) == 1:  # a sole leader; a tie keeps the last one
            lead = now.index(max(now))
            lead_changes += leader is not None and lead != leader
            leader = lead

    per_face = face_points(seats, obj, params, solo)
    score = [s * params.head_start + sum(row) for s, row in enumerate(per_face)]  # seat s starts with s x head_start
    best = max(score)
    winners = [x == best for x in score]
    winner = score.index(best) if sum(winners) == 1 else -1
    rows = [[r for r, _ in seat.walk] for seat in seats]
    cols = [[c for _, c in seat.walk] for seat in seats]
    out = {
        "score": score,
        "winner": winner,
        "winners": winners,
        "turns": params.cards_per_player,
        "placed": [len(seat.walk) // 2 for seat in seats],
        "swapped": [seat.swapped for seat in seats],
        "discarded": [seat.discarded for seat in seats],
        "mid_score": mid_score,
        "lead_changes": lead_changes,
    }
    for f, name in enumerate(FACES):
        out[f"vp_{name}"] = [row[f] for row in per_face]
    out["width"] = [max(c) - min(c) + 1 for c in cols]
    out["height"] = [max(r) - min(r) + 1 for r in rows]
    out["face_up"] = [int(name in obj.up) for name in FACES]
    title = [0] * len(TITLES)
    if solo:
        s = score[0]
        title[5 if s > 20 else 4 if s > 15 else 3 if s > 10 else 2 if s > 5 else 1 if s > 0 else 0] = 1
    out["title"] = title
    return out
