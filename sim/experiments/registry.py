"""The experiments that compare, sweep, tune and report run, by name: the one registry.

Each experiment module defines its metrics once (``Metric`` tuples) and one
:class:`~sim.experiments.base.Experiment` (name, metrics, variant keys,
runner); this module lists them, and every caller (CLI, compare, sweep,
tune, report) looks experiments and metric names up here.
"""

from __future__ import annotations

from sim.experiments import anomaly, campaign_paired, combat, event, naming
from sim.experiments.base import CompareInputError, Experiment

EXPERIMENTS: dict[str, Experiment] = {
    e.name: e for e in (combat.EXPERIMENT, anomaly.EXPERIMENT, event.EXPERIMENT,
                        campaign_paired.EXPERIMENT)
}
"""Every experiment, by name (``combat``, ``anomaly``, ``event``, ``campaign``)."""


def experiment(name: str) -> Experiment:
    """The experiment called ``name``.

    Raises
    ------
    CompareInputError
        If there is none.
    """
    if name not in EXPERIMENTS:
        raise CompareInputError(f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})")
    return EXPERIMENTS[name]


def metric_names(name: str) -> tuple[str, ...]:
    """The metric names of experiment ``name``, in its order."""
    return tuple(m.name for m in experiment(name).metrics)


def canonical_metric(name: str) -> str:
    """A metric's name in the one naming scheme: older names (``days_median``,
    ``death_final_emission``) become ``days.median``, ``causes.final_emission``
    (:func:`sim.experiments.naming.canonical_metric`); other names are kept.
    """
    return naming.canonical_metric(name)
