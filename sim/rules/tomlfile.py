"""Reading a TOML file with the line of every key, for messages that name file and line.

:mod:`tomllib` gives values but no positions; :func:`key_lines` recovers the
line of each dotted key (table headers and ``key = value`` lines), which is
all a message needs.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path

from sim.rules.errors import Problem
from sim.rules.files import decode, parse_toml, read_regular

_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_TABLE = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?")
_INT = re.compile(r"[+-]?\d+")


def _dotted(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


def key_lines(text: str) -> dict[str, int]:
    """Map each dotted key (``groups.a.skill``) and table (``groups.a``) to its first line.

    A table of an array of tables is also mapped with its 1-based index, so that
    a message can name the one it is about: the second ``[[players]]`` is
    ``players[2]``, its ``[players.loadout]`` ``players[2].loadout`` and the
    ``armor`` key below that ``players[2].loadout.armor``.
    """
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}
    table = indexed = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = _TABLE.match(line)
        if header:
            table = _dotted(header.group(1))
            if line.startswith("[["):
                arrays[table] = arrays.get(table, 0) + 1
            indexed = _indexed(table, arrays)
            lines.setdefault(table, number)
            lines.setdefault(indexed, number)
            continue
        key = _KEY.match(line)
        if key:
            full = _dotted(key.group(1))
            lines.setdefault(f"{table}.{full}" if table else full, number)
            lines.setdefault(f"{indexed}.{full}" if indexed else full, number)
    return lines


def _indexed(table: str, arrays: dict[str, int]) -> str:
    """``table`` with the index of the latest table of each array of tables it lies in."""
    for array in sorted(arrays, key=len, reverse=True):
        if table == array or table.startswith(f"{array}."):
            return f"{array}[{arrays[array]}]{table[len(array):]}"
    return table


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice ``word`` most likely misspells, or None."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string."""
    close = closest(word, choices)
    return f" (did you mean '{close}'?)" if close else ""


def show(value: object) -> str:
    """A value as a message shows it: integers bare, anything else in TOML-like quotes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (isinstance(value, str) and _INT.fullmatch(value)):
        return _cut(str(value))
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return repr(value)


def _cut(digits: str) -> str:
    """A long integer shortened for a message (it may have thousands of digits)."""
    n = len(digits.lstrip("+-"))
    return digits if n <= 18 else f"{digits[:12]}... ({n} digits)"


class TomlFile:
    """A parsed TOML file that collects problems about its keys.

    Parameters
    ----------
    path : Path
        The file, named in messages as the user gave it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = str(path)
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.data: dict = {}
        self.lines: dict[str, int] = {}
        data, message = read_regular(path)
        if data is None:
            self.problems.append(Problem(self.name, None, None, None,
                                         f"cannot read file: {message}"))
            return
        text, line, message = decode(data)
        if text is None:
            self.problems.append(Problem(self.name, line, None, None, message))
            return
        self.lines = key_lines(text)
        self.data, line, message = parse_toml(text)
        if message is not None:
            self.problems.append(Problem(self.name, line, None, None,
                                         f"not valid TOML: {message}"))

    def line(self, key: str) -> int | None:
        """Line of ``key``, or of its nearest parent table that has one."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key.rpartition(".")[0]
        return None

    def problem(self, key: str, value: object, message: str) -> None:
        """Record a problem with ``key`` (message starts with the shown value)."""
        self.problems.append(self._found(key, value, message))

    def warning(self, key: str, value: object, message: str) -> None:
        """Record a warning about ``key``: played, but worth a line (as :meth:`problem`)."""
        self.warnings.append(self._found(key, value, message))

    def _found(self, key: str, value: object, message: str) -> Problem:
        shown = None if value is None else show(value)
        text = message if shown is None else f"{shown} {message}"
        return Problem(self.name, self.line(key), key, shown, text)
