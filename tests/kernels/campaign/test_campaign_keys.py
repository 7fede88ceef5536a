"""Four behaviours of the campaign that were fixed in the model are keys (issue 27, item 1.8).

- ``emission.bases_shelter`` (P-48 names Secret Locations and Bunkers as safe; whether a
  faction base is, is a Gap): true, the default, keeps today's reading.
- ``policy.stimulant_at`` (Z-12: stimulants "both in and outside combat"): outside combat,
  stimulants heal at this Health or less once no medkit is left to do it; 0, the default,
  keeps them for fights.
- ``economy.paid_healing`` (P-37, P-40 offer healing for rubles after a knock-out or
  concussion; Gap: whether a bunker heals one who walks in): ``bunker``, the default, heals
  at any bunker (a retreat walks there, ``policy.retreat_at``); ``after_knockout`` only
  after a knock-out, and then nobody retreats.
- ``policy.bunker_choice`` (P-38, P-41: a stalker lost in a Secret Location is placed in
  "any bunker of his choice"): ``nearest``, the default, or ``toward_objective``.

Each is checked exactly on the kernel's own functions and on the plain-Python reference
(:mod:`sim.reference.campaign`), with a guard that the check would see the other reading,
and the kernel agrees with the reference in distribution under the non-default readings
(|z| < Z_TOL), with a guard that a reference ignoring the key is caught.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign, objective_bunkers
from sim.kernels import campaign as K
from sim.kernels import rng
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.emission import emission
from sim.kernels.campaign.trade import recover, use_medkits
from sim.reference import campaign as reference
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.variants import apply_edits
from tests.kernels.campaign.test_campaign_reference import (
    CAUTIOUS_BODY,
    HARSH_BODY,
    HARSH_RULES,
    assert_agrees,
    assert_disagrees,
    scenario,
    z_scores,
)


def _base(edits=(), **policy):
    sc = load_scenario(scenario_path("base"))
    if edits:
        sc = dataclasses.replace(sc, ruleset=apply_edits(sc.ruleset, list(edits)))
    return dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, **policy))


def _hex(sc, name: str) -> int:
    return next(i for i, h in enumerate(sc.ruleset.map.hexes) if h.name == name)


def _seat(tables, pos: int, health: int) -> np.ndarray:
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_POS], st[K.S_HEALTH] = pos, health
    st[K.S_WILLPOWER] = tables.cp[K.C_WILLPOWER]
    st[K.S_END] = -1
    return st


# --- P-48: faction bases and the Emission ---------------------------------------------------


@pytest.mark.parametrize("shelter", [True, False])
def test_an_emission_reaches_a_base_only_when_bases_do_not_shelter(shelter):
    """P-48: an Emission card drawn while the stalker stands in Rostok (a faction base) hits
    him only under ``emission.bases_shelter = false``; a bunker shelters under both, the
    Open Space under neither. Kernel (:func:`.emission.emission`) and reference agree."""
    sc = _base([f"rules.emission.bases_shelter={str(shelter).lower()}"])
    tables = tb.slot_tables(compile_campaign(sc).pack())
    camp = reference.Campaign(sc)
    dice = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    rng.seed_stream(dice, 1, 0, rng.DICE)
    for place, hit in (("Rostok (Duty)", not shelter), ("Red Forest Bunker", False),
                       ("Cordon", True)):
        h = _hex(sc, place)
        st = _seat(tables, h, 5)
        zone = np.zeros(K.Z_SIZE, dtype=np.int64)
        zone[K.Z_ACC_R] = 1
        held = 0
        emission(st, zone, tables.cp, dice, tables.hexes, tables.em,
                  tables.em_resist[st[K.S_WORN]], 0,
                  tables.art_rec[held], tables.art_n[held])
        assert st[K.S_EMISSIONS_HIT] == hit, place
        assert camp.sheltered(h) == (not hit), place


def test_the_base_shelter_check_sees_the_other_reading():
    """Guard: the two readings differ at a base (the test above could fail)."""
    on, off = (reference.Campaign(_base([f"rules.emission.bases_shelter={v}"]))
               for v in ("true", "false"))
    rostok = _hex(on.scenario, "Rostok (Duty)")
    assert on.sheltered(rostok) != off.sheltered(rostok)


# --- Z-12: stimulants outside combat --------------------------------------------------------


@pytest.mark.parametrize(("stimulant_at", "health", "want_health", "want_left"), [
    (0, 1, 3, (0, 2)),  # the medkit to 3; the stimulants are kept for fights
    (3, 1, 4, (0, 1)),  # the medkit to 3, a stimulant to 4
    (6, 1, 5, (0, 0)),  # the medkit to 3, both stimulants to 5
    (2, 2, 4, (0, 2)),  # the medkit to 4, above stimulant_at
    (5, 4, 6, (1, 0)),  # no medkit at 4 (> medkit_at), two stimulants to the maximum
])
def test_stimulants_heal_outside_combat_at_their_threshold(stimulant_at, health, want_health,
                                                           want_left):
    """Z-12, Z-14: outside combat the medkits go first while Health <= ``medkit_at`` (3);
    then, with ``policy.stimulant_at`` > 0, stimulants while Health <= it, each up to the
    maximum (Strelok: 6). One Medkit (+2) and two Stimulants (+1) held. Kernel
    (:func:`.trade.use_medkits`) and reference give the same Health and cards left."""
    sc = dataclasses.replace(_base(stimulant_at=stimulant_at),
                             items=("Medkit", "Stimulant", "Stimulant"))
    arrays = compile_campaign(sc)
    names = list(sc.ruleset.items)
    medkit, stim = names.index("Medkit"), names.index("Stimulant")
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_HEALTH] = health
    items = arrays.it[:, K.I_START].copy()
    use_medkits(st, arrays.cp, items, arrays.it, arrays.item_order)
    assert (st[K.S_HEALTH], (items[medkit], items[stim])) == (want_health, want_left)
    game = reference.Game(reference.Campaign(sc), *(random.Random(k) for k in range(3)))
    game.me.health = health
    game.use_medkits()
    assert (game.me.health, (game.me.items[medkit], game.me.items[stim])) == (
        want_health, want_left)


def test_stimulants_are_not_used_while_lost_at_health_zero():
    """Under the default (``stimulant_at = 0``) a stalker lost at Health 0 (P-38) uses no
    stimulant; the medkits' rule is unchanged."""
    sc = dataclasses.replace(_base(medkit_at=0), items=("Stimulant",))
    arrays = compile_campaign(sc)
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    items = arrays.it[:, K.I_START].copy()
    use_medkits(st, arrays.cp, items, arrays.it, arrays.item_order)
    assert st[K.S_HEALTH] == 0 and items.sum() == 1


