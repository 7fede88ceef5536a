"""P-44 in a one-stalker game (issue 46, item 8): the reading ``death.one_stalker_after_death``.

By default a death ends a one-stalker game (one life measured, the numbers of every earlier
release). Under ``"new_character"`` the player draws a new character as a multiplayer seat
does (P-43, P-44): the kernel plays the scenario as a table of one seat with the new
characters' slots (:func:`sim.campaign.players.compile_scenario`), the reference as a
:class:`sim.reference.campaign_players.Table` of one seat; they agree in distribution.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.campaign.compile import CampaignArrays, game_keys
from sim.campaign.players import GameArrays, compile_scenario
from sim.experiments import campaign_paired
from sim.experiments.campaign import simulate_trials
from sim.kernels import campaign as K
from sim.reference import campaign as one_life
from sim.reference import campaign_players
from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits
from sim.workflows.readings import find_readings

EDIT = "rules.death.one_stalker_after_death=new_character"
SEED = 13


def _renewing(scenario):
    return dataclasses.replace(scenario, ruleset=apply_edits(scenario.ruleset, [EDIT]))


@pytest.fixture(scope="module")
def base():
    return load_scenario("base")


def test_by_default_a_death_ends_the_game_and_the_reading_adds_the_new_characters(base):
    assert base.ruleset.rules.death.one_stalker_after_death == "game_over"
    assert isinstance(compile_scenario(base), CampaignArrays)
    assert game_keys(base)["C_AFTER_DEATH"] == K.AFTER_DEATH_ELIMINATED
    renewing = _renewing(base)
    arrays = compile_scenario(renewing)
    assert isinstance(arrays, GameArrays)
    assert len(arrays.slots) == 1 + len(base.ruleset.stalkers)  # his seat, then every card
    assert game_keys(renewing)["C_AFTER_DEATH"] == K.AFTER_DEATH_NEW
    assert game_keys(renewing)["C_N_PLAYERS"] == 1


def _rows(scenario, trials):
    return simulate_trials(compile_scenario(scenario), SEED, 0, trials).copy()


def test_a_new_character_wins_games_the_first_one_lost(base):
    """Guard: on the same games (common random numbers) the reading wins every game the
    default wins, and more: a game lost by a death goes on with a new character (about +5
    points on base, issue 46.8); some games draw one."""
    n = 4_000
    default, renewing = _rows(base, n), _rows(_renewing(base), n)
    won = [campaign_paired.trial_metrics(r, ["p_sarcophagus"])[:, 0] for r in (default, renewing)]
    new = renewing[:, K.G_SEATS + K.SEAT_NEW]
    assert default[:, K.G_SEATS + K.SEAT_NEW].sum() == 0
    assert new.sum() > 0
    diff = won[1] - won[0]
    half = 1.96 * diff.std(ddof=1) / np.sqrt(n)
    assert diff.mean() - half > 0.02


def test_the_reference_plays_one_seat_that_draws_new_characters(base):
    """The kernel and the reference agree in distribution under the reading (two-sample z
    on the win rate, the days a game lasts, deaths and new characters); the one-life
    reference refuses the reading rather than play one life."""
    scenario = _renewing(base)
    n_ref, n_mc = 1_200, 40_000
    ref = campaign_players.summarise(campaign_players.play(scenario, n_ref, seed=SEED), 1)
    rows = _rows(scenario, n_mc)
    mc = {"seat1": campaign_paired.trial_metrics(rows, ["p_sarcophagus"])[:, 0],
          "days": rows[:, K.G_DAY], "deaths1": rows[:, K.G_SEATS + K.SEAT_DEATHS],
          "new1": rows[:, K.G_SEATS + K.SEAT_NEW]}
    z = {}
    for key, values in mc.items():
        mean_ref = ref[key] / n_ref
        if key == "seat1":
            var_ref = mean_ref * (1 - mean_ref)
        else:
            var_ref = ref[f"{key}_sq"] / n_ref - mean_ref ** 2
        se = (var_ref / n_ref + values.var(ddof=1) / n_mc) ** 0.5
        z[key] = (mean_ref - values.mean()) / se
    assert all(abs(v) < 4.5 for v in z.values()), z
    assert ref["new1"] > 0
    with pytest.raises(ValueError, match="campaign_players"):
        one_life.play(scenario, 1, seed=SEED)


def test_readings_list_the_new_character_reading(base):
    assert EDIT in [r.edit for r in find_readings(base.ruleset)]
