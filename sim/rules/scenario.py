"""Scenario files: who plays, with what, and how (the campaign's input).

A scenario is a TOML file naming a ruleset, a stalker, a start location, the
starting loadout, the policy and optional balance targets (see
``configs/scenarios/base.toml``). Loading it loads and validates the ruleset
too, and every problem of both is reported at once, with file, line and key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sim.paths import bundled_or_path, configs_root
from sim.rules import Ruleset, RulesetError, load_ruleset
from sim.rules.tomlfile import TomlFile, suggest

BASE_SCENARIO = "base"
SNEAK = ("always", "never")
TOP_KEYS = {"ruleset", "stalker", "start", "stalkers", "loadout", "policy", "targets"}
LOADOUT_KEYS = {"armor", "weapons", "items", "rubles"}
MAX_THRESHOLD = 1000
"""Largest policy threshold (Health, steps): far above any card, well inside int64."""
MAX_RUBLES = 10**9
"""Largest starting money: far above any price, well inside int64."""
MAX_BOUND = 10**300
"""Largest integer target bound; larger integers do not convert to float (floats may be inf)."""


@dataclass(frozen=True)
class Policy:
    """The stalker's standing decisions over a whole game (all keys of ``[policy]``).

    Attributes
    ----------
    route : tuple of str
        Secret Complexes in visiting order, each at most once; empty means
        "nearest first" (greedy by route days from the start, fixed when the
        game starts). Complexes the list leaves out are visited after it,
        nearest first, so that every one is explored before the Sarcophagus
        (P-50).
    sneak : str
        ``always`` or ``never`` (P-16, P-17).
    flee_at, heal_at : int
        Combat thresholds (P-21; Z-12): flee / use stimulants at this Health or less.
    medkit_at : int
        Use medkits outside combat at this Health or less (Z-11..Z-14).
    enter_anomalies : bool
        Enter anomalies on purpose after noticing them (P-36).
    retreat_at : int
        Walk to the nearest bunker to heal at this Health or less (0 = never).
    pay_heal : bool
        Pay ``economy.heal_price_per_wound`` per wound at bunkers (P-37).
    shopping : tuple of str
        Items bought at faction bases, in order, while money lasts.
    """

    route: tuple[str, ...] = ()
    sneak: str = "always"
    flee_at: int = 0
    heal_at: int = 2
    medkit_at: int = 3
    enter_anomalies: bool = False
    retreat_at: int = 2
    pay_heal: bool = True
    shopping: tuple[str, ...] = ()


POLICY_TYPES = {"route": (str, list), "sneak": str, "flee_at": int, "heal_at": int,
                "medkit_at": int, "enter_anomalies": bool, "retreat_at": int, "pay_heal": bool,
                "shopping": list}


@dataclass(frozen=True)
class Scenario:
    """A validated scenario with its ruleset.

    Attributes
    ----------
    path : Path
        The scenario file.
    name : str
        The file's stem, used to name result folders.
    ruleset : Ruleset
        The loaded ruleset.
    stalker, start : str
        Stalker card and start location name.
    stalkers : int
        Number of stalkers (1).
    armor : str or None
        Starting armour.
    weapons, items : tuple of str
        Starting weapon and item cards (copies repeat).
    rubles : int
        Starting money.
    policy : Policy
        Standing decisions.
    targets : dict of str to tuple of float
        Balance targets, metric name to (low, high).
    """

    path: Path
    name: str
    ruleset: Ruleset
    stalker: str
    start: str
    stalkers: int
    armor: str | None
    weapons: tuple[str, ...]
    items: tuple[str, ...]
    rubles: int
    policy: Policy
    targets: dict = field(default_factory=dict)


def scenario_path(name_or_path: str | Path | None) -> Path:
    """A scenario file: a path, or the name of a bundled scenario (default: base).

    A bare name (no folder part, no ``.toml``) of a bundled scenario always
    means the bundled one, so a file or folder called ``base`` in the working
    directory never shadows it; write ``./base.toml`` for a local file.
    """
    return bundled_or_path(BASE_SCENARIO if name_or_path is None else name_or_path,
                           configs_root() / "scenarios", ".toml")


def load_scenario(name_or_path: str | Path | None = None) -> Scenario:
    """Load and validate a scenario and its ruleset; raise RulesetError with every problem."""
    path = scenario_path(name_or_path)
    toml = TomlFile(path)
    data = toml.data
    problems = toml.problems
    if problems:
        raise RulesetError(problems)
    for key in data:
        if key not in TOP_KEYS:
            toml.problem(key, None, "unknown key" + suggest(key, TOP_KEYS))
    ruleset_name = data.get("ruleset", "base")
    if not isinstance(ruleset_name, str) or not ruleset_name.strip():
        toml.problem("ruleset", ruleset_name, "is not a ruleset name or folder (a string)")
        raise RulesetError(toml.problems)
    rules_dir = bundled_or_path(ruleset_name, configs_root(), "", path.parent)
    try:
        rs = load_ruleset(rules_dir)
    except RulesetError as error:
        raise RulesetError(toml.problems + error.problems) from None
    stalker = _name(toml, "stalker", data.get("stalker"), rs.stalkers, "stalker")
    start = data.get("start")
    locations = _location_names(rs)
    if not isinstance(start, str) or start not in locations:
        toml.problem("start", start, "is not a named location on the map"
                     + suggest(str(start), locations))
    stalkers = data.get("stalkers", 1)
    if not isinstance(stalkers, int) or isinstance(stalkers, bool):
        toml.problem("stalkers", stalkers, "is not a whole number of stalkers")
    elif stalkers != 1:
        toml.problem("stalkers", stalkers, "is not supported: only 1 stalker is simulated yet")
    loadout = _table(toml, data, "loadout")
    for key in loadout:
        if key not in LOADOUT_KEYS:
            toml.problem(f"loadout.{key}", None, "unknown key" + suggest(key, LOADOUT_KEYS))
    armor = loadout.get("armor")
    if armor is not None:
        _name(toml, "loadout.armor", armor, rs.armor, "armour")
    weapons = _names(toml, "loadout.weapons", loadout.get("weapons", []), rs.weapons, "weapon")
    items = _names(toml, "loadout.items", loadout.get("items", []), rs.items, "item")
    rubles = loadout.get("rubles")
    if rubles is None and isinstance(stalker, str) and stalker in rs.stalkers:
        rubles = rs.stalkers[stalker].rubles
    if rubles is None and not isinstance(stalker, str):
        rubles = 0  # the stalker is already reported; its card's money is unknown
    if not isinstance(rubles, int) or isinstance(rubles, bool) or not 0 <= rubles <= MAX_RUBLES:
        toml.problem("loadout.rubles", rubles, f"is not a whole number of rubles 0..{MAX_RUBLES}")
    policy = _policy(toml, _table(toml, data, "policy"), rs)
    targets = _targets(toml, _table(toml, data, "targets"))
    if toml.problems:
        raise RulesetError(sorted(toml.problems, key=lambda p: p.line or 0))
    return Scenario(path=path, name=path.stem, ruleset=rs, stalker=stalker, start=start,
                    stalkers=stalkers, armor=armor, weapons=weapons, items=items,
                    rubles=rubles, policy=policy, targets=targets)


def _location_names(rs: Ruleset) -> list[str]:
    hexmap = getattr(rs, "map", None)
    if hexmap is None:
        return []
    return [h.name for h in hexmap.hexes if h.name]


def _table(toml: TomlFile, data: dict, key: str) -> dict:
    """The table ``key`` (empty if absent); a value that is not a table is a problem."""
    value = data.get(key, {})
    if isinstance(value, dict):
        return value
    toml.problem(key, value, f"is not a table; write [{key}] and its keys below it")
    return {}


def _name(toml: TomlFile, key: str, value, table, what: str):
    article = "an" if what[0] in "aeiou" else "a"
    if not isinstance(value, str):
        toml.problem(key, value, f"is not {article} {what} name (a string)")
    elif value not in table:
        toml.problem(key, value, f"is not {article} {what} in the ruleset"
                     + suggest(value, table))
    return value


def _names(toml: TomlFile, key: str, values, table, what: str) -> tuple[str, ...]:
    if not isinstance(values, list):
        toml.problem(key, values, f"is not a list of {what} names")
        return ()
    for value in values:
        _name(toml, key, value, table, what)
    return tuple(values)


def _policy(toml: TomlFile, given: dict, rs: Ruleset) -> Policy:
    values = {}
    for key, value in given.items():
        dotted = f"policy.{key}"
        if key not in POLICY_TYPES:
            toml.problem(dotted, None, "unknown key" + suggest(key, POLICY_TYPES))
            continue
        wanted = POLICY_TYPES[key]
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            toml.problem(dotted, value, "has the wrong type")
            continue
        if isinstance(value, int) and not isinstance(value, bool) \
                and not 0 <= value <= MAX_THRESHOLD:
            toml.problem(dotted, value, f"is not in 0..{MAX_THRESHOLD}")
            continue
        values[key] = value
    if values.get("sneak", "always") not in SNEAK:
        toml.problem("policy.sneak", values.pop("sneak"), "is not one of always, never")
    route = values.pop("route", "nearest")
    if isinstance(route, str):
        if route != "nearest":
            toml.problem("policy.route", route, "is not 'nearest' or a list of complexes")
        route = []
    complexes = _complex_names(rs)
    seen = set()
    for name in route:
        if name not in complexes:
            toml.problem("policy.route", name, "is not a Secret Complex on the map"
                         + suggest(str(name), complexes))
        elif name in seen:
            toml.problem("policy.route", name, "is listed twice: every Secret Complex is "
                         "explored once before the Sarcophagus (P-50)")
        seen.add(name)
    shopping = _names(toml, "policy.shopping", values.pop("shopping", []), rs.items, "item")
    return Policy(route=tuple(route), shopping=shopping, **values)


def _complex_names(rs: Ruleset) -> list[str]:
    hexmap = getattr(rs, "map", None)
    if hexmap is None:
        return []
    return [h.name for h in hexmap.hexes if h.location == "complex"]


def _targets(toml: TomlFile, given: dict) -> dict:
    targets = {}
    for metric, bounds in given.items():
        key = f"targets.{metric}"
        ok = (isinstance(bounds, list) and len(bounds) == 2
              and all(isinstance(b, int | float) and not isinstance(b, bool)
                      and (isinstance(b, float) or abs(b) <= MAX_BOUND) for b in bounds)
              and bounds[0] <= bounds[1])
        if not ok:
            toml.problem(key, bounds, "is not a range [low, high]")
            continue
        targets[metric] = (float(bounds[0]), float(bounds[1]))
    return targets
