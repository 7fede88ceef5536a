"""Searches whose games would not fit in memory: refused before any game (issue 43).

The policy search keeps every game's values (the paired differences need them): a huge
``--fresh-trials`` or best-play ``--trials`` allocated per-game arrays after the whole
search and died with a memory traceback. ``optimize``, ``optimize --stalker all`` and
``balance characters --best-play`` now refuse more than
:data:`~sim.workflows.optimize.MAX_BUDGET` games of selection or
:data:`~sim.workflows.optimize.MAX_FRESH_TRIALS` fresh games per policy at once, naming
the option, the value and the limit; the report's best-play section plays at most those.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.report.best_play import budgets
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as library
from tests.hostile import forbid_trials

HUGE = 10**11
SMALL = ["--keys", "flee_at", "--trials", "100"]


@pytest.mark.parametrize(("args", "option", "limit"), [
    (["optimize", "base", *SMALL, "--budget", "1000", "--fresh-trials", str(HUGE)],
     "--fresh-trials", library.MAX_FRESH_TRIALS),
    (["optimize", "base", *SMALL, "--budget", str(HUGE), "--fresh-trials", "100"], "--budget",
     library.MAX_BUDGET),
    (["optimize", "base", *SMALL, "--budget", "1000", "--stalker", "all", "--fresh-trials",
      str(HUGE)], "--fresh-trials", library.MAX_FRESH_TRIALS),
    (["balance", "characters", "base", "--best-play", "--budget", "1000", "--trials",
      str(HUGE)], "--trials", library.MAX_FRESH_TRIALS),
    (["balance", "characters", "base", "--best-play", "--budget", str(HUGE)], "--budget",
     library.MAX_BUDGET),
])
def test_a_search_too_big_for_memory_is_refused_before_any_game(args, option, limit,
                                                                monkeypatch):
    forbid_trials(monkeypatch)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert option in result.output and str(HUGE) in result.output
    assert f"limit of {limit}" in result.output and "Traceback" not in result.output


def test_the_library_refuses_it_too():
    with pytest.raises(library.OptimizeError, match="limit") as error:
        library.optimize(load_scenario("base"), fresh_trials=library.MAX_FRESH_TRIALS + 1)
    assert error.value.field == "fresh_trials"
    library.check_games(library.MAX_BUDGET, library.MAX_FRESH_TRIALS)  # the limits pass


def test_the_report_s_best_play_plays_at_most_the_limits():
    opts = budgets(10**12)
    assert opts["budget"] == library.MAX_BUDGET
    assert opts["fresh_trials"] == library.MAX_FRESH_TRIALS
    default = budgets(200_000)  # the report's default games: unchanged
    assert (default["budget"], default["fresh_trials"]) == (200_000, 100_000)
