"""A fingerprint of the games a seating plays: the same seeds and seats give the same digest, bit for bit."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def outcome_digest(
    play: Callable[..., dict[str, Any]],
    params: Any,
    seats: Sequence[str],
    n: int,
    seed: int,
    keys: Sequence[str] = ("score", "winners"),
) -> str:
    """The first 16 hex digits of SHA-256 over the outcome's ``keys`` arrays of ``n`` games from ``seed``."""
    out = play(params, list(seats), n, np.random.default_rng(seed))
    h = hashlib.sha256()
    for key in keys:
        h.update(np.ascontiguousarray(out[key]).tobytes())
    return h.hexdigest()[:16]
