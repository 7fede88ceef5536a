"""``zonesim report``: the folder's files, embedded plots, all-or-nothing writing, targets.

The campaign statistics come from ``sim.experiments.campaign.run_campaign``; these tests use a fake
with the same result shape (``to_dict``/``to_frame``), so they check the report, not the
campaign model, and run in seconds.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from sim import stats
from sim.cli import main
from sim.report import build, html, tables
from sim.rules.scenario import load_scenario

TRIALS = 2_000
GAMES = 100


class FakeCampaign:
    """The shape of ``CampaignResult`` (fixed numbers; the trials and seed echoed)."""

    histogram = [0] * 10 + [3, 10, 25, 30, 20, 8, 4] + [0] * 8

    def __init__(self, trials, seed):
        self.trials, self.seed = trials, seed

    def to_dict(self):
        def cell(p):
            return {"mc": p, "ci_low": p - 0.02, "ci_high": p + 0.02}

        days = np.arange(len(self.histogram))
        hist = np.asarray(self.histogram)
        return {
            "trials": self.trials, "seed": self.seed, "p_sarcophagus": cell(0.45),
            "p_survive": cell(0.5), "p_final_emission": cell(0.1),
            "days": {"mean": float((days * hist).sum() / hist.sum()), "median": 13.0,
                     "p10": 11.0, "p90": 15.0, "histogram": self.histogram},
            "causes": [{"cause": "final_emission", **cell(0.1)},
                       {"cause": "knocked_out_in_sarcophagus", **cell(0.35)}],
            "survival": [{"day": d, "survival": 1 - 0.02 * d, "ci_low": 0.99 - 0.02 * d,
                          "ci_high": 1.0 - 0.019 * d} for d in range(1, 25)],
            "knockouts": 1.2, "emissions": 2.5, "items_used": 3.0,
        }

    def to_frame(self):
        return pd.DataFrame([{"p_sarcophagus": 0.45}])

    def outcomes_by_day(self):
        won = np.cumsum(self.histogram) / sum(self.histogram) * 0.45
        dead = np.linspace(0.0, 0.45, len(self.histogram))
        shares = ({"won": w, "dead": x, "in_zone": 1 - w - x} for w, x in zip(won, dead,
                                                                           strict=True))
        return [{"day": d, **{f"{k}{end}": v + pad for k, v in row.items()
                              for end, pad in (("", 0.0), ("_ci_low", -0.01),
                                               ("_ci_high", 0.01))}}
                for d, row in enumerate(shares)]


@pytest.fixture
def fake_campaign(monkeypatch):
    calls = []
    module = types.ModuleType("sim.experiments.campaign")

    def run_campaign(scenario, *, trials, seed, threads=None):
        calls.append((scenario.name, trials, seed))
        return FakeCampaign(trials, seed)

    module.run_campaign = run_campaign
    monkeypatch.setitem(sys.modules, "sim.experiments.campaign", module)
    return calls


@pytest.fixture(scope="module")
def scenario():
    return load_scenario()


@pytest.mark.slow
def test_report_folder_has_every_file_and_the_html_embeds_every_plot(fake_campaign, tmp_path,
                                                                     scenario):
    lines = []
    report = build.run_report(scenario, trials=TRIALS, campaign_trials=GAMES, seed=3,
                              results_dir=tmp_path, progress=lines.append,
                              command=["zonesim", "report"])
    folder = report.folder
    assert folder.parent == tmp_path and folder.name.startswith("base-")
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]  # no temp folder left
    assert fake_campaign == [("base", GAMES, 3)]
    assert len(lines) == 10 and lines[0].startswith("[1/10] enemy deck")
    files = {p.name for p in folder.iterdir()}
    for stem in ("enemy_deck", "anomaly_deck", "event_deck", "items_event", "items_escape",
                 "items_armor", "artifacts", "campaign_summary", "campaign_survival",
                 "campaign_causes", "campaign_days", "campaign_outcomes", "characters", "readings",
                 "best_play", "best_play_changes", "best_play_characters", "targets", "summary"):
        assert {f"{stem}.csv", f"{stem}.parquet"} <= files, stem
    pngs = sorted(p for p in folder.glob("*.png"))
    assert {p.stem for p in pngs} >= {"enemy_deck", "anomaly_deck", "event_deck", "items_event",
                                      "items_escape", "items_armor", "artifacts",
                                      "campaign_won_lost", "campaign_days", "campaign_causes",
                                      "campaign_outcomes"}
    for name in files:
        assert (folder / name).stat().st_size > 0, name
    page = (folder / "report.html").read_text(encoding="utf-8")
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    for png in pngs:
        assert html.data_uri(png.read_bytes()) in page, png.name
        assert f"]({png.name})" in markdown, png.name
    assert "<script" not in page and 'src="http' not in page and "<link" not in page
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["seed"] == 3 and meta["trials"] == TRIALS and meta["campaign_trials"] == GAMES
    assert meta["ruleset_digest"] == scenario.ruleset.digest()
    assert meta["command"] == ["zonesim", "report"]
    assert meta["versions"]["numpy"] and set(meta["timings"]) == {
        "enemy deck", "anomaly deck", "event deck", "item comparisons", "artefacts", "campaign",
        "characters", "readings", "best play", "targets and pages"}
    assert sorted(meta["files"]) == sorted(files)
    assert meta["targets"] == {"p_sarcophagus in 0.35..0.55": "PASS",
                               "days.median in 10..16": "PASS"}
    parquet = pd.read_parquet(folder / "enemy_deck.parquet")
    csv = pd.read_csv(folder / "enemy_deck.csv")
    assert list(parquet.columns) == list(csv.columns) and len(parquet) == len(csv)
    assert set(parquet["enemy"]) <= set(scenario.ruleset.enemies)


def test_item_comparisons_cover_each_category(fake_campaign, tmp_path, scenario):
    section = tables.items_section(scenario, TRIALS, 1)
    event = section.tables["items_event"]
    assert list(dict.fromkeys(event["variant"])) == ["none", "Bag of nuts (loadout)",
                                                     "Dosimeter", "Torsion scanner"]
    avoided = event[event["metric"] == "avoided"].set_index("variant")["exact"]
    assert avoided["none"] < avoided["Bag of nuts (loadout)"] < avoided["Dosimeter"] \
        < avoided["Torsion scanner"]
    assert set(section.tables["items_armor"]["variant"]) == {
        "none", *(f"{a} (loadout)" if a == scenario.armor else a
                  for a in scenario.ruleset.armor)}
    escape = section.tables["items_escape"]
    assert {"Smoke bomb", "Camouflage cloak", "Stealth generator"} <= set(escape["variant"])
    assert any("avoid_rule=reputation" in t for t in section.text)


@pytest.mark.slow
def test_a_failure_half_way_leaves_no_folder(fake_campaign, tmp_path, scenario, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("injected failure while writing the HTML page")

    monkeypatch.setattr(html, "render", boom)  # after every table and plot has been written
    with pytest.raises(RuntimeError, match="injected"):
        build.run_report(scenario, trials=500, campaign_trials=GAMES, seed=1,
                         results_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_without_the_campaign_module_the_section_says_so(monkeypatch, tmp_path, scenario):
    monkeypatch.setitem(sys.modules, "sim.experiments.campaign", None)  # import raises ImportError
    report = build.run_report(scenario, trials=500, campaign_trials=GAMES, seed=1,
                              out=tmp_path / "r")
    assert "campaign: not available" in (tmp_path / "r" / "report.md").read_text()
    targets = pd.read_csv(tmp_path / "r" / "targets.csv")
    assert set(targets["verdict"]) == {"UNDECIDED"}
    assert report.metadata["campaign_available"] is False


def test_quantile_interval_brackets_the_quantile():
    assert stats.histogram_quantile([0, 0, 0], 0.5) is None
    assert stats.histogram_quantile([0, 10], 0.5)[1:] == (1.0, 1.0)
    # 1000 games spread evenly over days 0..9: median rank 500 +- 1.96 * sqrt(250) = 31 ranks
    low, high = stats.histogram_quantile([100] * 10, 0.5)[1:]
    assert (low, high) == (4.0, 5.0)
    # Coverage on resampled data is about 95 % (seeded; 400 repetitions, so +-2.2 % is 2 s.e.)
    rng = np.random.default_rng(5)
    true_median = 7.0  # of a Poisson(7.3): P(X <= 7) = 0.556, P(X <= 6) = 0.414
    hits = 0
    for _ in range(400):
        hist = np.bincount(rng.poisson(7.3, size=300), minlength=30)
        low, high = stats.histogram_quantile(hist, 0.5)[1:]
        hits += low <= true_median <= high
    assert hits / 400 >= 0.93


def test_targets_are_judged_on_the_interval(scenario):
    values = {"p_sarcophagus": (0.5, 0.45, 0.56), "days.median": (17.0, 16.0, 18.0)}
    section = tables.targets_section(scenario, values)
    verdicts = dict(zip(section.tables["targets"]["metric"],
                        section.tables["targets"]["verdict"], strict=True))
    assert verdicts == {"p_sarcophagus": "UNDECIDED", "days.median": "UNDECIDED"}
    section = tables.targets_section(scenario, {"p_sarcophagus": (0.2, 0.18, 0.22),
                                                "days.median": (13.0, 12.0, 14.0)})
    verdicts = dict(zip(section.tables["targets"]["metric"],
                        section.tables["targets"]["verdict"], strict=True))
    assert verdicts == {"p_sarcophagus": "FAIL", "days.median": "PASS"}


@pytest.mark.slow
def test_cli_report(fake_campaign, tmp_path):
    out = tmp_path / "rep"
    runner = CliRunner()
    result = runner.invoke(main, ["report", "--trials", "500", "--campaign-trials", "50",
                                  "--seed", "2", "--out", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["folder"] == str(out) and doc["seed"] == 2 and doc["campaign_trials"] == 50
    assert any(r["metric"] == "enemies.knocked_out" for r in doc["summary"])
    assert (out / "report.html").exists()
    again = runner.invoke(main, ["report", "--trials", "500", "--out", str(out)])
    assert again.exit_code == 1 and "exists already" in again.output
    missing = runner.invoke(main, ["report", "no-such-scenario", "--trials", "500",
                                   "--out", str(tmp_path / "x")])
    assert missing.exit_code == 2 and not (tmp_path / "x").exists()


def test_the_enemy_deck_shows_both_policies_and_what_good_play_is_worth(scenario):
    """Issue 24: each card under the scenario's policy and under best play, exact, with the
    difference as its own column and the plan in words; the deck sentence gives the paired
    change. Best play is never worse, and the Boar (where best play flees) gains."""
    from sim.encounter.combat import CombatPolicy, compile_combat
    from sim.exact.best_combat import solve_combat
    from sim.exact.combat import combat_exact

    section = tables.enemy_deck(scenario, TRIALS, 1)
    best = section.tables["enemy_best_play"]
    assert list(best["enemy"]) == list(section.tables["enemy_deck"]["enemy"])
    assert (best["good_play_worth"] >= 0).all()
    p = scenario.policy
    spec = compile_combat(scenario.ruleset, scenario.stalker, "Boar", scenario.armor,
                          scenario.weapons, scenario.items,
                          CombatPolicy(p.sneak, p.flee_at, p.heal_at))
    boar = best.set_index("enemy").loc["Boar"]
    assert boar["knocked_out_best_exact"] == pytest.approx(
        combat_exact(spec, solve_combat(spec)).outcomes["knocked_out"], abs=1e-12)
    assert boar["good_play_worth"] > 0.01 and "flee" in boar["decisions"]
    assert any("Under best play (survive)" in line and "paired" in line for line in section.text)
    assert "Under best play (each card's exact optimal plan)" in section.shown


def test_the_verdict_says_where_good_play_matters():
    from sim.report.verdict import best_play_line

    best = pd.DataFrame({"enemy": ["Boar", "Bandit", "Flesh"],
                         "knocked_out_policy_exact": [0.1322, 0.0, 0.01],
                         "knocked_out_best_exact": [0.0962, 0.0, 0.008],
                         "good_play_worth": [0.036, 0.0, 0.002]})
    line = best_play_line(best)
    assert "Boar 13.2 % -> 9.6 %" in line and "other 2 cards" in line
    assert "within half a percentage point of best play on every card" in best_play_line(
        best.assign(good_play_worth=[0.004, 0.0, 0.002]))
