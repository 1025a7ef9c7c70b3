"""When a page may name a winner: only when its interval clears the runner-up's.

A "closest setting" or "best policy" is named only if the two intervals do not overlap; otherwise the page says
that none is detectably better and roughly how many games each would need to tell the two apart (intervals
narrow as one over the square root of the games).
"""

from __future__ import annotations

import math

MOST = 10**9
"""Beyond this many games a page says only that no feasible number of games would tell them apart."""


def clears(best: tuple[float, float], runner_up: tuple[float, float]) -> bool:
    """Whether ``best``'s interval ``(low, high)`` lies wholly below ``runner_up``'s (smaller is better)."""
    return best[1] < runner_up[0]


def games_to_tell(games: int, gap: float, half_widths: float) -> int | None:
    """Games each that would make intervals of summed half-width ``half_widths`` at ``games`` clear ``gap``.

    None when the gap is nil or the games would exceed :data:`MOST`.
    """
    if gap <= 0 or not math.isfinite(gap) or half_widths <= 0:
        return None
    needed = math.ceil(games * (half_widths / gap) ** 2)
    return needed if needed <= MOST else None


def about(games: int | None) -> str:
    """``"about 12,000 games each would tell"`` in plain words, rounded to two figures."""
    if games is None:
        return "no practical number of games would tell them apart"
    rounded = int(float(f"{games:.2g}"))
    return f"about {rounded:,} games each would tell"
