"""Paleolino rules, batched: parameters, tables, state, one lock-step turn for many games, and ``play``.

A set of chips is a *bag*: one 16-bit integer whose 4-bit nibble ``t`` counts chips of type ``t`` (wood,
stone, berry, crystal). No type has more than 15 chips in a game, so bags of different places add without
carries and every question about a bag (how many chips, can it pay for invention ``i``, what does it pay) is a
table lookup. An invention is a cost over the three resources; crystals are wild. Every running game has played
the same number of turns (they all start together and move in lock-step), so the seat to move is the same for
the whole batch in a turn.

Order of a turn and of its chance events (one game): with ``fade`` > 0, one uniform per cave and chip type: how
many of the remembered chips of that type in that cave the table forgets (the binomial quantile of ``u``). Then
for each of the ``pulls`` chips pulled from the hand axe, three uniforms: which chip (``floor(u * chips
left)``-th chip in type order), which cave (the first cave whose cumulative weight share exceeds ``u``) and
whether the table remembers that cave (``u < memory``). Then the policy's own draws, if it randomises: the cave
to open, the builds, the chips to store. The policy also chooses the payment (which chips, from which holder).

What the table knows of the caves is public: the chips it remembers per cave (``belief``) and, per cave, the
chips it saw pulled but cannot place since that cave was last opened (``forgotten``); a forgotten chip lies in
cave ``v`` with the cave's weight share at most, so ``belief + share * forgotten`` is a cave's expected content.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from boardlab.engines import core
from boardlab.engines.core import GameInfo, Metric, Outcome, knob
from boardlab.engines.paleolino import kernels

INFO = GameInfo(
    id="paleolino",
    name="Paleolino",
    version=3,  # 3: the expert's default budget depends on memory (saved chunks of `expert` at memory 0 are stale)
    min_players=1,
    max_players=4,
    chance=True,
    turn_cap=32,
    score_label="inventions",
    chunk_games=20_000,
    cooperative=True,
)

CHIPS = ("wood", "stone", "berry", "crystal")  # chip type t is CHIPS[t]; the last one is wild
RESOURCE_LETTERS = "wsb"  # invention costs are written with these letters: w wood, s stone, b berry
CRYSTAL = 3
BAGS = 1 << 16  # every bag is below this
UNIT = np.array([1, 16, 256, 4096], dtype=np.int64)  # the bag of one chip of each type
MAX_CHIPS = 32  # chips in a game at most (the hand axe's index table is this wide)
MAX_BUILDS = 99  # "no limit" on builds per turn
CHUNK = 16_384  # games played together in lock-step; larger batches run slower (cache misses)
BYTE_HIGH = 0x80808080  # guard bits of a bag spread to one byte per type (see :func:`bag_min`)

DEFAULT_INVENTIONS = ("s", "w", "b", "bb", "sw", "ww", "ss", "wb", "sb", "wwb", "ssw", "bbs", "wws", "ssb", "bbw")
PRINTED_COSTS = ("s", "bb", "sw", "wwb")  # the four costs the rulebook prints (Clay Flute, Sign, Seesaw, Bed)
COST_PRESETS: dict[str, tuple[str, ...]] = {
    "ours": DEFAULT_INVENTIONS,  # 3 singles, 6 doubles, 6 triples; 11 chips of each resource
    "cheap": ("s", "w", "b", "bb", "sw", "ww", "ss", "wb", "sb", "wwb", "sw", "sb", "wb", "ssb", "bbw"),
    "dear": ("s", "w", "b", "bb", "sw", "wws", "ssb", "bbw", "sb", "wwb", "ssw", "bbs", "wws", "ssb", "bbw"),
    "lumpy": ("s", "w", "b", "bb", "sw", "ww", "ss", "wb", "sb", "wwb", "www", "sss", "bbb", "wws", "ssb"),
}
"""Named invention-cost mixes: every one keeps the rulebook's 4 printed costs and its 3 one-chip cards; the rest
are ours (``ours``, the default: 3 singles, 6 doubles, 6 triples; ``cheap``: 3 / 9 / 3; ``dear``: 3 / 3 / 9;
``lumpy``: as ``ours`` with three single-resource triples)."""

METRICS: dict[str, Metric] = {
    "won": Metric("game", "games in which the table built every village slot"),
    "inventions": Metric("game", "inventions built"),
    "wasted": Metric("game", "chips dumped into the pit unused"),
    "crystals_used": Metric("game", "crystals spent on inventions"),
    "help_given": Metric("seat", "chips given from this seat's backpack to another player's build"),
    "empty_caves": Metric("game", "empty caves opened"),
}


@dataclass(frozen=True, slots=True)
class Params(core.Params):
    """Paleolino knobs; the chip mix and the rules are the publisher's, costs and cave odds are our defaults."""

    inventions: tuple[str, ...] = knob(
        DEFAULT_INVENTIONS,
        "Cost of each invention, one letter per chip (w wood, s stone, b berry); presets: the cost-* variants.",
        "1 to 24 costs of 1 to 4 letters from w, s, b",
        source="ours: the rulebook prints 4 of the 15 costs (Clay Flute s, Sign bb, Seesaw sw, Bed wwb) and says 3 "
        "cost one chip; the other 11 are our guess (3 singles, 6 doubles, 6 triples, 11 chips of each resource)",
    )
    chips: tuple[int, ...] = knob(
        (9, 9, 9, 3),
        "Chips in the hand axe: wood, stone, berry, crystal.",
        "4 counts 0..15, total 1..32",
        source="rulebook",
    )
    goal: int = knob(
        10, "Village slots: inventions the table must build to win.", "1..24, at most the inventions", source="rulebook"
    )
    stacks: int = knob(
        0, "Invention stacks; 0 follows the rulebook (2, solo 3; one more with easy).", "0..6", source="rulebook"
    )
    easy: bool = knob(False, "Easy game: one more stack than usual (3, solo 4).", "true | false", source="rulebook")
    pulls: int = knob(
        2, "Chips pulled from the hand axe and rolled down the mountain each turn.", "1..4", source="rulebook"
    )
    cave_weights: tuple[float, ...] = knob(
        (1.0, 1.0, 1.0, 1.0),
        "Relative chance that a chip lands in each cave.",
        "1 to 6 weights 0..1e6 with a positive sum",
        source="ours: the rulebook has 4 caves but gives no odds; even odds until the real mountain is measured",
    )
    memory: float = knob(
        1.0,
        "Chance that the table remembers the cave a chip fell into.",
        "0..1",
        source="ours: the rulebook asks players to watch and remember; perfect memory is the upper bound",
    )
    fade: float = knob(
        0.0,
        "Chance per turn that the table forgets the cave of each chip it remembers (memory fading with age).",
        "0..1",
        source="ours: no fading keeps memory a single knob; children surely forget older chips",
    )
    one_build_per_turn: bool = knob(False, "Expert: at most one invention per turn.", "true | false", source="rulebook")
    remove_singles: bool = knob(
        False, "Real experts: leave out the inventions that cost a single chip.", "true | false", source="rulebook"
    )
    backpack: int = knob(1, "Chips a backpack holds (0: no backpacks, no help).", "0..3", source="rulebook")
    help: bool = knob(
        True,
        "Other players may give chips from their backpacks to the mover's builds.",
        "true | false",
        source="rulebook",
    )
    help_chips: int = knob(
        1,
        "Chips each other player may give to one turn's builds (matters with backpacks above 1 chip).",
        "1..3",
        source="rulebook",
    )
    backpack_swap: bool = knob(
        True,
        "A player may dump an unused backpack chip to store another from the middle.",
        "true | false",
        source="ours: the rulebook lets a player store a chip from the middle and does not forbid replacing one",
    )

    def __post_init__(self) -> None:
        """Reject out-of-range knobs with a message naming the knob, the value and the allowed range."""
        costs = self.inventions
        if (
            not isinstance(costs, tuple)
            or not 1 <= len(costs) <= 24
            or any(not isinstance(c, str) or not 1 <= len(c) <= 4 or set(c) - set(RESOURCE_LETTERS) for c in costs)
        ):
            raise ValueError(f"inventions={costs!r} is not allowed; give 1 to 24 costs of 1 to 4 letters from w, s, b")
        chips = self.chips
        if (
            not isinstance(chips, tuple)
            or len(chips) != 4
            or any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= 15 for c in chips)
            or not 1 <= sum(chips) <= MAX_CHIPS
        ):
            raise ValueError(
                f"chips={chips!r} is not allowed; give 4 counts (wood, stone, berry, crystal) "
                f"each 0..15, total 1..{MAX_CHIPS}"
            )
        core.check_range("goal", self.goal, 1, 24)
        if isinstance(self.goal, int) and self.goal > len(self.in_play):
            raise ValueError(
                f"goal={self.goal} is out of range; allowed 1..{len(self.in_play)} (the inventions in play)"
            )
        core.check_range("stacks", self.stacks, 0, 6)
        core.check_choice("easy", self.easy, (True, False))
        weights = self.cave_weights
        if (
            not isinstance(weights, tuple)
            or not 1 <= len(weights) <= 6
            # bounded, so that their sum and shares stay finite and exact enough
            or any(isinstance(w, bool) or not isinstance(w, int | float) or not 0 <= w <= 1e6 for w in weights)
            or sum(weights) <= 0
        ):
            raise ValueError(f"cave_weights={weights!r} is not allowed; give 1 to 6 weights 0..1e6 with a positive sum")
        core.check_range("pulls", self.pulls, 1, 4)
        core.check_range("memory", self.memory, 0, 1)
        core.check_range("fade", self.fade, 0, 1)
        core.check_choice("one_build_per_turn", self.one_build_per_turn, (True, False))
        core.check_choice("remove_singles", self.remove_singles, (True, False))
        core.check_range("backpack", self.backpack, 0, 3)
        core.check_choice("help", self.help, (True, False))
        core.check_range("help_chips", self.help_chips, 1, 3)
        core.check_choice("backpack_swap", self.backpack_swap, (True, False))

    @property
    def in_play(self) -> tuple[str, ...]:
        """The invention costs used in a game (the single-chip ones are left out by ``remove_singles``)."""
        if self.remove_singles and isinstance(self.inventions, tuple):
            return tuple(c for c in self.inventions if len(c) > 1)
        return self.inventions

    @property
    def caves(self) -> int:
        """Number of caves under the mountain."""
        return len(self.cave_weights)

    @property
    def cave_thresholds(self) -> tuple[float, ...]:
        """Cumulative weight shares of all caves but the last: a chip falls in the number of these <= ``u``."""
        share = np.cumsum(np.array(self.cave_weights, dtype=np.float64)) / float(sum(self.cave_weights))
        return tuple(float(x) for x in share[:-1])

    @property
    def cave_shares(self) -> np.ndarray:
        """Each cave's chance to catch a chip, ``(V,)``."""
        weights = np.array(self.cave_weights, dtype=np.float64)
        return weights / weights.sum()

    def n_stacks(self, players: int) -> int:
        """Stacks the inventions are dealt into for ``players`` players."""
        if self.stacks:
            return self.stacks
        return (3 if players == 1 else 2) + int(self.easy)

    def build_limit(self) -> int:
        """Inventions a player may build in one turn."""
        return 1 if self.one_build_per_turn else MAX_BUILDS

    def tables(self, players: int) -> Tables:
        """Lookup tables for these inventions and this many stacks (built once per distinct setting)."""
        return _tables(self.in_play, self.n_stacks(players))


