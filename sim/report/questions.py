"""The report's first screen: one answer per question a designer asks, each with its interval.

Issue 47 item 3 and issue 46 item 5. A designer opens the report to ask a
handful of questions; each gets one line here, built from the sections the
battery already ran (nothing is simulated), with its 95 % interval and the key
of the section that gives the details (the pages link to it):

- is the win rate on target, and how far from the target's nearest edge;
- how often the stalker reaches the Sarcophagus, and survives it once there
  (the win rate is the product, P-50);
- what the Sarcophagus holds: the assumed card and the win rate with every
  other enemy card there (``sarcophagus.csv`` is an assumption; P-50 names no
  card), from the readings;
- whether the characters are balanced, under the scenario's play and best play;
- whether a seat is too strong (a multiplayer scenario);
- the card most out of line with the others of its kind;
- what good play is worth;
- the reading of an open rule that matters most.

A PASS is never said alone: the answer names how far the estimate is from the
nearest edge of the band, and every imbalance flagged further down
(:func:`flags`) follows it (:func:`sim.report.labels.edge_words`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sim.experiments.campaign_metrics import REACH, SURVIVE_SARCOPHAGUS, WIN_RATE
from sim.report import labels, outliers
from sim.report.readings import measured, seats
from sim.report.tables import Section
from sim.workflows.readings import RULE, SARCOPHAGUS


@dataclass(frozen=True)
class Answer:
    """One line of the first screen.

    Attributes
    ----------
    question : str
        The designer's question, in words.
    answer : str
        The answer with its interval (plain text: names in it are data).
    section : str
        Key of the section with the details (an anchor on both pages).
    """

    question: str
    answer: str
    section: str


def target_rows(sections: Mapping[str, Section]) -> list[dict]:
    """The targets table's rows (empty without targets)."""
    section = sections.get("targets")
    frame = section.tables.get("targets") if section else None
    return [] if frame is None else frame.to_dict("records")


def flags(sections: Mapping[str, Section]) -> list[str]:
    """Every imbalance the report flags below the headline, in a few words each.

    A wide spread between characters (under the scenario's play or best play),
    a failed or undecided target, a card far above or below the rest of its
    kind, a verdict best play flips. A PASS on the first screen is followed by
    these, so it never reassures alone.
    """
    out = []
    out += [f"{r['target']} {r['verdict']}" for r in target_rows(sections)
            if r["verdict"] != "PASS"]
    spread = _spread(sections)
    if spread is not None and spread["wide"]:
        out.append(f"characters {100 * spread['spread']:.0f} points apart (wide)")
    best = _best_spread(sections)
    if best is not None and best["ci_low"] > outliers.WIDE_SPREAD:
        out.append(f"characters {100 * best['spread']:.0f} points apart under best play")
    card = out_of_line(sections)
    if card is not None:
        out.append(f"{card['name']} far {card['side']} the other {card['kind']}")
    best_play = sections.get("best_play")
    out += [f"{f['target']} {f['best']} under best play"
            for f in (best_play.data.get("flipped", []) if best_play else [])]
    return out


def _spread(sections: Mapping[str, Section]) -> dict | None:
    section = sections.get("characters")
    frame = section.data.get("characters") if section else None
    if frame is None or "diff" not in frame:
        return None
    return outliers.spread(frame.to_dict("records"))


def _best_characters(sections: Mapping[str, Section]):
    section = sections.get("best_play")
    return section.data.get("characters") if section else None


def _best_spread(sections: Mapping[str, Section]) -> dict | None:
    chars = _best_characters(sections)
    return chars.spread("best") if chars is not None else None


