"""Cargolino Valentino, one game at a time in plain Python: the readable statement of the rules.

Reads chance events from a :class:`~engines.core.GameStream` in the batched engine's order: at the start of
each race 6 uniforms (the token deal: snails sorted by their uniform, the first two or one go to seat 0, the
next to seat 1, ...); each turn ``dice`` integers (the faces); then, per die decision, whatever the mover's
policy draws (``random``: one integer when a legal pair exists; ``selfish`` and the pushers: one integer at
the turn's first die, the turn's snail order; a pusher that may hide: one uniform when an own snail can move
without losing a shell).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from boardlab.engines.cargolino.beliefs import all_deals
from boardlab.engines.cargolino.policies import BEHIND, OTHERS, PERMUTATIONS, POLICIES, QUANT, TOP, Settings
from boardlab.engines.cargolino.rules import COLOURS, INFO, N_SNAILS, Params
from boardlab.engines.core import GameStream, rank_winners, resolve_policies

SNAILS = range(len(COLOURS))
PUSHERS = ("hindmost", "detective", "oracle")


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

    def __init__(self, seat: int, game: Game, each: int, weights: tuple[float, float], open_deal: bool) -> None:
        """Uniform over the deals giving ``seat`` exactly its own snails (certain of the truth when it is open)."""
        own = game.own(seat)
        self.seat, self.weights = seat, weights
        self.deals = [d for d in all_deals(game.players, each) if {s for s in SNAILS if d[s] == seat} == own]
        self.prob = [1.0 / len(self.deals)] * len(self.deals)
        if open_deal:
            self.prob = [float(d == tuple(game.owner)) for d in self.deals]

    def observe(self, mover: int, snail: int, legal: set[int]) -> None:
        """Bayes: the mover picks among the legal snails, its own ones weighted ``own`` and the others ``other``."""
        own_w, other_w = self.weights
        for j, deal in enumerate(self.deals):
            weight = own_w if deal[snail] == mover else other_w
            owned = sum(1 for x in legal if deal[x] == mover)
            total = other_w * len(legal) - (other_w - own_w) * owned
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


def turn_order(stream: GameStream) -> dict[int, int]:
    """The turn's tie-break: a random order of the six snails (one draw); 5 for the first, 0 for the last."""
    order = PERMUTATIONS[stream.integer(len(PERMUTATIONS))]
    return {s: N_SNAILS - 1 - list(order).index(s) for s in SNAILS}


def choose_selfish(
    game: Game, mover: int, options: list[tuple[int, int]], dice: list[int], prio: dict[int, int]
) -> tuple[int, int]:
    """Farthest snail that is not mine (ties by the turn's snail order); my own only when forced."""
    own = game.own(mover)
    key = {s: (game.board.own_key(game.pos[s]) if s in own else 4096 + game.pos[s]) * 8 + prio[s] for s in SNAILS}
    snail = best_snail(options, key)
    return lowest_colour(game.board, game, snail, dice), snail


class Pusher:
    """The pushers' rule (hindmost, detective, oracle): per turn, who is ahead and what each push takes."""

    def __init__(self, game: Game, mover: int, settings: Settings, holds: Callable[[int, int], float]) -> None:
        """``holds(p, s)``: the mover's probability that seat ``p`` holds snail ``s``."""
        board, players = game.board, game.players
        self.settings = settings
        expected = []
        for p in range(players):
            e = sum(holds(p, s) * board.value[game.pos[s]] for s in SNAILS)
            expected.append(round((game.banked[p] + e) * QUANT))
        opponents = [p for p in range(players) if p != mover]
        leader = max(opponents, key=lambda p: expected[p] * 8 + players - (p - mover) % players)
        self.ahead = expected[mover] > expected[leader]
        weight = {p: 1.0 if p == leader else settings.rest for p in opponents}
        self.gain = {s: round(sum(holds(p, s) * weight[p] for p in opponents) * QUANT) for s in SNAILS}

    def choose(
        self, game: Game, mover: int, options: list[tuple[int, int]], dice: list[int], prio: dict[int, int], stream
    ) -> tuple[int, int]:
        """The most valuable push; an own snail only when forced, or when hiding."""
        board, pos, own, st = game.board, game.pos, game.own(mover), self.settings
        key = {}
        for s in SNAILS:
            p = pos[s]
            if s in own:
                key[s] = board.own_key(p) * 8 + prio[s]
                continue
            remain = board.value[p] - board.value[board.finish]
            worth = self.gain[s] * (st.cross * max(board.loss(p), 0) + remain + 1)
            key[s] = (OTHERS + worth * 64 + 63 - p) * 8 + prio[s]
            if st.end and p + 1 == board.finish:
                key[s] = key[s] + TOP if self.ahead else key[s] - OTHERS * 8 + BEHIND
        movable = {s for _, s in options}
        cheap = [s for s in own if s in movable and pos[s] + 1 < board.finish and board.loss(pos[s]) <= 0]
        if st.hide > 0 and cheap and stream.uniform() < st.hide:
            key = {s: pos[s] * 8 + prio[s] if s in cheap else -1 for s in SNAILS}
        snail = best_snail(options, key)
        return lowest_colour(board, game, snail, dice), snail


