"""Artefacts compared (issue 11 §3): the report's section, its table and ``zonesim artifacts``.

The changes themselves (paired on common random numbers, exact twins within
4.5 standard errors) are checked in tests/kernels/test_artifacts.py; here the report
shows them (P-08..P-11): every artefact in the CSV, the ones that change
something on the pages, whole games beside the decks, the verdict untouched.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.report import artifacts, verdict
from sim.rules.scenario import load_scenario
from sim.workflows import best_use

TRIALS = 2_000
PARTS = ("mc", "ci_low", "ci_high", "exact", "per_1000_rubles", "per_1000_rubles_ci_low",
         "per_1000_rubles_ci_high")
BEST_USE = (best_use.USE, "best_use_trials", "best_use_first_trial", best_use.SELECTED)
"""The best use's own columns, before its change (issue 46.2)."""
COLUMNS = ["artifact", "price", *(c for stem, _ in artifacts.CHANGES
                                  for c in ((BEST_USE if stem == best_use.STEM else ())
                                            + tuple(f"{stem}_{part}" for part in PARTS)))]
CLI_COLUMNS = [c for c in COLUMNS if not c.startswith("best_use")]
"""``zonesim artifacts`` under the scenario's thresholds: no best use (``--policy best``)."""


@pytest.fixture(scope="module")
def scenario():
    return load_scenario()


@pytest.fixture(scope="module")
def written(base_report):
    """The session's whole report of the base scenario (tests/report/conftest.py): its
    artefacts section is the one every report writes, read here rather than built again."""
    return base_report


def _changes(frame: pd.DataFrame, games: bool = True) -> set[str]:
    """Artefacts with a change that is not exactly 0 (estimate or exact) in any column;
    ``games=False``: the decks' columns only (not whole games, nor whole games under the
    best use)."""
    cols = [c for c in frame if c.endswith(("_mc", "_exact"))
            and (games or not c.startswith(("campaign_", best_use.STEM)))]
    return set(frame.loc[(frame[cols].fillna(0) != 0).any(axis=1), "artifact"])


def test_the_csv_has_every_artefact_and_its_columns(written, scenario):
    frame = pd.read_csv(written.folder / "artifacts.csv")
    assert list(frame.columns) == COLUMNS
    assert sorted(frame["artifact"]) == sorted(scenario.ruleset.artifacts)
    assert (frame["price"] == [scenario.ruleset.artifacts[n].price
                               for n in frame["artifact"]]).all()
    parquet = pd.read_parquet(written.folder / "artifacts.parquet")
    assert list(parquet.columns) == COLUMNS and len(parquet) == len(frame)


def test_report_md_shows_the_artefacts_that_change_something(written):
    frame = pd.read_csv(written.folder / "artifacts.csv")
    moving = _changes(frame)
    encounters = _changes(frame, games=False)
    assert "Stone blood" in encounters and "Battery" not in encounters  # resist; movement
    assert "Battery" in moving  # a movement artefact acts in whole games (Z-20)
    page = (written.folder / "report.md").read_text(encoding="utf-8")
    section = page.split("## Artefacts compared", 1)[1].split("\n## ", 1)[0]
    policy = section.split("both played well (best play)", 1)[0]  # the first table's rows
    rows = [line for line in policy.splitlines() if line.startswith("| ")][2:]
    assert {row.split(" | ")[0].removeprefix("| ") for row in rows} == moving
    assert "P(win), whole games: change (pp)" in section
    assert "](artifacts.png)" in section
    assert "P(knocked out), enemy deck: change" in section


def test_the_items_under_a_use_policy_are_valued_under_their_best_use_too(written):
    """Issue 46.2, "the same for items where a use policy exists": the medkits, the Stimulant
    and the Helicopter call, one card more, each under the thresholds that play it best."""
    frame = pd.read_csv(written.folder / "artifacts_items_best_use.csv")
    assert list(frame["item"]) == ["Medkit", "Army medkit", "Stimulant", "Helicopter call"]
    assert frame[best_use.USE].str.contains("=").all()
    assert (frame["best_use_first_trial"] == best_use.FRESH_FIRST).all()
    page = (written.folder / "report.md").read_text(encoding="utf-8")
    section = page.split("## Artefacts compared", 1)[1].split("\n## ", 1)[0]
    table = section.split("Items under a use policy, one card more, under their best use", 1)[1]
    table = table.replace("\\_", "_")  # markdown escapes the underscores
    assert "| Stimulant |" in table and "heal_at=" in table


def test_html_embeds_the_chart_and_the_verdict_adds_only_the_artefact_lines(written):
    page = (written.folder / "report.html").read_text(encoding="utf-8")
    assert '<h2 id="artifacts">Artefacts compared</h2>' in page
    assert 'alt="artifacts"' in page
    first = verdict.verdict_section(load_scenario(), list(written.sections))
    without = verdict.verdict_section(
        load_scenario(), [s for s in written.sections if s.key != "artifacts"])
    head = first.text.index("Artefacts for the money (help per 1,000 rubles against the "
                            "others'):")
    assert first.text[head + 1] == verdict.artifacts_lines(
        {s.key: s for s in written.sections})  # the outliers of issue 26, nothing else
    assert first.text[:head] + first.text[head + 2:] == without.text
    assert first.shown.keys() == without.shown.keys()
    assert "artefacts" in written.metadata["timings"]
    assert not any(r["section"] == "artifacts" for r in written.summary.to_dict("records"))


def test_a_ruleset_whose_artefacts_change_nothing_shows_no_table(scenario):
    frame = pd.DataFrame({"artifact": ["A"], "price": [100],
                          **{f"{stem}_{part}": [0.0] for stem, _ in artifacts.CHANGES
                             for part in ("mc", "ci_low", "ci_high", "exact")}})
    assert artifacts.nonzero(frame).empty


GAMES = 500


def _cli(*args: str, games: int = GAMES):
    return CliRunner().invoke(main, ["artifacts", *args, "--trials", str(TRIALS), "--seed",
                                     "5", "--games", str(games)])


def test_cli_json_csv_and_table():
    picked = ["--artifact", "Stone blood", "--artifact", "Battery"]
    result = _cli(*picked, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["scenario"] == "base" and doc["stalker"] == "Strelok" and doc["seed"] == 5
    assert doc["campaign"] == f"{GAMES} whole games per artefact" and doc["games"] == GAMES
    assert [r["artifact"] for r in doc["rows"]] == ["Stone blood", "Battery"]
    assert list(doc["rows"][0]) == CLI_COLUMNS
    blood = doc["rows"][0]
    assert blood["combat_knocked_out_ci_low"] <= blood["combat_knocked_out_mc"] \
        <= blood["combat_knocked_out_ci_high"] < 0
    csv = _cli(*picked, "--format", "csv")
    assert csv.exit_code == 0, csv.output
    lines = csv.stdout.splitlines()
    assert lines[0].split(",") == CLI_COLUMNS and len(lines) == 3
    table = _cli(*picked, games=0)
    assert table.exit_code == 0 and "Stone blood" in table.stdout
    assert "whole games not compared" in table.stdout
    assert "Battery" not in table.stdout.split("\n", 1)[1]  # no change: left out of the table


def test_cli_unknown_artefact_exits_2():
    result = _cli("--artifact", "Moonstone")
    assert result.exit_code == 2 and "unknown artefact 'Moonstone'" in result.output
    assert "Traceback" not in result.output


def test_cli_table_of_artefacts_that_change_nothing_says_so():
    result = _cli("--artifact", "Battery", games=0)  # movement: acts on the map only (Z-20)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == ("No artefact compared changes anything in these "
                                              "encounters.")
