"""numba's cache files made safe: one writer of an index at a time, damaged files detected
and replaced, a full or read-only disk no error.

Locks. numba writes each cache file atomically (a temporary file renamed over
the old one), but adding an entry to a function's index is a read, a change
and a write that nothing serialises (``numba.core.caching.IndexDataCacheFile.save``,
numba 0.68): two processes compiling the same helper for two signatures at
once (two pytest-xdist workers, or a command and the process compiling ahead
for it) can both read the same index, both pick data file ``1`` and both
write it; the index then names one signature and the data file holds the
other one's machine code, which a later run loads. :func:`install` makes
every save hold an exclusive lock on ``zonesim-index.lock`` in the cache
folder for that read, change and write (a few milliseconds). :func:`try_lock`
is the same kind of lock without waiting, which :mod:`sim.compiling` takes on
one file per kernel so that a kernel is compiled by one process at a time.
The locks are ``flock`` locks: the system drops them when their holder exits,
even when it is killed. Where there are no such locks (Windows) nothing is
locked.

Damage. numba unpickles its index and data files as they are: a truncated,
zeroed or garbled file raised a pickle error in every later run, and a
garbled byte inside the machine code would load and run. Each index and data
file written here starts with :data:`MAGIC` and the SHA-256 of the rest; a
file that does not match, or that fails to load for any reason, is a damaged
entry: one warning naming the cache folder, the entry's index is removed, and
the kernel is compiled afresh and saved again. A save that the disk refuses
(full, read-only, quota) leaves the kernel compiled but uncached, with one
warning naming the folder.

Every numba. These are a correctness fix, not a speed patch: :mod:`sim.jitting.options`
installs them under any numba version and with the compiler patches off. Under a numba
they were not checked against (``tested`` false), :func:`install` first saves and loads
one entry in a temporary folder; where that fails, or numba lacks the functions replaced
here, numba is left as it was and :func:`install` says so, and the kernels are then not
cached at all (compiled on every run) rather than cached unlocked.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock
    fcntl = None

INDEX_LOCK = "zonesim-index.lock"
"""Lock file, in each cache folder, that a process holds while it writes an index there."""

MAGIC = b"zonesim-cache-1\n"
"""First bytes of every index and data file written here, before the SHA-256 of the rest."""


class DamagedEntry(ValueError):
    """A cache file whose checksum does not match its contents (truncated, zeroed, garbled)."""


_warned: set[tuple[str, str]] = set()
"""(what, folder) pairs already warned about in this process: one line each."""


def try_lock(path: str) -> int | None:
    """Lock ``path`` (created if missing) if no other process holds it, and write this
    process's id into it (:func:`holder` reads it: a waiting process names the holder).

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
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:  # a full disk: the lock holds all the same, its holder unnamed
        pass
    return fd


def holder(path: str) -> int | None:
    """The id of the process that last took the lock ``path`` (None: unknown, or none did)."""
    try:
        with open(path, "rb") as f:
            return int(f.read(32).strip())
    except (OSError, ValueError):
        return None


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


def sealed(payload: bytes) -> bytes:
    """``payload`` as a cache file holds it: :data:`MAGIC`, its SHA-256, itself."""
    return MAGIC + hashlib.sha256(payload).digest() + payload


def unsealed(blob: bytes, path: str) -> bytes:
    """The payload of a cache file's bytes ``blob``.

    Raises
    ------
    DamagedEntry
        The file at ``path`` does not start with :data:`MAGIC` or its checksum fails.
    """
    head = len(MAGIC) + hashlib.sha256().digest_size
    payload = blob[head:]
    if blob[:len(MAGIC)] != MAGIC or blob[len(MAGIC):head] != hashlib.sha256(payload).digest():
        raise DamagedEntry(f"{os.path.basename(path)} fails its checksum")
    return payload


def warn_once(what: str, folder: str, line: str) -> None:
    """Print ``line`` on stderr the first time ``what`` happens in ``folder`` in this process."""
    if (what, folder) not in _warned:
        _warned.add((what, folder))
        print(line, file=sys.stderr, flush=True)


