"""Loading and validating the skirmish ruleset and scenario files (the only readers).

Every problem in a file is collected and reported at once as a
:class:`sim.rules.errors.RulesetError`, each naming file, line, key and value:
``configs/skirmish/x.toml:12: key 'groups.a.skill': 9 is not in 0..6``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from sim.paths import configs_root
from sim.rules import skirmish_field
from sim.rules.errors import RulesetError
from sim.rules.skirmish_model import (
    Battlefield,
    Figure,
    Group,
    Scenario,
    SkirmishRules,
    Weapon,
)
from sim.rules.tomlfile import TomlFile, suggest

DEFAULT_SCENARIO = "street.toml"
RULES_FILE = "rules.toml"
COVER_STATES = ("open", "partial", "cover")
TERRAINS = ("open", "woods", "wood_edge")
MAX_FIGURES = 30


def skirmish_root() -> Path:
    """The bundled folder ``configs/skirmish`` (ruleset and scenarios)."""
    return configs_root() / "skirmish"


@dataclass(frozen=True)
class _Int:
    low: int
    high: int
    default: int

    def check(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            return None, "is not an integer"
        if not self.low <= value <= self.high:
            return None, f"is not in {self.low}..{self.high}"
        return value, None


@dataclass(frozen=True)
class _Choice:
    choices: tuple[str, ...]
    default: str

    def check(self, value):
        if value not in self.choices:
            hint = suggest(value, self.choices) if isinstance(value, str) else ""
            return None, f"is not one of {', '.join(self.choices)}{hint}"
        return value, None


@dataclass(frozen=True)
class _Bool:
    default: bool

    def check(self, value):
        if not isinstance(value, bool):
            return None, "is not true or false"
        return value, None


@dataclass(frozen=True)
class _List:
    item: _Int | _Choice
    length: int
    default: tuple

    def check(self, value):
        if not isinstance(value, list) or len(value) != self.length:
            return None, f"is not a list of {self.length} values"
        out = []
        for v in value:
            checked, message = self.item.check(v)
            if message:
                return None, f"has an entry that {message}"
            out.append(checked)
        return tuple(out), None


# Ruleset keys: (section, key) -> spec with its default (docs/skirmish.md lists them all).
RULE_KEYS = {
    ("hit_table", "need"): _List(_Int(2, 13, 0), 3, (8, 9, 10)),
    ("damage", "faces"): _List(_Choice(("none", "out"), "out"), 6,
                               ("none", "none", "out", "out", "out", "out")),
    ("activation", "order"): _Choice(("random", "alternate", "fixed"), "random"),
    ("activation", "max_rounds"): _Int(1, 500, 30),
    ("movement", "slow_skill_max"): _Int(0, 6, 2),
    ("movement", "slow_inches"): _Int(1, 48, 6),
    ("movement", "normal_inches"): _Int(1, 48, 8),
    ("fast_move", "attempt"): _Bool(True),
    ("fast_move", "inches_per_pass"): _Int(0, 24, 2),
    ("reaction", "partial_cover_is"): _Choice(("cover", "open"), "cover"),
    ("covering", "when"): _Choice(("never", "stationary", "always"), "stationary"),
    ("covering", "extra_dice"): _Int(0, 4, 1),
    ("in_sight", "open_one_pass"): _Choice(("prone", "cover"), "prone"),
    ("in_sight", "leader_choice"): _Choice(("fire", "hold"), "fire"),
    ("received_fire", "trigger"): _Choice(("no_damage", "not_hit"), "no_damage"),
    ("received_fire", "precedence"): _Choice(("text_order", "suppressed_first", "flank_first"),
                                             "text_order"),
    ("received_fire", "max_chain"): _Int(1, 20, 4),
    ("suppression", "compare"): _Choice(("greater", "greater_or_equal"), "greater"),
    ("shooting", "targets_per_shooter"): _Int(1, 6, 1),
    ("recover", "attempt"): _Bool(True),
    ("recover", "skill"): _Choice(("own", "best_in_group"), "own"),
    ("end_of_fight", "cowering"): _Choice(("surrender", "kept"), "surrender"),
    ("visibility", "night_inches"): _Int(1, 200, 12),
    ("visibility", "reduced_day_inches"): _Int(1, 200, 12),
    ("visibility", "reduced_night_inches"): _Int(1, 200, 6),
    ("visibility", "exceptions_lift"): _Choice(("night_limit", "all_night_limits"),
                                               "night_limit"),
    ("surrender", "inches"): _Int(0, 200, 6),
    ("surrender", "when"): _Choice(("approach", "within", "never"), "approach"),
    ("battlefield", "units_block"): _Int(1, 10, 2),
    ("battlefield", "door_inches"): _Int(0, 48, 2),
    ("battlefield", "entering"): _Choice(("activation", "move"), "activation"),
    ("battlefield", "shooter_cover"): _Choice(("ignored", "counted"), "ignored"),
    ("battlefield", "contact_inches"): _Int(0, 12, 1),
    ("battlefield", "height_clears_cover"): _Bool(True),
    ("battlefield", "recover_inches"): _Int(0, 200, 2),
    ("flee", "surrounded"): _Choice(("paths", "never"), "paths"),
    ("flee", "surrounded_inches"): _Int(0, 200, 6),
}
WEAPON_KEYS = {
    "dice": _Int(1, 6, 1),
    "range": _Int(1, 200, 12),
    "suppression": _Int(0, 10, 1),
    "two_weapons": _Bool(False),
    "spread": _Int(0, 48, 4),
}
GROUP_KEYS = {
    "name": None, "figures": _Int(1, MAX_FIGURES, 1), "skill": _Int(0, 6, 3), "weapon": None,
    "cover": _Choice(COVER_STATES, "open"), "prone": _Bool(False), "leader": _Bool(False),
    "hidden": _Bool(False), "flanked": _Bool(False), "withdraw_at": _Int(0, MAX_FIGURES, 0),
    "night_vision": _Bool(False), "terrain": _Choice(TERRAINS, "open"), "lit": _Bool(False),
    "carriers": _Int(0, 2, 0), "positions": None,
    "movement": _Choice(skirmish_field.MOVEMENT_POLICIES, "advance"),
}
SCENARIO_KEYS = ("name", "distance", "ruleset", "groups", "light", "weather", "battlefield")
CONDITIONS = {"light": _Choice(("day", "night"), "day"),
              "weather": _Choice(("clear", "bad"), "clear")}


def _unknown(file: TomlFile, table: dict, known, prefix: str) -> None:
    for key in table:
        if key not in known:
            full = f"{prefix}.{key}" if prefix else key
            file.problem(full, None, f"unknown key{suggest(key, known)}")


def _table(file: TomlFile, data: dict, key: str, full: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        file.problem(full, value, "is not a table")
        return {}
    return value


def _get(file: TomlFile, table: dict, key: str, full: str, spec):
    if key not in table:
        return spec.default
    value, message = spec.check(table[key])
    if message:
        file.problem(full, table[key], message)
        return spec.default
    return value


def load_rules(path: Path | None = None) -> SkirmishRules:
    """Read and validate a skirmish ruleset (default: the bundled ``rules.toml``).

    Raises
    ------
    RulesetError
        With every problem found in the file.
    """
    path = Path(path) if path is not None else skirmish_root() / RULES_FILE
    file = TomlFile(path)
    sections = {s for s, _ in RULE_KEYS} | {"weapons"}
    _unknown(file, file.data, sections, "")
    values = {}
    for section in dict.fromkeys(s for s, _ in RULE_KEYS):
        table = _table(file, file.data, section, section)
        keys = {k: spec for (s, k), spec in RULE_KEYS.items() if s == section}
        _unknown(file, table, keys, section)
        for key, spec in keys.items():
            values[f"{section}_{key}"] = _get(file, table, key, f"{section}.{key}", spec)
    weapons = {}
    for name, table in _table(file, file.data, "weapons", "weapons").items():
        prefix = f"weapons.{name}"
        if not isinstance(table, dict):
            file.problem(prefix, table, "is not a table")
            continue
        _unknown(file, table, WEAPON_KEYS, prefix)
        for key in ("dice", "range", "suppression"):
            if key not in table:
                file.problem(prefix, None, f"weapon '{name}' has no '{key}'")
        fields = {k: _get(file, table, k, f"{prefix}.{k}", s) for k, s in WEAPON_KEYS.items()}
        weapons[name] = Weapon(name=name, **fields)
    need = values["hit_table_need"]
    if list(need) != sorted(need):
        file.problem("hit_table.need", list(need), "is not in increasing order")
    if file.problems:
        raise RulesetError(file.problems)
    values["hit_need"] = values.pop("hit_table_need")
    return SkirmishRules(path=path, weapons=MappingProxyType(weapons), **values)


def _per_figure(file: TomlFile, table: dict, key: str, prefix: str, n: int, check: Callable):
    """A value for every figure: one value for all, or a list of ``n`` values."""
    full = f"{prefix}.{key}"
    raw = table[key]
    items = raw if isinstance(raw, list) else [raw] * n
    if isinstance(raw, list) and len(raw) != n:
        file.problem(full, raw, f"has {len(raw)} values for {n} figures")
        return None
    out = []
    for value in items:
        checked, message = check(value)
        if message:
            file.problem(full, value, message)
            return None
        out.append(checked)
    return out


def _weapon_check(rules: SkirmishRules):
    def check(value):
        if value not in rules.weapons:
            hint = suggest(value, rules.weapons) if isinstance(value, str) else ""
            return None, f"is not a weapon of {rules.path.name}{hint}"
        return rules.weapons[value], None
    return check


def _group(file: TomlFile, key: str, table: dict, rules: SkirmishRules,
           field: Battlefield | None, field_given: bool) -> Group | None:
    prefix = f"groups.{key}"
    _unknown(file, table, GROUP_KEYS, prefix)
    for required in ("figures", "skill", "weapon"):
        if required not in table:
            file.problem(prefix, None, f"group '{key}' has no '{required}'")
    n = _get(file, table, "figures", f"{prefix}.figures", GROUP_KEYS["figures"])
    columns = {}
    for name, check in (("skill", GROUP_KEYS["skill"].check), ("weapon", _weapon_check(rules)),
                        ("cover", GROUP_KEYS["cover"].check),
                        ("prone", GROUP_KEYS["prone"].check),
                        ("night_vision", GROUP_KEYS["night_vision"].check)):
        if name in table:
            columns[name] = _per_figure(file, table, name, prefix, n, check)
    flags = {k: _get(file, table, k, f"{prefix}.{k}", GROUP_KEYS[k])
             for k in ("leader", "hidden", "flanked", "withdraw_at", "terrain", "lit",
                       "carriers", "movement")}
    if flags["withdraw_at"] >= n and "withdraw_at" in table:
        file.problem(f"{prefix}.withdraw_at", flags["withdraw_at"],
                     f"is not below the {n} figures of the group")
    name = table.get("name", key)
    if not isinstance(name, str):
        file.problem(f"{prefix}.name", name, "is not a string")
    places = ()
    if field is not None:
        places = skirmish_field.positions(file, field, table, prefix, n)
    elif "positions" in table and not field_given:
        file.problem(f"{prefix}.positions", table["positions"],
                     "needs a [battlefield] to place the figures on")
    if (any(columns.get(c) is None for c in ("skill", "weapon")) or None in columns.values()
            or places is None or (field_given and field is None)):
        return None
    figures = tuple(
        Figure(skill=columns["skill"][i], weapon=columns["weapon"][i],
               cover=columns.get("cover", ["open"] * n)[i],
               prone=columns.get("prone", [False] * n)[i],
               night_vision=columns.get("night_vision", [False] * n)[i])
        for i in range(n)
    )
    return Group(key=key, name=str(name), figures=figures, positions=places, **flags)


def load_scenario(path: Path | None = None, rules: SkirmishRules | None = None) -> Scenario:
    """Read and validate a scenario (default: the bundled ``street.toml``).

    Parameters
    ----------
    path : Path, optional
        Scenario file.
    rules : SkirmishRules, optional
        Ruleset; default: the scenario's ``ruleset`` key (a path relative to the
        scenario file), else the bundled ``rules.toml``.

    Raises
    ------
    RulesetError
        With every problem found in the scenario (or in its ruleset).
    """
    path = Path(path) if path is not None else skirmish_root() / DEFAULT_SCENARIO
    file = TomlFile(path)
    if file.problems:
        raise RulesetError(file.problems)
    data = file.data
    _unknown(file, data, SCENARIO_KEYS, "")
    if rules is None:
        ruleset = data.get("ruleset")
        if ruleset is not None and not isinstance(ruleset, str):
            file.problem("ruleset", ruleset, "is not a path")
            ruleset = None
        rules_path = path.parent / ruleset if ruleset else None
        if rules_path is not None and not rules_path.is_file():
            file.problem("ruleset", ruleset, f"is not a file next to {path.name}")
            raise RulesetError(file.problems)
        rules = load_rules(rules_path)
    field = None
    if "battlefield" in data:
        field = skirmish_field.load_battlefield(file, data["battlefield"])
    elif "distance" not in data:
        file.problem("distance", None, "is missing (inches between the groups, or a "
                     "[battlefield])")
    distance = _get(file, data, "distance", "distance", _Int(0, 1000, 0))
    groups_table = _table(file, data, "groups", "groups")
    if len(groups_table) != 2:
        file.problem("groups", None, f"has {len(groups_table)} groups; a firefight needs 2")
    groups = []
    for key, table in groups_table.items():
        if not isinstance(table, dict):
            file.problem(f"groups.{key}", table, "is not a table")
            continue
        groups.append(_group(file, key, table, rules, field, "battlefield" in data))
    name = data.get("name", path.stem)
    conditions = {k: _get(file, data, k, k, spec) for k, spec in CONDITIONS.items()}
    if field is not None and len(groups) == 2 and None not in groups:
        skirmish_field.check_line_between(file, field, groups, [g.positions for g in groups])
    if file.problems:
        raise RulesetError(file.problems)
    return Scenario(path=path, name=str(name), distance=distance, groups=(groups[0], groups[1]),
                    rules=rules, battlefield=field, **conditions)
