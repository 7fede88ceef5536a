"""Reading a ruleset folder: the only code that opens ruleset files.

A ruleset is a folder holding ``rules.toml`` and one CSV per card table
(:data:`sim.rules.schema.TABLES`). :func:`load_ruleset` reads every file,
collects every problem (:mod:`sim.rules.validate`) and raises one
:class:`~sim.rules.errors.RulesetError` listing them all, or returns an
immutable :class:`~sim.rules.model.Ruleset`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sim.paths import bundled_ruleset
from sim.rules import validate as v
from sim.rules.errors import Problem, RulesetError
from sim.rules.files import decode, first_line, parse_toml, read_regular
from sim.rules.model import CARD_TYPES, SECTION_TYPES, Hex, Map, Rules, Ruleset
from sim.rules.schema import MAP, MAP_COLUMNS, PARAMS, TABLES, Column, Param, sections

RULES_FILE = "rules.toml"
NOTES = "notes"
FILES = (RULES_FILE, *(t + ".csv" for t in TABLES), MAP + ".csv")
"""The files of a ruleset folder, in the order they are read (and reported)."""


def load_ruleset(path: str | Path | None = None) -> Ruleset:
    """Load and validate a ruleset folder.

    Parameters
    ----------
    path : str or Path, optional
        The ruleset folder; ``None`` loads the bundled base set
        (:func:`sim.paths.bundled_ruleset`). Messages show file paths built
        from ``path`` as given.

    Returns
    -------
    Ruleset

    Raises
    ------
    RulesetError
        With ``.problems`` listing every problem found, in file order.
    """
    ruleset, problems = _load(path)
    if problems or ruleset is None:
        raise RulesetError(problems)
    return ruleset


def check_ruleset(path: str | Path | None = None) -> list[Problem]:
    """Every problem of a ruleset folder (empty list: it loads)."""
    return _load(path)[1]


def _load(path: str | Path | None) -> tuple[Ruleset | None, list[Problem]]:
    root = bundled_ruleset() if path is None else Path(path)
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "ruleset folder not found"
        return None, [Problem(str(root), None, None, str(root), what)]
    problems: list[Problem] = []
    digest = hashlib.sha256()
    blobs: dict[str, bytes | None] = {}
    for name in FILES:
        data = _read_bytes(root / name, problems)
        blobs[name] = data
        # Name and length frame each file so that moving bytes between files changes the hash.
        digest.update(f"{name}\0{-1 if data is None else len(data)}\0".encode())
        digest.update(data or b"")
    rules = _read_rules(str(root / RULES_FILE), blobs[RULES_FILE], problems)
    tables = {
        t: _read_table(str(root / f"{t}.csv"), blobs[t + ".csv"], cols, problems)
        for t, cols in TABLES.items()
    }
    artifacts = tables["artifacts"]
    if tables["anomalies"] and artifacts is not None:
        types = {str(r.values["type"]) for r in artifacts if r.values.get("type")}
        ref = str(root / "artifacts.csv")
        problems += v.artifact_types(str(root / "anomalies.csv"), tables["anomalies"], types, ref)
    if tables["sarcophagus"] and tables["enemies"] is not None:
        names = {str(r.values["name"]) for r in tables["enemies"]}
        problems += v.references(str(root / "sarcophagus.csv"), tables["sarcophagus"], "enemy",
                                 names, str(root / "enemies.csv"))
    if tables["deformations"]:
        problems += v.deformation_deck(str(root / "deformations.csv"), tables["deformations"])
    if tables["zone"]:
        problems += v.zone_deck(str(root / "zone.csv"), tables["zone"])
    hexes = _read_map(str(root / f"{MAP}.csv"), blobs[MAP + ".csv"], rules, problems)
    if problems:
        order = [str(root / n) for n in blobs]
        return None, sorted(problems, key=lambda p: (order.index(p.file), p.line or 0))
    cards: dict[str, Any] = {}
    lines: dict[tuple[str, str], int] = {}
    for t, rows in tables.items():
        assert rows is not None
        cls = CARD_TYPES[t]
        cards[t] = MappingProxyType({str(r.values["name"]): cls(**r.values) for r in rows})
        lines.update({(t, str(r.values["name"])): r.line for r in rows})
    ruleset = Ruleset(
        path=root,
        rules=rules,
        sha256=digest.hexdigest(),
        lines=MappingProxyType(lines),
        map=Map(tuple(hexes)),
        **cards,
    )
    return ruleset, []


def _read_bytes(file: Path, problems: list[Problem]) -> bytes | None:
    data, message = read_regular(file)
    if message is not None:
        problems.append(Problem(str(file), None, None, None, message))
    return data


def _decode(file: str, data: bytes, problems: list[Problem]) -> str | None:
    text, line, message = decode(data)
    if message is not None:
        problems.append(Problem(file, line, None, None, message))
    return text


# --- CSV tables ------------------------------------------------------------------------------


def read_map(file: str, text: str, rules: Any) -> tuple[Map | None, list[Problem]]:
    """A ``map.csv`` text read and checked as the loader reads a ruleset's (cell, row and
    whole-map checks; ``rules``: the ruleset's, for the movement keys): the map, or None
    and every problem, named by ``file`` (``zonesim studio``'s edited map).
    """
    problems: list[Problem] = []
    hexes = _read_map(file, text.encode("utf-8"), rules, problems)
    return (None if problems else Map(tuple(hexes))), problems


def _read_map(file: str, data: bytes | None, rules: Any, problems: list[Problem]) -> list[Hex]:
    """Hexes of ``map.csv`` (Z-18 to Z-26) after the cell, row and whole-map checks."""
    n_before = len(problems)
    rows = _read_table(file, data, MAP_COLUMNS, problems, unique_names=False)
    if rows is None:
        return []
    clean = len(problems) == n_before
    movement = rules.movement
    problems += v.map_table(file, rows, movement.base_steps, movement.epicentre_cost, clean)
    if len(problems) > n_before:
        return []
    hexes = []
    for row in rows:
        values = dict(row.values)
        values["roads"] = v.parse_roads(row.cells.get("roads", ""))[0]
        hexes.append(Hex(**values, line=row.line))  # type: ignore[arg-type]
    return hexes


def _read_table(
    file: str,
    data: bytes | None,
    columns: tuple[Column, ...],
    problems: list[Problem],
    unique_names: bool = True,
) -> list[v.Row] | None:
    """Rows of one CSV table with typed values, or None if it cannot be read at all.

    A table without a card a run could play (:func:`sim.rules.validate.unplayable`)
    is reported when the file has no other problem.
    """
    if data is None:
        return None
    n_start = len(problems)
    text = _decode(file, data, problems)
    if text is None:
        return None
    if "\0" in text:  # csv reads NUL silently since Python 3.11; it means a binary file
        line = text[: text.index("\0")].count("\n") + 1
        problems.append(Problem(file, line, None, None, "not a CSV text file (NUL byte)"))
        return None
    records = _records(file, text, problems)
    if records is None:
        return None
    if not records:
        problems.append(Problem(file, None, None, None, "file is empty; expected a header line"))
        return None
    header_line, header = records[0]
    n_before = len(problems)
    index = _check_header(file, header_line, header, columns, problems)
    header_ok = len(problems) == n_before
    rows = []
    check = v.ROW_CHECKS.get(Path(file).stem)
    for line, record in records[1:]:
        if len(record) != len(header):
            msg = f"row has {len(record)} fields but the header has {len(header)}"
            problems.append(Problem(file, line, None, None, msg))
            continue
        row = v.Row(line, {}, {})
        for col in columns:
            if col.name not in index:
                row.values[col.name] = col.default
                continue
            raw = record[index[col.name]]
            row.cells[col.name] = raw
            value, msg = v.parse_cell(col, raw)
            row.values[col.name] = value
            if msg is not None:
                problems.append(Problem(file, line, col.name, raw, msg))
        if check is not None and header_ok:
            for column, msg in check(row):
                problems.append(Problem(file, line, column, row.cells.get(column), msg))
        rows.append(row)
    if unique_names:
        problems += v.duplicate_names(file, rows)
    if Path(file).stem == "emissions" and header_ok:
        problems += v.emission_order(file, rows)
    unplayable = v.unplayable(Path(file).stem, [r.values for r in rows])
    if unplayable is not None and len(problems) == n_start:
        column, msg = unplayable
        problems.append(Problem(file, rows[0].line if rows else header_line, column, None, msg))
    return rows


def _records(file: str, text: str, problems: list[Problem]) -> list[tuple[int, list[str]]] | None:
    """``(line, stripped cells)`` of every non-empty line; None if the file is not CSV at all.

    Each physical line is parsed on its own, so a record never spans lines: a
    quote left open does not swallow the rest of the table (a card cell never
    holds a line break), every line that cannot be parsed is reported, and the
    number of rows read always equals the number of data lines in the file.
    """
    records: list[tuple[int, list[str]]] = []
    n_before = len(problems)
    for number, line in enumerate(io.StringIO(text, newline=""), start=1):
        try:
            record = next(csv.reader([line.rstrip("\r\n")], strict=True), [])
        except csv.Error as exc:
            problems.append(Problem(file, number, None, None, _csv_message(line, exc)))
            continue
        if any(cell.strip() for cell in record):  # empty lines are ignored
            records.append((number, [cell.strip() for cell in record]))
    if records and len(records[0][1]) == 1 and len(problems) == n_before:
        for delimiter, name in ((";", "semicolons"), ("\t", "tabs")):
            if delimiter in records[0][1][0]:
                msg = (f"the header has no commas but is split by {name}; zonesim reads"
                       " comma-separated files: save the file with ',' as the delimiter")
                problems.append(Problem(file, records[0][0], None, None, msg))
                return None
    return records


def _csv_message(line: str, exc: csv.Error) -> str:
    """A CSV parse error in the words of a designer, for one physical line."""
    if "unexpected end of data" in str(exc):
        return ("unterminated quote: a cell opened with '\"' is not closed on this line"
                " (close the quote, or write a quote inside a cell as '\"\"')")
    return f"cannot parse this line as CSV ({exc}); quote a cell that holds ',' or '\"'"


def _check_header(
    file: str, line: int, header: list[str], columns: tuple[Column, ...], problems: list[Problem]
) -> dict[str, int]:
    """Column name -> position; reports unknown, duplicate, empty and missing columns."""
    known = {c.name for c in columns}
    index: dict[str, int] = {}
    for i, name in enumerate(header):
        if name == "":
            problems.append(Problem(file, line, None, "", f"header field {i + 1} is empty"))
        elif name in index:
            problems.append(Problem(file, line, name, name, "column appears twice in the header"))
        elif name not in known:
            msg = "unknown column" + v.suggest(name, known - set(header))
            problems.append(Problem(file, line, name, name, msg))
        else:
            index[name] = i
    for col in columns:
        if col.required and col.name not in index:
            problems.append(Problem(file, line, col.name, None, "required column is missing"))
    return index


# --- rules.toml ------------------------------------------------------------------------------

_HEADER = re.compile(r"\s*\[\s*([^\]]+?)\s*\]")
_KEY = re.compile(r"\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def _read_rules(file: str, data: bytes | None, problems: list[Problem]) -> Any:
    """Typed :class:`~sim.rules.model.Rules`; missing keys take their defaults, or the value
    of the key they follow (``Param.follows``: ``artifacts.movement_in_epicentre`` that of
    ``movement.items_in_epicentre``, Z-03).
    """
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    if data is not None:
        text = _decode(file, data, problems)
        if text is not None:
            values, line, error = parse_toml(text)
            if error is not None:
                problems.append(Problem(file, line, None, None, f"malformed TOML: {error}"))
            lines = _key_lines(text)
            values = _check_rules(file, values, lines, problems)
    chosen = {f"{p.section}.{p.key}": p.type(values.get(p.section, {}).get(p.key, p.default))
              for p in PARAMS}
    for p in PARAMS:  # a key not set takes the value of the key it follows
        if p.follows and p.key not in values.get(p.section, {}):
            chosen[f"{p.section}.{p.key}"] = chosen[p.follows]
    out = {section: SECTION_TYPES[section](**{p.key: chosen[f"{section}.{p.key}"]
                                              for p in params})
           for section, params in sections().items()}
    rules = Rules(**out)
    movement = rules.movement
    line = lines.get("movement.epicentre_cost", lines.get("movement.base_steps"))
    problems += v.epicentre_cost(file, line, movement.epicentre_cost, movement.base_steps)
    line = lines.get("artifacts.movement_in_epicentre", lines.get("movement.items_in_epicentre"))
    problems += v.epicentre_movement(file, line, rules.movement.items_in_epicentre,
                                     rules.artifacts.movement_in_epicentre)
    return rules


def _key_lines(text: str) -> dict[str, int]:
    """First line of each ``[section]`` header and ``section.key`` assignment."""
    lines: dict[str, int] = {}
    section = ""
    for n, raw in enumerate(text.splitlines(), start=1):
        if m := _HEADER.match(raw):
            section = m.group(1).replace(" ", "").replace('"', "")
            lines.setdefault(section, n)
        elif m := _KEY.match(raw):
            key = m.group(1).replace(" ", "").replace('"', "").replace("'", "")
            lines.setdefault(f"{section}.{key}" if section else key, n)
    return lines


def _check_rules(
    file: str, values: dict[str, Any], lines: dict[str, int], problems: list[Problem]
) -> dict[str, dict[str, Any]]:
    """The valid part of the parsed TOML; every problem is reported."""
    specs = sections()
    good: dict[str, dict[str, Any]] = {}
    for section, table in values.items():
        if section not in specs:
            msg = "unknown section" + v.suggest(section, specs)
            problems.append(Problem(file, first_line(lines, section), section, None, msg))
            continue
        if not isinstance(table, dict):
            msg = f"{_show(table)} is not a table; write [{section}] and its keys below it"
            problems.append(Problem(file, lines.get(section), section, _show(table), msg))
            continue
        params = {p.key: p for p in specs[section]}
        good[section] = {}
        for key, value in table.items():
            dotted = f"{section}.{key}"
            line = lines.get(dotted, lines.get(section))
            if key not in params:
                msg = "unknown key" + v.suggest(dotted, [f"{section}.{k}" for k in params])
                problems.append(Problem(file, line, dotted, None, msg))
                continue
            msg = _check_param(params[key], value)
            if msg is None:
                good[section][key] = value
            else:
                problems.append(Problem(file, line, dotted, _show(value), msg))
    return good


def _check_param(p: Param, value: object) -> str | None:
    names = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    ok = isinstance(value, p.type) and not (p.type is not bool and isinstance(value, bool))
    if p.type is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        return f"{_show(value)} is not {names[p.type]}"
    if p.lo is not None and p.hi is not None and not p.lo <= value <= p.hi:  # type: ignore[operator]
        return f"{_show(value)} is not in {p.lo}..{p.hi}"
    if p.choices and value not in p.choices:
        return f"{_show(value)} is not one of {', '.join(p.choices)}"
    return None


def _show(value: object) -> str:
    """A TOML value as it would be written in the file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, int):
        return v.show(str(value))
    return str(value)