def install(tested: bool = True) -> bool:
    """Patch numba's cache files: locked index saves, checksums, damage and full disks
    handled (idempotent).

    Parameters
    ----------
    tested
        Whether this numba is one these were checked against; if not, a save and a load
        in a temporary folder must work first (:func:`_round_trip`).

    Returns
    -------
    bool
        Whether numba's cache files are locked and sealed now. False: numba lacks the
        functions patched here, or the round trip failed; numba is left unchanged.
    """
    try:
        from numba.core.caching import Cache, IndexDataCacheFile
    except ImportError:  # numba reorganised: leave it alone
        return False
    if getattr(IndexDataCacheFile.save, "zonesim", False):
        return True
    files = ("save", "_load_index", "_save_index", "_load_data", "_save_data")
    overloads = ("load_overload", "save_overload")
    if any(getattr(cls, name, None) is None for cls, names in
           ((IndexDataCacheFile, files), (Cache, overloads)) for name in names):
        return False
    before = [(cls, name, cls.__dict__.get(name)) for cls, names in
              ((IndexDataCacheFile, files), (Cache, overloads)) for name in names]
    _seal_files(IndexDataCacheFile)
    _survive_damage(Cache)
    if tested or _round_trip(IndexDataCacheFile):
        return True
    for cls, name, function in before:  # numba as it was
        if function is None:
            delattr(cls, name)
        else:
            setattr(cls, name, function)
    return False


def _round_trip(cls) -> bool:
    """Whether the patched ``IndexDataCacheFile`` ``cls`` saves two entries in a temporary
    folder and loads them back, sealed.
    """
    try:
        with tempfile.TemporaryDirectory(prefix="zonesim-") as folder:
            cache = cls(folder, "zonesim-probe-1.py", ("stamp", 1))
            entries = {("a", 1): b"one", ("b", 2): b"two"}
            for key, data in entries.items():
                cache.save(key, data)
            with open(cache._index_path, "rb") as f:
                sealed_index = f.read(len(MAGIC)) == MAGIC
            return sealed_index and all(cache.load(key) == data
                                        for key, data in entries.items())
    except Exception:  # any failure: this numba's cache files are not what these expect
        return False


def _seal_files(cls) -> None:
    """Index saves under the folder's lock; index and data files checksummed (:func:`sealed`).

    The index keeps numba's contents: numba's version, the source stamp and the
    signatures' data files, dropped (an empty index) when either differs.
    """
    save = cls.save

    def locked_save(self, key, data):
        with locked(self._cache_path):
            save(self, key, data)

    def load_index(self):
        try:
            with open(self._index_path, "rb") as f:
                blob = f.read()
        except FileNotFoundError:
            return {}
        version, stamp, overloads = pickle.loads(unsealed(blob, self._index_path))
        return overloads if (version, stamp) == (self._version, self._source_stamp) else {}

    def save_index(self, overloads):
        payload = pickle.dumps((self._version, self._source_stamp, overloads), protocol=-1)
        with self._open_for_write(self._index_path) as f:
            f.write(sealed(payload))

    def load_data(self, name):
        path = self._data_path(name)
        with open(path, "rb") as f:
            return pickle.loads(unsealed(f.read(), path))

    def save_data(self, name, data):
        with self._open_for_write(self._data_path(name)) as f:
            f.write(sealed(self._dump(data)))

    locked_save.zonesim = True
    for name, patch in (("save", locked_save), ("_load_index", load_index),
                        ("_save_index", save_index), ("_load_data", load_data),
                        ("_save_data", save_data)):
        patch.__doc__ = getattr(cls, name).__doc__
        setattr(cls, name, patch)


def _survive_damage(cls) -> None:
    """A cache entry that fails to load is compiled afresh; a refused save leaves it uncached."""
    load, save = cls.load_overload, cls.save_overload

    def load_overload(self, sig, target_context):
        try:
            return load(self, sig, target_context)
        except Exception as error:  # any failure to read or rebuild: the entry is damaged
            folder = self._cache_path
            warn_once("damaged", folder, f"zonesim: warning: damaged numba cache entry in "
                      f"{folder} ({error}); compiling it afresh")
            index = self._cache_file._index_path
            with locked(folder):
                try:
                    os.unlink(index)
                except OSError:
                    pass
            return None

    def save_overload(self, sig, data):
        try:
            save(self, sig, data)
        except OSError as error:  # full disk, read-only folder, quota: run uncached
            folder = self._cache_path
            warn_once("unwritable", "", f"zonesim: warning: cannot write the numba cache in "
                      f"{folder} ({error.strerror or error}); the kernels run uncached")

    for name, patch in (("load_overload", load_overload), ("save_overload", save_overload)):
        patch.__doc__ = getattr(cls, name).__doc__
        setattr(cls, name, patch)
