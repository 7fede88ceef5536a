"""The report's "Best play" section (issue 25 §3): the win rate when the stalker plays well.

The scenario's policy keys are searched by :func:`sim.workflows.optimize.optimize` (the
``zonesim optimize`` search: coordinate races on common random numbers) with a reduced budget
(:func:`budgets`); the best found, the scenario's own policy and the documented naive one
(:data:`sim.workflows.policy_space.NAIVE`) are then played again on fresh games, none of the
selection's, and only those fresh numbers are shown: the win rate under best play against the
scenario's, the paired difference, the skill gap (best minus naive) and the keys the best
policy changes (old -> new). A target on the searched metric whose verdict differs under best
play (judged on the same fresh games) is named on the first screen (:func:`verdict_lines`).
One-stalker scenarios only: a multiplayer scenario gets a note, no search.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from sim.experiments.registry import canonical_metric
from sim.report import labels
from sim.report.tables import Section
from sim.rules.scenario import Scenario
from sim.workflows import optimize as workflow
from sim.workflows.best_characters import best_characters, search_budget
from sim.workflows.carrying import worth_carrying
from sim.workflows.policy_space import Candidate, value_text
from sim.workflows.race import paired
from sim.workflows.targets import Target

FRESH_SHARE = 2
"""Each re-evaluated policy plays ``budget // FRESH_SHARE`` fresh games."""
CHARACTER_SHARE = 4
"""Each character's own search (``zonesim optimize --stalker all``) has ``budget //
CHARACTER_SHARE`` games of selection (:func:`budgets` of it)."""

WORDS = {"best": "best play", "scenario": "the scenario's policy"}
"""The spreads between characters, in words."""
COLUMNS = ["policy", "label", "trials", "first_trial", "mc", "ci_low", "ci_high",
           "diff_vs_scenario", "diff_vs_scenario_ci_low", "diff_vs_scenario_ci_high"]
"""Columns of the ``best_play`` table (one row per policy played on the fresh games)."""
CHANGE_COLUMNS = ["key", "from", "to"]
"""Columns of the ``best_play_changes`` table (one row per key the best policy changes)."""
CARRYING_COLUMNS = ["card", "kind", "copies", "trials", "first_trial", "diff", "diff_ci_low",
                    "diff_ci_high", "verdict"]
"""Columns of the ``best_play_carrying`` table (:func:`sim.workflows.carrying.worth_carrying`)."""


