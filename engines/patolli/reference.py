"""Patolli, one game at a time in plain Python: the readable statement of the rules and the policies.

Chance events are read from a :class:`~engines.core.GameStream` in the order the batched engine consumes them:
each safe square, then each bad-luck square that is drawn at random or placed by ``random`` (one integer over
the squares still free; the heuristics place theirs without chance), the
roll-off (one face per seat, repeated while tied), then per roll one face and, for the ``random`` policy with two
or more legal moves, one integer picking the move.

Buttons are kept as progress values (steps travelled from the owner's start square); the square under a
button of seat ``s`` at progress ``p`` is ``(start[s] + p) % L``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boardlab.engines.core import GameStream
from boardlab.engines.patolli.kernels import (
    TIE,
    W_BAD,
    W_CAPTURE,
    W_ENTER,
    W_FINISH,
    W_GREY,
    W_RISK_FROM,
    W_RISK_TO,
    W_SAFE,
    W_STUCK,
)
from boardlab.engines.patolli.rules import INFO, Params, grey_squares, marker_eligible, placements, start_tokens

ENTER = -1  # the source of an entering move


@dataclass
class Game:
    """The whole position of one game."""

    params: Params
    safe: set[int]
    bad: set[int]
    track: list[set[int]] = field(default_factory=lambda: [set(), set()])  # progress of each seat's buttons
    off: list[int] = field(default_factory=list)  # waiting buttons per seat
    home: list[int] = field(default_factory=lambda: [0, 0])  # finished buttons per seat
    tokens: list[int] = field(default_factory=list)
    bank: int = 0

    def square(self, seat: int, progress: int) -> int:
        """The square under a button of ``seat`` that has travelled ``progress`` steps."""
        return (self.params.starts[seat] + progress) % self.params.track_length

    def button_at(self, seat: int, square: int) -> int | None:
        """Progress of ``seat``'s button on ``square``, or None."""
        for p in self.track[seat]:
            if self.square(seat, p) == square:
                return p
        return None

    def options(self, seat: int, die: int) -> list[tuple[int, int | None]]:
        """Legal moves as ``(source, landing progress)``: buttons by ascending progress, then entering.

        The landing progress is None when the move finishes the button.
        """
        length = self.params.track_length
        out: list[tuple[int, int | None]] = []
        for p in sorted(self.track[seat]):
            t = p + die
            if t < length:
                if t not in self.track[seat]:  # never onto one's own button
                    out.append((p, t))
            elif t == length or self.params.exit_overshoot:
                out.append((p, None))
        if die == self.params.enter_roll and self.off[seat] > 0 and 0 not in self.track[seat]:
            out.append((ENTER, 0))
        return out

    def threat_faces(self, square: int, opponent: int, track: set[int], off: int) -> int:
        """Faces with which ``opponent`` (buttons ``track``, ``off`` waiting) could land on ``square`` next roll."""
        if square in self.safe:
            return 0
        faces = set()
        for q in track:
            for k in range(1, self.params.die_faces + 1):
                if q + k < self.params.track_length and self.square(opponent, q + k) == square:
                    faces.add(k)
        if square == self.params.starts[opponent] and off > 0:
            faces.add(self.params.enter_roll)
        return len(faces)


