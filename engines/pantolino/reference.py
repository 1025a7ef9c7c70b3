"""Pantolino, one game at a time in plain Python: the readable statement of the rules and policies.

It reads chance events from a :class:`~engines.core.GameStream` in the order the batched engine consumes them
when it rolls every die (``play(..., exact=False)``): per roll, one face per rerolled die; the ``random`` policy
reads one coin per die before each reroll and, when some token fits, one number to pick it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from boardlab.engines.core import GameStream
from boardlab.engines.pantolino.rules import INFO, Params, tie_possible

SUPPLY, REMOVED = "supply", "removed"


@dataclass
class Token:
    """A boot token: its colour, its value, and where it is."""

    colour: int
    value: int
    owner: int | str = SUPPLY  # SUPPLY, REMOVED, or the seat whose centipede holds it
    taken_at: int = -1  # turn it joined a centipede

    @property
    def preference(self) -> tuple[int, int]:
        """Order among tokens: higher value is better; among equal values the lower colour is better."""
        return (self.value, -self.colour)


COLOUR_NAMES = ("yellow", "red", "green", "blue", "black", "white", "orange", "purple")


def die_name(params: Params, category: int) -> str:
    """A die face for people: its colour, or 'joker'."""
    return "joker" if category == params.colours else COLOUR_NAMES[category]


def play_one(params: Params, seat_policies: list[str], stream: GameStream, trace: list[str] | None = None) -> dict:
    """Play one game; returns the same columns as the batched ``play`` (as scalars and lists).

    With ``trace``, a readable line per roll and per token taken is appended to it (the golden traces).
    """
    players = len(seat_policies)
    tokens = [Token(c, v) for c in range(params.colours) for v in params.token_values]
    tokens.sort(key=lambda t: t.preference)
    taken = [0] * players
    steals_made, steals_suffered = [0] * players, [0] * players
    best_count = [0] * (params.dice + 1)
    removed, turn, half_score = 0, 0, None
    round_boots = [boots_of(params, tokens, players)]  # boots at the end of each round (round 0: the start)
    leader, lead_changes = None, 0

    while any(t.owner == SUPPLY for t in tokens) and turn < INFO.turn_cap:
        mover = turn % players
        policy = seat_policies[mover]
        claimable = [t for t in tokens if t.owner == SUPPLY or is_stealable(params, tokens, t, mover)]

        dice: list[int] = []  # categories: colours 0..C-1, joker C
        for roll in range(params.rolls):
            kept = [] if roll == 0 else keep(params, policy, dice, params.rolls - roll, claimable, stream)
            rolled = [
                category(params, stream.integer(params.colours + params.joker_faces))
                for _ in range(params.dice - len(kept))
            ]
            dice = sorted(kept + rolled)
            if trace is not None:
                kept_text = f"keeps {' '.join(die_name(params, d) for d in kept) or 'nothing'}, " if roll else ""
                trace.append(
                    f"turn {turn + 1} seat {mover} ({policy}) roll {roll + 1}: {kept_text}"
                    f"throws {' '.join(die_name(params, d) for d in dice)}"
                )

        counts = colour_counts(params, dice)
        best_count[max(counts)] += 1
        token = choose(params, policy, counts, tokens, mover, claimable, players, stream)
        if token is None:
            action = "takes nothing"
        else:
            origin = "the supply" if token.owner == SUPPLY else f"seat {token.owner}"
            action = f"takes {COLOUR_NAMES[token.colour]} {token.value} from {origin}"
        if token is not None:
            if token.owner == SUPPLY:
                taken[mover] += 1
            else:
                steals_made[mover] += 1
                steals_suffered[token.owner] += 1
            token.owner, token.taken_at = mover, turn
        elif params.no_token_rule == "remove-smallest":
            in_supply = [t for t in tokens if t.owner == SUPPLY]
            if in_supply:  # a smallest token; among equal values the last colour
                smallest = min(in_supply, key=lambda t: t.preference)
                smallest.owner = REMOVED
                removed += 1
                action += f", removes {COLOUR_NAMES[smallest.colour]} {smallest.value}"
        in_supply = sum(t.owner == SUPPLY for t in tokens)
        if trace is not None:
            trace.append(
                f"turn {turn + 1} seat {mover}: {action}; "
                f"boots {boots_of(params, tokens, players)}, {in_supply} tokens in the supply"
            )
        if half_score is None and 2 * in_supply <= len(tokens):
            half_score = boots_of(params, tokens, players)
        turn += 1
        over = not any(t.owner == SUPPLY for t in tokens) or turn >= INFO.turn_cap
        if turn % players == 0 or over:  # a round ends (the last one may be cut short)
            now = boots_of(params, tokens, players)
            round_boots.append(now)
            sole = [p for p in range(players) if now[p] == max(now)]
            if len(sole) == 1:
                lead_changes += leader is not None and sole[0] != leader
                leader = sole[0]

    boots = boots_of(params, tokens, players)
    colour_best = [
        max(sum(t.value for t in tokens if t.owner == p and t.colour == c) for c in range(params.colours))
        for p in range(players)
    ]
    top = max(boots)
    tied = [p for p in range(players) if boots[p] == top]
    top_colour = max(colour_best[p] for p in tied)
    winners = [p for p in tied if colour_best[p] == top_colour]
    return {
        "score": boots,
        "winner": winners[0] if len(winners) == 1 else -1,
        "winners": [p in winners for p in range(players)],
        "turns": turn,
        "taken": taken,
        "steals_made": steals_made,
        "steals_suffered": steals_suffered,
        "removed": removed,
        "capped": turn >= INFO.turn_cap,
        "turn_best_count": best_count,
        "comeback": len(winners) == 1 and half_score is not None and half_score[winners[0]] < max(half_score),
        "mid_score": round_boots[(len(round_boots) - 1) // 2],
        "lead_changes": lead_changes,
    }


def category(params: Params, face: int) -> int:
    """Die face -> colour, or the joker category ``colours`` for the joker faces."""
    return face if face < params.colours else params.colours


def colour_counts(params: Params, dice: list[int]) -> list[int]:
    """Per colour, dice showing it plus jokers."""
    jokers = dice.count(params.colours)
    return [dice.count(c) + jokers for c in range(params.colours)]


def boots_of(params: Params, tokens: list[Token], players: int) -> list[int]:
    """Each seat's boots: its head start (seat ``p`` starts with ``p * head_start``) and its centipede's tokens."""
    return [p * params.head_start + sum(t.value for t in tokens if t.owner == p) for p in range(players)]


def is_stealable(params: Params, tokens: list[Token], token: Token, mover: int) -> bool:
    """With escaping boots: an opponent's token, and under ``tail`` only the one they added last."""
    if not params.escaping_boots or token.owner in (SUPPLY, REMOVED) or token.owner == mover:
        return False
    if params.steal_from == "any":
        return True
    return token.taken_at == max(t.taken_at for t in tokens if t.owner == token.owner)


