"""Hostile-but-fair input and faults (issue 14): nothing silently lost, no tracebacks,
no finished work thrown away.

Every case asserts the exit status, that stderr has no traceback, that the message
names the file and line (or the path), and that nothing is lost or left behind. Cases
that need signals or a hanging file run in subprocesses with timeouts, so the suite can
never hang. No case here compiles a kernel except the two signal cases, which stop the
run while it compiles.
"""

from __future__ import annotations

import ast
import csv
import errno
import io
import json
import os
import resource
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
from markdown_it import MarkdownIt

from sim.cli import main
from sim.experiments.registry import experiment
from sim.paths import bundled_ruleset, configs_root, resolve_ruleset
from sim.report import labels, markdown, staging, writer
from sim.report.tables import Section
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import MAX_THRESHOLD, load_scenario, scenario_path
from sim.rules.schema import MAP, TABLES
from sim.workflows.compare import parse_variant
from sim.workflows.sweep import SweepError, Vary, grid

BASE = bundled_ruleset()
SCENARIO = configs_root() / "scenarios" / "base.toml"
HUGE = "9" * 5000
TIMEOUT = 600
"""A subprocess's limit: a hang ends the test, a cold compile at a load of 8 does not."""


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


def _sweep_cli():
    """The sweep command's module, imported here: the CLI's lazy group loads it on first use,
    so it is in ``sys.modules`` only if an earlier test ran the command."""
    import sim.cli.sweep

    return sim.cli.sweep


@pytest.mark.parametrize(("args", "expected"), [
    (["--experiment", "campaign", "--metric", "knocked_out"], "is not a campaign metric"),
    (["--experiment", "campaign", "--metric", "p_sarcofagus"], "did you mean 'p_sarcophagus'"),
    (["--stalker", "Strelok", "--metric", "knocked_ot"], "did you mean 'knocked_out'"),
])
def test_sweep_checks_its_metric_before_the_first_point(tmp_path, monkeypatch, args, expected):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_sweep_cli(), "run_sweep", _no_run)
    result = run("sweep", "--vary", "enemies.Bloodsucker.endurance=2..3", *args)
    assert result.exit_code == 2 and expected in result.output


def test_sweep_default_metric_of_a_campaign_is_a_campaign_metric():
    from sim.experiments import registry
    from sim.experiments.campaign import FRAME_METRICS
    assert "p_sarcophagus" in registry.experiment("campaign").sweep_metrics == FRAME_METRICS


def test_sweep_refuses_an_existing_out_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_sweep_cli(), "run_sweep", _no_run)
    (tmp_path / "out").mkdir()
    result = run("sweep", "--stalker", "Strelok", "--vary", "enemies.Bloodsucker.endurance=2..3",
                 "--out", "out")
    assert result.exit_code == 1 and "out exists already" in result.output


def test_sweep_refuses_an_unwritable_out_before_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_sweep_cli(), "run_sweep", _no_run)
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


# ==============================================================================================
# Issue 23, items 1-3 and 9: the numba cache never serves stale or damaged machine code
#
# Issue 23, items 1-3 and 9: the numba cache never serves stale or damaged machine code.
#
# Each case runs ``zonesim`` in a subprocess on a copy of the package (``sim/`` and
# ``configs/``), with its own home and cache folders, so that a changed kernel source or
# a damaged cache file touches nothing of the checkout and no other test.
# ==============================================================================================

ROOT = Path(__file__).resolve().parents[1]
COPY_TIMEOUT = 1800
"""A copy's command may compile a kernel cold without the numba patches: about 90 s
for the campaign kernel on an idle two-core machine, several times that at a load of 8
(it ran past 300 s there); the limit only catches a hang."""
POOL = ("prob", "pool", "--dice", "4", "--trials", "20000", "--seed", "3", "--format", "json")
"""A small command whose kernel (``dice.pool_kernel``) calls another kernel file (``rng.py``)."""

# ``rng.py``'s trial multiplier: every random stream changes with it (a changed rule in a
# file other than the one defining the kernel, which numba alone does not notice).
OLD_MUL = "0xD6E8FEB86659FD93"
NEW_MUL = "0xD6E8FEB86659FD95"


@pytest.fixture
def project(tmp_path):
    """A copy of the package without caches, and an environment that reaches only it."""
    proj = tmp_path / "proj"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "sim", proj / "sim", ignore=ignore)
    shutil.copytree(ROOT / "configs", proj / "configs", ignore=ignore)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("NUMBA_") and k not in ("PYTHONPATH", "ZONESIM_NUMBA_PATCHES")}
    env.update(PYTHONPATH=str(proj), HOME=str(tmp_path / "home"),
               XDG_CACHE_HOME=str(tmp_path / "xdg"))
    return proj, env


def zonesim_copy(args, proj: Path, env: dict, **kwargs):
    result = subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=proj, env=env,
                            capture_output=True, text=True, timeout=COPY_TIMEOUT, **kwargs)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    return result


def counts(result) -> list:
    return [row["mc"] for row in json.loads(result.stdout)["outcomes"]]


def cache_folders(base: Path) -> list[Path]:
    return sorted(base.glob("zonesim-*"))


def cache_base(proj: Path, env: dict) -> Path:
    if "NUMBA_CACHE_DIR" in env:
        return Path(env["NUMBA_CACHE_DIR"])
    return proj / "sim" / "kernels" / "__pycache__"


def warnings_of(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "warning" in line]


# --- 1. a changed kernel source compiles afresh ------------------------------------------------

