"""First compiles: one process compiles a kernel at a time, and a second one compiles ahead.

numba compiles a kernel on its first call, on one core and holding the GIL,
and (``cache=True``) saves the machine code in the kernel's cache folder, from
which any later process loads it in well under a second. Two things follow.

- Processes sharing a cache folder (pytest-xdist workers, two commands) each
  compiled a kernel that none had saved yet. :func:`first_run` takes a lock
  per compiled function (``<numba's index file>.lock``, see
  :mod:`sim.jitting.cachefiles`): one process compiles it, the others wait
  until its machine code is saved and load it.
- A command needing several kernels compiled them one after another on one
  core. Inside :func:`ahead`, the first compile of a command also starts a
  second process (:class:`Child`) that runs the command's later steps with a
  few trials, last step first, so that their kernels compile on another core
  while this process compiles and runs the first ones. The second process
  leaves a step at the first kernel that another process has saved or is
  compiling (the command got there first), or that one of its earlier steps
  compiled (:func:`step`: running it again would compile nothing, and only
  take a core from the command), and it is killed when the block ends or this
  process exits (also on Ctrl-C); it ends by itself if this process is killed.

Results never change: a kernel loaded from the cache is the machine code the
other process compiled from the same source with the same options. Where no
lock can be taken (a read-only cache folder, no file locks on the system)
every kernel compiles in the process that runs it, as before.

A process holding a lock may be stopped (Ctrl-Z, SIGSTOP) in the middle of a
compile, and would hold every later command waiting. A lock file records its
holder's process id (:func:`sim.jitting.cachefiles.try_lock`); a process that
has waited :data:`NOTICE_SECONDS` says on stderr which process compiles which
kernel where, and after :func:`wait_limit` seconds (:data:`WAIT_SECONDS`,
``ZONESIM_COMPILE_WAIT`` sets it) it compiles the kernel itself without the
cache, saying so (:class:`_Wait`). This module imports no numba, so that the
command line can check ``ZONESIM_COMPILE_WAIT`` before numba loads, and ask it
whether a failure was the compiler running out of memory (:func:`out_of_memory`),
numba failing to load included.
"""

from __future__ import annotations

import atexit
import errno
import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sim.jitting import cachefiles

POLL_SECONDS = 0.05
"""How often a process waiting for another one's compile looks whether it is saved."""

NOTICE_SECONDS = 5.0
"""After this long waiting for another process's compile (half the limit, if less), one line
says which process compiles which kernel, and where."""

WAIT_SECONDS = 180.0
"""How long a process waits for another one's compile before it compiles the kernel itself,
without the cache (:data:`WAIT_VARIABLE` sets it). A compile takes 2 to 40 s on two cores
(90 s for the campaign kernel without the numba patches), so only a holder that is stopped,
or starved for minutes, is given up on."""

WAIT_VARIABLE = "ZONESIM_COMPILE_WAIT"
"""The environment variable that sets the wait (seconds, 0 to :data:`MAX_WAIT`)."""

MAX_WAIT = 86400.0
"""The longest wait :data:`WAIT_VARIABLE` may ask for (a day)."""


class Busy(Exception):
    """In a process compiling ahead: another process has this kernel, so there is no more to do."""


class _State:
    """What this process is doing about compiles (module state: one command per process)."""

    ahead = False  # this is the second process, compiling ahead
    held: list[int] = []  # locks the second process keeps until its next kernel
    step: set[int] | None = None  # the second process: ids of the kernels its step has run
    plan: tuple[str, tuple[str, ...]] | None = None  # what ahead() would start
    child: Child | None = None  # the second process, once started


def compiled(kernel) -> tuple:
    """The compiled functions a first run of ``kernel`` compiles (a pool kernel: several)."""
    return getattr(kernel, "pool_compiled", (kernel,))


def say(line: str) -> None:
    """Print ``line`` on stderr without tearing a progress bar that is on screen.

    tqdm (loaded only when a bar may show) clears its bars, prints and redraws
    them under its lock, so lines from another thread (a second process's
    notices) are safe too.
    """
    tqdm = sys.modules.get("tqdm")
    if tqdm is None:
        print(line, file=sys.stderr, flush=True)
    else:
        tqdm.tqdm.write(line, file=sys.stderr)
        sys.stderr.flush()


