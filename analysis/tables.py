"""Numbers made ready for people and files: intervals as text, numpy values as plain JSON."""

from __future__ import annotations

from typing import Any

import numpy as np


def format_interval(value: float, low: float, high: float, percent: bool = False) -> str:
    """``"12.3% [12.1, 12.5]"`` or ``"23.39 [23.38, 23.40]"``."""
    if percent:
        return f"{100 * value:.2f}% [{100 * low:.2f}, {100 * high:.2f}]"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


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
