"""Declarative specification of a ruleset: CSV columns and ``rules.toml`` keys.

Everything the loader checks per cell or per key is declared here, so adding
a column or a rule parameter is one line. Cross-column and cross-table checks
(which need more than one cell) live in :mod:`sim.rules.checks`.

The rule IDs (Z-xx, P-xx, S-xx) refer to ``shared/rules/seed-digest.md``;
``docs/rules.md`` explains every column and key.
"""

from __future__ import annotations

from dataclasses import dataclass

DAMAGE_TYPES: tuple[str, ...] = ("physical", "thermal", "chemical", "electric", "radiation", "psi")
"""Damage types. The first four are wounds to Health (P-37), ``radiation`` is
doses on the radiation track (P-39), ``psi`` is mental disturbances against
Willpower (P-40)."""

HEALTH_DAMAGE: tuple[str, ...] = DAMAGE_TYPES[:4]
"""Damage types that are wounds to Health (P-37)."""


def fightable(wound_type: str) -> bool:
    """Whether a fight against an enemy dealing ``wound_type`` has an end in the rules: its
    wounds knock out through Health (P-37) or Willpower (P-40), not radiation (P-39).

    The one statement of it: the loader refuses an enemy deck with no such card
    (:func:`sim.rules.validate.unplayable`), and the fight and campaign compile steps play
    only such cards.
    """
    return wound_type in HEALTH_DAMAGE or wound_type == "psi"

ENEMY_KINDS = ("mutant", "stalker", "animal")  # P-26, P-27, P-28
HABITATS = ("open", "secret", "any")  # P-26 to P-28
RANGES = ("long", "short", "melee")  # P-29
ITEM_EFFECTS = (
    "event_avoid",  # Z-08, Z-09
    "escape",  # Z-15, Z-16
    "medkit",  # Z-11 to Z-14
    "stimulant",  # Z-11 to Z-14
    "movement",  # Z-01 to Z-03, Z-19, Z-20
    "location_movement",  # Z-07 (not simulated yet)
    "helicopter",  # Z-04, Z-05: the Helicopter call, back to the Military base
    "none",  # Z-04, Z-06: Spatial gate
)
ARTIFACT_EFFECTS = ("none", "heal", "calm", "purge", "resist", "movement", "combat", "stealth")
ACTIVATIONS = ("auto", "intellect")  # P-09, P-10
EVENT_EFFECTS = ("wounds", "radiation", "psi", "lost_day", "emission_tokens", "none", "enemy",
                 "anomaly")
"""What an event card does when it happens (Z-08..Z-10); ``enemy`` and ``anomaly`` bring an
encounter (P-16: an enemy from an Event card goes back into the pool unless killed; P-30)."""
DEFORMATION_EFFECTS = ("none", "radiation_limit", "wounds", "disturbances", "knocked_down",
                       "emission_tokens")
"""What a Deformation card does when drawn (P-39; Gap "Deformation Card effects"): nothing,
the radiation limit lowered by ``value`` for the rest of the character's life, ``value``
wounds or mental disturbances at once, ``value`` more days knocked down (P-42), ``value``
tokens on the Emission Track (P-47). The order is the kernel's code order."""
MAX_DEFORMATION_CARDS = 16
"""Most Deformation cards (the sum of ``count``) a deck holds: the kernel keeps its order."""
MAX_ZONE_CARDS = 8
"""Most kinds of Zone card (rows of ``zone.csv``) a deck holds: the kernel keeps a count per
kind (P-30, P-47; the copies of a kind are ``count``, up to 99)."""
TOKEN_USES = ("none", "health", "willpower", "radiation")
"""What a clue or Zone token is spent on (Gap "Tokens"): nothing, or one point healed on a
track (a wound, a mental disturbance, a radiation dose) at the end of his turn."""
AUTO = "auto"
"""Item value meaning "succeeds without a roll" (Torsion scanner, Z-09)."""


