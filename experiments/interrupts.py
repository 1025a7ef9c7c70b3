"""Ctrl-C and SIGTERM stop a command even when the signal lands where Python swallows the exception.

Python raises a signal's ``KeyboardInterrupt`` wherever the main thread is; inside a finalizer (``__del__``, a
weakref callback: e.g. a temporary file's wrapper being collected) the exception is printed and ignored, and the
command would run on to a normal end. The handler here also remembers the request; the run loop asks
:func:`raise_if_requested` after every chunk, so a swallowed request still stops the run at the next chunk.
"""

from __future__ import annotations

import signal
from typing import Any

_requested = False


def request_stop(signum: int, frame: Any) -> None:
    """The signal handler: remember the request, then interrupt as Ctrl-C does."""
    global _requested
    _requested = True
    raise KeyboardInterrupt


def install() -> None:
    """Handle SIGINT and SIGTERM with :func:`request_stop`, except a signal this process was told to ignore."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, request_stop)
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, request_stop)


def raise_if_requested() -> None:
    """Raise ``KeyboardInterrupt`` if a stop was requested and not yet acted on."""
    if _requested:
        acknowledge()
        raise KeyboardInterrupt


def acknowledge() -> None:
    """Forget the request: the interrupt was handled (a later command in this process starts afresh)."""
    global _requested
    _requested = False
