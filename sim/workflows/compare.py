"""Variants side by side on common random numbers: the library behind ``zonesim compare``.

A *variant* is a set of overrides of a base setup (stalker, armour, weapons,
items, policy) and/or card edits (:mod:`sim.rules.variants`), written
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
(``tests/workflows/test_compare_crn.py`` measures the ratio).

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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sim import stats
from sim.experiments import policy_keys, tables
from sim.experiments.base import (
    Case,
    CompareInputError,
    Experiment,
    Metric,
    PairedSums,
    PlayedCards,
)
from sim.experiments.tables import cell_text
from sim.kernels.paired import AGGREGATE
from sim.rules import Ruleset, load_ruleset
from sim.rules.scenario import (
    MAX_RUBLES,
    MAX_THRESHOLD,
    ROUTE_TWICE,
    use_level,
)
from sim.rules.validate import MAX_DIGITS, show
from sim.rules.variants import VariantError, apply_edits
from sim.workflows.prices import loadout_price, money_variants, priced_rows, wealth
from sim.workflows.targets import Target, judge_rows

BASELINE = "baseline"
REFERENCE = "reference"
"""Verdict of the variant the differences are taken to under ``against``."""
NO_DIFFERENCE = "no detectable difference"
NO_GAME_CHANGED = "no game changed"
"""Verdict of a variant whose every paired trial gave the baseline's value of the metric
(:func:`no_game_changed`): it does not act in these games, which no interval can say."""
_INT = re.compile(r"[+-]?\d+")
ROW_KEYS = ("variant", "metric", "mc", "ci_low", "ci_high", "exact", "diff", "diff_ci_low",
            "diff_ci_high", "diff_exact", "verdict")
"""Keys of a comparison row, in order (``target``/``target_verdict`` follow with targets)."""


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
        Card edits ``table.card.column=value`` (:mod:`sim.rules.variants`).
    rules : str or None
        A ruleset folder (relative to the current directory) that this variant
        plays instead of the comparison's ruleset, its edits applied on top:
        the "copy the folder, change a value" workflow. None: the comparison's.
    changes : tuple of (str, str, str, str)
        Loadout edits ``(key, setup key, op, card)`` applied in order after
        the overrides (``key`` as the variant names it, e.g. ``item`` for the
        setup key ``items``): op ``+`` adds one copy of the card to the base
        setup's list (``item+=Jetpack``), ``-`` removes one (``item-=Medkit``).
    replaces : tuple of (str, str)
        ``(key, setup key)`` of each list a bare singular key (``item=NAME``)
        replaced: the output says so (:func:`describe`).
    cash_of : str or None
        The label of the variant this one is the cash equivalent of
        (``--cash-equivalent``, :func:`sim.workflows.prices.cash_variants`).
    """

    label: str = "base"
    overrides: tuple[tuple[str, object], ...] = ()
    edits: tuple[str, ...] = ()
    rules: str | None = None
    changes: tuple[tuple[str, str, str, str], ...] = ()
    replaces: tuple[tuple[str, str], ...] = ()
    cash_of: str | None = None

    def setup(self, base: Mapping[str, object]) -> dict:
        """The base setup with this variant's overrides, then its loadout edits.

        Raises
        ------
        CompareInputError
            ``key-=NAME`` for a card the list does not hold (naming what it holds).
        """
        out = dict(base)
        out.update(self.overrides)
        for key, target, op, name in self.changes:
            held = tuple(out.get(target) or ())
            if op == ADD:
                out[target] = (*held, name)
            elif name not in held:
                raise CompareInputError(
                    f"variant {self.label!r}: {key}-={name}: the loadout holds no "
                    f"{name!r} (its {target}: {', '.join(held) or 'none'})")
            else:
                i = held.index(name)
                out[target] = held[:i] + held[i + 1:]
        return out


ADD, REMOVE = "+", "-"
"""Loadout edit ops of :attr:`Variant.changes`: ``key+=NAME`` and ``key-=NAME``."""
LIST_NOTE = ("{key}={name} replaces the loadout's {target} ({was}); "
             "{key}+=NAME adds one, {key}-=NAME removes one")
"""What a variant's description says when a bare list key replaced a non-empty list."""


def _plurals(exp: Experiment) -> dict[str, str]:
    """``items`` -> ``item``: the setup key of each list key that is named in the singular."""
    return {target: key for key, (target, kind) in exp.keys.items()
            if kind == "list" and target != key}


