"""Card edits on an immutable ruleset: ``table.card.column=value``.

A designer asks "what if the Bloodsucker had endurance 4?" without copying the
ruleset folder. An edit names one cell, e.g. ``enemies.Bloodsucker.endurance=4``
or ``armor.Ecolog suit.durability=5``; a ``rules.toml`` key is edited as
``rules.section.key=value`` (e.g. ``rules.combat.max_rounds=50``).

The new value is checked exactly as the loader checks a cell: the column spec
of :data:`sim.rules.schema.TABLES` (:func:`sim.rules.validate.parse_cell`), the
row checks of :data:`sim.rules.validate.ROW_CHECKS` on the edited card, and the
cross-table check that every anomaly's ``artifact_type`` is an artefact type
(P-35). A ``rules.toml`` key is checked against its :class:`~sim.rules.schema.Param`
(type, range, choices) and the Z-03 Epicentre cost; an edit of a key that another
follows (``Param.follows``) sets that one alike unless the edits set it too, so
``rules.movement.items_in_epicentre=true`` alone moves both Epicentre keys. The edited
ruleset must still
pass the loader's whole-table checks: a deck to draw from, one Epicentre rule for
movement items and artefacts, and no Phantom (P-46), which a scenario refuses.
Errors name the edit and the reason.

:func:`apply_edits` never changes its input: it returns a new
:class:`~sim.rules.model.Ruleset` made with :func:`dataclasses.replace`, whose
``sha256`` also covers the edits (so provenance tells an edited ruleset from
the original).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from sim.errors import InputError
from sim.rules import Ruleset
from sim.rules import validate as v
from sim.rules.scenario import PHANTOM_MESSAGE
from sim.rules.schema import PARAMS, TABLES, Column, Param, sections

RULES_TABLE = "rules"
"""Pseudo-table of ``rules.toml`` keys in an edit: ``rules.section.key=value``."""

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class VariantError(InputError):
    """An edit that cannot be applied (bad syntax, unknown card or column, invalid value)."""


@dataclass(frozen=True)
class CardEdit:
    """One parsed edit.

    Attributes
    ----------
    table : str
        A card table of :data:`~sim.rules.schema.TABLES`, or ``"rules"``.
    card : str
        Card name (for ``rules``: the section).
    column : str
        Column name (for ``rules``: the key).
    text : str
        The new value as written (stripped).
    """

    table: str
    card: str
    column: str
    text: str

    def __str__(self) -> str:
        return f"{self.table}.{self.card}.{self.column}={self.text}"


def parse_edit(text: str) -> CardEdit:
    """Parse ``table.card.column=value`` (card names may contain spaces and dots).

    Raises
    ------
    VariantError
        If the text is not of that form.
    """
    target, eq, value = text.partition("=")
    table, dot, rest = target.strip().partition(".")
    card, dot2, column = rest.rpartition(".")
    if not eq or not dot or not dot2 or not table or not card.strip() or not column.strip():
        raise VariantError(f"edit {text!r}: expected table.card.column=value, "
                           "e.g. enemies.Bloodsucker.endurance=4")
    return CardEdit(table.strip(), card.strip(), column.strip(), value.strip())


def _cell_text(value: object) -> str:
    """A card attribute written back as the loader read it (for row checks)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _column(edit: CardEdit) -> Column:
    if edit.table not in TABLES:
        known = ", ".join((*TABLES, RULES_TABLE))
        raise VariantError(f"edit {str(edit)!r}: unknown table {edit.table!r} (known: {known})"
                           + v.suggest(edit.table, (*TABLES, RULES_TABLE)))
    columns = {c.name: c for c in TABLES[edit.table]}
    if edit.column not in columns:
        raise VariantError(f"edit {str(edit)!r}: {edit.table} has no column {edit.column!r}"
                           + v.suggest(edit.column, columns))
    if edit.column == "name":
        raise VariantError(f"edit {str(edit)!r}: a card's name cannot be edited")
    return columns[edit.column]


def _edit_card(rs: Ruleset, edit: CardEdit) -> Ruleset:
    col = _column(edit)
    cards = getattr(rs, edit.table)
    if edit.card not in cards:
        raise VariantError(f"edit {str(edit)!r}: no card {edit.card!r} in {edit.table}"
                           + v.suggest(edit.card, cards))
    value, message = v.parse_cell(col, edit.text)
    if message is not None:
        raise VariantError(f"edit {str(edit)!r}: column '{edit.column}': {message}")
    card = cards[edit.card]
    values = dataclasses.asdict(card)
    values[edit.column] = value
    check = v.ROW_CHECKS.get(edit.table)
    if check is not None:
        cells = {c.name: _cell_text(values.get(c.name)) for c in TABLES[edit.table]}
        cells[edit.column] = edit.text
        problems = check(v.Row(rs.lines.get((edit.table, edit.card), 0), values, cells))
        if problems:
            column, message = problems[0]
            raise VariantError(f"edit {str(edit)!r}: column '{column}': {message}")
    table = dict(cards)
    table[edit.card] = dataclasses.replace(card, **{edit.column: value})
    return dataclasses.replace(rs, **{edit.table: MappingProxyType(table)})