def cost_counts(cost: str) -> tuple[int, int, int]:
    """Chips of each resource (wood, stone, berry) that a cost string asks for."""
    return (cost.count("w"), cost.count("s"), cost.count("b"))


def payment(cost: Sequence[int], supply: Sequence[int]) -> tuple[int, int, int, int] | None:
    """Chips by type taken from ``supply`` to pay ``cost``: matching chips first, crystals for the rest.

    Returns ``None`` when the supply cannot pay.
    """
    matching = [min(cost[r], supply[r]) for r in range(3)]
    crystals = sum(cost) - sum(matching)
    if crystals > supply[CRYSTAL]:
        return None
    return (matching[0], matching[1], matching[2], crystals)


def pack(counts: np.ndarray) -> np.ndarray:
    """Bags of chip counts (last axis: the four types)."""
    return counts.astype(np.int64) @ UNIT


@lru_cache(maxsize=1)
def bag_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bag: counts by type ``(BAGS, 4)`` uint8, chips in all uint8, and the bag spread to one byte per type."""
    codes = np.arange(BAGS, dtype=np.int64)
    counts = (codes[:, None] >> (4 * np.arange(4))) & 15
    spread = (counts << (8 * np.arange(4))).sum(axis=1)
    return counts.astype(np.uint8), counts.sum(axis=1).astype(np.uint8), spread


@lru_cache(maxsize=1)
def wide_counts() -> np.ndarray:
    """Per bag: counts by type ``(BAGS, 4)`` as int64 (policies' arithmetic type, without a cast per lookup)."""
    return bag_tables()[0].astype(np.int64)


def bag_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Type-by-type minimum of two spread bags (one byte per type, each below 128)."""
    a_at_least_b = (((a | BYTE_HIGH) - b) >> 7) & 0x01010101
    mask = a_at_least_b * 0xFF
    return (b & mask) | (a & ~mask)


class Tables:
    """Per-invention costs and lookups over bags, for one list of inventions and number of stacks.

    Inventions are numbered in the order of :meth:`Params.in_play`; number ``n`` is a dummy that marks "no
    card" (below the bottom of a stack): it costs nothing and can never be built.
    """

    def __init__(self, inventions: tuple[str, ...], stacks: int) -> None:
        """Build the tables for ``inventions`` dealt into ``stacks`` stacks."""
        n = len(inventions)
        self.n, self.stacks = n, stacks
        self.dummy = n
        self.cost = np.zeros((n + 1, 3), dtype=np.int64)  # chips per resource; the dummy row is zero
        self.cost[:n] = [cost_counts(c) for c in inventions]
        self.size = self.cost.sum(axis=1)  # chips per invention
        self.cost_spread = (self.cost << (8 * np.arange(3))).sum(axis=1)  # cost as a spread bag
        self.stack_len = np.array([len(range(s, n, stacks)) for s in range(stacks)], dtype=np.int64)
        self.depth = int(self.stack_len.max()) if n else 0  # longest stack
        counts, self.chips_in, _ = bag_tables()
        counts = counts.astype(np.int64)
        matching = np.minimum(self.cost[:, None, :], counts[None, :, :3])  # (n + 1, BAGS, 3)
        crystals = self.size[:, None] - matching.sum(axis=2)
        self.afford = crystals <= counts[None, :, CRYSTAL]  # afford[i, bag]: the bag can pay for invention i
        self.afford[n] = False
        pay = matching @ UNIT[:3] + crystals * UNIT[CRYSTAL]
        self.pay = np.where(self.afford, pay, 0).astype(np.uint16)  # pay[i, bag]: the chips it takes (a bag)
        cum = np.cumsum(counts, axis=1)  # which chip is the index-th of a bag, in type order
        index = np.arange(MAX_CHIPS)
        self.kind_of = (index[None, :, None] >= cum[:, None, :]).sum(axis=2).astype(np.int8).ravel()

    @cached_property
    def combos(self) -> np.ndarray:
        """Every vector of "cards built from each stack", ``(C, stacks)``, in ``itertools.product`` order."""
        return np.array(list(itertools.product(range(self.depth + 1), repeat=self.stacks)), dtype=np.int64)


@lru_cache(maxsize=16)
def _tables(inventions: tuple[str, ...], stacks: int) -> Tables:
    return Tables(inventions, stacks)


VARIANTS: dict[str, dict[str, str]] = {
    "easy": {"easy": "true"},
    "expert": {"one_build_per_turn": "true"},
    "real-experts": {"one_build_per_turn": "true", "remove_singles": "true"},
    "forgetful": {"memory": "0.7"},
    "no-backpacks": {"backpack": "0"},
    "no-help": {"help": "false"},
    "no-swap": {"backpack_swap": "false"},
    **{f"cost-{name}": {"inventions": ",".join(costs)} for name, costs in COST_PRESETS.items() if name != "ours"},
}
"""Named variants: knob overrides a designer can ask for by name."""


@dataclass(slots=True)
class State:
    """The games still running, one row each; :func:`step` updates the arrays in place. Bags: see the module."""

    game: np.ndarray  # (B,) int64: index of the game in the output
    axe: np.ndarray  # (B,) uint16 bag: chips still in the hand axe
    caves: np.ndarray  # (B, V) uint16 bags: chips lying in each cave
    belief: np.ndarray  # (B, V) uint16 bags: of those, the chips the table remembers
    forgotten: np.ndarray  # (B, V) uint16 bags: chips the table cannot place, pulled since the cave was opened
    middle: np.ndarray  # (B,) uint16 bag: chips in the middle (not empty only after a winning build)
    backpack: np.ndarray  # (B, P) uint16 bags: chips on each seat's backpack, 0..capacity chips each
    pit: np.ndarray  # (B,) uint16 bag: chips dumped in the pit (spent on inventions or wasted)
    deck: np.ndarray  # (B, S, depth + 1) int8: invention ids of each stack from the top; dummy id n below
    taken: np.ndarray  # (B, S) int8: cards built from each stack, 0..stack length; the top is deck[taken]
    built: np.ndarray  # (B,) int8: inventions in the village, 0..goal
    turn: np.ndarray  # (B,) int16: turns played, 0..16; the seat to move is turn % P
    wasted: np.ndarray  # (B,) int16: chips dumped unused, 0..32
    crystals_used: np.ndarray  # (B,) int16: crystals spent on inventions, 0..15
    help_given: np.ndarray  # (B, P) int16: chips each seat gave to another seat's build, 0..32
    empty_caves: np.ndarray  # (B,) int8: empty caves opened, 0..16

    @classmethod
    def initial(cls, params: Params, players: int, n_games: int, source: core.Source | None, first: int = 0) -> State:
        """Games ``first`` to ``first + n_games - 1`` ready to play.

        The hand axe is full, caves and backpacks are empty, the inventions shuffled (if ``source``) and dealt.
        """
        tables = params.tables(players)
        n, stacks, depth = tables.n, tables.stacks, tables.depth
        games = np.arange(first, first + n_games, dtype=np.int64)
        order = np.tile(np.arange(n, dtype=np.int64), (n_games, 1))
        if source is not None and n > 1:  # Fisher-Yates: position i swaps with floor(u * (i + 1))
            u = source.uniform(games, n - 1)
            rows = np.arange(n_games)
            for col, i in enumerate(range(n - 1, 0, -1)):
                j = (u[:, col] * (i + 1)).astype(np.int64)
                a, b = order[rows, i].copy(), order[rows, j].copy()
                order[rows, i], order[rows, j] = b, a
        deck = np.full((n_games, stacks, depth + 1), tables.dummy, dtype=np.int8)
        for s in range(stacks):  # round-robin deal: shuffled card i goes to stack i % S, first dealt on top
            cards = order[:, s::stacks]
            deck[:, s, : cards.shape[1]] = cards
        v = params.caves
        return cls(
            game=games,
            axe=np.full(n_games, pack(np.array(params.chips)), dtype=np.uint16),
            caves=np.zeros((n_games, v), dtype=np.uint16),
            belief=np.zeros((n_games, v), dtype=np.uint16),
            forgotten=np.zeros((n_games, v), dtype=np.uint16),
            middle=np.zeros(n_games, dtype=np.uint16),
            backpack=np.zeros((n_games, players), dtype=np.uint16),
            pit=np.zeros(n_games, dtype=np.uint16),
            deck=deck,
            taken=np.zeros((n_games, stacks), dtype=np.int8),
            built=np.zeros(n_games, dtype=np.int8),
            turn=np.zeros(n_games, dtype=np.int16),
            wasted=np.zeros(n_games, dtype=np.int16),
            crystals_used=np.zeros(n_games, dtype=np.int16),
            help_given=np.zeros((n_games, players), dtype=np.int16),
            empty_caves=np.zeros(n_games, dtype=np.int8),
        )

    def keep_rows(self, keep: np.ndarray) -> State:
        """A new state holding only the rows in ``keep``, indices or a mask (finished games compacted out)."""
        rows = core.rows_of(keep)
        return State(*(getattr(self, name).take(rows, axis=0) for name in self.__slots__))  # take: faster than a mask


class Turn:
    """What the mover's policy may look at, for some rows of the batch (read-only for policies).

    Bags (int64): ``pool`` is the mover's own chips (the middle plus the mover's backpack), ``backpacks`` every
    seat's backpack ``(B, P)``, ``belief`` what the table remembers of each cave ``(B, V)``. :meth:`expected`
    is each cave's expected content from public information. The ``*_counts`` versions are ``(..., 4)`` counts.
    Policies must not read ``state.caves`` or the cards under the stack tops (:meth:`tops` after building).
    """

    def __init__(
        self, params: Params, tables: Tables, source: core.Source, state: State, mover: int, rows: np.ndarray | slice
    ) -> None:
        """A view of ``rows`` of ``state`` (a slice for all of them) for seat ``mover``."""
        self.params, self.tables, self.source, self.mover = params, tables, source, mover
        self.state, self.rows = state, rows
        self.capacity = params.backpack
        self.players = state.backpack.shape[1]
        self.games = state.game[rows]

    def __len__(self) -> int:
        return len(self.games)

    @cached_property
    def backpacks(self) -> np.ndarray:
        """Every seat's backpack (bags), ``(B, P)``."""
        return self.state.backpack[self.rows].astype(np.int64)

    @cached_property
    def own(self) -> np.ndarray:
        """The mover's backpack (bag)."""
        return self.backpacks[:, self.mover]

    @cached_property
    def helper_seats(self) -> list[int]:
        """The other seats, in turn order after the mover."""
        return [(self.mover + j) % self.players for j in range(1, self.players)]

    @cached_property
    def pool(self) -> np.ndarray:
        """The middle plus the mover's backpack (bag)."""
        return self.state.middle[self.rows] + self.own

    @cached_property
    def belief(self) -> np.ndarray:
        """Remembered chips per cave (bags), ``(B, V)``."""
        return self.state.belief[self.rows]

    @cached_property
    def axe_chips(self) -> np.ndarray:
        """Chips left in the hand axe (public: every pulled chip is seen)."""
        return self.tables.chips_in[self.state.axe[self.rows]].astype(np.int64)

    def expected(self) -> np.ndarray:
        """Expected chips by type in each cave, ``(B, V, 4)`` float: remembered plus forgotten ones placed.

        The chips lying in caves are known by type (pulled less collected); those not remembered are spread
        over the caves in proportion to each cave's weight share times the chips of that type pulled unplaced
        since the cave was last opened. Public information only.
        """
        st, rows = self.state, self.rows
        return kernels.expected_caves(
            st.axe[rows].astype(np.int64),
            st.pit[rows].astype(np.int64),
            st.middle[rows].astype(np.int64),
            self.backpacks,
            self.belief.astype(np.int64),
            st.forgotten[rows].astype(np.int64),
            np.array(self.params.chips, dtype=np.int64),
            self.params.cave_shares,
        )

    @cached_property
    def deck(self) -> np.ndarray:
        """Invention ids per stack from the top, ``(B, S, depth + 1)`` (only the tops may be read)."""
        return self.state.deck[self.rows]

    @cached_property
    def taken(self) -> np.ndarray:
        """Cards built from each stack so far, ``(B, S)`` int64."""
        return self.state.taken[self.rows].astype(np.int64)

    @cached_property
    def limit(self) -> np.ndarray:
        """Inventions the mover may still build this turn."""
        built = self.state.built[self.rows].astype(np.int64)
        return np.minimum(self.params.goal - built, self.params.build_limit())

    def counts(self, bags: np.ndarray) -> np.ndarray:
        """Chips by type of each bag: shape ``bags.shape + (4,)``, int64."""
        return wide_counts()[bags]

    def tops(self, taken: np.ndarray | None = None) -> np.ndarray:
        """Invention id on top of each stack (dummy when empty), ``(B, S)``, after ``taken`` cards (default now).

        A policy may ask past today's tops only for cards it has already decided to build (a reveal).
        """
        taken = self.taken if taken is None else taken
        return np.take_along_axis(self.deck, taken[:, :, None], axis=2)[:, :, 0].astype(np.int64)

    def demand(self) -> np.ndarray:
        """Chips per resource that the stack tops ask for in all, as a spread bag (one byte per type)."""
        return self.tables.cost_spread[self.tops()].sum(axis=1)


