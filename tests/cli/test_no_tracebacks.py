"""No traceback for anything a user can cause (issue 14, item 2).

Bad scenario values, text that is not UTF-8, integers past int64 in a table, a rules file or on
the command line, a FIFO given as a file, ``results`` under a file and file-system faults each
end with one message naming the file and line (or the option) and the value, exit status 1
or 2. FIFOs run ``zonesim`` in a subprocess so the suite cannot hang.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sim.report import staging
from sim.rules.scenario import load_scenario
from tests.hostile import BASE, HUGE, SCENARIO, copy_ruleset, edited_scenario, run, zonesim


@pytest.fixture
def my(tmp_path):
    """A copy of the bundled ruleset as ``tmp_path/my`` (see :func:`tests.hostile.copy_ruleset`)."""
    return copy_ruleset(tmp_path)


MINIMAL = 'ruleset = "base"\nstalker = "Strelok"\nstart = "Cordon"\n'


def _minimal(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(MINIMAL + extra, encoding="utf-8")
    return path


# --- 2. no tracebacks for anything a user can cause ------------------------------------------

SCENARIO_CASES = {
    "ruleset_int": ('ruleset = "base"', "ruleset = 5", "key 'ruleset': 5 is not"),
    "stalker_list": ('stalker = "Strelok"', 'stalker = ["a"]', "key 'stalker': ['a'] is not"),
    "stalkers_true": ("stalkers = 1", "stalkers = true", "key 'stalkers': true is not"),
    "loadout_int": (None, "loadout = 3", "key 'loadout': 3 is not a table"),
    "policy_int": (None, "policy = 3", "key 'policy': 3 is not a table"),
    "targets_int": (None, 'targets = "a"', "key 'targets': 'a' is not a table"),
    "heal_at_huge": ("heal_at = 2", "heal_at = 99999999999999999999",
                     "key 'policy.heal_at': 999999999999... (20 digits) is not in 0..1000"),
    "rubles_int64": ("# rubles = 1000", "rubles = 9223372036854775808",
                     "key 'loadout.rubles': 922337203685... (19 digits) is not"),
    "armour_wording": ('armor = "Stalker suit"', 'armor = "Stalker suits"',
                       "is not an armour in the ruleset"),
    "item_wording": ('items = ["Medkit",', 'items = ["Medkitt",', "is not an item in the ruleset"),
    "toml_huge_int": ("flee_at = 0", f"flee_at = {HUGE}", "thousands of digits"),
    "toml_deep": ("flee_at = 0", "x = " + "[" * 3000 + "]" * 3000, "nested more than"),
}


@pytest.mark.parametrize("case", list(SCENARIO_CASES))
def test_bad_scenario_values_are_problems_with_line_and_key(tmp_path, case):
    old, new, expected = SCENARIO_CASES[case]
    path = _minimal(tmp_path, new) if old is None else edited_scenario(tmp_path, old, new)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert f"{path}:" in result.output
    line = int(result.output.split(f"{path}:")[1].split(":")[0])
    assert line >= 1


def test_scenario_not_utf8_is_a_problem_and_a_bom_is_accepted(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"# \xff\n" + SCENARIO.read_bytes())
    result = run("campaign", str(bad), "--trials", "10")
    assert result.exit_code == 2
    assert f"{bad}:1: not UTF-8 text (byte 0xff)" in result.output
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + SCENARIO.read_bytes().replace(b'ruleset = "base"',
                                                                   f'ruleset = "{BASE}"'.encode()))
    assert load_scenario(bom).stalker == "Strelok"


def test_huge_integer_in_csv(my):
    path = my / "armor.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    cells = lines[1].split(",")
    cells[1] = HUGE
    lines[1] = ",".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:2: column 'price': 999999999999... (5000 digits) is not in" in result.output


@pytest.mark.parametrize(("text", "expected"), [
    (f"\n\nzz = {HUGE}\n", "thousands of digits"),
    ("\nx = " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 100 deep"),
])
def test_hostile_rules_toml(my, text, expected):
    path = my / "rules.toml"
    before = path.read_text(encoding="utf-8").count("\n")
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2 and expected in result.output
    assert f"{path}:{before + 2}" in result.output or f"{path}:{before + 3}" in result.output


def test_unknown_rules_sections_have_their_line(my):
    path = my / "rules.toml"
    path.write_text("dicex.a = 1\n" + path.read_text(encoding="utf-8") + "\n[combatt.x]\ny = 1\n",
                    encoding="utf-8")
    n = path.read_text(encoding="utf-8").count("\n")
    out = run("validate", str(my)).output
    assert f"{path}:1: key 'dicex': unknown section" in out
    assert f"{path}:{n - 1}: key 'combatt': unknown section (did you mean 'combat'?)" in out


@pytest.mark.parametrize("args", [
    ["sweep", "--stalker", "Strelok", "--vary", f"enemies.Bloodsucker.endurance={HUGE}"],
    ["sweep", "--stalker", "Strelok", "--vary", f"enemies.Bloodsucker.endurance=1..{HUGE}"],
    ["compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--baseline", "",
     "--variant", f"enemies.Bloodsucker.endurance={HUGE}"],
    ["compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--baseline", "",
     "--variant", f"rules.combat.max_rounds={HUGE}"],
    ["prob", "pool", "--dice", "3", "--trials", str(2**64)],
    ["combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--heal-at", str(2**64)],
    ["report", "--campaign-trials", str(2**64)],
])
def test_huge_integers_on_the_command_line(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = run(*args, "--trials", "10") if "--trials" not in args else run(*args)
    assert result.exit_code == 2, result.output
    assert "Error" in result.output
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())


@pytest.mark.subprocess
def test_fifo_card_file_is_rejected_without_hanging(my):
    (my / "armor.csv").unlink()
    os.mkfifo(my / "armor.csv")
    result = zonesim("validate", str(my), cwd=my.parent)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{my / 'armor.csv'}: is not a regular file" in result.stderr


@pytest.mark.subprocess
def test_fifo_scenario_is_rejected(tmp_path):
    os.mkfifo(tmp_path / "s.toml")
    result = zonesim("campaign", str(tmp_path / "s.toml"), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "is not a regular file" in result.stderr


def test_results_under_a_file_is_one_line_and_exit_1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    result = run("report", "--out", str(tmp_path / "file" / "r"), "--trials", "10")
    assert result.exit_code == 1
    assert (f"cannot write results to {tmp_path / 'file' / 'r'}: {tmp_path / 'file'} is not a "
            "folder") in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_file_system_faults_leave_nothing_behind(tmp_path, code):
    final = tmp_path / "results" / "r"
    with pytest.raises(staging.WriteError) as info, staging.staged(final) as folder:
        (folder.temp / "a.csv").write_text("partial")
        raise OSError(code, os.strerror(code), str(folder.temp / "b.csv"))
    assert str(final) in str(info.value) and os.strerror(code) in str(info.value)
    assert list(tmp_path.iterdir()) == []
