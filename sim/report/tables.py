"""The report's battery: each section as tidy tables, figures and a few sentences.

Every function here takes a scenario (its ruleset, stalker, loadout and
policy) plus trials and seed, runs the library (never the CLI) and returns a
:class:`Section`. :mod:`sim.report.build` runs them in order and writes the
folder; :mod:`sim.report.markdown` and :mod:`sim.report.html` render them.

Deck-level numbers ("a card drawn from the deck") and item comparisons come
from :func:`sim.workflows.compare.compare`: every variant on common random numbers, the
deck average weighted by card ``count``, intervals from the per-trial deck
averages (so they account for the cards sharing their random numbers).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim import stats
from sim.encounter import combat
from sim.exact.best_combat import objective as objective_of
from sim.experiments import anomaly as anomaly_experiment
from sim.experiments import campaign_metrics, registry
from sim.experiments import combat as combat_experiment
from sim.experiments import event as event_experiment
from sim.experiments.registry import canonical_metric
from sim.experiments.setups import base_setup, best_objective
from sim.experiments.tables import cell_text
from sim.report import labels, plots
from sim.rules.scenario import Scenario
from sim.rules.variants import apply_edits
from sim.workflows import compare
from sim.workflows.prices import PER_1000_RUBLES
from sim.workflows.targets import UNDECIDED, Target

COMBAT = combat_experiment.EXPERIMENT.names
ANOMALY = anomaly_experiment.EXPERIMENT.names
EVENT = event_experiment.EXPERIMENT.names
"""The encounters' metric names, read from their declarations (an undeclared name fails on
import)."""
KNOCKED_OUT = COMBAT.knocked_out
AVOIDED = COMBAT.avoided
"""Knocked out (P-37) and avoided: one name in every encounter's declaration."""
assert KNOCKED_OUT == ANOMALY.knocked_out == EVENT.knocked_out
assert AVOIDED == ANOMALY.avoided == EVENT.avoided

COMBAT_SHOWN = (COMBAT.avoided, COMBAT.killed, COMBAT.fled, COMBAT.knocked_out,
                COMBAT.mean_wounds, COMBAT.mean_rounds, COMBAT.armor_destroyed)
ANOMALY_SHOWN = (ANOMALY.avoided, ANOMALY.unharmed, ANOMALY.damaged, ANOMALY.knocked_out,
                 ANOMALY.artifact, ANOMALY.deformation, ANOMALY.mean_loss)
EVENT_SHOWN = (EVENT.avoided, EVENT.happened, EVENT.knocked_out, EVENT.deformation,
               EVENT.health_lost, EVENT.radiation, EVENT.psi, EVENT.days_lost)
EVENT_ITEM_METRICS = (EVENT.avoided, EVENT.knocked_out, EVENT.health_lost, EVENT.radiation,
                      EVENT.psi, EVENT.days_lost)
ESCAPE_ITEM_METRICS = (COMBAT.avoided, COMBAT.knocked_out, COMBAT.mean_wounds)
ARMOR_METRICS = (COMBAT.knocked_out, COMBAT.mean_wounds, COMBAT.armor_destroyed, COMBAT.killed)
NONE = "none"


@dataclass
class Section:
    """One part of the report.

    Attributes
    ----------
    key : str
        Short name, used for file names and progress lines.
    title : str
        Heading.
    text : list of str or list of str
        Paragraphs of plain text, shown literally on both pages (names in them
        are data, never markup); an item that is a list of strings is a
        bulleted list.
    tables : dict of str to DataFrame
        Tidy tables written as ``<name>.csv`` and ``<name>.parquet``.
    shown : dict of str to DataFrame
        Readable tables for the Markdown and HTML pages (caption -> table).
    figures : dict of str to Figure
        Figures written as ``<name>.png`` and embedded in the HTML page.
    summary : list of dict
        Headline rows ``{"section", "metric", "mc", "ci_low", "ci_high", "exact"}``.
    values : dict
        Metric name -> ``(value, ci_low, ci_high)`` for judging targets.
    data : dict
        Results the verdict reads (deck tables, item values, campaign data);
        not written as files.
    answers : list of Answer
        The first screen's answers (:class:`sim.report.questions.Answer`: question,
        answer, the section with the details), shown first as linked lines.
    """

    key: str
    title: str
    text: list = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    shown: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    summary: list[dict] = field(default_factory=list)
    values: dict[str, tuple] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    answers: list = field(default_factory=list)


# --- readable cells ---------------------------------------------------------------------------

def always_zero(frame: pd.DataFrame, metric: str) -> bool:
    """Whether ``metric`` is 0 on every row, estimated and exact (nothing to read in it)."""
    values = frame[metric].to_numpy(float)
    exact = frame.get(f"{metric}_exact")
    exact_zero = exact is None or bool(np.all(np.nan_to_num(exact.to_numpy(float)) == 0))
    return bool(np.all(values == 0)) and exact_zero


