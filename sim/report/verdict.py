"""The report's first screen: the answers a designer acts on, in plain words with intervals.

Built from the sections the battery already ran (nothing is simulated here):

- the win rate (reach and survive the Sarcophagus) against the scenario's
  target, PASS/FAIL/UNDECIDED on its 95 % interval;
- a line when best play (:mod:`sim.report.best_play`) changes a target's
  verdict;
- how games are lost, largest first, in words ("knocked out in the
  Sarcophagus by Monolith fighter");
- the three readings of the open rules that move the win rate most, each
  with the value the report used (:mod:`sim.report.readings`);
- the most lethal cards of each deck for the scenario's stalker and loadout;
- items and armours that are dominated (another costs no more and helps at
  least as much) or overpriced (help per 1,000 rubles far below the rest of
  their category), and items, armours and artefacts whose help per 1,000
  rubles is far above or below the rest of their kind
  (:mod:`sim.report.outliers`: the whole interval outside the median of the
  others +- 3 MAD);
- each character's win rate with the scenario's loadout and policy, and the
  spread between the best and the worst, flagged when wide.

A paragraph is a string; a list of strings is a bulleted list (see
:class:`sim.report.tables.Section`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from sim.experiments.campaign_metrics import WIN_RATE
from sim.report import (
    best_play,
    labels,
    outliers,
    players,
    plots,
    questions,
    readings,
    rebalance,
    tables,
)
from sim.report.tables import KNOCKED_OUT, Section
from sim.rules.scenario import Scenario

TOP_CARDS = 3
"""Cards named per deck."""
OVERPRICED_RATIO = 1 / 3
"""Overpriced: help per 1,000 rubles below this fraction of the median of its category."""

DECKS = (("enemies", "enemy_deck", "enemy", tables.COMBAT.mean_wounds, "of fights",
          "wounds per fight"),
         ("anomalies", "anomaly_deck", "anomaly", tables.ANOMALY.mean_loss, "of encounters",
          "Health lost per encounter"),
         ("events", "event_deck", "event", tables.EVENT.health_lost, "of draws",
          "Health lost per draw"))
"""Per deck: section key, table, card column, the harm metric used when no card knocks the
stalker out, and the words for both."""


def win_rate(sections: Mapping[str, Section]) -> str | None:
    """The win rate with its interval, and the target verdict when the scenario sets one."""
    campaign = sections.get("campaign")
    found = campaign.values.get(WIN_RATE) if campaign else None
    if found is None:
        return None
    text = (f"Win rate under the scenario's policy: {labels.percent(*found)} of games reach "
            "and survive the Sarcophagus")
    targets = sections.get("targets")
    frame = targets.tables.get("targets") if targets else None
    rows = [] if frame is None else frame[frame["metric"] == WIN_RATE].to_dict("records")
    if rows:
        r = rows[0]
        text += (f"; target {100 * r['low']:g}-{100 * r['high']:g} %: {r['verdict']}"
                 f"{_verdict_words(r['verdict'])}, {labels.edge_words(r)}.")
        flagged = questions.flags(sections)
        if r["verdict"] == "PASS" and flagged:
            text += " Flagged below: " + "; ".join(flagged) + "."
    else:
        text += "; the scenario sets no target for it ([targets] p_sarcophagus)."
    return text


def _verdict_words(verdict: str) -> str:
    return {"PASS": " (the whole interval lies in the target)",
            "FAIL": " (the whole interval lies outside the target)",
            "UNDECIDED": " (the interval straddles a bound: more games would tell)"}.get(verdict,
                                                                                      "")


def losses(sections: Mapping[str, Section]) -> list[str]:
    """How games are lost, largest first: one line per cause that happened."""
    campaign = sections.get("campaign")
    if campaign is None or "campaign" not in campaign.data:
        return []
    guardians = tuple(campaign.data.get("guardians", ()))
    causes = sorted((c for c in campaign.data["campaign"].get("causes", []) if c["mc"] > 0),
                    key=lambda c: -c["mc"])
    return [f"{labels.percent(c['mc'], c.get('ci_low'), c.get('ci_high'))} "
            f"{labels.cause(c['cause'], guardians)}" for c in causes]


def lethal_cards(sections: Mapping[str, Section], stalker: str) -> list[str]:
    """Per deck, the cards most likely to knock the stalker out (else the most harmful)."""
    out = []
    for key, table, column, harm, per, harm_words in DECKS:
        section = sections.get(key)
        frame = section.tables.get(table) if section else None
        if frame is None or not len(frame):
            continue
        deck = labels.DECKS[key]
        if (frame[KNOCKED_OUT] > 0).any():
            top = frame.sort_values(KNOCKED_OUT, ascending=False, kind="stable").head(TOP_CARDS)
            cards = [(r[column], labels.percent(r[KNOCKED_OUT], r[f"{KNOCKED_OUT}_ci_low"],
                                                r[f"{KNOCKED_OUT}_ci_high"]))
                     for r in top.to_dict("records")]
            (name, pct), rest = cards[0], cards[1:]
            out.append(f"{deck}: {name} knocks {stalker} out in {pct} {per}"
                       + "".join(f", {n} {p}" for n, p in rest))
        elif harm in frame and (frame[harm] > 0).any():
            top = frame.sort_values(harm, ascending=False, kind="stable").head(TOP_CARDS)
            cards = ", ".join(
                f"{r[column]} {labels.number(r[harm], r[f'{harm}_ci_low'], r[f'{harm}_ci_high'])}"
                for r in top.to_dict("records"))
            out.append(f"{deck}: no card knocks {stalker} out; most harmful ({harm_words}): "
                       f"{cards}")
        else:
            out.append(f"{deck}: no card harms {stalker}")
        if key == "enemies" and "enemy_best_play" in section.tables:
            out.append(best_play_line(section.tables["enemy_best_play"]))
    return out


GOOD_PLAY = 0.005
"""Differences of P(knocked out) below half a percentage point are not worth a word."""


def best_play_line(best: pd.DataFrame) -> str:
    """Where good play matters against the enemy deck (exact values, so no interval)."""
    worth = best[best["good_play_worth"] >= GOOD_PLAY].sort_values(
        "good_play_worth", ascending=False, kind="stable")
    head = "enemy deck under best play (each card's exact optimal plan): "
    if worth.empty:
        return head + ("the scenario's policy is within half a percentage point of best play "
                       "on every card")
    cards = ", ".join(f"{r['enemy']} {100 * r['knocked_out_policy_exact']:.1f} % -> "
                      f"{100 * r['knocked_out_best_exact']:.1f} %"
                      for r in worth.head(TOP_CARDS).to_dict("records"))
    rest = len(best) - len(worth)
    return (head + f"good play lowers the knock-outs most against {cards}"
            + (f"; within half a percentage point of the scenario's policy on the other "
               f"{rest} cards" if rest else ""))


def judge_items(value: pd.DataFrame) -> list[dict]:
    """Dominated and overpriced cards of one category (rows of :func:`tables.item_value`).

    Dominated: another card costs no more and helps at least as much (its
    estimate is not below), and is cheaper or detectably better (intervals
    apart). Overpriced: not dominated, and its help per 1,000 rubles is below
    :data:`OVERPRICED_RATIO` of the median of the other cards of the category,
    or its help is not detectably above zero.

    Returns
    -------
    list of dict
        ``{"name", "kind" ("dominated" or "overpriced"), "by" (the dominating
        card or None), "row", "by_row"}``.
    """
    cards = [r for r in value.to_dict("records")
             if r["variant"] != "none" and not math.isnan(r["price"]) and r["price"] > 0]
    found = []
    for a in cards:
        better = [b for b in cards if b is not a and b["price"] <= a["price"]
                  and b["value"] >= a["value"]
                  and (b["price"] < a["price"] or b["value_ci_low"] > a["value_ci_high"])]
        if better:
            b = min(better, key=lambda b: (b["price"], -b["value"]))
            found.append({"name": a["name"], "kind": "dominated", "by": b["name"], "row": a,
                          "by_row": b})
            continue
        others = [b["per_1000"] for b in cards if b is not a]
        median = float(pd.Series(others).median()) if others else math.nan
        if a["value_ci_low"] <= 0 or (others and median > 0
                                      and a["per_1000"] < OVERPRICED_RATIO * median):
            found.append({"name": a["name"], "kind": "overpriced", "by": None, "row": a,
                          "by_row": None, "median": median})
    return found


def _help(row: Mapping) -> str:
    return labels.number(row["value"], row["value_ci_low"], row["value_ci_high"], signed=True,
                         digits=1)


def items_lines(sections: Mapping[str, Section]) -> list[str]:
    """One line per dominated or overpriced item or armour, or one saying there is none."""
    items = sections.get("items")
    values = items.data.get("item_values", {}) if items else {}
    out = []
    for title, value in values.items():
        for f in judge_items(value):
            a = f["row"]
            head = f"{f['name']} ({int(a['price']):,} rubles, {title.lower()})"
            if f["kind"] == "dominated":
                b = f["by_row"]
                out.append(f"dominated: {head}: {b['name']} costs {int(b['price']):,} and helps "
                           f"at least as much ({a['help']}: {_help(b)} against {_help(a)} "
                           "percentage points)")
            elif a["value_ci_low"] <= 0:
                out.append(f"overpriced: {head}: no detectable help ({a['help']}: "
                           f"{_help(a)} percentage points)")
            else:
                per = labels.number(a["per_1000"], a["per_1000_ci_low"], a["per_1000_ci_high"],
                                    digits=1)
                out.append(f"overpriced: {head}: {per} percentage points of {a['help']} per "
                           f"1,000 rubles, against a median of {f['median']:.1f} for the "
                           "others of its kind")
    if values and not out:
        out.append("no item or armour is dominated or overpriced")
    for title, value in values.items():
        cards = [r for r in value.to_dict("records")
                 if r["variant"] != "none" and r["price"] == r["price"] and r["price"] > 0]
        out += [_far_line(f, title.lower(), f["row"]["help"], "the others of its kind")
                for f in outliers.far(cards)]
    return out


def _far_line(f: Mapping, kind: str, help_words: str, rest: str) -> str:
    """One card whose help per 1,000 rubles is far above or below the rest of its kind."""
    a = f["row"]
    per = labels.number(a["per_1000"], a["per_1000_ci_low"], a["per_1000_ci_high"],
                        signed=True, digits=1)
    edge = f["high"] if f["side"] == "above" else f["low"]
    return (f"far {f['side']} the rest: {f['name']} ({int(a['price']):,} rubles, {kind}): "
            f"{per} percentage points of {help_words} per 1,000 rubles (help "
            f"{_help(a)}), against a median of {f['median']:+.1f} for {rest} "
            f"(far: {f['side']} {edge:+.1f}, the median {'+' if f['side'] == 'above' else '-'}"
            f" {outliers.K:g} MAD)" + _as_used_words(a))


def _as_used_words(row: Mapping) -> str:
    """The best use chosen and, as context only, the scenario's own figure (issue 46.2)."""
    if "use" not in row:
        return ""
    return (f"; best use: {row['use']}; used as the scenario uses it: "
            f"{labels.number(*row['scenario'], signed=True, digits=1)} points (context)")


