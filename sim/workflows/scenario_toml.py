"""A scenario file with some ``[policy]`` keys changed, comments saying what changed.

``zonesim optimize --out best.toml`` writes the best policy as a scenario to keep: the input
scenario's text, line for line, with each changed key's value replaced in place (or added to
``[policy]``) and a comment ``# optimize: was X``, a header naming the input, and a ruleset
that still loads from wherever the file is written (a bundled name stays; a folder becomes
its absolute path). :func:`sim.rules.scenario.load_scenario` reads it as any scenario.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sim.paths import configs_root
from sim.rules.scenario import Scenario
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
    """A ``[policy]`` value as TOML; an empty route is written ``"nearest"``."""
    return '"nearest"' if key == "route" and not value else toml_value(value)


def _ruleset_line(scenario: Scenario) -> str:
    folder = Path(scenario.ruleset.path).resolve()
    bundled = configs_root().resolve()
    name = folder.name if folder.parent == bundled else str(folder)
    return f"ruleset = {toml_value(name)}"


def changed_scenario(scenario: Scenario, changes: Mapping[str, Any],
                     header: Sequence[str] = (), stalker: str | None = None) -> str:
    """The text of ``scenario``'s file with the ``[policy]`` keys of ``changes`` set.

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario loaded from its file.
    changes : mapping
        Policy key to its new value.
    header : sequence of str
        Comment lines put first (without ``#``).
    stalker : str, optional
        Another stalker card for the top-level ``stalker`` key.
    """
    text = Path(scenario.path).read_text(encoding="utf-8")
    lines = text.splitlines()
    where = key_lines(text)
    if stalker is not None and stalker != scenario.stalker:
        lines[where["stalker"] - 1] = (f"stalker = {toml_value(stalker)}   # optimize: was "
                                       f"{toml_value(scenario.stalker)}")
    was = {k: getattr(scenario.policy, k) for k in changes}
    added = []
    for key, value in changes.items():
        line = (f"{key} = {_policy_value(key, value)}   # optimize: was "
                f"{_policy_value(key, was[key])}")
        number = where.get(f"policy.{key}")
        if number is None:
            added.append(line)
        else:
            lines[number - 1] = line
    if added and "policy" in where:
        lines[where["policy"]:where["policy"]] = added
    elif added:
        lines += ["", "[policy]", *added]
    if "ruleset" in where:
        lines[where["ruleset"] - 1] = _ruleset_line(scenario)
    else:  # first, before any table (nothing above it moves)
        lines.insert(0, _ruleset_line(scenario))
    return "\n".join([*(f"# {h}" for h in header), *lines]) + "\n"


__all__ = ["changed_scenario", "toml_value"]