# --- P-37, P-40: paid healing at a bunker walked into ---------------------------------------


@pytest.mark.parametrize(("reading", "retreat_at"), [("bunker", 2), ("after_knockout", 0)])
def test_a_retreat_is_played_only_where_bunkers_heal_one_who_walks_in(reading, retreat_at):
    """P-37, P-40: under ``economy.paid_healing = "after_knockout"`` a bunker heals only a
    stalker placed there after a knock-out or concussion, so the retreat (a walk to heal,
    ``policy.retreat_at``) is off in the kernel's parameters and in the reference."""
    sc = _base([f"rules.economy.paid_healing={reading}"])
    assert compile_campaign(sc).cp[K.C_RETREAT_AT] == retreat_at
    game = reference.Game(reference.Campaign(sc), *(random.Random(k) for k in range(3)))
    game.me.health = 1
    assert game.retreats() == (retreat_at > 0)


def test_paid_healing_after_a_knockout_is_kept_under_both_readings():
    """P-37: placed in a bunker after a knock-out he pays to heal under either reading
    (:func:`.trade.recover`): Health 0 -> regains 1 -> heals to 6 for 500 rubles."""
    for reading in ("bunker", "after_knockout"):
        sc = _base([f"rules.economy.paid_healing={reading}"])
        tables = tb.slot_tables(compile_campaign(sc).pack())
        st = _seat(tables, _hex(sc, "Cordon"), 0)
        st[K.S_RUBLES] = 1000
        recover(st, tables.cp, tables.hexes)
        assert (st[K.S_HEALTH], st[K.S_RUBLES]) == (6, 500)


