"""Values that move the metric in no game of the scenario are named as such (issue 46, item 6).

On base the trophy prices do not act on the win rate: a lot of mutant trophies is
sold at the Duty base (P-26, P-28) in a handful of games of 200,000, and ten times
the mutant-trophy price changes no game's win, every paired game ending as before
(it moves only the rubles left in those few games). ``zonesim levers``
marks such a step "no game changed" (the paired difference is 0 in every game,
not a small estimate) and names the values whose every step changed no game, so a
designer tuning trophy prices learns that they do not matter here.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from sim.cli import main
from sim.experiments.campaign_paired import scenario_setup
from sim.rules.scenario import load_scenario
from sim.workflows import levers
from sim.workflows.compare import NO_GAME_CHANGED

TROPHY = "rules.economy.mutant_trophy_price"
HEALING = "rules.economy.heal_price_per_wound"


def test_a_value_that_acts_in_no_game_is_named_inert():
    sc = load_scenario("base")
    result = levers.run_levers(sc.ruleset, "campaign", scenario_setup(sc), trials=3000, seed=7,
                               tables=["rules"], cards=["economy"])
    steps = {(s["path"], s["steps"]): s for s in result.steps}
    assert steps[(TROPHY, 1)]["verdict"] == NO_GAME_CHANGED
    assert steps[(TROPHY, 1)]["diff"] == 0.0
    assert TROPHY in result.inert()
    assert HEALING not in result.inert()  # paid healing acts (P-37, P-40)
    assert result.to_dict()["inert"] == result.inert()


def test_levers_output_tells_the_designer_which_values_do_not_act(tmp_path):
    args = ["levers", "base", "--tables", "rules", "--cards", "economy", "--trials", "3000",
            "--seed", "7", "--quiet", "--out", str(tmp_path / "l")]
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0, table.output
    line = next(line for line in table.stdout.splitlines() if "do not act on it" in line)
    assert "economy.mutant_trophy_price" in line and "3000 paired games" in line
    assert "no game changed" in table.stdout
    doc = json.loads(CliRunner().invoke(main, [*args[:-2], "--out", str(tmp_path / "j"),
                                               "--format", "json"]).stdout)
    assert TROPHY in doc["inert"]
