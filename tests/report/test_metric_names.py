"""One metric naming scheme (issue 15, section 4): campaign metrics are named by their path
in ``zonesim campaign``'s JSON (``days.median``, ``causes.final_emission``) in sweep columns,
report tables and targets; the older sweep names are read as aliases. Sweep plots show the
target band and integer ticks for integer cells."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments.campaign import (
    DEATHS,
    FRAME_METRICS,
    MEANS,
    PROBABILITIES,
    SURVIVE_SARCOPHAGUS,
)
from sim.experiments.naming import canonical_metric
from sim.report import plots, tables
from sim.workflows.sweep import run_sweep
from sim.workflows.targets import parse_target, targets_from_table


@pytest.mark.parametrize(("old", "new"), [
    ("days_median", "days.median"), ("days_p90", "days.p90"),
    ("death_final_emission", "causes.final_emission"),
    ("days.median", "days.median"), ("p_sarcophagus", "p_sarcophagus"),
    ("days_lost", "days_lost"),  # an event metric, not a day statistic
    ("knocked_out", "knocked_out"),
])
def test_older_names_become_the_one_scheme(old, new):
    assert canonical_metric(old) == new


def test_sweep_columns_report_and_targets_share_the_campaign_names():
    assert set(FRAME_METRICS) == {*PROBABILITIES, "days.mean", "days.median", "days.p10",
                                  "days.p90", *(f"causes.{c}" for c in DEATHS), *MEANS}
    assert set(FRAME_METRICS) <= set(tables.target_metrics())  # every column is a target


def test_metric_names_come_from_the_declarations():
    """Issue 28, section 1, 'Names': outside its declaration a metric name is read from it."""
    from sim.experiments import campaign_metrics, registry
    from sim.report import labels

    combat = registry.experiment("combat")
    assert combat.names.knocked_out == "knocked_out"
    with pytest.raises(AttributeError, match="no metric 'knocked_ou' is declared"):
        combat.names.knocked_ou  # noqa: B018 - a misspelt name fails where it is read
    declared = {e.name: {m.name for m in e.metrics} for e in registry.encounters()}
    for shown, name in ((tables.COMBAT_SHOWN, "combat"), (tables.ARMOR_METRICS, "combat"),
                        (tables.ESCAPE_ITEM_METRICS, "combat"),
                        (tables.ANOMALY_SHOWN, "anomaly"), (tables.EVENT_SHOWN, "event"),
                        (tables.EVENT_ITEM_METRICS, "event")):
        assert set(shown) <= declared[name]
    # Every encounter metric's words are its declaration's, and none is left without words.
    for e in registry.encounters():
        for m in e.metrics:
            assert m.label and labels.metric(m.name) == m.label
    names = [m[0] for m in campaign_metrics.METRICS]
    assert {campaign_metrics.WIN_RATE, campaign_metrics.REACH, campaign_metrics.SURVIVE,
            campaign_metrics.FINAL_EMISSION, campaign_metrics.CAPPED,
            campaign_metrics.GAME_DAYS} <= set(names)
    assert PROBABILITIES == ("p_sarcophagus", "p_reach_sarcophagus", "p_survive",
                             "p_final_emission", "p_capped")
    assert {campaign_metrics.DAYS_MEAN, campaign_metrics.DAYS_MEDIAN} <= set(FRAME_METRICS)
    # The Sarcophagus deaths the report names the guardians of are two of the declared ends.
    assert set(campaign_metrics.IN_SARCOPHAGUS) <= set(DEATHS)
    assert [labels.cause(c, ("Monolith",)).endswith(" by Monolith")
            for c in DEATHS] == [c in campaign_metrics.IN_SARCOPHAGUS for c in DEATHS]


def test_targets_read_old_and_new_names_alike():
    assert parse_target("days_median in 10..16").metric == "days.median"
    assert parse_target("death_final_emission <= 0.2").metric == "causes.final_emission"
    # the base scenario's TOML writes "days.median" (a quoted dotted key)
    found = targets_from_table({"days": {"median": [10, 16]}, "days_p90": [0, 30]})
    assert [t.metric for t in found] == ["days.median", "days.p90"]


def test_campaign_table_names_metrics_as_the_json_does(monkeypatch):
    from sim.cli import campaign as command

    data = {k: {"mc": 0.5, "ci_low": 0.4, "ci_high": 0.6}
            for k in (*PROBABILITIES, SURVIVE_SARCOPHAGUS)}
    data |= {"causes": [{"cause": c, "mc": 0.1, "ci_low": 0.0, "ci_high": 0.2} for c in DEATHS],
             "days": {"mean": 12.5, "mean_ci_low": 12.0, "mean_ci_high": 13.0,
                      **{f"{k}{end}": v for k, v in (("median", 12), ("p10", 10), ("p90", 16))
                         for end in ("", "_ci_low", "_ci_high")}},
             "game_days": 14.0, **{k: 1.0 for k in MEANS},
             "means": {k: {"mc": 1.0, "ci_low": 0.9, "ci_high": 1.1}
                       for k in ("game_days", *MEANS)}}
    names = list(command._summary(data)["metric"])
    assert set(FRAME_METRICS) <= set(names) and "days.median" in names


@pytest.fixture(scope="module")
def line_sweep():
    return run_sweep(None, ["enemies.Bloodsucker.endurance=2..5"], "combat",
                     {"stalker": "Strelok", "enemy": "Bloodsucker", "weapons": ["AK-74"]},
                     trials=2000, seed=3)


def test_sweep_line_plot_has_integer_ticks_and_the_target_band(line_sweep):
    target = parse_target("knocked_out in 0.2..0.4")
    figure = plots.sweep_figure(line_sweep, "knocked_out", target)
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "3", "4", "5"]
    bands = [p for p in ax.patches if p.get_label().startswith("target")]
    assert len(bands) == 1
    assert bands[0].get_extents() is not None
    no_target = plots.sweep_figure(line_sweep, "knocked_out")
    assert not [p for p in no_target.axes[0].patches if p.get_label().startswith("target")]


def test_sweep_heatmap_outlines_the_cells_that_meet_the_target():
    result = run_sweep(None, ["enemies.Bloodsucker.endurance=2..3",
                              "enemies.Bloodsucker.wounds=1..2"], "combat",
                       {"stalker": "Strelok", "enemy": "Bloodsucker", "weapons": ["AK-74"]},
                       trials=1000, seed=3)
    target = parse_target("knocked_out <= 2")  # every cell
    figure = plots.sweep_figure(result, "knocked_out", target)
    assert len(figure.axes[0].patches) == 4
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["2", "3"]


def test_cli_sweep_campaign_defaults_to_p_sarcophagus_and_reads_old_names(tmp_path):
    runner = CliRunner()
    args = ["sweep", "--experiment", "campaign", "--vary", "enemies.Bloodsucker.endurance=3,4",
            "--trials", "200", "--workers", "1", "--format", "json", "--quiet"]
    result = runner.invoke(main, [*args, "--out", str(tmp_path / "a"), "--target",
                                  "p_sarcophagus in 0.3..0.6"])
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "a" / "metadata.json").read_text())
    assert meta["metric"] == "p_sarcophagus" and meta["target"] == "p_sarcophagus in 0.3..0.6"
    assert (tmp_path / "a" / "sweep-p_sarcophagus.png").stat().st_size > 0
    doc = json.loads(result.stdout)
    assert "days.median" in doc["metrics"] and "causes.final_emission" in doc["metrics"]
    old = runner.invoke(main, [*args, "--out", str(tmp_path / "b"), "--metric", "days_median"])
    assert old.exit_code == 0, old.output
    assert json.loads((tmp_path / "b" / "metadata.json").read_text())["metric"] == "days.median"
    table = runner.invoke(main, [*args[:-3], "--quiet", "--out", str(tmp_path / "c"),
                                 "--target", "p_sarcophagus >= 0.99"])
    assert table.exit_code == 0 and "FAIL" in table.stdout


def test_game_shares_artefact_columns_and_danger_read_the_declared_names():
    """Issue 28, section 1, 'Names': the multiplayer game's shares, the artefact table's
    columns and the hazards' danger order name metrics their declarations hold."""
    from sim.experiments import anomaly, artifacts, campaign_metrics, event, registry
    from sim.experiments.tables import danger_key

    one_stalker = {m[0] for m in campaign_metrics.METRICS}
    assert campaign_metrics.GAME_SHARES == (campaign_metrics.NOBODY_WINS,
                                            campaign_metrics.FINAL_EMISSION,
                                            campaign_metrics.CAPPED)
    assert set(campaign_metrics.GAME_SHARES[1:]) <= one_stalker
    declared = {e.name: {m.name: m for m in e.metrics} for e in registry.encounters()}
    assert set(artifacts.COMBAT_COLUMNS) <= set(declared["combat"])
    assert set(artifacts.ANOMALY_COLUMNS) <= set(declared["anomaly"])
    for experiment, lost in (("anomaly", anomaly.LOST), ("event", event.LOST)):
        assert {declared[experiment][n].kind for n in lost} == {"mean"}
    cell = {"exact": 0.5}
    row = {"outcomes": {"knocked_out": cell, "avoided": cell}, "deformation": cell,
           "mean_loss": cell}
    assert danger_key(anomaly.NAMES, anomaly.LOST)(row) == (-0.5, -0.5, -0.5, -0.5)
    with pytest.raises(KeyError, match="health_lost"):  # a name the row does not hold fails
        danger_key(event.NAMES, event.LOST)(row)


