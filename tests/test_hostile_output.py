"""Hostile names and faults on the way out (issue 23, items 5, 6 and 8): names are data,
never markup, formulas or terminal commands; output that cannot be written, a bad numba
setting and a killed run outside ``results/`` end cleanly.

Like ``tests/test_hostile.py``, every case asserts the exit status, that no traceback is
printed, and that the message names the file and line (or the option or variable) and
the value. Only the CSV case (the fight kernel), the full-output and the thread cases (the
dice pool kernel) run a kernel, for a few hundred trials. report.md is read by
markdown-it-py, the Markdown parser that import-linter's rich installs.
"""

from __future__ import annotations

import ast
import csv
import errno
import io
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from markdown_it import MarkdownIt

from sim.report import markdown, writer
from sim.report.tables import Section
from tests.test_hostile import BASE, TIMEOUT, _wait_for_temp, run, zonesim

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def my(tmp_path):
    """A copy of the bundled base ruleset, free to edit."""
    return Path(shutil.copytree(BASE, tmp_path / "my"))


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
    assert sum(t.type == "strong_open" for t in flat) == len(sections[0].shown)  # the captions
    assert sum(t.type == "image" for t in flat) == 1  # the figure, no other
    lists = [t for t in tokens if t.type in ("bullet_list_open", "ordered_list_open")]
    assert [t.type for t in lists] == ["bullet_list_open", "bullet_list_open"]  # list, provenance
    headings = [t for t in tokens if t.type == "heading_open"]
    assert [h.tag for h in headings] == ["h1", "h2", "h2", "h2"]
    shown = _inline_texts(tokens)
    name = " ".join(HOSTILE_NAMES)
    assert shown[0] == f"zonesim report: {name}" and shown[1] == name
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
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=tmp_path,
                                stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=TIMEOUT)
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
