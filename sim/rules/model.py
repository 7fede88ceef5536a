"""Typed, immutable model of a loaded ruleset.

Cards are frozen dataclasses whose attributes are the CSV columns (see
:data:`sim.rules.schema.TABLES`); tables are read-only mappings from card
name to card, in file order. ``rules.toml`` becomes a frozen :class:`Rules`
object with one frozen section per ``[section]``. No numpy here: compiling
to arrays happens later, from this model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from sim.rules.schema import DAMAGE_TYPES, DIRECTIONS, EPICENTRE_LOCATIONS, sections


@dataclass(frozen=True)
class Stalker:
    """A playable character (P-37, P-39, P-40 tracks; P-10 to P-32 tests; Z-16)."""

    name: str
    health: int
    willpower: int
    radiation_max: int
    combat: int
    stealth: int
    perception: int
    agility: int
    intellect: int
    reputation: int
    rubles: int
    notes: str = ""


@dataclass(frozen=True)
class Enemy:
    """An enemy card (P-14 to P-22, P-26 to P-29); ``count`` copies in the deck.

    ``traits`` is the card's ``traits`` cell (P-22), validated on loading; read it with
    :func:`sim.rules.traits.parse_traits`.
    """

    name: str
    count: int
    kind: str
    habitat: str
    vigilance: int
    endurance: int
    wounds: int
    wound_type: str
    melee: bool
    traits: str = ""
    notes: str = ""


@dataclass(frozen=True)
class Anomaly:
    """An anomaly card (P-30 to P-36). ``artifact_type`` empty: yields no artefact.

    ``find`` is the modifier of the artefact find test on this card (P-07, P-35);
    None = the ruleset's ``anomaly.find_need``.
    """

    name: str
    count: int
    artifact_type: str
    perception: int
    agility: int
    damage: int
    damage_type: str
    find: int | None = None
    notes: str = ""


@dataclass(frozen=True)
class Armor:
    """An armour (P-01 to P-06): per damage type the absorbing die face or None."""

    name: str
    price: int
    durability: int
    physical: int | None
    thermal: int | None
    chemical: int | None
    electric: int | None
    radiation: int | None
    psi: int | None
    notes: str = ""

    def resistance(self, damage_type: str) -> int | None:
        """Die face that absorbs one wound of ``damage_type`` (P-02), None if unprotected.

        Raises
        ------
        ValueError
            If ``damage_type`` is not one of :data:`~sim.rules.schema.DAMAGE_TYPES`.
        """
        if damage_type not in DAMAGE_TYPES:
            raise ValueError(f"unknown damage type {damage_type!r}; expected one of {DAMAGE_TYPES}")
        value: int | None = getattr(self, damage_type)
        return value


@dataclass(frozen=True)
class Weapon:
    """A weapon (P-19, P-23, P-29). ``uses`` None means unlimited."""

    name: str
    price: int
    bonus: int
    hands: int
    range: str
    uses: int | None
    notes: str = ""


@dataclass(frozen=True)
class Item:
    """Equipment (Z-01 to Z-17). ``uses`` None means reusable.

    ``value`` depends on ``effect``: the avoid-roll shift (``event_avoid``, or
    the literal ``"auto"``: avoided without a roll, Z-09), the Reputation
    reduction (``escape``, Z-15), health restored (``medkit``, ``stimulant``),
    steps added per day (``movement``), or None (``none``).
    """

    name: str
    price: int
    effect: str
    value: int | Literal["auto"] | None
    uses: int | None
    hands: int
    sold_at: str = ""
    notes: str = ""

    @property
    def sellers(self) -> tuple[str, ...]:
        """Factions whose bases sell the card (Z-05, Z-11); empty: every base."""
        return tuple(f for f in self.sold_at.split("-") if f)

    @property
    def auto(self) -> bool:
        """True if the item succeeds without a roll (``value == "auto"``, Z-09)."""
        return self.value == "auto"


@dataclass(frozen=True)
class Artifact:
    """An artefact (P-07 to P-12); see docs/rules.md for the effect columns."""

    name: str
    count: int
    type: str
    price: int
    effect: str = "none"
    value: int = 0
    effect_type: str | None = None
    activation: str = "auto"
    intellect_need: int = 0
    side_effect: str = "none"
    side_value: int = 0
    hands: int = 0
    notes: str = ""


@dataclass(frozen=True)
class Event:
    """An event card (Z-09). ``avoid_on`` None: no avoidance roll."""

    name: str
    count: int
    avoid_on: int | None
    effect: str
    value: int
    damage_type: str = ""
    notes: str = ""


@dataclass(frozen=True)
class SarcophagusCard:
    """What waits in the Sarcophagus (P-50): the enemy card ``enemy``, fought in ``order``."""

    name: str
    order: int
    enemy: str
    notes: str = ""


@dataclass(frozen=True)
class Deformation:
    """A Deformation card (P-39): drawn at a radiation mutation, ``effect`` by ``value``.

    The fifth card kills whatever it says (P-43, ``death.deformation_limit``).
    """

    name: str
    count: int
    effect: str
    value: int = 0
    notes: str = ""


@dataclass(frozen=True)
class Emission:
    """An Emission card (P-48, P-49); ``final`` marks the Final Emission."""

    name: str
    order: int
    wounds: int
    radiation: int
    psi: int
    final: bool
    wound_type: str = "physical"
    notes: str = ""


@dataclass(frozen=True)
class Hex:
    """One row of ``map.csv`` (Z-18 to Z-26).

    Attributes
    ----------
    q, r : int
        Axial coordinates; neighbour ``d`` is ``(q, r) + DIRECTIONS[d]``.
    terrain : int
        1 road, 2 field, 3 forest/hills, 4 swamp/lake, 5 mountains, 6 impassable
        mountains: the step cost of entering the hex (Z-21, Z-22), except in the
        Epicentre (``movement.epicentre_cost``, Z-03).
    location : str
        ``""`` (no location) or one of :data:`~sim.rules.schema.LOCATIONS`.
    name : str
        The location's name, ``""`` if none.
    faction : str
        Owner of a base, ``""`` otherwise.
    roads : tuple of tuple of int
        Road segments through the hex, each the directions it leaves by; two
        segments are roads crossing without a junction (Z-26).
    notes : str
        Free text.
    line : int
        Line in ``map.csv`` (for later error messages).
    """

    q: int
    r: int
    terrain: int
    location: str = ""
    name: str = ""
    faction: str = ""
    roads: tuple[tuple[int, ...], ...] = ()
    notes: str = ""
    line: int = 0

    @property
    def epicentre(self) -> bool:
        """True for Epicentre hexes, including the Sarcophagus (Z-03)."""
        return self.location in EPICENTRE_LOCATIONS

    def neighbour(self, direction: int) -> tuple[int, int]:
        """Axial coordinates of the neighbour in ``direction`` (0..5)."""
        dq, dr = DIRECTIONS[direction]
        return self.q + dq, self.r + dr


@dataclass(frozen=True)
class Map:
    """The hex map of a ruleset (``map.csv``), hexes in file order.

    Plain Python and immutable; :func:`sim.campaign.hexmap.compile_map` turns
    it into arrays.
    """

    hexes: tuple[Hex, ...] = ()

    def __len__(self) -> int:
        return len(self.hexes)

    def at(self, q: int, r: int) -> Hex | None:
        """The hex at axial ``(q, r)``, or None if it is not on the map."""
        for h in self.hexes:
            if h.q == q and h.r == r:
                return h
        return None

    def named(self, name: str) -> Hex:
        """The hex whose location is called ``name``.

        Raises
        ------
        KeyError
            If no location has that name.
        """
        for h in self.hexes:
            if h.name == name:
                return h
        raise KeyError(f"no location named {name!r} on the map")

    def of_kind(self, location: str) -> tuple[Hex, ...]:
        """Every hex whose ``location`` is ``location``, in file order."""
        return tuple(h for h in self.hexes if h.location == location)


@dataclass(frozen=True)
class ZoneCard:
    """A Zone card (P-30, P-47), drawn in the Zone phase under ``zone.cards = "deck"``.

    It lays ``enemies`` enemy cards, then ``anomalies`` anomaly cards on the
    board, changes the Environment (``environment``: ``emission.tokens_per_environment``
    tokens) and adds ``emission_tokens`` tokens to the Emission Track, in that order.
    """

    name: str
    count: int
    enemies: int = 0
    anomalies: int = 0
    environment: bool = False
    emission_tokens: int = 0
    notes: str = ""


CARD_TYPES: dict[str, type] = {
    "stalkers": Stalker,
    "enemies": Enemy,
    "anomalies": Anomaly,
    "armor": Armor,
    "weapons": Weapon,
    "items": Item,
    "artifacts": Artifact,
    "events": Event,
    "emissions": Emission,
    "sarcophagus": SarcophagusCard,
    "deformations": Deformation,
    "zone": ZoneCard,
}
"""Card class per table (file ``<table>.csv``)."""


def _param(self: Any, section: str, key: str) -> Any:
    """Value of ``rules.toml`` key ``section.key`` (after defaults)."""
    return getattr(getattr(self, section), key)


def _frozen(name: str, fields: list[tuple[str, type]], **kw: Any) -> type:
    cls = make_dataclass(name, fields, frozen=True, **kw)
    cls.__module__ = __name__  # make_dataclass's own `module=` needs Python 3.12
    return cls


SECTION_TYPES: dict[str, type] = {
    s: _frozen(f"{s.capitalize()}Rules", [(p.key, p.type) for p in ps])
    for s, ps in sections().items()
}
"""One frozen dataclass per ``rules.toml`` section, built from ``schema.PARAMS``."""

Rules = _frozen("Rules", list(SECTION_TYPES.items()), namespace={"param": _param})
Rules.__doc__ = "Typed ``rules.toml`` values: ``rules.dice.success_on`` or ``rules.param(s, k)``."


def default_rules() -> Any:
    """A :class:`Rules` object holding every default of ``schema.PARAMS``."""
    return Rules(
        **{s: SECTION_TYPES[s](**{p.key: p.default for p in ps}) for s, ps in sections().items()}
    )


@dataclass(frozen=True, eq=False)
class Ruleset:
    """A validated ruleset: cards per table and typed rule parameters.

    Attributes
    ----------
    path : Path
        The ruleset folder.
    rules : Rules
        ``rules.toml`` values, defaults filled in.
    stalkers, enemies, anomalies, armor, weapons, items, artifacts, events, emissions : Mapping
        Card name -> card, in file order (read-only).
    sarcophagus : Mapping
        The Sarcophagus deck (P-50), card name -> card; see :meth:`sarcophagus_deck`.
    deformations : Mapping
        The Deformation deck (P-39), card name -> card.
    zone : Mapping
        The Zone deck (P-30, P-47; ``zone.csv``), card name -> card.
    map : Map
        The hex map (``map.csv``).
    """

    path: Path
    rules: Any
    stalkers: Mapping[str, Stalker]
    enemies: Mapping[str, Enemy]
    anomalies: Mapping[str, Anomaly]
    armor: Mapping[str, Armor]
    weapons: Mapping[str, Weapon]
    items: Mapping[str, Item]
    artifacts: Mapping[str, Artifact]
    events: Mapping[str, Event]
    emissions: Mapping[str, Emission]
    sarcophagus: Mapping[str, SarcophagusCard]
    sha256: str
    lines: Mapping[tuple[str, str], int]
    map: Map = Map()
    deformations: Mapping[str, Deformation] = field(
        default_factory=lambda: MappingProxyType({}))
    zone: Mapping[str, ZoneCard] = field(default_factory=lambda: MappingProxyType({}))

    def digest(self) -> str:
        """SHA-256 (hex) of the ruleset files' bytes, for provenance in reports."""
        return self.sha256

    def param(self, section: str, key: str) -> Any:
        """Value of ``rules.toml`` key ``section.key``, e.g. ``param("dice", "success_on")``."""
        return _param(self.rules, section, key)

    def where(self, table: str, name: str) -> str:
        """``file:line`` of a card, for error messages of later stages."""
        return f"{self.path / (table + '.csv')}:{self.lines[(table, name)]}"

    def may_carry(self, n: int) -> bool:
        """Whether a stalker may carry ``n`` artefacts at once (``artifacts.carry_limit``; 0 = any).

        The seeds set no limit (a Gap, docs/rules.md); every check of the key reads this: the
        scenario's loadout, the encounters' artefact specs and the campaign's artefact masks.
        """
        limit = self.rules.artifacts.carry_limit
        return not limit or n <= limit

    def sarcophagus_deck(self) -> tuple[str, ...]:
        """Enemy cards waiting in the Sarcophagus, in the order they are fought (P-50)."""
        return tuple(c.enemy for c in sorted(self.sarcophagus.values(), key=lambda c: c.order))

    def emission_deck(self) -> tuple[Emission, ...]:
        """Emission cards sorted by ``order``; the last is the Final Emission (P-49)."""
        return tuple(sorted(self.emissions.values(), key=lambda e: e.order))