def parse_variant(text: str, exp: Experiment, label: str | None = None) -> Variant:
    """Parse ``key=value;key=value;...`` into a :class:`Variant` for ``exp``.

    Keys are those of ``exp.keys`` plus ``edit`` (repeatable card edit),
    ``rules`` (a ruleset folder played instead of the comparison's) and
    ``label``. A list key edits the loadout: ``item+=NAME`` adds one card to
    the base setup's list, ``item-=NAME`` removes one, ``items=A,B`` (the
    plural, commas between cards; ``none``: empty) replaces the list. A bare
    ``item=NAME`` replaces it too, its first occurrence the base list and
    each repeat adding one, and the description says it "replaces the
    loadout's items" (:func:`describe`). An empty text is the base setup itself.

    Raises
    ------
    CompareInputError
        Unknown keys, values that are not of the key's type, integers outside
        the key's range (:data:`INT_KINDS`, as the option or scenario key) and
        a Secret Complex named twice in a route.
    """
    overrides: dict[str, object] = {}
    edits: list[str] = []
    changes: list[tuple[str, str, str, str]] = []
    replaces: list[tuple[str, str]] = []
    rules = None
    name = label
    plurals = _plurals(exp)
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        op = key[-1] if key.endswith((ADD, REMOVE)) else None
        key = (key[:-1] if op else key).strip().replace("-", "_")
        if not eq:
            raise CompareInputError(f"variant {text!r}: {part!r} is not key=value")
        if op is not None:
            target, kind = exp.keys.get(key, (None, None))
            lists = ", ".join(k for k, (_, kd) in exp.keys.items() if kd == "list")
            if kind != "list":
                raise CompareInputError(f"variant {text!r}: {key}{op}= edits a list: one of "
                                        f"{lists}")
            if not value or value.lower() == "none":
                raise CompareInputError(f"variant {text!r}: {key}{op}= needs a card name")
            changes.append((key, target, op, value))
        elif key in plurals:
            cards = tuple(c.strip() for c in value.split(",") if c.strip())
            overrides[key] = () if [c.lower() for c in cards] == ["none"] else cards
        elif key == "edit":
            edits.append(value)
        elif key == "label":
            name = value
        elif key == "rules":
            if not value:
                raise CompareInputError(f"variant {text!r}: rules= needs a ruleset folder")
            rules = value
        elif key in exp.keys:
            target, kind = exp.keys[key]
            if kind == "list" and target in plurals and target not in overrides:
                replaces.append((key, target))
            overrides[target] = _read(text, key, kind, value, overrides.get(target))
        else:
            known = ", ".join(sorted((*exp.keys, *plurals, "edit", "label", "rules")))
            raise CompareInputError(f"variant {text!r}: unknown key {key!r} for "
                                    f"{exp.name} (known: {known})")
    return Variant(name or text.strip() or "base", tuple(overrides.items()), tuple(edits),
                   rules, tuple(changes), tuple(replaces))


INT_KINDS = {"int": (0, MAX_THRESHOLD), "positive": (1, MAX_THRESHOLD), "rubles": (0, MAX_RUBLES)}
"""Range of each integer kind of variant value (:class:`~sim.experiments.base.Experiment`):
those of the command's options (``--heal-at``, ``--intellect``: 0..1000; ``--health``:
1..1000) and of a scenario's keys (``policy.heal_at``, ``loadout.rubles``)."""


CHOICES = policy_keys.CHOICES
"""The values of each choice kind of variant value: every ``str`` field of the policy is a
choice kind named as its setup key (:data:`sim.experiments.policy_keys.CHOICES`)."""


def _read(text: str, key: str, kind: str, value: str, previous: object) -> object:
    """The value of one ``key=value`` of variant ``text``, checked as its option would be.

    Integers are in the range of their kind (:data:`INT_KINDS`), as the
    command's option and the scenario's key take them; a route names each
    Secret Complex once (P-50), as ``policy.route`` does.
    """
    if kind in ("list", "route"):
        if value.lower() == "none":
            return ()
        before = previous if isinstance(previous, tuple) else ()
        if kind == "route" and value in before:
            raise CompareInputError(f"variant {text!r}: key '{key}': {show(value)} {ROUTE_TWICE}")
        return (*before, value)
    if kind == "optional":
        return None if value.lower() == "none" else value
    if kind == "artifact_use":
        return _artifact_use(text, key, value, previous)
    if kind in CHOICES and value not in CHOICES[kind]:
        raise CompareInputError(f"variant {text!r}: key '{key}': {show(value)} is not one of "
                                f"{', '.join(CHOICES[kind])}")
    if kind in INT_KINDS:
        lo, hi = INT_KINDS[kind]
        if not _INT.fullmatch(value):
            raise CompareInputError(f"variant {text!r}: key '{key}': {show(value)} is not an "
                                    "integer")
        if len(value.lstrip("+-")) > MAX_DIGITS or not lo <= int(value) <= hi:
            raise CompareInputError(f"variant {text!r}: key '{key}': {show(value)} is not in "
                                    f"{lo}..{hi}")
        return int(value)
    if kind == "bool":
        if value.lower() in ("1", "true", "yes"):
            return True
        if value.lower() in ("0", "false", "no"):
            return False
        raise CompareInputError(f"variant {text!r}: {key}={value!r} is not true or false")
    return value


