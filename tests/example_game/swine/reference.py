"""Swine, one game at a time in plain Python: the rules as written, to check the batched engine against.

Chance is read from ``stream`` in the batched engine's order: ``random``'s uniform (only where holding is legal),
then the face of a roll.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from boardlab.engines import core
from swine.rules import INFO, Params


def wants_roll(policy: str, params: Params, scores: list[int], seat: int, total: int, stream: core.GameStream) -> bool:
    """Whether ``policy`` rolls again with ``total`` points this turn (holding is legal)."""
    own, other = scores[seat], max(s for i, s in enumerate(scores) if i != seat)
    need = params.target - own
    if policy == "random":
        return stream.uniform() < 0.5
    if policy in ("hold-at-10", "hold-at-20"):
        return total < int(policy.rsplit("-", 1)[1]) and total < need
    if policy == "chase":
        threshold = need if params.target - other <= 10 else (25 if own < other else 20)
        return total < threshold and total < need
    raise ValueError(f"the reference engine does not play {policy}")


def play_one(params: Params, seat_policies: Sequence[str], stream: core.GameStream) -> dict:
    """One game: the contract's columns for it."""
    players = len(seat_policies)
    scores, busts = [0] * players, [0] * players
    turn = rolls = 0
    rounds, leaders = [list(scores)], []  # the scores at each whole round's end; the sole leader at each end
    while turn < INFO.turn_cap:
        seat, total = turn % players, 0
        while total == 0 or wants_roll(seat_policies[seat], params, scores, seat, total, stream):
            rolls += 1
            face = stream.integer(params.faces) + 1
            if face <= params.bust:
                busts[seat] += 1
                total = 0
                break
            total += face
        scores[seat] += total
        turn += 1
        won = scores[seat] >= params.target
        if won or turn % players == 0 or turn == INFO.turn_cap:  # a round's end, or the game's
            leaders.append(scores.index(max(scores)) if scores.count(max(scores)) == 1 else None)
            if turn % players == 0 and not won:
                rounds.append(list(scores))
        if won:
            winners = [i == seat for i in range(players)]
            break
    else:
        winners = [s == max(scores) for s in scores]
    winner = winners.index(True) if sum(winners) == 1 else -1
    sole = [s for s in leaders if s is not None]
    changes = sum(a != b for a, b in pairwise(sole))
    mid = -(-turn // players) // 2  # the end of round R // 2 of a game of R rounds
    return {
        "score": scores,
        "winner": winner,
        "winners": winners,
        "turns": turn,
        "rolls": rolls,
        "busts": busts,
        "mid_score": rounds[mid],
        "lead_changes": changes,
    }
