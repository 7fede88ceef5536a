"""A scenario file with some ``[policy]`` and ``[loadout]`` keys changed, comments saying what.

``zonesim optimize --out best.toml`` writes the best policy and loadout as a scenario to
keep: the input scenario's text, line for line, with each changed key's value replaced in
place (or added to its table, ``[policy]`` or ``[loadout]``) and a comment ``# optimize: was
X``, a header naming the input, and a ruleset that still loads from wherever the file is
written (a bundled name stays; a folder becomes its absolute path). No armour is written as
the ``armor`` line commented out (the key absent). :func:`sim.rules.scenario.load_scenario`
reads it as any scenario.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sim.paths import configs_root
from sim.rules.scenario import LOADOUT_KEYS, Scenario
from sim.rules.tomlfile import key_lines


def toml_value(value: Any) -> str:
    """A policy value written as TOML (a bool, an integer, a string or a list of strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _policy_value(key: str, value: Any) -> str:
    """A ``[policy]`` or ``[loadout]`` value as TOML; an empty route is written ``"nearest"``.

    No armour (None) reads ``none``: it is only ever written in a comment;
    ``artifact_use`` is an inline table (``{"Flash" = "never", "Slime" = 3}``).
    """
    if value is None:
        return "none"
    if key == "artifact_use":  # an inline table, name = "never" or a Health (P-08)
        return "{" + ", ".join(f"{toml_value(name)} = {toml_value('never') if use == 0 else use}"
                               for name, use in value) + "}"
    return '"nearest"' if key == "route" and not value else toml_value(value)


def _ruleset_line(scenario: Scenario) -> str:
    folder = Path(scenario.ruleset.path).resolve()
    bundled = configs_root().resolve()
    name = folder.name if folder.parent == bundled else str(folder)
    return f"ruleset = {toml_value(name)}"


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
    """
    text = Path(scenario.path).read_text(encoding="utf-8")
    original = text.splitlines()
    lines: list[list[str]] = [[line] for line in original]  # what each line becomes
    where = key_lines(text)
    if stalker is not None and stalker != scenario.stalker:
        lines[where["stalker"] - 1] = [f"stalker = {toml_value(stalker)}   # optimize: was "
                                       f"{toml_value(scenario.stalker)}"]
    added: dict[str, list[str]] = {"policy": [], "loadout": []}
    for key, value in changes.items():
        table = "loadout" if key in LOADOUT_KEYS else "policy"
        was = _policy_value(key, getattr(scenario if table == "loadout" else scenario.policy,
                                         key))
        line = f"{key} = {_policy_value(key, value)}   # optimize: was {was}"
        if value is None:  # no armour: the key absent
            line = f"# {key} = {was}   # optimize: no armour (was this)"
        number = where.get(f"{table}.{key}")
        if number is None:
            added[table].append(line)
            continue
        end = _value_end(original, number)
        lines[number - 1:end] = [[line], *([] for _ in range(number, end))]
    for table, more in added.items():
        if more and table in where:
            lines[where[table] - 1] = [*lines[where[table] - 1], *more]
        elif more:
            lines.append(["", f"[{table}]", *more])
    ruleset = _ruleset_line(scenario)
    if "ruleset" in where:
        lines[where["ruleset"] - 1] = [ruleset]
    else:  # first, before any table
        lines.insert(0, [ruleset])
    return "\n".join([*(f"# {h}" for h in header), *(t for texts in lines for t in texts)]) + "\n"


def _value_end(lines: Sequence[str], number: int) -> int:
    """The line after the value starting on line ``number`` (a list may span lines)."""
    end, depth = number, 0
    for end in range(number, len(lines) + 1):
        code = lines[end - 1].split("#", 1)[0]
        depth += code.count("[") - code.count("]")
        if depth <= 0:
            break
    return end


__all__ = ["changed_scenario", "toml_value"]
