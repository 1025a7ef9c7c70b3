"""Paleolino, one game at a time in plain Python: the readable statement of the rules the tests hold ``play`` to.

Chance events are read from a :class:`core.GameStream` in the order the batched engine consumes them: the shuffle
(``n - 1`` values), then each turn three values per chip pulled (which chip, which cave, remembered or not), then
the ``random`` policy's own draws (cave, each build, each chip kept). Here each card is paid from the holders in
turn as it is built; the batched engine sums a turn's payments first and then takes them from the holders in
the same order, which takes the same chips.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from engines import core
from engines.paleolino.rules import CRYSTAL, INFO, Params, cost_counts, payment

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

    def helper_chips(self) -> list[int]:
        """Chips by type on the other seats' backpacks, together."""
        return [sum(self.backpacks[s][t] for s in self.helper_seats()) for t in range(4)]

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

    # --- the turn -----------------------------------------------------------------------------------------

    def pull_chips(self) -> None:
        """Pull up to two chips; each rolls into a cave, and the table may remember where."""
        for _ in range(2):
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

    def open_cave(self, cave: int) -> None:
        """Move every chip of ``cave`` into the middle; the table now knows that cave is empty."""
        self.middle = self.caves[cave]
        self.caves[cave] = [0, 0, 0, 0]
        self.belief[cave] = [0, 0, 0, 0]
        if sum(self.middle) == 0:
            self.empty_caves += 1

    def build(self, stack: int) -> None:
        """Build the top of ``stack`` and pay for it.

        Each resource comes from the middle, the mover's backpack, then the helpers' backpacks in seat order;
        crystals, taken in that same order, cover whatever is missing.
        """
        cost = self.top(stack)
        assert cost is not None, "built from an empty stack"
        holders = [self.middle, self.backpacks[self.mover]] + [self.backpacks[s] for s in self.helper_seats()]
        missing = 0
        for r in range(3):
            need = cost[r]
            for chips in holders:
                used = min(need, chips[r])
                chips[r] -= used
                self.pit[r] += used
                need -= used
            missing += need
        self.crystals_used += missing
        for holder in holders:
            used = min(missing, holder[CRYSTAL])
            holder[CRYSTAL] -= used
            self.pit[CRYSTAL] += used
            missing -= used
        assert missing == 0, "built an invention the table could not pay for"
        self.stacks[stack] = self.stacks[stack][1:]
        self.built += 1

    def store(self, keep: list[int]) -> None:
        """The mover keeps ``keep`` on the backpack; every other chip of the middle and backpack goes to the pit."""
        pool = self.pool()
        assert all(0 <= k <= p for k, p in zip(keep, pool, strict=True)) and sum(keep) <= self.params.backpack
        for t in range(4):
            self.pit[t] += pool[t] - keep[t]
            self.wasted += pool[t] - keep[t]
        self.backpacks[self.mover] = list(keep)
        self.middle = [0, 0, 0, 0]


def holder_snapshot(game: Game) -> list[int]:
    """Chips on each helper's backpack, in helper order (to count help given)."""
    return [sum(game.backpacks[s]) for s in game.helper_seats()]


# --- policies --------------------------------------------------------------------------------------------


def keep_best(left: Sequence[int], demand: Sequence[int], capacity: int) -> list[int]:
    """Crystals first, then the resource the tops ask for most, ties to the lower type; up to ``capacity``."""
    value = [10 + demand[0], 10 + demand[1], 10 + demand[2], CRYSTAL_VALUE]
    keep = [0, 0, 0, 0]
    room = capacity
    for t in sorted(range(4), key=lambda t: (-value[t], t)):
        keep[t] = min(left[t], room)
        room -= keep[t]
    return keep


def top_demand(game: Game) -> list[int]:
    """Chips per resource the current stack tops ask for in all."""
    tops = [game.top(s) for s in range(len(game.stacks))]
    return [sum(c[r] for c in tops if c is not None) for r in range(3)]


def plan_builds(game: Game, choose) -> list[int]:
    """Build one affordable top at a time, chosen by ``choose(affordable stacks, costs)``, while any fits.

    Affordability counts the pool and the helpers' backpacks together.
    """
    supply = [p + h for p, h in zip(game.pool(), game.helper_chips(), strict=True)]
    depth = [0] * len(game.stacks)
    plan: list[int] = []
    while len(plan) < game.build_limit():
        costs = [game.top(s, depth[s]) for s in range(len(game.stacks))]
        fits = [s for s, c in enumerate(costs) if c is not None and payment(c, supply) is not None]
        if not fits:
            break
        s = choose(fits, costs)
        paid = payment(costs[s], supply)
        supply = [a - b for a, b in zip(supply, paid, strict=True)]
        depth[s] += 1
        plan.append(s)
    return plan


