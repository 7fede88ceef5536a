"""The same words everywhere (issue 47, item 4): "win" and "reach" say what they show.

A win is reaching the Sarcophagus and surviving what waits there (``p_sarcophagus``,
P-50); the reach is getting there, survived or not (``p_reach_sarcophagus``). The
artefact table and plot said "P(reach the Sarcophagus)" and the days histogram "days to
reach" while they showed wins (74 % reach, 36 % win on base). This scan reads every
label a designer sees for a campaign number (the metrics' declared labels, the axes and
titles the report's plots draw, the report's column headings and captions) and checks
each against the metric it shows: a label that says "reach" (other than in "reach and
survive", the win's definition) belongs to the reach; a win's label says "win" or "won"
and not the bare "reach". A guard shows the scan fails on a mislabel. The glossary at the
top of report.md and report.html says what win, reach and a knock-out (not a death,
P-37, P-43) mean.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from sim.experiments import campaign_metrics as C
from sim.experiments import registry
from sim.report import artifacts, html, labels, markdown, plots, tables
from sim.report.levers import tornado
from sim.rules.scenario import load_scenario
from sim.workflows import best_use
from sim.workflows.levers import COLUMNS

WIN = re.compile(r"\b(win|wins|won|winning)\b", re.IGNORECASE)
REACH = re.compile(r"\breach(es|ed|ing)?\b(?! and surviv)", re.IGNORECASE)
"""The reach, not the win's definition ("reach and survive", "reached and survived")."""
WINS = {C.WIN_RATE, "won", C.SEAT_WIN, *C.DAY_LABELS, artifacts.GAMES, best_use.STEM}
"""The metrics that show wins: the win rate, the days of the games won, a seat's win."""
REACHES = {C.REACH}


def says(text: str) -> set[str]:
    """Which of the two words ``text`` uses."""
    return {word for word, pattern in (("win", WIN), ("reach", REACH)) if pattern.search(text)}


def mislabelled(pairs) -> list[tuple[str, str]]:
    """The ``(metric, label)`` pairs whose label's words do not fit the metric it shows."""
    bad = []
    for metric, text in pairs:
        words = says(text)
        if metric in WINS:
            wrong = "win" not in words or "reach" in words
        elif metric in REACHES:
            wrong = words != {"reach"}
        else:  # any other number: never the bare reach, never headed by the win
            wrong = "reach" in words or bool(WIN.match(text.removeprefix("P(")))
        if wrong:
            bad.append((metric, text))
    return bad


def _texts(figure) -> list[str]:
    """The words a figure draws: its titles, axis labels, legend entries and notes (not the
    tick labels, which are numbers or names)."""
    texts = [figure._suptitle] if figure._suptitle is not None else []
    for ax in figure.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        if ax.get_legend() is not None:
            texts += ax.get_legend().get_texts()
    texts += [t for legend in figure.legends for t in legend.get_texts()]
    return [t.get_text() for t in texts if t.get_text().strip()]


def test_the_scan_catches_a_mislabel():
    assert mislabelled([(C.WIN_RATE, "P(reach the Sarcophagus)")])
    assert mislabelled([(artifacts.GAMES, "P(reach the Sarcophagus), whole games")])
    assert mislabelled([(C.DAYS_MEDIAN, "Days to reach the Sarcophagus")])
    assert mislabelled([(C.REACH, "win rate")])
    assert mislabelled([(C.FINAL_EMISSION, "reach the Final Emission")])
    assert not mislabelled([(C.WIN_RATE, "win (reach and survive the Sarcophagus)"),
                            (C.REACH, "reach the Sarcophagus (survive it or not)"),
                            ("won", "won (reached and survived the Sarcophagus)")])


def test_declared_labels_say_what_they_show():
    pairs = [*C.LABELS.items(),
             *((f"causes.{c}" if c != "reached" else "won", text)
               for c, text in C.CAUSE_LABELS.items()),
             *((name, m.label) for name, m in registry.metrics().items() if m.label)]
    assert not mislabelled(pairs)