def test_report_reads_kinds_and_words_from_the_declarations(monkeypatch):
    """Issue 28, section 1, 'Names': plots.label takes a metric's kind, and labels.metric its
    words, from the experiment that declares it; an undeclared name fails."""
    from sim.experiments import campaign_metrics, registry
    from sim.experiments.base import CompareInputError, Metric
    from sim.report import labels

    assert plots.label("knocked_out") == "P(knocked out)"  # combat: a proportion
    assert plots.label("health_lost") == "health lost"  # event: a mean
    assert plots.label("draws_per_search") == "draws per search"  # anomaly's sweep column
    assert plots.label("knockouts") == "knockouts"  # campaign: a mean
    assert plots.label("days.median") == "days.median"  # campaign's sweep column
    assert plots.label("p_sarcophagus") == "P(win)"  # a share named as one: its label's head
    assert labels.metric("anomalies.mean_loss") == "Health lost (anomaly deck average)"
    campaign = registry.experiment("campaign")
    assert {m.name: m.label for m in campaign.metrics} == {
        m[0]: campaign_metrics.LABELS[m[0]] for m in campaign_metrics.METRICS}
    for name in ("knocked_ou", "win.seat1"):
        with pytest.raises(CompareInputError, match=f"no experiment declares a metric '{name}'"):
            plots.label(name)
    monkeypatch.setattr(registry, "metric", lambda name: Metric(name, "mean"))
    assert plots.label("knocked_out") == "knocked out"  # the kind is the declaration's