@pytest.mark.parametrize("cache_dir", ["unset", "set"])
def test_a_changed_kernel_source_compiles_afresh_and_gives_its_numbers(project, tmp_path,
                                                                       cache_dir):
    """Item 1: after an edit of ``rng.py`` alone the pool kernel (in ``dice.py``) compiles
    again and gives the new rule's numbers, those of a compile in an empty cache, with the
    README's install (no ``NUMBA_CACHE_DIR``: numba would cache beside the sources) and
    with ``NUMBA_CACHE_DIR`` set. numba alone reloads the old machine code here."""
    proj, env = project
    if cache_dir == "set":
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    first = zonesim_copy(POOL, proj, env)
    assert "compiling kernel" in first.stderr
    again = zonesim_copy(POOL, proj, env)
    assert "compiling kernel" not in again.stderr and counts(again) == counts(first)
    rng = proj / "sim" / "kernels" / "rng.py"
    assert OLD_MUL in rng.read_text()
    rng.write_text(rng.read_text().replace(OLD_MUL, NEW_MUL))
    changed = zonesim_copy(POOL, proj, env)
    assert "compiling kernel" in changed.stderr
    assert counts(changed) != counts(first)
    fresh = zonesim_copy(POOL, proj, {**env, "NUMBA_CACHE_DIR": str(tmp_path / "fresh")})
    assert counts(changed) == counts(fresh)
    assert len(cache_folders(cache_base(proj, env))) == 2  # one per version of the sources
    assert not (tmp_path / "home").exists() and not (tmp_path / "xdg").exists()


def test_a_read_only_package_caches_in_the_user_cache_folder(project, tmp_path):
    """Item 1: where ``__pycache__`` beside the kernels cannot be made (an installed,
    read-only package; here a file of that name, which even root cannot write into) the
    digest-named folder is made in the user's cache folder."""
    proj, env = project
    (proj / "sim" / "kernels" / "__pycache__").write_text("not a folder")
    zonesim_copy(POOL, proj, env)
    assert len(cache_folders(tmp_path / "xdg" / "zonesim")) == 1


def test_an_unwritable_numba_cache_dir_falls_back_with_one_warning(project, tmp_path):
    proj, env = project
    (tmp_path / "file").write_text("not a folder")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "file" / "cache")
    result = zonesim_copy(POOL, proj, env)
    [warning] = warnings_of(result)
    assert str(tmp_path / "file" / "cache") in warning and "cannot be written" in warning
    assert len(cache_folders(proj / "sim" / "kernels" / "__pycache__")) == 1


def test_no_writable_cache_folder_anywhere_still_runs(project, tmp_path):
    """Without any writable place (``NUMBA_CACHE_DIR``, ``__pycache__`` beside the kernels,
    the user's cache folder: here each is a file) kernels run compiled, after one warning
    about the cache; ``--help`` loads no kernel and says nothing."""
    proj, env = project
    for path in (tmp_path / "file", proj / "sim" / "kernels" / "__pycache__", tmp_path / "xdg"):
        path.write_text("not a folder")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "file" / "cache")
    assert zonesim_copy(["--help"], proj, env).stderr == ""
    result = zonesim_copy(POOL, proj, env)
    [warning] = warnings_of(result)
    assert "no writable numba cache folder" in warning


# --- 3. a damaged or unwritable cache ---------------------------------------------------------

def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _zero(path: Path) -> None:
    path.write_bytes(bytes(path.stat().st_size))


def _garble(path: Path) -> None:
    """Flip one byte in the middle: the machine code, not the pickle's structure."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x5A
    path.write_bytes(bytes(data))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


DAMAGE = {"truncated": _truncate, "zeroed": _zero, "garbled": _garble, "empty": _empty}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("suffix", ["nbi", "nbc"])
def test_a_damaged_cache_entry_is_compiled_afresh_with_one_warning(project, tmp_path, damage,
                                                                   suffix):
    """Item 3: a truncated, zeroed, garbled or empty index (``.nbi``) or data file
    (``.nbc``) of a cached kernel gives one warning naming the cache folder and the right
    numbers (compiled afresh), and the next run loads the replaced entry silently."""
    proj, env = project
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    good = zonesim_copy(POOL, proj, env)
    [path] = (tmp_path / "cache").glob(f"zonesim-*/*/dice.pool_kernel-*.{suffix}")
    DAMAGE[damage](path)
    result = zonesim_copy(POOL, proj, env)
    assert counts(result) == counts(good)
    [warning] = warnings_of(result)
    assert "damaged numba cache entry" in warning and str(path.parent) in warning
    later = zonesim_copy(POOL, proj, env)
    assert later.stderr == "" and counts(later) == counts(good)


def _no_space(limit: int):
    """A child process whose files cannot grow past ``limit`` bytes (EFBIG, as a full disk)."""
    def limit_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_files


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB file system (a tmpfs; root only), or None where none can be mounted."""
    mount = tmp_path / "full"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True) if shutil.which("mount") else None
    if made is None or made.returncode != 0:
        yield None
        return
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


@pytest.mark.parametrize("fault", ["full file system", "file size limit"])
def test_a_cache_that_cannot_be_written_runs_uncached_with_one_warning(project, tmp_path,
                                                                       full_disk, fault):
    """Item 3: a cache folder on a full disk (ENOSPC on a 64 KiB tmpfs, where this user may
    mount one) or whose files cannot grow (EFBIG under a file size limit) gives one warning
    naming the folder, the right numbers and exit status 0; nothing half-written stays."""
    proj, env = project
    reference = zonesim_copy(POOL, proj, {**env, "NUMBA_CACHE_DIR": str(tmp_path / "ok")})
    if fault == "full file system":
        if full_disk is None:
            pytest.skip("no tmpfs can be mounted here (needs root)")
        base, extra = full_disk, {}
    else:
        base, extra = tmp_path / "limited", {"preexec_fn": _no_space(8192)}
    env["NUMBA_CACHE_DIR"] = str(base)
    result = zonesim_copy(POOL, proj, env, **extra)
    assert counts(result) == counts(reference)
    [warning] = warnings_of(result)
    assert "cannot write the numba cache" in warning and str(base) in warning
    assert not list(base.rglob("*.tmp.*"))


# --- 9. numba's internals: the patches are optional ---------------------------------------------

COMBAT_JSON = ("combat", "--scenario", "base", "--enemy", "Bloodsucker", "--trials", "20000",
          "--seed", "5", "--format", "json")
ANOMALY_JSON = ("anomaly", "--scenario", "base", "--anomaly", "all", "--trials", "5000",
           "--seed", "5", "--format", "json")
CAMPAIGN_JSON = ("campaign", "--trials", "2000", "--seed", "5", "--format", "json")


