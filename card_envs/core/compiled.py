"""Keep numba's on-disk cache of compiled kernels in step with the modules they read."""

from __future__ import annotations

import os


def refresh_compiled_cache(module_file: str, *dependencies: str) -> None:
    """Touch ``module_file`` when one of its ``dependencies`` is newer.

    Numba keys a module's cached machine code on that file's own time stamp, while the
    constants it reads from other modules (action numbers, observation offsets, card
    tables) are baked into the code. Without this, changing ``encoding.py`` would leave a
    batched engine running on the old numbering until its cache was cleared by hand.
    Call it at the top of a module with ``@njit(cache=True)`` functions.
    """
    try:
        own = os.stat(module_file).st_mtime
        if max(os.stat(path).st_mtime for path in dependencies) > own:
            os.utime(module_file)
    except OSError:  # a read-only install: its files do not change either
        return