def artifacts_lines(sections: Mapping[str, Section]) -> list[str]:
    """Artefacts whose help per 1,000 rubles is far above or below the others', or one line
    saying there is none; nothing without the artefacts section.
    """
    section = sections.get("artifacts")
    frame = section.data.get("artifacts") if section else None
    if frame is None or not len(frame):
        return []
    rows, words = outliers.artifact_rows(frame)
    out = [_far_line(f, "artefact", words, "the other artefacts") for f in outliers.far(rows)]
    return out or [f"no artefact's help per 1,000 rubles ({words}) is far from the others'"]


def spread_line(sections: Mapping[str, Section]) -> str | None:
    """The spread of the characters' win rates, flagged when wide."""
    section = sections.get("characters")
    frame = section.data.get("characters") if section else None
    if frame is None:
        return None
    found = outliers.spread(frame.to_dict("records"))
    if found is None:
        return None
    best, worst = found["best"], found["worst"]
    text = (f"Spread between characters: {best['variant']} "
            f"{labels.percent(best['mc'])} against {worst['variant']} "
            f"{labels.percent(worst['mc'])}, "
            f"{100 * found['spread']:.1f} pp ({100 * found['low']:.1f} to "
            f"{100 * found['high']:.1f}, from the paired differences to the scenario's "
            "stalker)")
    if found["wide"]:
        return (f"{text}: wide, more than {100 * outliers.WIDE_SPREAD:g} points: the "
                "characters are not balanced for this loadout and policy.")
    return text + "."


