"""The types every experiment shares: metrics, paired sums, cases and the experiment itself.

An experiment (:mod:`sim.experiments.registry`) names its metrics once, says
which setup keys a variant may set, and runs a list of cases on common random
numbers into :class:`PairedSums`; :mod:`sim.workflows.compare` turns those
into rows with intervals and verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.errors import InputError
from sim.rules import Ruleset

if TYPE_CHECKING:  # pandas takes a fifth of a second to import; an encounter command skips it
    import pandas as pd


class CompareInputError(InputError):
    """A comparison that cannot be run (reported to the user, exit status 2)."""


@dataclass(frozen=True)
class Metric:
    """One per-trial quantity of an experiment.

    Attributes
    ----------
    name : str
        Row key (the names of the single-variant commands' cells).
    kind : str
        ``proportion`` (a 0/1 indicator per trial; Wilson interval when every
        trial value is 0 or 1) or ``mean`` (normal interval).
    better : str or None
        ``higher`` or ``lower`` if a larger value is better or worse for the
        stalker (verdicts ``better``/``worse``); None if neutral
        (verdicts ``higher``/``lower``).
    """

    name: str
    kind: str = "mean"
    better: str | None = None


@dataclass(frozen=True)
class PairedSums:
    """What an experiment returns: per-trial-paired aggregates of V variants.

    Attributes
    ----------
    trials : int
        Number of trials (each trial ran every variant).
    metrics : tuple of Metric
        The M metrics, in the order of the last axis of ``sums``.
    sums : ndarray of float64, shape (V, 4, M)
        Per variant: sum of x, sum of x**2, sum of (x - x_baseline), sum of
        (x - x_baseline)**2 (the last two zero for the baseline).
    exact : ndarray of float64, shape (V, M)
        Exact expectation per variant and metric; NaN where none is known.
    indicator : bool
        Whether every trial value of a ``proportion`` metric is 0 or 1 (one
        card per trial), so the Wilson interval applies.
    """

    trials: int
    metrics: tuple[Metric, ...]
    sums: np.ndarray
    exact: np.ndarray
    indicator: bool = True


@dataclass(frozen=True)
class Case:
    """One variant as an experiment sees it: its ruleset (edits applied) and setup."""

    ruleset: Ruleset
    setup: Mapping[str, Any]


RunFunction = Callable[..., PairedSums]
SweepFunction = Callable[..., "pd.DataFrame"]
"""``(ruleset, params, trials, seed) -> frame``: one sweep grid point's flat result rows."""


@dataclass(frozen=True)
class Experiment:
    """A kind of experiment: its metrics, the setup keys a variant may set, and its runners.

    ``run`` plays cases on common random numbers (compare, tune, report);
    ``sweep_rows`` gives one sweep grid point's tidy rows, whose metric columns
    are ``sweep_metrics`` (each with ``_ci_low``, ``_ci_high``, ``_exact``).

    ``keys`` maps a variant key (``armor``, ``weapon``, ...) to the setup key it
    sets and how its text is read: ``"str"``, ``"list"`` (repeatable, a
    ``none`` empties it), ``"route"`` (a list that names each Secret Complex
    once, P-50), ``"int"`` (0..1000, the range of the command's option and of a
    scenario's policy thresholds), ``"positive"`` (1..1000: starting Health and
    Willpower), ``"rubles"`` (0..10**9, a scenario's ``loadout.rubles``),
    ``"sneak"`` (``always`` or ``never``, as ``--sneak`` and ``policy.sneak``), ``"bool"``
    or ``"optional"`` (``none`` means None).
    """

    name: str
    metrics: tuple[Metric, ...]
    keys: Mapping[str, tuple[str, str]]
    run: RunFunction
    sweep_rows: SweepFunction
    sweep_metrics: tuple[str, ...]
