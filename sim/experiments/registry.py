"""The experiments that compare, sweep, tune, levers and report run, by name: the one registry.

Each experiment module declares one :class:`~sim.experiments.base.Experiment`
(``EXPERIMENT``: its metrics, setup keys, item effects, card option, default
metric, runners and compile step); this module lists the modules, and every
caller (CLI, compare, sweep, tune, levers, report) looks experiments up here. A
module is imported when its experiment is first asked for, so ``zonesim
combat`` never loads the campaign's compile step.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from sim.experiments import naming
from sim.experiments.base import CompareInputError, Experiment, Metric
from sim.rules.tomlfile import suggest

if TYPE_CHECKING:
    from sim.rules.scenario import Scenario

MODULES: dict[str, str] = {
    "combat": "sim.experiments.combat",
    "anomaly": "sim.experiments.anomaly",
    "event": "sim.experiments.event",
    "campaign": "sim.experiments.campaign_paired",
}
"""The module declaring each experiment (its ``EXPERIMENT``), by the experiment's name."""

NAMES: tuple[str, ...] = tuple(MODULES)
"""Every experiment's name, in the order commands list them."""

MULTIPLAYER: dict[str, str] = {"multiplayer": "sim.experiments.campaign_multi"}
"""The experiment a command of :data:`NAMES` plays on a multiplayer or cooperative scenario
(issue 47 item 7), by name, and its module: ``compare campaign``, ``tune campaign`` and
``levers`` pick it (:func:`for_scenario`), so it is no command of its own."""
WHOLE_GAMES = "campaign"
"""The experiment of one stalker's whole games, whose multiplayer twin :data:`MULTIPLAYER`
declares."""


def experiment(name: str) -> Experiment:
    """The experiment called ``name``.

    Raises
    ------
    CompareInputError
        If there is none.
    """
    modules = {**MODULES, **MULTIPLAYER}
    if name not in modules:
        raise CompareInputError(f"unknown experiment {name!r} (known: {', '.join(NAMES)})")
    declared = importlib.import_module(modules[name]).EXPERIMENT
    assert declared.name == name, f"{modules[name]} declares {declared.name!r}, not {name!r}"
    return declared


def for_scenario(name: str, scenario: Scenario) -> Experiment:
    """The experiment ``name`` (:data:`NAMES`) plays on ``scenario``: the multiplayer
    experiment (:data:`MULTIPLAYER`) for whole games of a multiplayer or cooperative
    scenario, else ``name`` itself.
    """
    if name == WHOLE_GAMES and scenario.multiplayer:
        (multi,) = MULTIPLAYER
        return experiment(multi)
    return experiment(name)


def experiments() -> tuple[Experiment, ...]:
    """Every experiment, in the order of :data:`NAMES` (imports every module)."""
    return tuple(experiment(name) for name in NAMES)


def every_experiment() -> tuple[Experiment, ...]:
    """Every experiment: those of :data:`NAMES`, then those of :data:`MULTIPLAYER`."""
    return (*experiments(), *map(experiment, MULTIPLAYER))


def encounters() -> tuple[Experiment, ...]:
    """The experiments that meet a card (``card_key``), in the order of :data:`NAMES`."""
    return tuple(e for e in experiments() if e.card_key is not None)


@functools.cache
def metrics() -> Mapping[str, Metric]:
    """Every metric an experiment declares (:attr:`Experiment.declared`), by name: those
    of :data:`NAMES` and of :data:`MULTIPLAYER`.

    The report reads a metric's kind and words here (:func:`sim.report.plots.label`,
    :func:`sim.report.labels.metric`), not from a list of its own. The encounters share
    some names (``knocked_out``, ``avoided``): each declares them with one kind and one
    label (``better`` is each experiment's own view), and the first declaration stands.

    Raises
    ------
    ValueError
        If two experiments declare one name with different kinds or labels.
    """
    found: dict[str, Metric] = {}
    for m in (m for e in every_experiment() for m in e.declared):
        first = found.setdefault(m.name, m)
        if (first.kind, first.label) != (m.kind, m.label):
            raise ValueError(f"metric {m.name!r} is declared as {first.kind} "
                             f"{first.label!r} and as {m.kind} {m.label!r}")
    return MappingProxyType(found)


def metric(name: str) -> Metric:
    """The declaration of the metric called ``name``, whichever experiment declares it.

    Raises
    ------
    CompareInputError
        If no experiment declares it (a misspelt name fails where it is read).
    """
    declared = metrics()
    if name not in declared:
        raise CompareInputError(f"no experiment declares a metric {name!r}"
                                + suggest(name, declared))
    return declared[name]


def canonical_metric(name: str) -> str:
    """A metric's name in the one naming scheme: older names (``days_median``,
    ``death_final_emission``) become ``days.median``, ``causes.final_emission``
    (:func:`sim.experiments.naming.canonical_metric`); other names are kept.
    """
    return naming.canonical_metric(name)
