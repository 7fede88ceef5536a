"""``zonesim settings``: every setting a designer can change, with its scenario's value."""

from __future__ import annotations

import click

from sim import jsontext
from sim.cli import common
from sim.errors import visible
from sim.rules.scenario import load_scenario
from sim.rules.settings import KINDS, Setting, of_kind, plain

WIDE = 48
"""Longest value or default the table format prints whole; a longer one is cut with '...'
(the JSON and CSV hold it whole)."""


def _text(value: object) -> str:
    """A value as one line of text: JSON for lists and tables, ``none`` for no value."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | dict):
        return jsontext.dumps(value, default=str, indent=None, ensure_ascii=False)
    return str(value)


def _short(value: object) -> str:
    text = visible(_text(value))
    return text if len(text) <= WIDE else text[:WIDE - 3] + "..."


def takes(s: Setting) -> str:
    """The commands that take a setting, in words: its experiments (as ``compare`` and a
    scenario's values take it), its option, ``optimize`` where it searches it, ``levers,
    tune, sweep`` where they move it, ``readings`` for a switch or choice of the rules.
    """
    out = list(s.experiments)
    if s.option:
        out.append(s.option)
    if s.searched is True:
        out.append("optimize")
    if not isinstance(s.lever, str):
        out.append("levers, tune, sweep")
    elif s.kind in ("rule", "card") and s.experiments:
        out.append("sweep")
    if s.kind == "rule" and s.type in ("bool", "choice"):
        out.append("readings")
    return ", ".join(out)


@click.command(cls=common.Command)
@click.argument("scenario", required=False)
@click.option("--kind", type=click.Choice(KINDS), default=None,
              help="List the settings of one kind only: rule (rules.toml), policy "
                   "([policy]), loadout (stalker, start, seats, [loadout]) or card (a column "
                   "of a card table or map.csv).")
@common.format_option
def settings(scenario: str | None, kind: str | None, fmt: str) -> None:
    """List every setting a designer can change: type, domain, default, value, rules.

    SCENARIO is a scenario file or a bundled scenario's name (default: base);
    each setting's value is the scenario's (a card column's: each card's).
    One row per key the loaders accept: every rules.toml key, every [policy]
    and [loadout] key and the scenario's stalker, start and seats, every
    column of a card table and of map.csv. Each row says what the setting
    means and the rule IDs it implements, the option that sets it, the
    experiments that take it (zonesim compare E, and E --scenario), whether
    zonesim optimize searches it or why not, and the step by which zonesim
    levers moves it (tune and sweep too) or why not. --format json gives the
    keys name, kind, type, domain, default, value, doc, rules, option,
    experiments, searched and lever.

    \b
    Example:
      zonesim settings base --kind policy
      zonesim settings --kind rule --format json
    """
    chosen = load_scenario(scenario)
    declared = of_kind(kind)
    rows = [s.row(chosen) for s in declared]

    def frame():
        import pandas as pd

        return pd.DataFrame([{**r, **{k: _text(r[k]) for k in ("default", "value", "rules",
                                                                 "experiments", "searched",
                                                                 "lever")}}
                             for r in rows])

    shown = [{"name": visible(s.name), "kind": s.kind, "type": s.type,
              "default": _short(r["default"]), "value": _short(r["value"]),
              "rules": ", ".join(s.rules), "takes": takes(s), "doc": visible(plain(s.doc))}
             for s, r in zip(declared, rows, strict=True)]
    title = (f"{chosen.name}: {len(rows)} settings"
             + (f" of kind {kind}" if kind else "")
             + "; value: the scenario's; takes: the experiments (compare, --scenario), the "
               "option, optimize where it searches it, levers/tune/sweep where they move it "
               "(--format json: domain, why a setting is not searched or moved)")
    common.emit_rows(frame, fmt, {"scenario": str(chosen.path), "settings": rows}, title,
                     shown)