@contextmanager
def first_run(kernel) -> Iterator[None]:
    """Around a run of ``kernel``: wait while another process compiles its functions, and
    lock those this process will compile, for the block (a second process: until its next
    kernel, since a kernel it merely announces compiles after the block).

    Raises
    ------
    Busy
        In a second process, when another process has saved or is compiling one of them.
    """
    if _State.ahead:
        _release(_State.held)
        _earlier_step(kernel)
    fds: list[int] = []
    wait = _Wait()
    try:
        for k in sorted(compiled(kernel), key=lambda k: getattr(k, "__name__", "")):
            fd = None if k.signatures else _wait_or_lock(k, wait)
            if fd is not None:
                fds.append(fd)
        if fds and not _State.ahead:
            _start_ahead()
        yield
    except Busy:  # a second process gives up this kernel: the report compiles it, unhindered
        _release(fds)
        raise
    finally:
        if _State.ahead:
            _State.held = fds
        else:
            _release(fds)


def _earlier_step(kernel) -> None:
    """In a second process, within a :func:`step`: raise :class:`Busy` at the first run in this
    step of a kernel whose every function an earlier step compiled (or loaded).

    Running it again compiles nothing: the rest of the step would only take a core from the
    command, and delay the kernels of the steps after it (the report's campaign sections after
    the best-play search, which compiled their kernel: issue 45, item 4).
    """
    seen = _State.step
    if seen is None or id(kernel) in seen:
        return
    functions = compiled(kernel)
    if functions and all(k.signatures for k in functions):
        raise Busy(getattr(kernel, "__name__", repr(kernel)))
    seen.add(id(kernel))


@contextmanager
def step() -> Iterator[None]:
    """In a second process, around one of the command's steps run ahead (a report section):
    a kernel that an earlier step compiled stops this one at its first run (:class:`Busy`,
    as a kernel the command has does), so that only steps with something left to compile run on.
    """
    _State.step = set()
    try:
        yield
    finally:
        _State.step = None


def _release(fds: list[int]) -> None:
    while fds:
        cachefiles.unlock(fds.pop())


def _wait_or_lock(k, wait: _Wait) -> int | None:
    """Lock ``k`` if this process is to compile it (None: it loads from the cache, there is no
    lock, or ``wait`` is over and ``k`` is compiled here uncached).
    """
    path = _lock_path(k)
    while path is not None:
        if saved(k):
            break
        try:
            fd = cachefiles.try_lock(path)
        except OSError:  # read-only folder: compile here, unlocked
            return None
        if fd is not None:
            if not saved(k):
                return fd
            cachefiles.unlock(fd)  # saved while the lock was being taken
            break
        if _State.ahead:
            raise Busy(k.__name__)
        if wait.over(k, path):
            _uncache(k)
            return None
        time.sleep(POLL_SECONDS)
    if _State.ahead and path is not None:
        raise Busy(k.__name__)
    return None


class _Wait:
    """One :func:`first_run`'s wait for other processes' compiles: a line after
    :data:`NOTICE_SECONDS`, and the end after :func:`wait_limit` seconds (for all the
    kernel's compiled functions together).
    """

    def __init__(self) -> None:
        self.start: float | None = None
        self.noticed = False
        self.limit = wait_limit()

    def over(self, k, path: str) -> bool:
        """Whether the wait for ``k`` (locked at ``path`` by another process) is over: then
        ``k`` is compiled here, without the cache, as the line printed says.
        """
        now = time.monotonic()
        if self.start is None:
            self.start = now
        waited = now - self.start
        if not self.noticed and waited >= min(NOTICE_SECONDS, self.limit / 2):
            self.noticed = True
            if not _ahead_of_this(path):  # whose own notice said it compiles it
                say(f"zonesim: waiting for {_process(path)} to compile kernel {k.__name__} "
                    f"(lock {path}); after {self.limit:g} s this process compiles it itself, "
                    f"without the cache ({WAIT_VARIABLE} sets the wait)")
        if waited < self.limit:
            return False
        say(f"zonesim: {_process(path)} still holds kernel {k.__name__} after {self.limit:g} "
            f"s; compiling it here, without the cache")
        self.limit = 0.0  # the kernel's other functions are not waited for either
        return True