def _artifact_use(text: str, key: str, value: str, previous: object) -> tuple:
    """One ``artifact_use=NAME:USE`` of a variant (``policy.artifact_use``, P-08): ``USE`` is
    ``always``, ``never`` or a Health of 1 or more; repeats set more artefacts, ``none``
    empties the table. As the :class:`~sim.rules.scenario.Policy` field holds it.
    """
    if value.lower() == "none":
        return ()
    name, colon, use = (part.strip() for part in value.rpartition(":"))
    table = dict(previous) if isinstance(previous, tuple) else {}
    if not colon or not name:
        raise CompareInputError(f"variant {text!r}: key '{key}': {show(value)} is not "
                                "NAME:always, NAME:never or NAME:HEALTH")
    number = _INT.fullmatch(use) and len(use.lstrip("+-")) <= MAX_DIGITS
    try:
        level = use_level(int(use) if number else use)
    except ValueError as error:
        raise CompareInputError(f"variant {text!r}: key '{key}': {show(use)} {error}") from None
    table.pop(name, None)
    if level is not None:
        table[name] = level
    return tuple(sorted(table.items()))


def cases(rs: Ruleset, base: Mapping[str, object], variants: Sequence[Variant]) -> list[Case]:
    """One :class:`Case` per variant: edits applied to ``rs``, overrides to ``base``.

    A variant with ``rules`` plays that folder's ruleset (loaded and validated
    like any ruleset, each folder once) with its edits applied.

    Every variant is checked before any plays: an edit that cannot be
    applied, and a card, location or Secret Complex its setup names that its
    ruleset lacks (:func:`unknown_names`: a ``rules`` folder without an item the
    scenario's loadout or policy names), all of them at once.

    Raises
    ------
    CompareInputError
        An edit that cannot be applied, or names the ruleset lacks (the
        message names the variant, its ruleset and each name).
    RulesetError
        A ``rules`` folder that is missing or invalid (every problem, with
        file, line and column).
    """
    out = []
    folders: dict[str, Ruleset] = {}
    missing = []
    for variant in variants:
        if variant.rules is not None and variant.rules not in folders:
            folders[variant.rules] = load_ruleset(Path(variant.rules))
        start = rs if variant.rules is None else folders[variant.rules]
        try:
            ruleset = apply_edits(start, variant.edits)
        except VariantError as error:
            raise CompareInputError(f"variant {variant.label!r}: {error}") from None
        setup = variant.setup(base)
        missing += [f"variant {variant.label!r}: ruleset {str(start.path)!r} has no {what}"
                    for what in unknown_names(ruleset, setup)]
        out.append(Case(ruleset, setup))
    if missing:
        raise CompareInputError("; ".join(missing), "variant")
    return out


def unknown_names(rs: Ruleset, setup: Mapping[str, object]) -> list[str]:
    """Each card, location or Secret Complex ``setup`` names that ``rs`` lacks, in words
    (``item 'Jetpack' (the setup's items)``).

    The setup's stalker, armour, weapons, items, artefacts, and a campaign's
    start, route, shopping lists and artefact use: a variant's ``rules=`` folder
    or a baseline ruleset may lack one the scenario names, found here before
    anything plays rather than after the other variants' work.
    """
    hexes = [] if getattr(rs, "map", None) is None else rs.map.hexes
    gear = {**rs.weapons, **rs.artifacts, **rs.armor}
    tables: dict[str, tuple[Mapping | set, str]] = {
        "stalker": (rs.stalkers, "stalker"), "armor": (rs.armor, "armour"),
        "weapons": (rs.weapons, "weapon"), "items": (rs.items, "item"),
        "artifacts": (rs.artifacts, "artefact"), "shopping": (rs.items, "item"),
        "keep_artifacts": (rs.artifacts, "artefact"),
        "shopping_gear": (gear, "weapon, artefact or armour"),
        "start": ({h.name for h in hexes if h.name}, "location"),
        "route": ({h.name for h in hexes if h.location == "complex"}, "Secret Complex")}
    out = []
    for key, (table, what) in tables.items():
        value = setup.get(key)
        names = value if isinstance(value, tuple | list) else () if value is None else (value,)
        out += [f"{what} {str(name)!r} (the setup's {key})" for name in dict.fromkeys(names)
                if name not in table]
    out += [f"artefact {name!r} (the setup's artifact_use)"
            for name, _ in setup.get("artifact_use", ()) if name not in rs.artifacts]
    return out