# --- choosing the token ---------------------------------------------------------------------------------


def choose(
    params: Params,
    policy: str,
    counts: list[int],
    tokens: list[Token],
    mover: int,
    claimable: list[Token],
    players: int,
    stream: GameStream,
) -> Token | None:
    """The token the mover takes after the last roll, or None."""
    fitting = [t for t in claimable if t.value <= counts[t.colour]]
    if policy == "random":
        if not fitting:
            return None
        fitting.sort(key=lambda t: t.preference)  # smallest value first, colours from last to first
        return fitting[stream.integer(len(fitting))]
    boots = boots_of(params, tokens, players)
    colour_boots = [sum(t.value for t in tokens if t.owner == mover and t.colour == c) for c in range(params.colours)]
    colour_counts_in_a_tie = tie_possible(params, players)

    def lead_after(token: Token) -> int:
        after = list(boots)
        after[mover] += token.value
        if token.owner != SUPPLY:
            after[token.owner] -= token.value
        return after[mover] - max(after[p] for p in range(players) if p != mover)

    def rank(token: Token) -> tuple[int, ...]:
        stolen = token.owner != SUPPLY
        return (
            lead_after(token),
            token.value,
            not stolen,
            boots[token.owner] if stolen else 0,
            -((token.owner - mover) % players) if stolen else 0,
            colour_boots[token.colour] if colour_counts_in_a_tie else 0,
            -token.colour,
        )

    return max(fitting, key=rank, default=None)


