"""The chosen edits as files: a ruleset folder and a scenario that plays it (issue 48).

``zonesim rebalance --out DIR`` writes ``DIR/ruleset/``, a copy of the scenario's ruleset
folder with each edit made in its file (the card's cell of its CSV table, or the key of
``rules.toml``, with a comment saying what it was), and ``DIR/scenario.toml``, the
scenario's own file with ``ruleset = "ruleset"`` (the folder beside it) and a header naming
what was changed. :func:`write_edited` writes both into a folder being staged and then
checks them: the scenario must load, and each edited value must read back as meant, and the
compiled game of the loaded scenario must equal the game of the scenario's ruleset with the
edits applied in memory (:func:`sim.workflows.race.game_digest`): otherwise nothing is kept.
Card names and values are data: the CSV writer quotes what needs quoting, tomlkit writes
strings as TOML strings.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import tomlkit

from sim.errors import InputError, visible
from sim.experiments.base import Case
from sim.experiments.campaign_paired import compile_cases, scenario_setup
from sim.rules import RulesetError
from sim.rules.cardfile import with_cells
from sim.rules.scenario import Scenario, load_scenario
from sim.rules.variants import RULES_TABLE, apply_edits, format_value, parse_edit
from sim.workflows.race import game_digest
from sim.workflows.scenario_toml import changed_scenario

RULESET = "ruleset"
"""The ruleset folder's name inside ``--out``."""
SCENARIO = "scenario.toml"
"""The scenario file's name inside ``--out``."""
MARK = "rebalance:"
"""How the comments the writer adds start."""


class RebalanceWriteError(InputError):
    """Files that cannot be written as meant (field ``out``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "out")


def _edit_csv(path: Path, card: str, column: str, value: str) -> None:
    """Set one cell of a card table (the row whose ``name`` is ``card``)."""
    try:
        text = with_cells(path.read_text(encoding="utf-8"), [(card, column, value)])
    except KeyError:  # pragma: no cover - the edit was checked against the ruleset
        raise RebalanceWriteError(f"{path.name}: no card {visible(card)!r}") from None
    path.write_text(text, encoding="utf-8")


def _edit_rules(path: Path, section: str, key: str, value, old) -> None:
    """Set one ``rules.toml`` key, with a comment saying what it was."""
    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    table = doc.get(section)
    if table is None:
        table = tomlkit.table()
        doc[section] = table
    item = tomlkit.item(value)
    item.comment(f"{MARK} was {format_value(old)}")
    table[key] = item
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")


def _value(rs, e):
    """The value of an edit's cell (or rule key) in ``rs``."""
    if e.table == RULES_TABLE:
        return rs.param(e.card, e.column)
    return getattr(getattr(rs, e.table)[e.card], e.column)


def write_edited(scenario: Scenario, edits: Sequence[str], folder: Path,
                 header: Sequence[str] = ()) -> None:
    """Write ``folder/ruleset`` (the scenario's ruleset with ``edits``) and
    ``folder/scenario.toml``, then check them (the module docstring).

    Raises
    ------
    RebalanceWriteError
        The files would not load, or would load other values (each named).
    """
    rs = scenario.ruleset
    meant = apply_edits(rs, edits)
    target = folder / RULESET
    shutil.copytree(rs.path, target)
    for text in edits:
        e = parse_edit(text)
        if e.table == RULES_TABLE:
            _edit_rules(target / "rules.toml", e.card, e.column,
                        _value(meant, e), rs.param(e.card, e.column))
        else:
            _edit_csv(target / f"{e.table}.csv", e.card, e.column,
                      format_value(_value(meant, e)))
    doc = tomlkit.parse(changed_scenario(scenario, {}, header))
    doc["ruleset"] = RULESET
    (folder / SCENARIO).write_text(tomlkit.dumps(doc), encoding="utf-8")
    check_written(scenario, edits, folder)


def check_written(scenario: Scenario, edits: Sequence[str], folder: Path) -> Scenario:
    """The scenario written in ``folder``, loaded and checked against ``scenario`` + ``edits``.

    Raises
    ------
    RebalanceWriteError
        It does not load, a cell reads back otherwise, or its game differs.
    """
    try:
        written = load_scenario(folder / SCENARIO)
    except RulesetError as error:
        problems = "; ".join(visible(str(p)) for p in error.problems)
        raise RebalanceWriteError(f"the scenario written would not load ({problems}); "
                                  "nothing written") from None
    meant = apply_edits(scenario.ruleset, edits)
    wrong = []
    for text in edits:
        e = parse_edit(text)
        got, want = _value(written.ruleset, e), _value(meant, e)
        if got != want:
            wrong.append(f"{e.table}.{e.card}.{e.column} reads {got!r}, not {want!r}")
    setup = {**scenario_setup(scenario), "scenario": "x"}
    again = {**scenario_setup(written), "scenario": "x"}
    if setup != again:
        wrong.append("the scenario's stalker, loadout or policy reads otherwise")
    known: dict = {}
    if not wrong:
        (a,) = compile_cases([Case(meant, setup)])
        (b,) = compile_cases([Case(written.ruleset, again)])
        if game_digest(a, known) != game_digest(b, known):
            wrong.append("the written ruleset compiles to another game than the edits")
    if wrong:
        raise RebalanceWriteError("the files written would load otherwise: " + "; ".join(wrong)
                                  + "; nothing written")
    return written


__all__ = ["MARK", "RULESET", "SCENARIO", "RebalanceWriteError", "check_written",
           "write_edited"]
