"""The command line through click's CliRunner: outputs, JSON shapes, exit codes, help."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sim.cli import COMMANDS, main
from sim.paths import bundled_ruleset

RUNNER = CliRunner()


def run(*args: str):
    return RUNNER.invoke(main, list(args))


def _commands(group: click.Group, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_every_command_is_listed():
    assert len(list(_commands(main))) >= 11 + 5 + 4  # commands, prob and compare subcommands


def test_command_list_help_is_each_command_s_own():
    ctx = click.Context(main)
    for name, (module, short) in COMMANDS.items():
        command = main.get_command(ctx, name)
        assert command.callback.__module__ == module
        assert command.get_short_help_str(limit=10**6) == short, name


@pytest.mark.subprocess
def test_help_lists_commands_without_importing_them():
    code = ("import re, sys; from click.testing import CliRunner; from sim.cli import main; "
            "out = CliRunner().invoke(main, ['--help']).output; "
            "assert re.search('combat +Fight one enemy card', out), out; "
            "heavy = {'numba', 'pandas', 'matplotlib', 'sim.cli.combat'} & set(sys.modules); "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.subprocess
def test_combat_prints_its_table_and_json_without_pandas_or_the_campaign():
    """Issue 13: pandas and the campaign compile step cost ~0.3 s of a 1 s command."""
    code = ("import sys; from click.testing import CliRunner; from sim.cli import main; "
            "args = ['combat', '--stalker', 'Strelok', '--enemy', 'all', '--trials', '2000']; "
            "out = CliRunner().invoke(main, args).stdout; assert 'Bloodsucker' in out, out; "
            "out = CliRunner().invoke(main, [*args, '--format', 'json']).stdout; "
            "assert '\"rows\"' in out, out; "
            "heavy = {'pandas', 'sim.kernels.campaign'} & set(sys.modules); "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_text_table_prints_rows_as_pandas_does():
    pd = pytest.importorskip("pandas")
    from sim.cli.common import text_table
    from sim.experiments.combat import combat_table, deck_names
    from sim.rules import load_ruleset

    rs = load_ruleset(None)
    table = combat_table(rs, "Scar", deck_names(rs, "all"), "Stalker suit", ("AK-74",),
                         trials=500, seed=3, artifacts=("Stone flower",))
    ragged = [{"a": "x", "b": "yy"}, {"a": "zzz", "c": "1"}]  # missing cells read NaN
    for rows in (table.table_rows(), ragged, [{"longname": "x"}]):
        assert text_table(rows) == pd.DataFrame(rows).to_string(index=False)


@pytest.mark.parametrize(("path", "command"), list(_commands(main)),
                         ids=lambda v: " ".join(v) if isinstance(v, tuple) else "")
def test_every_command_has_help_with_an_example(path, command):
    result = run(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "Example" in result.output
    assert "zonesim " in result.output


def test_results_commands_share_the_common_options():
    for path, command in _commands(main):
        # studio prints no results: it serves a page, whose seed and games are inputs
        if isinstance(command, click.Group) or path in (("validate",), ("settings",),
                                                        ("studio",)):
            continue
        names = {p.name for p in command.params}
        assert {"trials", "seed", "fmt"} <= names, path


def test_prob_pool_json_shape():
    result = run("prob", "pool", "--dice", "3", "--need", "2", "--trials", "20000",
                 "--seed", "3", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"primitive", "params", "trials", "seed", "outcomes"}
    assert data["primitive"] == "pool" and data["trials"] == 20000 and data["seed"] == 3
    assert [o["value"] for o in data["outcomes"]] == [0, 1, 2, 3, "pass"]
    assert set(data["outcomes"][0]) == {"value", "exact", "mc", "ci_low", "ci_high"}
    assert data["params"]["success_on"] == 5  # from the base rules.toml


def test_prob_armor_seed_example_p06():
    result = run("prob", "armor", "--wounds", "3", "--resist", "3", "--durability", "4",
                 "--tokens", "3", "--trials", "20000", "--format", "json")
    values = {o["value"]: o["exact"] for o in json.loads(result.stdout)["outcomes"]}
    assert values[2] == pytest.approx(26 / 27)
    assert values["destroyed"] == pytest.approx(26 / 27)


def test_prob_event_and_escape_use_ruleset_items():
    event = json.loads(run("prob", "event", "--avoid-on", "4", "--item", "Torsion scanner",
                           "--item", "Bag of nuts", "--trials", "1000",
                           "--format", "json").stdout)
    assert event["outcomes"][0]["exact"] == 1.0 and event["outcomes"][0]["mc"] == 1.0
    escape = json.loads(run("prob", "escape", "--reputation", "5", "--item",
                            "Camouflage cloak", "--trials", "1000", "--format", "json").stdout)
    assert escape["outcomes"][0]["exact"] == pytest.approx(4 / 6)


def test_prob_csv_and_table_formats():
    csv = run("prob", "reaction", "--skill", "4", "--trials", "1000", "--format", "csv")
    assert csv.stdout.splitlines()[0] == "value,exact,mc,ci_low,ci_high,z"
    table = run("prob", "reaction", "--skill", "4", "--covering", "--trials", "1000")
    assert "covering=True" in table.output and "dice=3" in table.output


@pytest.mark.parametrize("args", [
    ("prob", "event", "--avoid-on", "4", "--item", "Bag of nutz"),
    ("prob", "event", "--avoid-on", "4", "--item", "Smoke bomb"),
    ("prob", "pool", "--dice", "3", "--success-on", "9"),
    ("prob", "armor", "--wounds", "3", "--durability", "4", "--tokens", "4"),
    ("combat", "--stalker", "Nobody", "--enemy", "Bandit"),
    ("combat", "--stalker", "Strelok", "--enemy", "Bandit", "--weapon", "Railgun"),
])
def test_bad_options_exit_2_without_traceback(args):
    result = run(*args, "--trials", "100")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "Error" in result.output


def test_validate_base_set_ok():
    result = run("validate")
    assert result.exit_code == 0 and ": ok (" in result.output


def test_validate_reports_every_problem_and_exits_2(tmp_path: Path):
    rules = tmp_path / "my"
    shutil.copytree(bundled_ruleset(), rules)
    armor = rules / "armor.csv"
    lines = armor.read_text().splitlines()
    lines[3] = lines[3].replace("3000,4,5,3,", "3000,4,5,7,")  # Ecolog thermal 3 -> 7
    armor.write_text("\n".join(lines) + "\n")
    (rules / "rules.toml").write_text("[dice]\nsuccess_on = 9\n")
    result = run("validate", str(rules))
    assert result.exit_code == 2
    assert f"{rules}/armor.csv:4: column 'thermal': 7 is not a die face 2..6" in result.output
    assert f"{rules}/rules.toml:2: key 'dice.success_on': 9 is not in 2..6" in result.output
    assert "2 problems" in result.output
    assert "Traceback" not in result.output
    # Every command that loads a ruleset reports the same way.
    combat = run("combat", "--stalker", "Strelok", "--enemy", "Bandit", "--rules", str(rules))
    assert combat.exit_code == 2 and "armor.csv:4" in combat.output


def test_validate_missing_folder_exits_2(tmp_path: Path):
    result = run("validate", str(tmp_path / "nope"))
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_combat_json_shape():
    result = run("combat", "--stalker", "Strelok", "--enemy", "Bandit", "--armor",
                 "Ecolog suit", "--weapon", "AK-74", "--trials", "20000", "--seed", "9",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["trials"] == 20000 and data["seed"] == 9
    (row,) = data["rows"]
    assert row["stalker"] == "Strelok" and row["enemy"] == "Bandit"
    assert {"avoided", "killed", "fled", "knocked_out"} <= set(row["outcomes"])
    for cell in row["outcomes"].values():
        assert set(cell) == {"mc", "ci_low", "ci_high", "exact"}
    assert set(row["mean_wounds"]) >= {"mc", "exact"}
    assert set(row["mean_rounds"]) >= {"mc", "exact"}


def test_combat_deck_table_sorted_by_danger():
    result = run("combat", "--stalker", "Strelok", "--enemy", "all", "--trials", "20000",
                 "--format", "json")
    rows = json.loads(result.stdout)["rows"]
    knocked = [r["outcomes"]["knocked_out"]["mc"] for r in rows]
    assert knocked == sorted(knocked, reverse=True)
    assert len(rows) == 14


def test_same_seed_same_output_any_threads():
    args = ("combat", "--stalker", "Scar", "--enemy", "Chimera", "--trials", "50000",
            "--format", "csv")
    assert run(*args, "--threads", "1").stdout == run(*args, "--threads", "2").stdout
