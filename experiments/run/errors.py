"""The two ways a run stops short: a run that cannot start or finish, and a chunk that failed in a worker."""

from __future__ import annotations


class RunError(Exception):
    """A run cannot start or finish; the message is one line meant for the user."""


class ChunkError(Exception):
    """A chunk failed in a worker; carries the chunk index and the original error as text (picklable)."""

    def __init__(self, index: int, error: str) -> None:
        super().__init__(index, error)
        self.index, self.error = index, error

    def __str__(self) -> str:
        return f"chunk {self.index} failed: {self.error}"
