"""``zonesim anomaly`` (P-30..P-36): JSON keys, formats, exit codes, help."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.rules import load_ruleset

RS = load_ruleset(None)
CELL = {"mc", "ci_low", "ci_high", "exact"}


def _run(*args):
    return CliRunner().invoke(main, ["anomaly", *args])


def test_json_shape_single_card():
    result = _run("--stalker", "Strelok", "--anomaly", "Burner", "--armor", "Ecolog suit",
                  "--trials", "5000", "--seed", "11", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"trials", "seed", "rows"}
    assert (doc["trials"], doc["seed"]) == (5000, 11)
    (row,) = doc["rows"]
    assert row["stalker"] == "Strelok" and row["anomaly"] == "Burner"
    assert list(row["outcomes"]) == ["avoided", "unharmed", "damaged", "knocked_out"]
    for cell in [*row["outcomes"].values(), row["artifact"], row["trophy"],
                 row["deformation"]]:
        assert set(cell) == CELL
    assert sum(c["exact"] for c in row["outcomes"].values()) == pytest.approx(1.0)


def test_all_is_one_row_per_card_sorted_by_danger():
    result = _run("--stalker", "Ghost", "--anomaly", "all", "--health", "2", "--willpower", "2",
                  "--trials", "5000", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert sorted(r["anomaly"] for r in rows) == sorted(RS.anomalies)
    knocked = [r["outcomes"]["knocked_out"]["exact"] for r in rows]
    assert knocked == sorted(knocked, reverse=True) and knocked[0] > 0


def test_csv_is_one_flat_row_per_card():
    result = _run("--stalker", "Scar", "--anomaly", "all", "--enter", "--trials", "3000",
                  "--format", "csv")
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(io.StringIO(result.stdout))
    assert len(frame) == len(RS.anomalies)
    for name in ("avoided", "unharmed", "damaged", "knocked_out", "artifact"):
        assert {name, f"{name}_ci_low", f"{name}_ci_high", f"{name}_exact"} <= set(frame)
    assert (frame["avoided"] == 0).all()  # P-36: with --enter nobody goes around


def test_table_format():
    result = _run("--stalker", "Strelok", "--anomaly", "all", "--trials", "3000")
    assert result.exit_code == 0, result.output
    assert all(name in result.output for name in RS.anomalies)
    assert "knocked_out" in result.output


@pytest.mark.parametrize(("args", "hint"), [
    (["--stalker", "Nobody", "--anomaly", "Burner"], "--stalker"),
    (["--stalker", "Strelok", "--anomaly", "Vortex"], "--anomaly"),
    (["--stalker", "Strelok", "--anomaly", "all", "--armor", "Tin can"], "--armor"),
    (["--stalker", "Strelok", "--anomaly", "Burner", "--item", "Medkit"], "--item"),
    (["--stalker", "Strelok", "--anomaly", "Burner", "--item", "Dosimeter"], "--item"),
    (["--stalker", "Strelok", "--anomaly", "Burner", "--item", "Widget"], "--item"),
])
def test_bad_input_exits_2_naming_the_option(args, hint):
    result = _run(*args, "--trials", "10")
    assert result.exit_code == 2
    assert hint in result.output
    if "Nobody" in args:
        assert "Strelok" in result.output  # lists the known names


def test_help_has_an_example():
    result = _run("--help")
    assert result.exit_code == 0
    assert "Example" in result.output and "zonesim anomaly --stalker" in result.output
    assert "--enter" in result.output and "--item" in result.output
