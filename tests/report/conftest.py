"""The report folder's shared fixture: one whole report of the bundled base scenario.

A whole ``zonesim report`` plays every section (enemy, anomaly and event decks, items,
artefacts, characters, best play, readings, whole games), so each test module that built its
own to read a few files paid for all of it again. Tests that only read a report's files
take ``base_report`` instead: built once per session (per xdist worker), never written to.
"""

from __future__ import annotations

import pytest

from sim.report import build
from sim.rules.scenario import load_scenario

TRIALS = 20_000
"""Encounter trials: enough for the first screen's claims to be the base scenario's, not
noise's (the top cause of loss, the most lethal card: tests/report/test_report_verdict.py)."""
GAMES = 8_000
"""Whole games (campaign_trials), for the same reason."""
SEED = 5


@pytest.fixture(scope="session")
def base_report(tmp_path_factory) -> build.Report:
    """The base scenario's whole report (the campaign kernels included, no fake)."""
    folder = tmp_path_factory.mktemp("base_report") / "base"
    return build.run_report(load_scenario(), trials=TRIALS, campaign_trials=GAMES, seed=SEED,
                            out=folder)
