"""Shared fixtures and the statistical tolerance used by every Monte Carlo test."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from sim import stats

# Every Monte Carlo vs exact comparison accepts |z| < Z_TOL per outcome, with the
# standard error of the exact probability. With a fixed seed a test is
# deterministic; 4.5 standard errors makes a false alarm over the whole suite
# (a few thousand outcomes) less likely than 1 in 100 for a correct kernel,
# while a wrong rule shifts an outcome by many standard errors at 1e6 trials.
Z_TOL = 4.5
MC_TRIALS = 1_000_000


def assert_matches_exact(counts, trials, exact, labels=None) -> None:
    """Assert every outcome's count agrees with its exact probability (|z| < Z_TOL)."""
    exact = np.asarray([float(p) for p in exact])
    z = stats.z_scores(counts, trials, exact)
    bad = np.flatnonzero(~(np.abs(z) < Z_TOL))
    if bad.size:
        names = labels if labels is not None else list(range(len(exact)))
        detail = ", ".join(
            f"{names[i]}: mc={counts[i] / trials:.6f} exact={exact[i]:.6f} z={z[i]:.2f}"
            for i in bad
        )
        pytest.fail(f"Monte Carlo disagrees with exact twin: {detail}")


@pytest.fixture
def my(tmp_path, monkeypatch) -> Path:
    """A copy of the bundled ruleset as ``configs/my``, the working folder at its root.

    Bad-input tests rewrite one of its files and read the messages, which name
    the file as ``configs/my/<file>``.
    """
    from sim.paths import bundled_ruleset

    monkeypatch.chdir(tmp_path)
    shutil.copytree(bundled_ruleset(), tmp_path / "configs/my")
    return Path("configs/my")


def ruleset_problems(path: Path) -> list[str]:
    """The messages that loading the ruleset at ``path`` refuses it with, in order."""
    from sim.rules import RulesetError, load_ruleset

    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    return [str(p) for p in info.value.problems]


_WARMING: list = []


def pytest_sessionstart(session) -> None:
    """Compile the longest kernels ahead when the whole suite starts with an empty cache.

    Only in the process that runs the session (not in xdist workers), only for the whole
    suite (no paths given), only where file locks keep the two from compiling one kernel
    twice, and only while the campaign kernel is not cached: see
    ``tests/warm.py``. Results do not change; the kernels are the ones the tests compile.
    """
    config = session.config
    if hasattr(config, "workerinput") or config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    from sim import compiling
    from sim.jitting import cachefiles
    from sim.kernels.campaign import game

    if cachefiles.fcntl is not None and not compiling.saved(game.play_run):
        _WARMING.append(compiling.Child("tests.warm", (), quiet=True))


def pytest_collection_modifyitems(config, items) -> None:
    """Start the longest tests first: the cold compiles (``compile``), then the other
    ``slow`` and ``notebook`` tests, then the rest in file order.

    With pytest-xdist's work stealing a worker that runs out of tests takes half of
    another's queue, but not a test that has started: a cold compile that comes last
    (``tests/jitting/`` lies in the middle of the file order, at the end of the first
    worker's half) leaves the other worker idle for minutes. Started first, the short
    tests fill in around it. The order within each group, and every result, is unchanged.
    """
    def rank(item) -> int:
        if item.get_closest_marker("compile") is not None:
            return 0 if item.get_closest_marker("slow") is not None else 1
        return 2 if item.get_closest_marker("slow") or item.get_closest_marker("notebook") \
            else 3

    items.sort(key=rank)  # stable: file order within each group


def pytest_sessionfinish(session) -> None:
    """Stop the warm-up process if it still runs."""
    while _WARMING:
        _WARMING.pop().stop()


@pytest.fixture(scope="module")
def carrying(tmp_path_factory) -> Path:
    """The base scenario with two artefacts carried from the start (Stone blood, Crystal):
    ``rules.artifacts.carry_limit = 1`` then leaves him more than he may carry, a game the
    campaign compile refuses (tests/workflows/test_levers_refused.py,
    tests/workflows/test_no_step_aborts.py)."""
    from sim.paths import bundled_ruleset, configs_root

    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("carrying") / "carrying.toml"
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{bundled_ruleset()}"')
                    .replace("items = [", 'artifacts = ["Stone blood", "Crystal"]\nitems = [', 1),
                    encoding="utf-8")
    return path
