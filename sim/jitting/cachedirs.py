"""The kernel cache folders zonesim makes: each marked as its own, and removed once stale.

Every change of a kernel source (a ``git pull``, an edit) starts a new cache folder
(``zonesim-<digest>``, :func:`sim.jitting.options.cache_name`) beside the old ones, which
would pile up. :func:`prune` removes the old ones, but only what zonesim can prove is its
own: the cache base may be a shared folder (``NUMBA_CACHE_DIR=/tmp`` is common) holding a
user's ``zonesim-photos``. A folder goes only when

- its name is ``zonesim-`` and 16 hex digits, and it is a real folder (not a symbolic link);
- it holds the marker file :data:`MARKER` that :func:`mark` writes into every cache folder
  zonesim uses, starting with :data:`MARKER_LINE`;
- everything else inside, sub-folders included, is a cache file (:data:`CACHE_FILE`:
  numba's index and data files, their temporary files, the lock files of :mod:`.cachefiles`
  and :mod:`sim.compiling`) or a real sub-folder of such files; anything else (a user's
  file, a symbolic link, a pipe) keeps the whole folder;
- no process has cached in it for :data:`STALE_DAYS` days (each process sets the time of
  the folder it uses when it starts).

Cache folders made by zonesim versions before the marker have none and are never pruned;
remove them by hand. The folder is read and removed through file descriptors opened
without following symbolic links, so nothing outside it can be reached, even if a part of
it is replaced while it is removed; a file that appears meanwhile stops the removal.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from pathlib import Path

STALE_DAYS = 14
"""A marked cache folder of older kernel sources unused this many days is removed."""

MARKER = "zonesim-cache.txt"
"""The marker file in every cache folder zonesim uses."""

MARKER_LINE = "zonesim numba kernel cache\n"
"""The first line of :data:`MARKER`, by which a folder is recognised."""

MARKER_TEXT = MARKER_LINE + (
    "This folder holds machine code that numba compiled for zonesim's kernels. zonesim\n"
    f"removes it when no zonesim process has used it for {STALE_DAYS} days and it holds\n"
    "nothing but these cache files; deleting it by hand is safe too (kernels compile again).\n")

NAME = re.compile(r"zonesim-[0-9a-f]{16}")
"""The name of a cache folder (:func:`sim.jitting.options.cache_name`)."""

CACHE_FILE = re.compile(
    r".+-\d+\.py\d+[a-z]*\.(nbi|\d+\.nbc)"  # numba's index and data files
    r"(\.lock|\.tmp\.[0-9a-f]{16})?"  # a kernel's compile lock; a write in progress
    r"|zonesim-index\.lock")
"""The name of every file a cache folder may hold besides its :data:`MARKER`, each as numba
or zonesim names it."""

_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def mark(folder: Path) -> None:
    """Write :data:`MARKER` into ``folder``, a cache folder zonesim uses, if it has none.

    A folder that cannot be marked (read-only, a race with another process
    writing it) is left as it is: unmarked, it is never pruned.
    """
    try:
        fd = os.open(folder / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | getattr(os, "O_NOFOLLOW", 0), 0o666)
    except OSError:  # marked already, or not writable
        return
    with os.fdopen(fd, "w") as f:
        f.write(MARKER_TEXT)


def prune(base: Path, name: str) -> None:
    """Set the time of ``base / name`` (in use), and remove every stale marked cache folder
    beside it that holds only cache files (see the module); one line on stderr names them.

    Where the system cannot open folders without following links (Windows), nothing is
    removed.
    """
    os.utime(base / name)
    if not (os.unlink in os.supports_dir_fd and os.scandir in os.supports_fd
            and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_NONBLOCK")):
        return
    cutoff = time.time() - STALE_DAYS * 86400
    removed = []
    try:
        base_fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        for entry in os.scandir(base_fd):
            if entry.name != name and NAME.fullmatch(entry.name) and _remove(base_fd, entry.name,
                                                                            cutoff):
                removed.append(str(base / entry.name))
    except OSError:
        pass  # the base cannot be listed: nothing more to prune
    finally:
        os.close(base_fd)
    if removed:
        print(f"zonesim: removed {len(removed)} kernel cache folder"
              f"{'' if len(removed) == 1 else 's'} unused for {STALE_DAYS} days: "
              + ", ".join(removed), file=sys.stderr, flush=True)


def _remove(base_fd: int, name: str, cutoff: float) -> bool:
    """Remove the folder ``name`` in ``base_fd`` if it is a stale, marked cache folder of cache
    files only; whether it was removed (a folder another process removes meanwhile: no).
    """
    try:
        info = os.stat(name, dir_fd=base_fd, follow_symlinks=False)
        if not stat.S_ISDIR(info.st_mode) or info.st_mtime >= cutoff:
            return False
        fd = os.open(name, _DIR, dir_fd=base_fd)
    except OSError:
        return False
    try:
        if not (_marked(fd) and _cache_files_only(fd, top=True)):
            return False
        _empty(fd)
        os.unlink(MARKER, dir_fd=fd)  # last: a folder left half-removed is still recognised
        os.rmdir(name, dir_fd=base_fd)
    except OSError:  # a file appeared, or another process removes it too: it stays
        return False
    finally:
        os.close(fd)
    return True


def _marked(fd: int) -> bool:
    """Whether the folder ``fd`` holds a regular file :data:`MARKER` that starts with
    :data:`MARKER_LINE`.
    """
    try:
        marker = os.open(MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return False
    with os.fdopen(marker, "rb") as f:
        return stat.S_ISREG(os.fstat(f.fileno()).st_mode) and \
            f.read(len(MARKER_LINE)) == MARKER_LINE.encode()


def _cache_files_only(fd: int, top: bool = False) -> bool:
    """Whether the folder ``fd`` holds only cache files and real folders of cache files (and
    its marker, ``top``: the cache folder itself).
    """
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                sub = os.open(entry.name, _DIR, dir_fd=fd)
                try:
                    if not _cache_files_only(sub):
                        return False
                finally:
                    os.close(sub)
            elif not (entry.is_file(follow_symlinks=False) and (
                    CACHE_FILE.fullmatch(entry.name) or top and entry.name == MARKER)):
                return False
    return True


def _empty(fd: int) -> None:
    """Remove the cache files and sub-folders in the folder ``fd`` (not its marker)."""
    with os.scandir(fd) as entries:
        for entry in list(entries):
            if entry.is_dir(follow_symlinks=False):
                sub = os.open(entry.name, _DIR, dir_fd=fd)
                try:
                    _empty(sub)
                finally:
                    os.close(sub)
                os.rmdir(entry.name, dir_fd=fd)
            elif entry.is_file(follow_symlinks=False) and CACHE_FILE.fullmatch(entry.name):
                os.unlink(entry.name, dir_fd=fd)
