"""Cargolino Valentino, one game at a time in plain Python: the readable statement of the rules.

Reads chance events from a :class:`~engines.core.GameStream` in the batched engine's order: at the start of
each race 6 uniforms (the token deal: snails sorted by their uniform, the first two or one go to seat 0, the
next to seat 1, ...); each turn ``dice`` integers (the faces); then, per die decision, whatever the mover's
policy draws (``random``: one integer when a legal pair exists; ``detective``/``oracle``: one integer when
an own snail can move cheaply).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from engines.cargolino.beliefs import OTHER_WEIGHT, OWN_WEIGHT, all_deals, snails_each
from engines.cargolino.policies import HIDE_ODDS, QUANT
from engines.cargolino.rules import COLOURS, INFO, Params
from engines.core import GameStream, rank_winners

SNAILS = range(len(COLOURS))


class Board:
    """The track: space colours and shells, and which dice may move which snail."""

    def __init__(self, params: Params) -> None:
        """Read the track and shell values from ``params``."""
        self.colour = [None, *(COLOURS.index(c) for c in params.track), None]  # None: start and finish
        self.finish = len(params.track) + 1
        self.value = list(params.shell_values)
        self.faces = [COLOURS.index(c) for c in params.faces]

    def can_move(self, pos: list[int], snail: int, die: int) -> bool:
        """A die moves a snail of its colour, or one standing on its colour, or one on the start stone."""
        p = pos[snail]
        if p == self.finish:
            return False
        return p == 0 or snail == die or self.colour[p] == die

    def loss(self, p: int) -> int:
        """Shells lost by moving a snail one space from ``p`` (0 on the finish, where it cannot move)."""
        if p == self.finish:
            return 0
        return self.value[p] - self.value[p + 1]

    def own_key(self, p: int) -> int:
        """Preference among one's own snails when forced: least shells lost, then farthest ahead."""
        return (15 - min(max(self.loss(p), 0), 15)) * 128 + p


class Game:
    """One game's public and hidden facts during a race."""

    def __init__(self, board: Board, players: int) -> None:
        """Start with no shells."""
        self.board, self.players = board, players
        self.pos = [0] * 6
        self.owner = [-1] * 6
        self.banked = [0] * players

    def own(self, seat: int) -> set[int]:
        """The snails ``seat`` holds this race."""
        return {s for s in SNAILS if self.owner[s] == seat}


def lowest_colour(board: Board, game: Game, snail: int, dice: list[int]) -> int:
    """The lowest die colour that can move ``snail``."""
    return min(c for c in set(dice) if board.can_move(game.pos, snail, c))


def best_snail(options: list[tuple[int, int]], key: dict[int, int]) -> int:
    """The movable snail with the highest key; ties to the lowest index."""
    movable = sorted({s for _, s in options})
    return max(movable, key=lambda s: (key[s], -s))


class Belief:
    """A seat's probabilities over the deals that agree with the tokens it holds."""

    def __init__(self, seat: int, game: Game) -> None:
        """Uniform over the deals giving ``seat`` exactly its own snails."""
        own = game.own(seat)
        self.seat = seat
        self.deals = [d for d in all_deals(game.players) if {s for s in SNAILS if d[s] == seat} == own]
        self.prob = [1.0 / len(self.deals)] * len(self.deals)

    def observe(self, mover: int, snail: int, legal: set[int]) -> None:
        """Bayes: the mover picks among the legal snails, its own ones 1/4 as often as the others."""
        for j, deal in enumerate(self.deals):
            weight = OWN_WEIGHT if deal[snail] == mover else OTHER_WEIGHT
            owned = sum(1 for x in legal if deal[x] == mover)
            total = OTHER_WEIGHT * len(legal) - (OTHER_WEIGHT - OWN_WEIGHT) * owned
            self.prob[j] = self.prob[j] * (weight / total)
        norm = sum(self.prob)
        self.prob = [p / norm for p in self.prob]

    def probability(self, test: Callable[[tuple[int, ...]], bool]) -> float:
        """Total probability of the deals passing ``test``."""
        return sum(p for p, d in zip(self.prob, self.deals, strict=True) if test(d))

    def accuracy(self, game: Game) -> float:
        """Mean probability given to the true owner of each snail the seat does not hold."""
        others = [s for s in SNAILS if game.owner[s] != self.seat]
        return sum(self.probability(lambda d, s=s: d[s] == game.owner[s]) for s in others) / len(others)


