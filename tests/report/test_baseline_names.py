"""A baseline or variant ruleset lacking a name the scenario uses, and --baseline given
a wrong kind of value (issue 43, other classes).

``zonesim compare ... --variant rules=OTHER`` and ``zonesim report --baseline
OTHER``, where OTHER's cards lack an item the scenario's loadout and policy name,
ended in an error naming no file, key or option, after up to 39 s of work.
Now every name is checked before anything plays: exit status 2, the option,
the ruleset and each missing name. ``report --baseline ""`` and ``--baseline
rules.toml`` get a line saying what --baseline takes.
"""

from __future__ import annotations

import shutil

import pytest

from sim.experiments import campaign_paired
from sim.paths import bundled_ruleset
from sim.report import build
from tests.cli.test_cli import run


@pytest.fixture
def other(tmp_path, monkeypatch):
    """A copy of the base ruleset whose Stimulant is called Stim; nothing may play."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "other"
    shutil.copytree(bundled_ruleset(), folder)
    items = folder / "items.csv"
    items.write_text(items.read_text(encoding="utf-8").replace("\nStimulant,", "\nStim,"),
                     encoding="utf-8")

    def refuse(*args, **kwargs):
        raise AssertionError("a game was compiled before the names were checked")

    monkeypatch.setattr(campaign_paired, "compile_scenario", refuse)
    monkeypatch.setattr(build, "_sections", refuse, raising=False)
    return "other"


def _one_line(output: str) -> str:
    return " ".join(output.split())


def test_compare_names_the_variant_ruleset_and_each_missing_name(other):
    result = run("compare", "campaign", "base", "--baseline", "", "--variant",
                 f"rules={other}", "--trials", "10")
    assert result.exit_code == 2, result.output
    text = _one_line(result.output)
    assert (f"Invalid value for --variant: variant 'rules={other}': ruleset '{other}' has no "
            "item 'Stimulant' (the setup's items); variant") in text
    assert "has no item 'Stimulant' (the setup's shopping)" in text
    assert "Traceback" not in result.output


def test_report_names_the_baseline_ruleset_and_each_missing_name(other):
    result = run("report", "base", "--baseline", other, "--trials", "10",
                 "--campaign-trials", "10")
    assert result.exit_code == 2, result.output
    text = _one_line(result.output)
    assert (f"Invalid value for --baseline: --baseline '{other}': scenario base cannot be "
            "played on it: key 'loadout.items': 'Stimulant' is not an item in the ruleset "
            "(did you mean 'Stim'?); key 'policy.shopping': 'Stimulant' is not an item") in text
    assert not (other and __import__("pathlib").Path("results").exists())


@pytest.mark.parametrize(("given", "said"), [
    ("", "--baseline '' is empty: give a scenario's name (base), a scenario .toml file or a "
         "ruleset folder"),
    (" ", "--baseline ' ' is empty: give a scenario's name (base), a scenario .toml file or "
          "a ruleset folder"),
    ("configs/base/rules.toml", "--baseline 'configs/base/rules.toml' is a file of a ruleset "
     "folder, not a scenario: give the folder ('configs/base') to play the scenario on that "
     "ruleset, or a scenario's name (base), a scenario .toml file or a ruleset folder"),
    ("rules.toml", "--baseline 'rules.toml' is a file of a ruleset folder"),
    ("configs/base/enemies.csv", "--baseline 'configs/base/enemies.csv' is a file of a "
     "ruleset folder"),
])
def test_report_says_what_baseline_takes(tmp_path, monkeypatch, given, said):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(bundled_ruleset(), tmp_path / "configs/base")
    result = run("report", "base", "--baseline", given, "--trials", "10",
                 "--campaign-trials", "10")
    assert result.exit_code == 2, result.output
    assert f"Invalid value for --baseline: {said}" in _one_line(result.output)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("command", [
    ["combat", "--scenario", "base", "--enemy", "Flesh"],
    ["compare", "campaign", "--scenario", "base", "--baseline", "", "--variant", "heal_at=3"],
    ["sweep", "--experiment", "campaign", "--scenario", "base", "--vary",
     "enemies.Flesh.endurance=1,2", "--workers", "1"],
    ["levers", "base", "--tables", "enemies", "--cards", "Flesh", "--workers", "1"],
])
def test_rules_lacking_a_scenario_name_is_refused_first(other, command):
    """``--rules OTHER`` with ``--scenario`` (or levers' SCENARIO) is the same class."""
    result = run(*command, "--rules", other, "--trials", "10")
    assert result.exit_code == 2, result.output
    text = _one_line(result.output)
    assert f"Invalid value for --rules: ruleset '{other}'" in text
    assert ("has no item 'Stimulant' (the setup's" in text
            or "'Stimulant' is not an item in the ruleset" in text)
    assert "Traceback" not in result.output