# --- keeping dice ---------------------------------------------------------------------------------------


def keep(
    params: Params, policy: str, dice: list[int], rolls_left: int, claimable: list[Token], stream: GameStream
) -> list[int]:
    """The dice the mover keeps before the next roll (the rest are rerolled)."""
    if policy == "random":
        return [d for d in dice if stream.integer(2) == 1]
    if policy in ("keep-jokers", "reroll-jokers"):
        potential = [max((t.value for t in claimable if t.colour == c), default=0) for c in range(params.colours)]
        live = [c for c in range(params.colours) if potential[c] > 0]
        if live:
            target = max(live, key=lambda c: (dice.count(c), potential[c], -c))
            kept = [d for d in dice if d == target]
        else:
            kept = []
        if policy == "keep-jokers":
            kept += [d for d in dice if d == params.colours]
        return sorted(kept)
    if policy not in ("greedy", "turn-optimal"):
        raise ValueError(f"the reference engine does not play policy {policy!r}")
    available = frozenset((t.colour, t.value) for t in claimable)
    horizon = 1 if policy == "greedy" else rolls_left
    return list(best_keep(params, available, tuple(dice), horizon))


def code(params: Params, dice: tuple[int, ...]) -> int:
    """The multiset code of the batched engine: sum over dice of ``(dice + 1) ** category``."""
    return sum((params.dice + 1) ** d for d in dice)


def best_keep(params: Params, available: frozenset, dice: tuple[int, ...], rolls_left: int) -> tuple[int, ...]:
    """The keep maximising the expected value of the token taken, with ``rolls_left`` rolls to come.

    Expected values are exact fractions; ties go to the keep with more dice, then the smaller multiset code.
    """
    options = sorted(set(sub_multisets(dice)), key=lambda k: (-len(k), code(params, k)))
    values = [expected_after_keep(params, available, k, rolls_left) for k in options]
    return options[values.index(max(values))]


def sub_multisets(dice: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every multiset of dice that can be kept from ``dice``."""
    return [k for size in range(len(dice) + 1) for k in itertools.combinations(dice, size)]


@cache
def expected_after_keep(params: Params, available: frozenset, kept: tuple[int, ...], rolls_left: int) -> Fraction:
    """Expected token value after keeping ``kept``, rolling the rest, then playing on optimally."""
    total = Fraction(0)
    for rolled, probability in roll_outcomes(params, params.dice - len(kept)):
        dice = tuple(sorted(kept + rolled))
        total += probability * value_of(params, available, dice, rolls_left - 1)
    return total


@cache
def value_of(params: Params, available: frozenset, dice: tuple[int, ...], rolls_left: int) -> Fraction:
    """Value of holding ``dice`` with ``rolls_left`` rolls to come, under optimal keeps."""
    if rolls_left == 0:
        counts = colour_counts(params, list(dice))
        return Fraction(max((v for c, v in available if v <= counts[c]), default=0))
    return max(expected_after_keep(params, available, k, rolls_left) for k in set(sub_multisets(dice)))


@cache
def roll_outcomes(params: Params, n: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every multiset of categories ``n`` dice can show, with its probability."""
    faces = params.colours + params.joker_faces
    p = [Fraction(1, faces)] * params.colours + [Fraction(params.joker_faces, faces)]
    out = []
    for rolled in itertools.combinations_with_replacement(range(params.colours + 1), n):
        if params.joker_faces == 0 and params.colours in rolled:
            continue
        ways = math.factorial(n)
        for c in set(rolled):
            ways //= math.factorial(rolled.count(c))
        out.append((rolled, ways * math.prod((p[c] for c in rolled), start=Fraction(1))))
    return out