def choose_random(game: Game, options: list[tuple[int, int]], stream: GameStream) -> tuple[int, int]:
    """Uniform among the legal (colour, snail) pairs, numbered snail by snail, colours ascending."""
    ordered = sorted(options, key=lambda cs: (cs[1], cs[0]))
    return ordered[stream.integer(len(ordered))]


def choose_selfish(game: Game, mover: int, options: list[tuple[int, int]], dice: list[int]) -> tuple[int, int]:
    """Farthest snail that is not mine; my own only when forced."""
    own = game.own(mover)
    key = {s: game.board.own_key(game.pos[s]) if s in own else 4096 + game.pos[s] for s in SNAILS}
    snail = best_snail(options, key)
    return lowest_colour(game.board, game, snail, dice), snail


def choose_blocker(game: Game, mover: int, options: list[tuple[int, int]], dice: list[int]) -> tuple[int, int]:
    """Others first: by the colours that can move them after landing, then a die left to push again, then position.

    Own snails as when forced; the die is the lowest colour that leaves a push again, else the lowest legal.
    """
    board, pos, own = game.board, game.pos, game.own(mover)

    def landing(s: int) -> set[int]:
        if pos[s] == board.finish:
            return set()
        after = pos[:]
        after[s] += 1
        return {c for c in SNAILS if board.can_move(after, s, c)}

    def chain_colours(s: int) -> list[int]:
        out = []
        for c in sorted(set(dice)):
            left = dice[:]
            left.remove(c)
            if board.can_move(pos, s, c) and landing(s) & set(left):
                out.append(c)
        return out

    key = {}
    for s in SNAILS:
        if s in own:
            key[s] = board.own_key(pos[s])
        else:
            key[s] = 4096 + len(landing(s)) * 256 + (128 if chain_colours(s) else 0) + pos[s]
    snail = best_snail(options, key)
    chained = chain_colours(snail)
    colour = min(chained) if chained else lowest_colour(board, game, snail, dice)
    return colour, snail


def turn_bases(game: Game, mover: int, belief: Belief | None) -> dict[int, int]:
    """Detective's per-turn key of each snail: P(leader holds it), then P(an opponent holds it), rounded."""
    board, players = game.board, game.players
    if belief is None:  # oracle: the truth is a belief with one deal
        deals, probs = [tuple(game.owner)], [1.0]
    else:
        deals, probs = belief.deals, belief.prob
    expected = []
    for p in range(players):
        e = sum(
            pr * sum(board.value[game.pos[s]] for s in SNAILS if d[s] == p) for pr, d in zip(probs, deals, strict=True)
        )
        expected.append(round((game.banked[p] + e) * QUANT))
    opponents = [p for p in range(players) if p != mover]
    leader = max(opponents, key=lambda p: expected[p] * 8 + players - (p - mover) % players)
    base = {}
    for s in SNAILS:
        p_leader = sum(pr for pr, d in zip(probs, deals, strict=True) if d[s] == leader)
        p_any = sum(pr for pr, d in zip(probs, deals, strict=True) if d[s] not in (-1, mover))
        base[s] = round(p_leader * QUANT) * (1 << 28) + round(p_any * QUANT) * 128
    return base


