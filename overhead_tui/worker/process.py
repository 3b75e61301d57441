"""The worker process's guards for its own life: it dies with its parent, and the files it
writes (its stderr log above all) have a size limit."""

from __future__ import annotations

import errno
import os
import sys


def die_with_parent(parent_pid: int | None) -> None:
    """Ask Linux to SIGKILL this worker when the process that started it dies.

    The worker runs in its own session (so a terminal's signals reach only the parent); this
    keeps a killed or crashed parent (SIGTERM, SIGHUP, closed terminal) from leaving it behind.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if parent_pid is not None and os.getppid() != parent_pid:  # the parent died already
        os._exit(1)


FILE_LIMIT_BYTES = 256 * 2**20
"""The largest file a worker may write (``RLIMIT_FSIZE``): its stderr log above all, which a
kernel printing in its loop would otherwise grow by a gigabyte a second; builds stay far
below it.  ``OVERHEAD_TUI_WORKER_FILE_LIMIT`` (bytes) sets another."""


def cap_file_sizes() -> None:
    """Writes past :data:`FILE_LIMIT_BYTES` fail with ``OSError: File too large`` (the rung
    ends with that error) instead of filling the disk; SIGXFSZ, which would kill the worker
    silently, is ignored.  Nothing where the platform has no such limit."""
    try:
        import resource
        import signal

        limit = int(os.environ.get("OVERHEAD_TUI_WORKER_FILE_LIMIT", FILE_LIMIT_BYTES))
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    except (ImportError, ValueError, OSError, AttributeError):
        pass


def file_limit_error(exc: BaseException) -> str | None:
    """The one line for a write refused by :func:`cap_file_sizes`' limit, or None."""
    if not isinstance(exc, OSError) or exc.errno != errno.EFBIG:
        return None
    import resource

    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return (
        f"the worker wrote a file past its limit of {limit / 2**20:.3g} MiB (its stderr log, "
        "from printing in the kernel, most likely); fix: print less in the kernel"
    )
