"""A process stopped while it holds a kernel's compile lock hangs no other command (issue 43,
item 6).

A first run paused with Ctrl-Z in the middle of a compile kept its lock, and every later
command waited for it without a word. Now the waiting process names the holder, the kernel
and the lock after a few seconds, and compiles the kernel itself, without the cache, after
``ZONESIM_COMPILE_WAIT`` seconds (shortened here). The holder is a real process, stopped with
SIGSTOP; the kernel is a stand-in (no compile).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from sim import compiling, runner
from sim.jitting import cachefiles
from tests.hostile import TIMEOUT
from tests.jitting.test_compiling import fake_kernel

HOLDER = """
import sys, time
from sim.jitting import cachefiles
fd = cachefiles.try_lock(sys.argv[1])
print("locked" if fd is not None else "busy", flush=True)
time.sleep(600)
"""


@pytest.fixture
def stopped_holder(tmp_path):
    """A process holding the compile lock of a kernel in ``tmp_path``, stopped (SIGSTOP)."""
    kernel, cache_file = fake_kernel(tmp_path, "play_run")
    lock = cache_file._index_path + ".lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, lock], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline() == "locked\n"
        os.kill(proc.pid, signal.SIGSTOP)
        yield kernel, lock, proc.pid
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def run_in_thread(kernel, seconds: float) -> tuple[bool, float]:
    """Run ``first_run(kernel)`` in a thread; whether its block ran within ``seconds``, and
    after how long."""
    ran = threading.Event()
    start = time.monotonic()

    def run():
        with runner.first_run(kernel):
            ran.set()

    threading.Thread(target=run, daemon=True).start()  # today it would wait for ever
    ran.wait(timeout=seconds)
    return ran.is_set(), time.monotonic() - start


@pytest.mark.subprocess
def test_a_stopped_holder_is_named_and_then_compiled_around(stopped_holder, monkeypatch,
                                                            capsys):
    kernel, lock, pid = stopped_holder
    monkeypatch.setenv("ZONESIM_COMPILE_WAIT", "3")
    ran, seconds = run_in_thread(kernel, TIMEOUT)  # a hang catcher: today it waited for ever
    assert ran, "still waiting for the stopped process"
    assert seconds >= 3
    waiting, giving_up = capsys.readouterr().err.splitlines()
    assert waiting == (f"zonesim: waiting for process {pid} (stopped, as by Ctrl-Z) to compile "
                       f"kernel play_run (lock {lock}); after 3 s this process compiles it "
                       f"itself, without the cache (ZONESIM_COMPILE_WAIT sets the wait)")
    assert giving_up == (f"zonesim: process {pid} (stopped, as by Ctrl-Z) still holds kernel "
                         f"play_run after 3 s; compiling it here, without the cache")
    assert getattr(kernel._cache, "_cache_file", None) is None  # nothing read or written
    assert cachefiles.holder(lock) == pid  # its lock untouched


def test_the_notice_comes_first_and_a_holder_that_finishes_is_waited_for(
        tmp_path, monkeypatch, capsys):
    """The holder saves its kernel after the notice and before the limit: it is loaded, not
    compiled here."""
    monkeypatch.setenv("ZONESIM_COMPILE_WAIT", str(TIMEOUT))
    monkeypatch.setattr(compiling, "NOTICE_SECONDS", 0.5)
    kernel, cache_file = fake_kernel(tmp_path, "play_run")
    lock = cache_file._index_path + ".lock"
    held = cachefiles.try_lock(lock)
    original = kernel._cache
    threading.Timer(2.0, cache_file.save).start()
    ran, seconds = run_in_thread(kernel, 2 * TIMEOUT)
    cachefiles.unlock(held)
    assert ran and seconds >= 2
    [waiting] = capsys.readouterr().err.splitlines()  # no "compiling it here": not given up
    assert waiting.startswith(f"zonesim: waiting for process {os.getpid()} to compile kernel "
                              f"play_run (lock {lock})")
    assert kernel._cache is original


def test_a_lock_names_its_holder(tmp_path):
    lock = str(tmp_path / "k.nbi.lock")
    (tmp_path / "k.nbi.lock").write_text("99999999 left by an earlier holder\n")
    fd = cachefiles.try_lock(lock)
    assert cachefiles.holder(lock) == os.getpid()
    cachefiles.unlock(fd)


@pytest.mark.subprocess
@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "1e9"])
def test_a_bad_wait_setting_is_refused_before_any_work(value):
    result = subprocess.run([sys.executable, "-m", "sim.cli", "prob", "pool", "--dice", "2"],
                            env={**os.environ, "ZONESIM_COMPILE_WAIT": value},
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"Error: environment variable ZONESIM_COMPILE_WAIT={value!r} is not a number of "
        f"seconds from 0 to 86400; set one, or unset it to wait 180 s for another process's "
        f"compile")


@pytest.mark.parametrize("value", [None, "0", "2.5", "86400"])
def test_a_good_wait_setting_is_used(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("ZONESIM_COMPILE_WAIT", raising=False)
    else:
        monkeypatch.setenv("ZONESIM_COMPILE_WAIT", value)
    assert compiling.wait_problem() is None
    assert compiling.wait_limit() == (compiling.WAIT_SECONDS if value is None else float(value))


def test_no_notice_while_this_commands_own_second_process_compiles(tmp_path, monkeypatch,
                                                                   capsys):
    """``zonesim report`` waits for kernels its second process compiles ahead, as a matter of
    course: that process's notice already said so, and no line is added."""
    from types import SimpleNamespace

    monkeypatch.setattr(compiling, "NOTICE_SECONDS", 0.2)
    kernel, cache_file = fake_kernel(tmp_path, "play_run")
    held = cachefiles.try_lock(cache_file._index_path + ".lock")  # as if by the second process
    monkeypatch.setattr(compiling._State, "child",
                        SimpleNamespace(proc=SimpleNamespace(pid=os.getpid())))
    threading.Timer(1.0, cache_file.save).start()
    ran, _ = run_in_thread(kernel, 15)
    cachefiles.unlock(held)
    assert ran and capsys.readouterr().err == ""