@pytest.mark.slow
def test_the_kernels_give_the_same_numbers_with_the_numba_patches_off(project, tmp_path):
    """Item 9: with ``ZONESIM_NUMBA_PATCHES=off`` (plain numba, as under a numba whose
    patched functions are gone) the encounter and campaign kernels give bit-identical
    results to the checkout's patched kernels, and cache in a folder of their own (the
    patched cache files have a format of their own). The campaign kernel compiles in about
    90 s here without the patches (25 s with them)."""
    proj, env = project
    patched_env = {k: v for k, v in os.environ.items() if k != "ZONESIM_NUMBA_PATCHES"}
    off = {**env, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "ZONESIM_NUMBA_PATCHES": "off"}
    for args in (COMBAT_JSON, ANOMALY_JSON, POOL, CAMPAIGN_JSON):
        assert json.loads(zonesim_copy(args, ROOT, patched_env).stdout) == \
            json.loads(zonesim_copy(args, proj, off).stdout)
    from sim.jitting import options

    [folder] = cache_folders(tmp_path / "cache")
    assert folder.name != options.cache_name()  # the patched kernels' folder


def test_the_patches_stay_off_outside_the_checked_numba_versions(monkeypatch):
    """Item 9: ``pyproject.toml`` allows only the numba versions the patches were checked
    against, and :func:`sim.jitting.options.patched` refuses any other one."""
    import tomllib

    import numba

    from sim.jitting import options

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [numba_dep] = [d for d in deps if d.startswith("numba")]
    for version in options.CHECKED_NUMBA:
        assert f">={version}" in numba_dep
    assert "<" in numba_dep
    assert options.patched()
    monkeypatch.setattr(numba, "__version__", "0.99.0")
    assert not options.patched()
    monkeypatch.setattr(numba, "__version__", options.CHECKED_NUMBA[0] + ".1")
    monkeypatch.setenv("ZONESIM_NUMBA_PATCHES", "off")
    assert not options.patched()


@pytest.mark.parametrize("module", ["inlining", "untyped", "liveness", "flags", "ssa",
                                    "cachefiles"])
def test_each_patch_leaves_a_numba_without_its_function_alone(module, monkeypatch):
    """Item 9: "if numba no longer has that function, nothing is changed": each patch's
    ``install`` against a numba module lacking the function it replaces changes nothing
    and raises nothing."""
    import importlib

    patch = importlib.import_module(f"sim.jitting.{module}")
    targets = {
        "inlining": ("numba.core.inline_closurecall", "copy"),
        "untyped": ("numba.core.inline_closurecall", "InlineWorker"),
        "liveness": ("numba.core.analysis", "compute_live_map"),
        "flags": ("numba.core.targetconfig", "TargetConfig"),
        "ssa": ("numba.core.ssa", "_run_ssa"),
        "cachefiles": ("numba.core.caching", "IndexDataCacheFile"),
    }
    name, attribute = targets[module]
    target = importlib.import_module(name)
    monkeypatch.delattr(target, attribute)
    before = dict(vars(target))
    patch.install()
    assert dict(vars(target)) == before


# ==============================================================================================
# Issue 23, items 4, 6 and 7: what validation and the options must refuse, and the messages
#
# Hostile input that was accepted without a word or told badly (issue 23, items 4, 6 and 7).
#
# Every case asserts the exit status, that there is no traceback, and that the message
# names the file and line (or the option, variant or edit), the key and the value. No
# case here runs a kernel: each is refused while the ruleset, scenario or options are
# read, before any trial.
# ==============================================================================================

SCENARIOS = configs_root() / "scenarios"
ZWSP = "\u200b"
"""A zero-width space: invisible in a terminal."""


def _edited(tmp_path: Path, old: str, new: str, source: str = "base.toml",
              name: str = "s.toml") -> Path:
    text = (SCENARIOS / source).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _line(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that starts with ``text``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, start=1) if line.startswith(text))


def _header_only(folder: Path, table: str) -> Path:
    path = folder / f"{table}.csv"
    path.write_text(path.read_text(encoding="utf-8").split("\n")[0] + "\n", encoding="utf-8")
    return path


def _set_column(folder: Path, table: str, column: str, value: str) -> Path:
    """Every card of ``table`` with ``column`` set to ``value``."""
    path = folder / f"{table}.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    index = rows[0].index(column)
    for row in rows[1:]:
        if row:
            row[index] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


# --- 4. silent acceptance: tune --edit of the tuned cell ---------------------------------------

TUNE_ENCOUNTER = ("tune", "--stalker", "Strelok", "--enemy", "Bloodsucker",
                  "--target", "knocked_out in 0.2..0.3", "--trials", "100")
TUNE_CAMPAIGN = ("tune", "campaign", "base", "--target", "p_sarcophagus in 0.3..0.5",
                 "--trials", "100")


@pytest.mark.parametrize(("command", "vary", "edit"), [
    (TUNE_ENCOUNTER, "enemies.Bloodsucker.endurance=1..8", "enemies.Bloodsucker.endurance=3"),
    (TUNE_ENCOUNTER, "enemies. Bloodsucker .endurance=1..8", "enemies.Bloodsucker.endurance = 3"),
    (TUNE_CAMPAIGN, "rules.combat.max_rounds=10..20", "rules.combat.max_rounds=50"),
], ids=["encounter", "spaces", "campaign"])
def test_tune_refuses_an_edit_of_the_tuned_cell(tmp_path, monkeypatch, command, vary, edit):
    monkeypatch.chdir(tmp_path)
    result = run(*command, "--vary", vary, "--edit", edit)
    assert result.exit_code == 2, result.output
    cell = ".".join(part.strip() for part in vary.partition("=")[0].split("."))
    assert "--edit" in result.output
    assert f"{edit!r} edits {cell}, the cell being tuned" in result.output
    assert not (tmp_path / "results").exists()


