"""No finished work thrown away, nothing half-written left behind (issue 14, item 3).

Two runs of one name keep a folder each; sweeps check their grid, metric and ``--out`` before
the first point; a report stopped by a signal or killed leaves nothing the next command does
not clean; pool workers end with their parent. The signal cases run ``zonesim`` in
subprocesses with a limit (:data:`tests.hostile.TIMEOUT`) that covers a cold compile under load.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from sim.paths import resolve_ruleset
from sim.report import staging
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario, scenario_path
from sim.workflows.sweep import SweepError, Vary, grid
from tests.hostile import BASE, HUGE, SCENARIO, TIMEOUT, run, wait_for_temp, zonesim

# --- 3. no finished work thrown away ----------------------------------------------------------

def test_two_runs_with_the_same_name_each_keep_their_folder(tmp_path):
    final = tmp_path / "results" / "base-20260101-000000"
    with staging.staged(final) as first:
        (first.temp / "who").write_text("first")
        with staging.staged(final) as second:
            (second.temp / "who").write_text("second")
    assert second.path == final and first.path == final.with_name(final.name + "-2")
    assert (first.path / "who").read_text() == "first"
    assert (second.path / "who").read_text() == "second"
    assert not [p for p in final.parent.iterdir() if p.name.startswith(".")]


def test_sweep_grid_size_is_checked_before_the_grid_is_built():
    axes = [Vary.parse(f"enemies.{n}.endurance=1..1000") for n in ("Bloodsucker", "Snork", "Boar")]
    tracemalloc.start()
    with pytest.raises(SweepError, match="1000000000 points"):
        grid(axes)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 1024
    with pytest.raises(SweepError, match="at most 10000"):
        Vary.parse("enemies.Bloodsucker.endurance=1..1000000000")


def _no_run(*args, **kwargs):
    raise AssertionError("the sweep ran although it should have been refused first")


def _sweep_cli():
    """The sweep command's module, imported here: the CLI's lazy group loads it on first use,
    so it is in ``sys.modules`` only if an earlier test ran the command."""
    import sim.cli.sweep

    return sim.cli.sweep


@pytest.mark.parametrize(("args", "expected"), [
    (["--experiment", "campaign", "--metric", "knocked_out"], "is not a campaign metric"),
    (["--experiment", "campaign", "--metric", "p_sarcofagus"], "did you mean 'p_sarcophagus'"),
    (["--stalker", "Strelok", "--metric", "knocked_ot"], "did you mean 'knocked_out'"),
])
def test_sweep_checks_its_metric_before_the_first_point(tmp_path, monkeypatch, args, expected):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_sweep_cli(), "run_sweep", _no_run)
    result = run("sweep", "--vary", "enemies.Bloodsucker.endurance=2..3", *args)
    assert result.exit_code == 2 and expected in result.output


def test_sweep_default_metric_of_a_campaign_is_a_campaign_metric():
    from sim.experiments import registry
    from sim.experiments.campaign import FRAME_METRICS
    assert "p_sarcophagus" in registry.experiment("campaign").sweep_metrics == FRAME_METRICS


def test_sweep_refuses_an_existing_out_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_sweep_cli(), "run_sweep", _no_run)
    (tmp_path / "out").mkdir()
    result = run("sweep", "--stalker", "Strelok", "--vary", "enemies.Bloodsucker.endurance=2..3",
                 "--out", "out")
    assert result.exit_code == 1 and "out exists already" in result.output


def test_sweep_refuses_an_unwritable_out_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_sweep_cli(), "run_sweep", _no_run)
    (tmp_path / "file").write_text("x")
    result = run("sweep", "--stalker", "Strelok", "--vary", "enemies.Bloodsucker.endurance=2..3",
                 "--out", "file/out")
    assert result.exit_code == 1
    assert "cannot write results to file/out: file is not a folder" in result.output


@pytest.mark.subprocess
def test_stale_temporary_folders_are_removed_by_the_next_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / "results" / f".base-20260101-000000.{dead}.abc123.tmp"
    live = tmp_path / "results" / f".base-20260101-000000.{os.getpid()}.abc123.tmp"
    stale.mkdir(parents=True)
    live.mkdir()
    assert run("validate").exit_code == 0
    assert not stale.exists() and live.exists()



@pytest.mark.subprocess
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_report_stopped_by_a_signal_leaves_nothing(tmp_path, signum):
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--trials", "200000000",
                             "--campaign-trials", "10"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_temp(tmp_path / "results", proc)
    time.sleep(0.2)
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and "no results folder was written" in err
    assert not (tmp_path / "results").exists()  # made for this run, removed with it


@pytest.mark.subprocess
def test_report_killed_is_cleaned_by_the_next_command(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--trials", "200000000",
                             "--campaign-trials", "10"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    temp = wait_for_temp(tmp_path / "results", proc)
    proc.kill()
    proc.wait(timeout=TIMEOUT)
    assert temp.exists()
    result = zonesim("validate", cwd=tmp_path)
    assert result.returncode == 0 and not temp.exists()


@pytest.mark.subprocess
def test_pool_workers_end_when_their_parent_is_gone(tmp_path):
    code = ("import time; from sim.workflows.sweep import _exit_with_parent; "
            "_exit_with_parent(-1); time.sleep(3600)")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=TIMEOUT)
    assert result.returncode == 1  # ended by the watch, not by the hour's sleep (status 0)


def test_a_local_base_folder_does_not_shadow_the_bundled_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base").mkdir()
    assert scenario_path(None) == scenario_path("base") == SCENARIO
    assert resolve_ruleset("base") == BASE and resolve_ruleset(None) == BASE
    assert resolve_ruleset("./base") == Path("./base")
    assert scenario_path("./base.toml") == Path("./base.toml")
    assert run("validate", "base").exit_code == 0
    assert run("validate", "./base").exit_code == 2
    result = run("validate", "./base")
    assert result.exit_code == 2 and "base/rules.toml: file not found" in result.output


def test_library_errors_carry_every_problem(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('stalker = ["a"]\nstalkers = true\nstart = "Cordon"\n', encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    keys = {p.column for p in info.value.problems}
    assert {"stalker", "stalkers"} <= keys


@pytest.mark.parametrize(("text", "expected"), [
    (f"[targets]\nknocked_out = [0, {HUGE}]\n", "t.toml:2: an integer has thousands of digits"),
    ("[targets]\nx = " + "[" * 3000 + "]" * 3000 + "\n", "t.toml:2: arrays or tables nested"),
    (b"[targets]\n\xff = 1\n", "t.toml:2: not UTF-8"),
])
def test_targets_file_faults_are_target_errors(tmp_path, text, expected):
    from sim.workflows.targets import TargetError, load_targets
    path = tmp_path / "t.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(TargetError, match=expected.replace("(", r"\(")):
        load_targets(path)


@pytest.mark.subprocess
def test_targets_file_fifo_is_refused(tmp_path):
    code = ("from sim.workflows.targets import TargetError, load_targets\n"
            "try:\n    load_targets('t.toml')\nexcept TargetError as e:\n    print(e)\n")
    os.mkfifo(tmp_path / "t.toml")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                            text=True, timeout=TIMEOUT)
    assert "t.toml: is not a regular file" in result.stdout
