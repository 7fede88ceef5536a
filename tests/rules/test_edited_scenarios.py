"""Edits pass the checks a scenario file passes (issue 43, item 10).

``balance seats --edit`` played a setting the scenario loader refuses: a
cooperative game needing more survivors than it has seats (every win rate 0),
or a carry limit below the artefacts a stalker carries. Now an edited ruleset
is checked against the scenario with the loader's own checks
(:func:`sim.rules.scenario.ruleset_problems`) before anything plays: exit
status 2, the option, the edit, the scenario and the key at fault.
"""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from sim.paths import bundled_ruleset
from sim.rules.scenario import load_scenario, ruleset_problems
from sim.rules.variants import apply_edits
from tests.cli.test_cli import run


def _scenario(tmp_path, body: str, name: str = "coop"):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'ruleset = "{bundled_ruleset()}"\nstart = "Cordon"\n{body}',
                    encoding="utf-8")
    return path


def _artefacts(n: int) -> list[str]:
    frame = pd.read_csv(bundled_ruleset() / "artifacts.csv", comment="#")
    return list(frame["name"])[:n]


def test_the_loader_refuses_what_the_edit_would_make(tmp_path):
    """The file form of the edit below is refused by the loader (the reference)."""
    from sim.rules import RulesetError

    folder = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    with (folder / "rules.toml").open("a", encoding="utf-8") as rules:
        rules.write("\n[multiplayer]\ncooperative_needed = 3\n")
    path = tmp_path / "coop.toml"
    path.write_text(f'ruleset = "{folder}"\nstart = "Cordon"\nstalker = "Strelok"\n'
                    'stalkers = 2\nvariant = "cooperative"\n', encoding="utf-8")
    with pytest.raises(RulesetError, match="needs 3 stalkers"):
        load_scenario(path)


def test_balance_seats_refuses_an_edit_the_loader_would_refuse(tmp_path):
    path = _scenario(tmp_path, 'stalker = "Strelok"\nstalkers = 2\nvariant = "cooperative"\n')
    edit = "rules.multiplayer.cooperative_needed=3"
    result = run("balance", "seats", str(path), "--edit", edit, "--trials", "10")
    assert result.exit_code == 2, result.output
    assert (f"Invalid value for '--edit': edit '{edit}': scenario coop cannot be played on "
            "it: key 'variant': 'cooperative' needs 3 stalkers to survive the Sarcophagus "
            "(multiplayer.cooperative_needed) but has 2") in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_balance_seats_refuses_a_carry_limit_below_the_loadout(tmp_path):
    two = _artefacts(2)
    path = _scenario(tmp_path, f'stalkers = 2\nstalker = "Strelok"\n[loadout]\n'
                     f"artifacts = {two!r}\n".replace("'", '"'))
    edit = "rules.artifacts.carry_limit=1"
    result = run("balance", "seats", str(path), "--edit", edit, "--trials", "10")
    assert result.exit_code == 2, result.output
    assert "key 'loadout.artifacts': lists 2 artefacts; artifacts.carry_limit is 1" \
        in " ".join(result.output.split())


def test_an_accepted_edit_leaves_no_problem():
    scenario = load_scenario("four_stalkers")
    edited = apply_edits(scenario.ruleset, ["rules.multiplayer.first_player=seat1"])
    assert ruleset_problems(scenario, edited) == []
    assert ruleset_problems(load_scenario("base")) == []
