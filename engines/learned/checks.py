"""The public checker's checks of a trained learned player (:mod:`engines.checker`'s ``learned`` and ``collapse``).

- ``learned``: the game's ``learned`` beats its first heuristic and ``random`` in a small seeded head to head, the
  learned player rotated through every seat (cooperative games: a table of ``learned`` against a table of the
  other on the same games, paired). Games are doubled from :data:`FIRST` per seat up to :data:`MOST` until the
  95% interval of its mean share (per game) decides: it passes once the interval's lower end clears the fair
  share, and fails once its upper end is below the fair share plus :data:`TIE` (it loses, or at best ties); still
  undecided at :data:`MOST`, it passes and says so.
- ``collapse``: training did not collapse. A table of ``learned`` ends its games before the turn cap as a table
  of ``random`` or of the first heuristic does (it fails when the learned table's capped share is detectably
  above the lower of theirs), and the model's values of the positions its own self-play meets spread: not all
  equal (a standard deviation of at least :data:`SPREAD`) and not saturated (at most :data:`SATURATED` of them
  at the clip bounds 0 or 1).

Both play only a model at hand (shipped or cached) unless asked to train (``train=True``, as ``simulate train``
would); with none they are skipped and say so. A game without a ``learned`` policy has nothing checked.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from boardlab.engines import core
from boardlab.engines.learned import lifecycle
from boardlab.engines.record import record_of

LEARNED = "learned"
FIRST, MOST = 50, 1_600  #: games per seat of the head to head: first, and at most (doubled between) (ours)
TIE = 0.02  #: an interval whose upper end is below the fair share plus this says "loses or at best ties" (ours)
CAP_GAMES = 60  #: games of each table in the turn-cap comparison (ours)
SELFPLAY_GAMES = 40  #: self-play games whose positions the model values in the spread check (ours)
SPREAD = 0.02  #: the values' standard deviation below which they count as all equal (ours)
SATURATED = 0.5  #: the share of values at 0 or 1 above which they count as saturated (ours)
SEED = 20_261_207


class Problem(AssertionError):
    """A learned player's check failed: the message says what is wrong (the checker adds the game and check)."""


def learned_player(module: Any) -> type | None:
    """The game's ``learned`` implementation where it is a lifecycle player, else None."""
    policy = getattr(module, "POLICIES", {}).get(LEARNED)
    impl = getattr(policy, "impl", None)
    return impl if isinstance(impl, type) and issubclass(impl, lifecycle.Lifecycle) else None


def first_heuristic(module: Any) -> str | None:
    """The first policy the game lists that is a plain heuristic: not random, learned, searching, exact or a cheat."""
    exact = record_of(module).exact
    for name, policy in module.POLICIES.items():
        plain = policy.chunk_games is None and not policy.argument and "cheat" not in policy.description.lower()
        if plain and name not in ("random", LEARNED, *exact) and not name.startswith("expert"):
            return name
    return None


def players_of(module: Any) -> int:
    """The table the checks play: the smallest of at least 2 where the game allows 2."""
    return max(module.INFO.min_players, 2 if module.INFO.max_players >= 2 else 1)


def at_hand(module: Any, train: bool) -> tuple[type, Any, int, Any] | str:
    """``(player, params, players, model)``, or why the checks are skipped (no learned player, no model)."""
    player = learned_player(module)
    if player is None:
        return "skipped: no learned player"
    params, players = module.Params(), players_of(module)
    model = lifecycle.model_at_hand(player, params, players, train)
    if model is None:
        return f"skipped: no model for {players} players shipped or cached (train it, or ask the checker to)"
    return player, params, players, model


def per_game_shares(module: Any, rival: str, players: int, n: int, seed: int) -> np.ndarray:
    """``learned``'s share of each game against ``rival`` (every seat in turn), or paired table differences.

    Competitive: ``learned`` alone among ``rival``; each game its share of the win. Cooperative: a ``learned``
    table and a ``rival`` table play the same streams; each game the first won (1), both or neither (0.5), the
    second (0), so that 0.5 is a tie as in a 2-player game.
    """
    params = module.Params()
    if module.INFO.cooperative:
        keys = np.arange(seed, seed + n, dtype=np.uint64)
        won = [
            module.play(params, [name] * players, n, core.StreamSource(keys))["winners"][:, 0].astype(np.float64)
            for name in (LEARNED, rival)
        ]
        return 0.5 + (won[0] - won[1]) / 2
    out = []
    for seat in range(players):
        seats = [rival] * players
        seats[seat] = LEARNED
        winners = module.play(params, seats, n, np.random.default_rng([seed, seat]))["winners"].astype(np.float64)
        out.append(winners[:, seat] / np.maximum(winners.sum(axis=1), 1))
    return np.concatenate(out)