def holdings(game: Game, mover: int, kind: str, belief: Belief | None) -> Callable[[int, int], float]:
    """What a pusher knows of the deal: ``holds(p, s)``."""
    own = game.own(mover)
    if kind == "oracle":
        return lambda p, s: float(game.owner[s] == p)
    if kind == "detective":
        assert belief is not None
        return lambda p, s: belief.probability(lambda d: d[s] == p)
    each = len(own)
    return lambda p, s: float(s in own) if p == mover else (0.0 if s in own else each / (N_SNAILS - each))


def play_one(params: Params, seat_policies: Sequence[str], stream: GameStream) -> dict:
    """Play one game; returns the same columns as ``rules.play`` for one game (scalars and lists).

    A pusher's settings (``detective:hide=0.5``) are read with the policy registry's parser.
    """
    board = Board(params)
    players = len(seat_policies)
    each = params.each(players)
    kinds = [name.partition(":")[0] for name in seat_policies]
    settings = [p.arg for p in resolve_policies(POLICIES, seat_policies)]  # a pusher's Settings, else None
    game = Game(board, players)
    race_turns = [0, 0]
    race1_shells = [0] * players
    accuracy = {seat: 0.0 for seat in range(players) if kinds[seat] == "detective"}
    game.banked = params.start_shells(players).tolist()  # the head start: seat i has (P - 1 - i) x head_start
    history, leader, lead_changes = [list(game.banked)], -1, 0
    turns, starter, races_done = 0, 0, 0
    for race in range(params.races):
        # deal the tokens: sort the snails by a uniform each; ranks 0..each-1 to seat 0, and so on
        u = [stream.uniform() for _ in SNAILS]
        order = sorted(SNAILS, key=lambda s: u[s])
        game.owner = [-1] * 6
        for rank, s in enumerate(order[: players * each]):
            game.owner[s] = rank // each
        game.pos = [0] * 6
        beliefs = {
            seat: Belief(seat, game, each, (settings[seat].own, settings[seat].other), params.open_ownership)
            for seat in accuracy
        }
        race_turn = 0
        while True:
            mover = (starter + race_turn) % players
            kind = kinds[mover]
            dice = [board.faces[stream.integer(len(board.faces))] for _ in range(params.dice)]
            prio: dict[int, int] | None = None
            pusher = None
            while dice:
                options = [(c, s) for s in SNAILS for c in sorted(set(dice)) if board.can_move(game.pos, s, c)]
                if not options:
                    break  # the remaining dice are ignored
                if kind == "random":
                    colour, snail = choose_random(game, options, stream)
                elif kind == "blocker":
                    colour, snail = choose_blocker(game, mover, options, dice)
                else:
                    if pusher is None and kind in PUSHERS:
                        holds = holdings(game, mover, kind, beliefs.get(mover))
                        pusher = Pusher(game, mover, settings[mover], holds)
                    if prio is None:
                        prio = turn_order(stream)
                    if pusher is None:
                        colour, snail = choose_selfish(game, mover, options, dice, prio)
                    else:
                        colour, snail = pusher.choose(game, mover, options, dice, prio, stream)
                legal = {s for _, s in options}
                if not params.open_ownership:
                    for seat, belief in beliefs.items():
                        if seat != mover:
                            belief.observe(mover, snail, legal)
                dice.remove(colour)
                game.pos[snail] += 1
            race_turn += 1
            turns += 1
            if turns % players == 0:  # a round ended: the live score and its sole leader
                live = [
                    b + sum(board.value[game.pos[s]] for s in SNAILS if game.owner[s] == p)
                    for p, b in enumerate(game.banked)
                ]
                history.append(live)
                if live.count(max(live)) == 1:
                    lead_changes += leader >= 0 and live.index(max(live)) != leader
                    leader = live.index(max(live))
            if board.finish in game.pos or turns >= INFO.turn_cap:
                break
        shells = [sum(board.value[game.pos[s]] for s in SNAILS if game.owner[s] == p) for p in range(players)]
        game.banked = [b + s for b, s in zip(game.banked, shells, strict=True)]
        if race == 0:
            race1_shells = shells
        if race < 2:
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
        "mid_score": history[turns // players // 2],
        "lead_changes": lead_changes,
    }
    return out