@lru_cache(maxsize=8)
def forget_cdf(fade: float) -> np.ndarray:
    """``cdf[n, x]``: chance that at most ``x`` of ``n`` remembered chips are forgotten, ``(16, 16)`` (1 past n)."""
    out = np.ones((16, 16))
    for n in range(16):
        total = 0.0
        for x in range(n):
            total += math.comb(n, x) * fade**x * (1 - fade) ** (n - x)
            out[n, x] = total
    return out


def forget_count(cdf: np.ndarray, n: np.ndarray, u: np.ndarray) -> np.ndarray:
    """How many of ``n`` remembered chips are forgotten for uniform ``u``: the binomial quantile."""
    return (cdf[n] <= u[..., None]).sum(axis=-1)


def fade_memory(params: Params, state: State, source: core.Source) -> None:
    """With ``fade`` > 0, the table forgets the cave of each remembered chip with that chance (in place)."""
    if params.fade <= 0:
        return
    v = params.caves
    u = source.uniform(state.game, v * 4).reshape(-1, v, 4)
    remembered = bag_tables()[0][state.belief].astype(np.int64)
    lost = forget_count(forget_cdf(params.fade), remembered, u)  # (B, V, 4)
    state.belief -= pack(lost).astype(np.uint16)
    state.forgotten += pack(lost.sum(axis=1)).astype(np.uint16)[:, None]


