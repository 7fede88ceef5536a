"""Opening and parsing config files safely: regular files only, any TOML text without a crash.

A designer can point zonesim at anything: a FIFO (reading it would block
forever), a folder, a file that is not UTF-8, TOML with an integer of
thousands of digits (Python refuses to convert it) or nested thousands deep
(the parser runs out of stack). Each of these becomes a message with a line
number here, so every reader (:mod:`sim.rules.loader`, :mod:`sim.rules.tomlfile`,
:mod:`sim.workflows.targets`) reports it like any other problem.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

_TOML_LINE = re.compile(r"\(at line (\d+)")
_LONG_DIGITS = re.compile(r"\d{4000,}")
MAX_NESTING = 100
"""TOML arrays and tables nested deeper than this are refused (no config needs more)."""


def read_regular(path: str | Path) -> tuple[bytes | None, str | None]:
    """The bytes of a regular file, or ``(None, message)`` saying why it cannot be read.

    The file type is checked before opening, because opening a FIFO blocks until
    a writer appears and a device may never end.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None, "file not found"
    except OSError as exc:
        return None, f"cannot read: {exc.strerror}"
    if stat.S_ISDIR(mode):
        return None, "is a folder, not a file"
    if not stat.S_ISREG(mode):
        return None, "is not a regular file (a FIFO, socket or device); give a plain file"
    try:
        return Path(path).read_bytes(), None
    except OSError as exc:
        return None, f"cannot read: {exc.strerror}"


def decode(data: bytes) -> tuple[str | None, int | None, str | None]:
    """UTF-8 text (a BOM is dropped), or ``(None, line, message)`` at the first bad byte."""
    try:
        return data.decode("utf-8-sig"), None, None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8"


def parse_toml(text: str) -> tuple[dict[str, Any], int | None, str | None]:
    """Parsed TOML, or ``({}, line, message)`` for anything :mod:`tomllib` cannot take.

    Besides malformed TOML this catches integers too long for Python's
    int-from-text limit and nesting deeper than :data:`MAX_NESTING` (checked
    first: deep nesting would exhaust the parser's stack).
    """
    deep = _deep_line(text)
    if deep is not None:
        return {}, deep, f"arrays or tables nested more than {MAX_NESTING} deep"
    try:
        return tomllib.loads(text), None, None
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_LINE.search(str(exc))
        return {}, int(match.group(1)) if match else None, str(exc)
    except ValueError:  # an integer longer than sys.get_int_max_str_digits()
        match = _LONG_DIGITS.search(text)
        line = text[: match.start()].count("\n") + 1 if match else None
        return {}, line, "an integer has thousands of digits; no value needs more than 18"


def _deep_line(text: str) -> int | None:
    """First line where brackets and braces (outside strings) nest past MAX_NESTING."""
    depth, quote, line = 0, "", 1
    for char in text:
        if char == "\n":
            line += 1
        if quote:
            quote = "" if char == quote or char == "\n" else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            quote = "\n"  # a comment runs to the end of the line
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif char in "]}":
            depth = max(0, depth - 1)
    return None


def first_line(lines: dict[str, int], key: str) -> int | None:
    """Line of ``key`` or, when only keys below it are written (``key.sub = 1``), the first."""
    if key in lines:
        return lines[key]
    below = [n for k, n in lines.items() if k.startswith(f"{key}.")]
    return min(below) if below else None