def _ahead_of_this(path: str) -> bool:
    """Whether the lock ``path`` is held by this process's second process (:class:`Child`)."""
    child = _State.child
    return child is not None and child.proc is not None and \
        cachefiles.holder(path) == child.proc.pid


def _process(path: str) -> str:
    """The process holding the lock ``path`` in words: its id, and whether it is stopped."""
    pid = cachefiles.holder(path)
    if pid is None:
        return "another process"
    try:
        with open(f"/proc/{pid}/stat") as f:  # Linux: the state follows the command's name
            stopped = f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except (OSError, IndexError):
        stopped = False
    return f"process {pid}{' (stopped, as by Ctrl-Z)' if stopped else ''}"


def _uncache(k) -> None:
    """Make ``k`` compile in this process without reading or writing the on-disk cache."""
    from numba.core.caching import NullCache

    k._cache = NullCache()


def wait_limit() -> float:
    """Seconds to wait for another process's compile: :data:`WAIT_VARIABLE`, else
    :data:`WAIT_SECONDS` (also when the variable is not a valid wait; the command line
    refuses those first, :func:`wait_problem`).
    """
    text = os.environ.get(WAIT_VARIABLE)
    if text is None or wait_problem() is not None:
        return WAIT_SECONDS
    return float(text)


def wait_problem() -> str | None:
    """What is wrong with :data:`WAIT_VARIABLE`, or None (unset, or seconds from 0 to
    :data:`MAX_WAIT`).
    """
    text = os.environ.get(WAIT_VARIABLE)
    if text is None:
        return None
    try:
        if 0 <= float(text) <= MAX_WAIT:
            return None
    except ValueError:
        pass
    return (f"environment variable {WAIT_VARIABLE}={text!r} is not a number of seconds from 0 "
            f"to {MAX_WAIT:g}; set one, or unset it to wait {WAIT_SECONDS:g} s for another "
            f"process's compile")


MEMORY_WORDS = ("cannot allocate memory", "out of memory", "failed to map segment")
"""What the system's loader and numba's compiler say when they get no memory: "failed to map
segment" (a shared library that cannot be mapped, as llvmlite's when numba loads) counts only
under an address-space limit, since a folder mounted ``noexec`` says it too."""


def out_of_memory(error: BaseException) -> str | None:
    """The one line that says ``error`` is this process running out of memory, with the
    address-space limit (``ulimit -v``) when one is set and what to do; None if it is not.

    Under a low limit numba's compiler fails in several ways, none of them saying
    why: llvmlite cannot load its library ("Could not find/load shared object
    file", as if it were not installed), a ``MemoryError`` deep in numba, an
    ``ImportError`` of another library. A ``MemoryError``, an ``ENOMEM`` or a
    :data:`MEMORY_WORDS` message anywhere in ``error``'s chain is a memory
    failure; it is numba's compiler's when the traceback passes through numba or
    llvmlite. LLVM itself may end the process at once instead ("LLVM ERROR: out
    of memory", exit status 134), which nothing here can catch.
    """
    limit = _address_limit()
    chain, compiler = [], False
    while error is not None and error not in chain:
        chain.append(error)
        compiler = compiler or _through_compiler(error.__traceback__)
        error = error.__cause__ or error.__context__
    words = MEMORY_WORDS if limit is not None else MEMORY_WORDS[:-1]
    if not any(isinstance(e, MemoryError) or getattr(e, "errno", None) == errno.ENOMEM
               or any(word in str(e).lower() for word in words) for e in chain):
        return None
    what = "numba's compiler (llvmlite) ran out of memory" if compiler else "out of memory"
    if limit is None:
        return f"zonesim: {what}; free some memory and run the command again"
    return (f"zonesim: {what} under the address-space limit of {_size(limit)} (ulimit -v); "
            f"raise it or remove it (ulimit -v unlimited) and run the command again")


