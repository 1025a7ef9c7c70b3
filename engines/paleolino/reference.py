"""Paleolino, one game at a time in plain Python: the readable statement of the rules the tests hold ``play`` to.

Chance events are read from a :class:`core.GameStream` in the order the batched engine consumes them: the shuffle
(``n - 1`` values), then each turn: with ``fade`` > 0 one value per cave and chip type (how many remembered chips
the table forgets), three values per chip pulled (which chip, which cave, remembered or not), then the ``random``
policy's own draws (cave, each build, each chip kept). Policies choose the payment: the chips taken from the
middle and from each seat's backpack; the game checks it against the rules.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from boardlab.engines import core
from boardlab.engines.paleolino.rules import CRYSTAL, INFO, Params, cost_counts, forget_cdf, payment

CRYSTAL_VALUE = 100


class Game:
    """The table of one game: hand axe, caves, memory, middle, backpacks, pit, stacks and counters."""

    def __init__(self, params: Params, players: int, stream: core.GameStream) -> None:
        """Set up: fill the hand axe, shuffle the inventions and deal them round-robin into stacks."""
        self.params, self.players, self.stream = params, players, stream
        self.costs = [cost_counts(c) for c in params.in_play]
        n = len(self.costs)
        order = list(range(n))
        for i in range(n - 1, 0, -1):  # Fisher-Yates, one value per position from the back
            j = stream.integer(i + 1)
            order[i], order[j] = order[j], order[i]
        n_stacks = params.n_stacks(players)
        self.stacks = [order[s::n_stacks] for s in range(n_stacks)]  # each listed from the top
        self.axe = list(params.chips)
        self.caves = [[0, 0, 0, 0] for _ in params.cave_weights]
        self.belief = [[0, 0, 0, 0] for _ in params.cave_weights]
        self.forgotten = [[0, 0, 0, 0] for _ in params.cave_weights]  # unplaced chips pulled since it was opened
        self.middle = [0, 0, 0, 0]
        self.backpacks = [[0, 0, 0, 0] for _ in range(players)]
        self.pit = [0, 0, 0, 0]
        self.built = 0
        self.turn = 0
        self.wasted = self.crystals_used = self.empty_caves = 0
        self.help_given = [0] * players

    # --- what policies read -------------------------------------------------------------------------------

    @property
    def mover(self) -> int:
        """Seat whose turn it is."""
        return self.turn % self.players

    def helper_seats(self) -> list[int]:
        """The other seats in turn order after the mover."""
        return [(self.mover + j) % self.players for j in range(1, self.players)]

    def pool(self) -> list[int]:
        """The mover's chips: the middle plus the mover's backpack."""
        return [m + b for m, b in zip(self.middle, self.backpacks[self.mover], strict=True)]

    def top(self, stack: int, depth: int = 0) -> tuple[int, int, int] | None:
        """Cost of the card ``depth`` below the top of ``stack``, or ``None`` past its bottom."""
        cards = self.stacks[stack]
        return self.costs[cards[depth]] if depth < len(cards) else None

    def build_limit(self) -> int:
        """Inventions the mover may still build this turn, before counting any."""
        return min(self.params.goal - self.built, self.params.build_limit())

    def expected(self) -> list[list[float]]:
        """Expected chips by type in each cave (public information only).

        Remembered chips, plus the unplaced ones spread by each cave's share times the chips of that type pulled
        unplaced since the cave was opened.
        """
        p = self.params
        shares = p.cave_shares
        held = [self.axe[t] + self.pit[t] + self.middle[t] + sum(b[t] for b in self.backpacks) for t in range(4)]
        out = []
        for v in range(p.caves):
            row = []
            for t in range(4):
                unplaced = (p.chips[t] - held[t]) - sum(float(self.belief[u][t]) for u in range(p.caves))
                weights = [self.forgotten[u][t] * shares[u] for u in range(p.caves)]
                total = sum(weights)
                row.append(float(self.belief[v][t]) + (weights[v] / total * unplaced if total > 0 else 0.0))
            out.append(row)
        return out

    # --- the turn -----------------------------------------------------------------------------------------

    def fade_memory(self) -> None:
        """With ``fade`` > 0, forget some remembered chips of each cave and type (one value each)."""
        if self.params.fade <= 0:
            return
        cdf = forget_cdf(self.params.fade)
        lost_all = [0, 0, 0, 0]
        for cave in range(len(self.caves)):
            for t in range(4):
                u = self.stream.uniform()
                n = self.belief[cave][t]
                lost = sum(1 for x in range(16) if cdf[n, x] <= u)
                self.belief[cave][t] -= lost
                lost_all[t] += lost
        for cave in range(len(self.caves)):
            for t in range(4):
                self.forgotten[cave][t] += lost_all[t]

    def pull_chips(self) -> None:
        """Pull up to ``pulls`` chips; each rolls into a cave, and the table may remember where."""
        for _ in range(self.params.pulls):
            left = sum(self.axe)
            if left == 0:
                return
            index = self.stream.integer(left)
            kind = 0
            while index >= self.axe[kind]:
                index -= self.axe[kind]
                kind += 1
            u = self.stream.uniform()
            cave = sum(1 for threshold in self.params.cave_thresholds if u >= threshold)
            self.axe[kind] -= 1
            self.caves[cave][kind] += 1
            if self.stream.uniform() < self.params.memory:
                self.belief[cave][kind] += 1
            else:
                for bag in self.forgotten:
                    bag[kind] += 1

    def open_cave(self, cave: int) -> None:
        """Move every chip of ``cave`` into the middle; the table now knows that cave is empty."""
        self.middle = self.caves[cave]
        self.caves[cave] = [0, 0, 0, 0]
        self.belief[cave] = [0, 0, 0, 0]
        self.forgotten[cave] = [0, 0, 0, 0]
        if sum(self.middle) == 0:
            self.empty_caves += 1

    def build(self, plan: Sequence[int], takes: Sequence[Sequence[int]]) -> None:
        """Build the cards of ``plan`` (stacks, top first) and pay with ``takes`` (middle, then each seat).

        A payment gives no more of a resource than the cards need, crystals for the rest; each holder only
        chips it has; another seat at most ``help_chips`` chips, none without ``help``.
        """
        p = self.params
        assert len(plan) <= self.build_limit(), "built more than the turn allows"
        need = [0, 0, 0]
        for stack in plan:
            cost = self.top(stack)
            assert cost is not None, "built from an empty stack"
            need = [a + b for a, b in zip(need, cost, strict=True)]
            self.stacks[stack] = self.stacks[stack][1:]
        holders = [self.middle, *self.backpacks]
        assert all(0 <= takes[h][t] <= holders[h][t] for h in range(len(holders)) for t in range(4))
        for seat in self.helper_seats():
            assert sum(takes[1 + seat]) <= (p.help_chips if p.help else 0), "too much help"
        paid = [sum(take[t] for take in takes) for t in range(4)]
        assert all(paid[r] <= need[r] for r in range(3)) and sum(paid) == sum(need), "wrong payment"
        for h, take in enumerate(takes):
            for t in range(4):
                holders[h][t] -= take[t]
                self.pit[t] += take[t]
        for seat in self.helper_seats():
            self.help_given[seat] += sum(takes[1 + seat])
        self.crystals_used += paid[CRYSTAL]
        self.built += len(plan)

    def store(self, keep: list[int]) -> None:
        """The mover keeps ``keep`` on the backpack; every other chip of the middle and backpack goes to the pit."""
        pool = self.pool()
        own = self.backpacks[self.mover]
        assert all(0 <= k <= p for k, p in zip(keep, pool, strict=True)) and sum(keep) <= self.params.backpack
        assert self.params.backpack_swap or all(k >= o for k, o in zip(keep, own, strict=True)), "swapped"
        for t in range(4):
            self.pit[t] += pool[t] - keep[t]
            self.wasted += pool[t] - keep[t]
        self.backpacks[self.mover] = list(keep)
        self.middle = [0, 0, 0, 0]


# --- policies --------------------------------------------------------------------------------------------


def keep_best(left: Sequence[int], demand: Sequence[int], capacity: int) -> list[int]:
    """Crystals first, then the resource the tops ask for most, ties to the lower type; up to ``capacity``."""
    value = [10 + demand[0], 10 + demand[1], 10 + demand[2], CRYSTAL_VALUE]
    keep = [0, 0, 0, 0]
    room = max(capacity, 0)
    for t in sorted(range(4), key=lambda t: (-value[t], t)):
        keep[t] = min(left[t], room)
        room -= keep[t]
    return keep


def chip_value(chips: Sequence[int], demand: Sequence[int]) -> int:
    """Value of chips to the table: crystal 100, a resource 10 + the chips of it the tops ask for."""
    return sum(chips[r] * (10 + demand[r]) for r in range(3)) + chips[CRYSTAL] * CRYSTAL_VALUE


def top_demand(game: Game) -> list[int]:
    """Chips per resource the current stack tops ask for in all."""
    tops = [game.top(s) for s in range(len(game.stacks))]
    return [sum(c[r] for c in tops if c is not None) for r in range(3)]


def offers(game: Game) -> dict[int, list[int]]:
    """Chips each other seat offers to the mover's builds."""
    p = game.params
    if not p.help:
        return {s: [0, 0, 0, 0] for s in game.helper_seats()}
    if p.backpack <= p.help_chips:
        return {s: list(game.backpacks[s]) for s in game.helper_seats()}
    demand = top_demand(game)
    return {s: keep_best(game.backpacks[s], demand, p.help_chips) for s in game.helper_seats()}


