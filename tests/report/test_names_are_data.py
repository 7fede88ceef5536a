"""Names are data in every output, never markup, formulas or terminal commands
(issue 23, items 5 and 8).

report.md shows every hostile name as text (read by markdown-it-py, which import-linter's
rich installs); every CSV goes through the one writer, which quotes a cell a spreadsheet would
run; control characters are refused in card names. Only the CSV case runs a kernel, for a
few hundred trials.
"""

from __future__ import annotations

import ast
import csv
import io
import re

import pandas as pd
import pytest
from markdown_it import MarkdownIt

from sim.report import labels, markdown, writer
from sim.report.tables import Section
from tests.hostile import ROOT, copy_ruleset, run


@pytest.fixture
def my(tmp_path):
    """A copy of the bundled ruleset as ``tmp_path/my`` (see :func:`tests.hostile.copy_ruleset`)."""
    return copy_ruleset(tmp_path)


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


def test_report_md_escapes_markup_in_card_names():
    frame = pd.DataFrame({"enemy": ["<img src=x onerror=alert(1)>", "**Boss** | x"]})
    text = markdown.table(frame)
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "\\*\\*Boss\\*\\* \\| x" in text


def test_report_md_shows_every_name_as_text():
    """The test above escapes one table; the page holds names elsewhere.

    ``test_report_md_escapes_markup_in_card_names`` checks :func:`markdown.table` only;
    the title, headings, sentences, captions and provenance of :func:`markdown.render`
    took names raw, so a stalker or card named ``<img onerror=...>`` reached the page as
    HTML. Here a Markdown parser reads the whole page.
    """
    text, tokens, sections = _page_tokens(HOSTILE_NAMES)
    flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
    kinds = {t.type for t in flat}
    assert not kinds & {"html_block", "html_inline", "em_open", "s_open",
                        "ordered_list_open", "code_block", "fence", "hr"}, kinds
    # the only links: the contents line's, each to a heading's own anchor (letters, digits, -)
    links = [t for t in flat if t.type == "link_open"]
    assert len(links) == len(sections) + 2  # the sections, the summary, the provenance
    assert all(re.fullmatch(r"#[a-z0-9_-]*", t.attrGet("href")) for t in links)
    assert _inline_texts(tokens)[1].startswith("Contents: ")
    glossary = len(labels.GLOSSARY)  # the words' list at the top, each term in bold
    assert sum(t.type == "strong_open" for t in flat) == len(sections[0].shown) + glossary
    assert sum(t.type == "image" for t in flat) == 1  # the figure, no other
    lists = [t for t in tokens if t.type in ("bullet_list_open", "ordered_list_open")]
    assert [t.type for t in lists] == ["bullet_list_open"] * 3  # glossary, list, provenance
    headings = [t for t in tokens if t.type == "heading_open"]
    assert [h.tag for h in headings] == ["h1", "h2", "h2", "h2"]
    shown = _inline_texts(tokens)
    name = " ".join(HOSTILE_NAMES)
    assert shown[0] == f"zonesim report: {name}" and shown[2 + glossary] == name
    for n in HOSTILE_NAMES:
        assert f"{n} fights" in shown and n in shown and f"{n} table" in shown
        assert f"x {n}" in shown  # a table cell, whole: no pipe split the row
    assert f"scenario: {name} (/tmp/{name}.toml)" in shown
    assert f"command: zonesim report /tmp/{name}.toml" in shown
    page = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert "<img" not in page.replace('<img src="enemy_deck.png" alt="enemy_deck" />', "")
    assert "<script" not in page and "<!--" not in page
    assert all(re.fullmatch(r'<a href="#[a-z0-9_-]*">', a) for a in re.findall(r"<a [^>]*>", page))


def test_report_md_code_spans_hold_any_backticks():
    for value in ["plain", "`", "a`b", "``x``", " lead", "trail ", "a\nb"]:
        tokens = MarkdownIt("commonmark").parseInline(markdown.code(value))
        spans = [c for c in tokens[0].children if c.type == "code_inline"]
        assert [c.content for c in spans] == [value.replace("\n", " ")], value


# --- formulas in CSV files --------------------------------------------------------------------

def test_every_csv_is_written_by_the_one_writer():
    """No module writes CSV but ``sim.report.writer.to_csv``, which neutralises formulas, and
    :mod:`sim.rules.cardfile`, which sets cells of a copied ruleset and keeps every other
    byte of the designer's file (a name is the ruleset's data there)."""
    calls = []
    for path in sorted((ROOT / "sim").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("to_csv", "writer",
                                                                  "DictWriter"):
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    cardfile = [c for c in calls if c.startswith("sim/rules/cardfile.py:")]
    assert len(cardfile) == 1 and cardfile[0].endswith(": .writer")
    assert [c for c in calls if c not in cardfile] == [
        f"sim/report/writer.py:{_line_of_to_csv_call()}: .to_csv"]


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
