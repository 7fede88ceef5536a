"""The types every experiment shares: metrics, paired sums, cases and the experiment itself.

An experiment (:mod:`sim.experiments.registry`) names its metrics once, says
which setup keys a variant may set, and runs a list of cases on common random
numbers into :class:`PairedSums`; :mod:`sim.workflows.compare` turns those
into rows with intervals and verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.errors import InputError
from sim.rules import Ruleset

if TYPE_CHECKING:  # pandas takes a fifth of a second to import; an encounter command skips it
    import pandas as pd

    from sim.rules.scenario import Scenario


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
        trial value is 0 or 1), ``mean`` (a count per trial, never below 0; normal
        interval) or ``difference`` (a difference of two shares per trial, -1..1, such as a
        multiplayer game's first-seat advantage; normal interval).
    better : str or None
        ``higher`` or ``lower`` if a larger value is better or worse for the
        stalker (verdicts ``better``/``worse``); None if neutral
        (verdicts ``higher``/``lower``).
    label : str
        The plain words a designer reads beside the name on the report's pages
        (``knocked_out``: "knocked out"); declared here, with the name, so that no
        second list of names keeps them (:func:`sim.report.labels.metric`). Empty:
        the name with its underscores as spaces.
    """

    name: str
    kind: str = "mean"
    better: str | None = None
    label: str = ""


class MetricNames:
    """The names of some :class:`Metric` declarations as attributes, read from them.

    ``COMBAT.knocked_out`` is ``"knocked_out"`` when the combat experiment declares that
    metric, and an ``AttributeError`` naming the declared ones when it does not: a caller
    outside the declaring module (the report, a workflow) takes a metric's name from the
    declaration instead of writing it again as a literal that could drift from it.
    """

    def __init__(self, metrics: Sequence[Metric]) -> None:
        self.__dict__.update({m.name: m.name for m in metrics if m.name.isidentifier()})

    def __getattr__(self, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"no metric {name!r} is declared (known: "
                             f"{', '.join(self.__dict__)})")


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
    cards : PlayedCards, optional
        Each card's own sums, where the run was asked for them (an experiment's
        ``run(..., cards=True)``); None otherwise.
    """

    trials: int
    metrics: tuple[Metric, ...]
    sums: np.ndarray
    exact: np.ndarray
    indicator: bool = True
    cards: PlayedCards | None = None


@dataclass(frozen=True)
class PlayedCards:
    """Each card's own trials of a paired deck run, so that a per-card table reads them
    instead of playing the deck again (issue 45, item 4).

    A deck's trial plays every card on the same streams (:mod:`sim.kernels.paired`), the
    streams the card's single-card kernel plays on the same ``trials`` and ``seed``: the
    per-card sums are that kernel's counts, bit for bit.

    Attributes
    ----------
    trials, seed : int
        The run's.
    sums : mapping
        A fight's key (the experiment's: its compiled card and how it is played) -> ndarray
        (2, M): the sum and the sum of squares of each metric over the trials, unweighted.
    """

    trials: int
    seed: int
    sums: Mapping[Any, np.ndarray]

    def of(self, key: Any, trials: int, seed: int) -> np.ndarray | None:
        """The sums of the card ``key`` played on ``trials`` and ``seed`` (None: not here)."""
        return self.sums.get(key) if (trials, seed) == (self.trials, self.seed) else None


@dataclass(frozen=True)
class Case:
    """One variant as an experiment sees it: its ruleset (edits applied) and setup."""

    ruleset: Ruleset
    setup: Mapping[str, Any]


RunFunction = Callable[..., PairedSums]
SweepFunction = Callable[..., "pd.DataFrame"]
"""``(ruleset, params, trials, seed) -> frame``: one sweep grid point's flat result rows."""
CompileFunction = Callable[[Sequence[Case]], list]
"""``cases -> inputs``: the kernel inputs each case compiles to (arrays, nested in tuples)."""
ScenarioFunction = Callable[["Scenario"], dict[str, Any]]
"""``scenario -> setup``: an experiment's whole base setup from a scenario."""
MetricsFunction = Callable[[Mapping[str, Any]], tuple[Metric, ...]]
"""``setup -> metrics``: the metrics one setup's games give (a multiplayer game's seats)."""