def out_of_line(sections: Mapping[str, Section]) -> dict | None:
    """The card furthest outside the band of the others of its kind (help per 1,000 rubles).

    Among items, armours and artefacts flagged far above or below the rest
    (:func:`sim.report.outliers.far`), the one whose estimate lies most band
    widths from the median; None when no card is flagged.
    """
    found = []
    items = sections.get("items")
    for title, value in (items.data.get("item_values", {}) if items else {}).items():
        cards = [r for r in value.to_dict("records")
                 if r["variant"] != "none" and r["price"] == r["price"] and r["price"] > 0]
        found += [{**f, "kind": title.lower()} for f in outliers.far(cards)]
    section = sections.get("artifacts")
    frame = section.data.get("artifacts") if section else None
    if frame is not None and len(frame):
        rows, _ = outliers.artifact_rows(frame)
        found += [{**f, "kind": "artefacts"} for f in outliers.far(rows)]
    if not found:
        return None

    def distance(f: dict) -> float:
        width = (f["high"] - f["median"]) or 1e-12
        return abs(f["row"]["per_1000"] - f["median"]) / width

    return max(found, key=distance)


def answers(sections: Mapping[str, Section]) -> list[Answer]:
    """The first screen's answers, in the order a designer asks; a question the report
    has no section for is left out.
    """
    out = []
    for build in (_win_rate, _reach, _sarcophagus, _characters, _seats, _card, _good_play,
                  _reading):
        found = build(sections)
        if found is not None:
            out.append(found)
    return out


def _win_rate(sections: Mapping[str, Section]) -> Answer | None:
    campaign = sections.get("campaign")
    found = campaign.values.get(WIN_RATE) if campaign else None
    if found is None:
        return None
    text = labels.percent(*found)
    rows = target_rows(sections)
    win = [r for r in rows if r["metric"] == WIN_RATE]
    if win:
        r = win[0]
        text += (f"; target {100 * r['low']:g}-{100 * r['high']:g} %: {r['verdict']}, "
                 f"{labels.edge_words(r)}")
    else:
        text += "; no target set ([targets] p_sarcophagus)"
    others = [f"{r['target']}: {r['verdict']}, {labels.edge_words(r)}" for r in rows
              if r["metric"] != WIN_RATE]
    if others:
        text += "; other targets: " + "; ".join(others)
    flagged = flags(sections)
    if any(r["verdict"] == "PASS" for r in rows) and flagged:
        text += "; but flagged below: " + ", ".join(flagged)
    return Answer("Is the win rate on target?", text, "targets" if rows else "campaign")


def _reach(sections: Mapping[str, Section]) -> Answer | None:
    campaign = sections.get("campaign")
    data = campaign.data.get("campaign") if campaign else None
    if not data or SURVIVE_SARCOPHAGUS not in data:
        return None
    reach, survive = data[REACH], data[SURVIVE_SARCOPHAGUS]
    if survive["mc"] is None:
        return Answer("Does the stalker reach the Sarcophagus, and survive it?",
                      f"reach {labels.percent(reach['mc'])}: no game got there", "campaign")
    return Answer("Does the stalker reach the Sarcophagus, and survive it?",
                  f"reaches it in {labels.percent(reach['mc'], reach['ci_low'], reach['ci_high'])}"
                  " of games; survives it in "
                  f"{labels.percent(survive['mc'], survive['ci_low'], survive['ci_high'])} of "
                  "those (the win rate is the product, P-50)", "campaign")


def _sarcophagus(sections: Mapping[str, Section]) -> Answer | None:
    section = sections.get("readings")
    result = section.data.get("readings") if section else None
    rows = result.of_kind(SARCOPHAGUS) if result is not None else []
    if not rows or WIN_RATE not in result.baseline:  # a multiplayer game's: the seats'
        return None
    base = result.baseline[WIN_RATE]
    ordered = sorted(rows, key=lambda r: r["mc"])
    low, high = ordered[0], ordered[-1]
    return Answer(
        "What does the Sarcophagus hold?",
        f"assumed: {rows[0]['current']} (no rule text names it, P-50; sarcophagus.csv), "
        f"win rate {labels.percent(base['mc'], base['ci_low'], base['ci_high'])} in the "
        f"readings' {result.trials:,} games; with "
        f"another enemy card there from {labels.percent(low['mc'], low['ci_low'], low['ci_high'])}"
        f" ({low['value']}) to {labels.percent(high['mc'], high['ci_low'], high['ci_high'])} "
        f"({high['value']}), paired on the same games", "readings")


