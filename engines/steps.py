"""Lines on stderr around a long step (a solve, a training, a report's games): when it starts, while it runs, its end.

A step that takes minutes must not look like a hang, least of all when stderr goes to a file (``make demo >
log``), where no progress bar is drawn. :class:`Step` prints one line when the step starts, one when it ends
with its time, and, while it runs and stderr is not a terminal, a line at least every :data:`EVERY` seconds
(with the step's own count of work done when it reports one). On a terminal the periodic lines are left to the
step's own bar.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import IO

EVERY = 30.0  #: seconds between two progress lines when stderr is not a terminal (the demo's promise)
_SILENCED = [0]  #: how many :func:`silenced` blocks are open in this process


@contextlib.contextmanager
def silenced(quiet: bool = True) -> Iterator[None]:
    """With ``quiet`` (a command's ``--quiet``), no step in this process prints a line until the block ends."""
    _SILENCED[0] += quiet
    try:
        yield
    finally:
        _SILENCED[0] -= quiet


def duration(seconds: float) -> str:
    """``seconds`` in plain words: ``"4.2 s"``, ``"3 min 05 s"``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


class Step:
    """A context manager that tells stderr a long step started, is still going, and ended (with its time).

    ``what`` names the step in plain words (``"solving 2-player Pantolino, once"``). Call :meth:`update` with
    work done and in all to add a count to the periodic lines. ``every`` (seconds, default :data:`EVERY`) and
    ``stream`` are for tests; ``periodic`` forces the periodic lines on (True) or off (False) instead of "when
    not a terminal". With ``announce_after`` (seconds) the start line waits that long: a step that fails sooner (a
    bad input found as the work begins) prints nothing, so its error stays the one line, and one that ends sooner
    prints only its end.
    """

    def __init__(
        self,
        what: str,
        every: float | None = None,
        stream: IO[str] | None = None,
        periodic: bool | None = None,
        unit: str = "",
        announce_after: float = 0.0,
    ) -> None:
        self.what, self.unit = what, unit
        self.announced = False
        self.every = EVERY if every is None else every
        self.announce_after = min(announce_after, self.every) if self.every > 0 else announce_after
        self.stream = stream if stream is not None else sys.stderr
        self.periodic = periodic if periodic is not None else not _is_terminal(self.stream)
        self.done: int | None = None
        self.total: int | None = None
        self.start = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Step:
        self.start = time.monotonic()
        if self.announce_after <= 0:
            self._announce()
        if (self.periodic and self.every > 0) or not self.announced:
            self._thread = threading.Thread(target=self._tick, name="boardlab-step", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        took = duration(time.monotonic() - self.start)
        if kind is None:
            self._say(f"{self.what}: done in {took}")
        elif self.announced:
            self._say(f"{self.what}: stopped after {took}")

    def update(self, done: int, total: int | None = None) -> None:
        """Record the work done so far (and in all, when known) for the periodic lines."""
        self.done, self.total = done, total if total is not None else self.total

    def advance(self, amount: int) -> None:
        """Count ``amount`` more units of work as done."""
        self.done = (self.done or 0) + amount

    def _announce(self) -> None:
        self.announced = True
        self._say(f"{self.what}: started")

    def _tick(self) -> None:
        if not self.announced:
            if self._stop.wait(self.announce_after):
                return
            self._announce()
        if not (self.periodic and self.every > 0):
            return
        while not self._stop.wait(self.every):
            self._say(f"{self.what}: {self._so_far()}")

    def _so_far(self) -> str:
        elapsed = duration(time.monotonic() - self.start)
        if self.done is None:
            return f"still running, {elapsed} so far"
        unit = f" {self.unit}" if self.unit else ""
        if self.total:
            return f"{self.done:,} of {self.total:,}{unit} ({self.done / self.total:.0%}), {elapsed} so far"
        return f"{self.done:,}{unit} done, {elapsed} so far"

    def _say(self, line: str) -> None:
        if _SILENCED[0]:
            return
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr must not stop the work
            pass


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
