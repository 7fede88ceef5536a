"""The report's "Artefacts compared" section (issue 11 §3): what each artefact changes, per price.

For the scenario's stalker, loadout and policy, every artefact of the
ruleset is carried alone and compared with carrying none on common random
numbers (:func:`sim.experiments.artifacts.artifacts_compared`): the paired
change in P(knocked out) on the enemy deck and in the anomaly deck's
outcomes (P-08..P-10), with 95 % intervals and the exact change from the
Markov chains, and in the win rate, P(win) (reach and survive the Sarcophagus,
P-50), over whole games of the scenario (one-stalker scenarios: the artefact
carried besides the loadout's, docs/rules.md "Artefacts in the campaign"), the
price (P-11) and the change per 1,000 rubles. In whole games each artefact is
valued twice: used as the scenario's ``policy.artifact_use`` says ("always" by
default), and under its best use (always, never or a Health threshold, chosen on
those games and valued on fresh ones, :func:`sim.workflows.best_use.best_uses`;
issue 46.2), which the verdict judges. Then the same on the decks when
both are played well (best play, :mod:`sim.exact.best_combat`: an artefact is
used only where a use pays, P-08).

The CSV keeps every artefact; the pages and the chart leave out an artefact
whose every change is exactly 0 (estimate and exact value), as the summary
leaves out rows that say nothing.
"""

from __future__ import annotations

import pandas as pd

from sim.experiments import artifacts as experiment
from sim.experiments.tables import cell_text
from sim.report import labels, plots
from sim.report.tables import Section, always_zero
from sim.rules.scenario import Scenario
from sim.workflows import best_use
from sim.workflows.prices import PER_1000_RUBLES

DECKS = {"combat": ("enemies", experiment.COMBAT_COLUMNS),
         "anomaly": ("anomalies", experiment.ANOMALY_COLUMNS)}
"""Column prefix of :func:`~sim.experiments.artifacts.artifacts_compared` -> (deck, metrics)."""
GAMES = "campaign_p_sarcophagus"
"""Column stem of the whole-game change; there, unlike the decks, above 0 helps."""
BEST_USE = best_use.STEM
"""Column stem of the whole-game change under each artefact's best use (fresh games)."""
CHANGES = (*((f"{prefix}_{m}", f"P({labels.metric(m)}), {labels.DECKS[deck]}")
             for prefix, (deck, metrics) in DECKS.items() for m in metrics),
           (GAMES, "P(win), whole games"),
           (BEST_USE, "P(win), whole games, best use"))
"""(column stem, plain label) of every change tabulated, enemy deck first; the whole games'
are the win rate (``p_sarcophagus``: reach and survive the Sarcophagus), not the reach,
with the artefact used as the scenario says and under its best use."""
HIGHER_HELPS = (GAMES, BEST_USE)
"""The stems whose change helps above 0 (the win rate); on the decks below 0 protects."""
POINTS = "pp"
"""The unit of every change shown, percentage points: a change of a probability, times 100."""
TIE = 1e-12
"""Exact changes within this of 0 are 0 (floating-point rounding of equal values)."""
BEST_USE_NOTE = (
    "Whole games twice: the artefact used as the scenario's policy.artifact_use says "
    "(always, by default), and under its best use: always, never or at a Health or less "
    "(P-08), the use with the highest win rate on those {trials} games, then played again "
    "with carrying none more on {trials} fresh games (other trials of seed {seed}), whose "
    "paired change is shown: the value to a player who uses the artefact well, and the one "
    "the verdict judges.")
ITEMS_NOTE = (
    "The same for the items whose use a [policy] Health threshold decides (medkits: "
    "medkit_at; the Stimulant: heal_at, stimulant_at; the Helicopter call: helicopter_at; "
    "issue 46.2): one card more than the loadout's, the thresholds searched in turn on those "
    "games, its change on the fresh games against the same thresholds without the card "
    "(the search's gain on the loadout's own cards is not the card's), beside its change "
    "under the scenario's thresholds.")
MULTIPLAYER_NOTE = ("Whole games are not compared here for a multiplayer scenario: the changes "
                    "are for single encounters of seat 1's stalker.")


