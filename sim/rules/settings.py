"""Every setting a designer can change, declared once: one row per key the loaders accept.

A setting is a ``rules.toml`` key (kind ``rule``), a scenario's ``[policy]`` key
(``policy``), a scenario's stalker, start, seats and ``[loadout]`` keys (``loadout``) or a
column of a card table or of ``map.csv`` (``card``). Each :class:`Setting` says where it
is read, its type and domain, its default, what it means and the rule IDs it implements,
the command-line option that sets it, the experiments that take it, whether ``zonesim
optimize`` searches it (or why not), whether ``zonesim levers``, ``tune`` and ``sweep``
move it (and by what step), and the campaign kernel's parameter slot it fills when the
compile step copies it there unchanged.

What is declared elsewhere is read from there, not written again: the rule keys, their
types, ranges, choices, defaults, meanings, rule IDs and slots from
:data:`sim.rules.schema.PARAMS`; the
card columns from :data:`sim.rules.schema.TABLES` and :data:`~sim.rules.schema.MAP_COLUMNS`;
the policy keys, their types, defaults, options, experiments, search, choices and slots from
the fields of :class:`sim.rules.scenario.Policy` (each declared by
:func:`~sim.rules.scenario.policy_key`), their words and rule IDs from its docstring. This
module adds what was declared nowhere: each loadout key's option, experiments, search and
slot. ``tests/rules/test_settings.py`` holds the table to the code: every key a
loader accepts has a row, every row is documented and accepted where it says.

The kernel slots are names of ``sim.kernels.campaign.PARAMETERS`` (``C_MAX_DAYS``): the
rules layer may not import the kernels (``pyproject.toml``'s layers), so a slot is named
(``Param.slot``, a policy field's ``slot``, a loadout key's row here) and resolved in the
compile layer.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.rules.loader import RULES_FILE
from sim.rules.scenario import (
    CAMPAIGN,
    ENCOUNTERS,
    EXPERIMENTS,
    MAX_PLAYERS,
    MAX_RUBLES,
    MAX_THRESHOLD,
    PLAYER_KEYS,
    SETTING,
    VARIANTS,
    Entries,
    Player,
    Policy,
    Scenario,
)
from sim.rules.schema import MAP, MAP_COLUMNS, NAME, PARAMS, TABLES, Column, Param
from sim.rules.variants import RULES_TABLE

KINDS = ("rule", "policy", "loadout", "card")
"""The kinds of setting, in the order the table lists them."""

RULE_IDS = re.compile(r"\b[PSZ]-\d+\b")
"""A rule ID of the digest (``P-14``, ``Z-08``, ``S-15``)."""

MONEY_STEP = 100
"""Step of a price or a sum of money, in rubles (the base set's prices are hundreds)."""
REAL_STEPS = 20
"""A real-valued ``rules.toml`` key steps by 1/REAL_STEPS of its range."""
BOOL = (False, True)
"""The values of a ``bool`` setting, in the order they are raced."""
NUMERIC_KINDS = ("int", "die", "int_or_auto")
"""Card column kinds whose cells are numbers (``int_or_auto`` when not ``auto``)."""

EDITED = ("a rule value, not a player's choice: zonesim levers, tune and sweep move it, "
          "zonesim compare edits it (edit=rules.SECTION.KEY=V)")
"""Why ``optimize`` does not search a rule key."""
READING = ("a reading of the rules, not a player's choice: zonesim readings flips it, "
           "zonesim sweep and compare edit it")
"""Why ``optimize`` does not search a ``bool`` or choice rule key."""
CARD = ("a card value, not a player's choice: zonesim levers, tune and sweep move it, "
        "zonesim compare edits it (edit=TABLE.CARD.COLUMN=V)")
"""Why ``optimize`` does not search a card column."""
NOT_A_NUMBER = "not a number: zonesim sweep and compare edit it; levers and tune move numbers"
"""Why ``levers`` and ``tune`` do not move a text, choice or ``bool`` value."""
NOT_A_CARD = "not a card value or rule key: zonesim compare --variant and optimize set it"
"""Why ``levers``, ``tune`` and ``sweep`` do not move a policy or loadout key."""
NOT_A_KEY = "not a card value or rule key: the scenario file sets it"
"""Why ``levers``, ``tune`` and ``sweep`` do not move a scenario key no variant sets."""


@dataclass(frozen=True)
class Setting:
    """One key a loader accepts.

    Attributes
    ----------
    name : str
        As a designer writes it: ``combat.hands`` (``rules.toml``), ``policy.flee_at``,
        ``loadout.armor``, ``stalker`` (a scenario), ``enemies.endurance`` (a card
        column: ``enemies.csv``'s ``endurance``), ``map.terrain``.
    kind : str
        One of :data:`KINDS`.
    where : str
        The file and table that hold it (``rules.toml [combat]``, ``scenario [policy]``,
        ``enemies.csv``).
    type : str
        ``bool``, ``int``, ``float``, ``choice``, ``text``, ``name`` (a card or place),
        ``cards`` (a list of card names), ``table`` or ``list``.
    domain : str
        The values it takes, in words: a range ``lo..hi`` (and what a stalker's card
        bounds), the choices, the cards a list may name.
    default : object
        The value when the file leaves it out (None: required, or none; a key that
        follows another, ``Param.follows``, reads ``as section.key``).
    doc : str
        What it means, in one line.
    rules : tuple of str
        The rule IDs it implements (``P-37``).
    option : str
        The command-line option that sets it (empty: none; a variant key always does).
    experiments : tuple of str
        The experiments (:data:`EXPERIMENTS`) whose setup takes it; a rule key or a card
        column is taken by every one, as an edit.
    searched : bool or str
        True when ``zonesim optimize`` searches it, else why not.
    lever : int or float or str
        The step by which ``zonesim levers`` moves it (and ``tune`` and ``sweep`` may),
        or why they do not.
    slot : str
        The campaign parameter (``sim.kernels.campaign.PARAMETERS``) the compile step
        copies it to unchanged (a ``bool`` as 0 or 1); empty: none.
    bound : str
        The stalker card's column that bounds the values that act differently (``health``:
        a threshold at or above his Health acts as his Health does, P-21, Z-11..Z-14); a
        scenario's row gives that range for its stalker. Empty: none.
    choices : tuple
        The values of a ``bool`` (false, true) or ``choice`` setting, as its loader
        holds them (``zonesim optimize`` races them); empty for other types.
    entries : Entries or None
        What a ``table`` setting holds, entry by entry (its keys and each value's form
        and bounds); None for other types.
    """

    name: str
    kind: str
    where: str
    type: str
    domain: str
    default: object
    doc: str
    rules: tuple[str, ...] = ()
    option: str = ""
    experiments: tuple[str, ...] = ()
    searched: bool | str = False
    lever: int | float | str = NOT_A_CARD
    slot: str = ""
    bound: str = ""
    choices: tuple = ()
    entries: Entries | None = None

    def value(self, scenario: Scenario) -> Any:
        """The setting's value in ``scenario`` (and its ruleset), as JSON holds it.

        A card column's value is a table of each card's, a map column's a table of each
        hex's (by ``q,r``); a policy list is a list, a policy table a table.
        """
        rs = scenario.ruleset
        head, _, tail = self.name.partition(".")
        if self.kind == "rule":
            return rs.param(head, tail)
        if self.kind == "policy":
            value = getattr(scenario.policy, tail)
            if self.type == "table":
                return dict(value)
            if tail == "route" and not value:
                return "nearest"
            return list(value) if isinstance(value, tuple) else value
        if self.kind == "card":
            if head == MAP:
                return {f"{h.q},{h.r}": getattr(h, tail) for h in rs.map.hexes}
            return {card: getattr(row, tail) for card, row in getattr(rs, head).items()}
        return _LOADOUT_VALUES[self.name](scenario)

    def domain_of(self, scenario: Scenario) -> str:
        """The domain, with the range a :attr:`bound` gives for the scenario's stalker."""
        card = scenario.ruleset.stalkers.get(scenario.stalker)
        if not self.bound or card is None:
            return self.domain
        return f"{self.domain}; {scenario.stalker}: 0..{getattr(card, self.bound)}"

    def row(self, scenario: Scenario | None = None) -> dict[str, Any]:
        """The setting as ``zonesim settings`` prints it (its JSON keys, in order)."""
        return {"name": self.name, "kind": self.kind, "type": self.type,
                "domain": self.domain if scenario is None else self.domain_of(scenario),
                "default": self.default,
                "value": None if scenario is None else self.value(scenario),
                "doc": plain(self.doc), "rules": list(self.rules), "option": self.option,
                "experiments": list(self.experiments), "searched": self.searched,
                "lever": self.lever}


def step_of(table: str, column: str, kind: type | str, lo: float | None = None,
            hi: float | None = None) -> int | float:
    """One step of a value: 100 rubles for money, 1/20 of the range for a real key, else 1.

    Money is a ``price`` or ``rubles`` column or a rule key whose name holds
    ``price`` (``table`` ``rules``).
    """
    if column in ("price", "rubles") or (table == RULES_TABLE and "price" in column):
        return MONEY_STEP
    if kind is float:
        return round(((hi or 0.0) - (lo or 0.0)) / REAL_STEPS, 12) or 0.05
    return 1


def plain(text: str) -> str:
    """``text`` without the docstrings' markup: ``name`` and :data:`NAME` read as ``name``."""
    return re.sub(r":\w+:`~?([^`]+)`|``([^`]+)``", lambda m: m.group(1) or m.group(2), text)


def rule_ids(text: str) -> tuple[str, ...]:
    """The rule IDs ``text`` names, each once, in order (``P-26 to P-28`` names two)."""
    return tuple(dict.fromkeys(RULE_IDS.findall(text)))


# --- rules.toml ------------------------------------------------------------------------

def _rule(p: Param) -> Setting:
    name = f"{p.section}.{p.key}"
    if p.choices:
        kind, domain = "choice", ", ".join(p.choices)
    else:
        kind = p.type.__name__
        domain = "true, false" if p.type is bool else f"{_number(p.lo)}..{_number(p.hi)}"
    numeric = p.type in (int, float)
    return Setting(
        name, "rule", f"{RULES_FILE} [{p.section}]", kind, domain,
        p.default if not p.follows else f"as {p.follows}", f"{p.doc} ({p.rules})",
        rule_ids(p.rules),
        experiments=EXPERIMENTS,
        searched=EDITED if numeric else READING,
        lever=step_of(RULES_TABLE, p.key, p.type, p.lo, p.hi) if numeric else NOT_A_NUMBER,
        slot=p.slot, choices=BOOL if p.type is bool else tuple(p.choices or ()))


def _number(x: float | None) -> str:
    return "" if x is None else f"{x:g}" if isinstance(x, float) else str(x)


# --- card columns ----------------------------------------------------------------------

def _column(table: str, c: Column) -> Setting:
    if c.kind in ("int", "int_or_auto"):
        domain = f"{c.lo}..{c.hi}" + (" or auto" if c.kind == "int_or_auto" else "")
    elif c.kind == "die":
        domain = "a die face 2..6"
    elif c.kind == "enum":
        domain = ", ".join(c.choices)
    elif c.kind == "flag":
        domain = "0, 1"
    else:
        domain = "non-empty text" if c.kind == "name" else "text"
    if c.blank:
        domain += "; may be empty"
    if not c.required:
        domain += "; the column may be absent"
    numeric = c.kind in NUMERIC_KINDS
    fixed = ("the map, not a player's choice: zonesim studio edits its hexes as a grid, "
             "no other command does" if table == MAP
             else "the card's name: the key its other cells are edited by"
             if c.name == NAME.name else "")
    return Setting(
        f"{table}.{c.name}", "card", f"{table}.csv",
        {"enum": "choice", "flag": "bool", "die": "int", "int_or_auto": "int"}.get(c.kind,
                                                                                  c.kind),
        domain, c.default, c.doc, rule_ids(c.rules),
        experiments=() if fixed else EXPERIMENTS,
        searched=CARD if not fixed else fixed,
        lever=fixed or (step_of(table, c.name, c.kind) if numeric else NOT_A_NUMBER),
        choices=BOOL if c.kind == "flag" else tuple(c.choices or ()))


# --- [policy] --------------------------------------------------------------------------

_HEALTH = f"0..{MAX_THRESHOLD} (0 never); a Health above the stalker card's acts as his"
_TYPES = {bool: "bool", int: "int", str: "choice", tuple[str, ...]: "cards",
          tuple[tuple[str, float], ...]: "table", tuple[tuple[str, int], ...]: "table"}


def attribute_docs(cls: type) -> dict[str, str]:
    """The words of each attribute of a NumPy-style docstring's ``Attributes`` section, by
    name (``a, b : int`` gives both the same words), joined into one line.
    """
    doc = cls.__doc__ or ""
    out: dict[str, str] = {}
    names: list[str] = []
    section = doc.partition("Attributes\n")[2]
    for line in section.splitlines()[1:]:
        text = line.strip()
        if not text:
            continue
        if " : " in text and not line.startswith(" " * 8):
            names = [n.strip() for n in text.partition(" : ")[0].split(",")]
            for n in names:
                out[n] = ""
        else:
            for n in names:
                out[n] = f"{out[n]} {text}".strip()
    return out


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to a full stop and a space), without the stop."""
    head = re.split(r"(?<=[a-z)\]`])\.(\s|$)", text, maxsplit=1)[0]
    return head.strip().rstrip(".")


def _policy(f: dataclasses.Field, hint: object, words: str) -> Setting:
    """A ``[policy]`` key's row: its type and default from its :class:`Policy` field, what
    the field declares with :func:`~sim.rules.scenario.policy_key` from its metadata.
    """
    meta = f.metadata
    missing = [k for k in SETTING if k not in meta]
    if missing:
        raise TypeError(f"policy field {f.name!r} declares no {', '.join(missing)}: declare it "
                        "with sim.rules.scenario.policy_key(...)")
    if not words:
        raise TypeError(f"policy field {f.name!r} has no words in the Attributes of Policy's "
                        "docstring: say there what it means, with its rule IDs")
    choices = meta.get("choices", BOOL if hint is bool else ())
    if "choices" in meta:
        domain = ", ".join(map(str, choices))
    elif hint is bool:
        domain = "true, false"
    elif hint is int:
        domain = _HEALTH if "Health" in words else f"0..{MAX_THRESHOLD} (0 never)"
    else:
        domain = meta["domain"]
    default = f.default
    if f.name == "route":
        default = "nearest"
    elif isinstance(default, tuple):
        default = dict(default) if hint in (tuple[tuple[str, float], ...],
                                            tuple[tuple[str, int], ...]) else list(default)
    return Setting(f"policy.{f.name}", "policy", "scenario [policy]", _TYPES[hint], domain,
                   default, first_sentence(words), rule_ids(words), meta["option"],
                   meta["experiments"], meta["searched"], NOT_A_CARD, meta["slot"],
                   "health" if domain == _HEALTH else "", choices, meta.get("entries"))


# --- scenario: stalker, start, seats, [loadout] ----------------------------------------

_LOADOUT_VALUES = {
    "ruleset": lambda s: str(s.ruleset.path),
    "stalker": lambda s: s.stalker,
    "start": lambda s: s.start,
    "stalkers": lambda s: s.stalkers,
    "variant": lambda s: s.variant,
    "targets": lambda s: {k: list(v) for k, v in s.targets.items()},
    "players": lambda s: len(s.players),
    "players.character": lambda s: [p.stalker for p in s.players],
    "loadout.armor": lambda s: s.armor,
    "loadout.weapons": lambda s: list(s.weapons),
    "loadout.items": lambda s: list(s.items),
    "loadout.rubles": lambda s: s.rubles,
    "loadout.artifacts": lambda s: list(s.artifacts),
}
"""How each scenario key's value is read from a loaded :class:`~sim.rules.scenario.Scenario`."""

