"""Event cards that bring encounters (issue 27, item 2.4; P-16, P-30, Z-08..Z-10).

An events.csv card of effect ``enemy`` brings an enemy of the location's habitat, fought
as one the location draws and back into the pool unless killed (P-16: "the encounter came
from an Event card"); one of effect ``anomaly`` brings an anomaly met there (P-30). The
card's avoidance roll (Z-09, with the best event item, Z-10) avoids the encounter.

Checks: the loader refuses a value on such a card (file, line, column, value; exit 2);
``zonesim event`` (the event kernel and the reference) against the exact twin, whose
``happened`` is the chance of the encounter; whole base and four-stalker games, kernel
against reference, with cards of both kinds in the Event deck (|z| < Z_TOL), and a guard
that a reference ignoring the encounter is caught; and exactly, in the kernel and the
reference, that the card drawn is met and goes back into its pool unless kept (P-16).
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from click.testing import CliRunner

from sim.campaign.compile import compile_campaign
from sim.cli import main
from sim.encounter.anomaly import StartState, compile_event
from sim.exact.event import OUTCOMES, event_exact
from sim.experiments.event import simulate_event
from sim.kernels import campaign as K
from sim.kernels import event as k
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.game import NO_LOG, _new_game, scratch
from sim.kernels.campaign.movement import _location
from sim.reference import anomaly as reference_event
from sim.reference import campaign as reference
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.variants import apply_edits
from tests.conftest import MC_TRIALS, Z_TOL, assert_matches_exact, ruleset_problems
from tests.kernels.campaign import test_zone_deck as zone_deck

ENCOUNTERS = ["events.Lost in fog.value=0", "events.Lost in fog.effect=enemy",
              "events.Quiet day.value=0", "events.Quiet day.effect=anomaly"]
"""Two kinds of encounter card in the base Event deck: Lost in fog (2 cards, avoided on 3+)
brings an enemy, Quiet day (2 cards, no roll) an anomaly."""
STRONG = [*ENCOUNTERS, "events.Zone stirs.value=0", "events.Zone stirs.effect=enemy",
          "events.Quiet day.count=4"]
"""More of them: Zone stirs (2 cards, no roll) brings an enemy too, four Quiet days."""


def _scenario(edits, name: str = "base"):
    sc = load_scenario(scenario_path(name))
    return dataclasses.replace(sc, ruleset=apply_edits(sc.ruleset, list(edits)))


# --- bad input ------------------------------------------------------------------------------

HEADER = "name,count,avoid_on,effect,value,damage_type,notes\n"


@pytest.mark.parametrize(("row", "message"), [
    ("Ambush,2,4,enemy,1,,\n", "configs/my/events.csv:2: column 'value': '1' must be 0 for "
                               "effect 'enemy' (the card brings one enemy, P-16, P-30)"),
    ("Ambush,2,4,anomaly,0,physical,\n",
     "configs/my/events.csv:2: column 'damage_type': 'physical' must be empty for effect "
     "'anomaly'"),
])
def test_a_bad_encounter_card_is_refused_naming_file_line_column_value(my, row, message):
    (my / "events.csv").write_text(HEADER + row)
    assert ruleset_problems(my) == [message]


def test_the_command_line_refuses_it_with_exit_2(my):
    (my / "events.csv").write_text(HEADER + "Ambush,2,4,enemy,1,,\n")
    result = CliRunner().invoke(main, ["validate", str(my)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "configs/my/events.csv:2: column 'value': '1' must be 0" in result.output


# --- zonesim event: the chance of the encounter ----------------------------------------------

RS = apply_edits(load_ruleset(None), ENCOUNTERS)


@pytest.mark.parametrize("items", [(), ("Bag of nuts",), ("Torsion scanner",)],
                         ids=["no-item", "nuts", "torsion"])
@pytest.mark.parametrize("event", ["Lost in fog", "Quiet day"])
def test_the_event_kernel_and_the_reference_match_the_exact_twin(event, items):
    """Z-09, Z-10: the encounter comes unless avoided, 1 - 4/6 for Lost in fog (3+), 1 - 5/6
    with the Bag of nuts, never with the Torsion scanner; Quiet day always; no damage."""
    spec = compile_event(RS, "Ghost", event, None, items, state=StartState(health=1))
    exact = event_exact(spec)
    expected = {("Lost in fog", ()): 1 - 4 / 6, ("Lost in fog", ("Bag of nuts",)): 1 - 5 / 6,
                ("Lost in fog", ("Torsion scanner",)): 0}.get((event, items), 1)
    assert float(exact.outcomes["happened"]) == pytest.approx(expected)
    assert exact.outcomes["knocked_out"] == 0 and exact.health_lost == 0
    counts = simulate_event(spec, MC_TRIALS, 5)
    assert_matches_exact(counts[:k.N_OUTCOMES], MC_TRIALS,
                         [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)
    ref = reference_event.simulate_event(spec, 100_000, 5)
    assert_matches_exact([ref[o] for o in OUTCOMES], 100_000,
                         [exact.outcomes[o] for o in OUTCOMES], OUTCOMES)


# --- whole games: the kernel against the reference ------------------------------------------

REFERENCE_GAMES = 6_000
GUARD_GAMES = 250
"""Reference games of the guard: its largest |z| is then 21.1 (anomalies entered; 65.6 at
3,000 games, the count before)."""
SEED = 37


def z_scores(edits, game: type = reference.Game, games: int = REFERENCE_GAMES) -> dict:
    """Whole base games, reference against kernel
    (:func:`tests.kernels.campaign.test_zone_deck.z_scores`)."""
    return zone_deck.z_scores(edits, game, games, SEED)


@pytest.mark.parametrize("edits", [ENCOUNTERS, STRONG], ids=["two-kinds", "strong"])
def test_reference_agrees_with_kernel_with_encounter_cards(edits):
    """P-16, P-30: whole base games; every ending, the end day and every counter (the
    fights and anomalies met count the encounters the event cards bring)."""
    z = z_scores(edits)
    bad = {key: round(v, 2) for key, v in z.items() if not abs(v) < Z_TOL}
    assert not bad, f"reference and kernel disagree (|z| >= {Z_TOL}): {bad}"


def _all_cards(effect: str):
    """Every event card is Quiet day (no roll), of ``effect``: each draw brings one (the base
    scenario sneaks past every enemy it can, P-16)."""
    names = [n for n in load_ruleset(None).events if n != "Quiet day"]
    return [*(f"events.{n}.count=0" for n in names), "events.Quiet day.value=0",
            f"events.Quiet day.effect={effect}"]


@pytest.mark.parametrize("effect", ["enemy", "anomaly"])
def test_an_encounter_card_brings_its_card_and_it_goes_back_unless_kept(effect):
    """P-16, P-30, exactly, in the kernel and the reference: an empty Open Space location
    draws the event card, which brings an enemy (fought; back into the pool after a
    sneak or any end but its death) or an anomaly (met; back unless kept as a trophy,
    P-34). Forty games from their first state: every card drawn is accounted for."""
    sc = _scenario(_all_cards(effect))
    T = compile_campaign(sc).pack()
    h = int(tb.table(T, "place_open")[0])
    counts = {"enemy": (K.S_FIGHTS, K.S_KILLS), "anomaly": (K.S_ANOMALIES, K.S_TROPHY_ANOMALY)}
    met, kept = counts[effect]
    seen = {"met": 0, "returned": 0}
    for t in range(40):
        G, R = scratch(T)
        _new_game(T, G, R, 11, t)
        game = tb.state(T, G)
        pool = game.enemy_pool if effect == "enemy" else game.anomaly_pool
        before = pool.sum()
        _location(T, G, R, 0, 0, h, K.LOC_OPEN, NO_LOG)  # slot 0, seat 0, no log
        st = game.st[0]
        assert st[K.S_EVENTS] == 1 and st[met] <= 1 and st[kept] <= st[met]
        assert pool.sum() == before - st[kept]
        seen["met"] += st[met]
        seen["returned"] += st[kept] == 0
    assert 0 < seen["met"] and 0 < seen["returned"]  # met (not avoided), and cards back
    c = reference.Campaign(sc)
    tally = {"enemy": ("fights", "kills"), "anomaly": ("anomalies_entered", None)}[effect]
    seen = {"met": 0, "returned": 0}
    for t in range(40):
        g = reference.Game(c, *(random.Random(100 * t + s) for s in (1, 2, 3)))
        before = sum(g.enemy_pool if effect == "enemy" else g.anomaly_pool)
        g.enter(c.open_places[0])
        me = g.me
        gone = me.tally[tally[1]] if tally[1] else me.trophies_anomaly
        assert me.tally["events"] == 1 and gone <= me.tally[tally[0]] <= 1
        assert sum(g.enemy_pool if effect == "enemy" else g.anomaly_pool) == before - gone
        seen["met"] += me.tally[tally[0]]
        seen["returned"] += gone == 0
    assert 0 < seen["met"] and 0 < seen["returned"]


class IgnoresTheEncounter(reference.Game):
    """A wrong rule: an encounter card brings nothing (as before the effect existed)."""

    def event(self, v):
        super().event(v)
        return None


def test_a_reference_ignoring_the_encounter_is_caught():
    """Guard: a reference whose encounter cards bring nothing fails the comparison
    (largest |z| >= Z_TOL)."""
    z = z_scores(STRONG, IgnoresTheEncounter, GUARD_GAMES)
    worst = max(z, key=lambda key: abs(z[key]))
    assert abs(z[worst]) >= Z_TOL, f"a broken rule went unnoticed: |z| {z[worst]:.2f} ({worst})"


def test_four_stalkers_meet_the_encounters_alike():
    """Four stalkers sharing the Event deck with encounter cards (P-16, P-30): the reference
    and the kernel give the same win and no-winner rates (two-sample |z| < Z_TOL)."""
    z = zone_deck.four_stalker_z(_scenario(STRONG, "four_stalkers"), 17)
    assert all(abs(v) < Z_TOL for v in z.values()), z
