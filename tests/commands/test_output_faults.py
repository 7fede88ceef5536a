"""Output faults end cleanly (issue 23, items 6 and 8).

``--vary`` past the float range, output to a full device, a bad ``NUMBA_NUM_THREADS`` and a
run killed with ``--out`` outside ``results/``: one line, the right exit status, nothing left
behind. The thread and full-device cases run the dice pool kernel in subprocesses.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys

import pytest

from tests.hostile import TIMEOUT, run, wait_for_temp, zonesim

# --- tracebacks: --vary, a full output, NUMBA_NUM_THREADS -------------------------------------

@pytest.mark.parametrize("args", [
    ["sweep", "--stalker", "Strelok"],
    ["tune", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--target",
     "knocked_out in 0.2..0.3"],
])
@pytest.mark.parametrize(("vary", "value"), [("1..1e400", "1e400"), ("-1e400..1", "-1e400"),
                                             ("1..5:1e400", "1e400"), ("1e400,2", "1e400")])
def test_vary_past_the_float_range_names_the_value(tmp_path, monkeypatch, args, vary, value):
    monkeypatch.chdir(tmp_path)
    text = f"enemies.Bloodsucker.endurance={vary}"
    result = run(*args, "--vary", text, "--trials", "10")
    assert result.exit_code == 2, result.output
    assert (f"Error: Invalid value for --vary: {text!r}: {value} is out of the range of "
            "numbers") in result.output
    assert not (tmp_path / "results").exists()


def test_vary_range_too_wide_to_count_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("sweep", "--stalker", "Strelok", "--vary",
                 "enemies.Bloodsucker.endurance=-1e308..1e308")
    assert result.exit_code == 2 and "more than 10000 values" in result.output


@pytest.mark.subprocess
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [
    ["validate"], ["--help"], ["report", "--help"],
    ["prob", "pool", "--dice", "2", "--trials", "10", "--format", "json"],
    ["prob", "pool", "--dice", "2", "--trials", "10", "--format", "csv"],
])
def test_output_to_a_full_device_is_one_line(tmp_path, args):
    # buffered standard output, as a user's shell has it: the buffer fails again at exit
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=tmp_path,
                                stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=TIMEOUT, env=environment)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    # the last line: a kernel's first compile may announce itself above it
    assert result.stderr.splitlines()[-1] == (
        f"zonesim: cannot write the output: {os.strerror(errno.ENOSPC)}")


@pytest.mark.subprocess
@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", "", "1001"])
def test_bad_numba_num_threads_is_refused(tmp_path, value):
    env = {**os.environ, "NUMBA_NUM_THREADS": value}
    result = zonesim("prob", "pool", "--dice", "2", "--trials", "10", cwd=tmp_path, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"Error: environment variable NUMBA_NUM_THREADS={value!r} is not "
                             "a number of kernel threads from 1 to 1000; set one in that "
                             "range, or unset it for one per core\n")
    assert result.stdout == ""


@pytest.mark.subprocess
def test_numba_num_threads_past_the_bound_is_refused_and_within_it_runs(tmp_path):
    args = ("prob", "pool", "--dice", "2", "--trials", "10")
    result = zonesim(*args, cwd=tmp_path, env={**os.environ, "NUMBA_NUM_THREADS": "99999"})
    assert result.returncode == 2 and "NUMBA_NUM_THREADS='99999'" in result.stderr  # crashed
    result = zonesim(*args, cwd=tmp_path, env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    assert result.returncode == 0 and "NUMBA_NUM_THREADS" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr


# --- a killed run outside results/ ------------------------------------------------------------

@pytest.mark.subprocess
def test_report_killed_with_out_elsewhere_is_cleaned_by_the_next_command(tmp_path):
    """``--out`` outside ``results/``: the next command, from another folder, cleans it."""
    work, other, elsewhere = tmp_path / "work", tmp_path / "other", tmp_path / "elsewhere"
    work.mkdir()
    other.mkdir()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--trials", "200000000",
                             "--campaign-trials", "10", "--out", str(elsewhere / "r")],
                            cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    temp = wait_for_temp(elsewhere, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    assert temp.exists()
    result = zonesim("validate", cwd=other, env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert not temp.exists() and list(elsewhere.iterdir()) == []
    assert list((tmp_path / "state" / "zonesim" / "writing").iterdir()) == []
    assert not (work / "results").exists() and not (other / "results").exists()