def _param_value(p: Param, text: str) -> object:
    """Typed value of a ``rules.toml`` key written on the command line, or raise."""
    dotted = f"{p.section}.{p.key}"
    if p.type is bool:
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise VariantError(f"key '{dotted}': {text!r} is not true or false")
    value: object
    if p.type is int:
        if not _INT.fullmatch(text):
            raise VariantError(f"key '{dotted}': {v.show(text)} is not an integer")
        if len(text.lstrip("+-")) > v.MAX_DIGITS:
            raise VariantError(f"key '{dotted}': {v.show(text)} is not in {p.lo}..{p.hi}")
        value = int(text)
    elif p.type is float:
        if not _FLOAT.fullmatch(text):
            raise VariantError(f"key '{dotted}': {text!r} is not a number")
        value = float(text)
    else:
        value = text
    if p.lo is not None and p.hi is not None and not p.lo <= value <= p.hi:  # type: ignore[operator]
        raise VariantError(f"key '{dotted}': {text} is not in {p.lo}..{p.hi}")
    if p.choices and value not in p.choices:
        raise VariantError(f"key '{dotted}': {text!r} is not one of {', '.join(p.choices)}"
                           + v.suggest(text, p.choices))
    return value


def _edit_rules(rs: Ruleset, edit: CardEdit, set_keys: frozenset[str]) -> Ruleset:
    """``rs`` with one ``rules.toml`` key edited, and the keys that follow it (``Param.follows``)
    set alike unless the edits set them too (``set_keys``: ``section.key`` of every rule
    key the edits name).
    """
    specs = sections()
    if edit.card not in specs:
        raise VariantError(f"edit {str(edit)!r}: unknown rules.toml section {edit.card!r}"
                           + v.suggest(edit.card, specs))
    params = {p.key: p for p in specs[edit.card]}
    if edit.column not in params:
        raise VariantError(f"edit {str(edit)!r}: unknown key '{edit.card}.{edit.column}'"
                           + v.suggest(edit.column, params))
    try:
        value = _param_value(params[edit.column], edit.text)
    except VariantError as error:
        raise VariantError(f"edit {str(edit)!r}: {error}") from None
    out = _set_param(rs, edit.card, edit.column, value)
    dotted = f"{edit.card}.{edit.column}"
    for p in PARAMS:
        if p.follows == dotted and f"{p.section}.{p.key}" not in set_keys:
            out = _set_param(out, p.section, p.key, value)
    return out


def _set_param(rs: Ruleset, section: str, key: str, value: object) -> Ruleset:
    part = dataclasses.replace(getattr(rs.rules, section), **{key: value})
    return dataclasses.replace(rs, rules=dataclasses.replace(rs.rules, **{section: part}))


def _check_artifact_types(rs: Ruleset, edits: Sequence[CardEdit]) -> None:
    """P-35: every non-empty anomaly ``artifact_type`` names an artefact type."""
    types = {a.type for a in rs.artifacts.values()}
    for anomaly in rs.anomalies.values():
        if anomaly.artifact_type and anomaly.artifact_type not in types:
            culprit = next((e for e in reversed(edits)
                            if e.table in ("anomalies", "artifacts")), edits[-1])
            raise VariantError(
                f"edit {str(culprit)!r}: anomaly {anomaly.name!r} yields artefact type "
                f"{anomaly.artifact_type!r}, which is not the type of any artifact (P-35)"
                + v.suggest(anomaly.artifact_type, types))


