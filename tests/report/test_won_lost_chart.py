"""Survival shown as designers read it (issue 47, item 5).

The report drew a Kaplan-Meier survival curve that falls to 0 by day 30 although a
third of the games are won (a won game is censored by it), which read as "everyone
dies". It is replaced by the share of all games won and lost by each day, each with
its 95 % band, from the same per-day counts as the stacked chart
(:meth:`sim.experiments.campaign.CampaignResult.outcomes_by_day`): the won line ends at
the win rate (``p_sarcophagus``, P-50), never at 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

from sim.experiments.campaign import run_campaign
from sim.report import plots, tables
from sim.rules.scenario import load_scenario

GAMES = 2_000
SEED = 5


@pytest.fixture(scope="module")
def result():
    return run_campaign(load_scenario(), trials=GAMES, seed=SEED)


def _lines(figure) -> dict[str, np.ndarray]:
    """The chart's lines by legend label, their heights in percent."""
    (ax,) = figure.axes
    return {line.get_label(): np.asarray(line.get_ydata(), float) for line in ax.lines}


def test_the_won_line_ends_at_the_win_rate_and_the_shares_add_up(result):
    frame = pd.DataFrame(result.outcomes_by_day())
    assert np.allclose(frame["won"] + frame["dead"] + frame["in_zone"], 1.0)
    figure = plots.won_and_lost_by_day(frame)
    lines = _lines(figure)
    won, lost = lines[plots.OUTCOME_WORDS["won"]], lines[plots.OUTCOME_WORDS["dead"]]
    data = result.to_dict()
    win = data["p_sarcophagus"]
    assert win["mc"] > 0.2  # base wins about a third of its games
    assert won[-1] / 100 == pytest.approx(win["mc"])
    assert win["ci_low"] <= won[-1] / 100 <= win["ci_high"]
    # what is neither won nor lost at the end is the games still in the Zone at the cap
    assert (won[-1] + lost[-1]) / 100 == pytest.approx(1 - data["p_capped"]["mc"])
    assert (np.diff(won) >= 0).all() and (np.diff(lost) >= 0).all()
    assert figure.axes[0].get_ylim() == (0, 100)


def test_both_lines_have_a_visible_band(result):
    figure = plots.won_and_lost_by_day(pd.DataFrame(result.outcomes_by_day()))
    bands = [c for c in figure.axes[0].collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    for band in bands:
        heights = np.ptp(band.get_paths()[0].vertices[:, 1])
        assert heights > 0
    widths = [(row["won_ci_high"] - row["won_ci_low"]) for row in result.outcomes_by_day()]
    assert max(widths) > 0.01  # at 2,000 games the band is more than a point wide
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert any(t.startswith(f"{100 * result.to_dict()['p_sarcophagus']['mc']:.1f} %")
               for t in texts), texts


def test_the_report_draws_no_curve_that_falls_to_zero_while_games_are_won():
    section = tables.campaign_section(load_scenario(), GAMES, SEED)
    titles = {key: fig.axes[0].get_title() for key, fig in section.figures.items()}
    assert "campaign_won_lost" in section.figures
    assert not any("Kaplan-Meier" in t or "alive" in t for t in titles.values()), titles
    for figure in section.figures.values():
        for ax in figure.axes:
            assert "alive" not in ax.get_ylabel()
