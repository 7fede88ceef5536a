"""``zonesim levers`` answers first (issue 47, item 6).

On base the table buried the ranking under 366 "refused" lines and mixed rule keys with
card values. Now the table opens with the card values' ranking, then the rule keys'
(``--top`` rows each), and the refused steps are one line counting them that names the
folder's ``refused.csv``, which lists every one (path, steps, value, refused_by, reason).
JSON and CSV keep every ranking row and column as before and add ``kind`` (``card`` or
``rule``) and ``kind_rank``. A small combat search on the Bloodsucker and the ``dice`` and
``movement`` sections of ``rules.toml``: one step of ``movement.epicentre_cost`` down is
refused by the rules (Z-03).
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.workflows import levers as L

ARGS = ("levers", "base", "--experiment", "combat", "--cards", "Bloodsucker,dice,movement",
        "--trials", "2000", "--seed", "3", "--workers", "1", "--quiet")


def _run(tmp_path, *extra: str, out: str = "out"):
    result = CliRunner().invoke(main, [*ARGS, *extra, "--out", str(tmp_path / out)])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("levers")
    return _run(folder).stdout, folder / "out"


def test_the_table_opens_with_the_card_ranking_then_the_rule_keys(table):
    text, _ = table
    lines = text.splitlines()
    assert lines[0] == "card values that move knocked_out most, one step each way (4 of 4):"
    rules = lines.index("rule keys that move knocked_out most, one step each way (4 of 4):")
    cards = lines[2:rules]
    assert [line.split()[:2] for line in cards] == [
        ["1", "enemies.Bloodsucker.count"], ["2", "enemies.Bloodsucker.endurance"],
        ["3", "enemies.Bloodsucker.wounds"], ["4", "enemies.Bloodsucker.vigilance"]]
    keys = lines[rules + 2:rules + 6]
    assert keys[0].split()[:2] == ["1", "rules.dice.success_on"]
    assert all(line.split()[1].startswith("rules.") for line in keys)
    assert lines[rules + 6].startswith("baseline knocked_out (combat) ")


def test_refused_steps_are_one_line_naming_the_file_that_lists_them(table):
    text, folder = table
    assert "the rules refuse it" not in text and "edit '" not in text
    (line,) = [t for t in text.splitlines() if "refused, not played" in t]
    assert line == ("1 step refused, not played (1 by the rules, 0 whose game cannot be set "
                    f"up): listed in {folder / 'refused.csv'}")
    rows = list(csv.DictReader(io.StringIO((folder / "refused.csv").read_text())))
    assert [(r["path"], r["steps"], r["value"], r["refused_by"]) for r in rows] == [
        ("rules.movement.epicentre_cost", "-1", "4", "rules")]
    assert rows[0]["reason"].startswith("edit 'rules.movement.epicentre_cost=4': ")
    meta = json.loads((folder / "metadata.json").read_text())
    assert "refused.csv" in meta["files"]


def test_top_keeps_that_many_rows_of_each_ranking(tmp_path):
    lines = _run(tmp_path, "--top", "1").stdout.splitlines()
    assert lines[0].endswith("(1 of 4):") and lines[2].split()[:2] == [
        "1", "enemies.Bloodsucker.count"]
    assert lines[3].startswith("rule keys that move knocked_out most") \
        and lines[3].endswith("(1 of 4):")
    assert lines[5].split()[:2] == ["1", "rules.dice.success_on"]


def test_json_and_csv_say_each_row_s_kind_and_rank_among_its_kind(tmp_path):
    doc = json.loads(_run(tmp_path, "--format", "json").stdout)
    rows = doc["levers"]
    assert list(rows[0])[:-2] == [c for c in L.COLUMNS if c not in ("kind", "kind_rank")]
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))  # one ranking, as before
    assert rows[0]["path"] == "rules.dice.success_on" and rows[0]["kind"] == "rule"
    for kind in L.KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        assert [r["kind_rank"] for r in mine] == list(range(1, len(mine) + 1))
        assert all(r["path"].startswith("rules.") == (kind == "rule") for r in mine)
    text = _run(tmp_path, "--format", "csv", out="csv").stdout
    frame = list(csv.DictReader(io.StringIO(text)))
    assert {r["kind"] for r in frame} == {"card", "rule"}
    assert [r["path"] for r in frame] == [r["path"] for r in rows]
