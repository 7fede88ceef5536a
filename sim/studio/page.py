"""The studio's one page, rendered on the server from the settings table and the scenario.

Every input is generated from a row of :mod:`sim.rules.settings` (its type and domain
choose the input: a list of choices, a bounded number, a list of cards as text), with the
row's doc line and rule IDs as the hover text; the card tables are grids of their cells
as the CSV files write them. Every name and value goes through :func:`html.escape`, so a
card named ``<script>alert(1)</script>`` is text; the script (``static/studio.js``) only
ever sets ``textContent``.
"""

from __future__ import annotations

import csv
import html
from pathlib import Path

from sim.rules.scenario import Scenario
from sim.rules.schema import NOTES, PARAMS, TABLES
from sim.rules.settings import Setting, of_kind, plain
from sim.studio.reports import REPORT_CAMPAIGN_TRIALS, REPORT_TRIALS
from sim.workflows import whatif
from sim.workflows.rebalance import scenario_goals

METHOD = (
    "Every interval is an anytime-valid 95 % confidence sequence: the predictable plug-in "
    "empirical-Bernstein confidence sequence of Waudby-Smith and Ramdas (Estimating means "
    "of bounded random variables by betting, JRSS B, 2024). It holds at every number of "
    "games at once, so you may watch the numbers and stop when they look decided without "
    "losing the 95 % coverage (a fixed-sample interval watched that way misses far more "
    "often). The baseline and the variant play the same games on common random numbers "
    "(game t of both rolls the dice of (seed, t)), so the paired difference is narrower "
    "than either estimate. The same seed, edits and number of games give the same numbers.")
"""The page's help on the intervals (:class:`sim.stats.ConfidenceSequence`)."""

def e(text: object) -> str:
    """Text as HTML text or an attribute value: never markup."""
    return html.escape(str(text), quote=True)


def hover(s: Setting) -> str:
    """A setting's doc line and rule IDs, as its input's title."""
    rules = f" [{', '.join(s.rules)}]" if s.rules else ""
    return f"{s.name}: {plain(s.doc)}{rules} ({s.domain})"


def shown(value: object) -> str:
    """A setting's value as its input holds it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def _input(s: Setting, value: object, options: list[str] | None = None) -> str:
    """One setting's input: a select for choices, a number within its range, else text."""
    base = shown(value)
    attrs = f'name="{e(s.name)}" data-base="{e(base)}" title="{e(hover(s))}"'
    if options is None and s.choices:
        options = [shown(c) for c in s.choices]
    if options is not None:
        opts = "".join(f'<option{" selected" if o == base else ""}>{e(o)}</option>'
                       for o in options)
        return f"<select {attrs}>{opts}</select>"
    if s.type in ("int", "float"):
        param = next((p for p in PARAMS if f"{p.section}.{p.key}" == s.name), None)
        lo, hi = (param.lo, param.hi) if param else (None, None)
        if s.kind == "policy":
            lo = 0
        bounds = "".join(f' {k}="{e(x)}"' for k, x in (("min", lo), ("max", hi)) if x is not None)
        step = ' step="any"' if s.type == "float" else ""
        return f'<input type="number" {attrs}{bounds}{step} value="{e(base)}">'
    return f'<input type="text" {attrs} value="{e(base)}">'


def _options(s: Setting, scenario: Scenario) -> list[str] | None:
    rs = scenario.ruleset
    if s.name == "stalker":
        return list(rs.stalkers)
    if s.name == "loadout.armor":
        return ["none", *rs.armor]
    return None


def _row(s: Setting, scenario: Scenario) -> str:
    return (f'<tr><th title="{e(hover(s))}">{e(s.name)}</th>'
            f"<td>{_input(s, s.value(scenario), _options(s, scenario))}</td>"
            f'<td class="problem" data-for="{e(s.name)}"></td></tr>')


def settings_table(kind: str, scenario: Scenario) -> str:
    """The inputs of one kind of setting (``rule``, ``policy``, ``loadout``)."""
    rows = [_row(s, scenario) for s in of_kind(kind)
            if whatif.editable(s) and s.type != "table"]
    return f'<table class="settings">{"".join(rows)}</table>'


