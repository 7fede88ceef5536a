"""Hostile-but-fair input and faults (issue 14): nothing silently lost, no tracebacks,
no finished work thrown away.

Every case asserts the exit status, that stderr has no traceback, that the message
names the file and line (or the path), and that nothing is lost or left behind. Cases
that need signals or a hanging file run in subprocesses with timeouts, so the suite can
never hang. No case here compiles a kernel except the two signal cases, which stop the
run while it compiles.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.paths import bundled_ruleset, configs_root, resolve_ruleset
from sim.report import markdown, staging
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.schema import MAP, TABLES
from sim.workflows.sweep import SweepError, Vary, grid

BASE = bundled_ruleset()
SCENARIO = configs_root() / "scenarios" / "base.toml"
HUGE = "9" * 5000
TIMEOUT = 120


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception,
                                                                     SystemExit), result.exception
    return result


def zonesim(*args: str, cwd: Path, env: dict | None = None, timeout: float = TIMEOUT):
    """``zonesim ARGS`` in a subprocess (for FIFOs, signals and start-up faults)."""
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def my(tmp_path):
    folder = tmp_path / "my"
    shutil.copytree(BASE, folder)
    return folder


def _data_lines(path: Path) -> int:
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    return sum(1 for line in lines if line.strip(" ,")) - 1


# --- 1. nothing silently lost -----------------------------------------------------------------

@pytest.mark.parametrize("table", [*TABLES, MAP])
def test_rows_read_equal_data_lines(table):
    rs = load_ruleset()
    rows = len(rs.map.hexes) if table == MAP else len(getattr(rs, table))
    assert rows == _data_lines(BASE / f"{table}.csv")


@pytest.mark.parametrize("table", [*TABLES, MAP])
def test_unterminated_quote_is_rejected_in_every_table(my, table):
    path = my / f"{table}.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[1] += ',"'
    path.write_text("\n".join(lines), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:2: unterminated quote" in result.output


@pytest.mark.parametrize("table", ["events", "weapons"])
def test_issue_example_quote_is_not_ok(my, table):
    path = my / f"{table}.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace("example values", '"example values')
    path.write_text("\n".join(lines), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2 and "ok (" not in result.output
    assert f"{path}:3: unterminated quote" in result.output


def test_every_unparsable_line_is_reported(my):
    path = my / "armor.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1].replace(",", ',"x"y,', 1)
    lines[3] = lines[3] + ',"'
    path.write_text("\n".join(lines), encoding="utf-8")
    out = run("validate", str(my)).output
    assert f"{path}:2: cannot parse this line as CSV" in out
    assert f"{path}:4: unterminated quote" in out


def test_semicolon_delimiter_gets_a_hint(my):
    path = my / "armor.csv"
    path.write_text(path.read_text(encoding="utf-8").replace(",", ";"), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:1: the header has no commas but is split by semicolons" in result.output


def test_emission_deck_without_cards_is_rejected(my):
    path = my / "emissions.csv"
    path.write_text(path.read_text(encoding="utf-8").split("\n")[0] + "\n", encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2 and "Final Emission" in result.output


def test_emission_deck_without_final_is_rejected(my):
    path = my / "emissions.csv"
    frame = pd.read_csv(path)
    path.write_text(frame[frame["final"] == 0].to_csv(index=False), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2 and "no card has final=1" in result.output


MINIMAL = 'ruleset = "base"\nstalker = "Strelok"\nstart = "Cordon"\n'


def _minimal(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(MINIMAL + extra, encoding="utf-8")
    return path


def _scenario(tmp_path: Path, old: str, new: str, name: str = "s.toml") -> Path:
    text = SCENARIO.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_unknown_target_metric_is_an_error_before_any_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _scenario(tmp_path, "p_sarcophagus = [", "p_sarcofagus = [")
    result = run("report", str(path), "--trials", "10", "--campaign-trials", "10")
    assert result.exit_code == 2
    line = path.read_text().split("\n").index("p_sarcofagus = [0.35, 0.55]") + 1
    assert f"{path}:{line}: key 'targets.p_sarcofagus': unknown metric" in result.output
    assert "did you mean 'p_sarcophagus'" in result.output
    assert not (tmp_path / "results").exists()


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
    path = _minimal(tmp_path, new) if old is None else _scenario(tmp_path, old, new)
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


def test_fifo_card_file_is_rejected_without_hanging(my):
    (my / "armor.csv").unlink()
    os.mkfifo(my / "armor.csv")
    result = zonesim("validate", str(my), cwd=my.parent, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{my / 'armor.csv'}: is not a regular file" in result.stderr


def test_fifo_scenario_is_rejected(tmp_path):
    os.mkfifo(tmp_path / "s.toml")
    result = zonesim("campaign", str(tmp_path / "s.toml"), cwd=tmp_path, timeout=60)
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


# --- 3. no finished work thrown away ----------------------------------------------------------

def test_two_runs_with_the_same_name_each_keep_their_folder(tmp_path):
    final = tmp_path / "results" / "base-20260101-000000"
    with staging.staged(final) as first:
        (first.temp / "who").write_text("first")
        with staging.staged(final) as second:
            (second.temp / "who").write_text("second")
    assert second.path == final and first.path == final.with_name(final.name + "-2")
    assert (first.path / "who").read_text() == "first"
    assert (second.path / "who").read_text() == "second"
    assert not [p for p in final.parent.iterdir() if p.name.startswith(".")]


def test_sweep_grid_size_is_checked_before_the_grid_is_built():
    axes = [Vary.parse(f"enemies.{n}.endurance=1..1000") for n in ("Bloodsucker", "Snork", "Boar")]
    tracemalloc.start()
    with pytest.raises(SweepError, match="1000000000 points"):
        grid(axes)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 1024
    with pytest.raises(SweepError, match="at most 10000"):
        Vary.parse("enemies.Bloodsucker.endurance=1..1000000000")


def _no_run(*args, **kwargs):
    raise AssertionError("the sweep ran although it should have been refused first")


@pytest.mark.parametrize(("args", "expected"), [
    (["--experiment", "campaign", "--metric", "knocked_out"], "is not a campaign metric"),
    (["--experiment", "campaign", "--metric", "p_sarcofagus"], "did you mean 'p_sarcophagus'"),
    (["--stalker", "Strelok", "--metric", "knocked_ot"], "did you mean 'knocked_out'"),
])
def test_sweep_checks_its_metric_before_the_first_point(tmp_path, monkeypatch, args, expected):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.modules["sim.cli.sweep"], "run_sweep", _no_run)
    result = run("sweep", "--vary", "enemies.Bloodsucker.endurance=2..3", *args)
    assert result.exit_code == 2 and expected in result.output


def test_sweep_default_metric_of_a_campaign_is_a_campaign_metric():
    from sim.experiments import registry
    from sim.experiments.campaign import FRAME_METRICS
    assert "p_sarcophagus" in registry.experiment("campaign").sweep_metrics == FRAME_METRICS


def test_sweep_refuses_an_existing_out_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.modules["sim.cli.sweep"], "run_sweep", _no_run)
    (tmp_path / "out").mkdir()
    result = run("sweep", "--stalker", "Strelok", "--vary", "enemies.Bloodsucker.endurance=2..3",
                 "--out", "out")
    assert result.exit_code == 1 and "out exists already" in result.output


def test_sweep_refuses_an_unwritable_out_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys.modules["sim.cli.sweep"], "run_sweep", _no_run)
    (tmp_path / "file").write_text("x")
    result = run("sweep", "--stalker", "Strelok", "--vary", "enemies.Bloodsucker.endurance=2..3",
                 "--out", "file/out")
    assert result.exit_code == 1
    assert "cannot write results to file/out: file is not a folder" in result.output


def test_stale_temporary_folders_are_removed_by_the_next_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / "results" / f".base-20260101-000000.{dead}.abc123.tmp"
    live = tmp_path / "results" / f".base-20260101-000000.{os.getpid()}.abc123.tmp"
    stale.mkdir(parents=True)
    live.mkdir()
    assert run("validate").exit_code == 0
    assert not stale.exists() and live.exists()


def _wait_for_temp(results: Path, proc: subprocess.Popen) -> Path:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and proc.poll() is None:
        temps = list(results.glob(".*.tmp")) if results.exists() else []
        if temps:
            return temps[0]
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the report never started writing")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_report_stopped_by_a_signal_leaves_nothing(tmp_path, signum):
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--trials", "200000000",
                             "--campaign-trials", "10"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_temp(tmp_path / "results", proc)
    time.sleep(0.2)
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and "no results folder was written" in err
    assert not (tmp_path / "results").exists()  # made for this run, removed with it


def test_report_killed_is_cleaned_by_the_next_command(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--trials", "200000000",
                             "--campaign-trials", "10"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    temp = _wait_for_temp(tmp_path / "results", proc)
    proc.kill()
    proc.wait(timeout=TIMEOUT)
    assert temp.exists()
    result = zonesim("validate", cwd=tmp_path)
    assert result.returncode == 0 and not temp.exists()


def test_pool_workers_end_when_their_parent_is_gone(tmp_path):
    code = ("import time; from sim.workflows.sweep import _exit_with_parent; "
            "_exit_with_parent(-1); time.sleep(60)")
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=60)
    assert result.returncode == 1 and time.monotonic() - start < 30


def test_a_local_base_folder_does_not_shadow_the_bundled_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base").mkdir()
    assert scenario_path(None) == scenario_path("base") == SCENARIO
    assert resolve_ruleset("base") == BASE and resolve_ruleset(None) == BASE
    assert resolve_ruleset("./base") == Path("./base")
    assert scenario_path("./base.toml") == Path("./base.toml")
    assert run("validate", "base").exit_code == 0
    assert run("validate", "./base").exit_code == 2
    result = run("validate", "./base")
    assert result.exit_code == 2 and "base/rules.toml: file not found" in result.output


def test_report_md_escapes_markup_in_card_names():
    frame = pd.DataFrame({"enemy": ["<img src=x onerror=alert(1)>", "**Boss** | x"]})
    text = markdown.table(frame)
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "\\*\\*Boss\\*\\* \\| x" in text


def test_library_errors_carry_every_problem(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('stalker = ["a"]\nstalkers = true\nstart = "Cordon"\n', encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    keys = {p.column for p in info.value.problems}
    assert {"stalker", "stalkers"} <= keys


@pytest.mark.parametrize(("text", "expected"), [
    (f"[targets]\nknocked_out = [0, {HUGE}]\n", "t.toml:2: an integer has thousands of digits"),
    ("[targets]\nx = " + "[" * 3000 + "]" * 3000 + "\n", "t.toml:2: arrays or tables nested"),
    (b"[targets]\n\xff = 1\n", "t.toml:2: not UTF-8"),
])
def test_targets_file_faults_are_target_errors(tmp_path, text, expected):
    from sim.workflows.targets import TargetError, load_targets
    path = tmp_path / "t.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(TargetError, match=expected.replace("(", r"\(")):
        load_targets(path)


def test_targets_file_fifo_is_refused(tmp_path):
    code = ("from sim.workflows.targets import TargetError, load_targets\n"
            "try:\n    load_targets('t.toml')\nexcept TargetError as e:\n    print(e)\n")
    os.mkfifo(tmp_path / "t.toml")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert "t.toml: is not a regular file" in result.stdout
