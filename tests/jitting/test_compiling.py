"""First compiles across processes (issue 13): numba's cache index written by one process at a
time, one process compiling a kernel while the others wait and load it, and a second process
compiling ahead that never outlives its command."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from sim import compiling, runner
from sim.jitting import cachefiles
from tests.hostile import TIMEOUT

SAVER = """
import sys
from numba.core.caching import IndexDataCacheFile
import sim.jitting.options  # installs the index lock
cache = IndexDataCacheFile(sys.argv[1], "helper-1.py311", ("stamp", 1))
sys.stdin.readline()  # both processes start saving together
for i in range(int(sys.argv[3])):
    cache.save((sys.argv[2], i), (sys.argv[2], i))
"""


@pytest.mark.subprocess
def test_index_saves_from_two_processes_keep_every_entry_with_its_own_data(tmp_path):
    """Unlocked, two processes adding signatures to one index lose entries or give two of them
    the same data file (which then holds the other's machine code)."""
    n = 60
    save_at_once(SAVER, tmp_path, n)
    from numba.core.caching import IndexDataCacheFile

    import sim.jitting.options  # noqa: F401 - reads the sealed files the savers wrote

    cache = IndexDataCacheFile(str(tmp_path), "helper-1.py311", ("stamp", 1))
    keys = [(name, i) for name in ("a", "b") for i in range(n)]
    assert sorted(cache._load_index()) == sorted(keys)
    assert all(cache.load(key) == key for key in keys)


def save_at_once(saver: str, folder: Path, n: int) -> None:
    """Run the script ``saver`` in two processes (``a`` and ``b``) that each add ``n``
    signatures to one cache index in ``folder``, released together once both have imported
    numba, and wait until both exit cleanly."""
    procs = [subprocess.Popen([sys.executable, "-c", saver, str(folder), name, str(n)],
                              stdin=subprocess.PIPE, text=True) for name in ("a", "b")]
    time.sleep(1.5)  # both have imported numba
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    assert [proc.wait(timeout=TIMEOUT) for proc in procs] == [0, 0]
    for proc in procs:
        proc.stdin.close()


class FakeCacheFile:
    """The parts of numba's IndexDataCacheFile that sim.compiling reads."""

    def __init__(self, folder: Path) -> None:
        self._index_path = str(folder / "kernel-1.py311.nbi")
        self.folder = folder

    def _load_index(self) -> dict:
        try:
            return pickle.loads(Path(self._index_path).read_bytes())
        except FileNotFoundError:
            return {}

    def _data_path(self, name: str) -> str:
        return str(self.folder / name)

    def save(self) -> None:
        """What another process does once its compile is done: data file, then index."""
        Path(self._data_path("kernel.1.nbc")).write_bytes(b"code")
        Path(self._index_path).write_bytes(pickle.dumps({"sig": "kernel.1.nbc"}))


def fake_kernel(folder: Path, name: str = "play_run"):
    from types import SimpleNamespace

    cache_file = FakeCacheFile(folder)
    kernel = SimpleNamespace(__name__=name, signatures=[],
                             _cache=SimpleNamespace(_cache_file=cache_file,
                                                    _cache_path=str(folder)))
    return kernel, cache_file


def test_a_process_waits_while_another_compiles_and_loads_its_kernel(tmp_path, capsys):
    kernel, cache_file = fake_kernel(tmp_path)
    held = cachefiles.try_lock(cache_file._index_path + ".lock")  # another process compiles
    assert held is not None
    done = threading.Event()

    def run():
        with runner.first_run(kernel):
            done.set()

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.3)
    assert not done.is_set()  # waiting, not compiling a second time
    cache_file.save()
    thread.join(timeout=TIMEOUT)
    assert done.is_set()
    cachefiles.unlock(held)
    assert "compiling kernel" not in capsys.readouterr().err  # loaded, not compiled here


def test_the_kernel_is_locked_while_it_compiles_here(tmp_path):
    kernel, cache_file = fake_kernel(tmp_path)
    lock = cache_file._index_path + ".lock"
    with runner.first_run(kernel):
        assert cachefiles.try_lock(lock) is None
    fd = cachefiles.try_lock(lock)
    assert fd is not None
    cachefiles.unlock(fd)