_SCENARIO = "scenario"
_LOADOUT_TABLE = "scenario [loadout]"
_OPTIMIZED = "the starting loadout is searched within the starting money (P-13)"


def _loadout_rows() -> tuple[Setting, ...]:
    """The scenario's top-level keys (but ``loadout`` and ``policy``, tables of keys declared
    one by one), a seat's ``character`` and the ``[loadout]`` keys.
    """
    said = attribute_docs(Scenario)
    player = attribute_docs(Player)
    return (
        Setting("ruleset", "loadout", _SCENARIO, "name",
                "a bundled ruleset's name or a folder (relative to the scenario file)",
                "base", "the ruleset the scenario plays", option="--rules",
                experiments=EXPERIMENTS,
                searched="the rules, not a player's choice: zonesim compare scenarios and "
                         "report --baseline compare rulesets", lever=NOT_A_KEY),
        Setting("stalker", "loadout", _SCENARIO, "name", "a stalkers.csv card", None,
                "the stalker card played (required unless [[players]] name theirs)",
                rule_ids(said["stalker"]), "--stalker", EXPERIMENTS,
                "the character is the question: zonesim balance characters --best-play "
                "searches each one's best play", NOT_A_CARD),
        Setting("start", "loadout", _SCENARIO, "name", "a named location on the map", None,
                "the location the stalkers start from (required)", (), "", CAMPAIGN,
                "the board's start, not a player's choice", NOT_A_CARD),
        Setting("stalkers", "loadout", _SCENARIO, "int", f"1..{MAX_PLAYERS}", 1,
                first_sentence(said["stalkers"]) + ": copies of the top-level stalker",
                ("P-45",), searched="the number of players, not a choice of one",
                lever=NOT_A_KEY),
        Setting("variant", "loadout", _SCENARIO, "choice", ", ".join(VARIANTS), VARIANTS[0],
                "competitive or cooperative victory", ("P-45",),
                searched="the game played, not a choice of a player", lever=NOT_A_KEY),
        Setting("targets", "loadout", _SCENARIO, "table",
                "a table of metric names: [low, high]", {},
                "balance targets zonesim report checks", option="--target",
                experiments=EXPERIMENTS, searched="a measure of the game, not a setting of it",
                lever=NOT_A_KEY, entries=Entries(value="range")),
        Setting("players", "loadout", _SCENARIO, "list",
                f"1..{MAX_PLAYERS} [[players]] tables of {', '.join(sorted(PLAYER_KEYS))}",
                [], "the seats in seat order, each with its loadout and policy (what it leaves "
                "out is the top level's); its value is the number of seats", ("P-45",),
                searched="the seats, not a choice of a player", lever=NOT_A_KEY),
        Setting("players.character", "loadout", "scenario [[players]]", "name",
                "a stalkers.csv card", "the top-level stalker",
                first_sentence(player["stalker"]) + " of the seat",
                ("P-45",), searched="zonesim balance characters plays every character in "
                "every seat", lever=NOT_A_KEY),
        Setting("loadout.armor", "loadout", _LOADOUT_TABLE, "name", "an armor.csv card or none",
                None, first_sentence(said["armor"]), ("P-05", "P-06"), "--armor",
                EXPERIMENTS, True, NOT_A_CARD),
        Setting("loadout.weapons", "loadout", _LOADOUT_TABLE, "cards",
                "a list of weapons.csv cards (copies repeat)", [], "starting weapon cards",
                ("P-23", "P-29"), "--weapon", ("combat", "campaign"), True, NOT_A_CARD),
        Setting("loadout.items", "loadout", _LOADOUT_TABLE, "cards",
                "a list of items.csv cards (copies repeat)", [], "starting item cards",
                ("Z-10", "Z-12"), "--item", EXPERIMENTS, True, NOT_A_CARD),
        Setting("loadout.rubles", "loadout", _LOADOUT_TABLE, "int", f"0..{MAX_RUBLES}",
                "the stalker card's rubles", first_sentence(said["rubles"]), ("P-13",), "",
                CAMPAIGN, "settled, not searched: " + _OPTIMIZED + ", and starts with the "
                "money it leaves", NOT_A_CARD, "C_RUBLES"),
        Setting("loadout.artifacts", "loadout", _LOADOUT_TABLE, "cards",
                "a list of artifacts.csv cards", [], first_sentence(said["artifacts"]),
                rule_ids(said["artifacts"]), "--artifact", EXPERIMENTS, True, NOT_A_CARD),
    )


@functools.cache
def settings() -> tuple[Setting, ...]:
    """Every setting, by kind (:data:`KINDS`), each kind in its declaration order."""
    hints = typing.get_type_hints(Policy)
    words = attribute_docs(Policy)
    rows = (*(_rule(p) for p in PARAMS),
            *(_policy(f, hints[f.name], words.get(f.name, "")) for f in dataclasses.fields(Policy)),
            *_loadout_rows(),
            *(_column(t, c) for t, columns in TABLES.items() for c in columns),
            *(_column(MAP, c) for c in MAP_COLUMNS))
    return rows


def by_name() -> Mapping[str, Setting]:
    """Every setting by name."""
    return {s.name: s for s in settings()}


def of_kind(kind: str | None = None) -> tuple[Setting, ...]:
    """The settings of one kind (None: all)."""
    return tuple(s for s in settings() if kind is None or s.kind == kind)


__all__ = ["BOOL", "CAMPAIGN", "ENCOUNTERS", "EXPERIMENTS", "KINDS", "Entries", "MONEY_STEP",
           "NUMERIC_KINDS", "REAL_STEPS", "Setting", "attribute_docs", "by_name",
           "first_sentence", "of_kind", "plain", "rule_ids", "settings", "step_of"]
