"""``zonesim compare``: a copied ruleset folder as a variant, and differences between any two
variants (issue 15, sections 2 and 4).

``--variant "rules=DIR"`` plays the folder's ruleset instead of the baseline's:
on common random numbers the folder with one value changed moves every
number exactly as the matching card-edit variant does. ``--against`` reports
the paired differences to any variant, not only the baseline.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.paths import bundled_ruleset

RUNNER = CliRunner()
VALUES = ("mc", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high")


def run(*args: str):
    return RUNNER.invoke(main, list(args))


def _json(*args: str) -> dict:
    result = run(*args, "--format", "json", "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _copy_with(tmp_path: Path, table: str, card: str, column: str, value: str) -> Path:
    """A copy of the bundled base ruleset with one CSV cell changed."""
    folder = tmp_path / "my_rules"
    shutil.copytree(bundled_ruleset(), folder)
    path = folder / f"{table}.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    fields = list(rows[0])
    for row in rows:
        if row["name"] == card:
            row[column] = value
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return folder


def _by_variant(doc: dict) -> dict:
    out: dict = {}
    for row in doc["rows"]:
        out.setdefault(row["variant"], {})[row["metric"]] = tuple(row[k] for k in VALUES)
    return out


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # DIR is read relative to the current directory
    _copy_with(tmp_path, "enemies", "Bloodsucker", "endurance", "3")
    return "my_rules"


def test_a_folder_variant_equals_the_matching_card_edit(folder):
    doc = _json("compare", "combat", "--stalker", "Strelok", "--enemy", "all", "--weapon",
                "AK-74", "--trials", "4000", "--seed", "5", "--baseline", "",
                "--variant", f"rules={folder};label=folder",
                "--variant", "edit=enemies.Bloodsucker.endurance=3;label=edit")
    rows = _by_variant(doc)
    assert rows["folder"] == rows["edit"]
    assert rows["folder"]["knocked_out"][3] < 0  # a weaker Bloodsucker knocks out less
    assert doc["variants"][1]["rules"] == folder and "rules" not in doc["variants"][2]


def test_a_folder_variant_in_a_campaign_equals_the_card_edit(folder):
    doc = _json("compare", "campaign", "base", "--trials", "400", "--seed", "5",
                "--baseline", "", "--variant", f"rules={folder};label=folder",
                "--variant", "edit=enemies.Bloodsucker.endurance=3;label=edit",
                "--metric", "p_sarcophagus", "--metric", "knockouts")
    rows = _by_variant(doc)
    assert rows["folder"] == rows["edit"]


def test_a_missing_folder_exits_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
                 "--trials", "100", "--baseline", "", "--variant", "rules=nowhere")
    assert result.exit_code == 2, result.output
    assert "nowhere" in result.output and "not found" in result.output
    assert "Traceback" not in result.output


def test_an_invalid_folder_exits_2_naming_file_line_and_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _copy_with(tmp_path, "enemies", "Bloodsucker", "endurance", "many")
    result = run("compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
                 "--trials", "100", "--baseline", "", "--variant", "rules=my_rules")
    assert result.exit_code == 2, result.output
    line = next(x for x in result.output.splitlines() if "enemies.csv" in x)
    path, row, rest = line.split(":", 2)
    assert path == str(Path("my_rules") / "enemies.csv") and row.isdigit(), line
    assert "column 'endurance'" in rest and "many" in rest, line


# --- differences between any two variants ------------------------------------------------------

ARMOURS = ("compare", "combat", "--stalker", "Strelok", "--enemy", "all", "--trials", "4000",
           "--seed", "9", "--variant", "armor=Ecolog suit", "--variant", "armor=SEVA suit",
           "--variant", "armor=Exoskeleton", "--metric", "knocked_out", "--metric",
           "mean_wounds")


def test_against_a_variant_gives_the_paired_difference_to_it():
    plain = _json(*ARMOURS)
    assert all("against" not in row for row in plain["rows"]) and "against" not in plain
    doc = _json(*ARMOURS, "--against", "armor=SEVA suit")
    assert doc["against"] == ["armor=SEVA suit"]
    mine = {(r["variant"], r["metric"]): r for r in doc["rows"]}
    base = {(r["variant"], r["metric"]): r for r in plain["rows"]}
    assert mine.keys() == base.keys()
    for (variant, metric), row in mine.items():
        assert row["against"] == "armor=SEVA suit"
        assert row["mc"] == base[variant, metric]["mc"]  # same trials, same streams
        reference = base["armor=SEVA suit", metric]
        assert row["diff"] == pytest.approx(row["mc"] - reference["mc"], abs=1e-12)
        assert row["diff_exact"] == pytest.approx(row["exact"] - reference["exact"])
        assert row["diff_ci_low"] <= row["diff"] <= row["diff_ci_high"]
    assert mine["armor=SEVA suit", "knocked_out"]["verdict"] == "reference"
    # positions count from the baseline: 1 is the second variant
    assert _json(*ARMOURS, "--against", "1")["rows"] == doc["rows"]


def test_against_all_gives_every_pair_once():
    doc = _json(*ARMOURS, "--against", "all")
    pairs = [(r["against"], r["variant"]) for r in doc["rows"] if r["metric"] == "knocked_out"]
    assert pairs == [("armor=Ecolog suit", "armor=Ecolog suit"),
                     ("armor=Ecolog suit", "armor=SEVA suit"),
                     ("armor=Ecolog suit", "armor=Exoskeleton"),
                     ("armor=SEVA suit", "armor=Exoskeleton")]
    table = run(*ARMOURS, "--against", "all", "--quiet")
    assert "diff = variant - against" in table.stdout and "against" in table.stdout


def test_against_an_unknown_variant_exits_2():
    result = run(*ARMOURS, "--against", "Leather", "--quiet")
    assert result.exit_code == 2 and "--against" in result.output
    assert "armor=SEVA suit" in result.output  # the message lists the labels


# --- prices ------------------------------------------------------------------------------------

BASE_ITEMS = "item=Medkit;item=Medkit;item=Stimulant;item=Stimulant;item=Bag of nuts"


def test_loadout_price_sums_the_price_columns():
    from sim.rules import load_ruleset
    from sim.workflows.prices import loadout_price

    rs = load_ruleset(bundled_ruleset())
    setup = {"armor": "SEVA suit", "weapons": ("Knife", "Knife"), "items": ("Medkit",)}
    assert loadout_price(rs, setup) == (rs.armor["SEVA suit"].price + 2 * rs.weapons["Knife"].price
                                        + rs.items["Medkit"].price)
    assert loadout_price(rs, {"armor": None}) == 0
    assert loadout_price(rs, {"items": ("No such thing",)}) is None


def test_deck_comparisons_show_prices_and_the_change_per_1000_rubles():
    from sim.rules import load_ruleset

    rs = load_ruleset(bundled_ruleset())
    doc = _json(*ARMOURS)
    rows = {r["variant"]: r for r in doc["rows"] if r["metric"] == "knocked_out"}
    for label, row in rows.items():
        assert row["price"] == rs.armor[label.removeprefix("armor=")].price
    row = rows["armor=SEVA suit"]
    change = rs.armor["SEVA suit"].price - rs.armor["Ecolog suit"].price
    assert row["price_diff"] == change
    assert row["diff_per_1000"] == pytest.approx(row["diff"] * 1000 / change)
    assert row["diff_per_1000_ci_low"] == pytest.approx(row["diff_ci_low"] * 1000 / change)
    assert rows["armor=Ecolog suit"]["diff_per_1000"] is None  # the baseline: no change
    table = run(*ARMOURS, "--quiet").stdout
    assert "price" in table and "per 1,000 rubles" in table and "5,000" in table


def test_cash_equivalent_adds_the_price_in_starting_rubles():
    doc = _json("compare", "campaign", "base", "--trials", "300", "--seed", "2", "--baseline",
                "", "--variant", f"{BASE_ITEMS};item=Jetpack;label=Jetpack",
                "--cash-equivalent", "--metric", "p_sarcophagus")
    labels = [v["label"] for v in doc["variants"]]
    assert labels == ["base", "Jetpack", "Jetpack as cash (+5,000 rubles)"]
    cash = doc["variants"][2]["overrides"]
    assert cash["rubles"] == 1000 + 5000  # Strelok's card money plus the Jetpack's price
    rows = {r["variant"]: r for r in doc["rows"]}
    for label in labels[1:]:
        assert rows[label]["price_diff"] == 5000
        assert rows[label]["diff_per_1000"] == pytest.approx(rows[label]["diff"] / 5)
    assert rows[labels[2]]["price"] == rows["base"]["price"]  # the same cards


def test_pay_takes_the_cards_out_of_the_starting_rubles():
    doc = _json("compare", "campaign", "base", "--trials", "300", "--seed", "2", "--baseline",
                "", "--variant", f"{BASE_ITEMS};item=Dosimeter;label=Dosimeter", "--pay",
                "--metric", "p_sarcophagus")
    assert doc["variants"][1]["overrides"]["rubles"] == 1000 - 500
    row = next(r for r in doc["rows"] if r["variant"] == "Dosimeter")
    assert row["price_diff"] == 0 and row["diff_per_1000"] is None  # money turned into cards
    result = run("compare", "campaign", "base", "--trials", "300", "--baseline", "",
                 "--variant", f"{BASE_ITEMS};item=Jetpack;label=Jetpack", "--pay", "--quiet")
    assert result.exit_code == 2
    assert "cannot afford" in result.output and "'Jetpack' costs 5,000 rubles" in result.output