# --- P-38, P-41: the bunker of his choice ---------------------------------------------------


def _by_hand_toward(sc) -> list[int]:
    """Per objective (complexes in visiting order, the Sarcophagus), the bunker from which it
    is fewest days away, then most steps left, first in map.csv (the reference's own route)."""
    camp = reference.Campaign(sc)
    return [min(camp.bunkers, key=lambda b: camp.rank(b, goal)[:2])
            for goal in (*camp.complexes, camp.sarcophagus)]


def test_the_bunker_toward_each_objective_is_the_references():
    sc = _base(bunker_choice="toward_objective")
    camp = reference.Campaign(sc)
    goals = [*camp.complexes, camp.sarcophagus]
    cp = tb.header(compile_campaign(sc).pack())
    compiled = [int(cp[K.C_OBJECTIVE_BUNKER + j]) for j in range(len(goals))]
    assert compiled == _by_hand_toward(sc)
    assert compiled == objective_bunkers(sc.ruleset, goals, camp.bunkers)
    assert len(set(compiled)) > 1  # the objectives do not all share one bunker


@pytest.mark.parametrize("choice", ["nearest", "toward_objective"])
def test_a_stalker_lost_in_a_secret_location_is_placed_by_the_policy(choice):
    """P-38: lost in a Secret Complex with the Sarcophagus as his objective, he is placed in
    the nearest bunker or the one nearest the Sarcophagus; knocked out in the Open Space
    (P-37) always in the nearest. Kernel (:func:`.trade.recover`) and reference agree."""
    sc = _base(bunker_choice=choice)
    tables = tb.slot_tables(compile_campaign(sc).pack())
    camp = reference.Campaign(sc)
    toward = _by_hand_toward(sc)[-1]
    for place in (*(h for h in camp.complexes), _hex(sc, "Cordon")):
        st = _seat(tables, place, 0)
        st[K.S_OBJECTIVE] = tables.cp[K.C_N_OBJECTIVES]  # every complex explored
        recover(st, tables.cp, tables.hexes)
        secret = camp.location[place] in ("secret", "complex")
        want = toward if choice == "toward_objective" and secret else camp.nearest_bunker(place)
        assert st[K.S_POS] == want
        game = reference.Game(camp, *(random.Random(k) for k in range(3)))
        game.me.pos, game.me.health, game.me.objective = place, 0, len(camp.complexes)
        game.recover()
        assert game.me.pos == want


def test_the_bunker_choice_check_sees_the_other_reading():
    """Guard: from some complex the nearest bunker is not the one toward the Sarcophagus."""
    sc = _base()
    camp = reference.Campaign(sc)
    toward = _by_hand_toward(sc)[-1]
    assert any(camp.nearest_bunker(h) != toward for h in camp.complexes)