def test_tune_takes_an_edit_of_another_cell_of_the_same_card():
    from sim.workflows.tune import TuneInputError, _refuse_tuned_cell

    _refuse_tuned_cell("enemies.Bloodsucker.endurance", ("enemies.Bloodsucker.wounds=2",))
    with pytest.raises(TuneInputError) as error:
        _refuse_tuned_cell("enemies.Bloodsucker.endurance", ("enemies.Bloodsucker.endurance=2",))
    assert error.value.field == "edit"  # the CLI names --edit


# --- 4. silent acceptance: --variant values, checked as their options --------------------------

COMBAT = ("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
          "--baseline", "", "--trials", "100")
ANOMALY = ("compare", "anomaly", "--stalker", "Strelok", "--anomaly", "Burner",
           "--baseline", "", "--trials", "100")
CAMPAIGN = ("compare", "campaign", "base", "--baseline", "", "--trials", "100")

FIGHT = ("combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--trials", "100")
HAZARD = ("anomaly", "--stalker", "Strelok", "--anomaly", "Burner", "--trials", "100")

VARIANTS = {
    "heal_at": (COMBAT, "heal_at=-3", "heal_at", "-3 is not in 0..1000",
                (*FIGHT, "--heal-at", "-3")),
    "flee_at": (COMBAT, "flee_at=-1", "flee_at", "-1 is not in 0..1000",
                (*FIGHT, "--flee-at", "-1")),
    "intellect": (COMBAT, "intellect=-5", "intellect", "-5 is not in 0..1000",
                  (*FIGHT, "--intellect", "-5")),
    "heal_at_above": (COMBAT, "heal_at=1001", "heal_at", "1001 is not in 0..1000",
                      (*FIGHT, "--heal-at", "1001")),
    "health": (ANOMALY, "health=0", "health", "0 is not in 1..1000", (*HAZARD, "--health", "0")),
    "campaign_heal_at": (CAMPAIGN, "heal_at=-3", "heal_at", "-3 is not in 0..1000", None),
    "rubles": (CAMPAIGN, "rubles=-1", "rubles", "-1 is not in 0..1000000000", None),
    "route_twice": (CAMPAIGN, "route=Lab X-18;route=Lab X-18", "route",
                    "'Lab X-18' is listed twice", None),
    "sneak": (COMBAT, "sneak=foo", "sneak", "'foo' is not one of always, never",
              (*FIGHT, "--sneak", "foo")),
    "campaign_sneak": (CAMPAIGN, "sneak=sometimes", "sneak",
                       "'sometimes' is not one of always, never", None),
}


