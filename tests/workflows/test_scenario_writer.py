"""``zonesim optimize --out``: the scenario written loads to exactly what was meant (issue 43).

The writer (:mod:`sim.workflows.scenario_toml`) keeps the input's form of every key: a
``[policy]`` table, inline tables, dotted keys, an ``[policy.artifact_use]`` sub-table,
card names holding ``[`` or ``#``, a ruleset folder whose name holds a line break. Each
written file is loaded back and compared with the input plus the changes; a file that
would load anything else is refused, and nothing is written over an existing file.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.paths import bundled_ruleset
from sim.rules.scenario import load_scenario
from sim.workflows import scenario_toml
from sim.workflows.scenario_toml import ScenarioWriteError, changed_scenario, write_scenario

TARGETS = '[targets]\np_sarcophagus = [0.35, 0.55]\n"days.median" = [10, 16]\n'
ODD = "Nuts [#1]"
"""An item card whose name holds a ``[`` and a ``#`` (text, not TOML markup)."""


@pytest.fixture(scope="module")
def odd_rules(tmp_path_factory) -> Path:
    """The bundled ruleset with the Bag of nuts renamed :data:`ODD`."""
    folder = tmp_path_factory.mktemp("odd") / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    items = folder / "items.csv"
    items.write_text(items.read_text().replace("Bag of nuts", ODD))
    return folder


def _round_trip(tmp_path: Path, source: str, changes: dict, stalker: str | None = None):
    """Write ``source`` as a scenario, change it, write the text elsewhere, load it back."""
    path = tmp_path / "source.toml"
    path.write_text(source, encoding="utf-8")
    scenario = load_scenario(path)
    text = changed_scenario(scenario, changes, ["a header"], stalker)
    out = tmp_path / "elsewhere" / "best.toml"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return scenario, load_scenario(out), text


def test_a_bracket_or_hash_in_a_card_name_on_a_changed_line_loses_nothing(tmp_path, odd_rules):
    source = (f'ruleset = "{odd_rules}"\nstalker = "Strelok"\nstart = "Cordon"\n'
              f'[loadout]\nitems = ["Medkit", "{ODD}"]   # a comment\n'
              f'[policy]\nshopping = ["{ODD}", "Medkit"]\nflee_at = 1\npay_heal = false\n'
              + TARGETS)
    before, after, text = _round_trip(tmp_path, source, {
        "items": (ODD,), "shopping": ("Medkit", ODD), "medkit_at": 5})
    assert after.items == (ODD,)
    assert after.policy.shopping == ("Medkit", ODD) and after.policy.medkit_at == 5
    assert after.policy.flee_at == 1 and after.policy.pay_heal is False
    assert after.targets == before.targets == {"p_sarcophagus": (0.35, 0.55),
                                               "days.median": (10.0, 16.0)}
    assert f'# optimize: was ["Medkit", "{ODD}"]' in text


def test_inline_tables_keep_their_form_and_every_key(tmp_path):
    source = ('stalker = "Strelok"\nstart = "Cordon"\n'
              'loadout = {armor = "Stalker suit", items = ["Medkit", "Stimulant"]}\n'
              'policy = {flee_at = 0, pay_heal = true, sneak = "never"}\n' + TARGETS)
    before, after, text = _round_trip(tmp_path, source, {
        "flee_at": 2, "pay_heal": False, "items": ("Medkit",), "medkit_at": 4})
    assert (after.policy.flee_at, after.policy.pay_heal, after.policy.medkit_at) == (2, False, 4)
    assert after.policy.sneak == "never" and after.armor == "Stalker suit"
    assert after.items == ("Medkit",) and after.targets == before.targets
    assert "policy = {" in text and "loadout = {" in text


def test_dotted_keys_keep_their_form(tmp_path):
    source = ('stalker = "Strelok"\nstart = "Cordon"\npolicy.pay_heal = false\n'
              'policy.medkit_at = 3\nloadout.items = ["Medkit"]\n' + TARGETS)
    before, after, text = _round_trip(tmp_path, source, {
        "pay_heal": True, "heal_at": 1, "items": ("Stimulant",)})
    assert after.policy.pay_heal is True and after.policy.medkit_at == 3
    assert after.policy.heal_at == 1 and after.items == ("Stimulant",)
    assert after.targets == before.targets
    assert "policy.pay_heal = true   # optimize: was false" in text


def test_an_artifact_use_sub_table_is_changed_in_place(tmp_path):
    source = ('stalker = "Strelok"\nstart = "Cordon"\n[loadout]\nartifacts = ["Flash"]\n'
              '[policy]\nflee_at = 1\n[policy.artifact_use]\nFlash = "never"\n' + TARGETS)
    before, after, _ = _round_trip(tmp_path, source, {
        "artifact_use": (("Flash", 2), ("Slime", 0)), "flee_at": 0})
    assert after.policy.artifact_use == (("Flash", 2), ("Slime", 0))
    assert after.policy.flee_at == 0 and after.targets == before.targets


def test_a_ruleset_folder_with_a_line_break_is_written_escaped(tmp_path):
    folder = tmp_path / "my\nrules"
    shutil.copytree(bundled_ruleset(), folder)
    source = ('ruleset = "my\\nrules"\nstalker = "Strelok"\nstart = "Cordon"\n'
              '[policy]\nflee_at = 1\n' + TARGETS)
    before, after, text = _round_trip(tmp_path, source, {"flee_at": 2})
    assert Path(after.ruleset.path).resolve() == folder.resolve()
    assert after.policy.flee_at == 2 and after.targets == before.targets
    assert str(folder.resolve()).replace("\n", "\\n") in text


def test_comments_layout_and_header_are_kept(tmp_path):
    source = (Path(bundled_ruleset()).parent / "scenarios" / "base.toml").read_text()
    before, after, text = _round_trip(tmp_path, source, {"flee_at": 3, "armor": None},
                                      "Ghost")
    assert text.startswith("# a header\n")
    assert "# try to avoid fights (P-16)" in text  # a comment of the input kept
    assert "flee_at = 3   # optimize: was 0" in text
    assert 'stalker = "Ghost"   # optimize: was "Strelok"' in text
    assert '# armor = "Stalker suit"   # optimize: no armour (was this)' in text
    assert after.stalker == "Ghost" and after.armor is None and after.policy.flee_at == 3
    assert after.targets == before.targets and after.policy.shopping == before.policy.shopping


def test_a_file_that_would_load_other_values_is_refused_and_nothing_is_left(
        tmp_path, monkeypatch):
    path = tmp_path / "source.toml"
    path.write_text('stalker = "Strelok"\nstart = "Cordon"\n[policy]\nflee_at = 1\n' + TARGETS)
    scenario = load_scenario(path)
    real = scenario_toml._set

    def losing_flee_at(doc, table, key, value, was):  # a seeded fault: one key not written
        if key != "flee_at":
            real(doc, table, key, value, was)

    monkeypatch.setattr(scenario_toml, "_set", losing_flee_at)
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(ScenarioWriteError, match="flee_at = 1, not 2") as error:
        write_scenario(scenario, {"flee_at": 2, "medkit_at": 4}, folder / "best.toml")
    assert error.value.field == "out"
    assert list(folder.iterdir()) == []  # no file, no temporary one


def test_the_written_file_is_loaded_before_it_is_placed(tmp_path):
    path = tmp_path / "source.toml"
    path.write_text('stalker = "Strelok"\nstart = "Cordon"\n[policy]\nflee_at = 1\n')
    out = tmp_path / "best.toml"
    write_scenario(load_scenario(path), {"flee_at": 2}, out, ["header"])
    assert load_scenario(out).policy.flee_at == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.toml", "source.toml"]
    with pytest.raises(ScenarioWriteError, match="exists already"):
        write_scenario(load_scenario(path), {"flee_at": 3}, out)
    assert load_scenario(out).policy.flee_at == 2  # not overwritten
    link = tmp_path / "dangling.toml"
    link.symlink_to(tmp_path / "nowhere.toml")
    with pytest.raises(ScenarioWriteError, match="exists already"):
        write_scenario(load_scenario(path), {"flee_at": 3}, link)
    assert not (tmp_path / "nowhere.toml").exists()


QUICK = ["--keys", "flee_at", "--trials", "100", "--budget", "1000", "--fresh-trials", "100"]


@pytest.mark.parametrize("which", ["other", "itself", "dangling"])
def test_optimize_never_writes_over_a_file_and_says_so_before_the_search(tmp_path, which):
    source = tmp_path / "mine.toml"
    text = 'stalker = "Strelok"\nstart = "Cordon"\n[policy]\nflee_at = 1\n'
    source.write_text(text)
    out = {"other": tmp_path / "kept.toml", "itself": source,
           "dangling": tmp_path / "link.toml"}[which]
    if which == "other":
        out.write_text("# mine\n")
    if which == "dangling":
        out.symlink_to(tmp_path / "target.toml")
    before = {p.name: (p.is_symlink(), os.path.lexists(p) and p.is_file()
                       and p.read_text()) for p in tmp_path.iterdir()}
    result = CliRunner().invoke(main, ["optimize", str(source), *QUICK, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "--out" in result.output
    assert ("does not exist" if which == "dangling" else "exists already") in result.output
    assert "games of selection" not in result.output  # refused before the search
    after = {p.name: (p.is_symlink(), os.path.lexists(p) and p.is_file()
                      and p.read_text()) for p in tmp_path.iterdir()}
    assert after == before