def head_to_head(module: Any, rival: str, players: int) -> tuple[bool, str]:
    """Whether ``learned`` passes against ``rival`` (see the module), and one line of figures."""
    fair = 0.5 if module.INFO.cooperative else 1 / players
    shares = np.zeros(0)
    n = FIRST
    while True:
        shares = np.concatenate([shares, per_game_shares(module, rival, players, n, SEED + len(shares))])
        mean = float(shares.mean())
        half = 1.96 * float(shares.std(ddof=1)) / math.sqrt(len(shares))
        line = f"{mean:.1%} (95% {mean - half:.1%} to {mean + half:.1%}) of {len(shares):,} games, fair {fair:.1%}"
        if mean - half > fair:
            return True, line
        if mean + half < fair + TIE:
            return False, line
        if len(shares) >= MOST * (1 if module.INFO.cooperative else players):
            return True, f"{line}: not detectably better, nor worse"
        n = len(shares) // (1 if module.INFO.cooperative else players)  # double the games


def check_learned(module: Any, train: bool = False) -> str | None:
    """``learned`` beats the first heuristic and ``random`` (see the module); a note when skipped or undecided.

    Raises:
        Problem: naming the rival and the figures, when ``learned`` loses or at best ties.
    """
    found = at_hand(module, train)
    if isinstance(found, str):
        return found
    players = found[2]
    notes = []
    for rival in dict.fromkeys(r for r in (first_heuristic(module), "random") if r in module.POLICIES):
        passed, line = head_to_head(module, rival, players)
        if not passed:
            raise Problem(f"learned does not beat {rival}: {line}")
        notes.append(f"against {rival} {line}")
    return "; ".join(notes) or None


def capped_share(module: Any, policy: str, players: int, n: int = CAP_GAMES) -> tuple[float, float, float]:
    """The share of ``n`` games of a table of ``policy`` stopped at the turn cap: ``(share, low, high)`` (Wilson)."""
    out = module.play(module.Params(), [policy] * players, n, np.random.default_rng(SEED))
    capped = int((np.asarray(out["turns"]) >= module.INFO.turn_cap).sum())
    return (capped / n, *wilson(capped, n))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of ``k`` successes in ``n`` trials."""
    p, d = k / n, 1 + z * z / n
    centre, half = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def value_spread(values: np.ndarray) -> str | None:
    """What is wrong with a model's values of the positions its self-play met (all equal, saturated), or None."""
    if len(values) < 2:
        return f"its self-play recorded {len(values)} position(s)"
    if float(values.std()) < SPREAD:
        return f"its values do not spread: standard deviation {values.std():.4f} over {len(values):,} positions"
    saturated = float(((values <= 1e-6) | (values >= 1 - 1e-6)).mean())
    if saturated > SATURATED:
        return f"its values are saturated: {saturated:.0%} of {len(values):,} positions valued exactly 0 or 1"
    return None


def check_collapse(module: Any, train: bool = False) -> str | None:
    """Training did not collapse: games end before the turn cap, values spread (see the module).

    Raises:
        Problem: saying which and the figures.
    """
    found = at_hand(module, train)
    if isinstance(found, str):
        return found
    player, params, players, model = found
    share, low, _ = capped_share(module, LEARNED, players)
    others = [r for r in dict.fromkeys((first_heuristic(module), "random")) if r in module.POLICIES]
    if others:
        best = min((capped_share(module, r, players), r) for r in others)
        (their, _, high), rival = best
        if low > high:
            raise Problem(
                f"a table of learned stops {share:.0%} of {CAP_GAMES} games at the turn cap "
                f"({module.INFO.turn_cap}), a table of {rival} {their:.0%}"
            )
    settings = player.spec.resolved(params, players, player.spec.settings_for(params, players))
    features, _, _ = lifecycle.sampler(player, settings).samples(
        params, players, model, SELFPLAY_GAMES, np.random.default_rng(SEED)
    )
    problem = value_spread(np.asarray(model.predict(np.asarray(features)), dtype=np.float64))
    if problem is not None:
        raise Problem(f"the model's self-play: {problem}")
    return None
