"""Checks on parsed ruleset data: cells, rows (several columns) and tables.

The functions here take text already read by :mod:`sim.rules.loader` and
return typed values plus :class:`~sim.rules.errors.Problem` objects; they
never stop at the first problem.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from sim.rules.errors import Problem
from sim.rules.schema import (
    AUTO,
    DAMAGE_TYPES,
    DIRECTIONS,
    EPICENTRE_LOCATIONS,
    FACTIONS,
    HEALTH_DAMAGE,
    MAX_DEFORMATION_CARDS,
    MAX_ZONE_CARDS,
    NAMED_LOCATIONS,
    Column,
    fightable,
)
from sim.rules.traits import parse_traits

_INT = re.compile(r"[+-]?\d+")


@dataclass
class Row:
    """One data row: physical line, typed values and the raw cells by column."""

    line: int
    values: dict[str, object]
    cells: dict[str, str]


MAX_DIGITS = 18
"""Digits of the longest integer a cell may hold (int64 takes 18 safely; no card needs more)."""


def show(text: str) -> str:
    """Render a raw cell for a message: integers bare, anything else quoted, long text cut."""
    if _INT.fullmatch(text):
        digits = len(text.lstrip("+-"))
        return text if digits <= MAX_DIGITS else f"{text[:12]}... ({digits} digits)"
    return repr(text if len(text) <= 60 else text[:57] + "...")


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def control_character(text: str, tab: bool = False) -> str | None:
    """Why ``text`` cannot be a name or a text cell: its first control or invisible
    character, or None.

    A name is printed wherever it is shown, terminals included, and an ESC,
    a BEL or another C0 or C1 control character (U+0000..U+001F,
    U+007F..U+009F) there would drive the terminal (an ESC sequence recolours
    or rewrites the screen) instead of showing the name. A tab is ordinary
    whitespace in a text column (``tab``), not in a name. An invisible
    character (:func:`invisible`) is refused too, with the text escaped.
    """
    for position, c in enumerate(text, start=1):
        if (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) and not (tab and c == "\t"):
            return (f"character {position} is the control character U+{ord(c):04X}; "
                    "names and texts may not hold control characters")
        if invisible(c):
            what = unicodedata.name(c, "").lower() or "unnamed"
            return (f"character {position} is the invisible character U+{ord(c):04X} "
                    f"({what}) in {show(text)}; names and texts may not hold invisible or "
                    "direction-changing characters")
    return None


def invisible(c: str) -> bool:
    """Whether the character ``c`` shows as nothing yet changes the text around it.

    Unicode's format characters (category Cf: the right-to-left override
    U+202E and the other direction marks, embeddings and isolates, which
    reorder what a terminal or a report shows after them; the zero-width space,
    joiners and no-break space U+200B..U+200D, U+2060, U+FEFF; the soft hyphen)
    and the line and paragraph separators U+2028, U+2029 (a line break no one
    sees): two names that differ only by one would look the same, and a name
    holding one could make a report's line read as something else.
    """
    return unicodedata.category(c) in ("Cf", "Zl", "Zp")


def parse_cell(col: Column, text: str) -> tuple[object, str | None]:
    """Typed value of one cell, or ``(None, message)`` if it is invalid.

    Parameters
    ----------
    col : Column
        The column spec.
    text : str
        The stripped cell text.
    """
    if text == "":
        if col.blank:
            return col.default, None
        if col.kind == "name":
            return None, "name is empty"
        if col.kind == "text":
            return "", None
        return None, f"empty cell; expected {_expected(col)}"
    if col.kind in ("name", "text"):
        bad = control_character(text, tab=col.kind == "text")
        return (text, None) if bad is None else (None, bad)
    if col.kind == "enum":
        if text in col.choices:
            return text, None
        return None, f"{show(text)} is not one of {', '.join(col.choices)}" + suggest(
            text, col.choices
        )
    if col.kind == "flag":
        if text in ("0", "1"):
            return text == "1", None
        return None, f"{show(text)} is not 0 or 1"
    if col.kind == "int_or_auto" and text == AUTO:
        return AUTO, None
    if not _INT.fullmatch(text):
        what = _expected(col) if col.kind != "int" else "an integer"
        return None, f"{show(text)} is not {what}"
    lo, hi = (2, 6) if col.kind == "die" else (col.lo, col.hi)
    if len(text.lstrip("+-")) > MAX_DIGITS:  # int() refuses thousands of digits; none is in range
        what = "a die face" if col.kind == "die" else "in"
        return None, f"{show(text)} is not {what} {lo}..{hi}"
    value = int(text)
    if not lo <= value <= hi:
        what = "a die face" if col.kind == "die" else "in"
        return None, f"{value} is not {what} {lo}..{hi}"
    return value, None


def _expected(col: Column) -> str:
    if col.kind == "die":
        return "a die face 2..6"
    if col.kind == "enum":
        return "one of " + ", ".join(col.choices)
    if col.kind == "flag":
        return "0 or 1"
    if col.kind == "int_or_auto":
        return f"an integer {col.lo}..{col.hi} or 'auto'"
    return f"an integer {col.lo}..{col.hi}"


# --- row checks: several columns of one card -------------------------------------------------

RowCheck = Callable[[Row], list[tuple[str, str]]]
"""A row check returns ``(column, message)`` pairs."""

_ITEM_VALUE_RANGE = {
    "event_avoid": (1, 5),  # Z-09 shift of the avoid roll
    "escape": (1, 5),  # Z-15 Reputation reduction
    "medkit": (1, 30),  # Z-11 health restored
    "stimulant": (1, 30),
    "movement": (1, 30),  # Z-03 steps added per day
    "location_movement": (0, 30),  # Z-07 not simulated yet
}


def _sellers(row: Row) -> list[tuple[str, str]]:
    """``sold_at``: faction names joined by '-' (Z-05, Z-11), each a faction of map.csv."""
    text = row.values.get("sold_at") or ""
    if not isinstance(text, str) or not text:
        return []
    for name in text.split("-"):
        if name not in FACTIONS:
            return [("sold_at", f"{show(name)} is not a faction ({', '.join(FACTIONS)}), "
                                "in a list joined by '-'" + suggest(name, FACTIONS))]
    return []


def _item(row: Row) -> list[tuple[str, str]]:
    return _item_value(row) + _sellers(row)


def _item_value(row: Row) -> list[tuple[str, str]]:
    effect, value, raw = row.values.get("effect"), row.values.get("value"), row.cells.get("value")
    if effect is None or raw is None or (value is None and raw != ""):
        return []  # already reported
    if effect in ("none", "helicopter"):
        return [] if value is None else [
            ("value", f"{show(raw)} must be empty for effect '{effect}'")]
    if value is None:
        return [("value", f"empty cell; effect '{effect}' needs a value")]
    if value == AUTO:
        if effect == "event_avoid":
            return []
        return [("value", f"'auto' is only allowed for effect 'event_avoid', not '{effect}'")]
    lo, hi = _ITEM_VALUE_RANGE[str(effect)]
    assert isinstance(value, int)
    if not lo <= value <= hi:
        return [("value", f"{value} is not in {lo}..{hi} for effect '{effect}'")]
    return []


def _enemy(row: Row) -> list[tuple[str, str]]:
    out = []
    if row.values.get("kind") == "animal" and row.values.get("habitat") not in (None, "open"):
        habitat = row.cells["habitat"]
        out.append(("habitat", f"{show(habitat)} is not allowed for kind 'animal' "
                               "(P-28: open only)"))
    _, msg = parse_traits(row.cells.get("traits", ""))
    if msg is not None:
        out.append(("traits", msg))  # P-22
    return out


def _event(row: Row) -> list[tuple[str, str]]:
    effect, dtype = row.values.get("effect"), row.cells.get("damage_type", "")
    if effect == "wounds" and dtype == "":
        need = ", ".join(HEALTH_DAMAGE)
        return [("damage_type", f"empty cell; effect 'wounds' needs one of {need}")]
    if effect not in (None, "wounds") and dtype != "":
        return [("damage_type", f"{show(dtype)} must be empty for effect '{effect}'")]
    if effect in ("enemy", "anomaly") and row.values.get("value"):
        value = row.cells.get("value", row.values["value"])
        return [("value", f"{value!r} must be 0 for effect '{effect}' (the card brings one "
                          f"{effect}, P-16, P-30)")]
    return []


def _artifact(row: Row) -> list[tuple[str, str]]:
    out = []
    v = row.values
    etype = row.cells.get("effect_type", "")
    if v.get("effect") == "resist" and etype == "":
        out.append(("effect_type", "empty cell; effect 'resist' needs a damage type"))
    elif v.get("effect") not in (None, "resist") and etype != "":
        out.append(("effect_type", f"{show(etype)} must be empty unless effect is 'resist'"))
    need = row.cells.get("intellect_need", "")
    if v.get("activation") == "auto" and need not in ("", "0"):
        out.append(("intellect_need", f"{show(need)} must be empty or 0 for activation 'auto'"))
    return out


def parse_roads(text: str) -> tuple[tuple[tuple[int, ...], ...], str | None]:
    """Road segments of a ``roads`` cell (``"0-3;1-4"``), or ``((), message)`` if invalid.

    Segments are separated by ``;`` and their directions (0..5) by ``-``; a
    direction may appear only once in the cell (Z-26: a hex edge carries one road).
    """
    if text == "":
        return (), None
    segments: list[tuple[int, ...]] = []
    seen: set[int] = set()
    for part in text.split(";"):
        dirs = []
        for item in (i.strip() for i in part.split("-")):
            if item == "":
                return (), f"{show(text)} has an empty direction; write e.g. '0-3' or '0-3;1-4'"
            if item not in ("0", "1", "2", "3", "4", "5"):
                return (), f"{show(text)}: {show(item)} is not a direction 0..5"
            d = int(item)
            if d in seen:
                return (), f"{show(text)}: direction {d} appears twice"
            seen.add(d)
            dirs.append(d)
        segments.append(tuple(dirs))
    return tuple(segments), None


def _map_row(row: Row) -> list[tuple[str, str]]:
    out = []
    v, cells = row.values, row.cells
    location = v.get("location")
    name, faction = cells.get("name", ""), cells.get("faction", "")
    if location in NAMED_LOCATIONS and name == "":
        out.append(("name", f"empty cell; location '{location}' needs a name"))
    if location == "" and name != "":
        out.append(("name", f"{show(name)} names no location; leave it empty or set 'location'"))
    if location == "base" and faction == "":
        out.append(("faction", "empty cell; location 'base' needs a faction"))
    if location not in (None, "base") and faction != "":
        out.append(("faction", f"{show(faction)} must be empty unless location is 'base'"))
    roads, msg = parse_roads(cells.get("roads", ""))
    if msg is not None:
        out.append(("roads", msg))
    terrain = v.get("terrain")
    if roads and terrain not in (None, 1):
        out.append(("terrain", f"{terrain} is not 1 (road) but the hex has roads (Z-21, Z-25)"))
    return out


def _deformation(row: Row) -> list[tuple[str, str]]:
    """A Deformation card that does nothing carries no value (P-39)."""
    if row.values.get("effect") == "none" and row.values.get("value"):
        value = row.cells.get("value", row.values["value"])
        return [("value", f"{value!r} must be 0 or empty for effect 'none'")]
    return []


ROW_CHECKS: dict[str, RowCheck] = {
    "items": _item,
    "enemies": _enemy,
    "events": _event,
    "artifacts": _artifact,
    "deformations": _deformation,
    "map": _map_row,
}


# --- table checks ----------------------------------------------------------------------------


def duplicate_names(file: str, rows: list[Row]) -> list[Problem]:
    """Every name must be unique within its table."""
    seen: dict[str, int] = {}
    out = []
    for row in rows:
        name = row.values.get("name")
        if not isinstance(name, str):
            continue
        if name in seen:
            msg = f"{show(name)} duplicates the name on line {seen[name]}"
            out.append(Problem(file, row.line, "name", name, msg))
        else:
            seen[name] = row.line
    return out


def emission_order(file: str, rows: list[Row]) -> list[Problem]:
    """Orders are unique and 1..N; exactly one card is final and it is last (P-49)."""
    out = []
    seen: dict[int, int] = {}
    for row in rows:
        order = row.values.get("order")
        if isinstance(order, int):
            if order in seen:
                msg = f"{order} duplicates the order on line {seen[order]}"
                out.append(Problem(file, row.line, "order", str(order), msg))
            else:
                seen[order] = row.line
            if order > len(rows):
                msg = f"{order} is not in 1..{len(rows)} (orders must be 1..number of emissions)"
                out.append(Problem(file, row.line, "order", str(order), msg))
    if not rows:
        return [Problem(file, None, None, None,
                        "no emission cards; the deck needs exactly one Final Emission (P-49)")]
    finals = [r for r in rows if r.values.get("final") is True]
    if rows and not finals and all(isinstance(r.values.get("final"), bool) for r in rows):
        out.append(Problem(file, None, "final", None, "no card has final=1 (P-49: Final Emission)"))
    for row in finals[1:]:
        msg = f"1 is a second final card (first on line {finals[0].line})"
        out.append(Problem(file, row.line, "final", "1", msg))
    if len(finals) == 1 and finals[0].values.get("order") not in (None, len(rows)):
        row = finals[0]
        msg = f"{row.values['order']} is not the last order {len(rows)}; the final card comes last"
        out.append(Problem(file, row.line, "order", str(row.values["order"]), msg))
    return out


DECKS = ("enemies", "anomalies", "events")
"""Card tables drawn as decks weighted by ``count`` (P-14, P-30; Z-08): the campaign's Zone
and locations, and every ``--enemy/--anomaly/--event all`` deck table."""


def unplayable(table: str, cards: Sequence[Mapping[str, object]]) -> tuple[str | None, str] | None:
    """``(column, message)`` when ``table`` has no card a run could play, else None.

    Every command plays a stalker card, so ``stalkers.csv`` needs one; a deck of
    :data:`DECKS` needs a card with ``count`` >= 1 to draw, and the enemy deck
    one that deals wounds or psi: a fight against an enemy that deals radiation
    has no end in the rules (P-39), so such a card is never fought. Runs refuse
    such a ruleset, so the loader and the card edits refuse it first, naming the file.

    Parameters
    ----------
    table : str
        A card table of :data:`sim.rules.schema.TABLES`.
    cards : sequence of mapping
        Each card's values by column (a :class:`Row`'s ``values``, or a card's fields).
    """
    if table != "stalkers" and table not in DECKS:
        return None
    if not cards:
        need = "every command plays a stalker card" if table == "stalkers" else \
            "the deck needs a card with count >= 1 to draw"
        return None, f"has a header but no cards; {need}"
    if table == "stalkers":
        return None
    drawn = [c for c in cards if isinstance(c.get("count"), int) and int(c["count"]) > 0]
    if not drawn:
        return "count", (f"every card's count is 0 ({len(cards)} cards); the deck needs a card "
                         "with count >= 1 to draw")
    if table == "enemies" and all(c.get("wound_type") in DAMAGE_TYPES
                                  and not fightable(c["wound_type"]) for c in drawn):
        return "wound_type", ("every enemy with count >= 1 deals radiation, and a fight against "
                              "it has no end in the rules (P-39); the deck needs one that deals "
                              "wounds or psi")
    return None


def deformation_deck(file: str, rows: list[Row]) -> list[Problem]:
    """The Deformation deck holds at most :data:`~sim.rules.schema.MAX_DEFORMATION_CARDS` cards.

    The campaign kernel keeps the shuffled deck's order in the Zone's state
    (P-39); an empty deck or one of count 0 is allowed (the fifth mutation
    still kills, P-43; no card is drawn).
    """
    total, last = 0, None
    for row in rows:
        count = row.values.get("count")
        if isinstance(count, int):
            total += count
            if total > MAX_DEFORMATION_CARDS and last is None:
                last = row
    if last is None:
        return []
    return [Problem(file, last.line, "count", last.cells.get("count"),
                    f"{last.cells.get('count')!r} brings the deck to {total} cards in all; at "
                    f"most {MAX_DEFORMATION_CARDS}")]


def zone_deck(file: str, rows: list[Row]) -> list[Problem]:
    """The Zone deck has at most :data:`~sim.rules.schema.MAX_ZONE_CARDS` kinds of card.

    The campaign kernel keeps the cards left of each kind (P-30, P-47); each
    kind may have up to 99 copies (``count``). An empty deck, or one of count
    0, is allowed: under ``zone.cards = "deck"`` it draws nothing.
    """
    if len(rows) <= MAX_ZONE_CARDS:
        return []
    row = rows[MAX_ZONE_CARDS]
    return [Problem(file, row.line, "name", row.cells.get("name"),
                    f"{row.cells.get('name')!r} is card kind {MAX_ZONE_CARDS + 1}; the Zone deck "
                    f"holds at most {MAX_ZONE_CARDS} kinds (give a kind more copies with count)")]


def artifact_types(file: str, anomalies: list[Row], types: set[str], ref: str) -> list[Problem]:
    """Each non-empty anomaly ``artifact_type`` must be the type of some artefact (P-35).

    An empty ``artifact_type`` means the anomaly yields no artefact; a name that
    matches no artefact is almost always a typo, so it is an error.
    """
    out = []
    for row in anomalies:
        t = row.values.get("artifact_type")
        if isinstance(t, str) and t and t not in types:
            msg = f"{show(t)} is not the type of any artifact in {ref}" + suggest(t, types)
            out.append(Problem(file, row.line, "artifact_type", t, msg))
    return out


def references(file: str, rows: list[Row], column: str, names: set[str], ref: str) -> list[Problem]:
    """Each row's ``column`` must name a card of another table (e.g. the Sarcophagus deck, P-50)."""
    out = []
    for row in rows:
        name = row.values.get(column)
        if name and name not in names:
            msg = f"{show(str(name))} is not a card in {ref}" + suggest(str(name), names)
            out.append(Problem(file, row.line, column, str(name), msg))
    return out


