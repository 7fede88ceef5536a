"""A scenario file with some ``[policy]`` and ``[loadout]`` keys changed, comments saying what.

``zonesim optimize --out best.toml`` writes the best policy and loadout as a scenario to
keep: the input scenario's document, parsed and written back by tomlkit (its comments,
order and layout kept), with each changed key's value replaced in place (or added to its
table, ``[policy]`` or ``[loadout]``, made if missing) and a comment ``# optimize: was X``
beside it (where TOML allows one: not inside an inline table), a header naming the input,
and a ruleset that still loads from wherever the file is written (a bundled name stays; a
folder becomes its absolute path). No armour (or no ``rubles``: the stalker card's) is
written as the key removed and a comment saying what it was.

The keys may be written in any form TOML allows: a ``[policy]`` table, an inline table
(``policy = {flee_at = 1}``), dotted keys (``policy.pay_heal = false``), an
``[policy.artifact_use]`` sub-table; each keeps its form. Card names are TOML strings,
so a ``[``, ``#`` or line break in a name is data, never markup.

:func:`write_scenario` never trusts the text: it writes it under a temporary name beside
the destination, loads it with :func:`sim.rules.scenario.load_scenario` and compares what
loads (the stalker, start, loadout and every policy key, the targets, the ruleset) with
what was meant; only then is the file linked into place, never over an existing one.
A file it cannot keep is refused, naming the keys that would be lost, and nothing is
written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import InlineTable, Table

from sim.errors import InputError, visible
from sim.experiments.campaign_paired import scenario_setup
from sim.paths import configs_root
from sim.rules import RulesetError
from sim.rules.scenario import LOADOUT_KEYS, Scenario, load_scenario

MARK = "optimize:"
"""How each comment the writer adds starts."""
COMMENT_GAP = "   "
"""Spaces between a changed value and its comment."""


class ScenarioWriteError(InputError):
    """A scenario that cannot be written as meant (exit status 2; field ``out``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "out")


def _comment(text: str) -> str:
    """``text`` fit for a TOML comment: every character TOML refuses there as an escape."""
    return visible(text).replace("\n", "\\n")


def _plain(key: str, value: Any) -> Any:
    """A ``[policy]`` or ``[loadout]`` value as plain TOML data.

    An empty route is ``"nearest"``; ``artifact_use`` is a table, an artefact's name to
    ``"never"`` or a Health (P-08).
    """
    if key == "artifact_use":
        return {name: "never" if use == 0 else use for name, use in value}
    if key == "route" and not value:
        return "nearest"
    return list(value) if isinstance(value, tuple) else value


def _was(key: str, value: Any) -> str:
    """A value as its comment shows it: TOML text, ``none`` for no armour."""
    return "none" if value is None else tomlkit.item(_plain(key, value)).as_string()


def _item(key: str, value: Any, old: Any):
    """The tomlkit item for ``value`` in the form of the one it replaces (``old``)."""
    plain = _plain(key, value)
    if isinstance(plain, dict):
        table = tomlkit.table() if isinstance(old, Table) else tomlkit.inline_table()
        table.update(plain)
        return table
    item = tomlkit.item(plain)
    if isinstance(item, tomlkit.items.Array):
        item.multiline(False)
    return item


def _ruleset_name(scenario: Scenario) -> str:
    folder = Path(scenario.ruleset.path).resolve()
    bundled = configs_root().resolve()
    return folder.name if folder.parent == bundled else str(folder)


def _set(doc: tomlkit.TOMLDocument, table: str | None, key: str, value: Any,
         was: Any) -> None:
    """Set ``table.key`` (a top-level key when ``table`` is None) with its comment."""
    container = doc if table is None else doc.get(table)
    if container is None:
        container = tomlkit.table()
        doc[table] = container
    old = container.get(key)
    commented = not isinstance(container, InlineTable)
    if value is None:  # no armour, or the stalker card's rubles: the key absent
        if key in container:
            del container[key]
        if commented:
            why = "no armour" if key == "armor" else "the stalker card's"
            container.add(tomlkit.comment(_comment(f"{key} = {_was(key, was)}   # {MARK} "
                                                   f"{why} (was this)")))
        return
    item = _item(key, value, old)
    if commented and not isinstance(item, Table):
        item.comment(_comment(f"{MARK} was {_was(key, was)}"))
        item.trivia.comment_ws = COMMENT_GAP
    container[key] = item


