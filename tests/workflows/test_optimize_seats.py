"""``zonesim optimize --seat N``: one seat of a multiplayer game searched (issue 25, section 1,
"Multiplayer"; P-44, P-45).

The seat's policy and loadout change while every other seat plays the scenario's; the games
are the multiplayer kernel's, on common random numbers, and the seat's per-game values are
its win and its deaths (SEAT_METRICS). These tests check the seat's values against the
multiplayer experiment's own counts (another aggregation of the same games), that a
candidate changes only its seat, and the refusals.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.campaign.players import compile_game
from sim.cli import main
from sim.experiments.campaign_paired import compile_seat, seat_setup, trial_values
from sim.experiments.campaign_players import run_players
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as library
from sim.workflows.policy_space import Candidate
from sim.workflows.race import game_digest

TRIALS, SEED = 3_000, 11


@pytest.fixture(scope="module")
def four():
    return load_scenario("four_stalkers")


def test_a_seat_s_values_are_the_multiplayer_experiment_s_counts(four):
    """Each seat's wins and deaths over trials 0..n-1 equal run_players' counts (P-45)."""
    played = run_players(four, trials=TRIALS, seed=SEED)
    counts = played.counts[int(K.mp_base(played.max_days)):]
    game = compile_game(four)
    wins = []
    for p in range(len(four.players)):
        x = trial_values(game, ["seat_win", "seat_deaths"], seed=SEED, first=0, trials=TRIALS,
                         seat=p)
        wins.append(int(x[:, 0].sum()))
        assert wins[-1] == counts[K.MP_WINS + p]
        assert int(x[:, 1].sum()) == counts[K.MP_DEATHS + p]
    # guard: the seats' wins differ, so a value read from another seat would be caught
    assert len(set(wins)) == len(wins)


def test_the_seat_s_own_setup_plays_the_scenario_s_game_and_a_change_stays_in_its_seat(four):
    p = 1
    base = seat_setup(four, p)
    same = compile_seat(four, p, Candidate().setup(base))
    assert game_digest(same, {}) == game_digest(compile_game(four), {})
    changed = compile_seat(four, p, Candidate().with_value("heal_at", 4, base).setup(base))
    assert game_digest(changed, {}) != game_digest(same, {})
    differ = [s for s, (a, b) in enumerate(zip(same.slots, changed.slots, strict=True))
              if game_digest(a, {}) != game_digest(b, {})]
    assert differ == [p]


def test_a_seat_search_runs_and_reports_its_seat(four):
    result = library.optimize(four, seat=2, keys="heal_at", trials=300, budget=6_000,
                              fresh_trials=2_000, seed=5)
    assert result.seat == 2 and result.stalker == four.players[1].stalker
    assert result.objective.metric.name == library.SEAT_METRIC
    r = result.reevaluation
    # the scenario's policy on the fresh games is seat 2's win over those very games
    fresh = trial_values(compile_game(four), ["seat_win"], seed=5, first=library.FRESH_FIRST,
                         trials=2_000, seat=1)
    assert r["scenario_estimate"]["mc"] == fresh[:, 0].mean()
    assert result.to_dict()["seat"] == 2


@pytest.mark.parametrize("kwargs, field", [({}, "seat"), ({"seat": 5}, "seat"),
                                           ({"seat": 1, "metric": "p_sarcophagus"}, "metric"),
                                           ({"seat": 1, "scheduler": "tcp://x:1"}, "scheduler")])
def test_bad_seat_searches_are_refused(four, kwargs, field):
    with pytest.raises(library.OptimizeError) as error:
        library.optimize(four, **kwargs)
    assert error.value.field == field


def test_a_one_stalker_scenario_has_seat_1_only():
    with pytest.raises(library.OptimizeError, match="seat 1 only"):
        library.optimize(load_scenario("base"), seat=2)


def test_the_command_searches_a_seat_and_refuses_a_missing_one():
    runner = CliRunner()
    result = runner.invoke(main, ["optimize", "four_stalkers", "--seat", "3", "--keys",
                                  "flee_at", "--trials", "200", "--budget", "2000",
                                  "--fresh-trials", "1000", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["seat"] == 3 and doc["metric"] == "seat_win"
    missing = runner.invoke(main, ["optimize", "four_stalkers", "--trials", "200"])
    assert missing.exit_code == 2 and "--seat 1..4" in missing.output
    assert "Traceback" not in missing.output