# --- the hex map (Z-03, Z-18 to Z-26) ---------------------------------------------------------

EPICENTRE_PAIR_MORE_THAN = 9
"""Z-03: two Epicentre hexes cost more than 9 steps (the jetpack's total)."""


def epicentre_cost(file: str, line: int | None, cost: int, base_steps: int) -> list[Problem]:
    """``movement.epicentre_cost`` must make two Epicentre hexes cost more than 9 (Z-03), and
    one no more than the base allowance ``movement.base_steps`` (Z-19).

    Every objective must be reachable with the base allowance (:func:`map_table`), and the
    Sarcophagus is an Epicentre hex (P-50): above the allowance it could never be entered,
    whatever the map. That is this key's fault (or ``base_steps``'), so it is reported
    here, at ``rules.toml``, and the map's reachability is checked as if the Epicentre
    could be entered (:func:`_reachable`).
    """
    if 2 * cost <= EPICENTRE_PAIR_MORE_THAN:
        least = EPICENTRE_PAIR_MORE_THAN // 2 + 1
        msg = (
            f"{cost} is too low: two Epicentre hexes must cost more than"
            f" {EPICENTRE_PAIR_MORE_THAN} steps (Z-03), so at least {least}"
        )
    elif cost > base_steps:
        msg = (f"{cost} is too high: every Epicentre hex, the Sarcophagus among them, is"
               " entered with at most the base allowance, movement.base_steps ="
               f" {base_steps} (Z-03, Z-19; an objective must be reachable on it), so at most"
               f" {base_steps}")
    else:
        return []
    return [Problem(file, line, "movement.epicentre_cost", str(cost), msg)]