ITEM_CHANGES = ((best_use.ITEM_SCENARIO, "P(win), whole games, the scenario's thresholds"),
                (best_use.ITEM_STEM, "P(win), whole games, best use"))
"""(column stem, plain label) of the changes of one more item card under a use policy
(:func:`sim.workflows.best_use.item_best_uses`)."""


def readable_items(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per item under a use policy: price, the thresholds of its best use, its change
    under the scenario's thresholds and under its best use, and the latter per 1,000 rubles,
    as text in percentage points (:func:`readable`'s cells; whole games have no exact value).
    """
    records = frame.to_dict(orient="records")
    out = pd.DataFrame({"item": frame["item"],
                        "price (rubles)": [f"{int(p):,}" for p in frame["price"]],
                        "best use": list(frame[best_use.USE])})
    for stem, what in ITEM_CHANGES:
        out[f"{what}: change ({POINTS})"] = [
            cell_text(*(_points(r[f"{stem}_{k}"]) for k in ("mc", "ci_low", "ci_high")),
                      digits=2, signed=True) for r in records]
    per = f"{best_use.ITEM_STEM}_per_1000_rubles"
    out[f"best use: per 1,000 rubles ({POINTS})"] = [
        cell_text(*(_points(r[f"{per}{k}"]) for k in ("", "_ci_low", "_ci_high")), digits=2,
                  signed=True) for r in records]
    return out


def _values(frame: pd.DataFrame) -> pd.DataFrame:
    """The changes named by their stem (estimate) and ``<stem>_exact``, as the report reads them."""
    return frame.rename(columns={f"{stem}_mc": stem for stem, _ in CHANGES})


def nonzero(frame: pd.DataFrame) -> pd.DataFrame:
    """The artefacts with at least one change that is not exactly 0 (estimate or exact)."""
    values = _values(frame)
    keep = [not all(always_zero(values.iloc[[i]], stem) for stem, _ in CHANGES
                    if stem in values) for i in range(len(frame))]
    return frame[keep].reset_index(drop=True)


def shown_changes(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """The (stem, plain label) of the changes in ``frame`` not exactly 0 on every row."""
    values = _values(frame)
    return [(stem, name) for stem, name in CHANGES
            if stem in values and not always_zero(values, stem)]


def _points(change) -> float | None:
    """A change of a probability in percentage points (None where there is none)."""
    return None if change is None or pd.isna(change) else 100 * float(change)


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per artefact: price, then each change and its value per 1,000 rubles, as text.

    Cells read ``change ±95 % half-width (exact change)`` in percentage points
    (a change of -0.0250 in the CSV reads -2.50, 2.5 points of percent fewer).
    """
    out = pd.DataFrame({"artefact": frame["artifact"],
                        "price (rubles)": [f"{int(p):,}" for p in frame["price"]]})
    if best_use.USE in frame:
        out["best use"] = list(frame[best_use.USE])
    for stem, what in shown_changes(frame):
        out[f"{what}: change ({POINTS})"] = [
            cell_text(*(_points(r[f"{stem}_{k}"]) for k in ("mc", "ci_low", "ci_high", "exact")),
                      digits=2, signed=True) for r in frame.to_dict(orient="records")]
        per = f"{stem}_per_1000_rubles"
        out[f"{what}: per 1,000 rubles ({POINTS})"] = [
            cell_text(*(_points(r[f"{per}{k}"]) for k in ("", "_ci_low", "_ci_high")), digits=2,
                      signed=True) for r in frame.to_dict(orient="records")]
    return out


def figure(frame: pd.DataFrame, title: str):
    """Bars of each change and of its value per 1,000 rubles, sorted by the first change, in
    percentage points.
    """
    changes = shown_changes(frame)
    values = [c for c in frame if c.startswith(tuple(stem for stem, _ in changes))]
    frame = frame.assign(**{c: 100 * frame[c].astype(float) for c in values})
    first = changes[0][0]
    key = frame[f"{first}_exact"].fillna(frame[f"{first}_mc"])
    order = frame.assign(_key=key).sort_values("_key", kind="stable")
    panels = []
    for stem, what in changes:
        per = f"{stem}_per_1000_rubles"
        better = "higher" if stem in HIGHER_HELPS else "lower"
        panels += [(f"{stem}_mc", f"{stem}_ci_low", f"{stem}_ci_high", f"{stem}_exact",
                    f"change in {what}\n(percentage points)", better),
                   (per, f"{per}_ci_low", f"{per}_ci_high", None,
                    "the same per 1,000 rubles\n(percentage points)", better)]
    return plots.signed_bars(order, "artifact", panels, title)


def artifacts_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Every artefact against carrying none, for the scenario's stalker, loadout and policy."""
    frame = experiment.artifacts_compared(sc.ruleset, experiment.scenario_setup(sc),
                                          trials=trials, seed=seed, campaign=sc)
    items = None
    if not sc.multiplayer:
        frame = best_use.with_best_uses(frame, sc, trials=trials, seed=seed)
        items = best_use.item_best_uses(sc, trials=trials, seed=seed)
    kept = nonzero(frame)
    left_out = [n for n in frame["artifact"] if n not in set(kept["artifact"])]
    text = [f"{sc.stalker} with the scenario's loadout and policy carries one artefact at a "
            f"time; {trials} trials per deck and {trials} whole games, seed {seed}, every "
            "artefact on the same trials as carrying none more (common random numbers), so "
            "each change is paired. Cells: change in percentage points (pp) ±95 % half-width "
            "(exact change from the Markov chain; whole games have none). On the decks below 0 "
            "protects; in P(win) (reach and survive the Sarcophagus) above 0 helps, side "
            "effects and all (P-09). Most protective on "
            "the enemy deck first. Change " + PER_1000_RUBLES + "."]
    if not sc.multiplayer:
        text.append(BEST_USE_NOTE.format(trials=trials, seed=seed))
        text.append(ITEMS_NOTE)
    if sc.multiplayer:
        text.append(MULTIPLAYER_NOTE)
    if left_out:
        text.append("No change at all in these encounters (left out): "
                    + ", ".join(left_out) + ".")
    best = experiment.artifacts_compared(
        sc.ruleset, {**experiment.scenario_setup(sc), "policy": "best",
                     "objective": sc.policy.objective},
        trials=trials, seed=seed)
    text.append(_used_well(frame, best, sc.policy.objective))
    section = Section("artifacts", "Artefacts compared", text,
                      tables={"artifacts": frame, "artifacts_best_play": best},
                      data={"artifacts": frame})
    if len(kept):
        section.shown["Artefacts against carrying none"] = readable(kept)
        section.figures["artifacts"] = figure(
            kept, f"Artefacts against carrying none, {sc.stalker} (green helps, red harms)")
    if len(nonzero(best)):
        section.shown["Artefacts against carrying none, both played well (best play)"] = (
            readable(nonzero(best)))
    if items is not None and len(items):
        section.tables["artifacts_items_best_use"] = items
        section.shown["Items under a use policy, one card more, under their best use"] = (
            readable_items(items))
    return section


def _used_well(policy: pd.DataFrame, best: pd.DataFrame, objective: str) -> str:
    """One sentence: the artefacts that harm on the enemy deck under the scenario's policy
    (every artefact used whenever its rule allows) and help or do nothing under best play,
    which uses one only where a use pays (P-08).
    """
    column = "combat_knocked_out_exact"
    harm = policy.set_index("artifact")[column]
    well = best.set_index("artifact")[column]
    turned = [n for n in harm.index if harm[n] > 0 and well[n] <= 0]
    raising = [n for n in well.index if well[n] > TIE]
    lead = (f"Under best play ({objective}, each encounter's exact optimal plan, with and "
            "without the artefact; whole games not compared) "
            + ("no artefact raises P(knocked out) on the enemy deck" if not raising
               else ", ".join(raising) + " still raise P(knocked out) on the enemy deck"))
    if not turned:
        return lead + "."
    return (lead + "; used whenever their rule allows, " + ", ".join(turned) + " raise it: "
            + ", ".join(f"{n} {harm[n]:+.4f} -> {well[n]:+.4f}" for n in turned)
            + " (exact changes).")
