"""Numbers made ready for people and files: intervals as text, numpy values as plain JSON."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from boardlab.analysis.wording import interval, pct


def format_interval(value: float, low: float, high: float, percent: bool = False) -> str:
    """``"12.30% (12.10–12.50)"`` or ``"23.390 (23.380–23.400)"``: the reports' style, to the command line's digits."""
    if percent:
        return interval(100 * value, 100 * low, 100 * high, 2, "%")
    return interval(value, low, high, 3)


def estimate(name: str, value: Sequence[float]) -> dict[str, float]:
    """An estimate ``(value, low, high, ...)`` as the standard columns ``name``, ``name_lo`` and ``name_hi``."""
    return {name: value[0], f"{name}_lo": value[1], f"{name}_hi": value[2]}


def cell(row: Any, name: str, fmt: Callable[..., str] = pct) -> str:
    """A row's estimate ``name`` as a table cell: value and 95% interval, by ``fmt`` (``mean(digits)`` for a mean)."""
    return fmt(row[name], row[f"{name}_lo"], row[f"{name}_hi"])


def cells(frame: Any, name: str, fmt: Callable[..., str] = pct) -> list[str]:
    """Every row's estimate ``name`` as a table cell (:func:`cell`)."""
    return [fmt(*r) for r in frame[[name, f"{name}_lo", f"{name}_hi"]].itertuples(index=False)]


def mean(digits: int) -> Callable[[float, float, float], str]:
    """The cell writer of a mean to ``digits`` decimals: ``"23.4 (23.1–23.8)"``."""
    return lambda value, low, high: interval(value, low, high, digits)


def json_ready(value: Any) -> Any:
    """Convert numpy scalars and arrays inside nested containers to plain Python; NaN becomes None."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [json_ready(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value