def test_an_unknown_bunker_choice_is_refused_naming_the_key(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('stalker = "Strelok"\nstart = "Cordon"\n[policy]\n'
                    'bunker_choice = "dearest"\n', encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_scenario(path)
    assert "policy.bunker_choice" in str(err.value)
    assert "nearest, toward_objective" in str(err.value)


# --- the kernel against the reference under the other readings ------------------------------


BASE_BODY = scenario_path("base").read_text(encoding="utf-8").split("[targets]")[0].replace(
    'ruleset = "base"', "")
"""The bundled base scenario's loadout and policy (its ``[policy]`` table last)."""

OTHER_RULES = {**HARSH_RULES, "bases_shelter = true ": "bases_shelter = false ",
               "threshold = 5 ": "threshold = 2 "}
"""Harsh games with frequent Emissions that reach the faction bases (P-48)."""


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    """Scenarios under the non-default readings: harsh games with Emissions reaching bases,
    stimulants used outside combat and the bunker toward the objective; a cautious stalker
    who would retreat at Health 4 where bunkers heal only after a knock-out."""
    tmp = tmp_path_factory.mktemp("keys")
    return {
        "others": scenario(tmp, "others", OTHER_RULES,
                           HARSH_BODY.replace('["Stimulant", "Dosimeter"]',
                                              '["Stimulant", "Stimulant", "Dosimeter"]')
                           + 'medkit_at = 4\nstimulant_at = 3\n'
                             'bunker_choice = "toward_objective"\n'),
        "toward": scenario(tmp, "toward", body=BASE_BODY + 'bunker_choice = "toward_objective"\n'),
        "after_knockout": scenario(
            tmp, "after_knockout",
            {'paid_healing = "bunker" ': 'paid_healing = "after_knockout" '}, CAUTIOUS_BODY),
    }


INERT_RETREAT = pytest.mark.filterwarnings("ignore::sim.errors.InertKeyWarning")
"""The cautious stalker's ``retreat_at = 4`` does nothing under ``after_knockout``, and the
scenario loader says so (an :class:`~sim.errors.InertKeyWarning`): that is what is tested."""


@INERT_RETREAT
@pytest.mark.parametrize("name", ["others", "toward", "after_knockout"])
def test_reference_agrees_with_kernel_under_the_other_readings(paths, name):
    assert_agrees(z_scores(paths[name]))


class RetreatsAnyway(reference.Game):
    """``economy.paid_healing = "after_knockout"`` ignored: he still walks to heal."""

    def retreats(self):
        me, policy = self.me, self.c.policy
        return (policy.retreat_at > 0 and me.health <= policy.retreat_at and policy.pay_heal
                and me.rubles >= self.c.rules.economy.heal_price_per_wound)


@INERT_RETREAT
def test_a_reference_ignoring_paid_healing_is_caught(paths):
    """Guard of the ``after_knockout`` comparison. The other readings' guards are the exact
    checks above: their effects on whole games are too small for a guard of 3,000 games (on
    the base scenario, 200,000 paired games: ``toward_objective`` +0.0020 +- 0.0004 on the
    win rate, ``bases_shelter = false`` -0.0005 +- 0.0002, ``stimulant_at = 3`` -0.0042 +-
    0.0002). 250 reference games keep the largest |z| at 7.5 (events; 26.4 at 3,000 games,
    the count before)."""
    assert_disagrees(z_scores(paths["after_knockout"], RetreatsAnyway, 250))


def test_compare_carries_the_new_policy_keys_and_refuses_a_bad_choice():
    """``zonesim compare campaign`` takes ``stimulant_at`` and ``bunker_choice`` as variant
    keys (from the Policy fields) and refuses an unknown choice naming the key (exit 2)."""
    import json

    from click.testing import CliRunner

    from sim.cli import main

    args = ["compare", "campaign", "base", "--baseline", "", "--variant", "stimulant_at=3",
            "--variant", "bunker_choice=toward_objective", "--trials", "20000", "--seed", "3",
            "--format", "json", "--quiet", "--metric", "items_used"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = {r["variant"]: r["diff"] for r in json.loads(result.stdout)["rows"]}
    assert rows["stimulant_at=3"] > 0  # stimulants spent outside fights too
    bad = CliRunner().invoke(main, [*args[:6], "bunker_choice=dearest", "--trials", "10"])
    assert bad.exit_code == 2 and "bunker_choice" in bad.output
    assert "Traceback" not in bad.output
