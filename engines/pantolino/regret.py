"""The exact share a 3-player ``learned`` Pantolino seat gives up to the best reply, measured turn by turn.

Against two ``turn-optimal`` rivals the best reply (:mod:`engines.pantolino.response`) is an optimal policy, so the
performance-difference identity (Kakade and Langford 2002) applies: a seat's share is the reply's exact share less
the expected sum, over the seat's turns, of what each turn loses. A turn loses the reply's value of the turn's start
(the reply's best keeps and token from there) less the reply's value of where the learned unit's own keeps and token
lead; both are exact over the dice (the unit's keeps followed through the keep programme as companion values, as
:func:`engines.pantolino.keepdp.advance_companions` does). The games only choose which turns are met, so a game's
loss varies far less than its result: 10,000 games a seat measure the share to about ±0.01 points, where the results
of 50,000 give ±0.23.

A turn's loss is counted from the position the seat's token choice sees, which is the turn's start: in the base
game nothing moves between a turn's first roll and its token.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from boardlab.engines.pantolino import keepdp, response
from boardlab.engines.pantolino.heuristics import TurnOptimal
from boardlab.engines.pantolino.learned import Learned
from boardlab.engines.pantolino.rules import Params, Turn, play_with

PLAYERS = response.PLAYERS


class TurnLosses:
    """Plays like ``player`` (a :class:`Learned`) and adds each of its turns' loss to the best reply to its game."""

    def __init__(self, player: Learned, reply: response.BestReply, n_games: int) -> None:
        """Account ``player``'s turns against ``reply`` for games numbered below ``n_games``."""
        self.player, self.reply = player, reply
        self.loss = np.zeros(n_games)  # per game: the sum of its turns' losses
        self.turns = np.zeros(n_games, np.int64)

    def prepare(self, players: int) -> None:
        """Prepare the player; only 3-player games are measured."""
        if players != PLAYERS:
            raise ValueError(f"turn losses are measured against the {PLAYERS}-player best reply, not {players} players")
        self.player.prepare(players)

    def keep(self, turn: Turn, code: np.ndarray, rolls_left: int) -> np.ndarray:
        """The player's keep."""
        return self.player.keep(turn, code, rolls_left)

    def choose(self, turn: Turn, throw: np.ndarray) -> np.ndarray:
        """The player's token; the turn's loss is counted first."""
        np.add.at(self.loss, turn.games, turn_losses(self.player, self.reply, turn))
        np.add.at(self.turns, turn.games, 1)
        return self.player.choose(turn, throw)


def turn_losses(player: Learned, reply: response.BestReply, turn: Turn) -> np.ndarray:
    """``(B,)``: each game's reply value of its turn's start less that of the player's turn from there.

    The player's own values are those its keeps and token read this turn (computed once a turn, per distinct
    position); the reply's are followed through the keeps those values pick.
    """
    rolls, sparse = turn.params.rolls, player.sparse
    own = player.throw_values(turn, rolls - 1)
    take, stay = reply.successors(turn)
    reached = np.concatenate([take, stay[:, None]], axis=1)[:, :, None]
    take_own, stay_own = own.take[own.inverse], own.stay[own.inverse]
    followed = keepdp.terminal_companions(take_own, stay_own, reached, player.colour, player.value, sparse.eff)
    best = keepdp.terminal_values(take, stay, player.colour, player.value, sparse.eff)
    for rolls_left in range(rolls - 1):
        followed = keepdp.advance_companions(own.by_rolls[rolls_left][own.inverse], followed, sparse)
        best = keepdp.advance(best, sparse)
    return keepdp.first_roll(best, sparse) - keepdp.first_roll(followed, sparse)[:, 0]


@dataclass(frozen=True)
class SeatShare:
    """A seat's share against two ``turn-optimal`` rivals, as the reply's less the mean turn losses."""

    seat: int
    share: float  #: the reply's exact share less the mean loss a game
    half_width: float  #: of the 95% interval of the mean loss
    reply: float  #: the reply's exact share in the seat
    played: float  #: the share the games themselves gave (for comparison: noisier)


def shares_among_turn_optimal(
    params: Params, player_in_seat: Callable[[int], object], games: int, seed: int
) -> list[np.ndarray]:
    """Per seat, the share of each game won by ``player_in_seat(seat)`` alone among two ``turn-optimal`` players.

    ``games`` games a seat from ``[seed, seat]``. The rivals are one instance, so its keep tables and throw samplers
    are built once (each game's chance is its own: the games do not depend on it).
    """
    rival = TurnOptimal(params)
    out = []
    for seat in range(PLAYERS):
        impls: list[object] = [rival] * PLAYERS
        impls[seat] = player_in_seat(seat)
        won = play_with(params, impls, games, np.random.default_rng([seed, seat]), metrics=False)["winners"]
        won = won.astype(np.float64)
        out.append((won / won.sum(axis=1, keepdims=True))[:, seat])
    return out


def seat_shares(params: Params, player: Learned, games: int, seed: int) -> list[SeatShare]:
    """The player alone among two ``turn-optimal`` in each seat, ``games`` games a seat from ``[seed, seat]``."""
    values = response.cached_solution(params)
    reply, exact = response.BestReply(params, values), response.seat_values(values)
    counted = [TurnLosses(player, reply, games) for _ in range(PLAYERS)]
    played = shares_among_turn_optimal(params, counted.__getitem__, games, seed)
    out = []
    for seat, losses in enumerate(counted):
        half = 1.96 * float(losses.loss.std()) / math.sqrt(games)
        share = float(exact[seat] - losses.loss.mean())
        out.append(SeatShare(seat, share, half, float(exact[seat]), float(played[seat].mean())))
    return out