def characters_line(sections: Mapping[str, Section]) -> str | None:
    """Each character's win rate, best first, with the scenario's loadout and policy."""
    section = sections.get("characters")
    frame = section.data.get("characters") if section else None
    if frame is None or not len(frame):
        return None
    rows = sorted(frame.to_dict("records"), key=lambda r: -r["mc"])
    return ("Win rate by character (the scenario's loadout and policy, same games): "
            + "; ".join(f"{r['variant']} {labels.percent(r['mc'], r['ci_low'], r['ci_high'])}"
                        for r in rows) + ".")


def win_rates_chart(sections: Mapping[str, Section]):
    """Each character's win rate with its interval, under the scenario's play and best play.

    From the characters section (the scenario's loadout and policy, same games)
    and the best-play section's characters (each under his own best play, fresh
    games); None when neither ran.
    """
    rows = []
    section = sections.get("characters")
    frame = section.data.get("characters") if section else None
    if frame is not None and "variant" in frame:
        rows += [{"character": r["variant"].removesuffix(" (scenario)"),
                  "play": "the scenario's play", "mc": r["mc"], "ci_low": r["ci_low"],
                  "ci_high": r["ci_high"]} for r in frame.to_dict("records")]
    best = sections.get("best_play")
    chars = best.data.get("characters") if best else None
    if chars is not None:
        rows += [{"character": r["stalker"], "play": "best play", "mc": r["best_mc"],
                  "ci_low": r["best_ci_low"], "ci_high": r["best_ci_high"]}
                 for r in chars.rows()]
    if not rows:
        return None
    return plots.win_rates(pd.DataFrame(rows), "Win rate by character (95 % intervals)")