@pytest.mark.parametrize("case", list(VARIANTS))
def test_a_variant_value_is_refused_where_its_option_is(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    command, spec, key, message, option = VARIANTS[case]
    result = run(*command, "--variant", spec)
    assert result.exit_code == 2, result.output
    assert f"variant {spec!r}: key '{key}': {message}" in result.output
    if option is not None:  # the option refuses the same value
        refused = run(*option)
        assert refused.exit_code == 2 and "Invalid value for" in refused.output
    assert not (tmp_path / "results").exists()


def test_variant_integers_take_the_range_of_their_option_and_scenario_key():
    combat, campaign = experiment("combat"), experiment("campaign")
    assert parse_variant(f"heal_at={MAX_THRESHOLD}", combat).overrides == (
        ("heal_at", MAX_THRESHOLD),)
    assert parse_variant("health=1", experiment("anomaly")).overrides == (("health", 1),)
    assert parse_variant("route=Lab X-18;route=Lab X-16", campaign).overrides == (
        ("route", ("Lab X-18", "Lab X-16")),)


# --- 6. tracebacks: integers past int64 in --variant -------------------------------------------

@pytest.mark.parametrize(("command", "spec", "shown"), [
    (COMBAT, "heal_at=9223372036854775808", "922337203685... (19 digits) is not in 0..1000"),
    (COMBAT, "intellect=" + "9" * 5000, "999999999999... (5000 digits) is not in 0..1000"),
    (CAMPAIGN, "rubles=99999999999999999999", "999999999999... (20 digits) is not in"),
], ids=["int64", "thousands", "rubles"])
def test_variant_integers_past_int64_are_a_message(tmp_path, monkeypatch, command, spec, shown):
    monkeypatch.chdir(tmp_path)
    result = run(*command, "--variant", spec)
    assert result.exit_code == 2, result.output
    key = spec.partition("=")[0]
    assert f"key '{key}': {shown}" in result.output


# --- 4. silent acceptance: validate catches what the runs refuse -------------------------------

def test_header_only_enemies_is_refused_by_validate_with_file_and_line(my):
    path = _header_only(my, "enemies")
    _header_only(my, "sarcophagus")  # else its enemies are unknown cards first
    result = run("validate", str(my))
    assert result.exit_code == 2 and "ok (" not in result.output
    assert f"{path}:1: has a header but no cards; the deck needs a card with count >= 1" \
        in result.output
    combat = run("combat", "--rules", str(my), "--stalker", "Strelok", "--enemy", "all")
    assert combat.exit_code == 2 and f"{path}:1:" in combat.output


@pytest.mark.parametrize("table", ["anomalies", "events"])
def test_header_only_decks_are_refused(my, table):
    path = _header_only(my, table)
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:1: has a header but no cards" in result.output


def test_no_stalker_card_is_refused(my):
    path = _header_only(my, "stalkers")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:1: has a header but no cards; every command plays a stalker card" \
        in result.output


@pytest.mark.parametrize(("table", "command", "option"), [
    ("enemies", "combat", "--enemy"), ("anomalies", "anomaly", "--anomaly"),
    ("events", "event", "--event")])
def test_every_count_zero_is_refused_at_the_first_card(my, table, command, option):
    path = _set_column(my, table, "count", "0")
    result = run("validate", str(my))
    assert result.exit_code == 2, result.output
    assert f"{path}:2: column 'count': every card's count is 0" in result.output
    deck = run("compare", command, "--rules", str(my), "--stalker", "Strelok", option, "all",
               "--baseline", "", "--variant", "label=x", "--trials", "100")
    assert deck.exit_code == 2 and f"{path}:2: column 'count'" in deck.output


def test_an_enemy_deck_that_only_deals_radiation_is_refused(my):
    path = _set_column(my, "enemies", "wound_type", "radiation")
    result = run("validate", str(my))
    assert result.exit_code == 2
    assert f"{path}:2: column 'wound_type': every enemy with count >= 1 deals radiation" \
        in result.output


def test_a_hex_that_cannot_reach_a_bunker_is_refused(tmp_path, my):
    path = my / "map.csv"
    with path.open("a", encoding="utf-8") as out:
        out.write("50,50,1,,,,,a hex apart from the map\n")
    result = run("validate", str(my))
    assert result.exit_code == 2
    line = _line(path, "50,50,")
    assert (f"{path}:{line}: column 'q': hex (50, 50) cannot reach any bunker with the base "
            "allowance of 6 steps") in result.output
    scenario = _edited(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    campaign = run("campaign", str(scenario), "--trials", "10")
    assert campaign.exit_code == 2 and f"{path}:{line}:" in campaign.output


def test_movement_items_and_artefacts_with_two_epicentre_rules_are_refused(my):
    path = my / "rules.toml"
    text = path.read_text(encoding="utf-8")
    assert "\n[artifacts]\n" in text  # the base set leaves the key out: it follows
    set_apart = "\n[artifacts]\nmovement_in_epicentre = true\n"
    path.write_text(text.replace("\n[artifacts]\n", set_apart), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2
    line = _line(path, "movement_in_epicentre")
    assert (f"{path}:{line}: key 'artifacts.movement_in_epicentre': true differs from "
            "movement.items_in_epicentre = false") in result.output


@pytest.mark.parametrize(("edits", "message"), [
    ([f"enemies.{name}.count=0" for name in load_ruleset().enemies],
     "enemies.csv: every card's count is 0"),
    ([f"events.{name}.count=0" for name in load_ruleset().events],
     "events.csv: every card's count is 0"),
    (["rules.artifacts.movement_in_epicentre=true"],
     "key 'artifacts.movement_in_epicentre': true differs"),
], ids=["enemies", "events", "epicentre"])
def test_edits_are_held_to_the_same_table_checks(tmp_path, monkeypatch, edits, message):
    monkeypatch.chdir(tmp_path)
    spec = ";".join(f"edit={e}" for e in edits)
    result = run(*COMBAT, "--variant", spec)
    assert result.exit_code == 2, result.output
    assert f"edit {edits[-1]!r}: {message}" in result.output


# --- 4 and 7: what one campaign character cannot carry, named by seat, line and key -----------

def test_too_many_artefacts_in_one_seat_names_the_seat_line_and_key(tmp_path):
    arts = '["Flash", "Slime", "Slug", "Crystal", "Jellyfish"]'
    path = _edited(tmp_path, 'character = "Degtyarev"\n',
                     f'character = "Degtyarev"\n[players.loadout]\nartifacts = {arts}\n',
                     source="four_stalkers.toml")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    line = _line(path, "artifacts = ")
    assert (f"{path}:{line}: key 'players[3].loadout.artifacts': makes 5 artefact slots "
            "(carried, then kept: Flash, Slime, Slug, Crystal, Jellyfish); a campaign "
            "character has at most 4") in result.output
    assert result.output.count("artefact slots") == 1


def test_kept_artefacts_past_the_slots_name_the_keep_key(tmp_path):
    path = _edited(tmp_path, "[policy]\n", '[policy]\nkeep_artifacts = ["Crystal", "Jellyfish",'
                     ' "Flash", "Slime", "Slug"]\n')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "keep_artifacts")
    assert f"{path}:{line}: key 'policy.keep_artifacts': makes 5 artefact slots" in result.output


def test_artefacts_past_the_carry_limit_name_the_loadout_key(tmp_path, my):
    rules = my / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert "carry_limit = 0" in text
    rules.write_text(text.replace("carry_limit = 0", "carry_limit = 1"), encoding="utf-8")
    path = _edited(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    path.write_text(path.read_text(encoding="utf-8").replace(
        "items = [", 'artifacts = ["Flash", "Slime"]\nitems = [', 1), encoding="utf-8")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "artifacts = ")
    assert (f"{path}:{line}: key 'loadout.artifacts': lists 2 artefacts; "
            "artifacts.carry_limit is 1") in result.output


def test_seven_weapons_name_the_loadout_key(tmp_path):
    weapons = ", ".join(['"Knife"'] * 7)
    path = _edited(tmp_path, 'weapons = ["SVD sniper rifle", "Knife"]', f"weapons = [{weapons}]")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "weapons = ")
    assert (f"{path}:{line}: key 'loadout.weapons': lists 7 weapons; a campaign character "
            "carries at most 6") in result.output


# --- 6. tracebacks: nested lists and tables in policy.route ------------------------------------

@pytest.mark.parametrize("route", ['[["Lab X-18"]]', "[{a = 1}]", '["Lab X-18", ["x"], {b = 2}]'],
                         ids=["list", "table", "mixed"])
def test_nested_route_entries_are_problems_with_line_and_key(tmp_path, route):
    path = _edited(tmp_path, 'route = "nearest"', f"route = {route}")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2, result.output
    line = _line(path, "route = ")
    assert f"{path}:{line}: key 'policy.route': " in result.output
    assert "is not a Secret Complex name (a string)" in result.output


def test_a_nested_route_in_a_seat_names_the_seat(tmp_path):
    path = _edited(tmp_path, 'sneak = "never"', 'sneak = "never"\nroute = [["Lab X-18"]]',
                     source="four_stalkers.toml")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "route = [[")
    assert (f"{path}:{line}: key 'players[2].policy.route': ['Lab X-18'] is not a Secret "
            "Complex name (a string)") in result.output


# --- 7. unclear messages ----------------------------------------------------------------------

@pytest.mark.parametrize(("ruleset", "why"), [
    ("../../etc", "ruleset folder not found"),
    ("/etc", "/etc holds none of rules.toml, stalkers.csv"),
    ("/dev/null", "/dev/null: is not a folder"),
], ids=["relative", "folder", "device"])
def test_a_ruleset_that_is_no_ruleset_names_the_scenario_line_and_key(tmp_path, ruleset, why):
    path = _edited(tmp_path, 'ruleset = "base"', f'ruleset = "{ruleset}"')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, "ruleset = ")
    assert f"{path}:{line}: key 'ruleset': {ruleset!r} names no ruleset (" in result.output
    assert why in result.output
    assert "zonesim: 1 problem" in result.output  # not one per missing file