def choose_detective(
    game: Game, mover: int, options: list[tuple[int, int]], dice: list[int], base: dict[int, int], stream: GameStream
) -> tuple[int, int]:
    """Push the leader's likely snails; with a cheap own move, hide with chance 1/HIDE_ODDS."""
    board, pos, own = game.board, game.pos, game.own(mover)
    movable = {s for _, s in options}
    cheap = [s for s in own if s in movable and pos[s] + 1 < board.finish and board.loss(pos[s]) <= 0]
    if cheap and stream.integer(HIDE_ODDS) == 0:
        snail = max(cheap, key=lambda s: (pos[s], -s))
    else:
        key = {s: board.own_key(pos[s]) if s in own else (1 << 50) + base[s] + pos[s] for s in SNAILS}
        snail = best_snail(options, key)
    return lowest_colour(board, game, snail, dice), snail


def play_one(params: Params, seat_policies: Sequence[str], stream: GameStream) -> dict:
    """Play one game; returns the same columns as ``rules.play`` for one game (scalars and lists)."""
    board = Board(params)
    players = len(seat_policies)
    each = snails_each(players)
    game = Game(board, players)
    race_turns = [0, 0]
    race1_shells = [0] * players
    accuracy = {seat: 0.0 for seat in range(players) if seat_policies[seat] == "detective"}
    turns, starter, races_done = 0, 0, 0
    for race in range(params.races):
        # deal the tokens: sort the snails by a uniform each; ranks 0..each-1 to seat 0, and so on
        u = [stream.uniform() for _ in SNAILS]
        order = sorted(SNAILS, key=lambda s: u[s])
        game.owner = [-1] * 6
        for rank, s in enumerate(order[: players * each]):
            game.owner[s] = rank // each
        game.pos = [0] * 6
        beliefs = {seat: Belief(seat, game) for seat in accuracy}
        race_turn = 0
        while True:
            mover = (starter + race_turn) % players
            policy = seat_policies[mover]
            dice = [board.faces[stream.integer(len(board.faces))] for _ in range(params.dice)]
            base = None
            while dice:
                options = [(c, s) for s in SNAILS for c in sorted(set(dice)) if board.can_move(game.pos, s, c)]
                if not options:
                    break  # the remaining dice are ignored
                if policy == "random":
                    colour, snail = choose_random(game, options, stream)
                elif policy == "selfish":
                    colour, snail = choose_selfish(game, mover, options, dice)
                elif policy == "blocker":
                    colour, snail = choose_blocker(game, mover, options, dice)
                else:
                    if base is None:
                        base = turn_bases(game, mover, beliefs.get(mover) if policy == "detective" else None)
                    colour, snail = choose_detective(game, mover, options, dice, base, stream)
                legal = {s for _, s in options}
                for seat, belief in beliefs.items():
                    if seat != mover:
                        belief.observe(mover, snail, legal)
                dice.remove(colour)
                game.pos[snail] += 1
            race_turn += 1
            turns += 1
            if board.finish in game.pos or turns >= INFO.turn_cap:
                break
        shells = [sum(board.value[game.pos[s]] for s in SNAILS if game.owner[s] == p) for p in range(players)]
        game.banked = [b + s for b, s in zip(game.banked, shells, strict=True)]
        if race == 0:
            race1_shells = shells
        race_turns[race] = race_turn
        for seat, belief in beliefs.items():
            accuracy[seat] += belief.accuracy(game)
        races_done += 1
        starter = mover if params.next_starter == "last-mover" else (mover + 1) % players
        if turns >= INFO.turn_cap:
            break

    delayed = [
        min((game.pos[s] for s in SNAILS if game.owner[s] == p), default=board.finish + 1) for p in range(players)
    ]
    winner, winners = rank_winners(np.array([game.banked]), -np.array([delayed]))  # the batched tie rule
    out = {
        "score": game.banked,
        "winner": int(winner[0]),
        "winners": winners[0].tolist(),
        "turns": turns,
        "race1_turns": race_turns[0],
        "race2_turns": race_turns[1],
        **{f"final_{c}": game.pos[s] for s, c in enumerate(COLOURS)},
        "race1_shells": race1_shells,
        "delayed": delayed,
        "belief_accuracy": [accuracy[p] / races_done if p in accuracy else float("nan") for p in range(players)],
        "capped": turns >= INFO.turn_cap,
    }
    return out