@dataclass(frozen=True)
class Experiment:
    """One experiment, declared once: its metrics, its setup, its runners and compile step.

    ``run`` plays cases on common random numbers (compare, tune, levers, report);
    ``sweep_rows`` gives one sweep grid point's tidy rows, whose metric columns
    are ``sweep_metrics`` (each with ``_ci_low``, ``_ci_high``, ``_exact``).
    Every command and workflow reads what it needs of an experiment here
    (through :mod:`sim.experiments.registry`), so a new experiment is its
    module and one registry line.

    ``keys`` maps a variant key (``armor``, ``weapon``, ...) to the setup key it
    sets and how its text is read: ``"str"``, ``"list"`` (repeatable, a
    ``none`` empties it), ``"route"`` (a list that names each Secret Complex
    once, P-50), ``"int"`` (0..1000, the range of the command's option and of a
    scenario's policy thresholds), ``"positive"`` (1..1000: starting Health and
    Willpower), ``"rubles"`` (0..10**9, a scenario's ``loadout.rubles``),
    ``"sneak"`` (``always`` or ``never``, as ``--sneak`` and ``policy.sneak``), ``"bool"``
    or ``"optional"`` (``none`` means None).

    Attributes
    ----------
    default_metric : str
        The metric ranked, printed or plotted when none is given (``levers``,
        ``sweep``); one of ``metrics``.
    card_key : str or None
        The setup key naming the card an encounter meets (``enemy``: a card or
        ``all``, the deck by count); its command option is ``--<card_key>``.
        None for whole games, which play a scenario instead.
    card_table : str or None
        The ruleset's table of those cards (``enemies``: ``Ruleset.enemies``).
    scenario_keys : tuple of str
        Setup keys an encounter takes from a scenario
        (:func:`sim.experiments.setups.scenario_values`).
    item_effects : frozenset of str or None
        Item effects that act in the encounter (a scenario's other items are
        left out of its setup); None: every item.
    option_keys : tuple of str
        The setup keys a command's options set for it (over a scenario's), in
        the order a setup and a sweep's results record them (a sweep of whole
        games takes its scenario alone).
    from_scenario : callable or None
        The whole base setup from a scenario, for an experiment that plays the
        scenario itself (the campaign) rather than its ``scenario_keys``.
    compile_inputs : callable or None
        The kernel inputs each case compiles to: two rulesets with equal inputs
        play equal games on equal streams, so an edit that leaves them unchanged
        moves no metric (:mod:`sim.workflows.batches`). None: every edit counts
        as a change.
    sweep_only : tuple of Metric
        The columns of ``sweep_metrics`` that are no paired metric (the anomaly's
        draws per search, the campaign's days to a win), declared for their kind and
        words like ``metrics``.
    metrics_of : callable or None
        The metrics ``run`` gives for one base setup, a part of ``metrics`` (a multiplayer
        game of three seats has no fourth seat's win); None: all of ``metrics``.
    """

    name: str
    metrics: tuple[Metric, ...]
    keys: Mapping[str, tuple[str, str]]
    run: RunFunction
    sweep_rows: SweepFunction
    sweep_metrics: tuple[str, ...]
    default_metric: str
    card_key: str | None = None
    card_table: str | None = None
    scenario_keys: tuple[str, ...] = ()
    item_effects: frozenset[str] | None = None
    option_keys: tuple[str, ...] = ()
    from_scenario: ScenarioFunction | None = None
    compile_inputs: CompileFunction | None = None
    sweep_only: tuple[Metric, ...] = ()
    metrics_of: MetricsFunction | None = None

    def played(self, setup: Mapping[str, Any]) -> tuple[Metric, ...]:
        """The metrics ``run`` gives for the base setup ``setup`` (:attr:`metrics_of`)."""
        return self.metrics if self.metrics_of is None else self.metrics_of(setup)

    @property
    def declared(self) -> tuple[Metric, ...]:
        """Every metric the experiment declares: ``metrics``, then ``sweep_only``."""
        return (*self.metrics, *self.sweep_only)

    @property
    def names(self) -> MetricNames:
        """The experiment's metric names as attributes (:class:`MetricNames`)."""
        return MetricNames(self.declared)

    def __post_init__(self) -> None:
        """Refuse a default metric that ``run`` or ``sweep_rows`` does not give, and a sweep
        column that no :class:`Metric` declares (its kind and words would be unknown).
        """
        if not {self.default_metric} <= {m.name for m in self.metrics} & set(self.sweep_metrics):
            raise ValueError(f"{self.name}: the default metric {self.default_metric!r} is not "
                             "one of its metrics")
        undeclared = set(self.sweep_metrics) - {m.name for m in self.declared}
        if undeclared:
            raise ValueError(f"{self.name}: the sweep columns {sorted(undeclared)} are "
                             "declared by no metric (metrics or sweep_only)")