LOADOUT_KEYS = ("stalker", "armor", "weapons", "items", "artifacts", "rubles")
"""Setup keys echoed as each variant's full loadout (those its setup has)."""


def _none_text(key: str, value: object) -> str:
    if value is not None:
        return f"{value:,}" if isinstance(value, int) and key == "rubles" else str(value)
    return "the stalker card's" if key == "rubles" else "none"


def loadout(setup: Mapping[str, object]) -> dict:
    """A variant's full loadout: the :data:`LOADOUT_KEYS` its setup has, lists as lists."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in setup.items()
            if k in LOADOUT_KEYS}


def notes(variant: Variant, base: Mapping[str, object]) -> list[str]:
    """What a variant's keys did that a reader might not expect: a replaced list."""
    out = []
    for key, target in variant.replaces:
        was = tuple(base.get(target) or ())
        if was:
            name = dict(variant.overrides)[target]
            out.append(LIST_NOTE.format(key=key, name=", ".join(name) if name else "none",
                                        target=target, was=", ".join(was)))
    return out


def describe(variant: Variant, base: Mapping[str, object] | None = None) -> dict:
    """A variant in the JSON: label, overrides, edits (and ``rules`` when it has a folder).

    With the comparison's ``base`` setup, also its full ``loadout`` and
    ``changes`` (``item+=``/``item-=`` edits) and ``notes`` where it has them.
    """
    out = {"label": variant.label, "overrides": dict(variant.overrides),
           "edits": list(variant.edits)}
    if variant.rules is not None:
        out["rules"] = variant.rules
    if base is not None:
        if variant.changes:
            out["changes"] = [f"{k}{op}={n}" for k, _, op, n in variant.changes]
        out["loadout"] = loadout(variant.setup(base))
        said = notes(variant, base)
        if said:
            out["notes"] = said
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


def no_game_changed(row: Mapping[str, Any]) -> bool:
    """Whether every paired trial of a row gave the baseline's value of its metric.

    The difference's interval is exactly 0 only when the paired differences
    have mean 0 and variance 0, that is, when each of them is 0.
    """
    return row["diff_ci_low"] == row["diff_ci_high"] == 0.0


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
            sums = result.sums[v, :, m]  # rows by name (sim.kernels.paired.AGGREGATE)
            s, s2 = float(sums[AGGREGATE.SUM]), float(sums[AGGREGATE.SUM_SQ])
            d, d2 = float(sums[AGGREGATE.DIFF]), float(sums[AGGREGATE.DIFF_SQ])
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
    against : tuple of str
        The variants the differences are taken to (:func:`compare`'s
        ``against``); empty: the baseline only, and rows have no ``against`` key.
    cards : PlayedCards, optional
        Each card's own sums (:func:`compare`'s ``cards``), for a per-card table that
        reads them instead of playing the deck again; in no output.
    """

    experiment: str
    trials: int
    seed: int
    setup: dict
    variants: tuple[dict, ...]
    rows: tuple[dict, ...]
    ruleset: str = ""
    targets: tuple[str, ...] = ()
    against: tuple[str, ...] = ()
    cards: PlayedCards | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict:
        """JSON document: provenance, ``baseline``, ``variants``, ``rows`` (and
        ``against`` when the differences are taken to other variants).
        """
        out = {"experiment": self.experiment, "trials": self.trials, "seed": self.seed,
               "ruleset_sha256": self.ruleset, "setup": self.setup,
               "baseline": self.variants[0]["label"], "variants": list(self.variants),
               "targets": list(self.targets), "rows": list(self.rows)}
        if self.against:
            out["against"] = list(self.against)
        return out

    def to_frame(self) -> pd.DataFrame:
        """One flat row per (variant, metric)."""
        return pd.DataFrame(list(self.rows))

    def loadout_lines(self) -> list[str]:
        """Each variant's full loadout in words, and its notes (for the table format)."""
        lines = []
        for v in self.variants:
            if "loadout" not in v:
                continue
            shown = "; ".join(f"{k} {', '.join(map(str, x)) or 'none'}" if isinstance(x, list)
                              else f"{k} {_none_text(k, x)}" for k, x in v["loadout"].items())
            lines.append(f"{v['label']}: {shown}")
            lines += [f"  note: {n}" for n in v.get("notes", ())]
        return lines

    def to_table(self) -> pd.DataFrame:
        """Readable rows: ``estimate ±half-width (exact)`` and the difference likewise."""
        out = []
        for r in self.rows:
            row = {"variant": r["variant"], "metric": r["metric"]}
            if "against" in r:
                row["against"] = r["against"]
            row |= {"estimate": cell_text(r["mc"], r["ci_low"], r["ci_high"], r["exact"]),
                    "diff": "" if r["verdict"] in (BASELINE, REFERENCE) else
                    cell_text(r["diff"], r["diff_ci_low"], r["diff_ci_high"], r["diff_exact"],
                              signed=True),
                    "verdict": r["verdict"]}
            if "price" in r:
                row["price"] = "" if r["price"] is None else f"{r['price']:,}"
                row["per 1,000 rubles"] = cell_text(
                    r["diff_per_1000"], r["diff_per_1000_ci_low"], r["diff_per_1000_ci_high"],
                    signed=True)
            if "target_verdict" in r:
                row["target"] = r["target_verdict"] or ""
            out.append(row)
        return pd.DataFrame(out)


