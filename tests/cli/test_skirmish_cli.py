"""``zonesim skirmish`` through click's CliRunner: formats, exit codes, help."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sim.cli import main


def _run(*args):
    return CliRunner().invoke(main, ["skirmish", *args])


def test_default_scenario_table():
    result = _run("--trials", "2000", "--seed", "5")
    assert result.exit_code == 0, result.output
    assert "Stalkers" in result.output and "p_win" in result.output


def test_json_keys_and_reproducible():
    args = ("configs/skirmish/duel.toml", "--trials", "5000", "--seed", "9", "--format", "json")
    one = json.loads(_run(*args, "--threads", "1").stdout)
    two = json.loads(_run(*args, "--threads", "2").stdout)
    assert one == two
    assert {"trials", "seed", "sides", "rounds", "p_draw"} <= set(one)
    side = one["sides"][0]
    assert {"name", "p_win", "p_broken", "casualties", "lost"} <= set(side)
    assert set(side["p_win"]) == {"mc", "ci_low", "ci_high"}
    assert {"mean", "distribution"} <= set(side["casualties"])
    assert "mean" in one["rounds"]
    assert one["trials"] == 5000 and one["seed"] == 9


def test_csv():
    result = _run("configs/skirmish/duel.toml", "--trials", "1000", "--format", "csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "side,quantity,value,mc,ci_low,ci_high"


def test_bad_scenario_exits_2_with_every_problem(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('distance = -1\n[groups.a]\nfigures = 1\nskill = 9\nweapon = "pistol"\n'
                    '[groups.b]\nfigures = 1\nskill = 3\nweapon = "laser"\n')
    result = CliRunner().invoke(main, ["skirmish", str(path)])
    assert result.exit_code == 2
    assert f"{path}:1: key 'distance': -1 is not in 0..1000" in result.output
    assert f"{path}:4: key 'groups.a.skill': 9 is not in 0..6" in result.output
    assert "'groups.b.weapon': 'laser'" in result.output
    assert "3 problems in the scenario" in result.output
    assert "Traceback" not in result.output


def test_missing_file_exits_2():
    result = _run("no/such/scenario.toml")
    assert result.exit_code == 2 and "cannot read file" in result.output


def test_help_has_an_example():
    result = _run("--help")
    assert result.exit_code == 0 and "Example:" in result.output and "--trials" in result.output
