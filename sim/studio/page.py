"""The studio's one page, rendered on the server from the settings table and the scenario.

Every input is generated from a row of :mod:`sim.rules.settings` (its type and domain
choose the input: a list of choices, a bounded number, a list of cards as text), with the
row's doc line and rule IDs as the hover text; a table setting (``policy.artifact_use``,
``policy.weights``, ``targets``) is a grid made from its
:attr:`~sim.rules.settings.Setting.entries` (a row per key, an input fitting each entry's
form and bounds); the card tables and the map (a row per hex ``q,r``) are grids of their
cells as the CSV files write them. Every name and value goes through :func:`html.escape`,
so a card named ``<script>alert(1)</script>`` is text; the script (``static/studio.js``)
only ever sets ``textContent``.
"""

from __future__ import annotations

import csv
import html
from pathlib import Path

from sim.report.tables import target_metrics
from sim.rules.cardfile import ROW_KEYS, row_key
from sim.rules.scenario import Scenario
from sim.rules.schema import MAP, MAP_COLUMNS, PARAMS, TABLES
from sim.rules.settings import Setting, by_name, of_kind, plain
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
    """The inputs of one kind of setting (``rule``, ``policy``, ``loadout``): a row per
    setting, then a grid per table setting (:func:`entries_grid`).
    """
    chosen = [s for s in of_kind(kind) if whatif.editable(s)]
    rows = [_row(s, scenario) for s in chosen if s.entries is None]
    grids = [entries_grid(s, scenario) for s in chosen if s.entries is not None]
    return f'<table class="settings">{"".join(rows)}</table>{"".join(grids)}'


def entry_keys(s: Setting, scenario: Scenario) -> list[str]:
    """The rows of table setting ``s``: its declared keys, the cards of the table that
    names them (``artifacts``), or any metric a target may name (its own first).
    """
    assert s.entries is not None
    if s.entries.keys:
        return list(s.entries.keys)
    if s.entries.cards:
        return list(getattr(scenario.ruleset, s.entries.cards))
    return list(dict.fromkeys([*s.value(scenario), *target_metrics()]))


def _use_options(scenario: Scenario, s: Setting, base: str) -> list[tuple[str, str]]:
    """A ``use`` entry's choices (value, words): each word, then each Health up to the
    stalker card's (a Health above his acts as his), and the value held if it is another.
    """
    assert s.entries is not None
    card = scenario.ruleset.stalkers.get(scenario.stalker)
    top = int(getattr(card, "health", s.entries.lo or 1))
    out = [(w, w) for w in s.entries.words]
    out += [(str(h), f"at Health {h} or less") for h in range(int(s.entries.lo or 1), top + 1)]
    return out + ([(base, f"at Health {base} or less")] if base not in dict(out) else [])


def _entry_input(s: Setting, scenario: Scenario, name: str, base: str) -> str:
    """One entry's input: a choice of uses, a bounded number or a range's bound."""
    assert s.entries is not None
    attrs = f'name="{e(name)}" data-base="{e(base)}" title="{e(hover(s))}"'
    if s.entries.value == "use":
        opts = "".join(f'<option value="{e(x)}"{" selected" if x == base else ""}>{e(words)}'
                       "</option>" for x, words in _use_options(scenario, s, base))
        return f"<select {attrs}>{opts}</select>"
    bounds = "".join(f' {k}="{e(x)}"' for k, x in (("min", s.entries.lo), ("max", s.entries.hi))
                     if x is not None)
    empty = "no target" if s.entries.value == "range" else "default"
    return (f'<input type="number" step="any"{bounds} {attrs} value="{e(base)}" '
            f'placeholder="{empty}">')


def entries_grid(s: Setting, scenario: Scenario) -> str:
    """Table setting ``s`` as a grid: a row per key (:func:`entry_keys`), an input per entry
    (its edit ``SETTING.KEY``, or ``targets.METRIC.low`` and ``.high``); an empty entry is
    the default (no weight given, no target).
    """
    assert s.entries is not None
    value = s.value(scenario)
    if s.entries.value == "use":
        words = dict(zip((None, 0), s.entries.words, strict=True))
        cells = {k: [words.get(value.get(k), str(value.get(k)))] for k in entry_keys(s, scenario)}
        heads = ["use"]
    elif s.entries.value == "range":
        cells = {k: [shown_number(x) for x in value.get(k, ("", ""))]
                 for k in entry_keys(s, scenario)}
        heads = list(whatif.BOUNDS)
    else:
        cells = {k: [shown_number(value.get(k, ""))] for k in entry_keys(s, scenario)}
        heads = ["value"]
    rows = []
    for key, bases in cells.items():
        names = ([f"{s.name}.{key}.{h}" for h in heads] if s.entries.value == "range"
                 else [f"{s.name}.{key}"])
        inputs = "".join(f"<td>{_entry_input(s, scenario, n, b)}</td>"
                         for n, b in zip(names, bases, strict=True))
        problem = f'<td class="problem" data-for="{e(names[0])}"></td>'
        rows.append(f'<tr><th class="card">{e(key)}</th>{inputs}{problem}</tr>')
    head = "".join(f"<th>{e(h)}</th>" for h in heads)
    return (f'<details class="entries"><summary title="{e(hover(s))}">{e(s.name)} '
            f'({e(s.domain)})</summary><table class="grid" data-setting="{e(s.name)}">'
            f'<tr><th>{e("key" if s.entries.keys else s.entries.cards or "metric")}</th>{head}'
            f'<th></th></tr>{"".join(rows)}</table></details>')