@pytest.mark.parametrize(("old", "new", "source", "key"), [
    ('stalker = "Strelok"', f'stalker = "Strel{ZWSP}ok"', "base.toml", "stalker"),
    ('character = "Scar"', 'character = "Nobody"', "four_stalkers.toml", "players[2].character"),
    ('character = "Ghost"', 'character = "Nobody"', "four_stalkers.toml", "players[4].character"),
], ids=["stalker", "seat", "seat_with_loadout"])
def test_an_unknown_character_is_the_only_problem(tmp_path, old, new, source, key):
    path = _edited(tmp_path, old, new, source=source)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, new)
    assert f"{path}:{line}: key '{key}': " in result.output
    assert "is not a stalker in the ruleset" in result.output
    assert "rubles" not in result.output  # no problem about a key the file does not have
    assert "zonesim: 1 problem" in result.output


@pytest.mark.parametrize(("old", "new", "key"), [
    ('stalker = "Strelok"', '"stalk\u00a7r" = "Strelok"', "stalk\u00a7r"),
    ('stalker = "Strelok"', f'"stalker{ZWSP}" = "Strelok"', "stalker\\u200b"),
    ('start = "Cordon"', '"st\u00e4rt" = "Cordon"', "st\u00e4rt"),
], ids=["section_sign", "zero_width", "umlaut"])
def test_a_stray_character_in_a_key_is_the_only_problem(tmp_path, old, new, key):
    path = _edited(tmp_path, old, new)
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    line = _line(path, new)
    taken = old.partition(" ")[0]
    assert (f"{path}:{line}: key '{key}': unknown key (did you mean '{taken}'?)"
            in result.output)
    assert f"key '{taken}'" not in result.output  # no problem about a key the file lacks
    assert "zonesim: 1 problem" in result.output


def test_a_missing_stalker_is_said_to_be_missing(tmp_path):
    path = _edited(tmp_path, 'stalker = "Strelok"\n', "")
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2
    assert f"{path}: key 'stalker': is missing: name the stalker card" in result.output
    assert "rubles" not in result.output and "zonesim: 1 problem" in result.output


def test_a_zero_width_space_in_a_card_name_is_refused_and_shown(tmp_path, my):
    """Issue 43: the ruleset refuses the name itself (tests/test_name_characters.py)."""
    items = my / "items.csv"
    text = items.read_text(encoding="utf-8")
    assert "\nMedkit," in text
    items.write_text(text.replace("\nMedkit,", f"\nMed{ZWSP}kit,", 1), encoding="utf-8")
    path = _edited(tmp_path, 'ruleset = "base"', f'ruleset = "{my}"')
    result = run("campaign", str(path), "--trials", "10")
    assert result.exit_code == 2 and ZWSP not in result.output
    assert ("column 'name': character 4 is the invisible character U+200B (zero width space) "
            "in 'Med\\u200bkit'") in result.output


def test_a_zero_width_space_in_a_csv_header_is_shown(my):
    path = my / "armor.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("durability", f"durability{ZWSP}", 1), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2 and ZWSP not in result.output
    assert f"{path}:1: column 'durability\\u200b': unknown column" in result.output


def test_a_zero_width_space_in_a_library_message_is_shown(my):
    path = my / "stalkers.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\nStrelok,", f"\nStrel{ZWSP}ok,", 1), encoding="utf-8")
    result = run("combat", "--rules", str(my), "--stalker", "Strelok", "--enemy", "Bloodsucker",
                 "--trials", "100")
    assert result.exit_code == 2 and ZWSP not in result.output
    assert "Strel\\u200bok" in result.output


# ==============================================================================================
# Issue 23, items 5, 6 and 8: names are data in every output; output faults; left-overs
#
# Hostile names and faults on the way out (issue 23, items 5, 6 and 8): names are data,
# never markup, formulas or terminal commands; output that cannot be written, a bad numba
# setting and a killed run outside ``results/`` end cleanly.
#
# Like ``tests/test_hostile.py``, every case asserts the exit status, that no traceback is
# printed, and that the message names the file and line (or the option or variable) and
# the value. Only the CSV case (the fight kernel), the full-output and the thread cases (the
# dice pool kernel) run a kernel, for a few hundred trials. report.md is read by
# markdown-it-py, the Markdown parser that import-linter's rich installs.
# ==============================================================================================



# --- names in report.md -----------------------------------------------------------------------

HOSTILE_NAMES = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<!-- hidden -->",
    "**Boss** | x",
    "_under_ and ~~gone~~",
    "[click](http://evil.example)",
    "![img](http://evil.example/x.png)",
    "`tick` and ``two``",
    "# Heading ##",
    "- item",
    "+ item",
    "1. first",
    "3) third",
    "a\\b \\*",
    "&amp; &lt;",
]


def _page_tokens(names: list[str]):
    """report.md rendered from sections holding ``names`` everywhere a name can go."""
    name = " ".join(names)
    sections = [Section(
        "enemy_deck", name, text=[f"{n} fights" for n in names] + [list(names)],
        shown={f"{n} table": pd.DataFrame({n: [n, f"x {n}"], "p": [0.5, 0.25]})
               for n in names},
        figures={"enemy_deck": None}, tables={"enemy_deck": pd.DataFrame()})]
    meta = {"scenario": name, "scenario_path": f"/tmp/{name}.toml", "seed": 1, "trials": 10,
            "campaign_trials": 10, "ruleset_path": f"/tmp/{name}", "ruleset_digest": "ab12",
            "created": "2026-01-01T00:00:00", "wall_s": 1.0, "versions": {"zonesim": "0.1"},
            "command": ["zonesim", "report", f"/tmp/{name}.toml"]}
    summary = pd.DataFrame({"what": names, "estimate": ["1 %"] * len(names)})
    text = markdown.render(f"zonesim report: {name}", meta, sections, summary,
                           {"enemy_deck": "enemy_deck.png"})
    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return text, parser.parse(text), sections