@dataclass(frozen=True)
class Column:
    """One CSV column.

    Parameters
    ----------
    name : str
        Header text, exactly.
    kind : str
        ``name`` (non-empty text), ``text``, ``int`` (``lo..hi``), ``die`` (a
        die face 2..6), ``enum`` (one of ``choices``), ``flag`` (0 or 1, read
        as bool) or ``int_or_auto`` (an int ``lo..hi`` or the word ``auto``).
    lo, hi : int
        Inclusive range for ``int`` and ``int_or_auto``.
    choices : tuple of str
        Allowed values for ``enum``.
    required : bool
        Whether the column must be present in the header. An optional column
        that is absent takes ``default`` in every row.
    blank : bool
        Whether an empty cell is allowed; it then reads as ``default``.
    default : object
        Value of an empty cell (``blank``) or of an absent optional column.
    """

    name: str
    kind: str
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()
    required: bool = True
    blank: bool = False
    default: object = None


def _int(name: str, lo: int, hi: int, **kw: object) -> Column:
    return Column(name, "int", lo=lo, hi=hi, **kw)  # type: ignore[arg-type]


def _enum(name: str, choices: tuple[str, ...], **kw: object) -> Column:
    return Column(name, "enum", choices=choices, **kw)  # type: ignore[arg-type]


NAME = Column("name", "name")
NOTES = Column("notes", "text", required=False, blank=True, default="")
PRICE = _int("price", 0, 1_000_000)
COUNT = _int("count", 0, 99)  # copies of the card in its deck
HANDS = _int("hands", 0, 2)  # P-23
POOL = 10  # largest dice pool / modifier accepted (base cards use 1..6)

TABLES: dict[str, tuple[Column, ...]] = {
    "stalkers": (
        NAME,
        _int("health", 1, 30),  # P-37
        _int("willpower", 1, 30),  # P-40
        _int("radiation_max", 1, 30),  # P-39
        _int("combat", 0, POOL),  # P-19
        _int("stealth", 0, POOL),  # P-16, P-21
        _int("perception", 0, POOL),  # P-31
        _int("agility", 0, POOL),  # P-32
        _int("intellect", 0, POOL),  # P-10
        _int("reputation", 0, POOL),  # Z-15, Z-16
        _int("rubles", 0, 1_000_000),  # P-13
        NOTES,
    ),
    "enemies": (
        NAME,
        COUNT,
        _enum("kind", ENEMY_KINDS),  # P-26 to P-28
        _enum("habitat", HABITATS),  # P-26 to P-28
        _int("vigilance", 0, POOL),  # P-15, P-16
        _int("endurance", 1, POOL),  # P-19 (Toughness)
        _int("wounds", 0, POOL),  # P-20
        _enum("wound_type", DAMAGE_TYPES),  # P-20
        Column("melee", "flag"),  # P-29
        # P-22: special traits (sim.rules.traits), ';'-separated; empty = none
        Column("traits", "text", required=False, blank=True, default=""),
        NOTES,
    ),
    "anomalies": (
        NAME,
        COUNT,
        Column("artifact_type", "text", blank=True, default=""),  # P-35; empty = none
        _int("perception", 0, POOL),  # P-31
        _int("agility", 0, POOL),  # P-32
        _int("damage", 0, POOL),  # P-32
        _enum("damage_type", DAMAGE_TYPES),  # P-32
        # P-07, P-35: the find test's modifier from the card text; empty = anomaly.find_need
        _int("find", 0, POOL, required=False, blank=True),
        NOTES,
    ),
    "armor": (
        NAME,
        PRICE,
        _int("durability", 1, 20),  # P-03
        # P-01, P-02: the die face that absorbs a wound of this type; empty = none
        *(Column(t, "die", blank=True) for t in DAMAGE_TYPES),
        NOTES,
    ),
    "weapons": (
        NAME,
        PRICE,
        _int("bonus", 0, POOL),  # P-19, P-29
        HANDS,
        _enum("range", RANGES),  # P-29
        _int("uses", 1, 99, blank=True),  # empty = unlimited
        NOTES,
    ),
    "items": (
        NAME,
        PRICE,
        _enum("effect", ITEM_EFFECTS),
        Column("value", "int_or_auto", lo=0, hi=99, blank=True),  # meaning per effect
        _int("uses", 1, 99, blank=True),  # empty = reusable (Z-01)
        HANDS,
        # Z-05, Z-11: the factions whose bases sell it, joined by '-'; empty = every base
        Column("sold_at", "text", required=False, blank=True, default=""),
        NOTES,
    ),
    "artifacts": (
        NAME,
        COUNT,
        Column("type", "name"),  # P-12, P-35
        PRICE,  # P-11
        _enum("effect", ARTIFACT_EFFECTS, required=False, default="none"),  # P-08
        _int("value", 0, 99, required=False, blank=True, default=0),
        _enum("effect_type", DAMAGE_TYPES, required=False, blank=True),  # for resist
        _enum("activation", ACTIVATIONS, required=False, default="auto"),  # P-09, P-10
        _int("intellect_need", 0, POOL, required=False, blank=True, default=0),  # P-10 modifier
        _enum("side_effect", ("none", *DAMAGE_TYPES), required=False, default="none"),  # P-09
        _int("side_value", 0, 99, required=False, blank=True, default=0),
        _int("hands", 0, 2, required=False, default=0),  # P-23
        NOTES,
    ),
    "events": (
        NAME,
        COUNT,
        Column("avoid_on", "die", blank=True),  # Z-09; empty = no avoidance roll
        _enum("effect", EVENT_EFFECTS),
        _int("value", 0, 99),
        _enum("damage_type", HEALTH_DAMAGE, blank=True, default=""),  # for wounds
        NOTES,
    ),
    "emissions": (
        NAME,
        _int("order", 1, 99),  # P-49
        _int("wounds", 0, 99),
        _int("radiation", 0, 99),
        _int("psi", 0, 99),
        Column("final", "flag"),  # P-49 Final Emission
        _enum("wound_type", HEALTH_DAMAGE, required=False, default="physical"),
        NOTES,
    ),
    "sarcophagus": (
        NAME,
        _int("order", 1, 99),  # P-50: fought in this order
        Column("enemy", "name"),  # a card of enemies.csv
        NOTES,
    ),
    "deformations": (  # P-39, P-43; Gap "Deformation Card effects"
        NAME,
        COUNT,
        _enum("effect", DEFORMATION_EFFECTS),
        _int("value", 0, 99, blank=True, default=0),
        NOTES,
    ),
    "zone": (  # P-30, P-47: the Zone deck (zone.cards = "deck"); every effect, in this order
        NAME,
        COUNT,
        _int("enemies", 0, 9, blank=True, default=0),  # enemy cards laid (P-47)
        _int("anomalies", 0, 9, blank=True, default=0),  # anomaly cards laid (P-30, P-47)
        Column("environment", "flag", blank=True, default=False),  # the Environment changes
        _int("emission_tokens", 0, 30, blank=True, default=0),  # tokens on the track (P-47)
        NOTES,
    ),
}
"""Columns per table; the file is ``<table>.csv``. Order is the documented order."""

