"""Results folders that appear whole or not at all, under a name no other run takes.

A folder is built under a hidden temporary name beside its final place and
renamed at the end. Three things can still go wrong, and each is handled here:

- two runs finish in the same second with the same default name: the second
  takes the next free name (``-2``, ``-3``...) at the moment it renames, so
  neither run's work is lost;
- the file system refuses (read-only, permission denied, disk full): the
  temporary folder and any folders made for it are removed and one
  :class:`WriteError` names the path and the cause;
- the process is stopped: SIGTERM and SIGHUP become :class:`Stopped` (see
  :func:`stop_on_signals`), so the cleanup above runs; after SIGKILL nothing
  can run, so the temporary name carries the process id, each run notes the
  folder it writes in (:func:`notes_folder`), and the next command removes the
  temporary folders of processes that no longer exist, in ``results/`` and in
  every noted folder (:func:`clean_left_over`), wherever it is run from.

This module imports nothing heavy, so the command line can clean up early.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

RESULTS_DIR = Path("results")
"""Default parent of results folders (relative to the working directory)."""

_STALE = re.compile(r"\..+\.(\d+)\.[^.]+\.tmp")
_NOTE = re.compile(r"(\d+)\.[^.]+\.writing")


class WriteError(Exception):
    """Results could not be written; ``path`` and ``cause`` say where and why."""

    def __init__(self, path: Path, cause: str) -> None:
        self.path, self.cause = Path(path), cause
        super().__init__(f"cannot write results to {path}: {cause}")


class Stopped(BaseException):  # noqa: N818 (like KeyboardInterrupt, not an error of the run)
    """The process received SIGTERM or SIGHUP; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"stopped by {signal.Signals(signum).name}")


@dataclass
class Staged:
    """A folder being written: ``temp`` now, ``path`` once it is renamed into place."""

    temp: Path
    path: Path


def _cause(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


def clean_stale(folder: Path) -> list[Path]:
    """Remove temporary result folders in ``folder`` left by processes that no longer run."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _STALE.fullmatch(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not _alive(int(match.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def notes_folder() -> Path:
    """Where each run notes the folder it writes in: ``zonesim/writing`` in the user's state
    folder (``$XDG_STATE_HOME``, else ``~/.local/state``).

    A results folder can be written anywhere (``--out``), and a run killed
    by SIGKILL cannot remove its temporary folder; the note, named by the
    process id, tells a later command, run from any folder, where to look.
    """
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "zonesim" / "writing"


def _note(folder: Path) -> Path | None:
    """Note that this process writes a temporary folder in ``folder``; None if it cannot."""
    try:
        notes = notes_folder()
        notes.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f"{os.getpid()}.", suffix=".writing", dir=notes)
        with os.fdopen(handle, "wb") as file:
            file.write(os.fsencode(os.path.abspath(folder)))
    except (OSError, RuntimeError):  # no home folder, or none that can be written: best effort
        return None
    return Path(name)


def clean_left_over() -> list[Path]:
    """Remove the temporary result folders of processes that no longer run.

    They are looked for in ``results/`` and in every folder that a run noted
    (:func:`notes_folder`) and that is no longer running; the notes of those
    runs go with them. Each command line calls this first.
    """
    removed = clean_stale(RESULTS_DIR)
    try:
        notes = list(os.scandir(notes_folder()))
    except (OSError, RuntimeError):
        return removed
    for entry in notes:
        match = _NOTE.fullmatch(entry.name)
        if match is None or _alive(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            removed += clean_stale(Path(os.fsdecode(Path(entry.path).read_bytes())))
            os.unlink(entry.path)
    return removed


def _make_parents(final: Path) -> list[Path]:
    """Create the parents of ``final`` that are missing; return them, deepest first."""
    folder = final.parent
    missing = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            if not parent.is_dir():
                raise WriteError(final, f"{parent} is not a folder")
            break
        missing.append(parent)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(final, _cause(exc)) from None
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _rename(temp: Path, final: Path) -> Path:
    """Rename ``temp`` to ``final`` or, if that name is taken meanwhile, the next free one."""
    candidate, n = final, 1
    while True:
        if not candidate.exists():
            try:
                os.rename(temp, candidate)
                return candidate
            except OSError as exc:
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
        n += 1
        candidate = final.with_name(f"{final.name}-{n}")


def probe(final: Path) -> None:
    """Check before a long run that a folder can be made beside ``final`` (WriteError if not)."""
    final = Path(final)
    made = _make_parents(final)
    try:
        Path(tempfile.mkdtemp(prefix=f".{final.name}.{os.getpid()}.", suffix=".tmp",
                              dir=final.parent)).rmdir()
    except OSError as exc:
        raise WriteError(final, _cause(exc)) from None
    finally:
        _remove_empty(made)


@contextlib.contextmanager
def staged(final: Path) -> Iterator[Staged]:
    """Yield a :class:`Staged` whose ``temp`` folder becomes ``path`` when the block succeeds.

    ``path`` is ``final``, or ``final-2``, ``final-3``... if another run took
    the name while this one ran. On any exception the temporary folder, and
    any parent folders made for it, are removed; an :class:`OSError` becomes
    :class:`WriteError`.
    """
    final = Path(final)
    made = _make_parents(final)
    clean_stale(final.parent)
    note = _note(final.parent)
    try:
        temp = Path(tempfile.mkdtemp(prefix=f".{final.name}.{os.getpid()}.", suffix=".tmp",
                                     dir=final.parent))
    except OSError as exc:
        _forget(note)
        _remove_empty(made)
        raise WriteError(final, _cause(exc)) from None
    folder = Staged(temp, final)
    try:
        yield folder
        temp.chmod(0o755)  # mkdtemp makes it private (0o700); results are for sharing
        folder.path = _rename(temp, final)
    except OSError as exc:
        shutil.rmtree(temp, ignore_errors=True)
        _remove_empty(made)
        raise WriteError(final, _cause(exc)) from None
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        _remove_empty(made)
        raise
    finally:
        _forget(note)


def _forget(note: Path | None) -> None:
    """Remove a note of :func:`_note` (the folder is renamed or removed)."""
    if note is not None:
        with contextlib.suppress(OSError):
            note.unlink()


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into :class:`Stopped` inside the block (main thread only)."""
    def handler(signum, frame):
        raise Stopped(signum)

    wanted = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    try:
        previous = {s: signal.signal(s, handler) for s in wanted}
    except ValueError:  # not the main thread: leave the default behaviour
        yield
        return
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)