def epicentre_movement(file: str, line: int | None, items: bool,
                       artifacts: bool) -> list[Problem]:
    """``artifacts.movement_in_epicentre`` must equal ``movement.items_in_epicentre`` (Z-03, Z-20).

    The campaign's route tables take one Epicentre rule for the steps that
    movement items and movement artefacts add, so a ruleset that sets the two
    keys apart cannot be played; a ruleset that leaves the artefact key out
    has it follow the movement key (``Param.follows``).
    """
    if bool(items) == bool(artifacts):
        return []
    msg = (f"{'true' if artifacts else 'false'} differs from movement.items_in_epicentre ="
           f" {'true' if items else 'false'}: the campaign's routes take one Epicentre rule"
           " for movement items and artefacts (Z-03, Z-20); set both alike, or leave"
           " artifacts.movement_in_epicentre out and it follows movement.items_in_epicentre")
    return [Problem(file, line, "artifacts.movement_in_epicentre", str(artifacts).lower(), msg)]


def _label(row: Row) -> str:
    name = row.values.get("name")
    where = f"({row.values['q']}, {row.values['r']})"
    return f"{show(str(name))} {where}" if name else f"{row.values.get('location')} {where}"


def map_table(
    file: str, rows: list[Row], base_steps: int, epi_cost: int, clean: bool = True
) -> list[Problem]:
    """Whole-map checks of ``map.csv``.

    Duplicate coordinates, unique location names, roads that match across
    each edge (Z-25, Z-26), exactly one Sarcophagus, at least one bunker
    (P-37), and that every complex, bunker, base and the Sarcophagus can be
    reached from every other with the base allowance (Z-19, Z-22). The
    reachability check runs only when the map has no other problem (``clean``
    and nothing found here).

    Parameters
    ----------
    file : str
        Path of ``map.csv`` as given.
    rows : list of Row
        Rows already checked cell by cell; rows with invalid cells are skipped
        where they would only repeat a problem.
    base_steps, epi_cost : int
        ``movement.base_steps`` and ``movement.epicentre_cost``.
    clean : bool
        Whether the file had no problem so far (cells, rows, header).
    """
    out: list[Problem] = []
    where: dict[tuple[int, int], Row] = {}
    for row in rows:
        if not (isinstance(row.values.get("q"), int) and isinstance(row.values.get("r"), int)):
            continue
        key = (int(row.values["q"]), int(row.values["r"]))  # type: ignore[call-overload]
        if key in where:
            msg = f"hex {key} duplicates the hex on line {where[key].line}"
            out.append(Problem(file, row.line, "q", row.cells["q"], msg))
        else:
            where[key] = row
    names: dict[str, int] = {}
    for row in rows:
        name = row.cells.get("name", "")
        if name in names:
            msg = f"{show(name)} duplicates the name on line {names[name]}"
            out.append(Problem(file, row.line, "name", name, msg))
        elif name:
            names[name] = row.line
    roads = {}
    for key, row in where.items():
        segments, msg = parse_roads(row.cells.get("roads", ""))
        if msg is None:  # a bad cell is reported by the row check; its edges are not checked
            roads[key] = segments
    for (q, r), row in where.items():
        own = {d for seg in roads.get((q, r), ()) for d in seg}
        for d in sorted(own):
            n = (q + DIRECTIONS[d][0], r + DIRECTIONS[d][1])
            back = (d + 3) % 6
            if n not in where:
                msg = f"direction {d} leads to {n}, which is not on the map"
                out.append(Problem(file, row.line, "roads", row.cells["roads"], msg))
            elif n in roads and not any(back in seg for seg in roads[n]):
                msg = (
                    f"direction {d} leads to {n} (line {where[n].line}), whose roads do not"
                    f" include the opposite direction {back}"
                )
                out.append(Problem(file, row.line, "roads", row.cells["roads"], msg))
    sarcophagi = [r for r in rows if r.values.get("location") == "sarcophagus"]
    if not sarcophagi and all(r.values.get("location") is not None for r in rows):
        msg = "no hex is the 'sarcophagus' (exactly one is needed, P-50)"
        out.append(Problem(file, None, "location", None, msg))
    for row in sarcophagi[1:]:
        msg = f"'sarcophagus' is a second Sarcophagus (first on line {sarcophagi[0].line})"
        out.append(Problem(file, row.line, "location", "sarcophagus", msg))
    if all(r.values.get("location") != "bunker" for r in rows) and all(
        r.values.get("location") is not None for r in rows
    ):
        msg = "no hex is a 'bunker' (P-37 moves an unconscious stalker to the nearest one)"
        out.append(Problem(file, None, "location", None, msg))
    if clean and not out and rows:
        out += _reachable(file, rows, where, base_steps, epi_cost)
    return out


