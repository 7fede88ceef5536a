"""The kernel cache folders zonesim makes: one per kernel module, named by the sources it
imports, each marked as its own, and removed once stale.

numba checks a cached function only against the file that defines it: a combat kernel
compiled with an older dice rule (``dice.py``) would still be loaded after ``dice.py``
changed, and run the old rule. So the functions of each module are cached in a folder of
their own, named by the digest of the module's import closure inside ``sim/kernels/`` and
``sim/jitting/`` (:class:`Sources`; :func:`sim.jitting.options.cache_name` adds numba's
version and the patch switch): an edit to a campaign part starts new folders for the
campaign modules only, and the combat, anomaly, event and skirmish kernels, which import
none of it, keep loading theirs.

Every change of a kernel source (a ``git pull``, an edit) starts new cache folders beside
the old ones, which would pile up. :func:`prune` removes the old ones, but only what
zonesim can prove is its own: the cache base may be a shared folder
(``NUMBA_CACHE_DIR=/tmp`` is common) holding a user's ``zonesim-photos``. A folder goes
only when

- its name is ``zonesim-``, a module name and ``-``, and 16 hex digits (or, from zonesim
  versions with one folder for all kernels, ``zonesim-`` and 16 hex digits), and it is a
  real folder (not a symbolic link);
- it holds the marker file :data:`MARKER` that :func:`mark` writes into every cache folder
  zonesim uses, starting with :data:`MARKER_LINE`;
- everything else inside, sub-folders included, is a cache file (:data:`CACHE_FILE`:
  numba's index and data files, their temporary files, the lock files of :mod:`.cachefiles`
  and :mod:`sim.compiling`) or a real sub-folder of such files; anything else (a user's
  file, a symbolic link, a pipe) keeps the whole folder;
- it is not the folder of a kernel module as its sources are now;
- no process has cached in it for :data:`STALE_DAYS` days (each process sets the time of
  each folder it uses as it first uses it).

Cache folders made by zonesim versions before the marker have none and are never pruned;
remove them by hand. The folder is read and removed through file descriptors opened
without following symbolic links, so nothing outside it can be reached, even if a part of
it is replaced while it is removed; a file that appears meanwhile stops the removal.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import stat
import sys
import time
from collections.abc import Collection, Iterable
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

NAME = re.compile(r"zonesim-([A-Za-z_][\w.]*-)?[0-9a-f]{16}")
"""The name of a cache folder (:func:`sim.jitting.options.cache_name`): a module's, or the one
folder of all kernels that zonesim versions before per-module folders made."""

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


def use(folder: Path) -> None:
    """Make ``folder``, a cache folder this process caches in, mark it (:func:`mark`) and set
    its time (in use: :func:`prune` keeps it :data:`STALE_DAYS` days more).

    Raises
    ------
    OSError
        The folder cannot be made.
    """
    folder.mkdir(parents=True, exist_ok=True)
    mark(folder)
    try:
        os.utime(folder)
    except OSError:  # another user's folder, still readable: it is used all the same
        pass


def prune(base: Path, keep: Collection[str]) -> None:
    """Remove every stale marked cache folder in ``base`` that holds only cache files and
    whose name is not in ``keep`` (the folders of the kernels' sources as they are now; see
    the module); one line on stderr names them.

    Where the system cannot open folders without following links (Windows), nothing is
    removed.
    """
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
            if entry.name not in keep and NAME.fullmatch(entry.name) and _remove(
                    base_fd, entry.name, cutoff):
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


_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+import[ \t]*"  # from x import ...
    r"(?:\((?:[^)#]|#[^\n]*)*\)|(?:[^\n]*\\\n)*[^\n]*)"  # (a, b # c), or to the line's end
    r"|import[ \t]+(?:[^\n]*\\\n)*[^\n]*)", re.M)
"""A line that may begin an import statement, with its continuation lines
(:meth:`Sources.imports`)."""


class Sources:
    """The kernel sources that name the cache folders: the ``*.py`` files of ``areas``, pairs
    of a package name and its folder (``sim.kernels`` and ``sim/kernels``, ``sim.jitting``
    and ``sim/jitting``), and the imports among them.

    A module's compiled functions can reach only what the module imports (numba
    compiles the jitted functions a module's globals name, and these import only each
    other, numpy and numba), so the digest of the module's import closure inside the
    areas (:meth:`digest`) names every version of the code they compile to. Each file is
    read once per instance; tests make one per copy of the sources.
    """

    def __init__(self, areas: Iterable[tuple[str, Path]]) -> None:
        self.areas = tuple((package, Path(folder)) for package, folder in areas)
        self._texts: dict[Path, bytes] = {}
        self._imports: dict[Path, set[str]] = {}
        self._digests: dict[Path, str] = {}
        self._files: dict[str, Path | None] = {}

    def file(self, module: str) -> Path | None:
        """The file of ``module`` (a module or a package's ``__init__.py``) inside the areas,
        or None (outside them, or no such file).
        """
        if module not in self._files:
            self._files[module] = self._find(module)
        return self._files[module]

    def _find(self, module: str) -> Path | None:
        for package, folder in self.areas:
            if module == package:
                parts: list[str] = []
            elif module.startswith(package + "."):
                parts = module[len(package) + 1:].split(".")
            else:
                continue
            places = [folder.joinpath(*parts) / "__init__.py"]
            if parts:
                places.insert(0, folder.joinpath(*parts[:-1], parts[-1] + ".py"))
            return next((place for place in places if place.is_file()), None)
        return None

    def modules(self) -> list[str]:
        """The name of every module in the areas (packages included), sorted."""
        names = []
        for package, folder in self.areas:
            for path in folder.rglob("*.py"):
                if "__pycache__" in path.relative_to(folder).parts:
                    continue
                parts = path.relative_to(folder).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                names.append(".".join((package, *parts)))
        return sorted(names)

    def _text(self, path: Path) -> bytes:
        if path not in self._texts:
            try:
                self._texts[path] = path.read_bytes()
            except OSError:  # no such file (a notebook's cell): nothing it imports counts
                self._texts[path] = b""
        return self._texts[path]

    def imports(self, module: str, path: Path) -> set[str]:
        """The modules that ``module`` (the file ``path``) may import: each statement's module,
        and ``m.x`` for each ``from m import x`` (``x`` may be a module).

        The import statements are found line by line (:data:`_STATEMENT`) and each is read
        by Python's own parser (``ast``), which costs a few milliseconds where parsing whole
        files costs most of a second. A line of prose reading like an import (in a
        docstring) that parses counts too: the closure grows, never shrinks; one that does
        not parse is no statement. ``tests/jitting/test_cache_folders.py`` checks that this finds
        every import the parser finds in a whole file of the areas.
        """
        if path not in self._imports:
            found: set[str] = set()
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            text = self._text(path).decode("utf-8", "replace")
            for match in _STATEMENT.finditer(text):
                try:
                    body = ast.parse(match.group().strip()).body
                except SyntaxError:  # prose, not a statement
                    continue
                found |= _imported(body, package)
            self._imports[path] = found
        return self._imports[path]

    def closure(self, module: str, path: Path | None = None) -> dict[str, Path]:
        """``module`` (its file ``path`` when outside the areas), every module of the areas
        it imports directly or through others, and their packages, by name.
        """
        start = self.file(module) or path
        if start is None:
            return {}
        found = {module: start}
        todo = [module]
        while todo:
            name = todo.pop()
            for other in self.imports(name, found[name]):
                parts = other.split(".")
                for end in range(1, len(parts) + 1):  # importing a module runs its packages
                    within = ".".join(parts[:end])
                    if within not in found and (where := self.file(within)) is not None:
                        found[within] = where
                        todo.append(within)
        return found

    def digest(self, module: str, path: Path | None = None) -> str:
        """The SHA-256 (hex) of the names and contents of :meth:`closure`'s files (each file's
        own SHA-256, computed once).
        """
        digest = hashlib.sha256()
        for name, where in sorted(self.closure(module, path).items()):
            if where not in self._digests:
                self._digests[where] = hashlib.sha256(self._text(where)).hexdigest()
            digest.update(f"{name}\0{self._digests[where]}\n".encode())
        return digest.hexdigest()


def _imported(body: list[ast.stmt], package: str) -> set[str]:
    """The modules the statements ``body`` import (``package``: where a relative one starts)."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return found