def _characters(sections: Mapping[str, Section]) -> Answer | None:
    spread, best = _spread(sections), _best_spread(sections)
    parts = []
    if spread is not None:
        parts.append(f"under the scenario's play {spread['best']['variant']} "
                     f"{labels.percent(spread['best']['mc'])} against "
                     f"{spread['worst']['variant']} {labels.percent(spread['worst']['mc'])}: "
                     f"{100 * spread['spread']:.1f} points apart ({100 * spread['low']:.1f} to "
                     f"{100 * spread['high']:.1f})" + (", wide" if spread["wide"] else ""))
    if best is not None:
        parts.append(f"under best play {best['best_character']} over "
                     f"{best['worst_character']}: {100 * best['spread']:.1f} points apart "
                     f"({100 * best['ci_low']:.1f} to {100 * best['ci_high']:.1f})")
    if not parts:
        return None
    return Answer("Are the characters balanced?", "; ".join(parts),
                  "characters" if spread is not None else "best_play")


def _seats(sections: Mapping[str, Section]) -> Answer | None:
    seats = sections.get("seats")
    if seats is None or "seats" not in seats.tables:
        return None
    rows = seats.tables["seats"].to_dict("records")
    found = [(r, seats.values["win.seat" + str(r["seat"])]) for r in rows]
    top = max(found, key=lambda f: f[1][0])
    bottom = min(found, key=lambda f: f[1][0])
    return Answer("Is a seat too strong?",
                  f"seat {top[0]['seat']} ({top[0]['character']}) wins "
                  f"{labels.percent(*top[1])}, seat {bottom[0]['seat']} "
                  f"({bottom[0]['character']}) {labels.percent(*bottom[1])}", "seats")


def _card(sections: Mapping[str, Section]) -> Answer | None:
    card = out_of_line(sections)
    if card is None:
        if sections.get("items") is None and sections.get("artifacts") is None:
            return None
        return Answer("Which card is most out of line?",
                      "none: no item, armour or artefact is far from the others of its kind "
                      "(help per 1,000 rubles)", "items")
    row = card["row"]
    per = labels.number(row["per_1000"], row["per_1000_ci_low"], row["per_1000_ci_high"],
                        signed=True, digits=1)
    return Answer("Which card is most out of line?",
                  f"{card['name']} ({card['kind']}): {per} percentage points of {row['help']} "
                  f"per 1,000 rubles, against a median of {card['median']:+.1f} for the others",
                  "artifacts" if card["kind"] == "artefacts" else "items")


def _good_play(sections: Mapping[str, Section]) -> Answer | None:
    section = sections.get("best_play")
    result = section.data.get("best_play") if section else None
    if result is None or result.reevaluation is None:
        return None
    fresh = result.reevaluation
    best, diff = fresh["winner_estimate"], fresh["vs_scenario"]
    rate = labels.percent(best["mc"], best["ci_low"], best["ci_high"])
    return Answer("What is good play worth?",
                  f"win rate under best play {rate}"
                  f", {100 * diff['diff']:+.1f} points over the scenario's policy "
                  f"({100 * diff['diff_ci_low']:+.1f} to {100 * diff['diff_ci_high']:+.1f}, "
                  "paired, fresh games)", "best_play")


def _reading(sections: Mapping[str, Section]) -> Answer | None:
    section = sections.get("readings")
    result = section.data.get("readings") if section else None
    top = result.top(1, RULE) if result is not None else []
    if not top:
        return None
    r = top[0]
    return Answer("Which reading of the rules matters most?",
                  f"{r['key']} = {r['value']} instead of {r['current']}: "
                  f"{100 * r['diff']:+.1f} points ({100 * r['diff_ci_low']:+.1f} to "
                  f"{100 * r['diff_ci_high']:+.1f}) of {measured(result)} ({r['rules']})"
                  + (f"; a seat's win or nobody winning moves by {100 * r['effect']:.1f} "
                     "points" if seats(result) else ""), "readings")