def shown_number(x: object) -> str:
    """A table entry's number as its input holds it (a whole float without ``.0``)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def cell_texts(scenario: Scenario, table: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """A card table's (or the map's) edited columns and each card's (hex's, ``q,r``) cells
    as its CSV file writes them.
    """
    path = Path(scenario.ruleset.path) / f"{table}.csv"
    with open(path, encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file))
    header, by = rows[0], ROW_KEYS.get(table, ("name",))
    columns = [c.name for c in (MAP_COLUMNS if table == MAP else TABLES[table])
               if whatif.editable(by_name()[f"{table}.{c.name}"]) and c.name not in by]
    at = {c: header.index(c) for c in columns if c in header}
    return columns, {row_key(header, r, by): {c: r[at[c]] if c in at and at[c] < len(r) else ""
                                              for c in columns} for r in rows[1:] if r}


def _cell(s: Setting, name: str, base: str) -> str:
    """A grid cell's input: a select of a choice column's values, else text (the column's
    header holds the hover text).
    """
    attrs = f'name="{e(name)}" data-base="{e(base)}"'
    if s.type == "choice":
        options = list(dict.fromkeys(["", *s.choices, base] if "empty" in s.domain
                                     else [*s.choices, base]))
        opts = "".join(f'<option{" selected" if o == base else ""}>{e(o)}</option>'
                       for o in options)
        return f"<select {attrs}>{opts}</select>"
    return f'<input type="text" size="6" {attrs} value="{e(base)}">'


def card_grid(scenario: Scenario, table: str) -> str:
    """One card table (or the map) as an editable grid: a row per card (hex), an input per
    cell.
    """
    columns, cards = cell_texts(scenario, table)
    known = {s.name: s for s in of_kind("card")}
    head = "".join(f'<th title="{e(hover(known[f"{table}.{c}"]))}">{e(c)}</th>'
                   for c in columns)
    body = []
    for card, cells in cards.items():
        inputs = "".join(f'<td>{_cell(known[f"{table}.{c}"], f"{table}.{card}.{c}", cells[c])}'
                         "</td>" for c in columns)
        body.append(f'<tr><th class="card">{e(card)}</th>{inputs}</tr>')
    what = "hexes, q,r" if table == MAP else "cards"
    key = ",".join(ROW_KEYS.get(table, ("name",)))
    return (f'<details class="cards"><summary>{e(table)}.csv ({len(cards)} {what})</summary>'
            f'<table class="grid" data-table="{e(table)}"><tr><th>{e(key)}</th>{head}</tr>'
            f'{"".join(body)}</table></details>')


HOST_CHECK = (
    "This server answers a request only when its Host header names the server as it was "
    "started (zonesim studio --host; with 0.0.0.0 or ::, this machine's names and "
    "addresses), so a web site that rebinds its own domain to this machine's address "
    "(DNS rebinding) is refused; and it takes a POST, which starts a run, writes a report "
    "or an export, only from this page's own Origin, so another site cannot start one. "
    "The server listens on 127.0.0.1 unless --host says otherwise, and then warns that "
    "other machines may reach it. The page never names a file: exports are downloads, "
    "reports go to the folder named at the command line.")
"""The page's help on who may reach the server (:class:`sim.studio.app.Guard`)."""


def render(scenario: Scenario, name: str, scenarios: list[str],
           report_trials: tuple[int, int] = (REPORT_TRIALS, REPORT_CAMPAIGN_TRIALS),
           hosts: list[str] | None = None) -> str:
    """The whole page for ``scenario`` (called ``name``; ``scenarios``: those it may open;
    ``report_trials``: the Report button's trials per table and games; ``hosts``: the Host
    values the server answers, named in the help).
    """
    answered = f" It answers: {', '.join(hosts)}." if hosts else ""
    trials, games = report_trials
    tables = "".join(card_grid(scenario, t) for t in (*TABLES, MAP)
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
<details><summary>Help: who may reach this server (the Host check)</summary>
<p id="host-check">{e(HOST_CHECK + answered)}</p></details>
</section></main>
<script src="/static/studio.js"></script>
</body></html>
"""
