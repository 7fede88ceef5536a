"""The campaign can never disagree with the encounter commands (P-16..P-36, Z-08..Z-17, P-50).

Each case is a tiny campaign that forces exactly one encounter: the stalker
walks Start -> Glade (an Open Space location) -> Bunker -> Lab -> Sarcophagus
with the Zone phase and Emissions switched off, and the Glade draws from a
deck holding one card (``campaign.open_location_draw``). A knock-out there
sends him to the Bunker, which lies ahead, so he never meets the Glade again.
The campaign's per-game counts (fights, kills, knock-outs, anomalies
entered, artefacts found) must then agree with the exact values that
``zonesim combat`` / ``anomaly`` / ``event`` report for the same card and
loadout: |z| < 4.5 against the exact standard error (tests/conftest.py). The
Sarcophagus deck is checked the same way against the exact fight.
"""

from __future__ import annotations

import shutil

import pytest

from sim.encounter.anomaly import compile_anomaly, compile_event
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.exact.anomaly import anomaly_exact
from sim.exact.combat import combat_exact
from sim.exact.event import event_exact
from sim.experiments.campaign import run_campaign
from sim.paths import bundled_ruleset
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario
from tests.conftest import assert_matches_exact

TRIALS = 20_000
SEED = 17

MAP = """q,r,terrain,location,name,faction,roads,notes
0,0,1,open,Start,,0,
1,0,1,open,Glade,,3-0,
2,0,1,bunker,Bunker,,3-0,
3,0,1,complex,Lab,,3,
4,0,1,sarcophagus,Sarcophagus,,,
"""

RULES = """
[dice]
success_on = 5
[combat]
avoid_rule = "{avoid_rule}"
medkits_in_combat = {medkits}
[escape]
items_consumed = {escape_consumed}
[campaign]
open_location_draw = "{draw}"
secret_location_draw = "nothing"
max_days = 30
[zone]
enemies_per_day = 0
anomalies_per_day = 0
environment_change_chance = 0.0
"""

EVENT = "Ambush,1,4,wounds,6,physical,knocks out on a full hit\n"


def _campaign(tmp_path, *, draw: str, card_file: str = "", card_rows: str = "",
              armor: str | None = None, weapons=(), items=(), sneak: str = "always",
              heal_at: int = 0, enter: bool = False, sarcophagus: str = "",
              avoid_rule: str = "stealth_test", medkits: bool = False,
              escape_consumed: bool = False):
    """Write the one-encounter campaign and return (scenario, its ruleset)."""
    rules = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), rules)
    (rules / "map.csv").write_text(MAP)
    (rules / "rules.toml").write_text(RULES.format(
        draw=draw, avoid_rule=avoid_rule, medkits=str(medkits).lower(),
        escape_consumed=str(escape_consumed).lower()))
    (rules / "sarcophagus.csv").write_text("name,order,enemy,notes\n" + sarcophagus)
    if card_file:
        header = (rules / card_file).read_text().splitlines()[0]
        (rules / card_file).write_text(header + "\n" + card_rows)

    def strings(names) -> str:
        return ", ".join(f'"{n}"' for n in names)

    path = tmp_path / "scenario.toml"
    path.write_text(f"""
ruleset = "rules"
stalker = "Strelok"
start = "Start"
[loadout]
{f'armor = "{armor}"' if armor else ''}
weapons = [{strings(weapons)}]
items = [{strings(items)}]
[policy]
sneak = "{sneak}"
heal_at = {heal_at}
medkit_at = 0
retreat_at = 0
enter_anomalies = {str(enter).lower()}
""")
    scenario = load_scenario(path)
    return scenario, load_ruleset(rules)


def _counts(scenario, *names) -> list[int]:
    result = run_campaign(scenario, trials=TRIALS, seed=SEED).to_dict()
    assert result["p_sarcophagus"]["mc"] == 1.0  # nothing else can stop him
    return [round(result[n] * TRIALS) for n in names]


@pytest.mark.parametrize(("armor", "items"), [
    (None, ()),
    (None, ("Bag of nuts",)),
    ("Stalker suit", ("Dosimeter", "Bag of nuts")),
    # Z-09, Z-10: the scanner avoids without a roll, whatever else is held (the campaign
    # once used the Bag of nuts here).
    (None, ("Bag of nuts", "Torsion scanner")),
    ("Stalker suit", ("Torsion scanner", "Dosimeter")),
])
def test_one_event_matches_zonesim_event(tmp_path, armor, items):
    scenario, rs = _campaign(tmp_path, draw="event", card_file="events.csv", card_rows=EVENT,
                             armor=armor, items=items)
    events, knockouts = _counts(scenario, "events", "knockouts")
    assert events == TRIALS
    exact = event_exact(compile_event(rs, "Strelok", "Ambush", armor, items))
    assert_matches_exact([knockouts], TRIALS, [exact.outcomes["knocked_out"]], ["knocked_out"])