def keep_chips(game: Game, demand: Sequence[int]) -> list[int]:
    """The keep rule; without ``backpack_swap`` the backpack's chips stay."""
    p = game.params
    left = game.pool()
    if p.backpack_swap:
        return keep_best(left, demand, p.backpack)
    own = game.backpacks[game.mover]
    more = keep_best([a - b for a, b in zip(left, own, strict=True)], demand, p.backpack - sum(own))
    return [a + b for a, b in zip(own, more, strict=True)]


def plan_builds(game: Game, choose) -> list[int]:
    """Build one affordable top at a time, chosen by ``choose(fits, costs, supply)`` (``None`` stops).

    Affordability counts the pool and the offers together.
    """
    supply = game.pool()
    for chips in offers(game).values():
        supply = [a + b for a, b in zip(supply, chips, strict=True)]
    depth = [0] * len(game.stacks)
    plan: list[int] = []
    while len(plan) < game.build_limit():
        costs = [game.top(s, depth[s]) for s in range(len(game.stacks))]
        fits = [s for s, c in enumerate(costs) if c is not None and payment(c, supply) is not None]
        if not fits:
            break
        s = choose(fits, costs, supply, len(plan))
        if s is None:
            break
        paid = payment(costs[s], supply)
        supply = [a - b for a, b in zip(supply, paid, strict=True)]
        depth[s] += 1
        plan.append(s)
    return plan


