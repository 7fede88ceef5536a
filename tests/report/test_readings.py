"""Readings of the rules (issue 26 §2): every documented switch and choice, ranked by the win rate.

Each documented reading of an open rule (a ``bool`` key or a ``str`` key with
choices, docs/rules.md) is one edit of the scenario's whole games, played on
common random numbers against the unchanged ruleset; the ranking is sorted by
the absolute paired change, a reading that cannot change a one-stalker game
gives exactly 0, refused readings are listed with their reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.report import readings as report
from sim.report import verdict
from sim.rules.scenario import load_scenario
from sim.rules.schema import PARAMS
from sim.rules.variants import apply_edits
from sim.workflows import readings as R

GAMES = 2_000
DOCS = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("base")


@pytest.fixture(scope="module")
def result(scenario):
    return R.run_readings(scenario, trials=GAMES, seed=5)


def _documented() -> set[str]:
    """Every switch or choice key named in docs/rules.md."""
    named = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", DOCS))
    return {f"{p.section}.{p.key}" for p in PARAMS
            if f"{p.section}.{p.key}" in named
            and (p.type is bool or (p.type is str and len(p.choices) > 1))}


def test_each_documented_reading_appears(scenario):
    found = R.find_readings(scenario.ruleset)
    keys = {r.key for r in found}
    assert _documented() <= keys
    assert keys <= _documented()  # and each reading is documented
    for p in PARAMS:  # every alternative of a choice, the other value of a switch
        name = f"{p.section}.{p.key}"
        if name in keys:
            values = {r.value for r in found if r.key == name}
            current = scenario.ruleset.param(p.section, p.key)
            assert values == ({not current} if p.type is bool
                              else set(p.choices) - {current}), name
    assert {"dice.modifier", "combat.avoid_rule", "combat.medkits_in_combat"} <= keys
    assert "artifacts.event_phase" not in keys  # one choice: no alternative


def test_a_flipped_key_really_changes_the_ruleset(scenario):
    rs = scenario.ruleset
    readings, _ = R.plan(rs, R.find_readings(rs))
    assert readings
    for r in readings:
        changed = apply_edits(rs, [r.edit])
        assert changed.param(*r.key.split(".")) == r.value != r.current, r.edit
        assert changed.sha256 != rs.sha256


def test_every_reading_is_ranked_or_skipped_and_the_ranking_is_sorted(scenario, result):
    edits = [r.edit for r in R.all_readings(scenario.ruleset)]
    assert sorted([*(r["edit"] for r in result.rows), *(s["edit"] for s in result.skipped)]) \
        == sorted(edits)
    effects = [r["effect"] for r in result.rows]
    assert effects == sorted(effects, reverse=True)
    assert [r["rank"] for r in result.rows] == list(range(1, len(result.rows) + 1))
    assert all(r["effect"] == abs(r["diff"]) for r in result.rows)
    frame = result.ranking()
    assert list(frame.columns[:len(R.COLUMNS)]) == list(R.COLUMNS)
    assert "target: p_sarcophagus in 0.35..0.55" in frame.columns
    assert result.unpaired == ("days.median in 10..16",)


def test_the_largest_readings_of_the_audit_lead(result):
    top = [r["key"] for r in result.of_kind(R.RULE)[:2]]
    assert top == ["dice.modifier", "combat.avoid_rule"]
    first = result.of_kind(R.RULE)[0]
    assert first["diff_ci_low"] > 0.4 and first["verdict"] == "better"


def test_every_other_enemy_card_is_read_as_what_waits_in_the_sarcophagus(scenario, result):
    """P-50 names no card for the Sarcophagus (issue 46 item 5): each other enemy card of
    enemies.csv is played there, paired, and a stronger or weaker guardian moves the win
    rate (a guard: a reading that did not reach the game would give 0)."""
    rs = scenario.ruleset
    rows = {r["value"]: r for r in result.of_kind(R.SARCOPHAGUS)}
    assert set(rows) == set(rs.enemies) - {"Monolith fighter"}
    for name, r in rows.items():
        assert r["edit"] == f"sarcophagus.Guardian.enemy={name}"
        assert r["current"] == "Monolith fighter" and "P-50" in r["rules"]
        assert apply_edits(rs, [r["edit"]]).sarcophagus["Guardian"].enemy == name
    assert rows["Blind dog"]["diff_ci_low"] > 0.2  # a weak card there: far more wins
    assert rows["Chimera"]["diff_ci_high"] < 0  # the strongest card: fewer


def test_a_reading_that_cannot_change_a_one_stalker_game_gives_zero(result):
    rows = [r for r in result.rows if r["key"].startswith("multiplayer.")]
    assert rows
    for r in rows:
        assert r["diff"] == 0.0 and r["diff_ci_low"] <= 0.0 <= r["diff_ci_high"], r["edit"]
        assert r["verdict"] in (R.NO_EFFECT, R.NO_GAME_CHANGED)


def test_refused_readings_are_skipped_with_their_reason(result):
    skipped = {s["edit"]: s for s in result.skipped}
    phantom = skipped["rules.multiplayer.after_death=phantom"]
    assert phantom["refused_by"] == "rules" and "P-46" in phantom["reason"]
    assert all(s["reason"].startswith("edit '") for s in result.skipped)
    assert any("skipped" in line or "phantom" in line for line in report.skipped_lines(result))


def test_same_seed_same_readings_for_any_thread_count(scenario):
    one = R.run_readings(scenario, trials=300, seed=9, threads=1)
    two = R.run_readings(scenario, trials=300, seed=9, threads=2)
    assert one.rows == two.rows and one.skipped == two.skipped


def test_the_first_screen_names_the_top_three_and_the_value_used(scenario, result):
    lines = report.top_lines(result)
    assert len(lines) == 3
    assert lines[0].startswith("dice.modifier = face instead of successes (the value used "
                               "here)")
    section = report.readings_section(scenario, 300, 5)
    page = verdict.verdict_section(scenario, [section])
    heading = next(i for i, t in enumerate(page.text)
                   if isinstance(t, str) and t.startswith("Readings of the rules"))
    assert "300 games per reading" in page.text[heading]
    assert len(page.text[heading + 1]) == 3
    assert section.tables["readings"]["rank"].tolist()[:3] == [1, 2, 3]


def test_cli_json(tmp_path):
    out = CliRunner().invoke(main, ["readings", "base", "--trials", "300", "--seed", "4",
                                    "--format", "json", "--quiet"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert set(doc) == {"scenario", "experiment", "metric", "trials", "seed", "ruleset_sha256",
                        "wall_s", "baseline", "targets", "unpaired_targets", "readings",
                        "skipped"}
    assert doc["metric"] == "p_sarcophagus" and doc["trials"] == 300 and doc["seed"] == 4
    assert set(doc["readings"][0]) >= set(R.COLUMNS)
    assert {"key", "value", "edit", "reason", "refused_by"} == set(doc["skipped"][0])


def test_cli_table_and_csv():
    table = CliRunner().invoke(main, ["readings", "--trials", "200", "--quiet"])
    assert table.exit_code == 0, table.output
    assert "dice.modifier = face (used: successes)" in table.stdout
    assert "skipped: multiplayer.after_death = phantom: the rules refuse it" in table.stdout
    csv = CliRunner().invoke(main, ["readings", "--trials", "200", "--format", "csv", "-q"])
    assert csv.exit_code == 0 and csv.stdout.startswith("edit,key,value,rank,current,mc,")


@pytest.mark.parametrize(("args", "words"), [
    (["nosuch"], "nosuch.toml: cannot read file"),
    (["--trials", "0"], "'--trials': 0 is not in the range"),
    (["--format", "xml"], "'--format'"),
])
def test_bad_input_exits_2_with_a_message(args, words):
    out = CliRunner().invoke(main, ["readings", *args])
    assert out.exit_code == 2 and words in out.output and "Traceback" not in out.output


def test_help_shows_an_example():
    text = CliRunner().invoke(main, ["readings", "--help"]).output
    assert "zonesim readings base --trials 200000 --seed 7 --format json" in text