def budgets(budget: int) -> dict:
    """The search's options for a selection of ``budget`` games: first rung, fresh games.

    At most :data:`~sim.workflows.optimize.MAX_BUDGET` games of selection and
    :data:`~sim.workflows.optimize.MAX_FRESH_TRIALS` fresh games per policy, whatever the
    report's games (the search keeps every game's values in memory; the section says
    how many it played).
    """
    chosen = min(int(budget), workflow.MAX_BUDGET)
    return search_budget(chosen, min(chosen // FRESH_SHARE, workflow.MAX_FRESH_TRIALS))


def _diff_text(d: Mapping) -> str:
    return (f"{100 * d['diff']:+.1f} pp ({100 * d['diff_ci_low']:+.1f} to "
            f"{100 * d['diff_ci_high']:+.1f})")


def _cell_text(c: Mapping) -> str:
    return labels.percent(c["mc"], c["ci_low"], c["ci_high"])


def policy_rows(result: workflow.Optimization) -> list[dict]:
    """The fresh games' numbers, one row per policy (:data:`COLUMNS`)."""
    r = result.reevaluation
    zero = {"diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0}
    rows = [("best", r["winner"], r["winner_estimate"], r["vs_scenario"]),
            ("scenario", "scenario's policy", r["scenario_estimate"], zero),
            ("naive", r["naive"], r["naive_estimate"], None)]  # naive - scenario: not paired
    if r["runner_up"] is not None:
        rows.append(("runner-up", r["runner_up"], r["runner_up_estimate"], None))
    if r.get("replicate") is not None:  # a search on other selection games: convergence
        rows.append(("second search", r["replicate"]["winner"], r["replicate"]["estimate"],
                     None))
    out = []
    for policy, label, est, vs in rows:
        vs = vs or dict.fromkeys(zero)
        out.append({"policy": policy, "label": label, "trials": r["trials"],
                    "first_trial": r["first_trial"], "mc": est["mc"],
                    "ci_low": est["ci_low"], "ci_high": est["ci_high"],
                    "diff_vs_scenario": vs["diff"],
                    "diff_vs_scenario_ci_low": vs["diff_ci_low"],
                    "diff_vs_scenario_ci_high": vs["diff_ci_high"]})
    out[0]["skill_gap"] = r["skill_gap"]["diff"]
    return out


def change_rows(result: workflow.Optimization) -> list[dict]:
    """``{"key", "from", "to"}`` per key the best policy changes, in words."""
    return [{"key": c["key"], "from": value_text(c["from"], c["key"]),
             "to": value_text(c["to"], c["key"])} for c in result.changes()]


def flipped(sc: Scenario, result: workflow.Optimization) -> list[dict]:
    """Targets on the searched metric whose verdict differs under best play.

    Both verdicts are judged on the re-evaluation's fresh games (the scenario's policy and
    the best, the same games).
    """
    r = result.reevaluation
    name = result.objective.metric.name
    out = []
    for metric, (low, high) in sc.targets.items():
        if canonical_metric(metric) != canonical_metric(name):
            continue
        target = Target(metric, float(low), float(high), text=f"{metric} in {low:g}..{high:g}")
        judged = {k: target.judge(c["mc"], c["ci_low"], c["ci_high"]) for k, c in
                  (("scenario", r["scenario_estimate"]), ("best", r["winner_estimate"]))}
        if judged["scenario"] != judged["best"]:
            out.append({"target": str(target), "scenario": judged["scenario"],
                        "best": judged["best"], "scenario_estimate": r["scenario_estimate"],
                        "best_estimate": r["winner_estimate"]})
    return out


def best_play_section(sc: Scenario, trials: int, seed: int) -> Section:
    """The win rate under best play against the scenario's policy, on fresh games.

    ``trials`` is the selection's budget in games (:func:`budgets`).
    """
    section = Section("best_play", "Best play")
    if sc.multiplayer:
        section.text.append("A multiplayer scenario: the best-play search plays one stalker "
                            "(zonesim optimize refuses multiplayer scenarios); not run.")
        return section
    opts = budgets(trials)
    result = workflow.optimize(sc, seed=seed, replicate=True, **opts)
    r = result.reevaluation
    section.data["best_play"] = result
    section.text.append(
        f"The scenario's policy keys searched as zonesim optimize does, with a reduced budget: "
        f"{result.played:,} games of selection (budget {opts['budget']:,}, "
        f"{opts['trials']:,} games per candidate at a race's first rung), seed {seed}; the "
        f"best found, the scenario's policy and the naive one then played again on "
        f"{r['trials']:,} fresh games each (trials from {r['first_trial']}, none of the "
        "selection's), paired; every number below is from those fresh games. zonesim "
        "optimize gives the same with a larger budget; zonesim optimize --stalker all "
        "gives every character under his best play.")
    section.text.append(good_play_words(r))
    changes = change_rows(result)
    if changes:
        section.text += ["What the best policy does differently:",
                         [f"{c['key']}: {c['from']} -> {c['to']}" for c in changes]]
    else:
        section.text.append("The best policy found is the scenario's own: no key changed.")
    _carrying(section, result)
    section.data["flipped"] = flipped(sc, result)
    frame = pd.DataFrame(policy_rows(result))
    frame = frame.reindex(columns=[*COLUMNS, "skill_gap"])
    section.tables["best_play"] = frame
    section.tables["best_play_changes"] = pd.DataFrame(changes, columns=CHANGE_COLUMNS)
    section.shown["Best play against the scenario's policy (fresh games)"] = pd.DataFrame(
        [{"policy": p["policy"], "label": p["label"],
          "win rate": labels.percent(p["mc"], p["ci_low"], p["ci_high"]),
          "minus the scenario's": "" if p["policy"] == "scenario"
          or pd.isna(p["diff_vs_scenario"]) else _diff_text(
              {"diff": p["diff_vs_scenario"], "diff_ci_low": p["diff_vs_scenario_ci_low"],
               "diff_ci_high": p["diff_vs_scenario_ci_high"]})}
         for p in policy_rows(result)])
    _characters(section, sc, trials, seed, result)
    return section


def _carrying(section: Section, result: workflow.Optimization) -> None:
    """The items and artefacts worth carrying under best play: one line, and its table."""
    rows = worth_carrying(result)
    section.tables["best_play_carrying"] = pd.DataFrame(rows, columns=CARRYING_COLUMNS)
    if rows:
        section.text.append(
            "Worth carrying under best play (the best minus the best without one copy, a "
            "carried card's price refunded into the starting money, a kept artefact sold; "
            "paired, the same fresh games): "
            + "; ".join(f"{_card_text(r)} {_diff_text(r)} {r['verdict']}" for r in rows) + ".")


def _card_text(row: Mapping) -> str:
    copies = f" x{row['copies']}" if row["copies"] > 1 else ""
    return f"{row['card']}{copies} ({row['kind']})"


def _characters(section: Section, sc: Scenario, trials: int, seed: int,
                own: workflow.Optimization) -> None:
    """Every stalker card under his own best play (a smaller search each), with the gap.

    The scenario's stalker is the section's own search ``own``, reused: one best-play
    figure per stalker in the report (issue 46 item 3); his row gives its budget.
    """
    opts = budgets(max(1, trials // CHARACTER_SHARE))
    chars = best_characters(sc, seed=seed, known={sc.stalker: own}, replicate=True, **opts)
    section.data["characters"] = chars
    section.tables["best_play_characters"] = chars.to_frame()
    section.text.append(
        f"Each character under his own best play (his policy and loadout; a search of "
        f"{opts['budget']:,} games each, {opts['fresh_trials']:,} fresh games per policy; "
        f"{sc.stalker}'s row is the search above, {own.budget:,} games, reused, so the "
        "report gives him one best-play figure; a smaller search may stop short of the best "
        "policy, and each row's second search, on other selection games, says how far):")
    section.shown["Characters under best play (fresh games)"] = pd.DataFrame(
        [{"stalker": r.stalker, "best policy": r.winner.label,
          "best play": _cell_text(r.reevaluation["winner_estimate"]),
          "scenario's policy": _cell_text(r.reevaluation["scenario_estimate"]),
          "skill gap (best - naive)": _diff_text(r.reevaluation["skill_gap"]),
          "search (games)": f"{r.budget:,}",
          "second search minus the best": _second_text(r.reevaluation)}
         for r in chars.finished])
    spreads = [chars.spread(w) for w in ("best", "scenario")]
    if all(spreads):
        section.text.append("Spread between characters (best minus worst, half-widths added): "
                            + "; ".join(
                                f"under {WORDS[s['policy']]} {100 * s['spread']:.1f} pp "
                                f"({100 * s['ci_low']:.1f} to {100 * s['ci_high']:.1f}), "
                                f"{s['best_character']} over {s['worst_character']}"
                                for s in spreads) + ".")


def _second_text(fresh: Mapping) -> str:
    """The second search's best minus the best, in words (:func:`convergence_words`)."""
    again = fresh.get("replicate")
    if again is None:
        return ""
    return "same policy" if again["same_policy"] else _diff_text(again["vs_winner"])


def convergence_words(fresh: Mapping) -> str:
    """How far a best-play figure is from converged: a second search's best against it.

    From a reevaluation's ``replicate`` (:func:`sim.workflows.optimize.optimize`): the same
    policy, or its paired difference on the same fresh games; empty without one.
    """
    again = fresh.get("replicate")
    if again is None:
        return ""
    if again["same_policy"]:
        return (" A second search, on selection games of its own, found the same policy "
                "(converged at this budget).")
    d = again["vs_winner"]
    if d["diff_ci_low"] > 0:
        verdict = ("better beyond noise: the search has not converged at this budget, and the "
                   "best-play figure is low by about that much")
    elif d["diff_ci_high"] < 0:
        verdict = ("worse beyond noise: the search has not converged at this budget (the "
                   "second one stopped short), so a search may stop this far from its best")
    else:
        verdict = "within noise: the two searches agree"
    return (f" A second search, on selection games of its own, found {again['winner']}: "
            f"{_cell_text(again['estimate'])}, minus the best {_diff_text(d)} (paired; "
            f"{verdict}).")


BEFORE_AFTER = "Best play, baseline -> changed (the same fresh games, paired)"
"""Caption of the table that gives every best-play figure's move with its interval."""
BEFORE_AFTER_COLUMNS = ["stalker", "policy", "baseline", "changed", "diff", "diff_ci_low",
                        "diff_ci_high", "baseline_second_search", "changed_second_search"]
"""Columns of the ``best_play_before_after`` table (:func:`before_after`)."""


def _searches(section: Section) -> dict[str, workflow.Optimization]:
    """The section's searches by stalker card: the characters' and the section's own."""
    chars = section.data.get("characters")
    out = {r.stalker: r for r in (chars.finished if chars is not None else ())}
    own = section.data.get("best_play")
    if own is not None and own.reevaluation is not None:
        out[own.stalker] = own
    return out


def _moved(old: workflow.Optimization, new: workflow.Optimization, which: str) -> dict:
    """``new - old`` of one policy's fresh estimate (``best`` or ``scenario``), paired.

    Both searches play their fresh games on the same seed and trials (trials from
    :data:`~sim.workflows.optimize.FRESH_FIRST`), so the baseline's and the changed rules'
    games are paired on common random numbers as every other before/after difference of
    the report. Searches on different seeds or fresh counts are not paired: the half-widths
    of the two intervals are added (conservative).
    """
    key = "winner_estimate" if which == "best" else "scenario_estimate"
    a, b = old.reevaluation, new.reevaluation
    if (old.seed, a["trials"], a["first_trial"]) == (new.seed, b["trials"], b["first_trial"]) \
            and old.fresh_games is not None and new.fresh_games is not None:
        pick = (lambda r: r.winner) if which == "best" else (lambda r: Candidate())
        x_old = old.fresh_games.play(pick(old), a["trials"])[:, 0]
        x_new = new.fresh_games.play(pick(new), b["trials"])[:, 0]
        return paired(x_new, x_old)
    d = b[key]["mc"] - a[key]["mc"]
    half = sum((c[key]["ci_high"] - c[key]["ci_low"]) / 2 for c in (a, b))
    return {"diff": d, "diff_ci_low": d - half, "diff_ci_high": d + half}


def before_after(base: Section, changed: Section) -> None:
    """Every best-play figure of ``changed`` against ``base``'s, with its interval (in place).

    One row per stalker searched in both reports and per policy (his best, the scenario's):
    the two fresh estimates and their paired difference (:func:`_moved`), beside each
    search's convergence (its second search minus its best). The merged tables' bare
    differences are not shown: the section's readable tables are the changed report's,
    after this table (issue 46 item 10). The tidy rows (:data:`BEFORE_AFTER_COLUMNS`) go to
    ``changed.data["before_after"]``, written by the before/after section.
    """
    old, new = _searches(base), _searches(changed)
    rows = []
    for stalker in (s for s in new if s in old):
        for which, key in (("best", "winner_estimate"), ("scenario", "scenario_estimate")):
            d = _moved(old[stalker], new[stalker], which)
            rows.append({"stalker": stalker, "policy": which,
                         "baseline": old[stalker].reevaluation[key],
                         "changed": new[stalker].reevaluation[key], **d,
                         "baseline_second_search": _second_text(old[stalker].reevaluation),
                         "changed_second_search": _second_text(new[stalker].reevaluation)})
    if not rows:
        return
    changed.data["before_after"] = pd.DataFrame(
        [{**r, "baseline": r["baseline"]["mc"], "changed": r["changed"]["mc"]} for r in rows],
        columns=BEFORE_AFTER_COLUMNS)
    shown = pd.DataFrame([{
        "stalker": r["stalker"], "policy": WORDS[r["policy"]],
        "baseline": _cell_text(r["baseline"]), "changed": _cell_text(r["changed"]),
        "changed minus baseline (paired)": _diff_text(r),
        "second search (baseline; changed)": "" if r["policy"] != "best" else
        f"{r['baseline_second_search'] or '-'}; {r['changed_second_search'] or '-'}"}
        for r in rows])
    changed.shown = {BEFORE_AFTER: shown, **changed.shown}
    changed.text.insert(0, "Against the baseline: every best-play figure of both reports, the "
                           "difference paired on the same fresh games with its 95 % interval "
                           "(the search's own noise beside it: each report's second search); "
                           "the tables after it are the changed report's.")


def good_play_words(fresh: Mapping) -> str:
    """How much good play matters over whole games, from the winner's re-evaluation ``fresh``
    (:attr:`sim.workflows.optimize.Optimization.reevaluation`: fresh games, paired): the win
    rate under best play and under the scenario's policy, their difference and the skill gap.
    """
    return (f"Win rate under best play: {_cell_text(fresh['winner_estimate'])}; under the "
            f"scenario's policy: {_cell_text(fresh['scenario_estimate'])}; best minus the "
            f"scenario's (paired): {_diff_text(fresh['vs_scenario'])}. Skill gap (best minus "
            f"the naive policy, {fresh['naive']}): {_diff_text(fresh['skill_gap'])}."
            + convergence_words(fresh))


def verdict_lines(sections: Mapping[str, Section]) -> list:
    """The first screen's lines on best play: how much good play matters over whole games
    (:func:`good_play_words`), and each target whose verdict it changes; nothing without
    the search (a multiplayer scenario, a report without the section).
    """
    section = sections.get("best_play")
    if section is None:
        return []
    result = section.data.get("best_play")
    lines = []
    if result is not None:
        words = good_play_words(result.reevaluation)
        lines.append("Good play (the best policy found for this stalker and loadout, section "
                     "'Best play', on fresh games): " + words[0].lower() + words[1:])
    return lines + [
        f"Best play changes a verdict: {f['target']} is {f['scenario']} under the "
        f"scenario's policy ({_cell_text(f['scenario_estimate'])}) but {f['best']} under "
        f"best play ({_cell_text(f['best_estimate'])}), on the same fresh games "
        "(section 'Best play')." for f in section.data.get("flipped", [])]