def test_plot_axes_and_titles_say_what_they_show():
    shares = [m[0] for m in C.METRICS if m[1] == "proportion"]
    pairs = [(m, plots.label(m)) for m in shares]
    assert plots.label(C.WIN_RATE) == "P(win)"
    assert plots.label(C.REACH) == "P(reach the Sarcophagus)"
    days = plots.days_histogram({"histogram": [0, 3, 5, 2], "mean": 2.0, "median": 2.0})
    pairs += [(C.DAYS_MEAN, t) for t in _texts(days) if not t.startswith(("mean ", "median "))
              and t != "day"]
    pairs += [(key if key != "dead" else "lost", text)
              for key, text in plots.OUTCOME_WORDS.items()]
    ranking = pd.DataFrame([{c: 0.01 for c in COLUMNS} | {"path": "enemies.X.endurance",
                                                            "skipped": ""}])
    for metric in (C.WIN_RATE, C.REACH):
        figure = tornado(ranking, metric, 0.4)
        pairs += [(metric, t) for t in _texts(figure) if "Levers" in t or "change of" in t]
    stems = pd.DataFrame({"artifact": ["A"], "price": [100],
                          **{f"{stem}_{part}": [0.01] for stem, _ in artifacts.CHANGES
                             for part in ("mc", "ci_low", "ci_high", "exact",
                                          "per_1000_rubles", "per_1000_rubles_ci_low",
                                          "per_1000_rubles_ci_high")}})
    chart = artifacts.figure(stems, "Artefacts against carrying none")
    for stem, what in artifacts.CHANGES:
        pairs += [(stem, t) for t in _texts(chart) if t.startswith(f"change in {what}\n")]
        pairs += [(stem, c) for c in artifacts.readable(stems).columns if c.startswith(what)]
    assert any(m == artifacts.GAMES for m, _ in pairs)
    assert not mislabelled(pairs)


@pytest.fixture(scope="module")
def campaign():
    return tables.campaign_section(load_scenario(), 2_000, 5)


def test_the_campaign_section_says_what_it_shows(campaign):
    pairs = [(C.DAYS_MEAN, t) for t in _texts(campaign.figures["campaign_days"])
             if not t.startswith(("mean ", "median ")) and t != "day"]
    for key, figure in campaign.figures.items():
        if key != "campaign_days":
            pairs += [("figure " + key, t) for t in _texts(figure)
                      if not WIN.match(t)]  # the legends' "won (...)" entries are the wins
    rows = campaign.shown["Campaign statistics"].to_dict("records")
    pairs += [(r["name"], r["metric"]) for r in rows]
    pairs += [("heading", caption) for caption in campaign.shown]
    pairs += [("text", line) for line in campaign.text if isinstance(line, str)]
    assert not mislabelled(pairs)


def test_the_report_opens_with_a_glossary_of_the_words():
    meta = {"scenario": "base", "seed": 1}
    md = markdown.render("Report", meta, [], pd.DataFrame(), {})
    page = html.render("Report", meta, [], pd.DataFrame(), {})
    head = md.split("## ", 1)[0]
    for term in ("win", "reach", "knock-out"):
        assert f"- **{term}**:" in head
        assert f"<dt>{term}</dt>" in page.split("<h2", 1)[0]
    assert "not a death" in head and "not a death" in page
    assert dict(labels.GLOSSARY)["win"].startswith("the stalker reaches the Sarcophagus and "
                                                   "survives")


def test_the_campaign_table_gives_its_shares_as_percentages():
    from click.testing import CliRunner

    from sim.cli import main

    args = ["campaign", "--trials", "2000", "--seed", "3", "--quiet"]
    lines = CliRunner().invoke(main, args).stdout.splitlines()
    doc = CliRunner().invoke(main, [*args, "--format", "json"]).stdout
    win = next(line for line in lines if line.split()[0] == C.WIN_RATE)
    reach = next(line for line in lines if line.split()[0] == C.REACH)
    share = json.loads(doc)[C.WIN_RATE]
    assert win.split()[-6:] == [f"{100 * share['mc']:.1f}", "%", f"{100 * share['ci_low']:.1f}",
                                "%", f"{100 * share['ci_high']:.1f}", "%"]
    assert reach.endswith("%") and "win" not in reach.split("(")[0]
    days = next(line for line in lines if line.split()[0] == C.DAYS_MEDIAN)
    assert "%" not in days  # a number of days stays a number
