"""A search that spends its budget where it matters (issue 46 item 1).

The scenario: the corridor ruleset (``tests/data/corridor``: no enemies, anomalies or
Emissions, so ``flee_at`` (P-21) never acts) with a six-day cap, the stalker from the Camp
with the long route (East Lab first, P-50): he never reaches the Sarcophagus in time,
while the nearest route wins every game. Before this item, ``--budget 100000`` was spent
racing ``flee_at`` values whose games were the incumbent's (every paired difference 0) up
to the last rung, the route was never raced and the scenario's policy came back as best.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as library
from sim.workflows import race as race_module
from tests.workflows.once import once

CORRIDOR = Path(__file__).parents[1] / "data" / "corridor"


@pytest.fixture(scope="module")
def late(tmp_path_factory) -> Path:
    """The corridor with a six-day cap, and a scenario on the long route."""
    folder = tmp_path_factory.mktemp("search_budget")
    shutil.copytree(CORRIDOR, folder / "corridor")
    rules = folder / "corridor" / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert "max_days = 30" in text
    rules.write_text(text.replace("max_days = 30", "max_days = 6"), encoding="utf-8")
    path = folder / "late.toml"
    path.write_text('ruleset = "corridor"\nstalker = "Strelok"\nstart = "Camp"\n'
                    '[policy]\nroute = ["East Lab", "West Lab"]\nflee_at = 0\n',
                    encoding="utf-8")
    return path


def _optimize(path: Path, *args: str) -> tuple[dict, str]:
    """The command's json and table: one search, printed twice (tests/workflows/once.py)."""
    argv = ["optimize", str(path), "--keys", "flee_at,route", "--fresh-trials", "2000", *args]
    search = once(library.optimize)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(library, "optimize", search)
        doc = CliRunner().invoke(main, [*argv, "--format", "json"])
        assert doc.exit_code == 0, doc.output
        table = CliRunner().invoke(main, argv)
        assert table.exit_code == 0, table.output
    assert len(search.calls) == 2 and search.searched() == 1
    return json.loads(doc.stdout), table.output


def test_values_with_the_incumbents_games_cost_one_rung_and_the_route_is_raced(late):
    doc, table = _optimize(late, "--budget", "100000")
    keys = {k["key"]: k for k in doc["keys"]}
    assert keys["route"]["effect"] == "changed"  # before: "not searched"
    assert doc["best"]["policy"]["route"] == []  # nearest
    assert doc["reevaluation"]["vs_scenario"]["diff_ci_low"] > 0.9
    assert keys["flee_at"]["effect"] == library.SAME_GAMES
    assert keys["flee_at"]["same_games"] >= 1
    flee = [r for r in doc["top"] if r["candidate"].startswith("flee_at=")]
    assert flee and all(r["dropped"] == race_module.DROPPED_SAME for r in flee)
    assert all(r["trials"] == doc["first_rung"] for r in flee)  # the first rung only
    assert doc["not_searched"] == [] and not table.startswith("not searched")
    assert doc["played"] <= 100_000


def test_a_budget_too_small_for_every_key_names_the_keys_not_searched(late):
    argv = ["--keys", "flee_at,heal_at,route", "--trials", "300", "--budget", "1000"]
    doc, table = _optimize(late, *argv)
    assert doc["stopped"] == "budget" and doc["first_rung"] == library.MIN_RUNG
    missing = doc["not_searched"]
    assert missing and "route" not in missing  # the route still fits; the others wait
    keys = {k["key"]: k for k in doc["keys"]}
    assert all(keys[k]["effect"] == library.NOT_SEARCHED for k in missing)
    assert all(keys[k]["effect"] != library.NOT_SEARCHED for k in keys if k not in missing)
    first = table.splitlines()[0]
    assert first.startswith("not searched: " + ", ".join(missing))
    assert "--budget" in first


def test_the_budget_sets_the_first_rung_so_that_every_key_is_raced():
    assert library.first_rung(100_000, 5_000, 192) == 518
    assert library.first_rung(10**7, 5_000, 192) == 5_000
    assert library.first_rung(1_000, 5_000, 192) == library.MIN_RUNG
    assert library.first_rung(1_000, 40, 192) == 40  # a smaller --trials is kept
    result = library.optimize(load_scenario("base"), budget=20_000, fresh_trials=500,
                              seed=3)
    assert result.first_rung == 20_000 // 193 and result.not_searched == ()
    logs = {k.key: k for k in result.keys}
    assert all(logs[k].raced for k in ("flee_at", "route", "items", "artifacts"))
    assert result.played <= 20_000
