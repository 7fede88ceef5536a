"""Variants side by side on common random numbers: the library behind ``zonesim compare``.

A *variant* is a set of overrides of a base setup (stalker, armour, weapons,
items, policy) and/or card edits (:mod:`sim.variants`), written
``"armor=SEVA suit;weapon=AK-74;edit=enemies.Bloodsucker.endurance=4"``. An
*experiment* (``combat``, ``anomaly``, ``event``, ``campaign``) runs all
variants on the same trials with the same (seed, trial, purpose) streams and
returns per-trial-paired aggregates (:class:`PairedSums`): per variant the
sums and sums of squares of each metric, and per variant ``v > 0`` the sums of
``x_v - x_0`` and its square. :func:`compare` turns them into tidy rows: each
variant's estimate with its 95 % interval (and exact value where the exact
twin has one), and the paired difference to the baseline (variant 0) with its
interval and a verdict.

Because the variants share their random numbers, the difference of two close
variants has a much smaller variance than that of two independent runs
(``tests/test_compare_crn.py`` measures the ratio).

Deck tables (``--enemy all`` etc.): each trial meets every card of the deck
(each card on the same streams), and the trial's metric is the average over
the deck weighted by card ``count`` (P(knocked out) of "a card drawn from the
deck"). The interval comes from the per-trial deck averages, so it accounts
for the cards sharing their streams; the exact value is the count-weighted
average of the cards' exact values.

Plugging in another experiment: write a function
``run(cases, *, trials, seed, threads) -> PairedSums`` where ``cases`` holds one
:class:`Case` (ruleset with the variant's edits applied, merged setup) per
variant, and register it with :func:`register_experiment` together with its
metrics and the setup keys a variant may override.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sim import runner, stats
from sim.encounter import anomaly as hazards
from sim.encounter import combat as combat_lib
from sim.encounter import tables
from sim.exact.anomaly import OUTCOMES as ANOMALY_OUTCOMES
from sim.exact.anomaly import anomaly_exact
from sim.exact.combat import OUTCOMES as COMBAT_OUTCOMES
from sim.exact.combat import combat_exact
from sim.exact.event import OUTCOMES as EVENT_OUTCOMES
from sim.exact.event import event_exact
from sim.kernels import paired
from sim.rules import Ruleset
from sim.targets import Target, judge_rows
from sim.variants import VariantError, apply_edits

BASELINE = "baseline"
NO_DIFFERENCE = "no detectable difference"
ROW_KEYS = ("variant", "metric", "mc", "ci_low", "ci_high", "exact", "diff", "diff_ci_low",
            "diff_ci_high", "diff_exact", "verdict")
"""Keys of a comparison row, in order (``target``/``target_verdict`` follow with targets)."""


class CompareInputError(ValueError):
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


@dataclass(frozen=True)
class Experiment:
    """A kind of comparison: its metrics, the setup keys a variant may set, and its runner.

    ``keys`` maps a variant key (``armor``, ``weapon``, ...) to the setup key it
    sets and how its text is read: ``"str"``, ``"list"`` (repeatable, a
    ``none`` empties it), ``"int"``, ``"bool"`` or ``"optional"`` (``none``
    means None).
    """

    name: str
    metrics: tuple[Metric, ...]
    keys: Mapping[str, tuple[str, str]]
    run: RunFunction


EXPERIMENTS: dict[str, Experiment] = {}


def register_experiment(experiment: Experiment) -> None:
    """Make ``experiment`` available to :func:`compare` and :func:`sim.tune.tune`."""
    EXPERIMENTS[experiment.name] = experiment


def experiment(name: str) -> Experiment:
    """The registered experiment called ``name``.

    Raises
    ------
    CompareInputError
        If there is none.
    """
    if name not in EXPERIMENTS:
        raise CompareInputError(f"unknown experiment {name!r} (known: {', '.join(EXPERIMENTS)})")
    return EXPERIMENTS[name]


# --- variants ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """Overrides of the base setup and card edits.

    Attributes
    ----------
    label : str
        Name in the results (default: the spec text, or ``base``).
    overrides : tuple of (str, object)
        Setup key and value, applied in order.
    edits : tuple of str
        Card edits ``table.card.column=value`` (:mod:`sim.variants`).
    """

    label: str = "base"
    overrides: tuple[tuple[str, object], ...] = ()
    edits: tuple[str, ...] = ()

    def setup(self, base: Mapping[str, object]) -> dict:
        """The base setup with this variant's overrides."""
        out = dict(base)
        out.update(self.overrides)
        return out