def _inline_texts(tokens) -> list[str]:
    """The text each inline element shows (its text and code spans, markup left out)."""
    return ["".join(c.content for c in t.children if c.type in ("text", "code_inline"))
            for t in tokens if t.type == "inline"]


def test_report_md_shows_every_name_as_text():
    """The test of tests/test_hostile.py escapes one table; the page holds names elsewhere.

    ``test_report_md_escapes_markup_in_card_names`` checks :func:`markdown.table` only;
    the title, headings, sentences, captions and provenance of :func:`markdown.render`
    took names raw, so a stalker or card named ``<img onerror=...>`` reached the page as
    HTML. Here a Markdown parser reads the whole page.
    """
    text, tokens, sections = _page_tokens(HOSTILE_NAMES)
    flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
    kinds = {t.type for t in flat}
    assert not kinds & {"html_block", "html_inline", "link_open", "em_open", "s_open",
                        "ordered_list_open", "code_block", "fence", "hr"}, kinds
    glossary = len(labels.GLOSSARY)  # the words' list at the top, each term in bold
    assert sum(t.type == "strong_open" for t in flat) == len(sections[0].shown) + glossary
    assert sum(t.type == "image" for t in flat) == 1  # the figure, no other
    lists = [t for t in tokens if t.type in ("bullet_list_open", "ordered_list_open")]
    assert [t.type for t in lists] == ["bullet_list_open"] * 3  # glossary, list, provenance
    headings = [t for t in tokens if t.type == "heading_open"]
    assert [h.tag for h in headings] == ["h1", "h2", "h2", "h2"]
    shown = _inline_texts(tokens)
    name = " ".join(HOSTILE_NAMES)
    assert shown[0] == f"zonesim report: {name}" and shown[1 + glossary] == name
    for n in HOSTILE_NAMES:
        assert f"{n} fights" in shown and n in shown and f"{n} table" in shown
        assert f"x {n}" in shown  # a table cell, whole: no pipe split the row
    assert f"scenario: {name} (/tmp/{name}.toml)" in shown
    assert f"command: zonesim report /tmp/{name}.toml" in shown
    page = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert "<img" not in page.replace('<img src="enemy_deck.png" alt="enemy_deck" />', "")
    assert "<script" not in page and "<a " not in page and "<!--" not in page


def test_report_md_code_spans_hold_any_backticks():
    for value in ["plain", "`", "a`b", "``x``", " lead", "trail ", "a\nb"]:
        tokens = MarkdownIt("commonmark").parseInline(markdown.code(value))
        spans = [c for c in tokens[0].children if c.type == "code_inline"]
        assert [c.content for c in spans] == [value.replace("\n", " ")], value


# --- formulas in CSV files --------------------------------------------------------------------

