"""The book's wording of numbers: one helper per kind, so that a figure reads alike on every page of every chapter.

Every value with its 95% interval reads one way, ``value (low–high)``: ``"64.9% (64.3–65.6)"``, ``"23.4 (23.1–23.8)"``
(:func:`interval`); a signed difference, whose bounds may be negative, says "to" instead of the dash:
``"+3.1 (+1.2 to +5.0)"``; p-values read ``< 0.001`` below a thousandth, else three
decimals (``0.042``). The command line's comparison tables print p-values to three figures instead
(:func:`p_figures`), down to ``< 1e-12``.
"""

from __future__ import annotations

import math

P_SMALLEST = 0.001
"""p-values below this read ``< 0.001``."""
P_FLOOR = 1e-12
"""p-values below this print as ``< 1e-12`` in the command line's tables: a smaller number says nothing more."""


def interval(value: float, low: float, high: float, digits: int = 1, unit: str = "", signed: bool = False) -> str:
    """The one way a value and its interval read: ``"23.4 (23.1–23.8)"``, ``"64.9% (64.3–65.6)"`` with ``unit="%"``.

    ``signed``: a difference, written with its sign and "to" between the bounds (``"+3.1 (+1.2 to +5.0)"``).
    """
    sign = "+" if signed else ""
    shown = [f"{v:{sign}.{digits}f}" for v in (value, low, high)]
    return f"{shown[0]}{unit} ({shown[1]}{' to ' if signed else '–'}{shown[2]})"


def pct(value: float, low: float, high: float) -> str:
    """A rate with its interval: ``"64.2% (62.7–65.7)"``; rare events (upper bound under 0.5%) get two decimals."""
    return interval(100 * value, 100 * low, 100 * high, 2 if high < 0.005 else 1, "%")


def points(value: float, low: float, high: float) -> str:
    """A difference of rates in percentage points with its interval: ``"+3.1 (+1.2 to +5.0)"``."""
    return interval(100 * value, 100 * low, 100 * high, signed=True)


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
