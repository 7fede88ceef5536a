"""Batched kernel runs, the progress bar and Ctrl-C (issue 13).

Results may not depend on how a run is cut into batches; the bar and the
progress lines go to stderr only when it is a terminal and never with
--quiet; Ctrl-C ends a command between batches with status 130, one line and
nothing written.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sim import runner
from sim.cli import main, progress
from sim.kernels import dice
from tests.hostile import TIMEOUT


def test_batches_cover_every_chunk_once_in_order():
    ticks = itertools.count()
    for n_chunks, threads in [(1, 1), (7, 2), (256, 4), (256, 16), (3, 8)]:
        ranges = list(runner.batches(n_chunks, threads, clock=lambda: next(ticks) * 1e-4))
        assert ranges[0] == (0, min(threads, n_chunks))
        assert [r[0] for r in ranges[1:]] == [r[1] for r in ranges[:-1]]
        assert ranges[-1][1] == n_chunks
        sizes = [b - a for a, b in ranges[:-1]]
        assert all(s % threads == 0 for s in sizes)


def test_first_batch_is_whole_rounds_then_grows_at_most_eightfold():
    ticks = itertools.count()
    ranges = list(runner.batches(10_000, 3, 10, clock=lambda: next(ticks) * 1e-9))
    sizes = [b - a for a, b in ranges]
    assert sizes[:3] == [12, 96, 768]


def test_slow_batches_stay_one_round_of_threads():
    ticks = itertools.count()
    ranges = list(runner.batches(64, 4, clock=lambda: next(ticks) * 10.0))
    assert all(b - a == 4 for a, b in ranges)


class Recorder:
    def __init__(self):
        self.events = []

    def started(self, trials):
        self.events.append(("started", trials))

    def advanced(self, trials):
        self.events.append(("advanced", trials))


@pytest.mark.parametrize("batch_seconds", [0.0, 1e9])
def test_batching_never_changes_a_result(monkeypatch, batch_seconds):
    args = (dice.pool_kernel, 11, 100_003, (5,), 4, 5)
    whole = runner.run_counts(*args, chunk_size=1000)
    monkeypatch.setattr(runner, "BATCH_SECONDS", batch_seconds)
    monkeypatch.setattr(runner, "FIRST_TRIALS", 1)
    seen = Recorder()
    with runner.reporting(seen):
        batched = runner.run_counts(*args, chunk_size=1000, threads=2)
    np.testing.assert_array_equal(batched, whole)
    assert seen.events[0] == ("started", 100_003)
    assert sum(n for kind, n in seen.events[1:]) == 100_003
    if batch_seconds == 0.0:  # one round of threads per batch: 101 chunks in 51 batches
        assert len(seen.events) == 1 + 51


def test_integer_runs_use_short_chunks_with_the_same_counts():
    args = (dice.pool_kernel, 5, 3_000_001, (4,), 3, 5)
    coarse = runner.run_counts(*args, chunk_size=3_000_001 // 7)
    seen = Recorder()
    with runner.reporting(seen):
        fine = runner.run_counts(*args)  # plan of 11719 trials per chunk, cut to STOP_CHUNK
    np.testing.assert_array_equal(fine, coarse)
    assert sum(n for kind, n in seen.events[1:]) == 3_000_001


def test_bar_is_silent_when_disabled(capsys):
    bar = progress.Bar("combat", enabled=False)
    bar.expect(10)
    bar.started(10)
    bar.advanced(10)
    bar.points(1, 2)
    bar.note("zonesim report: [1/6] enemy deck")
    bar.close()
    assert capsys.readouterr() == ("", "")


def test_bar_counts_declared_trials_on_one_bar():
    bar = progress.Bar("combat", enabled=True)
    bar.expect(30)
    bar.started(10)
    first = bar._bar
    bar.advanced(10)
    bar.started(10)
    assert bar._bar is first and first.total == 30
    bar.advanced(10)
    bar.started(10)
    bar.advanced(10)
    assert bar._bar is None  # erased once all trials are done
    bar.close()


def test_no_progress_on_stderr_when_not_a_terminal(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    args = ["combat", "--stalker", "Strelok", "--enemy", "Bandit", "--trials", "50000",
            "--format", "json"]
    CliRunner().invoke(main, args)  # a cold cache announces its one compile; not a bar
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_quiet_silences_the_bar_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    seen = []
    monkeypatch.setattr(progress.Bar, "started", lambda self, n: seen.append(self.enabled))
    result = CliRunner().invoke(main, ["combat", "--stalker", "Strelok", "--enemy", "Bandit",
                                       "--trials", "50000", "--quiet"])
    assert result.exit_code == 0, result.output
    assert seen == []


def _interrupted(args: list[str], tmp_path: Path, wait: float) -> subprocess.CompletedProcess:
    # One kernel thread: the run only has to be going when the signal comes, and a second
    # thread would take a core from the other test worker for the whole wait.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NUMBA_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(wait)
    proc.send_signal(signal.SIGINT)
    # The run asked for would take hours: ending within TIMEOUT is ending between batches,
    # whatever the load (a clock bound of a few seconds failed on a busy machine).
    out, err = proc.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.subprocess
@pytest.mark.slow
def test_ctrl_c_stops_a_long_run_with_one_line(tmp_path):
    done = _interrupted(["campaign", "--trials", "100000000", "--format", "json"], tmp_path, 6.0)
    err = done.stderr
    assert done.returncode == 130, done.stderr
    assert done.stdout == ""
    assert err.strip().splitlines()[-1] == "zonesim: interrupted; nothing was written"
    assert "Traceback" not in err


@pytest.mark.subprocess
@pytest.mark.slow
def test_ctrl_c_leaves_no_results_folder(tmp_path):
    done = _interrupted(["report", "--trials", "20000000", "--campaign-trials", "1000"],
                        tmp_path, 8.0)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())


def test_compile_notice_names_the_kernel_and_its_rough_time_once(capsys, tmp_path):
    from types import SimpleNamespace

    cache = SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(tmp_path / "none")),
                            _cache_path=str(tmp_path))
    kernel = SimpleNamespace(__name__="campaign_kernel", signatures=[], _cache=cache)
    runner._announced.discard("campaign_kernel")
    runner.announce_compile(kernel)
    runner.announce_compile(kernel)
    err = capsys.readouterr().err
    seconds = runner.COMPILE_SECONDS["campaign_kernel"]
    assert err == (f"zonesim: compiling kernel campaign_kernel, about {seconds} s (first run only; "
                   f"cached in {tmp_path})\n")