def parse_variant(text: str, exp: Experiment, label: str | None = None) -> Variant:
    """Parse ``key=value;key=value;...`` into a :class:`Variant` for ``exp``.

    Keys are those of ``exp.keys`` plus ``edit`` (repeatable card edit) and
    ``label``. Repeating a list key (``weapon``, ``item``) adds to the list;
    the first occurrence replaces the base setup's list. An empty text is the
    base setup itself.

    Raises
    ------
    CompareInputError
        Unknown keys or values that are not of the key's type.
    """
    overrides: dict[str, object] = {}
    edits: list[str] = []
    name = label
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key, value = key.strip().replace("-", "_"), value.strip()
        if not eq:
            raise CompareInputError(f"variant {text!r}: {part!r} is not key=value")
        if key == "edit":
            edits.append(value)
        elif key == "label":
            name = value
        elif key in exp.keys:
            target, kind = exp.keys[key]
            overrides[target] = _read(text, key, kind, value, overrides.get(target))
        else:
            known = ", ".join(sorted((*exp.keys, "edit", "label")))
            raise CompareInputError(f"variant {text!r}: unknown key {key!r} for "
                                    f"{exp.name} (known: {known})")
    return Variant(name or text.strip() or "base", tuple(overrides.items()), tuple(edits))


def _read(text: str, key: str, kind: str, value: str, previous: object) -> object:
    if kind == "list":
        if value.lower() == "none":
            return ()
        return (*(previous if isinstance(previous, tuple) else ()), value)
    if kind == "optional":
        return None if value.lower() == "none" else value
    if kind == "int":
        try:
            return int(value)
        except ValueError:
            raise CompareInputError(f"variant {text!r}: {key}={value!r} is not an integer") \
                from None
    if kind == "bool":
        if value.lower() in ("1", "true", "yes"):
            return True
        if value.lower() in ("0", "false", "no"):
            return False
        raise CompareInputError(f"variant {text!r}: {key}={value!r} is not true or false")
    return value


def cases(rs: Ruleset, base: Mapping[str, object], variants: Sequence[Variant]) -> list[Case]:
    """One :class:`Case` per variant: edits applied to ``rs``, overrides to ``base``.

    Raises
    ------
    CompareInputError
        An edit that cannot be applied (the message names the variant).
    """
    out = []
    for variant in variants:
        try:
            ruleset = apply_edits(rs, variant.edits)
        except VariantError as error:
            raise CompareInputError(f"variant {variant.label!r}: {error}") from None
        out.append(Case(ruleset, variant.setup(base)))
    return out


# --- shaping results --------------------------------------------------------------------------


def verdict(metric: Metric, diff: float, low: float, high: float) -> str:
    """``no detectable difference`` if the interval spans 0, else the direction.

    The direction is ``better``/``worse`` for a metric with a preferred
    direction and ``higher``/``lower`` for a neutral one.
    """
    if low <= 0.0 <= high:
        return NO_DIFFERENCE
    up = diff > 0
    if metric.better is None:
        return "higher" if up else "lower"
    return "better" if up == (metric.better == "higher") else "worse"