def test_without_a_lock_file_it_compiles_here_and_starts_no_second_process(
        tmp_path, monkeypatch, capsys):
    """A read-only cache folder (numba then caches elsewhere or not at all): compile here."""
    def refuse(path):
        raise PermissionError(path)

    monkeypatch.setattr(cachefiles, "try_lock", refuse)
    kernel, _ = fake_kernel(tmp_path, "lonely_kernel")
    with compiling.ahead("no_such_module"), runner.first_run(kernel):
        assert compiling._State.child is None
    assert "compiling kernel lonely_kernel" in capsys.readouterr().err


def test_the_second_process_stops_at_a_kernel_another_one_has(tmp_path, monkeypatch):
    monkeypatch.setattr(compiling._State, "ahead", True)
    monkeypatch.setattr(compiling._State, "held", [])
    kernel, cache_file = fake_kernel(tmp_path)
    held = cachefiles.try_lock(cache_file._index_path + ".lock")
    with pytest.raises(compiling.Busy), compiling.first_run(kernel):
        pass
    cachefiles.unlock(held)
    cache_file.save()
    with pytest.raises(compiling.Busy), compiling.first_run(kernel):  # saved: the command's
        pass


def test_a_second_process_that_gives_a_kernel_up_keeps_none_of_its_locks(tmp_path, monkeypatch):
    """A pool kernel of two compiled functions, the second one busy: the lock taken on the first
    is released with Busy, so the command compiles it at once instead of waiting."""
    from types import SimpleNamespace

    monkeypatch.setattr(compiling._State, "ahead", True)
    monkeypatch.setattr(compiling._State, "held", [])
    first, first_file = fake_kernel(tmp_path / "a", "a_first")
    second, second_file = fake_kernel(tmp_path / "b", "b_second")
    pool = SimpleNamespace(__name__="pool", pool_compiled=(first, second))
    os.makedirs(os.path.dirname(second_file._index_path), exist_ok=True)
    held = cachefiles.try_lock(second_file._index_path + ".lock")  # the command compiles it
    with pytest.raises(compiling.Busy), compiling.first_run(pool):
        pass
    fd = cachefiles.try_lock(first_file._index_path + ".lock")
    assert fd is not None, "the second process still holds the lock of a kernel it gave up"
    cachefiles.unlock(fd)
    cachefiles.unlock(held)
    assert compiling._State.held == []


def test_compiling_ahead_goes_on_past_a_section_the_report_has(monkeypatch):
    """sim.report.ahead runs the sections last first; one meeting a kernel the report has
    (Busy) is left to it, and the sections before it are still tried."""
    from sim.report import ahead, build

    ran = []

    def section(name, busy):
        def run(sc, trials, seed):
            ran.append(name)
            if busy:
                raise compiling.Busy(name)
        return run

    monkeypatch.setattr(compiling, "serve", lambda: None)
    monkeypatch.setattr(build, "steps", lambda *a: [
        ("first", section("first", False), 1), ("middle", section("middle", True), 1),
        ("last", section("last", True), 1)])
    ahead.main(["base"])
    assert ran == ["last", "middle", "first"]


def test_the_second_process_leaves_a_step_whose_kernel_an_earlier_step_compiled(
        tmp_path, monkeypatch):
    """Within a step a kernel runs as often as the step asks; in a later step, a kernel an
    earlier one compiled is Busy at once (running it again would compile nothing)."""
    monkeypatch.setattr(compiling._State, "ahead", True)
    monkeypatch.setattr(compiling._State, "held", [])
    kernel, _ = fake_kernel(tmp_path / "a")
    other, _ = fake_kernel(tmp_path / "b", "other_kernel")
    with compiling.step():
        with compiling.first_run(kernel):
            kernel.signatures.append("int64")  # compiled here
        with compiling.first_run(kernel):  # the same step runs it again
            pass
    with pytest.raises(compiling.Busy), compiling.step(), compiling.first_run(kernel):
        pass
    with compiling.step(), compiling.first_run(other):  # not compiled yet: this step goes on
        pass
    with compiling.first_run(kernel):  # outside a step (tests/warm.py): as before
        pass