def draw_chips(params: Params, tables: Tables, state: State, source: core.Source) -> None:
    """Pull up to ``pulls`` chips from the hand axe; each falls into a cave and may be remembered (in place)."""
    thresholds = np.array(params.cave_thresholds)
    n_caves = params.caves
    caves, belief = state.caves.reshape(-1), state.belief.reshape(-1)
    for chip in range(params.pulls):
        live = np.arange(len(state.game)) if chip == 0 else np.flatnonzero(state.axe)
        if not len(live):
            return
        u = source.uniform(state.game[live], 3)
        axe = state.axe[live].astype(np.int64)
        index = (u[:, 0] * tables.chips_in[axe]).astype(np.int64)
        unit = UNIT[tables.kind_of[axe * MAX_CHIPS + index]]
        state.axe[live] = axe - unit
        where = live * n_caves + np.searchsorted(thresholds, u[:, 1], side="right")
        caves[where] += unit.astype(np.uint16)
        seen = u[:, 2] < params.memory
        belief[where[seen]] += unit[seen].astype(np.uint16)
        state.forgotten[live[~seen]] += unit[~seen, None].astype(np.uint16)


def open_cave(state: State, cave: np.ndarray) -> None:
    """Empty the chosen cave of every game into the middle (in place)."""
    where = np.arange(len(cave)) * state.caves.shape[1] + cave
    caves, belief, forgotten = state.caves.reshape(-1), state.belief.reshape(-1), state.forgotten.reshape(-1)
    state.middle[:] = caves[where]
    caves[where] = 0
    belief[where] = 0
    forgotten[where] = 0
    state.empty_caves += state.middle == 0


