"""Worker processes that never outlive the process that started them.

A tool stopped by SIGTERM (a job scheduler, ``timeout``) or killed outright must not leave
its workers running. Pools come from :func:`worker_pool`: its workers end with their parent
(:func:`die_with_parent`), and an exception leaving the pool's block (SIGTERM, Ctrl-C, an
error) ends them at once instead of letting them finish the queued work, as
``ProcessPoolExecutor``'s own shutdown would. Each command line calls
:func:`exit_on_sigterm`, so SIGTERM unwinds the tool like Ctrl-C does.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from types import FrameType

#: Linux's prctl option that signals a process when its parent ends
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a worker process: end it as soon as the process that started it ends.

    On Linux the kernel sends SIGKILL at the parent's death (prctl PR_SET_PDEATHSIG, which
    also covers a parent killed with SIGKILL); elsewhere a daemon thread polls the parent.
    """
    started_by = multiprocessing.parent_process()  # recorded at spawn: right even if it died since
    parent = started_by.pid if started_by is not None and started_by.pid else os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # no libc prctl: the thread below still watches
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent ended before the prctl call
            os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def exit_on_sigterm() -> None:
    """Make SIGTERM end this process with SystemExit (exit code 143) instead of at once, so
    that context managers and ``finally`` blocks close its worker processes first."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` spawned processes that end with this one, and at once when the
    block is left by an exception."""
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent
    )
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in set(multiprocessing.active_children()) - before:  # this pool's workers
            worker.terminate()
        raise
    pool.shutdown(wait=True)