ALL_PAIRS = "all"
"""``against`` value for every pair of variants (each pair once: later minus earlier)."""


def reference_index(text: str, labels: Sequence[str]) -> int:
    """The variant ``text`` names: a label, or its position (0 = the baseline).

    Raises
    ------
    CompareInputError
        If it names none of them.
    """
    if text in labels:
        return list(labels).index(text)
    if text.isdigit() and int(text) < len(labels):
        return int(text)
    raise CompareInputError(f"--against {text!r} names no variant (labels: "
                            f"{', '.join(map(repr, labels))}; or a position 0..{len(labels) - 1},"
                            f" 0 = the baseline; or '{ALL_PAIRS}')", "against")


def _references(against: Sequence[str], labels: Sequence[str]) -> list[tuple[int, bool]]:
    """``(reference, only the variants after it)`` per run; ``all`` gives every pair once."""
    if list(against) == [ALL_PAIRS]:  # the first run also shows every variant's estimate
        return [(r, r > 0) for r in range(len(labels) - 1)]
    chosen = [reference_index(text, labels) for text in against]
    return [(r, False) for r in dict.fromkeys(chosen)]


def _rows_against(exp: Experiment, runs: Sequence[Case], labels: Sequence[str], reference: int,
                  after: bool, metrics, **run_args) -> list[dict]:
    """Rows with the paired difference to variant ``reference``, in the variants' order.

    The reference plays as variant 0 of the experiment; every variant plays the
    same trials on the same streams whatever its place, so the estimates are
    those of the baseline run and only the differences change.
    """
    order = [reference, *(v for v in range(len(labels)) if v != reference)]
    result = exp.run([runs[v] for v in order], **run_args)
    rows = paired_rows(result, [labels[v] for v in order], metrics)
    place = {labels[v]: v for v in range(len(labels))}
    rows.sort(key=lambda row: place[row["variant"]])  # stable: metrics keep their order
    mine = labels[reference]
    return [{**row, "against": mine} | ({"verdict": REFERENCE} if row["variant"] == mine else {})
            for row in rows if not after or place[row["variant"]] > reference]


MINUS_CASH = "{label} minus its cash"
"""Label of the row "card minus its cash": the card variant less its cash equivalent."""


def _minus_cash(exp: Experiment, variants: Sequence[Variant], runs: Sequence[Case],
                labels: Sequence[str], metrics, run_args: Mapping) -> list[dict]:
    """Per cash equivalent, the card variant's paired difference to it ("card minus its cash").

    Both play as a pair (the cash equivalent first) on the comparison's
    random numbers; the row's estimate is that difference, with its paired
    95 % interval, and its verdict says whether the card does detectably
    better (or worse) than its price in starting rubles.
    """
    out = []
    for v, variant in enumerate(variants):
        if variant.cash_of is None:
            continue
        card = labels.index(variant.cash_of)
        result = exp.run([runs[v], runs[card]], **run_args)
        for row in paired_rows(result, [variant.label, variant.cash_of], metrics):
            if row["variant"] != variant.cash_of:
                continue
            out.append({**row, "variant": MINUS_CASH.format(label=variant.cash_of),
                        "mc": row["diff"], "ci_low": row["diff_ci_low"],
                        "ci_high": row["diff_ci_high"], "exact": row["diff_exact"]})
    return out