def changed_scenario(scenario: Scenario, changes: Mapping[str, Any],
                     header: Sequence[str] = (), stalker: str | None = None) -> str:
    """The text of ``scenario``'s file with the ``[policy]`` and ``[loadout]`` keys set.

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario loaded from its file.
    changes : mapping
        Policy or loadout key (:data:`~sim.rules.scenario.LOADOUT_KEYS`) to its new value.
    header : sequence of str
        Comment lines put first (without ``#``).
    stalker : str, optional
        Another stalker card for the top-level ``stalker`` key.

    Raises
    ------
    ScenarioWriteError
        tomlkit cannot read the file (its line and column named).
    """
    text = Path(scenario.path).read_text(encoding="utf-8")
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise ScenarioWriteError(f"{scenario.path}:{error.line}:{error.col}: tomlkit cannot "
                                 f"read this file to keep its layout ({error}); not "
                                 "written") from None
    if stalker is not None and stalker != scenario.stalker:
        _set(doc, None, "stalker", stalker, scenario.stalker)
    for key, value in changes.items():
        if key in LOADOUT_KEYS:
            _set(doc, "loadout", key, value, getattr(scenario, key))
        else:
            _set(doc, "policy", key, value, getattr(scenario.policy, key))
    ruleset = _ruleset_name(scenario)
    if doc.get("ruleset") != ruleset:
        doc["ruleset"] = ruleset
    return "".join(f"# {_comment(line)}\n" for line in header) + tomlkit.dumps(doc)


def differences(written: Scenario, scenario: Scenario, changes: Mapping[str, Any],
                stalker: str | None = None) -> list[str]:
    """What ``written`` loads differently from ``scenario`` with ``changes`` (empty: nothing).

    Each entry names a key and the two values: the stalker, start, loadout and every policy
    key (the ``campaign`` setup, :func:`~sim.experiments.campaign_paired.scenario_setup`),
    the whole policy, the targets and the ruleset's folder.
    """
    chosen = scenario if stalker is None else dataclasses.replace(scenario, stalker=stalker)
    meant = {**scenario_setup(chosen), **changes}
    got = scenario_setup(written)
    out = [f"{key} = {got.get(key)!r}, not {meant[key]!r}" for key in meant
           if key != "scenario" and got.get(key) != meant[key]]
    fields = {f.name for f in dataclasses.fields(scenario.policy)}
    policy = dataclasses.replace(scenario.policy,
                                 **{k: v for k, v in changes.items() if k in fields})
    out += [f"policy.{f} = {getattr(written.policy, f)!r}, not {getattr(policy, f)!r}"
            for f in sorted(fields) if getattr(written.policy, f) != getattr(policy, f)
            and f not in meant]
    if written.targets != scenario.targets:
        out.append(f"targets = {written.targets!r}, not {scenario.targets!r}")
    for name in ("variant", "stalkers", "multiplayer"):
        if getattr(written, name) != getattr(scenario, name):
            out.append(f"{name} = {getattr(written, name)!r}, not {getattr(scenario, name)!r}")
    if Path(written.ruleset.path).resolve() != Path(scenario.ruleset.path).resolve():
        out.append(f"ruleset = {str(written.ruleset.path)!r}, not "
                   f"{str(scenario.ruleset.path)!r}")
    return out


def write_scenario(scenario: Scenario, changes: Mapping[str, Any], out: str | Path,
                   header: Sequence[str] = (), stalker: str | None = None) -> None:
    """Write :func:`changed_scenario` to ``out``, checked by loading it, never over a file.

    The text is written to a hidden temporary file beside ``out`` and loaded as a
    scenario; unless it loads to exactly ``scenario`` with ``changes`` (and ``stalker``)
    (:func:`differences`), nothing is written. The file is then linked to ``out``, which
    fails if ``out`` exists, even as a dangling symbolic link; the temporary name is
    removed whatever happens.

    Raises
    ------
    ScenarioWriteError
        The file would not load, or would load other values (each named), or ``out``
        exists, or cannot be written (the cause named).
    """
    out = Path(out)
    text = changed_scenario(scenario, changes, header, stalker)
    temp = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        try:
            with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "w",
                      encoding="utf-8", newline="") as file:
                file.write(text)
        except OSError as error:
            raise ScenarioWriteError(f"cannot write {str(out)!r}: "
                                     f"{error.strerror or error}") from None
        try:
            written = load_scenario(temp)
        except RulesetError as error:
            problems = "; ".join(visible(str(p).replace(str(temp), str(out)))
                                 for p in error.problems)
            raise ScenarioWriteError(f"{str(out)!r} not written: the scenario written from "
                                     f"{scenario.path} would not load ({problems})") from None
        lost = differences(written, scenario, changes, stalker)
        if lost:
            raise ScenarioWriteError(f"{str(out)!r} not written: the way {scenario.path} "
                                     "writes these keys cannot be kept; the file would load "
                                     + "; ".join(visible(x) for x in lost))
        _place(temp, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def _place(temp: Path, out: Path) -> None:
    """Give ``temp``'s file the name ``out`` at once, only if no file has it."""
    try:
        os.link(temp, out, follow_symlinks=False)
    except FileExistsError:
        raise ScenarioWriteError(f"{str(out)!r} exists already; a scenario is never "
                                 "overwritten") from None
    except OSError as error:
        if os.path.lexists(out):
            raise ScenarioWriteError(f"{str(out)!r} exists already; a scenario is never "
                                     "overwritten") from None
        try:  # a file system without hard links: a rename, the name checked just before
            os.rename(temp, out)
        except OSError:
            raise ScenarioWriteError(f"cannot write {str(out)!r}: "
                                     f"{error.strerror or error}") from None


__all__ = ["ScenarioWriteError", "changed_scenario", "differences", "write_scenario"]