def readable(frame: pd.DataFrame, keys: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """A flat result table with each metric as ``estimate ±half-width (exact)``.

    Columns are headed by the metric's plain label; a metric that is zero on
    every row is left out (the CSV files keep it).
    """
    out = frame[[k for k in keys if k in frame]].copy()
    for m in metrics:
        if m not in frame or always_zero(frame, m):
            continue
        exact = frame.get(f"{m}_exact")
        out[labels.metric(m)] = [cell_text(frame[m].iloc[i], frame[f"{m}_ci_low"].iloc[i],
                                           frame[f"{m}_ci_high"].iloc[i],
                                           None if exact is None else exact.iloc[i])
                                 for i in range(len(frame))]
    return out


def _wide(comparison: compare.Comparison) -> pd.DataFrame:
    """Comparison rows (variant x metric) as one row per variant with flat metric columns."""
    rows: dict[str, dict] = {}
    for r in comparison.rows:
        row = rows.setdefault(r["variant"], {"variant": r["variant"]})
        m = r["metric"]
        row.update({m: r["mc"], f"{m}_ci_low": r["ci_low"], f"{m}_ci_high": r["ci_high"],
                    f"{m}_exact": r["exact"], f"{m}_diff": r["diff"],
                    f"{m}_diff_ci_low": r["diff_ci_low"], f"{m}_diff_ci_high": r["diff_ci_high"],
                    f"{m}_verdict": r["verdict"]})
    return pd.DataFrame(list(rows.values()))


def _comparison_shown(comparison: compare.Comparison, value: pd.DataFrame) -> pd.DataFrame:
    """Variant x metric estimates, with the price and the help per 1,000 rubles in front."""
    frame = comparison.to_frame()
    zero = {m for m, g in frame.groupby("metric", sort=False)
            if (g["mc"] == 0).all() and (g["exact"].fillna(0) == 0).all()}
    table = comparison.to_table()
    table = table[~table["metric"].isin(zero)]
    wide = table.pivot_table(index="variant", columns="metric", values="estimate",
                             aggfunc="first", sort=False).reset_index()
    wide.columns = ["variant", *(labels.metric(c) for c in wide.columns[1:])]
    by_variant = value.set_index("variant")
    wide.insert(1, "price (rubles)", [_rubles(by_variant.at[v, "price"]) for v in wide["variant"]])
    wide.insert(2, f"{value['help'].iloc[0]} per 1,000 rubles (percentage points)",
                [_per_1000_text(by_variant.loc[v]) for v in wide["variant"]])
    return wide


def _rubles(price) -> str:
    return "" if pd.isna(price) else f"{int(price):,}"


def _per_1000_text(row) -> str:
    if pd.isna(row["per_1000"]):
        return ""
    return cell_text(row["per_1000"], row["per_1000_ci_low"], row["per_1000_ci_high"],
                     digits=2, signed=True)


def _headline(section: str, rows: Sequence[dict], prefix: str) -> tuple[list[dict], dict]:
    """Summary rows and target values from a single-variant comparison's rows."""
    summary, values = [], {}
    for r in rows:
        name = f"{prefix}.{r['metric']}"
        summary.append({"section": section, "metric": name, "mc": r["mc"],
                        "ci_low": r["ci_low"], "ci_high": r["ci_high"], "exact": r["exact"]})
        values[name] = (r["mc"], r["ci_low"], r["ci_high"])
    return summary, values


# --- deck sections ----------------------------------------------------------------------------

def _deck_and_best_play(experiment: str, sc: Scenario, setup: dict, trials: int, seed: int,
                        metrics: Sequence[str], cards: bool = False) -> compare.Comparison:
    """The deck average under the scenario's ``setup`` (variant ``deck``) and under best play
    for the scenario's ``policy.objective`` (``best play``), paired on common random numbers;
    with ``cards``, each card's own sums kept (:attr:`~sim.workflows.compare.Comparison.cards`).
    """
    best = (("policy", "best"), ("objective", sc.policy.objective))
    return compare.compare(registry.experiment(experiment), sc.ruleset, setup,
                           [compare.Variant("deck"), compare.Variant("best play", best)],
                           trials=trials, seed=seed, metrics=list(metrics), cards=cards)


def enemy_deck(sc: Scenario, trials: int, seed: int) -> Section:
    """Every enemy card against the scenario's stalker, loadout and policy.

    The deck is played once per policy (issue 45, item 4): the paired deck run (the
    scenario's policy and best play) keeps each card's fights, which the per-card tables
    read (:func:`sim.experiments.combat.played_counts`) instead of playing them again.
    """
    rs, setup = sc.ruleset, base_setup("combat", sc)
    policy = combat.CombatPolicy.from_setup(setup)
    deck = _deck_and_best_play("combat", sc, setup, trials, seed, COMBAT_SHOWN, cards=True)
    table = combat_experiment.combat_table(
        rs, sc.stalker, combat_experiment.deck_names(rs, "all"), sc.armor, sc.weapons, sc.items,
        policy, trials=trials, seed=seed, best=best_objective(setup), played=deck.cards)
    frame = table.to_frame()
    policy_rows = [r for r in deck.rows if r["variant"] == "deck"]
    summary, values = _headline("enemy deck", policy_rows, "enemies")
    skipped = [n for n in rs.enemies if n not in set(frame["enemy"])]
    text = [f"{sc.stalker} with armour {sc.armor or 'none'}, weapons "
            f"{', '.join(sc.weapons) or 'none'} and items {', '.join(sc.items) or 'none'}; "
            f"policy {', '.join(f'{f.name}={getattr(policy, f.name)}' for f in fields(policy))}"
            ". One fight per card, most dangerous first; "
            "cells: estimate ±95 % half-width (exact value from the Markov chain)."]
    if skipped:
        text.append("Not simulated (their fights have no end in the rules): "
                    + ", ".join(skipped) + ".")
    text.append(_deck_sentence(policy_rows, "a fight with a card drawn from the enemy deck"))
    best, sentence = _best_play(sc, frame, deck, trials, seed)
    text.append(sentence)
    return Section(
        "enemies", "Enemy deck", text, tables={"enemy_deck": frame, "enemy_best_play": best},
        shown={"Enemy cards": readable(frame, ("enemy",), COMBAT_SHOWN),
               "Deck average (weighted by count)": readable(_wide(deck), ("variant",),
                                                            COMBAT_SHOWN),
               "Under best play (each card's exact optimal plan)": _best_shown(best)},
        figures={"enemy_deck": plots.bars(frame, "enemy", KNOCKED_OUT,
                                          f"Enemy deck: P(knocked out), {sc.stalker}")},
        summary=summary, values=values)


def _best_play(sc: Scenario, frame: pd.DataFrame, deck: compare.Comparison, trials: int,
               seed: int) -> tuple[pd.DataFrame, str]:
    """Each enemy card under the scenario's policy and under best play (:func:`_versus`).

    Best play is each card's exact optimal plan for ``policy.objective``
    (:mod:`sim.exact.best_combat`), played on the same seed: the deck comparison's best-play
    fights, read from ``deck.cards``.
    """
    rs, objective = sc.ruleset, sc.policy.objective
    policy = combat.CombatPolicy.from_setup(base_setup("combat", sc))
    played = combat_experiment.combat_table(
        rs, sc.stalker, list(frame["enemy"]), sc.armor, sc.weapons, sc.items, policy,
        trials=trials, seed=seed, best=objective_of(objective, sc.policy.weights),
        played=deck.cards)
    return _versus(frame, played.rows, deck, "enemy", objective,
                   "a fight with a card drawn from the deck")


def _versus(frame: pd.DataFrame, played: Sequence[dict], deck: compare.Comparison, card: str,
            objective: str, what: str) -> tuple[pd.DataFrame, str]:
    """Each card of ``frame`` (the scenario's policy) beside its row ``played`` by best
    play, what good play is worth against it, and one sentence for the deck.

    Per card both P(knocked out) are exact, so their difference is too; the deck
    average's difference (the ``best play`` variant of the section's comparison
    ``deck``) is paired on common random numbers, with its interval.
    """
    rows = []
    for row, best in zip(frame.to_dict(orient="records"), played, strict=True):
        ko = best["outcomes"][KNOCKED_OUT]
        rows.append({card: row[card], "knocked_out_policy_exact": row[f"{KNOCKED_OUT}_exact"],
                     "knocked_out_best": ko["mc"], "knocked_out_best_ci_low": ko["ci_low"],
                     "knocked_out_best_ci_high": ko["ci_high"],
                     "knocked_out_best_exact": ko["exact"],
                     # never negative (best play is at least the policy): rounding only
                     "good_play_worth": max(0.0, row[f"{KNOCKED_OUT}_exact"] - ko["exact"]),
                     "decisions": "; ".join(best["decisions"])})
    table = pd.DataFrame(rows)
    change = next(r for r in deck.rows
                  if r["variant"] == "best play" and r["metric"] == KNOCKED_OUT)
    top = table.sort_values("good_play_worth", ascending=False, kind="stable").iloc[0]
    sentence = (f"Under best play ({objective}) P(knocked out) in {what} changes by "
                + cell_text(change["diff"], change["diff_ci_low"], change["diff_ci_high"],
                            signed=True)
                + " (paired on the same encounters)"
                + (f"; good play matters most against the {top[card]} "
                   f"({100 * top['good_play_worth']:.1f} percentage points)."
                   if top["good_play_worth"] > 0 else "; the scenario's policy is already "
                   "the best play on every card."))
    return table, sentence


def _best_shown(best: pd.DataFrame, card: str = "enemy") -> pd.DataFrame:
    """The best-play table as a designer reads it: both policies and the plan in words."""
    return pd.DataFrame({
        card: best[card],
        "knocked out, scenario policy (exact)": [f"{v:.4f}" for v in
                                                 best["knocked_out_policy_exact"]],
        "knocked out, best play": [cell_text(r.knocked_out_best, r.knocked_out_best_ci_low,
                                             r.knocked_out_best_ci_high,
                                             r.knocked_out_best_exact)
                                   for r in best.itertuples()],
        "what good play is worth (percentage points, exact)": [
            f"{100 * v:+.2f}" for v in best["good_play_worth"]],
        "best play": best["decisions"]})


def _deck_bars(frame: pd.DataFrame, column: str, harm: str, title: str):
    """Bars of P(knocked out) per card, or of ``harm`` when no card knocks the stalker out."""
    metric = harm if always_zero(frame, KNOCKED_OUT) and harm in frame else KNOCKED_OUT
    order = frame.sort_values(metric, ascending=False, kind="stable")
    return plots.bars(order, column, metric, f"{title}: {labels.metric(metric)}"
                      + ("" if metric == KNOCKED_OUT else " (no card knocks him out)"),
                      xlabel=labels.metric(metric) + ("" if metric != KNOCKED_OUT
                                                      else " (share of encounters)"))


def _deck_sentence(rows: Sequence[dict], what: str) -> str:
    ko = next(r for r in rows if r["metric"] == KNOCKED_OUT)
    value = cell_text(ko["mc"], ko["ci_low"], ko["ci_high"], ko["exact"])
    return f"P(knocked out) in {what}: {value} (count-weighted deck average)."


def anomaly_deck(sc: Scenario, trials: int, seed: int) -> Section:
    """Every anomaly card for the scenario's stalker and armour (policy: enter or not), and
    under best play (P-36, P-08: :mod:`sim.exact.best_hazard`).
    """
    rs, setup = sc.ruleset, base_setup("anomaly", sc)
    enter = setup["enter"]
    names = anomaly_experiment.anomaly_names(rs, "all")
    table = anomaly_experiment.anomaly_table(rs, sc.stalker, names, sc.armor, setup["items"],
                                             enter=enter, trials=trials, seed=seed,
                                             best=best_objective(setup))
    frame = table.to_frame()
    objective = sc.policy.objective
    deck = _deck_and_best_play("anomaly", sc, setup, trials, seed, ANOMALY_SHOWN)
    policy_rows = [r for r in deck.rows if r["variant"] == "deck"]
    summary, values = _headline("anomaly deck", policy_rows, "anomalies")
    played = anomaly_experiment.anomaly_table(
        rs, sc.stalker, list(frame["anomaly"]), sc.armor, enter=enter, trials=trials,
        seed=seed, best=objective_of(objective, sc.policy.weights))
    best, sentence = _versus(frame, played.rows, deck, "anomaly", objective,
                             "an encounter with a card drawn from the anomaly deck")
    text = [f"{sc.stalker} with armour {sc.armor or 'none'}; "
            f"{'enters anomalies on purpose' if enter else 'goes around anomalies he notices'}"
            " (policy enter_anomalies). Most dangerous first.",
            _deck_sentence(policy_rows, "an encounter with a card drawn from the anomaly deck"),
            sentence]
    return Section(
        "anomalies", "Anomaly deck", text,
        tables={"anomaly_deck": frame, "anomaly_best_play": best},
        shown={"Anomaly cards": readable(frame, ("anomaly",), ANOMALY_SHOWN),
               "Deck average (weighted by count)": readable(_wide(deck), ("variant",),
                                                            ANOMALY_SHOWN),
               "Under best play (each card's exact best decisions)": _best_shown(best,
                                                                                 "anomaly")},
        figures={"anomaly_deck": _deck_bars(frame, "anomaly", ANOMALY.mean_loss,
                                            f"Anomaly deck, {sc.stalker}")},
        summary=summary, values=values)


def event_deck(sc: Scenario, trials: int, seed: int) -> Section:
    """Every event card for the scenario's stalker, armour and event items."""
    rs, setup = sc.ruleset, base_setup("event", sc)
    items = setup["items"]
    table = event_experiment.event_table(
        rs, sc.stalker, event_experiment.event_names(rs, "all"), sc.armor, items, trials=trials,
        seed=seed, best=best_objective(setup))
    frame = table.to_frame()
    deck = compare.compare(registry.experiment("event"), rs, setup, [compare.Variant("deck")],
                           trials=trials, seed=seed, metrics=list(EVENT_SHOWN))
    summary, values = _headline("event deck", deck.rows, "events")
    text = [f"{sc.stalker} with armour {sc.armor or 'none'} and event items "
            f"{', '.join(items) or 'none'} (the best one counts, Z-10). Most dangerous first.",
            _deck_sentence(deck.rows, "a card drawn from the event deck"),
            "Best play changes nothing here: the best event item held is always the one "
            "used (Z-10), and the resist artefacts, an event's only other choice (P-08), are "
            "not carried in this table (docs/rules.md, \"Best play in anomalies and events\")."]
    return Section(
        "events", "Event deck", text, tables={"event_deck": frame},
        shown={"Event cards": readable(frame, ("event",), EVENT_SHOWN),
               "Deck average (weighted by count)": readable(_wide(deck), ("variant",),
                                                            EVENT_SHOWN)},
        figures={"event_deck": _deck_bars(frame, "event", EVENT.health_lost,
                                          f"Event deck, {sc.stalker}")},
        summary=summary, values=values)


# --- item comparisons -------------------------------------------------------------------------

def _variants(names: Sequence[str], key: str, current: Sequence[str], wrap) -> list:
    """A ``none`` baseline then one variant per card; the loadout's choice is marked."""
    out = [compare.Variant(NONE, ((key, wrap(None)),))]
    for name in names:
        label = f"{name} (loadout)" if name in current else name
        out.append(compare.Variant(label, ((key, wrap(name)),)))
    return out


@dataclass(frozen=True)
class Worth:
    """How an item category's help is measured against its price.

    Attributes
    ----------
    metric : str
        The metric the category acts on (``avoided`` for event and escape
        items, ``knocked_out`` for armours).
    sign : int
        +1 if a larger value helps the stalker, -1 if a smaller one does; the
        help is ``sign *`` the paired difference to ``none``.
    help : str
        Plain words for the help, counted in percentage points (table
        headings, the verdict).
    """

    metric: str
    sign: int
    help: str


EVENT_WORTH = Worth(EVENT.avoided, 1, "events avoided")
ESCAPE_WORTH = Worth(COMBAT.avoided, 1, "fights avoided")
ARMOR_WORTH = Worth(COMBAT.knocked_out, -1, "knock-outs prevented")


def item_value(result: compare.Comparison, prices: Mapping[str, float | None],
               worth: Worth) -> pd.DataFrame:
    """Per variant: price, help against ``none`` and help per 1,000 rubles, with 95 % intervals.

    The help is the paired difference to the ``none`` baseline in
    ``worth.metric``, signed so that helping is positive, in points of
    percent; dividing by the price (a constant) scales its interval
    alike. Variants without a price (``none``, or a price of 0) get NaN per
    1,000 rubles.

    Returns
    -------
    DataFrame
        ``variant``, ``name``, ``price``, ``help`` (the words), ``value``,
        ``value_ci_low``, ``value_ci_high`` (help, points of %),
        ``per_1000``, ``per_1000_ci_low``, ``per_1000_ci_high``.
    """
    rows = []
    for r in result.rows:
        if r["metric"] != worth.metric:
            continue
        name = r["variant"].removesuffix(" (loadout)")
        price = prices.get(name)
        lo, hi = sorted((worth.sign * r["diff_ci_low"], worth.sign * r["diff_ci_high"]))
        value = (100 * worth.sign * r["diff"], 100 * lo, 100 * hi)
        per = [v * 1000 / price for v in value] if price else [math.nan] * 3
        rows.append({"variant": r["variant"], "name": name,
                     "price": math.nan if price is None else float(price),
                     "help": worth.help, "value": value[0], "value_ci_low": value[1],
                     "value_ci_high": value[2], "per_1000": per[0], "per_1000_ci_low": per[1],
                     "per_1000_ci_high": per[2]})
    return pd.DataFrame(rows)


def items_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Item categories side by side on common random numbers.

    Event items on the event deck, escape items and armours on the enemy deck;
    each against a ``none`` baseline, with the paired difference to it.
    """
    rs = sc.ruleset
    section = Section("items", "Items compared")
    section.text.append(
        "Each row is a variant of the scenario's loadout; every variant meets the same "
        "cards with the same random numbers (common random numbers), so the difference "
        "to the baseline 'none' has a tight interval. Deck averages weighted by card count; "
        "cells: estimate ±95 % half-width (exact).")

    # Event items: the best one counts, so each variant carries exactly one.
    names = [n for n, i in rs.items.items() if i.effect == "event_avoid"]
    carried = base_setup("event", sc)
    setup = {**carried, "items": ()}
    prices = {n: i.price for n, i in rs.items.items()}
    result = compare.compare(registry.experiment("event"), rs, setup,
        _variants(names, "items", carried["items"], lambda n: () if n is None else (n,)),
        trials=trials, seed=seed, metrics=list(EVENT_ITEM_METRICS))
    _add_comparison(section, "items_event", "Event items on the event deck", result,
                    (EVENT.avoided, EVENT.knocked_out, EVENT.health_lost), prices, EVENT_WORTH)

    # Escape items act only when the fight is avoided by Reputation (Z-15..Z-17).
    names = [n for n, i in rs.items.items() if i.effect == "escape"]
    others = tuple(n for n in sc.items if rs.items[n].effect != "escape")
    escape_rs = rs
    escape_title = "Escape items on the enemy deck"
    if rs.rules.combat.avoid_rule != "reputation":
        escape_title += " (under avoid_rule=reputation)"
        escape_rs = apply_edits(rs, ["rules.combat.avoid_rule=reputation"])
        section.text.append(
            "Escape items act only when fights are avoided by Reputation (Z-15..Z-17); this "
            "ruleset avoids them by a Stealth test, so the escape items are compared under "
            "the variant rules.combat.avoid_rule=reputation.")
    current = [n for n in sc.items if rs.items[n].effect == "escape"]
    result = compare.compare(registry.experiment("combat"), escape_rs, base_setup("combat", sc),
        _variants(names, "items", current, lambda n: others if n is None else (*others, n)),
        trials=trials, seed=seed, metrics=list(ESCAPE_ITEM_METRICS))
    _add_comparison(section, "items_escape", escape_title, result, ESCAPE_ITEM_METRICS, prices,
                    ESCAPE_WORTH)

    result = compare.compare(registry.experiment("combat"), rs, base_setup("combat", sc),
        _variants(list(rs.armor), "armor", [sc.armor] if sc.armor else [], lambda n: n),
        trials=trials, seed=seed, metrics=list(ARMOR_METRICS))
    _add_comparison(section, "items_armor", "Armours on the enemy deck", result,
                    (COMBAT.knocked_out, COMBAT.mean_wounds, COMBAT.armor_destroyed),
                    {n: a.price for n, a in rs.armor.items()}, ARMOR_WORTH)
    section.text.append(
        "Prices are the cards' price column; help in percentage points; "
        + PER_1000_RUBLES + ".")
    return section


def _add_comparison(section: Section, key: str, title: str, result: compare.Comparison,
                    plotted: Sequence[str], prices: Mapping[str, float | None],
                    worth: Worth) -> None:
    """Add a comparison's table (with price and change per 1,000 rubles), figure and sentence.

    The CSV keeps the tidy rows of :meth:`Comparison.to_frame` and adds, per
    row, the variant's ``price`` and the paired difference per 1,000 rubles
    (``diff_per_1000`` with its interval): the same change, priced.
    """
    frame = result.to_frame()
    price = frame["variant"].map(lambda v: prices.get(v.removesuffix(" (loadout)")))
    frame["price"] = price.astype(float)
    scale = 1000 / frame["price"].where(frame["price"] > 0)
    for col in ("diff", "diff_ci_low", "diff_ci_high"):
        frame[col.replace("diff", "diff_per_1000")] = frame[col] * scale
    section.tables[key] = frame
    value = item_value(result, prices, worth)
    section.data.setdefault("item_values", {})[title] = value
    section.shown[title] = _comparison_shown(result, value)
    section.figures[key] = plots.comparison(_wide(result), plotted, title)
    best = _best(result)
    if best:
        section.text.append(f"{title}: {best}")


def _best(result: compare.Comparison) -> str:
    """One sentence: which variant lowers P(knocked out) most (or raises P(avoided))."""
    rows = [r for r in result.rows if r["metric"] in (KNOCKED_OUT, AVOIDED)
            and r["verdict"] == "better"]
    if not rows:
        return "no variant differs detectably from 'none' in P(knocked out) or P(avoided)."
    r = max(rows, key=lambda r: abs(r["diff"]))
    return (f"largest detectable change: {r['variant']}, {plots.label(r['metric'])} "
            f"{r['diff']:+.4f} (95 % interval {r['diff_ci_low']:+.4f} to "
            f"{r['diff_ci_high']:+.4f}) against 'none'.")


# --- campaign ---------------------------------------------------------------------------------

def _mean_interval(histogram: Sequence[int]) -> tuple[float, float, float] | None:
    counts = np.asarray(histogram, dtype=np.float64)
    n = counts.sum()
    if n == 0:
        return None
    days = np.arange(len(counts))
    return stats.mean_interval(float((counts * days).sum()), float((counts * days**2).sum()),
                               int(n))


def campaign_values(data: Mapping[str, Any]) -> dict[str, tuple]:
    """Target-able campaign metrics: name -> ``(value, ci_low, ci_high)`` (None if unknown)."""
    values: dict[str, tuple] = {}
    for key, cell in data.items():
        if isinstance(cell, Mapping) and "mc" in cell:
            values[key] = (cell["mc"], cell.get("ci_low"), cell.get("ci_high"))
        elif isinstance(cell, int | float) and not isinstance(cell, bool) \
                and key not in ("trials", "seed"):
            values[key] = (float(cell), None, None)
    for key, cell in data.get("means", {}).items():
        values[key] = (cell["mc"], cell.get("ci_low"), cell.get("ci_high"))
    days = data.get("days", {})
    hist = days.get("histogram", [])
    for key, q in (("median", 0.5), ("p10", 0.1), ("p90", 0.9)):
        if days.get(key) is not None:
            interval = (stats.histogram_quantile(hist, q) or (None, None, None))[1:]
            values[f"days.{key}"] = (float(days[key]), *interval)
    if days.get("mean") is not None:
        mean = _mean_interval(hist)
        values[campaign_metrics.DAYS_MEAN] = (float(days["mean"]),
                                              *(mean[1:] if mean else (None, None)))
    for cause in data.get("causes", []):
        values[f"causes.{cause['cause']}"] = (cause["mc"], cause.get("ci_low"),
                                              cause.get("ci_high"))
    return values


def load_run_campaign() -> Callable | None:
    """``sim.experiments.campaign.run_campaign``, or None where this version has no campaign."""
    try:
        from sim.experiments.campaign import run_campaign
    except ImportError:
        return None
    return run_campaign


def campaign_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Whole games of the scenario: outcomes, days to win, games won and lost by day."""
    section = Section("campaign", "Campaign")
    run_campaign = load_run_campaign()
    if run_campaign is None:
        section.text.append("campaign: not available (this version has no "
                            "sim.experiments.campaign).")
        section.summary.append({"section": "campaign", "metric": "campaign", "mc": None,
                                "ci_low": None, "ci_high": None, "exact": None,
                                "note": "not available"})
        return section
    result = run_campaign(sc, trials=trials, seed=seed)
    data = result.to_dict()
    values = campaign_values(data)
    section.values = values
    headline = [campaign_metrics.WIN_RATE, campaign_metrics.SURVIVE,
                campaign_metrics.FINAL_EMISSION, campaign_metrics.DAYS_MEDIAN,
                campaign_metrics.DAYS_MEAN]
    same = data.get("same_as", {})
    notes = campaign_metrics.same_notes(same)
    for name in headline:
        if name in values and name not in same:  # a metric equal to another: its row once
            v, low, high = values[name]
            section.summary.append({"section": "campaign", "metric": name, "mc": v,
                                    "ci_low": low, "ci_high": high, "exact": None,
                                    **({"note": notes[name]} if name in notes else {})})
    rows = [{"metric": k, "value": v, "ci_low": lo, "ci_high": hi}
            for k, (v, lo, hi) in values.items()]
    summary = pd.DataFrame(rows)
    causes = pd.DataFrame(data.get("causes", []))
    survival = pd.DataFrame(data.get("survival", []))
    hist = data.get("days", {}).get("histogram", [])
    days = pd.DataFrame({"day": np.arange(len(hist)), "games": np.asarray(hist, dtype=np.int64)})
    outcomes = pd.DataFrame(result.outcomes_by_day())
    section.tables = {"campaign_summary": summary, "campaign_causes": causes,
                      "campaign_survival": survival, "campaign_days": days,
                      "campaign_outcomes": outcomes}
    section.data = {"campaign": data, "guardians": sc.ruleset.sarcophagus_deck()}
    section.shown = {"Campaign statistics": pd.DataFrame(campaign_metrics.fold_same(
        [{"metric": labels.metric(r["metric"]), "name": r["metric"],
          "value": cell_text(r["value"], r["ci_low"], r["ci_high"])}
         for r in rows if r["value"] != 0], data.get("same_as", {}), name="name",
        text="metric"))}
    if len(causes):
        shares = causes.rename(columns={"mc": "p", "ci_low": "p_ci_low", "ci_high": "p_ci_high"})
        shares = shares[shares["p"] > 0].sort_values("p", ascending=False, kind="stable")
        shares.insert(0, "how", [labels.cause(c, section.data["guardians"])
                                 for c in shares["cause"]])
        section.shown["How games are lost"] = pd.DataFrame(
            {"how": shares["how"], "share of games": [labels.percent(*x) for x in zip(
                shares["p"], shares["p_ci_low"], shares["p_ci_high"], strict=True)]})
        section.figures["campaign_causes"] = plots.bars(
            shares, "how", "p", "How games are lost (share of all games)",
            xlabel="share of all games lost this way")
    section.figures["campaign_outcomes"] = plots.outcomes_by_day(outcomes)
    section.figures["campaign_won_lost"] = plots.won_and_lost_by_day(outcomes)
    section.figures["campaign_days"] = plots.days_histogram(data.get("days", {}))
    p = values.get(campaign_metrics.WIN_RATE)
    if p is not None:
        section.text.append(
            f"{trials} games of {sc.name}, seed {seed}: win rate (reach and survive the "
            f"Sarcophagus) "
            f"{cell_text(p[0], p[1], p[2])}; days to win (games won): median "
            f"{_days(values.get(campaign_metrics.DAYS_MEDIAN))}, 10th-90th percentile "
            f"{_fmt(data['days'].get('p10'))}-{_fmt(data['days'].get('p90'))}. "
            "The stacked chart shows, at the end of each day, the share of games won, lost "
            "and still in the Zone; the line chart the share of all games won and lost by "
            "each day, with 95 % bands (campaign_survival.csv keeps the Kaplan-Meier curve, "
            "in which a won game is censored, not survived).")
    # A part of the economy that never acts: one line, its zero rows left out above
    # (issue 46, item 6).
    section.text.extend(part["text"] for part in data.get("economy", []) if part["text"])
    return section


def _fmt(x) -> str:
    return "-" if x is None else f"{x:g}"


def _days(cell: tuple | None) -> str:
    """A day statistic with its interval in words (``13 (13 to 14)``), or ``-`` if none."""
    return "-" if cell is None else labels.number(*cell, digits=0)


def characters_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Each character's win rate with the scenario's loadout and policy, in paired games.

    One comparison of whole campaigns (the ``campaign`` experiment of
    :mod:`sim.workflows.compare`): the scenario's own stalker first (the
    baseline), then every other stalker card in its place, every variant on
    the same games (common random numbers), so the difference to the
    scenario's stalker has a tight interval. Starting money follows the
    stalker card unless the scenario's loadout sets it.
    """
    section = Section("characters", "Characters")
    if load_run_campaign() is None:
        section.text.append("characters: not available (this version has no "
                            "sim.experiments.campaign).")
        return section
    rs = sc.ruleset
    names = [sc.stalker, *(n for n in rs.stalkers if n != sc.stalker)]
    variants = [compare.Variant(f"{n} (scenario)" if n == sc.stalker else n, (("stalker", n),))
                for n in names]
    result = compare.compare(registry.experiment("campaign"), rs, base_setup("campaign", sc),
                             variants, trials=trials, seed=seed,
                             metrics=[campaign_metrics.WIN_RATE])
    frame = result.to_frame()
    frame.insert(1, "stalker", names)
    section.tables["characters"] = frame
    section.data["characters"] = frame
    section.shown["Win rate by character"] = pd.DataFrame(
        {"character": frame["variant"],
         "win": [labels.percent(*x) for x in zip(frame["mc"], frame["ci_low"],
                                                   frame["ci_high"], strict=True)],
         f"difference to {sc.stalker}": [
             "" if i == 0 else labels.percent(*x, signed=True) for i, x in enumerate(zip(
                 frame["diff"], frame["diff_ci_low"], frame["diff_ci_high"], strict=True))]})
    section.text.append(
        f"{trials} games per character of {sc.name}, seed {seed}, with the scenario's "
        "loadout and policy; every character plays the same games (common random numbers), "
        f"so the difference to {sc.stalker} is paired. Win: reach and survive the "
        "Sarcophagus; percent with the 95 % interval in brackets.")
    section.summary = [{"section": "characters", "metric": f"{campaign_metrics.WIN_RATE}.{n}",
                        "mc": r["mc"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                        "exact": None}
                       for n, r in zip(names, frame.to_dict(orient="records"), strict=True)]
    return section


# --- targets ----------------------------------------------------------------------------------

def target_metrics() -> list[str]:
    """Every metric a scenario target may name: the deck headlines and the campaign's."""
    names = [f"{prefix}.{m}" for prefix, shown in (("enemies", COMBAT_SHOWN),
                                                   ("anomalies", ANOMALY_SHOWN),
                                                   ("events", EVENT_SHOWN)) for m in shown]
    return names + [*campaign_metrics.PROBABILITIES, campaign_metrics.GAME_DAYS,
                    *campaign_metrics.FRAME_METRICS[len(campaign_metrics.PROBABILITIES):]]