def plan_need(game: Game, plan: Sequence[int]) -> list[int]:
    """Chips per resource of the cards of ``plan``."""
    depth = [0] * len(game.stacks)
    need = [0, 0, 0]
    for s in plan:
        need = [a + b for a, b in zip(need, game.top(s, depth[s]), strict=True)]
        depth[s] += 1
    return need


def demand_after(game: Game, plan: Sequence[int]) -> list[int]:
    """Chips per resource the tops ask for once ``plan`` is built."""
    tops = [game.top(s, plan.count(s)) for s in range(len(game.stacks))]
    return [sum(c[r] for c in tops if c is not None) for r in range(3)]


def pay_in_order(game: Game, plan: Sequence[int], own_first: bool) -> list[list[int]]:
    """Takes per holder (middle, then each seat): matching chips first, or the mover's own chips first."""
    need = plan_need(game, plan)
    offered = offers(game)
    seats = [game.mover, *game.helper_seats()]
    holders = [list(game.middle)] + [list(game.backpacks[s]) if s == game.mover else offered[s] for s in seats]
    takes = [[0, 0, 0, 0] for _ in holders]
    short = list(need)
    groups = [[0, 1], list(range(2, len(holders)))] if own_first else [list(range(len(holders)))]
    for g, group in enumerate(groups):
        for h in group:
            for r in range(3):
                got = min(short[r], holders[h][r])
                takes[h][r] += got
                short[r] -= got
        later = [sum(holders[h][r] for grp in groups[g + 1 :] for h in grp) for r in range(3)]
        for h in group:
            got = min(sum(short), holders[h][CRYSTAL])
            takes[h][CRYSTAL] += got
            first = [max(short[r] - later[r], 0) for r in range(3)]
            for part in (first, None):
                for r in range(3):
                    covered = min(short[r] if part is None else part[r], got)
                    short[r] -= covered
                    if part is not None:
                        part[r] -= covered
                    got -= covered
    out = [[0, 0, 0, 0] for _ in range(1 + game.players)]
    out[0] = takes[0]
    for s, take in zip(seats, takes[1:], strict=True):
        out[1 + s] = take
    return out


