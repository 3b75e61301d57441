"""Stop signals while a child process starts: Ctrl-C, SIGTERM and SIGHUP are held from the
moment ``subprocess.Popen`` is called until its child is recorded, so none is started and then
forgotten (``engine.spawn.Child.start``; the CLI's handler is :func:`interrupt_or_hold`)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals that stop a command, a run or a sweep as Ctrl-C does (finished results are kept)."""


class _Starting:
    """How many children the main thread is starting right now, and whether a stop signal came
    meanwhile (see :func:`interrupt_or_hold`)."""

    depth = 0
    pending = False


@contextlib.contextmanager
def recording_start() -> Iterator[None]:
    """While the main thread starts a child and records it, a stop signal is held: raised as
    ``KeyboardInterrupt`` inside ``subprocess.Popen`` it would leave a started child that no
    one knows of, and so no one kills; raised after, the child's ``Child`` kills its group."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Starting.depth += 1
    try:
        yield
    finally:
        _Starting.depth -= 1
        if _Starting.depth == 0 and _Starting.pending:
            _Starting.pending = False
            raise KeyboardInterrupt


def interrupt_or_hold() -> None:
    """What a stop signal's handler does (``cli.stop_like_ctrl_c``): raise
    ``KeyboardInterrupt`` now, or, while a child is being started, as soon as it is recorded."""
    if _Starting.depth:
        _Starting.pending = True
        return
    raise KeyboardInterrupt