def play_one(params: Params, seat_policies: list[str], stream: GameStream) -> dict:
    """Play one game; returns the same columns as the batched ``play`` (as scalars and lists)."""
    length = params.track_length
    all_grey = set(grey_squares(length, params.arm_length))
    bonus_squares = all_grey if params.grey_bonus else set()

    # markers: fixed, or placed one at a time (by the seats' policies, or drawn from the squares still free)
    eligible = marker_eligible(params)
    markers = [set(params.safe_squares or ()), set(params.bad_luck_squares or ())]
    for kind, seat in placements(params):
        taken = markers[0] | markers[1]
        free = [s for s in eligible[kind] if s not in taken]
        policy = seat_policies[seat] if params.marker_placement == "players" else "random"
        if policy == "random":
            square = free[stream.integer(len(free))]
        else:  # the heuristics: the free square nearest before the home of the seat it helps or taxes
            owner = seat if kind == 0 else 1 - seat
            square = max(free, key=lambda s: (s - params.starts[owner]) % length)
        markers[kind].add(square)
    shelter = all_grey if params.grey_safe else set()  # grey corners protect from capture, like safe squares
    game = Game(
        params,
        markers[0] | shelter,
        markers[1],
        off=[params.buttons] * 2,
        tokens=(params.tokens + start_tokens(params)).tolist(),  # seat 1's head start on top
    )

    # who starts
    if params.first_player >= 0:
        first = params.first_player
    else:
        while True:
            a, b = stream.integer(params.die_faces), stream.integer(params.die_faces)
            if a != b:
                first = 0 if a > b else 1
                break

    captures, paid_skip, paid_capture, paid_bad = [0, 0], [0, 0], [0, 0], [0, 0]
    finished_in: list[list[int]] = [[], []]  # the turn in which each finished button finished
    mover, turn, winner, reason = first, 0, -1, -1
    while True:
        me, them = mover, 1 - mover
        die = stream.integer(params.die_faces) + 1
        options = game.options(me, die)
        again = False
        if options:
            source, landing = choose(game, seat_policies[me], me, die, options, stream)
            square = None
            if source == ENTER:
                game.off[me] -= 1
                game.track[me].add(0)
                square = game.square(me, 0)
            elif landing is None:
                game.track[me].remove(source)
                game.home[me] += 1
                finished_in[me].append(turn)
            else:
                game.track[me].remove(source)
                game.track[me].add(landing)
                square = game.square(me, landing)
            if square is not None:
                victim = game.button_at(them, square)
                if victim is not None and square not in game.safe:
                    game.track[them].remove(victim)
                    game.off[them] += 1
                    game.tokens[them] -= 1
                    game.bank += 1
                    captures[me] += 1
                    paid_capture[them] += 1
                if square in game.bad and game.tokens[them] > 0:
                    game.tokens[me] -= 1
                    game.bank += 1
                    paid_bad[me] += 1
            again = die in params.roll_again
            if square is not None and square in bonus_squares and not again:
                ended = game.tokens[them] <= 0 or game.tokens[me] <= 0 or game.home[me] >= params.buttons
                optional = params.grey_extra == "optional" and not ended
                again = not optional or keeps_extra(game, seat_policies[me], me)
        elif (game.track[me] or params.pay_when_empty) and (
            params.overshoot_pays or not any(p + die > length for p in game.track[me])
        ):
            game.tokens[me] -= 1
            game.bank += 1
            paid_skip[me] += 1

        if game.tokens[them] <= 0:
            winner, reason = me, 1
        elif game.tokens[me] <= 0:
            winner, reason = them, 1
        elif game.home[me] >= params.buttons:
            winner, reason = me, 0
        if winner >= 0:
            turn += 1
            break
        if not again:
            turn += 1
            mover = them
            if turn >= INFO.turn_cap:
                reason = 2
                break

    score = list(game.home)
    tokens = list(game.tokens)
    if winner >= 0:
        tokens[winner] += game.bank
        winners = [seat == winner for seat in range(2)]
    else:  # capped: most buttons finished, then most tokens; a remaining tie is shared
        best = max(zip(score, tokens, strict=True))
        winners = [(score[s], tokens[s]) == best for s in range(2)]
        winner = winners.index(True) if sum(winners) == 1 else -1
    return {
        "score": score,
        "winner": winner,
        "winners": winners,
        "turns": turn,
        "win_reason": [int(reason == r) for r in range(3)],
        "capped": reason == 2,
        "first_player": first,
        "first_won": winner == first,
        "captures": captures,
        "paid_skip": paid_skip,
        "paid_capture": paid_capture,
        "paid_bad_luck": paid_bad,
        "tokens": tokens,
        "bank": game.bank,
        **progress_metrics(finished_in, turn),
    }