MAP = "map"
"""The hex map table, ``map.csv``: one row per hex, not a card table (Z-18 to Z-26)."""

DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""Axial ``(dq, dr)`` of the six neighbours; direction ``d`` is opposite ``(d + 3) % 6``."""

LOCATIONS = ("open", "secret", "complex", "bunker", "base", "epicentre", "sarcophagus")
"""Location kinds of a hex (P-38, P-48, P-50; Z-03). Blank: plain Zone terrain."""

NAMED_LOCATIONS = ("complex", "bunker", "base", "sarcophagus")
"""Locations that must carry a name (objectives and places a stalker is sent to)."""

EPICENTRE_LOCATIONS = ("epicentre", "sarcophagus")
"""Hexes of the Epicentre (Z-03); the Sarcophagus lies inside it (assumption)."""

FACTIONS = ("duty", "freedom", "ecologists", "military")
"""Owners of the faction bases (P-26, Z-05)."""

MAP_COLUMNS: tuple[Column, ...] = (
    _int("q", -999, 999),  # axial coordinates (Z-18)
    _int("r", -999, 999),
    _int("terrain", 1, 6),  # Z-21, Z-22: step cost; Epicentre hexes cost movement.epicentre_cost
    _enum("location", LOCATIONS, blank=True, default=""),
    Column("name", "text", blank=True, default=""),  # required for NAMED_LOCATIONS
    _enum("faction", FACTIONS, blank=True, default=""),  # bases only
    Column("roads", "text", blank=True, default=""),  # Z-25, Z-26: e.g. "0-3;1-4", "0-2-4"
    NOTES,
)
"""Columns of ``map.csv``; cross-column and whole-map checks are in :mod:`sim.rules.validate`."""


@dataclass(frozen=True)
class Param:
    """One ``rules.toml`` key.

    Parameters
    ----------
    section, key : str
        ``[section]`` and key name; addressed as ``section.key``.
    type : type
        ``int``, ``float``, ``bool`` or ``str`` (a TOML bool is not an int).
    default : object
        Value used when the key is absent.
    lo, hi : int or float or None
        Inclusive range for numbers.
    rules : str
        Rule IDs or the digest Gap the key implements.
    choices : tuple of str
        Allowed values of a ``str`` key (empty: any string).
    follows : str
        ``section.key`` of another key whose value this one takes when
        ``rules.toml`` does not set it (and which an edit of that key carries
        along unless the edits set this one too); empty: ``default``.
    """

    section: str
    key: str
    type: type
    default: object
    lo: float | None = None
    hi: float | None = None
    rules: str = ""
    choices: tuple[str, ...] = ()
    follows: str = ""


PARAMS: tuple[Param, ...] = (
    Param("dice", "success_on", int, 5, 2, 6, "Gap: test procedure (seed 001); P-02"),
    Param("dice", "modifier", str, "successes",
          rules="P-16, P-31, P-32; Gap: what a test's modifier does",
          choices=("successes", "face")),
    Param("movement", "base_steps", int, 6, 1, 30, "Z-19"),
    Param("movement", "epicentre_cost", int, 5, 1, 30, "Z-03; Gap: Epicentre hex costs"),
    Param("movement", "road_change_cost", int, 2, 0, 30, "Z-26; Gap: replace or add (add)"),
    Param("movement", "items_in_epicentre", bool, False, rules="Z-03"),
    Param("emission", "threshold", int, 5, 1, 30, "P-48"),
    Param("economy", "mutant_trophy_lot", int, 5, 1, 99, "P-26, P-28"),
    Param("economy", "mutant_trophy_price", int, 500, 0, 1_000_000, "P-26, P-28"),
    Param("economy", "heal_price_per_wound", int, 100, 0, 1_000_000, "P-37, P-40"),
    Param("economy", "artifact_sell_divisor", int, 2, 1, 100, "P-11"),
    Param("economy", "shops", str, "per_base",
          rules="Z-05, Z-11 (each base has its own types; the Helicopter call only at the "
                "Military base): items.csv sold_at; every_base: every base sells every item",
          choices=("per_base", "every_base")),
    Param("economy", "paid_healing", str, "bunker",
          rules="P-37, P-40 (healing offered after a knock-out or concussion); Gap: whether a "
                "bunker also heals a stalker who walks in",
          choices=("bunker", "after_knockout")),
    Param("economy", "gear_shops", str, "every_base",
          rules="P-13 (gear and artefacts are bought with Rubles); Gap: where: every faction "
                "base, or the bases of one faction only",
          choices=("every_base", "duty", "freedom", "ecologists", "military")),
    Param("economy", "armor_trade_in_divisor", int, 0, 0, 100,
          rules="P-13, P-05, P-11; Gap: what becomes of the old armour when one is bought in a "
                "game: 0 discarded (the texts sell only artefacts and trophies), N sold for "
                "price // N (2: P-11's rate for an artefact)"),
    Param("economy", "bought_artifacts", str, "from_deck",
          rules="P-13, P-35; Gap: whether an artefact bought is a card of the artefact deck "
                "(from_deck: one of its type must be left, and it is taken) or comes from "
                "outside it (outside_deck)",
          choices=("from_deck", "outside_deck")),
    Param("events", "items_consumed", bool, False, rules="Gap: event items used up (Z-08)"),
    Param("escape", "items_consumed", bool, False, rules="Gap: escape items used up (Z-15)"),
    Param("reaction", "covering_extra_dice", int, 1, 0, 6, "S-15"),
    Param("reaction", "result_cap", int, 2, 1, 6, "S-11, S-15"),
    Param("combat", "avoid_rule", str, "stealth_test", rules="P-16; Z-15 to Z-17",
          choices=("stealth_test", "reputation")),
    Param("combat", "hands", int, 2, 0, 10, "P-23"),
    Param("combat", "long_range_divisor", int, 2, 1, 10, "P-29"),
    Param("combat", "short_range_close_combat", str, "full",
          rules="Gap: short-range bonus in close combat (P-29)", choices=("full", "half")),
    Param("combat", "melee_weapons_vs_ranged", bool, False,
          rules="Gap: melee weapons against non-Melee enemies (P-29)"),
    Param("combat", "max_rounds", int, 100, 1, 10_000, "safety cap (P-18)"),
    Param("combat", "medkits_in_combat", bool, False,
          rules="P-24 (seed 001) vs Z-12 (seed 000): medkits usable in combat"),
    Param("anomaly", "voluntary_bonus_dice", int, 1, 0, 10, "P-36"),
    Param("anomaly", "find_attribute", str, "perception",
          rules="P-07, P-35; Gap: the 'appropriate test' of the artefact search",
          choices=("perception", "agility", "intellect", "stealth", "combat")),
    Param("anomaly", "find_need", int, 1, 0, 10,
          "P-07, P-35: 'has a chance to find'; Gap: the test's modifier (0 = certain)"),
    Param("armor", "absorbs_radiation", bool, True, rules="P-01, P-03; Gap: radiation procedure"),
    Param("armor", "absorbs_psi", bool, True, rules="Gap: armour against mental disturbances"),
    Param("economy", "stalker_trophy_lot", int, 5, 1, 99, "P-27"),
    Param("campaign", "max_days", int, 120, 1, 2000,
          "safety cap; games still running are 'capped'"),
    Param("campaign", "open_location_draw", str, "event",
          rules="Gap: what an empty Open Space location holds",
          choices=("nothing", "event", "enemy", "anomaly")),
    Param("campaign", "secret_location_draw", str, "enemy",
          rules="Gap: what an empty Secret Location holds (P-26, P-27)",
          choices=("nothing", "event", "enemy", "anomaly")),
    Param("campaign", "killed_enemies", str, "never",
          rules="P-19, P-26..P-28; Gap: whether a killed enemy's card (a trophy) returns",
          choices=("never", "trophy_sold", "at_once", "reshuffle_when_empty")),
    Param("campaign", "anomaly_trophies", str, "never",
          rules="P-34; Gap: whether an exchanged anomaly trophy returns to the anomaly deck",
          choices=("never", "when_exchanged")),
    Param("campaign", "sold_artifacts", str, "never",
          rules="P-11; Gap: whether a sold artefact returns to the artefact deck",
          choices=("never", "returned")),
    Param("zone", "enemies_per_day", int, 1, 0, 20, "P-30, P-47; Gap: Zone phase"),
    Param("zone", "anomalies_per_day", int, 1, 0, 20, "P-30, P-47; Gap: Zone phase"),
    Param("zone", "cards", str, "per_day",
          rules="P-30, P-47; Gap: Zone phase (per-day numbers or Zone cards drawn from zone.csv)",
          choices=("per_day", "deck")),
    Param("zone", "cards_per_phase", int, 1, 0, 10,
          "P-47; Gap: Zone cards drawn each Zone phase (zone.cards = \"deck\")"),
    Param("zone", "enemy_limit", int, 6, 0, 200, "P-47; Gap: board limits"),
    Param("zone", "anomaly_limit", int, 6, 0, 200, "P-47; Gap: board limits"),
    Param("zone", "environment_change_chance", float, 0.2, 0.0, 1.0,
          "P-47; Gap: how often the Environment changes"),
    Param("emission", "tokens_per_limit", int, 1, 0, 30, "P-47; Gap: tokens per trigger"),
    Param("emission", "tokens_per_environment", int, 1, 0, 30, "P-47; Gap: tokens per trigger"),
    Param("emission", "tokens_per_knockout", int, 1, 0, 30, "P-47; Gap: tokens per trigger"),
    Param("emission", "tokens_per_concussion", int, 1, 0, 30, "P-47; Gap: tokens per trigger"),
    Param("emission", "tokens_per_deformation", int, 1, 0, 30, "P-47; Gap: tokens per trigger"),
    Param("emission", "accumulate", str, "persist", rules="P-49; Gap: what 'accumulate' means",
          choices=("persist", "card")),
    Param("emission", "bases_shelter", bool, True,
          rules="P-48 (Secret Locations and Bunkers are safe); Gap: whether faction bases are"),
    Param("emission", "armor_absorbs", bool, True,
          rules="P-02 (the armour rolls each time wounds come); Gap: whether the armour roll "
                "applies to Emission wounds and doses"),
    Param("death", "deformation_limit", int, 5, 1, 99, "P-39, P-43"),
    Param("death", "regain", int, 1, 1, 30, "P-37, P-40"),
    Param("death", "knocked_down_days", int, 1, 0, 30, "P-37, P-42; Gap: rounds and turns"),
    Param("death", "lost_days", int, 1, 0, 30, "P-38, P-41"),
    Param("artifacts", "failed_activation", str, "side_effect",
          rules="P-10; Gap: the result of a failed Intellect test",
          choices=("nothing", "side_effect", "both")),
    Param("artifacts", "carry_limit", int, 0, 0, 99,
          "Gap: how many artefacts a stalker carries (0 = no limit)"),
    Param("artifacts", "use_limit", int, 0, 0, 99,
          "Gap: how many carried artefacts act in one encounter (0 = all)"),
    Param("artifacts", "restore_uses", int, 1, 0, 99,
          "P-08; Gap: use limits of heal/calm/purge artefacts per encounter or day"),
    Param("artifacts", "resist_order", str, "before_armor",
          rules="P-02, P-08; Gap: a resist artefact 'with the armour'",
          choices=("before_armor", "after_armor")),
    Param("artifacts", "event_phase", str, "none",
          rules="P-12: Event-phase effects of artefact types (the seeds name none)",
          choices=("none",)),
    Param("artifacts", "movement_stacks", bool, True,
          rules="Z-20 'equipment and/or artefacts'; movement artefacts add to movement items"),
    Param("artifacts", "movement_in_epicentre", bool, False,
          rules="Z-03; Gap: whether movement artefacts count in the Epicentre",
          follows="movement.items_in_epicentre"),
    Param("artifacts", "exchange_trophies", int, 3, 1, 99,
          "P-07, P-34; Gap: anomaly trophies per artefact at the Ecologists' Bunker"),
    Param("artifacts", "exchange_draw", str, "random",
          rules="P-34; Gap: which artefact the exchange gives",
          choices=("random", "cheapest", "dearest")),
    Param("multiplayer", "turn_order", str, "rotating", rules="Gap: turn and phase order",
          choices=("seat", "rotating", "simultaneous")),
    Param("multiplayer", "first_player", str, "random", rules="Gap: turn and phase order",
          choices=("seat1", "random")),
    Param("multiplayer", "same_day_win", str, "first",
          rules="P-45; Gap: the Sarcophagus (victory conditions)", choices=("first", "shared")),
    Param("multiplayer", "after_win", str, "end",
          rules="P-45; Gap: the Sarcophagus (victory conditions)", choices=("end", "play_on")),
    Param("multiplayer", "after_death", str, "new_character", rules="P-43, P-44, P-45, P-46",
          choices=("new_character", "eliminated", "phantom")),
    Param("multiplayer", "new_character_items", int, 2, 0, 10,
          "P-44; Gap: character data (random starting equipment)"),
    Param("multiplayer", "cooperative_needed", int, 0, 0, 4,
          "P-45; Gap: the Sarcophagus (cooperative victory); 0 = every stalker still in"),
    Param("multiplayer", "cooperative_dead", str, "ignored",
          rules="P-44, P-45; Gap: the Sarcophagus (cooperative victory): a seat out of the "
                "game (dead, no character to come) is left out, or loses it for the team",
          choices=("ignored", "team_loses")),
    Param("tokens", "clues_start", int, 0, 0, 99, "P-39; Gap: tokens (clue tokens at the start)"),
    Param("tokens", "clues_per_complex", int, 0, 0, 99,
          "P-39, P-50; Gap: tokens (clue tokens gained per Secret Complex explored)"),
    Param("tokens", "clue_use", str, "none", rules="P-39; Gap: tokens (what a clue token is for)",
          choices=TOKEN_USES),
    Param("tokens", "zone_start", int, 0, 0, 99, "P-40; Gap: tokens (Zone tokens at the start)"),
    Param("tokens", "zone_per_anomaly", int, 0, 0, 99,
          "P-40; Gap: tokens (Zone tokens gained per anomaly gone through)"),
    Param("tokens", "zone_use", str, "none", rules="P-40; Gap: tokens (what a Zone token is for)",
          choices=TOKEN_USES),
)
"""Every ``rules.toml`` key. Missing keys take the default; unknown keys are errors."""


def sections() -> dict[str, tuple[Param, ...]]:
    """The ``PARAMS`` grouped by section, in declaration order."""
    out: dict[str, list[Param]] = {}
    for p in PARAMS:
        out.setdefault(p.section, []).append(p)
    return {s: tuple(ps) for s, ps in out.items()}