def test_every_csv_is_written_by_the_one_writer():
    """No module writes CSV but ``sim.report.writer.to_csv``, which neutralises formulas."""
    calls = []
    for path in sorted((ROOT / "sim").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("to_csv", "writer",
                                                                  "DictWriter"):
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    assert calls == [f"sim/report/writer.py:{_line_of_to_csv_call()}: .to_csv"]


def _line_of_to_csv_call() -> int:
    source = (ROOT / "sim" / "report" / "writer.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    helper = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "to_csv")
    return next(n.lineno for n in ast.walk(helper)
                if isinstance(n, ast.Attribute) and n.attr == "to_csv")


FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+2", "-2+3", "@SUM(A1:A2)",
            "\t=1", "=cmd|' /C calc'!A0", "-", "+"]


def test_csv_text_cells_that_a_spreadsheet_runs_get_a_quote(tmp_path):
    frame = pd.DataFrame({
        "=HYPERLINK(\"x\")": ["a"] * (len(FORMULAS) + 4),
        "name": [*FORMULAS, "Bloodsucker", "-3", "+0.5", "-1e-3"],
        "count": range(-1, len(FORMULAS) + 3),
        "p": [-0.5] * (len(FORMULAS) + 4)})
    frame["typed"] = pd.Series(frame["name"], dtype="string")
    writer.write_table(frame, tmp_path, "t")
    rows = list(csv.reader(io.StringIO((tmp_path / "t.csv").read_bytes().decode("utf-8"),
                                       newline="")))
    assert rows[0] == ["'=HYPERLINK(\"x\")", "name", "count", "p", "typed"]
    names = [r[1] for r in rows[1:]]
    assert names == [*("'" + f for f in FORMULAS), "Bloodsucker", "-3", "+0.5", "-1e-3"]
    assert [r[4] for r in rows[1:]] == names
    assert [r[2] for r in rows[1:]][0] == "-1" and {r[3] for r in rows[1:]} == {"-0.5"}
    back = pd.read_parquet(tmp_path / "t.parquet")  # typed data keeps the names as written
    assert list(back["name"]) == list(frame["name"]) and list(back.columns) == list(frame)
    assert frame["name"][0] == FORMULAS[0]  # the caller's frame is not changed
    assert writer.to_csv(pd.DataFrame({"a": ["\r=1"]})) == "a\n'\r=1\n"


FLESH = '=HYPERLINK("http://evil.example","Flesh")'


@pytest.fixture
def formula_rules(my):
    path = my / "enemies.csv"
    text = path.read_text(encoding="utf-8")
    assert "\nFlesh,2," in text and "\nBlind dog,3," in text
    text = text.replace("\nFlesh,2,", '\n"' + FLESH.replace('"', '""') + '",2,')
    path.write_text(text.replace("\nBlind dog,3,", "\n-Blind dog+1,3,"), encoding="utf-8")
    return my


def _enemies(text: str, column: str = "enemy") -> set[str]:
    return {row[column] for row in csv.DictReader(io.StringIO(text, newline=""))}


def test_format_csv_and_results_csv_neutralise_formula_names(formula_rules, tmp_path):
    quoted = {"'" + FLESH, "'-Blind dog+1"}
    result = run("combat", "--rules", str(formula_rules), "--stalker", "Strelok", "--enemy",
                 "all", "--trials", "200", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert quoted <= _enemies(result.stdout) and FLESH not in _enemies(result.stdout)
    out = tmp_path / "sweep"
    result = run("sweep", "--rules", str(formula_rules), "--stalker", "Strelok", "--vary",
                 "enemies.Bloodsucker.endurance=2,3", "--trials", "200", "--workers", "1",
                 "--format", "csv", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert quoted <= _enemies(result.stdout)
    assert quoted <= _enemies((out / "sweep.csv").read_text(encoding="utf-8"))
    assert set(pd.read_parquet(out / "sweep.parquet")["enemy"]) >= {FLESH, "-Blind dog+1"}


# --- control characters in names --------------------------------------------------------------

@pytest.mark.parametrize(("char", "column"), [
    ("\x1b", "name"), ("\x07", "name"), ("\x9b", "name"), ("\x7f", "name"), ("\x1b", "notes")])
def test_control_characters_in_card_files_are_refused(my, char, column):
    path = my / "enemies.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split(",")
    cells = lines[2].split(",")
    at = header.index(column)
    cells[at] = cells[at][:2] + char + "[31m" + cells[at][2:]
    lines[2] = ",".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2, result.output
    assert (f"{path}:3: column '{column}': character 3 is the control character "
            f"U+{ord(char):04X}; names and texts may not hold control characters") \
        in result.output
    assert char not in result.output


def test_a_tab_is_refused_in_a_name_and_accepted_in_a_text_column(my):
    path = my / "enemies.csv"
    text = path.read_text(encoding="utf-8")
    assert "\nFlesh,2," in text and "example values" in text
    text = text.replace("\nFlesh,2,", "\nFl\tesh,2,").replace("example values", "example\tvalues")
    path.write_text(text, encoding="utf-8")
    result = run("validate", str(my))
    assert result.exit_code == 2, result.output
    line = text.split("\n").index(next(x for x in text.split("\n") if x.startswith("Fl\t"))) + 1
    assert result.output.splitlines()[0] == (
        f"{path}:{line}: column 'name': character 3 is the control character U+0009; names "
        "and texts may not hold control characters")
    assert "column 'notes'" not in result.output and "1 problem in the ruleset" in result.output


# --- tracebacks: --vary, a full output, NUMBA_NUM_THREADS -------------------------------------

@pytest.mark.parametrize("args", [
    ["sweep", "--stalker", "Strelok"],
    ["tune", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--target",
     "knocked_out in 0.2..0.3"],
])
@pytest.mark.parametrize(("vary", "value"), [("1..1e400", "1e400"), ("-1e400..1", "-1e400"),
                                             ("1..5:1e400", "1e400"), ("1e400,2", "1e400")])
def test_vary_past_the_float_range_names_the_value(tmp_path, monkeypatch, args, vary, value):
    monkeypatch.chdir(tmp_path)
    text = f"enemies.Bloodsucker.endurance={vary}"
    result = run(*args, "--vary", text, "--trials", "10")
    assert result.exit_code == 2, result.output
    assert (f"Error: Invalid value for --vary: {text!r}: {value} is out of the range of "
            "numbers") in result.output
    assert not (tmp_path / "results").exists()


def test_vary_range_too_wide_to_count_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("sweep", "--stalker", "Strelok", "--vary",
                 "enemies.Bloodsucker.endurance=-1e308..1e308")
    assert result.exit_code == 2 and "more than 10000 values" in result.output


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [
    ["validate"], ["--help"], ["report", "--help"],
    ["prob", "pool", "--dice", "2", "--trials", "10", "--format", "json"],
    ["prob", "pool", "--dice", "2", "--trials", "10", "--format", "csv"],
])
def test_output_to_a_full_device_is_one_line(tmp_path, args):
    # buffered standard output, as a user's shell has it: the buffer fails again at exit
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=tmp_path,
                                stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=TIMEOUT, env=environment)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    # the last line: a kernel's first compile may announce itself above it
    assert result.stderr.splitlines()[-1] == (
        f"zonesim: cannot write the output: {os.strerror(errno.ENOSPC)}")


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", "", "1001"])
def test_bad_numba_num_threads_is_refused(tmp_path, value):
    env = {**os.environ, "NUMBA_NUM_THREADS": value}
    result = zonesim("prob", "pool", "--dice", "2", "--trials", "10", cwd=tmp_path, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"Error: environment variable NUMBA_NUM_THREADS={value!r} is not "
                             "a number of kernel threads from 1 to 1000; set one in that "
                             "range, or unset it for one per core\n")
    assert result.stdout == ""


def test_numba_num_threads_past_the_bound_is_refused_and_within_it_runs(tmp_path):
    args = ("prob", "pool", "--dice", "2", "--trials", "10")
    result = zonesim(*args, cwd=tmp_path, env={**os.environ, "NUMBA_NUM_THREADS": "99999"})
    assert result.returncode == 2 and "NUMBA_NUM_THREADS='99999'" in result.stderr  # crashed
    result = zonesim(*args, cwd=tmp_path, env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    assert result.returncode == 0 and "NUMBA_NUM_THREADS" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr


# --- a killed run outside results/ ------------------------------------------------------------

def test_report_killed_with_out_elsewhere_is_cleaned_by_the_next_command(tmp_path):
    """``--out`` outside ``results/``: the next command, from another folder, cleans it."""
    work, other, elsewhere = tmp_path / "work", tmp_path / "other", tmp_path / "elsewhere"
    work.mkdir()
    other.mkdir()
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", "--trials", "200000000",
                             "--campaign-trials", "10", "--out", str(elsewhere / "r")],
                            cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    temp = _wait_for_temp(elsewhere, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    assert temp.exists()
    result = zonesim("validate", cwd=other, env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert not temp.exists() and list(elsewhere.iterdir()) == []
    assert list((tmp_path / "state" / "zonesim" / "writing").iterdir()) == []
    assert not (work / "results").exists() and not (other / "results").exists()
