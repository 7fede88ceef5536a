"""File locks on numba's cache folder: one writer of an index at a time, one compile per kernel.

numba writes each cache file atomically (a temporary file renamed over the
old one), but adding an entry to a function's index is a read, a change and
a write that nothing serialises (``numba.core.caching.IndexDataCacheFile.save``,
numba 0.68): two processes compiling the same helper for two
signatures at once (two pytest-xdist workers, or a command and the process
compiling ahead for it) can both read the same index, both pick data file
``1`` and both write it; the index then names one signature and the data
file holds the other one's machine code, which a later run loads. :func:`install`
makes every save hold an exclusive lock on ``zonesim-index.lock`` in the cache
folder for that read, change and write (a few milliseconds).

:func:`try_lock` is the same kind of lock without waiting, which
:mod:`sim.compiling` takes on one file per kernel so that a kernel is compiled
by one process at a time. The locks are ``flock`` locks: the system drops
them when their holder exits, even when it is killed. Where there are no
such locks (Windows) nothing is locked, as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock
    fcntl = None

INDEX_LOCK = "zonesim-index.lock"
"""Lock file, in each cache folder, that a process holds while it writes an index there."""


def try_lock(path: str) -> int | None:
    """Lock ``path`` (created if missing) if no other process holds it.

    Returns
    -------
    int or None
        The open file descriptor holding the lock (give it to :func:`unlock`),
        or None when another process holds the lock.

    Raises
    ------
    OSError
        The file cannot be created or opened (a read-only folder), or this
        system has no file locks.
    """
    if fcntl is None:  # pragma: no cover - Windows
        raise OSError("no file locks on this system")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def unlock(fd: int) -> None:
    """Release a lock taken by :func:`try_lock` (closing its descriptor releases it)."""
    os.close(fd)


@contextmanager
def locked(folder: str) -> Iterator[None]:
    """Hold the index lock of the cache folder ``folder`` (waiting for it) in the block.

    Without a usable lock file (read-only folder, no ``flock``), the block runs unlocked.
    """
    try:
        fd = os.open(os.path.join(folder, INDEX_LOCK), os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        fd = None
    try:
        if fd is not None and fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd is not None:
            os.close(fd)


def install() -> None:
    """Make numba's cache index saves hold the folder's index lock (idempotent).

    If numba no longer has ``IndexDataCacheFile.save``, nothing is changed.
    """
    try:
        from numba.core.caching import IndexDataCacheFile
    except ImportError:  # pragma: no cover - numba reorganised: leave it alone
        return
    save = getattr(IndexDataCacheFile, "save", None)
    if save is None or getattr(save, "zonesim_locked", False):
        return

    def locked_save(self, key, data):
        with locked(self._cache_path):
            save(self, key, data)

    locked_save.zonesim_locked = True
    locked_save.__doc__ = save.__doc__
    IndexDataCacheFile.save = locked_save
