"""Numbers made ready for people and files: intervals as text, numpy values as plain JSON."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.analysis.wording import interval


def format_interval(value: float, low: float, high: float, percent: bool = False) -> str:
    """``"12.30% (12.10–12.50)"`` or ``"23.390 (23.380–23.400)"``: the reports' style, to the command line's digits."""
    if percent:
        return interval(100 * value, 100 * low, 100 * high, 2, "%")
    return interval(value, low, high, 3)


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