def check_payment(
    params: Params, tables: Tables, need: np.ndarray, takes: np.ndarray, holders: np.ndarray, mover: int
) -> None:
    """Raise ``ValueError`` unless ``takes`` (bags per holder: middle, then each seat) pays ``need`` by the rules.

    ``need`` is the chips per resource of the cards built ``(B, 3)``; a payment gives no more of a resource than
    needed, crystals for the rest, and no more chips in all; each holder gives only chips it has, and another
    seat gives at most ``help_chips`` chips (none without ``help``).
    """
    counts, chips_in, spread = bag_tables()
    if np.any(bag_min(spread[takes], spread[holders]) != spread[takes]):
        raise ValueError("a policy paid with chips a holder does not have")
    others = np.delete(takes[:, 1:], mover, axis=1)
    if others.size and np.any(chips_in[others] > (params.help_chips if params.help else 0)):
        raise ValueError("a policy took more help than the rules allow")
    # each take lies within its holder (checked above) and the holders' chips are disjoint parts of the game's,
    # at most 15 of a type: the takes' bags add without carries
    paid = takes.sum(axis=1)
    if np.any(counts[paid][:, :3] > need) or np.any(chips_in[paid] != need.sum(axis=1)):
        raise ValueError("a policy's payment does not match the cost of its builds")


