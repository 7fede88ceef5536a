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
    rules : str
        The rule IDs the column implements (``docs/rules.md``, "Tables").
    doc : str
        What the column means, in one line (``zonesim settings``).
    """

    name: str
    kind: str
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()
    required: bool = True
    blank: bool = False
    default: object = None
    rules: str = ""
    doc: str = ""


def _int(name: str, lo: int, hi: int, **kw: object) -> Column:
    return Column(name, "int", lo=lo, hi=hi, **kw)  # type: ignore[arg-type]


def _enum(name: str, choices: tuple[str, ...], **kw: object) -> Column:
    return Column(name, "enum", choices=choices, **kw)  # type: ignore[arg-type]


NAME = Column("name", "name", doc="the card's name, unique in its table")
NOTES = Column("notes", "text", required=False, blank=True, default="",
               doc="free text for the designer; never read by the simulation")
PRICE = _int("price", 0, 1_000_000, rules="P-11, P-13", doc="price in rubles")
COUNT = _int("count", 0, 99, rules="P-14, P-30", doc="copies of the card in its deck")
HANDS = _int("hands", 0, 2, rules="P-23", doc="hands the card takes")
POOL = 10  # largest dice pool / modifier accepted (base cards use 1..6)

TABLES: dict[str, tuple[Column, ...]] = {
    "stalkers": (
        NAME,
        _int("health", 1, 30, rules="P-37", doc="Health track maximum"),
        _int("willpower", 1, 30, rules="P-40", doc="Willpower track maximum"),
        _int("radiation_max", 1, 30, rules="P-39", doc="radiation track maximum"),
        _int("combat", 0, POOL, rules="P-19", doc="Combat test dice pool"),
        _int("stealth", 0, POOL, rules="P-16, P-21", doc="Stealth test dice pool"),
        _int("perception", 0, POOL, rules="P-31", doc="Perception test dice pool"),
        _int("agility", 0, POOL, rules="P-32", doc="Agility test dice pool"),
        _int("intellect", 0, POOL, rules="P-10", doc="Intellect test dice pool"),
        _int("reputation", 0, POOL, rules="Z-15, Z-16",
             doc="escape roll: avoid on d6 >= reputation - item"),
        _int("rubles", 0, 1_000_000, rules="P-13", doc="starting money"),
        NOTES,
    ),
    "enemies": (
        NAME,
        COUNT,
        _enum("kind", ENEMY_KINDS, rules="P-26 to P-28", doc="who buys its trophy"),
        _enum("habitat", HABITATS, rules="P-26 to P-28", doc="where it appears"),
        _int("vigilance", 0, POOL, rules="P-15, P-16", doc="Stealth test modifier"),
        _int("endurance", 1, POOL, rules="P-19", doc="Toughness: successes needed to kill"),
        _int("wounds", 0, POOL, rules="P-20", doc="damage per failed round"),
        _enum("wound_type", DAMAGE_TYPES, rules="P-20", doc="damage type of its wounds"),
        Column("melee", "flag", rules="P-29", doc="closes in after round 1"),
        Column("traits", "text", required=False, blank=True, default="", rules="P-22",
               doc="special traits (sim.rules.traits), ';'-separated; empty = none"),
        NOTES,
    ),
    "anomalies": (
        NAME,
        COUNT,
        Column("artifact_type", "text", blank=True, default="", rules="P-35",
               doc="artefact type found here; empty = none"),
        _int("perception", 0, POOL, rules="P-31", doc="Perception test modifier"),
        _int("agility", 0, POOL, rules="P-32", doc="Agility test modifier"),
        _int("damage", 0, POOL, rules="P-32", doc="damage on a failed Agility test"),
        _enum("damage_type", DAMAGE_TYPES, rules="P-32", doc="damage type of that damage"),
        _int("find", 0, POOL, required=False, blank=True, rules="P-07, P-35",
             doc="the find test's modifier from the card text; empty = anomaly.find_need"),
        NOTES,
    ),
    "armor": (
        NAME,
        PRICE,
        _int("durability", 1, 20, rules="P-03", doc="damage tokens it takes before it is "
             "destroyed"),
        *(Column(t, "die", blank=True, rules="P-01, P-02",
                 doc=f"the die face that absorbs a {t} wound; empty = none")
          for t in DAMAGE_TYPES),
        NOTES,
    ),
    "weapons": (
        NAME,
        PRICE,
        _int("bonus", 0, POOL, rules="P-19, P-29", doc="Combat test bonus"),
        HANDS,
        _enum("range", RANGES, rules="P-29", doc="long, short or melee"),
        _int("uses", 1, 99, blank=True, doc="uses in a game; empty = unlimited"),
        NOTES,
    ),
    "items": (
        NAME,
        PRICE,
        _enum("effect", ITEM_EFFECTS, rules="Z-01 to Z-20",
              doc="what it does (docs/rules.md, Items)"),
        Column("value", "int_or_auto", lo=0, hi=99, blank=True,
               doc="meaning per effect; auto: succeeds without a roll"),
        _int("uses", 1, 99, blank=True, rules="Z-01", doc="uses; empty = reusable"),
        HANDS,
        Column("sold_at", "text", required=False, blank=True, default="", rules="Z-05, Z-11",
               doc="the factions whose bases sell it, joined by '-'; empty = every base"),
        NOTES,
    ),
    "artifacts": (
        NAME,
        COUNT,
        Column("type", "name", rules="P-12, P-35", doc="artefact type an anomaly yields"),
        PRICE,
        _enum("effect", ARTIFACT_EFFECTS, required=False, default="none", rules="P-08",
              doc="what it does when used"),
        _int("value", 0, 99, required=False, blank=True, default=0, rules="P-08",
             doc="size of its effect"),
        _enum("effect_type", DAMAGE_TYPES, required=False, blank=True, rules="P-08",
              doc="the damage type a resist artefact absorbs"),
        _enum("activation", ACTIVATIONS, required=False, default="auto", rules="P-09, P-10",
              doc="automatic, or an Intellect test"),
        _int("intellect_need", 0, POOL, required=False, blank=True, default=0, rules="P-10",
             doc="the Intellect test's modifier"),
        _enum("side_effect", ("none", *DAMAGE_TYPES), required=False, default="none",
              rules="P-09", doc="damage type of its side effect"),
        _int("side_value", 0, 99, required=False, blank=True, default=0, rules="P-09",
             doc="size of its side effect"),
        _int("hands", 0, 2, required=False, default=0, rules="P-23", doc="hands it takes"),
        NOTES,
    ),
    "events": (
        NAME,
        COUNT,
        Column("avoid_on", "die", blank=True, rules="Z-09",
               doc="avoided on d6 >= avoid_on; empty = no avoidance roll"),
        _enum("effect", EVENT_EFFECTS, rules="Z-08 to Z-10, P-16, P-30",
              doc="what the card does when it happens"),
        _int("value", 0, 99, doc="wounds, doses, disturbances, days or tokens"),
        _enum("damage_type", HEALTH_DAMAGE, blank=True, default="",
              doc="damage type of wounds; empty otherwise"),
        NOTES,
    ),
    "emissions": (
        NAME,
        _int("order", 1, 99, rules="P-49", doc="position in the deck"),
        _int("wounds", 0, 99, rules="P-49", doc="wounds to each stalker in the Open Space"),
        _int("radiation", 0, 99, rules="P-49", doc="doses to each stalker in the Open Space"),
        _int("psi", 0, 99, rules="P-49", doc="disturbances to each stalker in the Open Space"),
        Column("final", "flag", rules="P-49", doc="the Final Emission: kills everyone"),
        _enum("wound_type", HEALTH_DAMAGE, required=False, default="physical",
              doc="damage type of its wounds (assumption)"),
        NOTES,
    ),
    "sarcophagus": (
        NAME,
        _int("order", 1, 99, rules="P-50", doc="fought in this order"),
        Column("enemy", "name", rules="P-50", doc="a card of enemies.csv"),
        NOTES,
    ),
    "deformations": (  # P-39, P-43; Gap "Deformation Card effects"
        NAME,
        COUNT,
        _enum("effect", DEFORMATION_EFFECTS, rules="P-39, P-43",
              doc="what the card does when drawn"),
        _int("value", 0, 99, blank=True, default=0, rules="P-39, P-43",
             doc="size of its effect"),
        NOTES,
    ),
    "zone": (  # P-30, P-47: the Zone deck (zone.cards = "deck"); every effect, in this order
        NAME,
        COUNT,
        _int("enemies", 0, 9, blank=True, default=0, rules="P-47",
             doc="enemy cards laid on the board"),
        _int("anomalies", 0, 9, blank=True, default=0, rules="P-30, P-47",
             doc="anomaly cards laid on the board"),
        Column("environment", "flag", blank=True, default=False, rules="P-47",
               doc="the Environment changes"),
        _int("emission_tokens", 0, 30, blank=True, default=0, rules="P-47",
             doc="tokens on the Emission Track"),
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
    _int("q", -999, 999, rules="Z-18", doc="axial coordinate q of the hex"),
    _int("r", -999, 999, rules="Z-18", doc="axial coordinate r of the hex"),
    _int("terrain", 1, 6, rules="Z-21, Z-22",
         doc="step cost; Epicentre hexes cost movement.epicentre_cost"),
    _enum("location", LOCATIONS, blank=True, default="", rules="P-38, P-48, P-50, Z-03",
          doc="location kind; empty = plain Zone terrain"),
    Column("name", "text", blank=True, default="",
           doc="the location's name; required for complexes, bunkers, bases, the Sarcophagus"),
    _enum("faction", FACTIONS, blank=True, default="", rules="P-26, Z-05",
          doc="owner of a faction base"),
    Column("roads", "text", blank=True, default="", rules="Z-25, Z-26",
           doc='road segments through the hex, e.g. "0-3;1-4", "0-2-4"'),
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
    doc : str
        What the key means, in one line: the first sentence of its row in
        ``docs/rules.md`` (``zonesim settings``; ``tests/rules/test_settings.py``
        holds the two alike).
    slot : str
        The campaign parameter (``sim.kernels.campaign.PARAMETERS``, named as text:
        the rules layer does not import the kernels) the compile step copies the
        value to unchanged; empty: none (``tests/rules/test_settings.py`` checks it).
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
    doc: str = ""
    slot: str = ""


PARAMS: tuple[Param, ...] = (
    Param("dice", "success_on", int, 5, 2, 6, "Gap: test procedure (seed 001); P-02",
          doc="die face that counts as a success in a test"),
    Param("dice", "modifier", str, "successes",
          rules="P-16, P-31, P-32; Gap: what a test's modifier does",
          choices=("successes", "face"),
          doc="what a test's modifier (Vigilance, an anomaly's eye or skull value, the find "
              "modifier) does: successes = successes needed; face = the die face each die must "
              "reach, one success passes"),
    Param("movement", "base_steps", int, 6, 1, 30, "Z-19",
          doc="steps per day"),
    Param("movement", "epicentre_cost", int, 5, 1, 30, "Z-03; Gap: Epicentre hex costs",
          doc="steps to enter an Epicentre hex (two cost more than 9; 5 lets one be entered on "
              "the base 6)"),
    Param("movement", "road_change_cost", int, 2, 0, 30, "Z-26; Gap: replace or add (add)",
          doc="steps added when leaving a road hex by another road segment than the one arrived "
              "on (added to the 1-step road cost)"),
    Param("movement", "items_in_epicentre", bool, False, rules="Z-03",
          doc="movement items (steps above base_steps) usable on a day that enters the Epicentre"),
    Param("emission", "threshold", int, 5, 1, 30, "P-48",
          doc="Emission Track tokens that trigger an Emission", slot="C_THRESHOLD"),
    Param("economy", "mutant_trophy_lot", int, 5, 1, 99, "P-26, P-28",
          doc="mutant/animal trophies per sale to Duty", slot="C_TROPHY_LOT"),
    Param("economy", "mutant_trophy_price", int, 500, 0, 1_000_000, "P-26, P-28",
          doc="rubles per lot", slot="C_TROPHY_PRICE"),
    Param("economy", "heal_price_per_wound", int, 100, 0, 1_000_000, "P-37, P-40",
          doc="rubles per wound or disturbance healed", slot="C_HEAL_PRICE"),
    Param("economy", "artifact_sell_divisor", int, 2, 1, 100, "P-11",
          doc="artefacts sell for price // divisor", slot="C_SELL_DIVISOR"),
    Param("economy", "shops", str, "per_base",
          rules="Z-05, Z-11 (each base has its own types; the Helicopter call only at the "
                "Military base): items.csv sold_at; every_base: every base sells every item",
          choices=("per_base", "every_base"),
          doc="per_base: a base sells the items whose sold_at names its faction (blank: every "
              "base); every_base: every base sells every item"),
    Param("economy", "paid_healing", str, "bunker",
          rules="P-37, P-40 (healing offered after a knock-out or concussion); Gap: whether a "
                "bunker also heals a stalker who walks in",
          choices=("bunker", "after_knockout"),
          doc="bunker: any bunker heals for rubles, so a stalker walks to one to heal "
              "(policy.retreat_at); after_knockout: only one placed there after a knock-out or "
              "concussion (P-37, P-40 as written), and nobody retreats"),
    Param("economy", "gear_shops", str, "every_base",
          rules="P-13 (gear and artefacts are bought with Rubles); Gap: where: every faction "
                "base, or the bases of one faction only",
          choices=("every_base", "duty", "freedom", "ecologists", "military"),
          doc="where policy.shopping_gear buys weapons, artefacts and armour during a game: "
              "every faction base, or the bases of that faction only"),
    Param("economy", "armor_trade_in_divisor", int, 0, 0, 100,
          rules="P-13, P-05, P-11; Gap: what becomes of the old armour when one is bought in a "
                "game: 0 discarded (the texts sell only artefacts and trophies), N sold for "
                "price // N (2: P-11's rate for an artefact)",
          doc="what becomes of the old armour when policy.shopping_gear buys another: 0 "
              "discarded (the texts sell only artefacts, P-11, and trophies); N sold for price "
              "// N, the money counting towards the new one (2: P-11's rate for an artefact); a "
              "destroyed one (P-05) is worth nothing", slot="C_ARMOR_TRADE_IN"),
    Param("economy", "bought_artifacts", str, "from_deck",
          rules="P-13, P-35; Gap: whether an artefact bought is a card of the artefact deck "
                "(from_deck: one of its type must be left, and it is taken) or comes from "
                "outside it (outside_deck)",
          choices=("from_deck", "outside_deck"),
          doc="from_deck: an artefact bought is a card of the artefact deck (one of its type "
              "must be left, and it is taken out); outside_deck: the shop's artefacts are not "
              "the deck's"),
    Param("events", "items_consumed", bool, False, rules="Gap: event items used up (Z-08)",
          doc="event items used up when used", slot="C_EVENT_ITEMS_CONSUMED"),
    Param("escape", "items_consumed", bool, False, rules="Gap: escape items used up (Z-15)",
          doc="escape items used up when used", slot="C_ESCAPE_ITEMS_CONSUMED"),
    Param("reaction", "covering_extra_dice", int, 1, 0, 6, "S-15",
          doc="extra dice when Covering"),
    Param("reaction", "result_cap", int, 2, 1, 6, "S-11, S-15",
          doc="dice passed are capped at this"),
    Param("combat", "avoid_rule", str, "stealth_test", rules="P-16; Z-15 to Z-17",
          choices=("stealth_test", "reputation"),
          doc="how a fight is avoided: Stealth test vs Vigilance, or d6 >= Reputation - best "
              "escape item"),
    Param("combat", "hands", int, 2, 0, 10, "P-23",
          doc="hands available for weapons each round"),
    Param("combat", "long_range_divisor", int, 2, 1, 10, "P-29",
          doc="long-range bonus is divided (rounded down) from round 2 against Melee enemies"),
    Param("combat", "short_range_close_combat", str, "full",
          rules="Gap: short-range bonus in close combat (P-29)", choices=("full", "half"),
          doc="short-range bonus in close combat"),
    Param("combat", "melee_weapons_vs_ranged", bool, False,
          rules="Gap: melee weapons against non-Melee enemies (P-29)",
          doc="melee weapons usable against non-Melee enemies"),
    Param("combat", "max_rounds", int, 100, 1, 10_000, "safety cap (P-18)",
          doc="cap on rounds; a capped fight is its own outcome"),
    Param("combat", "medkits_in_combat", bool, False,
          rules="P-24 (seed 001) vs Z-12 (seed 000): medkits usable in combat",
          doc="medkits heal during fights like stimulants (P-24: hands-free \"medkits and "
              "medicines\" without limit); false follows Z-12 (\"medkits at any time outside "
              "combat\"), the seed the medkits come from"),
    Param("anomaly", "voluntary_bonus_dice", int, 1, 0, 10, "P-36",
          doc="extra Agility dice after a passed Perception test on a voluntary entry"),
    Param("anomaly", "find_attribute", str, "perception",
          rules="P-07, P-35; Gap: the 'appropriate test' of the artefact search",
          choices=("perception", "agility", "intellect", "stealth", "combat"),
          doc='pool of the artefact find test ("passing the appropriate test", P-07)'),
    Param("anomaly", "find_need", int, 1, 0, 10,
          "P-07, P-35: 'has a chance to find'; Gap: the test's modifier (0 = certain)",
          doc="modifier of the find test when the card's find is blank; 0 = every survivor finds "
              "one (no test)"),
    Param("armor", "absorbs_radiation", bool, True, rules="P-01, P-03; Gap: radiation procedure",
          doc="armour rolls against radiation doses and takes tokens for them"),
    Param("armor", "absorbs_psi", bool, True, rules="Gap: armour against mental disturbances",
          doc="armour with a psi resistance rolls against mental disturbances"),
    Param("economy", "stalker_trophy_lot", int, 5, 1, 99, "P-27",
          doc="stalker trophies Freedom takes for one Gear", slot="C_GEAR_LOT"),
    Param("campaign", "max_days", int, 120, 1, 2000,
          "safety cap; games still running are 'capped'",
          doc="days simulated at most; a game still running is capped", slot="C_MAX_DAYS"),
    Param("campaign", "open_location_draw", str, "event",
          rules="Gap: what an empty Open Space location holds",
          choices=("nothing", "event", "enemy", "anomaly"),
          doc="what an empty Open Space location draws"),
    Param("campaign", "secret_location_draw", str, "enemy",
          rules="Gap: what an empty Secret Location holds (P-26, P-27)",
          choices=("nothing", "event", "enemy", "anomaly"),
          doc="what an empty Secret Location or Complex draws"),
    Param("campaign", "killed_enemies", str, "never",
          rules="P-19, P-26..P-28; Gap: whether a killed enemy's card (a trophy) returns",
          choices=("never", "trophy_sold", "at_once", "reshuffle_when_empty"),
          doc="where a killed enemy's card goes: out of the game, back into the enemy deck when "
              "its trophy is sold, at once, or onto a discard pile shuffled back when a draw "
              "finds no card"),
    Param("campaign", "anomaly_trophies", str, "never",
          rules="P-34; Gap: whether an exchanged anomaly trophy returns to the anomaly deck",
          choices=("never", "when_exchanged"),
          doc="whether the anomaly cards kept as trophies go back into the anomaly deck when "
              "exchanged at the Ecologists' Bunker"),
    Param("campaign", "sold_artifacts", str, "never",
          rules="P-11; Gap: whether a sold artefact returns to the artefact deck",
          choices=("never", "returned"),
          doc="whether a sold artefact's card goes back into the artefact deck"),
    Param("zone", "enemies_per_day", int, 1, 0, 20, "P-30, P-47; Gap: Zone phase",
          doc="enemy cards laid on the board each Zone phase", slot="C_ENEMIES_PER_DAY"),
    Param("zone", "anomalies_per_day", int, 1, 0, 20, "P-30, P-47; Gap: Zone phase",
          doc="anomaly cards laid each Zone phase", slot="C_ANOMALIES_PER_DAY"),
    Param("zone", "cards", str, "per_day",
          rules="P-30, P-47; Gap: Zone phase (per-day numbers or Zone cards drawn from zone.csv)",
          choices=("per_day", "deck"),
          doc="what the Zone phase lays: the per-day keys below, or Zone cards drawn from "
              "zone.csv"),
    Param("zone", "cards_per_phase", int, 1, 0, 10,
          "P-47; Gap: Zone cards drawn each Zone phase (zone.cards = \"deck\")",
          doc='Zone cards drawn each Zone phase under zone.cards = "deck"', slot="C_ZONE_DRAWS"),
    Param("zone", "enemy_limit", int, 6, 0, 200, "P-47; Gap: board limits",
          doc="enemies on the board at most", slot="C_ENEMY_LIMIT"),
    Param("zone", "anomaly_limit", int, 6, 0, 200, "P-47; Gap: board limits",
          doc="anomalies on the board at most", slot="C_ANOMALY_LIMIT"),
    Param("zone", "environment_change_chance", float, 0.2, 0.0, 1.0,
          "P-47; Gap: how often the Environment changes",
          doc="chance per day that the Environment changes"),
    Param("emission", "tokens_per_limit", int, 1, 0, 30, "P-47; Gap: tokens per trigger",
          doc="tokens when a card exceeds a board limit", slot="C_TOKENS_LIMIT"),
    Param("emission", "tokens_per_environment", int, 1, 0, 30, "P-47; Gap: tokens per trigger",
          doc="tokens when the Environment changes", slot="C_TOKENS_ENVIRONMENT"),
    Param("emission", "tokens_per_knockout", int, 1, 0, 30, "P-47; Gap: tokens per trigger",
          doc="tokens per knock-out", slot="C_TOKENS_KNOCKOUT"),
    Param("emission", "tokens_per_concussion", int, 1, 0, 30, "P-47; Gap: tokens per trigger",
          doc="tokens per concussion", slot="C_TOKENS_CONCUSSION"),
    Param("emission", "tokens_per_deformation", int, 1, 0, 30, "P-47; Gap: tokens per trigger",
          doc="tokens per Deformation", slot="C_TOKENS_DEFORMATION"),
    Param("emission", "accumulate", str, "persist", rules="P-49; Gap: what 'accumulate' means",
          choices=("persist", "card"),
          doc="\"accumulate\": earlier Emissions' effects stay in force, or each card alone"),
    Param("emission", "bases_shelter", bool, True,
          rules="P-48 (Secret Locations and Bunkers are safe); Gap: whether faction bases are",
          doc="faction bases shelter from Emissions like bunkers; false: a base is reached like "
              "the Open Space (P-48 names only Secret Locations and Bunkers as safe)",
          slot="C_BASES_SHELTER"),
    Param("emission", "armor_absorbs", bool, True,
          rules="P-02 (the armour rolls each time wounds come); Gap: whether the armour roll "
                "applies to Emission wounds and doses",
          doc="the armour rolls against Emission wounds and doses (P-02: \"each time\" wounds "
              "come; the digest lists it as open, so false is the other reading)"),
    Param("death", "deformation_limit", int, 5, 1, 99, "P-39, P-43",
          doc="the Deformation that kills", slot="C_DEFORMATION_LIMIT"),
    Param("death", "regain", int, 1, 1, 30, "P-37, P-40",
          doc="points regained after a knock-out or concussion", slot="C_KNOCKOUT_REGAIN"),
    Param("death", "knocked_down_days", int, 1, 0, 30, "P-37, P-42; Gap: rounds and turns",
          doc="days without movement after a knock-out", slot="C_KNOCKED_DOWN_DAYS"),
    Param("death", "lost_days", int, 1, 0, 30, "P-38, P-41",
          doc="days out of play after a knock-out in a Secret Location (0: placed in the nearest "
              "bunker at once)", slot="C_LOST_DAYS"),
    Param("death", "one_stalker_after_death", str, "game_over",
          rules="P-43, P-44; Gap: a one-stalker game (the seeds describe several players)",
          choices=("game_over", "new_character"),
          doc="a one-stalker game: a death ends it, or the player draws a new character "
              "(P-44) and plays on as a multiplayer seat does (multiplayer.after_death)"),
    Param("artifacts", "failed_activation", str, "side_effect",
          rules="P-10; Gap: the result of a failed Intellect test",
          choices=("nothing", "side_effect", "both"),
          doc="what a failed Intellect test of an activated artefact does: side_effect = no "
              "effect and the side effect (P-10 avoids the side effect only on a pass), nothing "
              "= neither, both = as an automatic use"),
    Param("artifacts", "carry_limit", int, 0, 0, 99,
          "Gap: how many artefacts a stalker carries (0 = no limit)",
          doc="most artefacts a stalker carries; more are refused (exit 2); 0 = no limit",
          slot="C_CARRY_LIMIT"),
    Param("artifacts", "use_limit", int, 0, 0, 99,
          "Gap: how many carried artefacts act in one encounter (0 = all)",
          doc="artefacts that act in one encounter, the first ones carried; 0 = all (at most 8 "
              "are simulated)"),
    Param("artifacts", "restore_uses", int, 1, 0, 99,
          "P-08; Gap: use limits of heal/calm/purge artefacts per encounter or day",
          doc="uses of each heal/calm/purge artefact per encounter (campaign: per day)"),
    Param("artifacts", "resist_order", str, "before_armor",
          rules="P-02, P-08; Gap: a resist artefact 'with the armour'",
          choices=("before_armor", "after_armor"),
          doc="a resist artefact absorbs before the armour rolls (the armour rolls one die per "
              "point left) or after it (from what got through)"),
    Param("artifacts", "event_phase", str, "none",
          rules="P-12: Event-phase effects of artefact types (the seeds name none)",
          choices=("none",),
          doc="Event-phase effects of artefact types: the seeds name none, so none is simulated; "
              "the hook for a ruleset that defines some"),
    Param("artifacts", "movement_stacks", bool, True,
          rules="Z-20 'equipment and/or artefacts'; movement artefacts add to movement items",
          doc="movement artefacts add to the best movement item (\"equipment and/or artefacts\"); "
              "otherwise the larger counts (campaign)", slot="C_MOVEMENT_STACKS"),
    Param("artifacts", "movement_in_epicentre", bool, False,
          rules="Z-03; Gap: whether movement artefacts count in the Epicentre",
          follows="movement.items_in_epicentre",
          doc="movement artefacts count in the Epicentre"),
    Param("artifacts", "exchange_trophies", int, 3, 1, 99,
          "P-07, P-34; Gap: anomaly trophies per artefact at the Ecologists' Bunker",
          doc="anomaly trophies per artefact at the Ecologists' Bunker (campaign)",
          slot="C_EXCHANGE_RATE"),
    Param("artifacts", "exchange_draw", str, "random",
          rules="P-34; Gap: which artefact the exchange gives",
          choices=("random", "cheapest", "dearest"),
          doc="which artefact the exchange gives: a random card of the deck, the cheapest or the "
              "dearest left (campaign)"),
    Param("multiplayer", "turn_order", str, "rotating", rules="Gap: turn and phase order",
          choices=("seat", "rotating", "simultaneous"),
          doc="seat: the first player first every day, then the seats after him; rotating: the "
              "first player moves one seat each day; simultaneous: a random order each day "
              "(ENVIRONMENT stream), the fair lottery for a shared card"),
    Param("multiplayer", "first_player", str, "random", rules="Gap: turn and phase order",
          choices=("seat1", "random"),
          doc="who moves first on day 1: seat 1, or a seat drawn by lot at the start "
              "(ENVIRONMENT stream); with seat1 and rotating, the seat who is first on the days "
              "stalkers usually reach the Sarcophagus gains (parity)"),
    Param("multiplayer", "same_day_win", str, "first",
          rules="P-45; Gap: the Sarcophagus (victory conditions)", choices=("first", "shared"),
          doc="competitive ties on one day: the first in turn order, or all who survive that day"),
    Param("multiplayer", "after_win", str, "end",
          rules="P-45; Gap: the Sarcophagus (victory conditions)", choices=("end", "play_on"),
          doc="competitive: the game ends with the win, or the others play on"),
    Param("multiplayer", "after_death", str, "new_character", rules="P-43, P-44, P-45, P-46",
          choices=("new_character", "eliminated", "phantom"),
          doc="a new random character (P-44) or the seat is out; phantom is refused (P-46)"),
    Param("multiplayer", "new_character_items", int, 2, 0, 10,
          "P-44; Gap: character data (random starting equipment)",
          doc="random item cards of a new character's starting kit", slot="C_KIT_ITEMS"),
    Param("multiplayer", "cooperative_needed", int, 0, 0, 4,
          "P-45; Gap: the Sarcophagus (cooperative victory); 0 = every stalker still in",
          doc="cooperative: stalkers who must survive the Sarcophagus (0: every seat still in "
              "the game)", slot="C_NEEDED"),
    Param("multiplayer", "cooperative_dead", str, "ignored",
          rules="P-44, P-45; Gap: the Sarcophagus (cooperative victory): a seat out of the "
                "game (dead, no character to come) is left out, or loses it for the team",
          choices=("ignored", "team_loses"),
          doc="cooperative: a seat out of the game (dead, no character left to come) leaves the "
              "team (ignored: the others can still win, without him) or loses the game for the "
              "team (team_loses)"),
    Param("tokens", "clues_start", int, 0, 0, 99, "P-39; Gap: tokens (clue tokens at the start)",
          doc="clue tokens of a new character", slot="C_CLUES_START"),
    Param("tokens", "clues_per_complex", int, 0, 0, 99,
          "P-39, P-50; Gap: tokens (clue tokens gained per Secret Complex explored)",
          doc="clue tokens gained per Secret Complex explored (example: 1)",
          slot="C_CLUES_PER_COMPLEX"),
    Param("tokens", "clue_use", str, "none", rules="P-39; Gap: tokens (what a clue token is for)",
          choices=TOKEN_USES,
          doc="a clue token heals one point of that track at the end of his turn"),
    Param("tokens", "zone_start", int, 0, 0, 99, "P-40; Gap: tokens (Zone tokens at the start)",
          doc="Zone tokens of a new character", slot="C_ZONE_START"),
    Param("tokens", "zone_per_anomaly", int, 0, 0, 99,
          "P-40; Gap: tokens (Zone tokens gained per anomaly gone through)",
          doc="Zone tokens gained per anomaly gone through (example: 1)",
          slot="C_ZONE_PER_ANOMALY"),
    Param("tokens", "zone_use", str, "none", rules="P-40; Gap: tokens (what a Zone token is for)",
          choices=TOKEN_USES,
          doc="as clue_use, for Zone tokens (example: willpower)"),
)
"""Every ``rules.toml`` key. Missing keys take the default; unknown keys are errors."""


def sections() -> dict[str, tuple[Param, ...]]:
    """The ``PARAMS`` grouped by section, in declaration order."""
    out: dict[str, list[Param]] = {}
    for p in PARAMS:
        out.setdefault(p.section, []).append(p)
    return {s: tuple(ps) for s, ps in out.items()}