def _reachable(
    file: str, rows: list[Row], where: dict[tuple[int, int], Row], base_steps: int, epi_cost: int
) -> list[Problem]:
    """Objectives that cannot reach, or be reached from, the first objective; then hexes
    that cannot reach a bunker.

    A day starts off any road segment, so a neighbour can be entered on some
    day exactly when its own cost fits in a whole day's allowance; reachability
    is then plain graph search over hexes (the road change cost never blocks).
    When every objective is reached, each hex must still reach a bunker: the
    campaign sends an unconscious stalker from any hex to the nearest one
    (P-37), so it refuses a map where one cannot (a hex walled in or apart).
    """

    def cost(row: Row) -> int:
        epi = row.values.get("location") in EPICENTRE_LOCATIONS
        # An Epicentre cost above the allowance is rules.toml's problem (epicentre_cost).
        return (min(epi_cost, base_steps) if epi
                else int(row.values["terrain"]))  # type: ignore[call-overload]

    def search(start: tuple[int, int], forward: bool) -> set[tuple[int, int]]:
        seen = {start}
        todo = [start]
        while todo:
            q, r = todo.pop()
            for dq, dr in DIRECTIONS:
                n = (q + dq, r + dr)
                if n in seen or n not in where:
                    continue
                if cost(where[n] if forward else where[(q, r)]) <= base_steps:
                    seen.add(n)
                    todo.append(n)
        return seen

    goals = [r for r in rows if r.values.get("location") in NAMED_LOCATIONS]
    first = goals[0]
    key = (int(first.values["q"]), int(first.values["r"]))  # type: ignore[call-overload]
    ahead, behind = search(key, True), search(key, False)
    out = []
    for row in goals[1:]:
        at = (int(row.values["q"]), int(row.values["r"]))  # type: ignore[call-overload]
        for reached, verb in ((ahead, "cannot be reached from"), (behind, "cannot reach")):
            if at not in reached:
                msg = (
                    f"{_label(row)} {verb} {_label(first)} (line {first.line}) with the base"
                    f" allowance of {base_steps} steps (Z-19, Z-22)"
                )
                out.append(Problem(file, row.line, "location", row.cells["location"], msg))
    if out:
        return out
    bunkers = [at for at, row in where.items() if row.values.get("location") == "bunker"]
    reach = set().union(*(search(at, False) for at in bunkers))
    for at, row in where.items():
        if at not in reach:
            msg = (f"hex {at} cannot reach any bunker with the base allowance of {base_steps}"
                   " steps (P-37: an unconscious stalker is taken to the nearest; Z-19, Z-22)")
            out.append(Problem(file, row.line, "q", row.cells["q"], msg))
    return out