def _none_if_nan(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def paired_rows(result: PairedSums, labels: Sequence[str],
                metrics: Sequence[str] | None = None) -> list[dict]:
    """Tidy rows (keys :data:`ROW_KEYS`), one per variant and metric, variants in order.

    Parameters
    ----------
    result : PairedSums
        An experiment's aggregates; variant 0 is the baseline.
    labels : sequence of str
        Variant names, length V.
    metrics : sequence of str, optional
        Metric names to keep (default: all, in the experiment's order).
    """
    names = [m.name for m in result.metrics]
    chosen = names if metrics is None else list(metrics)
    n = result.trials
    rows = []
    for v, label in enumerate(labels):
        for name in chosen:
            m = names.index(name)
            metric = result.metrics[m]
            s, s2, d, d2 = (float(x) for x in result.sums[v, :, m])
            exact = _none_if_nan(result.exact[v, m])
            if metric.kind == "proportion" and result.indicator:
                cell = tables.proportion(round(s), n, exact)
            else:
                cell = tables.mean(s, s2, n, exact)
            row = {"variant": label, "metric": name, **cell}
            if v == 0:
                row.update(diff=0.0, diff_ci_low=0.0, diff_ci_high=0.0,
                           diff_exact=None if exact is None else 0.0, verdict=BASELINE)
            else:
                diff, low, high = stats.mean_interval(d, d2, n)
                base_exact = _none_if_nan(result.exact[0, m])
                row.update(diff=diff, diff_ci_low=low, diff_ci_high=high,
                           diff_exact=None if exact is None or base_exact is None
                           else exact - base_exact,
                           verdict=verdict(metric, diff, low, high))
            rows.append(row)
    return rows


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`: tidy rows plus provenance.

    Attributes
    ----------
    experiment : str
        ``combat``, ``anomaly``, ``event``, ...
    trials, seed : int
        The run's trials and seed (every variant on the same streams).
    setup : dict
        The base setup.
    variants : tuple of dict
        ``{"label", "overrides", "edits"}`` per variant; the first is the baseline.
    rows : tuple of dict
        Keys :data:`ROW_KEYS` (and ``target``, ``target_verdict`` with targets).
    ruleset : str
        SHA-256 of the base ruleset.
    targets : tuple of str
        The balance targets judged, as written.
    """

    experiment: str
    trials: int
    seed: int
    setup: dict
    variants: tuple[dict, ...]
    rows: tuple[dict, ...]
    ruleset: str = ""
    targets: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON document: provenance, ``baseline``, ``variants`` and ``rows``."""
        return {"experiment": self.experiment, "trials": self.trials, "seed": self.seed,
                "ruleset_sha256": self.ruleset, "setup": self.setup,
                "baseline": self.variants[0]["label"], "variants": list(self.variants),
                "targets": list(self.targets), "rows": list(self.rows)}

    def to_frame(self) -> pd.DataFrame:
        """One flat row per (variant, metric)."""
        return pd.DataFrame(list(self.rows))

    def to_table(self) -> pd.DataFrame:
        """Readable rows: ``estimate ±half-width (exact)`` and the difference likewise."""
        out = []
        for r in self.rows:
            row = {"variant": r["variant"], "metric": r["metric"],
                   "estimate": _text(r["mc"], r["ci_low"], r["ci_high"], r["exact"]),
                   "diff": "" if r["verdict"] == BASELINE else
                   _text(r["diff"], r["diff_ci_low"], r["diff_ci_high"], r["diff_exact"],
                         signed=True),
                   "verdict": r["verdict"]}
            if "target_verdict" in r:
                row["target"] = r["target_verdict"] or ""
            out.append(row)
        return pd.DataFrame(out)


def _text(mc, low, high, exact, signed: bool = False) -> str:
    text = f"{mc:+.4f}" if signed else f"{mc:.4f}"
    if low is not None and high is not None:
        text += f" ±{(high - low) / 2:.4f}"
    if exact is not None:
        text += f" ({exact:+.4f})" if signed else f" ({exact:.4f})"
    return text


def compare(name: str, rs: Ruleset, base: Mapping[str, object], variants: Sequence[Variant],
            *, trials: int, seed: int, threads: int | None = None,
            metrics: Sequence[str] | None = None,
            targets: Sequence[Target] = ()) -> Comparison:
    """Run ``variants`` of a base setup on common random numbers and tabulate them.

    Parameters
    ----------
    name : str
        Experiment name (``combat``, ``anomaly``, ``event``).
    rs : Ruleset
        The base ruleset; each variant's edits are applied to it.
    base : mapping
        Base setup (the experiment's keys, e.g. ``stalker``, ``enemy``, ``armor``).
    variants : sequence of Variant
        At least one; the first is the baseline.
    trials, seed, threads :
        As for every command; results do not depend on ``threads``.
    metrics : sequence of str, optional
        Metrics to report (default all).
    targets : sequence of Target
        Balance targets; rows of their metrics get a ``target_verdict`` (their
        metrics are added to ``metrics``).

    Raises
    ------
    CompareInputError
        Unknown metrics, bad edits, or cards the experiment cannot run.
    """
    exp = experiment(name)
    if not variants:
        raise CompareInputError("give at least one variant")
    labels = [v.label for v in variants]
    if len(set(labels)) != len(labels):
        raise CompareInputError(f"variant labels must differ (got {labels}); "
                                "name them with label=...")
    known = [m.name for m in exp.metrics]
    for metric in (*(metrics or ()), *(t.metric for t in targets)):
        if metric not in known:
            raise CompareInputError(f"unknown metric {metric!r} for {name} "
                                    f"(known: {', '.join(known)})")
    if metrics:  # a target's metric is reported even when not asked for
        metrics = [*metrics, *(t.metric for t in targets if t.metric not in metrics)]
    result = exp.run(cases(rs, base, variants), trials=trials, seed=seed, threads=threads)
    rows = paired_rows(result, labels, metrics)
    if targets:
        rows = judge_rows(targets, rows)
    described = tuple({"label": v.label, "overrides": dict(v.overrides), "edits": list(v.edits)}
                      for v in variants)
    return Comparison(name, trials, seed, dict(base), described, tuple(rows), rs.sha256,
                      tuple(str(t) for t in targets))


# --- encounter experiments --------------------------------------------------------------------


def _deck(table: Mapping, names: Sequence[str], which: str) -> list[tuple[str, float]]:
    """``(card, weight)``: one card with weight 1, or a deck weighted by ``count``."""
    if which != "all":
        return [(which, 1.0)]
    total = sum(table[n].count for n in names)
    if total <= 0:
        raise CompareInputError("the deck has no cards (every count is 0)")
    return [(n, table[n].count / total) for n in names if table[n].count > 0]


def _pad(arrays: list[list[np.ndarray]], dtype=np.int64) -> np.ndarray:
    """Stack a V x K grid of arrays into one zero-padded array (V, K, *max shape)."""
    shape = np.max([a.shape for row in arrays for a in row], axis=0)
    n_cards = max(len(row) for row in arrays)
    out = np.zeros((len(arrays), n_cards, *shape), dtype=dtype)
    for v, row in enumerate(arrays):
        for k, a in enumerate(row):
            out[(v, k, *(slice(0, s) for s in a.shape))] = a
    return out


def _weights(decks: list[list[tuple[str, float]]]) -> np.ndarray:
    out = np.zeros((len(decks), max(len(d) for d in decks)), dtype=np.float64)
    for v, deck in enumerate(decks):
        out[v, : len(deck)] = [w for _, w in deck]
    return out


def _exact(per_card: list[list[np.ndarray]], decks, n_metrics: int) -> np.ndarray:
    out = np.zeros((len(decks), n_metrics))
    for v, deck in enumerate(decks):
        for (_, w), values in zip(deck, per_card[v], strict=True):
            out[v] += w * values[:n_metrics]
    return out


def _run_paired(kernel, width: int, trials: int, seed: int, threads, *params) -> np.ndarray:
    n_var = params[-1].shape[0]  # the weights come last
    return runner.run_counts(kernel, seed, trials, (n_var, paired.N_SUMS, width), *params,
                             threads=threads, dtype=np.float64)


_NO_EXACT = np.full(max(paired.COMBAT_METRICS, paired.ANOMALY_METRICS, paired.EVENT_METRICS),
                    np.nan)


def _single(decks) -> bool:
    return all(len(d) == 1 and d[0][1] == 1.0 for d in decks)


COMBAT_METRICS: tuple[Metric, ...] = (
    Metric("avoided", "proportion", "higher"),
    Metric("killed", "proportion", None),
    Metric("fled", "proportion", None),
    Metric("knocked_out", "proportion", "lower"),
    Metric("capped", "proportion", None),
    Metric("mean_wounds", "mean", "lower"),
    Metric("mean_rounds", "mean", None),
    Metric("armor_destroyed", "proportion", "lower"),
    Metric("mean_stimulants", "mean", None),
    Metric("mean_limited_spent", "mean", None),
)
"""Combat metrics (the cells of ``zonesim combat``); outcomes sum to 1."""
assert tuple(m.name for m in COMBAT_METRICS[:5]) == COMBAT_OUTCOMES
assert len(COMBAT_METRICS) == paired.COMBAT_METRICS


def combat_inputs(cases: Sequence[Case], exact: bool = True
                  ) -> tuple[tuple[np.ndarray, ...], np.ndarray, bool]:
    """Kernel arguments of :func:`paired.paired_combat_kernel` for ``cases``.

    Returns
    -------
    tuple
        ``(args, exact, indicator)``: the arrays from ``params`` to
        ``weights``; exact values (V, M), NaN without ``exact``; whether every
        case is a single card.
    """
    decks, packs, exacts = [], [], []
    for case in cases:
        s, rs = case.setup, case.ruleset
        names = combat_lib.deck_names(rs, str(s["enemy"]))
        deck = _deck(rs.enemies, names, str(s["enemy"]))
        policy = combat_lib.CombatPolicy(sneak=str(s.get("sneak", "always")),
                                         flee_at=int(s.get("flee_at", 0)),
                                         heal_at=int(s.get("heal_at", 0)))
        specs = []
        for enemy, _ in deck:
            try:
                specs.append(combat_lib.compile_combat(
                    rs, str(s["stalker"]), enemy, s.get("armor"),
                    tuple(s.get("weapons", ())), tuple(s.get("items", ())),
                    policy))
            except combat_lib.CombatInputError as error:
                raise CompareInputError(str(error)) from None
        decks.append(deck)
        packs.append([sp.pack() for sp in specs])
        exacts.append([_combat_exact(sp) if exact else _NO_EXACT for sp in specs])
    params, stims, uses, bonus, spend = (
        _pad([[p[i] for p in row] for row in packs]) for i in range(5))
    n_stims = np.asarray([[len(p[1]) - 1 for p in row] + [0] * (params.shape[1] - len(row))
                          for row in packs], dtype=np.int64)
    args = (params, n_stims, stims, uses, bonus, spend, _weights(decks))
    return args, _exact(exacts, decks, paired.COMBAT_METRICS), _single(decks)


def run_combat(cases: Sequence[Case], *, trials: int, seed: int, exact: bool = True,
               threads: int | None = None) -> PairedSums:
    """Fights (P-14..P-29, Z-12..Z-17) of every case on common random numbers.

    Setup keys: ``stalker``, ``enemy`` (a card or ``all``), ``armor``,
    ``weapons``, ``items``, ``sneak``, ``flee_at``, ``heal_at``. ``exact=False``
    skips the exact twin (NaN exact values; faster for many short runs).
    """
    args, exact_values, indicator = combat_inputs(cases, exact)
    sums = _run_paired(paired.paired_combat_kernel, paired.COMBAT_METRICS, trials, seed,
                       threads, *args)
    return PairedSums(trials, COMBAT_METRICS, sums, exact_values, indicator)


def _combat_exact(spec) -> np.ndarray:
    e = combat_exact(spec)
    return np.asarray([*(e.outcomes[o] for o in COMBAT_OUTCOMES), e.mean_wounds, e.mean_rounds,
                       e.p_destroyed, e.mean_stimulants, e.mean_limited_spent], dtype=float)


ANOMALY_METRICS: tuple[Metric, ...] = (
    Metric("avoided", "proportion", None),
    Metric("unharmed", "proportion", "higher"),
    Metric("damaged", "proportion", "lower"),
    Metric("knocked_out", "proportion", "lower"),
    Metric("artifact", "proportion", "higher"),
    Metric("trophy", "proportion", "higher"),
    Metric("deformation", "proportion", "lower"),
    Metric("perceived", "proportion", None),
    Metric("mean_loss", "mean", "lower"),
    Metric("armor_destroyed", "proportion", "lower"),
)
"""Anomaly metrics (cells of ``zonesim anomaly``; outcomes sum to 1)."""
assert tuple(m.name for m in ANOMALY_METRICS[:4]) == ANOMALY_OUTCOMES
assert len(ANOMALY_METRICS) == paired.ANOMALY_METRICS


def _state(s: Mapping[str, Any]) -> hazards.StartState:
    return hazards.StartState(health=s.get("health"), willpower=s.get("willpower"),
                              radiation=int(s.get("radiation", 0)),
                              tokens=int(s.get("tokens", 0)))


def run_anomaly(cases: Sequence[Case], *, trials: int, seed: int, exact: bool = True,
                threads: int | None = None) -> PairedSums:
    """Anomaly encounters (P-30..P-36) of every case on common random numbers.

    Setup keys: ``stalker``, ``anomaly`` (a card or ``all``), ``armor``,
    ``items`` (refused: no item acts inside an anomaly), ``enter``,
    ``health``, ``willpower``, ``radiation``, ``tokens``. ``exact=False``
    skips the exact twin (NaN exact values; faster for many short runs).
    """
    decks, packs, exacts = [], [], []
    for case in cases:
        s, rs = case.setup, case.ruleset
        which = str(s["anomaly"])
        if which != "all" and which not in rs.anomalies:
            raise CompareInputError(f"unknown anomaly {which!r} (known: {', '.join(rs.anomalies)})")
        deck = _deck(rs.anomalies, hazards.anomaly_names(rs, which), which)
        specs = []
        for name, _ in deck:
            try:
                specs.append(hazards.compile_anomaly(
                    rs, str(s["stalker"]), name, s.get("armor"),
                    tuple(s.get("items", ())), enter=bool(s.get("enter", False)),
                    state=_state(s)))
            except hazards.HazardInputError as error:
                raise CompareInputError(str(error)) from None
        decks.append(deck)
        packs.append([sp.pack() for sp in specs])
        exacts.append([_anomaly_exact(sp) if exact else _NO_EXACT for sp in specs])
    params, deck_arr = (_pad([[p[i] for p in row] for row in packs]) for i in range(2))
    weights = _weights(decks)
    sums = _run_paired(paired.paired_anomaly_kernel, paired.ANOMALY_METRICS, trials, seed,
                       threads, params, deck_arr, weights)
    return PairedSums(trials, ANOMALY_METRICS, sums,
                      _exact(exacts, decks, paired.ANOMALY_METRICS), _single(decks))


def _anomaly_exact(spec) -> np.ndarray:
    e = anomaly_exact(spec)
    return np.asarray([*(e.outcomes[o] for o in ANOMALY_OUTCOMES), e.artifact, e.trophy,
                       e.deformation, e.perceived, e.mean_loss, e.armor_destroyed], dtype=float)


EVENT_METRICS: tuple[Metric, ...] = (
    Metric("avoided", "proportion", "higher"),
    Metric("happened", "proportion", "lower"),
    Metric("knocked_out", "proportion", "lower"),
    Metric("deformation", "proportion", "lower"),
    Metric("health_lost", "mean", "lower"),
    Metric("radiation", "mean", "lower"),
    Metric("psi", "mean", "lower"),
    Metric("days_lost", "mean", "lower"),
    Metric("emission_tokens", "mean", "lower"),
    Metric("armor_destroyed", "proportion", "lower"),
)
"""Event metrics (cells of ``zonesim event``; outcomes sum to 1)."""
assert tuple(m.name for m in EVENT_METRICS[:3]) == EVENT_OUTCOMES
assert len(EVENT_METRICS) == paired.EVENT_METRICS


def run_event(cases: Sequence[Case], *, trials: int, seed: int, exact: bool = True,
              threads: int | None = None) -> PairedSums:
    """Event draws (Z-08..Z-10) of every case on common random numbers.

    Setup keys: ``stalker``, ``event`` (a card or ``all``), ``armor``, ``items``
    (``event_avoid`` only; the best counts, Z-10), ``health``, ``willpower``,
    ``radiation``, ``tokens``. ``exact=False`` skips the exact twin.
    """
    decks, packs, exacts = [], [], []
    for case in cases:
        s, rs = case.setup, case.ruleset
        which = str(s["event"])
        if which != "all" and which not in rs.events:
            raise CompareInputError(f"unknown event {which!r} (known: {', '.join(rs.events)})")
        deck = _deck(rs.events, hazards.event_names(rs, which), which)
        specs = []
        for name, _ in deck:
            try:
                specs.append(hazards.compile_event(
                    rs, str(s["stalker"]), name, s.get("armor"),
                    tuple(s.get("items", ())), state=_state(s)))
            except hazards.HazardInputError as error:
                raise CompareInputError(str(error)) from None
        decks.append(deck)
        packs.append([sp.pack() for sp in specs])
        exacts.append([_event_exact(sp) if exact else _NO_EXACT for sp in specs])
    params = _pad(packs)
    weights = _weights(decks)
    sums = _run_paired(paired.paired_event_kernel, paired.EVENT_METRICS, trials, seed,
                       threads, params, weights)
    return PairedSums(trials, EVENT_METRICS, sums,
                      _exact(exacts, decks, paired.EVENT_METRICS), _single(decks))


def _event_exact(spec) -> np.ndarray:
    e = event_exact(spec)
    return np.asarray([*(e.outcomes[o] for o in EVENT_OUTCOMES), e.deformation,
                       e.health_lost, e.radiation, e.psi, e.days_lost, e.emission_tokens,
                       e.armor_destroyed], dtype=float)


_LOADOUT = {"stalker": ("stalker", "str"), "armor": ("armor", "optional"),
            "item": ("items", "list")}
_STATE = {"health": ("health", "int"), "willpower": ("willpower", "int"),
          "radiation": ("radiation", "int"), "tokens": ("tokens", "int")}

register_experiment(Experiment(
    "combat", COMBAT_METRICS,
    {**_LOADOUT, "enemy": ("enemy", "str"), "weapon": ("weapons", "list"),
     "sneak": ("sneak", "str"), "flee_at": ("flee_at", "int"), "heal_at": ("heal_at", "int")},
    run_combat))
register_experiment(Experiment(
    "anomaly", ANOMALY_METRICS,
    {**_LOADOUT, "anomaly": ("anomaly", "str"), "enter": ("enter", "bool"), **_STATE},
    run_anomaly))
register_experiment(Experiment(
    "event", EVENT_METRICS, {**_LOADOUT, "event": ("event", "str"), **_STATE}, run_event))

# The campaign experiment lives with the campaign (sim/campaign/compare.py) and registers
# itself; imported last because it builds on this module.
from sim.campaign import compare as _campaign_experiment  # noqa: E402, F401

__all__ = ["BASELINE", "EXPERIMENTS", "NO_DIFFERENCE", "ROW_KEYS", "Case", "CompareInputError",
           "Comparison", "Experiment", "Metric", "PairedSums", "Variant", "cases", "compare",
           "experiment", "paired_rows", "parse_variant", "register_experiment", "run_anomaly",
           "run_combat", "run_event", "verdict"]
