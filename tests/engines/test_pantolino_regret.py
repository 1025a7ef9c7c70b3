"""A 3-player learned seat's share measured as the best reply's less its turns' exact losses."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from boardlab.engines.learned import training
from boardlab.engines.pantolino import learned, regret, response, teacher
from boardlab.engines.pantolino.heuristics import TurnOptimal
from boardlab.engines.pantolino.rules import Params, play_with

SMALL = Params(colours=4, token_values=(2, 4))  # 8 tokens, 3,876 positions: the reply solves in a second


@pytest.fixture(scope="module")
def player(tmp_path_factory) -> learned.Learned:
    """A learned player of SMALL taught for one short round: well short of the reply, so its turns lose."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOARDLAB_CACHE", str(tmp_path_factory.mktemp("cache")))
        teacher.reply_for.cache_clear()
        settings = replace(learned.SETTINGS_TAUGHT, games=600, rounds=1, hidden=(16,), epochs=5, chunk_games=600)
        model = training.train(teacher.Taught(TurnOptimal), SMALL, 3, settings)
        teacher.reply_for.cache_clear()
    return learned.Learned(SMALL, {3: model})


def test_no_turn_beats_the_reply_and_the_losses_add_up_to_what_the_games_give(player, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    values = response.cached_solution(SMALL)
    reply = response.BestReply(SMALL, values)
    counted = regret.TurnLosses(player, reply, 3_000)
    play_with(SMALL, [TurnOptimal(SMALL), counted, TurnOptimal(SMALL)], 3_000, np.random.default_rng(1))
    assert counted.loss.min() > -1e-9 and counted.loss.mean() > 1e-3  # the reply is optimal; this player is not
    assert counted.turns.min() >= 1
    shares = regret.seat_shares(SMALL, player, 3_000, seed=7)
    assert [s.reply for s in shares] == pytest.approx(response.seat_values(values).tolist())
    for share in shares:  # the games' own results, many more of them, agree with reply less losses
        impls = [TurnOptimal(SMALL) for _ in range(3)]
        impls[share.seat] = player
        won = play_with(SMALL, impls, 60_000, np.random.default_rng([99, share.seat]), metrics=False)["winners"]
        won = won.astype(float)
        result = (won / won.sum(axis=1, keepdims=True))[:, share.seat]
        bound = 4 * math.hypot(result.std() / math.sqrt(len(result)), share.half_width / 1.96)
        assert abs(result.mean() - share.share) < bound
        assert share.half_width < 0.005 and share.share < share.reply


def test_only_three_player_games_are_measured(player, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOARDLAB_CACHE", str(tmp_path))
    reply = response.BestReply(SMALL, response.cached_solution(SMALL))
    with pytest.raises(ValueError, match="3-player best reply, not 2"):
        regret.TurnLosses(player, reply, 10).prepare(2)