def cell_texts(scenario: Scenario, table: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """A card table's columns and each card's cells as its CSV file writes them."""
    path = Path(scenario.ruleset.path) / f"{table}.csv"
    with open(path, encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    columns = [c.name for c in TABLES[table] if c.name not in ("name", NOTES.name)]
    return columns, {r["name"]: {c: r.get(c) or "" for c in columns} for r in rows}


def card_grid(scenario: Scenario, table: str) -> str:
    """One card table as an editable grid: a row per card, an input per cell."""
    columns, cards = cell_texts(scenario, table)
    known = {s.name: s for s in of_kind("card")}
    head = "".join(f'<th title="{e(hover(known[f"{table}.{c}"]))}">{e(c)}</th>'
                   for c in columns)
    body = []
    for card, cells in cards.items():
        inputs = "".join(
            f'<td><input type="text" size="6" name="{e(f"{table}.{card}.{c}")}" '
            f'data-base="{e(cells[c])}" value="{e(cells[c])}" '
            f'title="{e(hover(known[f"{table}.{c}"]))}"></td>' for c in columns)
        body.append(f'<tr><th class="card">{e(card)}</th>{inputs}</tr>')
    return (f'<details class="cards"><summary>{e(table)}.csv ({len(cards)} cards)</summary>'
            f'<table class="grid" data-table="{e(table)}"><tr><th>name</th>{head}</tr>'
            f'{"".join(body)}</table></details>')


def render(scenario: Scenario, name: str, scenarios: list[str],
           report_trials: tuple[int, int] = (REPORT_TRIALS, REPORT_CAMPAIGN_TRIALS)) -> str:
    """The whole page for ``scenario`` (called ``name``; ``scenarios``: those it may open;
    ``report_trials``: the Report button's trials per table and games).
    """
    trials, games = report_trials
    tables = "".join(card_grid(scenario, t) for t in TABLES
                     if (Path(scenario.ruleset.path) / f"{t}.csv").is_file())
    picks = "".join(f'<option{" selected" if s == name else ""}>{e(s)}</option>'
                    for s in scenarios)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>zonesim studio: {e(name)}</title>
<link rel="stylesheet" href="/static/studio.css">
</head><body data-scenario="{e(name)}">
<header><h1>zonesim studio</h1>
<form method="get" action="/" id="pick">scenario <select name="scenario">{picks}</select>
<button type="submit">open</button></form>
<span id="compile" class="compile">compiling kernels...</span></header>
<main>
<section id="inputs"><h2>Edits of {e(name)}</h2>
<p class="hint">Change any value; each edit is checked as it is made, with the messages of
<code>zonesim validate</code>. Hover a name for its meaning and rule IDs.</p>
<div id="problems" class="problems"></div>
<details open><summary>Scenario: stalker and loadout</summary>{settings_table("loadout", scenario)}
</details>
<details><summary>Policy</summary>{settings_table("policy", scenario)}</details>
<details><summary>Rules (rules.toml)</summary>{settings_table("rule", scenario)}</details>
<h3>Cards</h3>{tables}
</section>
<section id="run"><h2>Run: baseline against the edited variant</h2>
<div class="controls">
<label>seed <input type="number" id="seed" min="0" value="1"></label>
<label>games <input type="number" id="games" min="1" max="10000000" value="20000"></label>
<button id="start" type="button">Run</button>
<button id="stop" type="button" disabled>Stop</button>
<button id="share" type="button">Copy URL</button>
<button id="export" type="button">Export edits (zip)</button>
</div>
<p id="edits" class="edits"></p>
<p id="status" class="status">no run yet</p>
<table id="results" class="results"><thead><tr><th>metric</th><th>baseline</th>
<th>variant</th><th>difference (paired)</th><th>on shared axes</th></tr></thead>
<tbody></tbody></table>
<h3>Touched cards</h3>
<table id="cards" class="results"><thead><tr><th>card</th><th>metric</th><th>baseline</th>
<th>variant</th><th>difference</th></tr></thead><tbody></tbody></table>
<h3>History</h3>
<p class="hint">Every run of this tab. Revert restores its inputs; tick two to see them side
by side.</p>
<table id="history" class="results"><tbody></tbody></table>
<div id="pair"></div>
<details id="bestplay"><summary>Best play: each side under a good player's policy</summary>
<p class="hint">zonesim optimize's search of the policy and loadout, for the baseline and then
the variant, in the background (a minute or two): each side's win rate under best play and
under the scenario's policy, and the skill gap (best play minus a naive policy), on fresh
games.</p>
<div class="controls"><button id="best" type="button">Search best play</button>
<button id="best-stop" type="button" disabled>Stop</button></div>
<p id="best-status" class="status"></p>
<table id="best-table" class="results"><thead><tr><th>side</th><th>win rate, best play</th>
<th>win rate, scenario's policy</th><th>skill gap</th><th>best policy</th></tr></thead>
<tbody></tbody></table>
</details>
<details id="rebalance"><summary>Rebalance: suggested edits for balance targets</summary>
<p class="hint">zonesim rebalance in the background: the fewest card and rule edits that meet
every target, raced on common random numbers and played again on fresh games. One target a
line (default: the scenario's); levers are setting patterns such as enemies.*.endurance
(empty: every lever). Apply sets a suggestion's edits as the inputs.</p>
<textarea id="targets" rows="3" cols="50">{e(chr(10).join(scenario_goals(scenario)))}</textarea>
<div class="controls"><label>levers <input type="text" id="levers" value=""></label>
<button id="suggest" type="button">Suggest</button>
<button id="suggest-stop" type="button" disabled>Stop</button></div>
<p id="suggest-status" class="status"></p>
<table id="suggestions" class="results"><tbody></tbody></table>
</details>
<details id="report"><summary>Report: before and after, as a results folder</summary>
<p class="hint">zonesim report --baseline in the background: the scenario as loaded against
the edited variant, every table of the standard battery with baseline, variant and
difference, written as a new folder on the server (never over another) and linked here.
From the page it plays {trials:,} trials per table and {games:,} games, fewer than the
command's defaults, so its intervals are wider; a few minutes.</p>
<div class="controls"><button id="write-report" type="button">Report</button>
<button id="report-stop" type="button" disabled>Stop</button></div>
<p id="report-status" class="status"></p>
<p id="report-done" class="status"></p>
</details>
<details><summary>Help: how the intervals are made</summary><p id="method">{e(METHOD)}</p>
</details>
</section></main>
<script src="/static/studio.js"></script>
</body></html>
"""