@pytest.mark.parametrize(("anomaly", "armor", "enter"), [
    ("Electro", None, False),
    ("Burner", "Ecolog suit", True),
    ("Springboard", "Leather jacket", False),
])
def test_one_anomaly_matches_zonesim_anomaly(tmp_path, anomaly, armor, enter):
    row = next(line for line in (bundled_ruleset() / "anomalies.csv").read_text().splitlines()
               if line.startswith(anomaly + ","))
    scenario, rs = _campaign(tmp_path, draw="anomaly", card_file="anomalies.csv",
                             card_rows=row + "\n", armor=armor, enter=enter)
    entered, knockouts, found = _counts(scenario, "anomalies_entered", "knockouts",
                                        "artifacts_found")
    exact = anomaly_exact(compile_anomaly(rs, "Strelok", anomaly, armor, enter=enter))
    assert 0 < exact.artifact < 1
    assert_matches_exact([entered, knockouts, found], TRIALS,
                         [1 - exact.outcomes["avoided"], exact.outcomes["knocked_out"],
                          exact.artifact], ["entered", "knocked_out", "artifact"])


ENEMY_CASES = [
    dict(enemy="Bloodsucker", armor="Stalker suit", weapons=("SVD sniper rifle", "Knife"),
         items=("Stimulant", "Stimulant"), heal_at=2),
    dict(enemy="Boar", weapons=("Shotgun",), sneak="never"),
    dict(enemy="Chimera", armor="Ecolog suit", weapons=("AK-74", "Grenade"),
         items=("Medkit", "Stimulant"), heal_at=3, medkits=True),
    dict(enemy="Mercenary", weapons=("PM pistol",), items=("Smoke bomb",),
         avoid_rule="reputation"),
]


@pytest.mark.parametrize("case", ENEMY_CASES, ids=[c["enemy"] for c in ENEMY_CASES])
def test_one_fight_matches_zonesim_combat(tmp_path, case):
    case = dict(case)
    enemy = case.pop("enemy")
    row = next(line for line in (bundled_ruleset() / "enemies.csv").read_text().splitlines()
               if line.startswith(enemy + ","))
    row = row.replace(",secret,", ",open,")  # drawable in the Open Space
    scenario, rs = _campaign(tmp_path, draw="enemy", card_file="enemies.csv",
                             card_rows=row + "\n", **case)
    fights, kills, knockouts = _counts(scenario, "fights", "kills", "knockouts")
    policy = CombatPolicy(sneak=case.get("sneak", "always"), heal_at=case.get("heal_at", 0))
    spec = compile_combat(rs, "Strelok", enemy, case.get("armor"), case.get("weapons", ()),
                          case.get("items", ()), policy)
    exact = combat_exact(spec).outcomes
    assert_matches_exact([fights, kills, knockouts], TRIALS,
                         [1 - exact["avoided"], exact["killed"], exact["knocked_out"]],
                         ["fought", "killed", "knocked_out"])


@pytest.mark.parametrize("consumed", [False, True])
def test_escape_items_consumed_is_honoured(tmp_path, consumed):
    # Z-15, escape.items_consumed: the Smoke bomb helps the Reputation roll (Z-16) and is
    # used up on it when the key says so; the campaign counts it as an item used.
    row = next(line for line in (bundled_ruleset() / "enemies.csv").read_text().splitlines()
               if line.startswith("Bandit,"))
    scenario, _ = _campaign(tmp_path, draw="enemy", card_file="enemies.csv",
                            card_rows=row + "\n", weapons=("AK-74",), items=("Smoke bomb",),
                            avoid_rule="reputation", escape_consumed=consumed)
    (used,) = _counts(scenario, "items_used")
    assert used == (TRIALS if consumed else 0)


@pytest.mark.parametrize(("armor", "weapons", "items", "heal_at"), [
    ("Stalker suit", ("SVD sniper rifle", "Knife"), ("Stimulant", "Stimulant"), 2),
    (None, ("AK-74",), (), 0),
])
def test_sarcophagus_deck_matches_zonesim_combat(tmp_path, armor, weapons, items, heal_at):
    # P-43, P-50: the Sarcophagus deck is fought with the same fight as `zonesim combat`;
    # a knock-out there is death.
    scenario, rs = _campaign(tmp_path, draw="nothing", armor=armor, weapons=weapons,
                             items=items, heal_at=heal_at,
                             sarcophagus="Guardian,1,Monolith fighter,\n")
    result = run_campaign(scenario, trials=TRIALS, seed=SEED).to_dict()
    died = {c["cause"]: c["mc"] for c in result["causes"]}["knocked_out_in_sarcophagus"]
    spec = compile_combat(rs, "Strelok", "Monolith fighter", armor, weapons, items,
                          CombatPolicy(heal_at=heal_at))
    exact = combat_exact(spec).outcomes["knocked_out"]
    assert_matches_exact([round(died * TRIALS)], TRIALS, [exact], ["died"])
