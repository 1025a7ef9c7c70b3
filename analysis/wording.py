"""The book's wording of numbers: one helper per kind, so that a figure reads alike on every page of every chapter.

Rates and differences carry their 95% interval; p-values read ``< 0.001`` below a thousandth, else three
decimals (``0.042``). The command line's comparison tables print p-values to three figures instead
(:func:`p_figures`), down to ``< 1e-12``.
"""

from __future__ import annotations

import math

P_SMALLEST = 0.001
"""p-values below this read ``< 0.001``."""
P_FLOOR = 1e-12
"""p-values below this print as ``< 1e-12`` in the command line's tables: a smaller number says nothing more."""


def pct(value: float, low: float, high: float) -> str:
    """``"64.2% (62.7–65.7%)"``; rare events (upper bound under 0.5%) get two decimals."""
    d = 2 if high < 0.005 else 1
    return f"{100 * value:.{d}f}% ({100 * low:.{d}f}–{100 * high:.{d}f}%)"


def points(value: float, low: float, high: float) -> str:
    """A difference of rates in percentage points with its interval: ``"+3.1 (+1.2 to +5.0)"``."""
    return f"{100 * value:+.1f} ({100 * low:+.1f} to {100 * high:+.1f})"


def p_value(p: float) -> str:
    """A p-value as a table cell: ``"< 0.001"`` or ``"0.042"``."""
    return f"< {P_SMALLEST}" if p < P_SMALLEST else f"{p:.3f}"


def p_figures(p: float) -> str:
    """A p-value for a command-line table: ``< 1e-12`` below :data:`P_FLOOR`, ``n/a`` for NaN, else 3 figures."""
    if math.isnan(p):
        return "n/a"
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"{p:.3g}"


def p_clause(p: float) -> str:
    """A p-value in a sentence: ``"p < 0.001"`` or ``"p = 0.042"``."""
    return f"p {p_value(p)}" if p < P_SMALLEST else f"p = {p_value(p)}"


def count(n: int, noun: str) -> str:
    """``"5,000 games"``, ``"1 player"``: ``n`` and the noun, plural but for one."""
    return f"{n:,} {noun}{'s' * (n != 1)}"