def progress_metrics(finished_in: list[list[int]], turns: int) -> dict:
    """``mid_score`` and ``lead_changes``, round by round (a round: turns ``2r`` and ``2r + 1``)."""
    rounds = (turns + 1) // 2

    def score(seat: int, last_round: int) -> int:  # buttons finished by the end of round ``last_round``
        return sum(t // 2 <= last_round for t in finished_in[seat])

    changes, leader = 0, None
    for r in range(rounds):
        a, b = score(0, r), score(1, r)
        now = 0 if a > b else 1 if b > a else None
        if now is not None:
            changes += leader is not None and now != leader
            leader = now
    mid_round = rounds // 2 - 1  # the end of round rounds // 2, counted from 1
    return {"mid_score": [score(0, mid_round), score(1, mid_round)], "lead_changes": changes}


def choose(
    game: Game, policy: str, me: int, die: int, options: list[tuple[int, int | None]], stream: GameStream
) -> tuple[int, int | None]:
    """The option ``policy`` picks (options are in option order: sources ascending, entering last)."""
    them = 1 - me
    if policy == "random":
        return options[stream.integer(len(options)) if len(options) >= 2 else 0]

    def lands(option: tuple[int, int | None]) -> int | None:
        return None if option[1] is None else game.square(me, option[1])

    def captures(option: tuple[int, int | None]) -> bool:
        square = lands(option)
        return square is not None and square not in game.safe and game.button_at(them, square) is not None

    buttons = [o for o in options if o[0] != ENTER]
    entering = options[-1] if options[-1][0] == ENTER else None
    runner = entering or max(buttons)  # runner, aggressive and cautious enter whenever they may
    if policy == "runner":
        return runner
    if policy == "aggressive":
        capturing = [o for o in buttons if captures(o)]
        return max(capturing) if capturing else runner
    if policy == "cautious":
        return entering or max(buttons, key=lambda o: -danger_after(game, me, o) * TIE + o[0] + 1)
    if policy == "balanced":
        return max(options, key=lambda o: balanced_score(game, me, o, captures(o)) * TIE + o[0] + 1)
    if policy == "home-stretch":
        return max(
            options,
            key=lambda o: (
                (balanced_score(game, me, o, captures(o)) + W_STUCK * lost_after(game, me, o)) * TIE + o[0] + 1
            ),
        )
    raise ValueError(f"unknown policy '{policy}'")


def danger_after(game: Game, me: int, option: tuple[int, int | None]) -> int:
    """Faces with which the opponent could capture some button of ``me`` next roll, after ``option``."""
    them = 1 - me
    source, landing = option
    mine = set(game.track[me]) - {source}
    theirs, off = set(game.track[them]), game.off[them]
    if landing is not None:
        mine.add(landing)
        square = game.square(me, landing)
        victim = game.button_at(them, square)
        if victim is not None and square not in game.safe:
            theirs.remove(victim)
            off += 1
    faces = set()
    for p in mine:
        square = game.square(me, p)
        if square in game.safe:
            continue
        for q in theirs:
            for k in range(1, game.params.die_faces + 1):
                if q + k < game.params.track_length and game.square(them, q + k) == square:
                    faces.add(k)
        if square == game.params.starts[them] and off > 0:
            faces.add(game.params.enter_roll)
    return len(faces)


def balanced_score(game: Game, me: int, option: tuple[int, int | None], capture: bool) -> int:
    """The balanced policy's score of one option; threats are those of the opponent's current position."""
    them = 1 - me
    source, landing = option
    score = W_CAPTURE * capture
    if source == ENTER:
        score += W_ENTER
    else:
        score += W_RISK_FROM * game.threat_faces(game.square(me, source), them, game.track[them], game.off[them])
    if landing is None:
        return score + W_FINISH
    square = game.square(me, landing)
    grey = game.params.grey_bonus and square in grey_squares(game.params.track_length, game.params.arm_length)
    score += W_GREY * grey + W_SAFE * (square in game.safe) + W_BAD * (square in game.bad)
    return score + W_RISK_TO * game.threat_faces(square, them, game.track[them], game.off[them])


def lost_after(game: Game, me: int, option: tuple[int, int | None]) -> int:
    """:func:`lost_faces` of ``me`` after ``option``; a finishing move counts none.

    With finishing moves charged too, ``home-stretch`` put off finishing and lost to ``balanced``.
    """
    source, landing = option
    if landing is None:
        return 0
    mine = (set(game.track[me]) - {source}) | {landing}
    return lost_faces(game.params, mine, game.off[me] - (source == ENTER))


def lost_faces(params: Params, mine: set[int], off: int) -> int:
    """Faces with which a roll has no legal move for buttons ``mine`` and ``off`` waiting (2 each when it pays)."""
    length = params.track_length
    total = 0
    for face in range(1, params.die_faces + 1):
        movable = any(
            (p + face < length and p + face not in mine)
            or p + face == length
            or (params.exit_overshoot and p + face > length)
            for p in mine
        )
        if movable or (face == params.enter_roll and off > 0 and 0 not in mine):
            continue
        overshoot = any(p + face > length for p in mine)
        pays = (mine or params.pay_when_empty) and (params.overshoot_pays or not overshoot)
        total += 2 if pays else 1
    return total


def keeps_extra(game: Game, policy: str, me: int) -> bool:
    """Whether ``policy`` takes an optional grey-corner extra move.

    ``home-stretch`` declines it when the lost faces (paid ones twice) outnumber the die faces; every other policy
    takes it.
    """
    if policy != "home-stretch":
        return True
    return lost_faces(game.params, game.track[me], game.off[me]) <= game.params.die_faces