def test_declarations_of_one_name_agree_and_every_sweep_column_is_declared(monkeypatch):
    """Two experiments that declare one name give it one kind and label; a sweep column
    without a declaration is refused where the experiment is declared."""
    import dataclasses
    from types import SimpleNamespace

    from sim.experiments import registry
    from sim.experiments.base import Metric

    shared = {}
    for m in (m for e in registry.every_experiment() for m in e.declared):
        shared.setdefault(m.name, set()).add((m.kind, m.label))
    assert all(len(v) == 1 for v in shared.values())
    assert set(registry.metrics()) == set(shared)
    combat = registry.experiment("combat")
    with pytest.raises(ValueError, match=r"sweep columns \['knocked_ou'\] are declared by no"):
        dataclasses.replace(combat, sweep_metrics=(*combat.sweep_metrics, "knocked_ou"))
    twice = (SimpleNamespace(declared=(Metric("x", "proportion", None, "x"),)),
             SimpleNamespace(declared=(Metric("x", "mean", None, "x"),)))
    monkeypatch.setattr(registry, "experiments", lambda: twice)
    registry.metrics.cache_clear()
    try:
        with pytest.raises(ValueError, match="'x' is declared as proportion 'x' and as mean"):
            registry.metrics()
    finally:
        registry.metrics.cache_clear()