def _address_limit() -> int | None:
    """The address-space limit of this process in bytes (``RLIMIT_AS``), or None (none, or
    unknown).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def _size(size: int) -> str:
    """``size`` bytes in MiB (or GiB from 10 GiB on), as ``ulimit -v`` users think of it."""
    mib = size / 2**20
    return f"{mib:,.0f} MiB" if mib < 10240 else f"{mib / 1024:,.0f} GiB"


def _through_compiler(tb) -> bool:
    """Whether the traceback ``tb`` passes through a file of numba or llvmlite."""
    while tb is not None:
        if {"numba", "llvmlite"} & set(Path(tb.tb_frame.f_code.co_filename).parts):
            return True
        tb = tb.tb_next
    return False


def _lock_path(k) -> str | None:
    """The lock file beside ``k``'s cache index (None: ``k`` is not cached on disk)."""
    cache_file = getattr(getattr(k, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    if index is None:
        return None
    try:
        os.makedirs(os.path.dirname(index), exist_ok=True)
    except OSError:
        return None
    return index + ".lock"


def saved(k) -> bool:
    """Whether ``k``'s cache index lists machine code whose files are all written."""
    cache_file = getattr(getattr(k, "_cache", None), "_cache_file", None)
    try:
        entries = cache_file._load_index()
        return bool(entries) and all(os.path.exists(cache_file._data_path(name))
                                     for name in entries.values())
    except Exception:  # no such numba internals, or an unreadable index: not saved
        return False


@contextmanager
def ahead(module: str, *args: str) -> Iterator[None]:
    """Within the block, the first compile here starts ``python -m module *args`` compiling ahead.

    ``module`` runs the block's later steps, last first, with few trials, as a
    second process (:func:`serve`); no compile, no second process. The second
    process is killed when the block ends.
    """
    if _State.ahead or _State.plan is not None:  # the second process itself, or nested
        yield
        return
    _State.plan = (module, args)
    try:
        yield
    finally:
        child, _State.plan, _State.child = _State.child, None, None
        if child is not None:
            child.stop()


def _start_ahead() -> None:
    if _State.plan is not None and _State.child is None:
        _State.child = Child(*_State.plan)


class Child:
    """``python -m module *args``, compiling ahead: its stderr (compile notices) is said here
    (``quiet``: dropped).

    It runs in a session of its own, so that Ctrl-C on the terminal reaches
    only this process, which kills it (:meth:`stop`) when the compiling block
    ends or at exit; its stdin is a pipe whose end (this process gone, however)
    ends it too (:func:`serve`). It is given this process's ``sim`` package
    and numba cache folder.
    """

    def __init__(self, module: str, args: tuple[str, ...], quiet: bool = False) -> None:
        from sim.jitting import options  # numba: only once a kernel is to be compiled

        env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]))}
        env.pop("NUMBA_CACHE_DIR", None)
        if options.cache_base():
            env["NUMBA_CACHE_DIR"] = options.cache_base()
        self.proc = None
        self._thread: threading.Thread | None = None
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-P", "-m", module, *args], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if quiet else subprocess.PIPE,
                env=env, text=True, start_new_session=True)
        except OSError:  # no interpreter to start: this process compiles everything
            return
        if not quiet:
            self._thread = threading.Thread(target=self._forward, daemon=True,
                                            name="zonesim-ahead")
            self._thread.start()
        atexit.register(self.stop)

    def _forward(self) -> None:
        """Say the second process's own lines (compile notices); anything else it may print
        as it fails (LLVM's "out of memory" as it stops) is not about this command, which
        compiles what the second one did not.
        """
        with self.proc.stderr:
            for line in self.proc.stderr:
                if line.startswith("zonesim: "):
                    say(line.rstrip("\n"))

    def stop(self) -> None:
        """Kill the second process (if it still runs) and wait for it and its last lines."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self._thread is not None:  # its last lines are said before the block ends
            self._thread.join(timeout=5)
        self.proc.stdin.close()
        atexit.unregister(self.stop)


def serve() -> None:
    """Make this process the second one: compile ahead, say little, end with the first.

    :func:`first_run` then raises :class:`Busy` at a kernel another process
    has (or, within a :func:`step`, one an earlier step compiled), and keeps
    each lock until the next kernel; warnings are not shown;
    when stdin (the first process's pipe) ends, this process ends at once.
    """
    _State.ahead = True
    warnings.simplefilter("ignore")
    threading.Thread(target=_end_with_parent, daemon=True, name="zonesim-parent").start()


def _end_with_parent() -> None:
    """Wait for the end of stdin, then end this process (unbuffered: no lock held at exit)."""
    fd = sys.stdin.fileno()
    while os.read(fd, 4096):
        pass
    os._exit(0)


def is_ahead() -> bool:
    """Whether this is the second process, compiling ahead."""
    return _State.ahead