def targets_section(sc: Scenario, values: Mapping[str, tuple]) -> Section:
    """Each scenario target judged PASS, FAIL or UNDECIDED on its estimate's 95 % interval.

    PASS: the whole interval lies in the target range; FAIL: none of it does;
    UNDECIDED: the interval straddles a bound (more trials may decide). A
    metric without an interval is judged on its estimate alone (noted).
    """
    rows = []
    for metric, (low, high) in sc.targets.items():
        target = Target(metric, float(low), float(high), text=f"{metric} in {low:g}..{high:g}")
        found = values.get(canonical_metric(metric))
        if found is None:
            rows.append({"target": str(target), "metric": metric, "low": low, "high": high,
                         "value": None, "ci_low": None, "ci_high": None,
                         "verdict": UNDECIDED, "note": "no value for this metric in the report"})
            continue
        value, ci_low, ci_high = found
        note = "" if ci_low is not None else "no interval: judged on the estimate alone"
        rows.append({"target": str(target), "metric": metric, "low": low, "high": high,
                     "value": value, "ci_low": ci_low, "ci_high": ci_high,
                     "verdict": target.judge(value, ci_low, ci_high), "note": note})
    frame = pd.DataFrame(rows, columns=["target", "metric", "low", "high", "value", "ci_low",
                                        "ci_high", "verdict", "note"])
    section = Section("targets", "Targets", tables={"targets": frame})
    if not rows:
        section.text.append("The scenario sets no targets ([targets] in its file).")
        return section
    section.text.append(
        "PASS: the whole 95 % interval lies in the target range; FAIL: none of it does; "
        "UNDECIDED: it straddles a bound (more trials may decide).")
    section.shown["Targets"] = pd.DataFrame(
        [{"target": r["target"], "estimate": cell_text(r["value"], r["ci_low"], r["ci_high"]),
          "verdict": r["verdict"], "nearest edge": labels.edge_words(r), "note": r["note"]}
         for r in rows])
    section.summary = [{"section": "targets", "metric": r["target"], "mc": r["value"],
                        "ci_low": r["ci_low"], "ci_high": r["ci_high"], "exact": None,
                        "note": r["verdict"]} for r in rows]
    return section