class RandomRef:
    """``random``: uniform cave, uniform affordable top while any fits, uniform chips kept."""

    def cave(self, game: Game) -> int:
        """A uniformly random cave."""
        return game.stream.integer(len(game.caves))

    def builds(self, game: Game) -> list[int]:
        """Uniformly random affordable tops, one draw per build."""
        return plan_builds(game, lambda fits, costs: fits[game.stream.integer(len(fits))])

    def store(self, game: Game) -> list[int]:
        """Uniformly random chips, one draw per chip kept."""
        left = game.pool()
        keep = [0, 0, 0, 0]
        for _ in range(game.params.backpack):
            if sum(left) == 0:
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
    """``greedy``: cave with most remembered chips; costliest affordable top first; shared keep rule."""

    def cave(self, game: Game) -> int:
        """The cave with most remembered chips, the first on ties."""
        totals = [sum(c) for c in game.belief]
        return totals.index(max(totals))

    def builds(self, game: Game) -> list[int]:
        """The affordable top costing most chips, the first stack on ties, while any fits."""
        return plan_builds(game, lambda fits, costs: max(fits, key=lambda s: (sum(costs[s]), -s)))

    def store(self, game: Game) -> list[int]:
        """The shared keep rule."""
        return keep_best(game.pool(), top_demand(game), game.params.backpack)


class PlannerRef:
    """``planner``: score every plan (cards per stack) exactly as :class:`policies.Planner` does."""

    def plan_score(self, game: Game, plan: Sequence[int], pool: Sequence[int], helpers: Sequence[int]) -> int:
        """Score of building ``plan[s]`` cards from each stack with ``pool`` and ``helpers``; -1 if impossible."""
        if sum(plan) > game.build_limit() or any(k > len(st) for k, st in zip(plan, game.stacks, strict=True)):
            return -1
        need = [0, 0, 0]
        for s, k in enumerate(plan):
            for depth in range(k):
                need = [a + b for a, b in zip(need, game.top(s, depth), strict=True)]
        from_pool = [min(need[r], pool[r]) for r in range(3)]
        from_helpers = [min(need[r] - from_pool[r], helpers[r]) for r in range(3)]
        short = sum(need) - sum(from_pool) - sum(from_helpers)
        if short > pool[CRYSTAL] + helpers[CRYSTAL]:
            return -1
        crystal_pool = min(short, pool[CRYSTAL])
        left_pool = [pool[r] - from_pool[r] for r in range(3)] + [pool[CRYSTAL] - crystal_pool]
        left_helpers = [helpers[r] - from_helpers[r] for r in range(3)] + [helpers[CRYSTAL] - short + crystal_pool]
        new_tops = [game.top(s, k) for s, k in enumerate(plan)]
        demand = [sum(c[r] for c in new_tops if c is not None) for r in range(3)]
        kept = keep_best(left_pool, demand, game.params.backpack)
        backpacks = [a + b for a, b in zip(left_helpers, kept, strict=True)]
        reach = sum(1 for c in new_tops if c is not None and payment(c, backpacks) is not None)
        useful = sum(backpacks[r] for r in range(3) if demand[r] > 0)
        return sum(plan) * 10**8 + reach * 10**6 + backpacks[CRYSTAL] * 10**4 + useful * 100 + sum(backpacks)

    def best_plan(self, game: Game, pool: Sequence[int], helpers: Sequence[int]) -> tuple[tuple[int, ...], int]:
        """The first plan (``itertools.product`` order) with the highest score, and that score."""
        depth = max(len(range(s, len(game.costs), len(game.stacks))) for s in range(len(game.stacks)))
        best, best_score = None, -2
        for plan in itertools.product(range(depth + 1), repeat=len(game.stacks)):
            score = self.plan_score(game, plan, pool, helpers)
            if score > best_score:
                best, best_score = plan, score
        return best, best_score

    def cave(self, game: Game) -> int:
        """The cave whose remembered chips allow the best plan; ties: more chips, then the first."""
        own, helpers = game.backpacks[game.mover], game.helper_chips()
        keys = []
        for remembered in game.belief:
            pool = [a + b for a, b in zip(remembered, own, strict=True)]
            keys.append(self.best_plan(game, pool, helpers)[1] * 128 + sum(remembered))
        return keys.index(max(keys))

    def builds(self, game: Game) -> list[int]:
        """The best plan on the chips in hand, built stack by stack."""
        plan, _ = self.best_plan(game, game.pool(), game.helper_chips())
        return [s for s, k in enumerate(plan) for _ in range(k)]

    def store(self, game: Game) -> list[int]:
        """The shared keep rule."""
        return keep_best(game.pool(), top_demand(game), game.params.backpack)


REFERENCE_POLICIES = {"random": RandomRef, "greedy": GreedyRef, "planner": PlannerRef}


def play_turn(game: Game, policy) -> bool:
    """Play the mover's turn with reference policy ``policy``; return whether the table has just won."""
    game.pull_chips()
    game.open_cave(policy.cave(game))
    before = holder_snapshot(game)
    for stack in policy.builds(game):
        game.build(stack)
    for seat, was, now in zip(game.helper_seats(), before, holder_snapshot(game), strict=True):
        game.help_given[seat] += was - now
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
