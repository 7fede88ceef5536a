"""An experiment is one descriptor (issue 28, section 1, 'Experiments' and 'Names').

Every command and workflow reads what it needs of an experiment (metrics, card option,
setup keys, item effects, default metric, compile step) from its
:class:`sim.experiments.base.Experiment`, listed once in :mod:`sim.experiments.registry`;
these tests hold the descriptors to what the commands build from them, and show that an
experiment added by its module and one registry line is found everywhere by name.
"""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments import event, registry, setups
from sim.experiments.base import CompareInputError
from sim.rules.scenario import load_scenario
from sim.workflows import levers, sweep

BASE = load_scenario("base")


@pytest.mark.parametrize("name", registry.NAMES)
def test_each_descriptor_is_whole_and_named_as_registered(name):
    exp = registry.experiment(name)
    assert exp.name == name
    metrics = [m.name for m in exp.metrics]
    assert exp.default_metric in metrics and exp.default_metric in exp.sweep_metrics
    setup_keys = {setup_key for setup_key, _ in exp.keys.values()}
    assert set(exp.option_keys) <= setup_keys  # a variant may set every option's key
    if exp.card_key is None:  # whole games: the scenario itself
        assert exp.from_scenario is not None and exp.card_table is None
    else:
        assert exp.card_key in setup_keys and exp.card_key in exp.option_keys
        assert exp.card_key not in exp.scenario_keys  # the card is met, not carried
        assert len(getattr(BASE.ruleset, exp.card_table)) > 0  # its cards, by name


def test_a_default_metric_the_experiment_lacks_is_refused():
    with pytest.raises(ValueError, match="default metric"):
        dataclasses.replace(registry.experiment("event"), default_metric="p_sarcophagus")


def test_an_unknown_experiment_names_the_known_ones():
    with pytest.raises(CompareInputError, match="known: combat, anomaly, event, campaign"):
        registry.experiment("emission")


def test_the_scenario_gives_each_encounter_its_keys_and_only_the_items_that_act_there():
    """Z-10 (event items), P-31..P-36 (no item acts in an anomaly), Z-12/Z-17 (fights)."""
    for exp in registry.encounters():
        values = setups.scenario_values(exp.name, BASE)
        assert tuple(values) == exp.scenario_keys
        effects = {BASE.ruleset.items[n].effect for n in values.get("items", ())}
        assert exp.item_effects is None or effects <= exp.item_effects
        assert setups.base_setup(exp.name, BASE, "X")[exp.card_key] == "X"
    assert setups.scenario_values("anomaly", BASE)["enter"] is BASE.policy.enter_anomalies


@pytest.fixture
def new_experiment(monkeypatch):
    """An experiment added as the house says: one module and one registry line."""
    module = types.ModuleType("tests_new_experiment")
    module.EXPERIMENT = dataclasses.replace(event.EXPERIMENT, name="omen", card_key="omen",
                                            option_keys=("stalker", "armor", "omen", "items"))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.MODULES, "omen", module.__name__)
    monkeypatch.setattr(registry, "NAMES", (*registry.NAMES, "omen"))
    return module.EXPERIMENT


def test_a_new_experiment_is_found_by_every_workflow(new_experiment):
    assert registry.experiment("omen") is new_experiment
    assert new_experiment in registry.encounters()
    assert sweep.experiment_of("omen") is new_experiment.sweep_rows
    assert levers.check_metric(new_experiment, None) == "avoided"
    setup = setups.base_setup("omen", BASE, "all")
    assert setup["omen"] == "all" and tuple(setup)[:-1] == new_experiment.scenario_keys


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_the_commands_offer_every_registered_experiment_and_card_option():
    # sweep also offers the skirmish's battlefield values (outside the registry, issue 50)
    for command, more in ((["sweep"], ("skirmish",)), (["levers"], ())):
        text = run(*command, "--help").output
        names = (*registry.NAMES, *more)
        assert "[" + "|".join(names) + "]" in text.replace("\n", "").replace(" ", "")
    for command in (["sweep"], ["tune"]):
        text = run(*command, "--help").output
        for exp in registry.encounters():
            assert f"--{exp.card_key} TEXT" in text


@pytest.mark.parametrize("name", registry.NAMES)
def test_compare_help_lists_the_declared_metrics(name):
    text = " ".join(run("compare", name, "--help").output.split())
    for metric in registry.experiment(name).metrics:
        assert metric.name in text
    assert "{metrics}" not in text


def test_tune_refuses_an_option_its_experiment_takes_none_of():
    result = run("tune", "--stalker", "Strelok", "--anomaly", "all", "--weapon", "AK-74",
                 "--vary", "anomalies.Burner.damage=1..3", "--target", "damaged <= 0.5")
    assert result.exit_code == 2
    assert "--weapon is not an option of 'tune' for the anomaly experiment" in result.output
    result = run("tune", "campaign", "--enemy", "Bloodsucker", "--vary",
                 "enemies.Bloodsucker.endurance=2..4", "--target", "p_sarcophagus >= 0.3")
    assert result.exit_code == 2
    assert "--enemy is not an option of 'tune' for the campaign experiment" in result.output
