"""What the hostile-input tests share: the bundled files, the two ways to run ``zonesim``.

The cases (issues 14 and 23) live beside the layer they guard: ``tests/rules/`` (tables and
scenarios refused), ``tests/cli/`` (no traceback for a value a user can type),
``tests/workflows/`` (variants and edits refused), ``tests/report/`` (names are data),
``tests/jitting/`` (the numba cache and patches) and ``tests/commands/`` (signals, killed
runs, output faults: whole commands in subprocesses). Every case asserts the exit status,
that no traceback is printed, and that the message names the file and line (or the key,
option or variable) and the value.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim import runner
from sim.cli import main
from sim.paths import bundled_ruleset, configs_root

ROOT = Path(__file__).resolve().parents[1]
"""The checkout's folder."""
BASE = bundled_ruleset()
SCENARIOS = configs_root() / "scenarios"
SCENARIO = SCENARIOS / "base.toml"
HUGE = "9" * 5000
"""An integer far past int64."""
TIMEOUT = 600
"""A subprocess's limit: a hang ends the test, a cold compile at a load of 8 does not."""


def run(*args: str):
    """``zonesim ARGS`` in this process; a traceback or an exception other than exit fails."""
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception,
                                                                     SystemExit), result.exception
    return result


def zonesim(*args: str, cwd: Path, env: dict | None = None, timeout: float = TIMEOUT):
    """``zonesim ARGS`` in a subprocess (for FIFOs, signals and start-up faults)."""
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def copy_ruleset(tmp_path: Path) -> Path:
    """A copy of the bundled ruleset as ``tmp_path/my`` (messages name its files by that path)."""
    folder = tmp_path / "my"
    shutil.copytree(BASE, folder)
    return folder


def edited_scenario(tmp_path: Path, old: str, new: str, source: str = "base.toml",
                    name: str = "s.toml") -> Path:
    """The bundled scenario ``source`` with its first ``old`` replaced by ``new``."""
    text = (SCENARIOS / source).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def line_starting(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that starts with ``text``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, start=1) if line.startswith(text))


def wait_for_temp(results: Path, proc: subprocess.Popen) -> Path:
    """The temporary folder the command ``proc`` writes under ``results``, once it starts."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        temps = list(results.glob(".*.tmp")) if results.exists() else []
        if temps:
            return temps[0]
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the report never started writing")


def forbid_trials(monkeypatch) -> None:
    """Make any run of trials fail the test: a refusal "before any work" is checked by what
    ran, not by the clock (every kernel run and game loop tells :func:`sim.runner.started`)."""
    def started(trials: int) -> None:
        raise AssertionError(f"a run of {trials} trials started before the refusal")

    monkeypatch.setattr(runner, "started", started)