def best_payment(game: Game, plan: Sequence[int]) -> list[list[int]]:
    """Of the two payment orders, the one leaving the backpacks the more valuable chips (ties: matching first)."""
    demand = demand_after(game, plan)
    p = game.params
    values = []
    options = [pay_in_order(game, plan, own_first) for own_first in (False, True)]
    for takes in options:
        middle = [a - b for a, b in zip(game.middle, takes[0], strict=True)]
        packs = [[a - b for a, b in zip(game.backpacks[s], takes[1 + s], strict=True)] for s in range(game.players)]
        own = packs[game.mover]
        others = [sum(packs[s][t] for s in game.helper_seats()) for t in range(4)]
        if p.backpack_swap:
            kept = keep_best([a + b for a, b in zip(middle, own, strict=True)], demand, p.backpack)
        else:
            more = keep_best(middle, demand, p.backpack - sum(own))
            kept = [a + b for a, b in zip(own, more, strict=True)]
        values.append(chip_value([a + b for a, b in zip(others, kept, strict=True)], demand))
    return options[1] if values[1] > values[0] else options[0]


class RandomRef:
    """``random``: uniform cave, uniform affordable top while any fits, matching chips first, uniform chips kept."""

    def cave(self, game: Game) -> int:
        """A uniformly random cave."""
        return game.stream.integer(len(game.caves))

    def builds(self, game: Game) -> list[int]:
        """Uniformly random affordable tops, one draw per build."""
        return plan_builds(game, lambda fits, costs, supply, built: fits[game.stream.integer(len(fits))])

    def pay(self, game: Game, plan: Sequence[int]) -> list[list[int]]:
        """Matching chips from any holder before crystals."""
        return pay_in_order(game, plan, own_first=False)

    def store(self, game: Game) -> list[int]:
        """Uniformly random chips, one draw per chip kept, up to the room left."""
        p = game.params
        own = [0, 0, 0, 0] if p.backpack_swap else list(game.backpacks[game.mover])
        left = [a - b for a, b in zip(game.pool(), own, strict=True)]
        keep = list(own)
        for _ in range(p.backpack):
            if sum(left) == 0 or sum(keep) >= p.backpack:
                break
            index = game.stream.integer(sum(left))
            kind = 0
            while index >= left[kind]:
                index -= left[kind]
                kind += 1
            keep[kind] += 1
            left[kind] -= 1
        return keep


class GreedyRef:
    """``greedy``: cave with most expected chips; costliest affordable top first; better payment; keep rule."""

    def cave(self, game: Game) -> int:
        """The cave with most expected chips, the first on ties."""
        totals = [sum(row) for row in game.expected()]
        return totals.index(max(totals))

    def builds(self, game: Game) -> list[int]:
        """The affordable top costing most chips, the first stack on ties, while any fits."""
        return plan_builds(game, lambda fits, costs, supply, built: max(fits, key=lambda s: (sum(costs[s]), -s)))

    def pay(self, game: Game, plan: Sequence[int]) -> list[list[int]]:
        """The better of the two payment orders."""
        return best_payment(game, plan)

    def store(self, game: Game) -> list[int]:
        """The keep rule."""
        return keep_chips(game, top_demand(game))