def _check_playable(rs: Ruleset, edits: Sequence[CardEdit]) -> None:
    """The loader's whole-table checks on the edited ruleset, naming the last edit to blame.

    Every deck keeps a card to draw (:func:`sim.rules.validate.unplayable`: all
    counts set to 0, or every counted enemy dealing radiation), an Epicentre hex costs
    more than 9 for two and no more than the base allowance
    (:func:`sim.rules.validate.epicentre_cost`: the edit of ``movement.epicentre_cost`` or
    ``movement.base_steps`` to blame), and the movement items and artefacts keep one
    Epicentre rule (:func:`sim.rules.validate.epicentre_movement`); an edit setting
    ``multiplayer.after_death`` to ``phantom`` is refused as a scenario refuses it
    (P-46: the Phantom has no rules yet).
    """
    for table in v.DECKS:
        cards = [dataclasses.asdict(card) for card in getattr(rs, table).values()]
        found = v.unplayable(table, cards)
        if found is not None:
            culprit = next((e for e in reversed(edits) if e.table == table), edits[-1])
            raise VariantError(f"edit {str(culprit)!r}: {table}.csv: {found[1]}")
    phantom = [e for e in edits if (e.table, e.card, e.column) == (RULES_TABLE, "multiplayer",
                                                                   "after_death")]
    if phantom and rs.rules.multiplayer.after_death == "phantom":
        raise VariantError(f"edit {str(phantom[-1])!r}: {PHANTOM_MESSAGE}")
    movement = rs.rules.movement
    for problems, keys in (
            (v.epicentre_cost("rules.toml", None, movement.epicentre_cost, movement.base_steps),
             ("movement.epicentre_cost", "movement.base_steps")),
            (v.epicentre_movement("rules.toml", None, movement.items_in_epicentre,
                                  rs.rules.artifacts.movement_in_epicentre), None)):
        if problems:
            culprit = next((e for e in reversed(edits) if e.table == RULES_TABLE
                            and (keys is None or f"{e.card}.{e.column}" in keys)), edits[-1])
            raise VariantError(f"edit {str(culprit)!r}: key '{problems[0].column}': "
                               f"{problems[0].message}")


def apply_edits(rs: Ruleset, edits: Iterable[CardEdit | str]) -> Ruleset:
    """A new ruleset with ``edits`` applied in order; ``rs`` is unchanged.

    Parameters
    ----------
    rs : Ruleset
        The loaded ruleset.
    edits : iterable of CardEdit or str
        Parsed edits or their text (``table.card.column=value``).

    Returns
    -------
    Ruleset
        ``rs`` itself when there are no edits; otherwise a copy whose edited
        tables are new read-only mappings (card order kept) and whose
        ``sha256`` hashes the original digest and the edit texts.

    Raises
    ------
    VariantError
        The first edit that is malformed, names an unknown table, card,
        column or key, or gives a value the loader would refuse; two edits
        of one cell (the later would silently win; a sweep refuses a cell
        varied twice alike).
    """
    parsed = [e if isinstance(e, CardEdit) else parse_edit(e) for e in edits]
    if not parsed:
        return rs
    cells: dict[tuple[str, str, str], CardEdit] = {}
    for edit in parsed:
        first = cells.setdefault((edit.table, edit.card, edit.column), edit)
        if first is not edit:
            raise VariantError(f"edits {str(first)!r} and {str(edit)!r} set the same cell; "
                               "give each cell once")
    out = rs
    set_keys = frozenset(f"{e.card}.{e.column}" for e in parsed if e.table == RULES_TABLE)
    for edit in parsed:
        out = (_edit_rules(out, edit, set_keys) if edit.table == RULES_TABLE
               else _edit_card(out, edit))
    _check_artifact_types(out, parsed)
    _check_playable(out, parsed)
    digest = hashlib.sha256(rs.sha256.encode())
    for edit in parsed:
        digest.update(b"\0" + str(edit).encode())
    return dataclasses.replace(out, sha256=digest.hexdigest())


def edit_value(rs: Ruleset, path: str) -> object:
    """Current value of ``table.card.column`` (or ``rules.section.key``) in ``rs``.

    Raises
    ------
    VariantError
        If the path names no cell.
    """
    edit = parse_edit(f"{path}=")
    if edit.table == RULES_TABLE:
        try:
            return rs.param(edit.card, edit.column)
        except AttributeError:
            raise VariantError(f"{path!r}: no such rules.toml key") from None
    _column(edit)
    cards = getattr(rs, edit.table)
    if edit.card not in cards:
        raise VariantError(f"{path!r}: no card {edit.card!r} in {edit.table}"
                           + v.suggest(edit.card, cards))
    return getattr(cards[edit.card], edit.column)


def format_value(value: float | int) -> str:
    """Text of a candidate value for an edit: integers bare, reals without noise."""
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()
                                  and math.isfinite(value) and abs(value) < 2**53):
        return str(int(value))
    return f"{value:.12g}"


__all__ = ["RULES_TABLE", "CardEdit", "VariantError", "apply_edits", "edit_value",
           "format_value", "parse_edit"]