def cards_cost(tables: Tables, deck: np.ndarray, taken: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Chips per resource of the ``k[i, s]`` cards under the first ``taken[i, s]`` of each stack, ``(B, 3)``.

    A compiled loop over the cards built (a turn builds few), not over the whole deck.
    """
    return kernels.cards_cost(deck, taken, k, tables.cost_spread)


def pay_builds(
    params: Params,
    tables: Tables,
    state: State,
    rows: np.ndarray,
    k: np.ndarray,
    takes: np.ndarray,
    mover: int,
    limit: np.ndarray,
) -> None:
    """Build ``k[i, s]`` cards from stack ``s`` in game ``rows[i]``, paid with ``takes[i]`` (in place).

    ``takes`` holds, per row, the bag taken from the middle and then from each seat's backpack (seat order).

    Raises:
        ValueError: if a policy asked for more cards than a stack holds or the turn allows, or paid wrongly.
    """
    taken = state.taken[rows].astype(np.int64)
    if np.any(taken + k > tables.stack_len) or np.any(k.sum(axis=1) > limit):
        raise ValueError("a policy built more inventions than the stacks hold or the turn allows")
    need = cards_cost(tables, state.deck[rows], taken, k)
    holders = np.concatenate([state.middle[rows, None], state.backpack[rows]], axis=1).astype(np.int64)
    takes = np.asarray(takes, dtype=np.int64)
    check_payment(params, tables, need, takes, holders, mover)
    chips_in = bag_tables()[1]
    state.middle[rows] = holders[:, 0] - takes[:, 0]
    state.backpack[rows] = holders[:, 1:] - takes[:, 1:]
    given = chips_in[takes[:, 1:]].astype(np.int16)
    given[:, mover] = 0
    state.help_given[rows] += given
    paid = takes.sum(axis=1)
    state.pit[rows] += paid.astype(np.uint16)
    state.crystals_used[rows] += (paid >> 12).astype(np.int16)
    state.taken[rows] += k.astype(np.int8)
    state.built[rows] += k.sum(axis=1).astype(np.int8)


def store_chips(params: Params, state: State, rows: np.ndarray | slice, keep: np.ndarray, mover: int) -> None:
    """The mover keeps bag ``keep`` out of middle plus backpack; the rest go to the pit (in place).

    Raises:
        ValueError: if a policy kept chips it does not have, more than the backpack holds, or (without
            ``backpack_swap``) dumped a chip that was on its backpack.
    """
    own = state.backpack[rows, mover].astype(np.int64)
    pool = state.middle[rows] + own
    _, chips_in, spread = bag_tables()
    if np.any(bag_min(spread[keep], spread[pool]) != spread[keep]) or np.any(chips_in[keep] > params.backpack):
        raise ValueError("a policy kept chips it does not have or more than its backpack holds")
    if not params.backpack_swap and np.any(bag_min(spread[keep], spread[own]) != spread[own]):
        raise ValueError("a policy dumped a backpack chip to store another, which backpack_swap=false forbids")
    waste = pool - keep
    state.backpack[rows, mover] = keep
    state.pit[rows] += waste.astype(np.uint16)
    state.wasted[rows] += chips_in[waste]
    state.middle[rows] = 0


def begin_turn(params: Params, tables: Tables, state: State, source: core.Source) -> None:
    """The turn's chance before any decision: memory fades, then chips are pulled and roll into caves."""
    fade_memory(params, state, source)
    draw_chips(params, tables, state, source)


def finish_turn(params: Params, tables: Tables, impl: object, state: State, source: core.Source) -> None:
    """After the cave is open: the mover's builds and payment, then storing (unless the table has won)."""
    mover = int(state.turn[0]) % state.backpack.shape[1]
    everyone = slice(None)
    turn = Turn(params, tables, source, state, mover, everyone)
    k = impl.builds(turn)
    building = np.flatnonzero(k.any(axis=1))
    if len(building):
        takes = impl.pay(Turn(params, tables, source, state, mover, building), k[building])
        pay_builds(params, tables, state, building, k[building], takes, mover, turn.limit[building])
    going_on = np.flatnonzero(state.built < params.goal)
    if len(going_on):
        if len(going_on) == len(state.game):
            going_on = everyone
        turn = Turn(params, tables, source, state, mover, going_on)
        store_chips(params, state, going_on, impl.store(turn, turn.pool), mover)
    state.turn += 1


def step(
    params: Params, tables: Tables, players: int, impls: Sequence[object], state: State, source: core.Source
) -> None:
    """Play one turn in every game of ``state`` (in place); every game starts it with chips in the hand axe."""
    mover = int(state.turn[0]) % players
    impl = impls[mover]
    begin_turn(params, tables, state, source)
    open_cave(state, impl.cave(Turn(params, tables, source, state, mover, slice(None))))
    finish_turn(params, tables, impl, state, source)


def play_on(
    params: Params, impls: Sequence[object], state: State, source: core.Source, out: State, mid_turn: bool = False
) -> None:
    """Play the games of ``state`` to their end, writing each finished game into ``out`` at its ``game`` index.

    With ``mid_turn`` the games stand after the cave was opened: the mover's turn is finished first.
    """
    players = len(impls)
    tables = params.tables(players)
    if mid_turn and len(state.game):
        finish_turn(params, tables, impls[int(state.turn[0]) % players], state, source)
        state = _drop_won(params, state, out)
    while len(state.game):
        lost = state.axe == 0
        if lost.any():
            _finish(out, state, lost)
            state = state.keep_rows(~lost)
            if not len(state.game):
                break
        step(params, tables, players, impls, state, source)
        state = _drop_won(params, state, out)


def _drop_won(params: Params, state: State, out: State) -> State:
    won = state.built >= params.goal
    if won.any():
        _finish(out, state, won)
        return state.keep_rows(~won)
    return state


def play_with(
    params: Params,
    impls: Sequence[object],
    n_games: int,
    rng: np.random.Generator | core.Source,
    components: bool = False,
) -> Outcome:
    """Play ``n_games`` complete games in lock-step; seat ``i`` follows the policy implementation ``impls[i]``.

    Returns per-game columns (see :func:`outcome`).
    """
    players = len(impls)
    core.check_players(INFO, players)
    source = core.as_source(rng)
    out = State.initial(params, players, n_games, None)  # finished games are written here by game index
    for first in range(0, n_games, CHUNK):  # blocks of games that fit the caches; each game is independent
        state = State.initial(params, players, min(CHUNK, n_games - first), source, first)
        play_on(params, impls, state, source, out)
    return outcome(params, out, components)


def outcome(params: Params, out: State, components: bool = False) -> Outcome:
    """Per-game columns of finished games.

    ``score`` (inventions built, the same for every seat), ``winner`` (-1 the table won, -2 it lost), ``winners``,
    ``turns`` and the metrics in :data:`METRICS`. With ``components`` the
    final ``axe``, ``caves``, ``middle``, ``backpack`` and ``pit`` (chip counts by type), ``deck`` and ``taken``
    are added (for tests).
    """
    players = out.backpack.shape[1]
    won = out.built >= params.goal
    result = {
        "score": np.repeat(out.built.astype(np.int32)[:, None], players, axis=1),
        "winner": np.where(won, -1, -2).astype(np.int8),
        "winners": np.repeat(won[:, None], players, axis=1),
        "turns": out.turn.astype(np.int32),
        "won": won,
        "inventions": out.built.astype(np.int16),
        "wasted": out.wasted,
        "crystals_used": out.crystals_used,
        "help_given": out.help_given,
        "empty_caves": out.empty_caves,
    }
    if components:
        counts = bag_tables()[0]
        result.update(
            axe=counts[out.axe],
            caves=counts[out.caves],
            middle=counts[out.middle],
            backpack=counts[out.backpack],
            pit=counts[out.pit],
            deck=out.deck,
            taken=out.taken,
        )
    return result


def _finish(out: State, state: State, done: np.ndarray) -> None:
    ended = np.flatnonzero(done)
    for name in State.__slots__:
        getattr(out, name)[state.game[ended]] = getattr(state, name).take(ended, axis=0)