def compare(exp: Experiment, rs: Ruleset, base: Mapping[str, object],
            variants: Sequence[Variant],
            *, trials: int, seed: int, threads: int | None = None,
            metrics: Sequence[str] | None = None,
            targets: Sequence[Target] = (), against: Sequence[str] = (),
            prices: bool = False, money: str | None = None,
            cards: bool = False) -> Comparison:
    """Run ``variants`` of a base setup on common random numbers and tabulate them.

    Parameters
    ----------
    exp : Experiment
        The experiment to run (from :mod:`sim.experiments.registry`; this
        framework imports none).
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
    against : sequence of str
        Variants (labels, or positions with 0 = the baseline) to take the
        paired differences to, one run of the experiment each; ``("all",)``
        gives every pair once (later minus earlier, V - 1 runs). Rows then
        carry an ``against`` key. Empty (default): differences to the baseline.
    prices : bool
        Add each variant's price and the difference per 1,000 rubles to the
        rows (:func:`sim.workflows.prices.priced_rows`).
    money : {"pay", "cash"}, optional
        Campaigns: pay for the variants' extra cards out of the starting
        rubles, or add a cash-equivalent variant after each dearer one
        (:func:`sim.workflows.prices.money_variants`).
    cards : bool
        Keep each card's own sums (:attr:`Comparison.cards`; an experiment whose ``run``
        takes ``cards``, the combat's), so that the report's per-card table reads the
        deck's fights instead of playing them again (issue 45, item 4). Not with
        ``against``.

    Raises
    ------
    CompareInputError
        Unknown metrics or ``against`` variants, bad edits, or cards the
        experiment cannot run.
    """
    name = exp.name
    if not variants:
        raise CompareInputError("give at least one variant")
    if money is not None:
        variants = money_variants(money, variants, cases(rs, base, variants))
    labels = [v.label for v in variants]
    if len(set(labels)) != len(labels):
        raise CompareInputError(f"variant labels must differ (got {labels}); "
                                "name them with label=...")
    known = [m.name for m in exp.played(base)]
    twice = [m for m in dict.fromkeys(metrics or ()) if list(metrics or ()).count(m) > 1]
    if twice:
        raise CompareInputError(f"metric {twice[0]!r} is given twice; give each metric once",
                                "metric")
    for metric in (*(metrics or ()), *(t.metric for t in targets)):
        if metric not in known:
            raise CompareInputError(f"unknown metric {metric!r} for {name} "
                                    f"(known: {', '.join(known)})")
    if metrics:  # a target's metric is reported even when not asked for
        metrics = [*metrics, *(t.metric for t in targets if t.metric not in metrics)]
    references = _references(against, labels)
    runs = cases(rs, base, variants)
    run_args = {"trials": trials, "seed": seed, "threads": threads}
    played = None
    if references:
        rows = [row for r, after in references
                for row in _rows_against(exp, runs, labels, r, after, metrics, **run_args)]
    else:
        result = exp.run(runs, **run_args, **({"cards": True} if cards else {}))
        rows, played = paired_rows(result, labels, metrics), result.cards
    rows += _minus_cash(exp, variants, runs, labels, metrics, run_args)
    if prices:
        pairs = list(zip(labels, runs, strict=True))
        rows = priced_rows(rows, {v: loadout_price(c.ruleset, c.setup) for v, c in pairs},
                           labels[0], {v: wealth(c) for v, c in pairs})
    if targets:
        rows = judge_rows(targets, rows)
    described = tuple(describe(v, base) for v in variants)
    return Comparison(name, trials, seed, dict(base), described, tuple(rows), rs.sha256,
                      tuple(str(t) for t in targets), tuple(against), played)


__all__ = ["ALL_PAIRS", "BASELINE", "NO_DIFFERENCE", "REFERENCE", "ROW_KEYS", "Comparison",
           "Variant", "cases", "compare", "describe", "paired_rows", "parse_variant",
           "reference_index", "verdict"]
