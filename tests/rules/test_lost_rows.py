"""Nothing in a ruleset or scenario is silently lost (issue 14, item 1).

Every data line of every table is read or refused with its file and line; a quote left open,
a line that does not parse, a semicolon file and a deck without its cards are refused; a
target naming no metric is an error before any run. Hostile-input helpers:
:mod:`tests.hostile`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sim.rules import load_ruleset
from sim.rules.schema import MAP, TABLES
from tests.hostile import BASE, copy_ruleset, edited_scenario, run


@pytest.fixture
def my(tmp_path):
    """A copy of the bundled ruleset as ``tmp_path/my`` (see :func:`tests.hostile.copy_ruleset`)."""
    return copy_ruleset(tmp_path)


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




def test_unknown_target_metric_is_an_error_before_any_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = edited_scenario(tmp_path, "p_sarcophagus = [", "p_sarcofagus = [")
    result = run("report", str(path), "--trials", "10", "--campaign-trials", "10")
    assert result.exit_code == 2
    line = path.read_text().split("\n").index("p_sarcofagus = [0.35, 0.55]") + 1
    assert f"{path}:{line}: key 'targets.p_sarcofagus': unknown metric" in result.output
    assert "did you mean 'p_sarcophagus'" in result.output
    assert not (tmp_path / "results").exists()
