"""Every per-game mean and median of a campaign carries its 95 % interval (issue 46, item 4).

``zonesim campaign`` (table, JSON, CSV) and the report's "Campaign statistics" give
each per-game mean (``game_days``, ``knockouts``, ...) with its normal interval
from the sums of squares the games add up, and each day statistic of the games
that won (``days.median``, ``days.p10``, ``days.p90``) with its distribution-free
order-statistic interval read off the day histogram (the binomial count of games
at or below the quantile, normal approximation). The intervals are new keys
beside the old ones (``days.median_ci_low``, ``days.median_ci_high``): no existing
key changes.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from sim import stats
from sim.cli import main
from sim.experiments.campaign import MEANS, run_campaign
from sim.experiments.campaign_metrics import GAME_DAYS
from sim.report.tables import campaign_values
from sim.rules.scenario import load_scenario

TRIALS = 3000
SEED = 7


@pytest.fixture(scope="module")
def data() -> dict:
    return run_campaign(load_scenario("base"), trials=TRIALS, seed=SEED).to_dict()


def test_histogram_quantile_brackets_the_order_statistics_by_the_binomial_count():
    """100 games, one a day on days 1..100: the median's ranks 50 -+ 1.96 * 5 (P-45 days)."""
    hist = np.r_[0, np.ones(100, dtype=np.int64)]
    estimate, low, high = stats.histogram_quantile(hist, 0.5)
    assert estimate == 50.0
    assert (low, high) == (math.floor(50 - stats.Z95 * 5), math.ceil(50 + stats.Z95 * 5) + 1)
    assert stats.histogram_quantile(np.zeros(5, dtype=np.int64), 0.5) is None


@pytest.mark.parametrize("key, q", [("median", 0.5), ("p10", 0.1), ("p90", 0.9)])
def test_day_quantiles_of_the_json_have_their_interval(data, key, q):
    days = data["days"]
    low, high = days[f"{key}_ci_low"], days[f"{key}_ci_high"]
    assert low <= days[key] <= high
    assert (days[key], low, high) == stats.histogram_quantile(np.array(days["histogram"]), q)


def test_the_table_and_csv_give_every_day_statistic_an_interval():
    result = CliRunner().invoke(main, ["campaign", "--trials", str(TRIALS), "--seed", str(SEED),
                                       "--format", "csv", "--quiet"])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(io.StringIO(result.stdout)).set_index("metric")
    for key in ("days.mean", "days.median", "days.p10", "days.p90", GAME_DAYS, *MEANS):
        mc, low, high = rows.loc[key, ["mc", "ci_low", "ci_high"]]
        assert not math.isnan(low) and low <= mc <= high, key


def test_the_report_gives_every_per_game_mean_and_median_its_interval(data):
    values = campaign_values(data)
    for key in (GAME_DAYS, *MEANS, "days.mean", "days.median", "days.p10", "days.p90"):
        value, low, high = values[key]
        assert low is not None and low <= value <= high, key
    assert values["knockouts"][1] < values["knockouts"][0] < values["knockouts"][2]


def test_the_multiplayer_game_length_quantiles_have_their_interval():
    result = CliRunner().invoke(main, ["campaign", "four_stalkers", "--trials", "500",
                                       "--seed", str(SEED), "--format", "json", "--quiet"])
    assert result.exit_code == 0, result.output
    days = json.loads(result.stdout)[GAME_DAYS]
    for key, q in (("median", 0.5), ("p10", 0.1), ("p90", 0.9)):
        assert (days[key], days[f"{key}_ci_low"], days[f"{key}_ci_high"]) == \
            stats.histogram_quantile(np.array(days["histogram"]), q)