def verdict_section(sc: Scenario, sections: Sequence[Section]) -> Section:
    """The first section of the report, from the battery's sections."""
    by_key = {s.key: s for s in sections}
    section = Section("verdict", "Verdict")
    section.answers = questions.answers(by_key)
    chart = win_rates_chart(by_key)
    if chart is not None:
        section.figures["win_rates"] = chart
    text: list = []
    win = win_rate(by_key) or players.seats_line(by_key)
    text.append(win or "Win rate: not available (no campaign in this version).")
    text += best_play.verdict_lines(by_key)
    lost = losses(by_key)
    if lost:
        text += ["How games are lost, largest first:", lost]
    text += readings.verdict_lines(by_key)
    loadout = ", ".join([sc.armor or "no armour", *sc.weapons, *sc.items])
    text += [f"Most lethal cards for {sc.stalker} ({loadout}; policy sneak="
             f"{sc.policy.sneak}), per card met:", lethal_cards(by_key, sc.stalker)]
    items = items_lines(by_key)
    if items:
        text += ["Items and armours for the money (help: paired difference to carrying none, "
                 "on the deck):", items]
    arts = artifacts_lines(by_key)
    if arts:
        text += ["Artefacts for the money (help per 1,000 rubles against the others'):", arts]
    characters = characters_line(by_key)
    if characters:
        text.append(characters)
    spread = spread_line(by_key)
    if spread:
        text.append(spread)
    fix = rebalance.command_line(sc, by_key)
    if fix:
        text.append(fix)
    text.append("Percentages and numbers: estimate (95 % interval). Details and every "
                "table follow; the provenance and the full summary are at the end.")
    section.text = text
    return section