def test_compiling_ahead_skips_the_sections_whose_kernel_it_compiled_already(monkeypatch):
    """sim.report.ahead: the best-play search compiles the campaign kernel; the campaign
    sections before it stop at their first run of it instead of playing their games (issue
    45, item 4), and a section with a kernel not yet compiled still runs."""
    from types import SimpleNamespace

    from sim.report import ahead, build

    campaign = SimpleNamespace(__name__="play_games", signatures=[], _cache=None)
    deck = SimpleNamespace(__name__="event_kernel", signatures=[], _cache=None)
    played = []
    section = played_section(played)
    monkeypatch.setattr(compiling._State, "held", [])
    monkeypatch.setattr(compiling, "serve", lambda: setattr(compiling._State, "ahead", True))
    monkeypatch.setattr(compiling._State, "ahead", False)
    monkeypatch.setattr(build, "steps", lambda *a: [
        ("event deck", section("event deck", deck), 1),
        ("campaign", section("campaign", campaign), 1),
        ("best play", section("best play", campaign), 1)])
    ahead.main(["base"])
    assert played == ["best play", "event deck"]


def test_the_suite_warm_up_skips_the_report_sections_of_a_kernel_it_compiled(monkeypatch):
    """tests/warm.py compiles the campaign kernel first, outside the report's sections; its
    report warm-up then leaves the campaign sections at once and compiles the deck kernels."""
    from types import SimpleNamespace

    from sim.report import build
    from tests import warm

    campaign = SimpleNamespace(__name__="play_games", signatures=["int64"], _cache=None)
    deck = SimpleNamespace(__name__="event_kernel", signatures=[], _cache=None)
    played = []
    section = played_section(played)
    monkeypatch.setattr(compiling._State, "held", [])
    monkeypatch.setattr(compiling._State, "ahead", True)
    monkeypatch.setattr(build, "steps", lambda *a: [
        ("event deck", section("event deck", deck), 1),
        ("campaign", section("campaign", campaign), 1)])
    warm._report()
    assert played == ["event deck"]


def played_section(played: list):
    """A fake report section ``name`` that runs ``kernel`` twice (compiling it the first time)
    and then notes in ``played`` that it played its games."""
    def section(name, kernel):
        def run(sc, trials, seed):
            for _ in range(2):
                with compiling.first_run(kernel):
                    kernel.signatures[:] = ["int64"]
            played.append(name)
        return run
    return section


def test_the_second_process_keeps_its_lock_until_its_next_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(compiling._State, "ahead", True)
    monkeypatch.setattr(compiling._State, "held", [])
    first, first_file = fake_kernel(tmp_path / "a")
    second, _ = fake_kernel(tmp_path / "b")
    lock = first_file._index_path + ".lock"
    with compiling.first_run(first):
        pass
    assert cachefiles.try_lock(lock) is None  # it compiles after announcing (simulate_trials)
    with compiling.first_run(second):
        fd = cachefiles.try_lock(lock)
        assert fd is not None
        cachefiles.unlock(fd)
    compiling._release(compiling._State.held)


CHILD = """
import sys, time
from sim import compiling
compiling.serve()
print("zonesim: compiling kernel fake_kernel, in a second process", file=sys.stderr, flush=True)
time.sleep(3600)
"""


@pytest.fixture
def child_module(tmp_path, monkeypatch):
    (tmp_path / "fake_ahead.py").write_text(textwrap.dedent(CHILD))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    return "fake_ahead"


def _wait_for(predicate, seconds: float = TIMEOUT) -> None:
    stop = time.perf_counter() + seconds
    while not predicate() and time.perf_counter() < stop:
        time.sleep(0.05)


@pytest.mark.subprocess
def test_the_second_process_speaks_through_this_one_and_dies_with_the_block(
        child_module, capfd):
    with compiling.ahead(child_module):
        compiling._start_ahead()
        proc = compiling._State.child.proc
        _wait_for(lambda: "fake_kernel" in capfd.readouterr().err or proc.poll() is not None)
        assert proc.poll() is None
    assert proc.returncode == -9  # killed at the block's end, not waited for (status 0)
    assert compiling._State.child is None and compiling._State.plan is None


@pytest.mark.subprocess
def test_the_second_process_ends_when_the_first_goes(child_module):
    child = compiling.Child(child_module, ())
    time.sleep(2.0)  # it is running, blocked on its stdin
    child.proc.stdin.close()  # what the system does when the first process dies
    assert child.proc.wait(timeout=TIMEOUT) == 0  # not the hour's sleep
    child.stop()


def test_no_second_process_without_a_compile(child_module):
    with compiling.ahead(child_module):
        assert compiling._State.child is None