class PlannerRef:
    """``planner``: score every set of visible tops exactly as :class:`policies.Planner` does."""

    def set_score(self, subset, costs, supply, limit: int, last: bool) -> int:
        """Score of building the visible tops in ``subset`` with ``supply``; -1 if impossible."""
        real = [c is not None for c in costs]
        if any(k and not r for k, r in zip(subset, real, strict=True)) or sum(subset) > limit:
            return -1
        cost = [c if c is not None else (0, 0, 0) for c in costs]
        need = [sum(cost[s][r] for s in range(len(cost)) if subset[s]) for r in range(3)]
        matching = [min(need[r], supply[r]) for r in range(3)]
        short = sum(need) - sum(matching)
        if short > supply[CRYSTAL]:
            return -1
        left = [supply[r] - matching[r] for r in range(3)] + [supply[CRYSTAL] - short]
        rest = [s for s in range(len(cost)) if real[s] and not subset[s]]
        reach = sum(1 for s in rest if sum(max(cost[s][r] - left[r], 0) for r in range(3)) <= left[CRYSTAL])
        demand = [sum(cost[s][r] for s in rest) for r in range(3)]
        useful = sum(min(left[r], demand[r]) for r in range(3))
        extras = sum(need) * 10**8 + reach * 10**6 + left[CRYSTAL] * 10**4 + useful * 100 + sum(left)
        return sum(subset) * 10**10 + (0 if last else extras)

    def best_set(self, game: Game, costs, supply, limit: int) -> tuple[tuple[int, ...], int]:
        """The first set (``itertools.product`` order) with the highest score, and that score."""
        last = sum(game.axe) == 0
        best, best_score = None, -2
        for subset in itertools.product((0, 1), repeat=len(costs)):
            score = self.set_score(subset, costs, supply, limit, last)
            if score > best_score:
                best, best_score = subset, score
        return best, best_score

    def cave(self, game: Game) -> int:
        """Most sure builds on remembered chips, then most use-weighted expected chips, then the first cave."""
        supply0 = list(game.backpacks[game.mover])
        for chips in offers(game).values():
            supply0 = [a + b for a, b in zip(supply0, chips, strict=True)]
        costs = [game.top(s) for s in range(len(game.stacks))]
        demand = top_demand(game)
        weight = [1.0 if demand[r] > 0 else 0.5 for r in range(3)] + [2.0]
        keys = []
        for cave, expected in enumerate(game.expected()):
            supply = [a + b for a, b in zip(supply0, game.belief[cave], strict=True)]
            subset, score = self.best_set(game, costs, supply, game.build_limit())
            sure = sum(subset) if score >= 0 else 0
            worth = sum(e * w for e, w in zip(expected, weight, strict=True))
            keys.append(sure * 1000.0 + float(np.round(worth, 9)))
        return keys.index(max(keys))

    def builds(self, game: Game) -> list[int]:
        """The lowest stack of the best set of visible tops, then plan again with the next card shown."""
        limit = game.build_limit()

        def choose(fits, costs, supply, built):
            subset, _ = self.best_set(game, costs, supply, limit - built)
            return subset.index(1) if any(subset) else None

        return plan_builds(game, choose)

    def pay(self, game: Game, plan: Sequence[int]) -> list[list[int]]:
        """The better of the two payment orders."""
        return best_payment(game, plan)

    def store(self, game: Game) -> list[int]:
        """The keep rule against the tops' demand less the chips on the other backpacks."""
        others = [sum(game.backpacks[s][r] for s in game.helper_seats()) for r in range(3)]
        return keep_chips(game, [max(d - o, 0) for d, o in zip(top_demand(game), others, strict=True)])


REFERENCE_POLICIES = {"random": RandomRef, "greedy": GreedyRef, "planner": PlannerRef}


def play_turn(game: Game, policy) -> bool:
    """Play the mover's turn with reference policy ``policy``; return whether the table has just won."""
    game.fade_memory()
    game.pull_chips()
    game.open_cave(policy.cave(game))
    plan = policy.builds(game)
    if plan:
        game.build(plan, policy.pay(game, plan))
    won = game.built >= game.params.goal  # the last slot filled: the table wins at once, nothing is stored
    if not won:
        game.store(policy.store(game))
    game.turn += 1
    return won


def play_game(params: Params, seat_policies: Sequence[str], stream: core.GameStream) -> Game:
    """Play one game to its end and return the final table."""
    players = len(seat_policies)
    core.check_players(INFO, players)
    seats = [REFERENCE_POLICIES[name]() for name in seat_policies]
    game = Game(params, players, stream)
    while sum(game.axe) > 0:  # a turn that starts with an empty hand axe ends the game: the table lost
        if play_turn(game, seats[game.mover]):
            break
    return game


def play_one(params: Params, seat_policies: Sequence[str], stream: core.GameStream) -> dict:
    """Play one game; returns the same columns as :func:`rules.play` for that game (scalars and lists)."""
    game = play_game(params, seat_policies, stream)
    players = len(seat_policies)
    won = game.built >= params.goal
    return {
        "score": [game.built] * players,
        "winner": -1 if won else -2,
        "winners": [won] * players,
        "turns": game.turn,
        "won": won,
        "inventions": game.built,
        "wasted": game.wasted,
        "crystals_used": game.crystals_used,
        "help_given": game.help_given,
        "empty_caves": game.empty_caves,
    }
