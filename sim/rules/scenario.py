"""Scenario files: who plays, with what, and how (the campaign's input).

A scenario is a TOML file naming a ruleset, a stalker, a start location, the
starting loadout, the policy and optional balance targets (see
``configs/scenarios/base.toml``). Loading it loads and validates the ruleset
too, and every problem of both is reported at once, with file, line and key.

A multiplayer scenario (P-45) lists its 1 to 4 seats as ``[[players]]``
tables (``character``, ``[players.loadout]``, ``[players.policy]``; what a
seat leaves out is the scenario's top-level ``stalker``, loadout and policy,
and the money of the character's card), or asks for ``stalkers = N`` copies
of the top-level stalker, and names its ``variant``: ``competitive`` or
``cooperative`` (see ``configs/scenarios/four_stalkers.toml``).
"""

from __future__ import annotations

import typing
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from sim.errors import InertKeyWarning, visible
from sim.paths import bundled_or_path, configs_root
from sim.rules import Ruleset, RulesetError, load_ruleset
from sim.rules.loader import FILES
from sim.rules.tomlfile import TomlFile, closest, show, suggest

BASE_SCENARIO = "base"
SNEAK = ("always", "never")
TOP_KEYS = {"ruleset", "stalker", "start", "stalkers", "loadout", "policy", "targets",
            "players", "variant"}
LOADOUT_KEYS = {"armor", "weapons", "items", "rubles", "artifacts"}
PLAYER_KEYS = {"character", "loadout", "policy"}
VARIANTS = ("competitive", "cooperative")  # P-45
MAX_PLAYERS = 4
PHANTOM = "Phantom"
PHANTOM_MESSAGE = ("the Phantom (P-45) has no rules in the seeds (P-46: 'SOON'); play a "
                   "stalker card, and choose after_death = new_character or eliminated")
MAX_THRESHOLD = 1000
"""Largest policy threshold (Health, steps): far above any card, well inside int64."""
ROUTE_TWICE = ("is listed twice: every Secret Complex is explored once before the "
               "Sarcophagus (P-50)")
"""Why a route may name a Secret Complex once (``policy.route``, a variant's ``route``)."""
KEEP_TWICE = "an artefact is kept when found or not (P-11); name it once"
"""Why ``policy.keep_artifacts`` names an artefact once."""
GEAR_TWICE = "each card is bought once, while not held (P-13); name it once"
"""Why ``policy.shopping_gear`` names a card once (:func:`gear_weapons` and the others)."""
MAX_RUBLES = 10**9
"""Largest starting money: far above any price, well inside int64."""
MAX_BOUND = 10**300
"""Largest integer target bound; larger integers do not convert to float (floats may be inf)."""
MAX_WEIGHT = 1_000_000
"""Largest ``policy.weights`` value. A plan depends only on the weights' ratios, and a
million between the largest and the smallest nonzero weight is far beyond any useful one
(a knock-out worth 5,000 rubles against a wound of 100 is 50). With it no best-play value can
overflow a float: a fight counts at most ``combat.max_rounds`` (10,000) rounds of at most 99
wounds, doses, uses and side effects, so an objective stays within about 10**13 of 0, where
``inf`` or ``1e308`` made the backward induction compute ``inf - inf`` (issue 43)."""
MAX_WEAPONS = 6
"""Weapons a campaign character may carry: the fights are compiled for every subset still
held after knock-out losses (P-37), 2**MAX_WEAPONS tables at most."""
MAX_CAMPAIGN_ARTIFACTS = 4
"""Artefact slots of one campaign character (carried, then kept names; docs/rules.md
"Artefacts in the campaign"): each doubles the compiled fight and anomaly tables."""
MAX_BOUGHT_ARMORS = 3
"""Armours ``policy.shopping_gear`` may buy besides the one worn at the start (P-13): each adds
a copy of the compiled fight and anomaly tables (one per armour he may wear)."""


ARTIFACT_USES = ("always", "never")
"""The words ``policy.artifact_use`` takes besides a Health threshold (1 or more)."""

KNOCKOUT_LOSSES = ("keep_useful", "cheapest")
"""``policy.knockout_loss``: which half of his belongings a knocked-out stalker gives up (P-37
leaves the choice open): ``keep_useful`` gives up first the item cards that never act in the
simulation (effects ``none`` and ``location_movement``) and the artefacts ``artifact_use``
never uses, then the cheapest; ``cheapest`` goes by price alone. The artefacts used go last
either way."""

BUNKER_CHOICES = ("nearest", "toward_objective")
"""``policy.bunker_choice``: the bunker a stalker lost in a Secret Location is placed in (P-38,
P-41 leave it to the player): ``nearest`` to where he fell (as P-37 places one knocked out
elsewhere), or ``toward_objective``, the bunker nearest to his current objective (the next
Secret Complex, or the Sarcophagus), by route from the bunker: fewest days, then most steps
left with the base allowance, ties to the first in map.csv."""

ENCOUNTER_POLICIES = ("thresholds", "best")
"""``policy.encounters`` (and ``--policy``): the thresholds decide, or each card's best play."""

OBJECTIVE_NAMES = ("survive", "kill", "value")
"""``policy.objective`` (and ``--objective``): what best play maximises (P(not knocked out),
P(enemy killed), or the expected value of ``policy.weights``)."""

WEIGHT_KEYS = ("knocked_out", "wound", "stimulant", "limited", "side_effect", "killed")
"""``policy.weights``: the ``value`` objective's costs (a knock-out, each wound, stimulant
dose, limited-use weapon use and artefact side effect) and a kill's worth; each 0 or more
and at most :data:`MAX_WEIGHT`, a knock-out 1 and the rest 0 unless given."""

EXPERIMENTS = ("combat", "anomaly", "event", "campaign")
"""The experiments of ``zonesim compare`` (:data:`sim.experiments.registry.NAMES`, which the
rules layer may not import; ``tests/rules/test_settings.py`` holds the two equal)."""
ENCOUNTERS = EXPERIMENTS[:3]
CAMPAIGN = ("campaign",)
SEARCH_LATER = "not searched yet (issue 44: the search space has no domain for it)"
"""The start of why ``zonesim optimize`` does not search a ``[policy]`` key yet."""
SETTING = ("experiments", "option", "searched", "slot")
"""What a ``[policy]`` key's field declares in its metadata (:func:`policy_key`)."""


@dataclass(frozen=True)
class Entries:
    """What a table setting holds (``policy.weights``, ``policy.artifact_use``, ``targets``):
    an entry per key, each a value of one form. Declared with the key, so that an input
    for the table (``zonesim studio``'s) is made from it, never from a list of its own.

    Attributes
    ----------
    keys : tuple of str
        The keys the table may hold (:data:`WEIGHT_KEYS`); empty: any (``cards`` names them,
        or any metric name).
    cards : str
        The card table whose cards are its keys (``artifacts``); empty: none.
    value : str
        Each entry's form: ``number`` (``lo..hi``), ``use`` (a word of ``words`` or a whole
        number ``lo..hi``) or ``range`` (``[low, high]``, two numbers, low first).
    lo, hi : float or None
        The numbers an entry may take (None: unbounded).
    words : tuple of str
        The words a ``use`` entry takes besides a number.
    """

    keys: tuple[str, ...] = ()
    cards: str = ""
    value: str = "number"
    lo: float | None = None
    hi: float | None = None
    words: tuple[str, ...] = ()


def policy_key(default: typing.Any, experiments: tuple[str, ...] = CAMPAIGN, *,
        searched: bool | str = True, option: str = "", slot: str = "",
        choices: tuple[str, ...] = (), domain: str = "",
        toml: object = None, entries: Entries | None = None) -> typing.Any:
    """A ``[policy]`` key, declared once: a :class:`Policy` field and its setting.

    The field's metadata holds what :mod:`sim.rules.settings` lists and the loader checks,
    so a new policy key is this one line (with its words in :class:`Policy`'s docstring),
    the kernel that reads it and its reference twin.

    Parameters
    ----------
    default : object
        The value when the scenario leaves the key out.
    experiments : tuple of str
        The experiments (:data:`EXPERIMENTS`) whose setup takes it.
    searched : bool or str
        True when ``zonesim optimize`` searches it, else why not.
    option : str
        The command-line option that sets it (empty: none).
    slot : str
        The campaign parameter (``sim.kernels.campaign.PARAMETERS``, named as text: the
        rules layer may not import the kernels) the compile step copies it to unchanged.
    choices : tuple of str
        The values a ``str`` key takes; the loader refuses others.
    domain : str
        The values a list or table key takes, in words.
    toml : type or tuple of type
        The TOML type(s) of its value when its field's type does not say
        (:data:`TOML_TYPES`).
    entries : Entries, optional
        What a table key holds, entry by entry.
    """
    extra = {"choices": choices, "domain": domain, "toml": toml, "entries": entries}
    return field(default=default, metadata={
        "experiments": experiments, "option": option, "searched": searched, "slot": slot,
        **{k: v for k, v in extra.items() if v}})


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
    shopping_gear : tuple of str
        Weapons, artefacts and armours bought at the bases that sell gear during the game
        (P-13: "gear, equipment and artefacts are bought with Rubles"; ``economy.gear_shops``),
        in order, after the items, while money lasts; each only while not held
        (:func:`gear_weapons`, :func:`gear_artifacts`). The armours are wishes, best
        first: he buys the first he does not wear (or wears destroyed, P-05) that money
        buys, none listed after the one he wears, and wears it at once with no token;
        the old one goes by ``economy.armor_trade_in_divisor`` (:func:`gear_armors`).
    keep_artifacts : tuple of str
        Artefacts kept (and used) when found or exchanged; others are sold
        at the next base (P-11; docs/rules.md "Artefacts in the campaign").
    calm_at, purge_at : int
        Outside fights, calm artefacts at this Willpower or less, purge
        artefacts at this many radiation doses or more (0 = never; P-08).
    use_movement_artifacts : bool
        Use movement artefacts every day (Z-20).
    exchange : bool
        Exchange anomaly trophies for artefacts at the Ecologists' Bunker (P-34).
    encounters : str
        Who makes a fight's choices in the encounter commands: ``thresholds``
        (``sneak``, ``flee_at``, ``heal_at`` above) or ``best`` (each card's
        exact optimal plan, docs/rules.md "Best play in a fight").
    objective : str
        What ``best`` maximises: ``survive``, ``kill`` or ``value``.
    weights : tuple of (str, float)
        The ``value`` objective's weights (``policy.weights``, a table of
        :data:`WEIGHT_KEYS`): a knock-out's cost, each wound's, dose's,
        limited-use weapon use's and side effect's, and a kill's worth.
    knockout_loss : str
        Which half of his belongings a knock-out takes (P-37; :data:`KNOCKOUT_LOSSES`).
    stimulant_at : int
        Outside combat, stimulants heal at this Health or less once no medkit is left to do
        it (Z-12: "both in and outside combat"; 0 = never, they are kept for fights).
    bunker_choice : str
        The bunker a stalker lost in a Secret Location is placed in (P-38, P-41: "any
        bunker of his choice"; :data:`BUNKER_CHOICES`).
    helicopter_at : int
        At the start of his turn, at this Health or less, a stalker holding a Helicopter
        call (effect ``helicopter``) calls it and is flown to the Military base (Z-04,
        Z-05; 0 = never).
    sell_trophies_at : int
        Holding at least this many mutant and animal trophies (and one lot,
        ``economy.mutant_trophy_lot``), he walks to the Duty base to sell them before his
        next objective (P-26, P-28: Duty buys them, at its base only; 0 = never: he sells
        only at a base his route passes).
    artifact_use : tuple of (str, int)
        When each named artefact is used (``policy.artifact_use``, a table of artefact
        names; P-08: using a carried artefact is the player's choice): at this Health or
        less, 0 never (TOML ``"never"``); an artefact the table leaves out, or gives
        ``"always"``, is used whenever its rule allows. In a fight the choice is made at
        each round's start, in an anomaly, event or Emission when it strikes, outside them
        at each use (:func:`sim.kernels.artifact.usable`). In name order.
    """

    route: tuple[str, ...] = policy_key(
        (), toml=(str, list),
        domain="nearest, or a list of the map's Secret Complexes, each once (P-50)")
    sneak: str = policy_key("always", ("combat", "campaign"), option="--sneak", choices=SNEAK)
    flee_at: int = policy_key(0, ("combat", "campaign"), option="--flee-at")
    heal_at: int = policy_key(2, ("combat", "campaign"), option="--heal-at")
    medkit_at: int = policy_key(3, slot="C_MEDKIT_AT")
    enter_anomalies: bool = policy_key(False, ("anomaly", "campaign"), option="--enter")
    retreat_at: int = policy_key(2)
    pay_heal: bool = policy_key(True, slot="C_PAY_HEAL")
    shopping: tuple[str, ...] = policy_key((), domain="a list of items.csv cards")
    keep_artifacts: tuple[str, ...] = policy_key((), domain="a list of artifacts.csv cards")
    calm_at: int = policy_key(2, slot="C_CALM_AT", searched=SEARCH_LATER + (
        "; it acts only while a calm artefact is held (P-08)"))
    purge_at: int = policy_key(1, slot="C_PURGE_AT", searched=SEARCH_LATER + (
        "; it acts only while a purge artefact is held (P-08)"))
    use_movement_artifacts: bool = policy_key(
        True, slot="C_USE_MOVEMENT",
        searched=SEARCH_LATER + "; it acts only while a movement artefact is held (Z-20)")
    exchange: bool = policy_key(True, slot="C_EXCHANGE")
    encounters: str = policy_key(
        "thresholds", ENCOUNTERS, option="--policy", choices=ENCOUNTER_POLICIES,
        searched="whole games play every fight by the thresholds (sneak, flee_at, heal_at): "
                 "compile_campaign refuses best play")
    objective: str = policy_key(
        "survive", ENCOUNTERS, option="--objective", choices=OBJECTIVE_NAMES,
        searched="what best play maximises, and whole games play no best play")
    weights: tuple[tuple[str, float], ...] = policy_key(
        (), ENCOUNTERS, domain=f"a table of {', '.join(WEIGHT_KEYS)}: numbers of 0 or more",
        entries=Entries(WEIGHT_KEYS, lo=0, hi=MAX_WEIGHT),
        searched="the value objective's weights, and whole games play no best play")
    knockout_loss: str = policy_key(
        "keep_useful", choices=KNOCKOUT_LOSSES,
        searched=SEARCH_LATER + "; it acts only after a knock-out (P-37)")
    stimulant_at: int = policy_key(0, slot="C_STIMULANT_AT", searched=SEARCH_LATER + (
        "; it acts only once no medkit is left (Z-12)"))
    bunker_choice: str = policy_key(
        "nearest", choices=BUNKER_CHOICES,
        searched=SEARCH_LATER + "; it acts only when lost in a Secret Location (P-38, P-41)")
    helicopter_at: int = policy_key(0, slot="C_HELICOPTER_AT", searched=SEARCH_LATER + (
        "; it acts only while a Helicopter call is held (Z-04, Z-05)"))
    sell_trophies_at: int = policy_key(0, slot="C_SELL_TROPHIES_AT")
    shopping_gear: tuple[str, ...] = policy_key(
        (), domain="a list of weapons.csv, artifacts.csv and armor.csv cards",
        searched=SEARCH_LATER + ("; a list of weapons, artefacts and armours bought in the "
                                 "game (P-13)"))
    artifact_use: tuple[tuple[str, int], ...] = policy_key((), domain=(
        f"a table of artifacts.csv cards: {' or '.join(ARTIFACT_USES)} or a Health of "
        f"1..{MAX_THRESHOLD}"), entries=Entries(cards="artifacts", value="use", lo=1,
                                                 hi=MAX_THRESHOLD, words=ARTIFACT_USES))


TOML_TYPES: dict[object, type] = {str: str, int: int, bool: bool, tuple[str, ...]: list,
                                  tuple[tuple[str, float], ...]: dict,
                                  tuple[tuple[str, int], ...]: dict}
"""The TOML type of a ``[policy]`` value, by the type of its :class:`Policy` field (a list of
names is a TOML list, a table of names or weights a TOML table)."""


def policy_types(policy: type = Policy) -> dict[str, object]:
    """Each ``[policy]`` key and the TOML type(s) its value may have, from the fields of
    ``policy``: a new policy field is a scenario key with no line here. A field's
    ``metadata["toml"]`` overrides its type's (``route``: ``"nearest"`` or a list).

    Raises
    ------
    TypeError
        A field of a type :data:`TOML_TYPES` does not name.
    """
    hints = typing.get_type_hints(policy)
    out = {}
    for f in fields(policy):
        wanted = f.metadata.get("toml", TOML_TYPES.get(hints[f.name]))
        if wanted is None:
            raise TypeError(f"policy field {f.name!r} of type {hints[f.name]}: no TOML type "
                            "reads it; give it one in TOML_TYPES or its metadata")
        out[f.name] = wanted
    return out


POLICY_TYPES = policy_types()
"""Every ``[policy]`` key and its TOML type (:func:`policy_types`)."""

POLICY_CHOICES = {f.name: f.metadata["choices"] for f in fields(Policy) if "choices" in f.metadata}
"""The values each ``str`` ``[policy]`` key takes (its field's ``choices``): the loader refuses
others."""


@dataclass(frozen=True)
class Player:
    """One seat of a multiplayer scenario: a character, his loadout and policy.

    Attributes
    ----------
    stalker : str
        Stalker card (``character`` in the file).
    armor : str or None
        Starting armour.
    weapons, items : tuple of str
        Starting weapon and item cards (copies repeat).
    rubles : int
        Starting money (default: the card's).
    policy : Policy
        Standing decisions.
    artifacts : tuple of str
        Artefacts carried from the start (P-07, P-08).
    """

    stalker: str
    armor: str | None
    weapons: tuple[str, ...]
    items: tuple[str, ...]
    rubles: int
    policy: Policy
    artifacts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A validated scenario with its ruleset.

    Attributes
    ----------
    path : Path
        The scenario file.
    name : str
        The file's stem, used to name result folders and shown in every title, each
        character a terminal would not show (an ESC, a line break, a right-to-left
        override) written as an escape (:func:`sim.errors.visible`): the file name is
        the user's, not checked like a card's name.
    ruleset : Ruleset
        The loaded ruleset.
    stalker, start : str
        Stalker card and start location name.
    stalkers : int
        Number of stalkers (seats), 1..4.
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
    players : tuple of Player
        The seats in seat order; a one-stalker scenario has one, its top-level stalker.
    variant : str
        ``competitive`` or ``cooperative`` (P-45).
    multiplayer : bool
        Whether the file lists ``[[players]]`` or asks for ``stalkers > 1``; a
        one-stalker scenario without them measures one life (a death ends it).
    artifacts : tuple of str
        Artefacts carried from the start (``[loadout] artifacts``; P-07, P-08).
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
    players: tuple[Player, ...] = ()
    variant: str = "competitive"
    multiplayer: bool = False
    artifacts: tuple[str, ...] = ()

    def seat(self, p: int) -> Scenario:
        """Seat ``p`` as a one-stalker scenario (his character, loadout and policy)."""
        player = self.players[p]
        return replace(self, stalker=player.stalker, armor=player.armor,
                       weapons=player.weapons, items=player.items, rubles=player.rubles,
                       policy=player.policy, stalkers=1, players=(player,), multiplayer=False,
                       artifacts=player.artifacts)

    def new_character(self, character: str) -> Scenario:
        """A new character's slot as a one-stalker scenario (P-44: the new-character kit).

        His card's money, the scenario's top-level armour, weapons and policy,
        and no items or artefacts: the game draws ``multiplayer.new_character_items`` at
        random (docs/rules.md "Multiplayer").
        """
        player = Player(character, self.armor, self.weapons, (),
                        self.ruleset.stalkers[character].rubles, self.policy)
        return replace(self, stalker=character, items=(), rubles=player.rubles, stalkers=1,
                       players=(player,), multiplayer=False, artifacts=())


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
    misspelt = set()  # the keys an unknown key is taken for (its "did you mean")
    for key in data:
        if key not in TOP_KEYS:
            toml.problem(key, None, "unknown key" + suggest(key, TOP_KEYS))
            misspelt.add(closest(key, TOP_KEYS))
    ruleset_name = data.get("ruleset", "base")
    if not isinstance(ruleset_name, str) or not ruleset_name.strip():
        toml.problem("ruleset", ruleset_name, "is not a ruleset name or folder (a string)")
        raise RulesetError(toml.problems)
    rules_dir = bundled_or_path(ruleset_name, configs_root(), "", path.parent)
    try:
        rs = load_ruleset(rules_dir)
    except RulesetError as error:
        _no_ruleset(toml, ruleset_name, rules_dir, error.problems)
        raise RulesetError(toml.problems) from None
    stalker = data.get("stalker")
    if stalker == PHANTOM:
        toml.problem("stalker", stalker, PHANTOM_MESSAGE)
    elif stalker is not None:
        _name(toml, "stalker", stalker, rs.stalkers, "stalker")
    elif "players" not in data:
        _missing(toml, "stalker", misspelt,
                 'name the stalker card (stalker = "Strelok") or list [[players]]')
    if rs.rules.multiplayer.after_death == "phantom":
        toml.problem("ruleset", ruleset_name, "sets multiplayer.after_death = 'phantom': "
                     + PHANTOM_MESSAGE)
    start = data.get("start")
    locations = _location_names(rs)
    if start is None:
        _missing(toml, "start", misspelt, 'name the location to start from (start = "Cordon")')
    elif not isinstance(start, str) or start not in locations:
        toml.problem("start", start, "is not a named location on the map"
                     + suggest(str(start), locations))
    loadout = _table(toml, data, "loadout")
    armor, weapons, items, rubles, artifacts = _loadout(toml, "loadout", loadout, rs, stalker,
                                                        {})
    written = _table(toml, data, "policy")  # the top-level [policy] as the file writes it
    policy = _policy(toml, written, rs)
    targets = _targets(toml, _table(toml, data, "targets"))
    top = Player(stalker, armor, weapons, items, rubles, policy, artifacts)
    top_carry = _carry(toml, "", rs, top, ())
    players, multiplayer = _players(toml, data, rs, top, loadout, top_carry, written)
    if "players" not in data:
        _inert(toml, rs, top, written, "policy", {})
    variant = data.get("variant", "competitive")
    if variant not in VARIANTS:
        toml.problem("variant", variant, "is not one of " + ", ".join(VARIANTS)
                     + suggest(str(variant), VARIANTS))
    needed = rs.rules.multiplayer.cooperative_needed
    if variant == "cooperative" and needed > len(players):
        toml.problem("variant", variant, f"needs {needed} stalkers to survive the Sarcophagus "
                     f"(multiplayer.cooperative_needed) but has {len(players)}")
    if toml.problems:
        raise RulesetError(sorted(toml.problems, key=lambda p: p.line or 0))
    for line in dict.fromkeys(str(w) for w in toml.warnings):
        # Attributed to this module: a command loading the file twice warns once.
        warnings.warn(line, InertKeyWarning, stacklevel=1)
    return Scenario(path=path, name=visible(path.stem, lines=False), ruleset=rs,
                    stalker=players[0].stalker, start=start, stalkers=len(players), armor=armor,
                    weapons=weapons, items=items, rubles=rubles, policy=policy, targets=targets,
                    players=players, variant=variant, multiplayer=multiplayer,
                    artifacts=players[0].artifacts)


def ruleset_problems(scenario: Scenario, rs: Ruleset | None = None) -> list[tuple[str, str]]:
    """What :func:`load_scenario` would refuse in ``scenario`` played on ``rs``, as
    ``(key, message)`` in the scenario's keys (``variant``, ``players[2].loadout.items``).

    A scenario is checked against its ruleset when it is loaded; an edited ruleset
    (``--edit``, ``--vary``, a variant's ``edit=``) or another one (``--baseline``, a
    variant's ``rules=``) can make it one the loader refuses: a card, location or
    Secret Complex the scenario names that the ruleset lacks, the Phantom (P-46), a
    cooperative game needing more survivors than seats (P-45), more than a character
    can carry (:func:`carry_problems`). Each is found here with the loader's words,
    so every command checks an edited or other ruleset as a file is checked, before
    it plays. ``rs`` defaults to the scenario's own ruleset.
    """
    rs = scenario.ruleset if rs is None else rs
    out: list[tuple[str, str]] = []
    seats = list(enumerate(scenario.players or (Player(
        scenario.stalker, scenario.armor, scenario.weapons, scenario.items, scenario.rubles,
        scenario.policy, scenario.artifacts),), start=1))
    listed = len({p for _, p in seats}) > 1
    hexes = [] if getattr(rs, "map", None) is None else rs.map.hexes
    if scenario.start not in {h.name for h in hexes if h.name}:
        out.append(("start", f"{show(scenario.start)} is not a named location on the map"))
    for n, player in seats:
        seat, policy = (f"players[{n}]." if listed else ""), player.policy
        named = [("character" if listed else "stalker", [player.stalker], rs.stalkers,
                  "stalker"),
                 ("loadout.armor", [player.armor] if player.armor else [], rs.armor, "armour"),
                 ("loadout.weapons", player.weapons, rs.weapons, "weapon"),
                 ("loadout.items", player.items, rs.items, "item"),
                 ("loadout.artifacts", player.artifacts, rs.artifacts, "artefact"),
                 ("policy.shopping", policy.shopping, rs.items, "item"),
                 ("policy.keep_artifacts", policy.keep_artifacts, rs.artifacts, "artefact"),
                 ("policy.shopping_gear", policy.shopping_gear,
                  {**rs.weapons, **rs.artifacts, **rs.armor}, "weapon, artefact or armour"),
                 ("policy.artifact_use", [a for a, _ in policy.artifact_use], rs.artifacts,
                  "artefact"),
                 ("policy.route", policy.route,
                  {h.name for h in hexes if h.location == "complex"}, "Secret Complex")]
        for key, names, table, what in named:
            article = "an" if what[0] in "aeiou" else "a"
            out += [(seat + key, f"{show(name)} is not {article} {what} in the ruleset"
                     + suggest(name, table)) for name in dict.fromkeys(names)
                    if name not in table]
        if player.stalker in rs.stalkers:
            out += [(seat + key, message) for key, message in carry_problems(
                rs, player.weapons, player.artifacts, policy.keep_artifacts,
                policy.shopping_gear)]
    if rs.rules.multiplayer.after_death == "phantom":
        out.append(("ruleset", "sets multiplayer.after_death = 'phantom': " + PHANTOM_MESSAGE))
    needed = rs.rules.multiplayer.cooperative_needed
    if scenario.variant == "cooperative" and needed > len(seats):
        out.append(("variant", f"'cooperative' needs {needed} stalkers to survive the "
                    f"Sarcophagus (multiplayer.cooperative_needed) but has {len(seats)}"))
    return list(dict.fromkeys(out))


def ruleset_refusal(scenario: Scenario, rs: Ruleset, given: str) -> str | None:
    """One message for :func:`ruleset_problems` of ``scenario`` on ``rs`` (None: none),
    naming what was ``given`` (``"--edit 'rules.multiplayer.cooperative_needed=4'"``),
    the scenario and every problem; a command refuses it before it plays.
    """
    problems = ruleset_problems(scenario, rs)
    if not problems:
        return None
    return (f"{given}: scenario {scenario.name} cannot be played on it: "
            + "; ".join(f"key '{key}': {message}" for key, message in problems))


def _missing(toml: TomlFile, key: str, misspelt: set, hint: str) -> None:
    """Report the required top-level ``key`` as missing, unless an unknown key was taken for it.

    A key written with a stray character (``"stalk§r" = ...``) is already an
    unknown key whose message asks "did you mean 'stalker'?"; a second problem
    about a ``stalker`` the file does not have would only mislead.
    """
    if key not in misspelt:
        toml.problem(key, None, f"is missing: {hint}")


def _no_ruleset(toml: TomlFile, name: str, folder: Path, problems: list) -> None:
    """The ruleset's problems, those about its folder as a whole as one at the ``ruleset`` key.

    A folder that is missing, not a folder, or holds none of the ruleset's
    files (``../../etc``, ``/dev/null``, ``/etc``) is a fault of this file's
    ``ruleset`` key, so the message names the scenario file, the key's line and
    its value; problems inside a ruleset folder name that folder's files.
    """
    if folder.is_dir() and not any((folder / file).exists() for file in FILES):
        whole, why = problems, f"{folder} holds none of {', '.join(FILES)}"
    else:
        whole = [p for p in problems if p.file == str(folder) and p.line is None]
        why = "; ".join(f"{folder}: {p.message}" for p in whole)
    if whole:
        toml.problem("ruleset", name, f"names no ruleset ({why}); give a bundled ruleset's "
                     "name, e.g. 'base', or a ruleset folder (a relative path is read from "
                     "this file's folder)")
    toml.problems += [p for p in problems if p not in whole]


def gear_weapons(rs: Ruleset, weapons: Sequence[str], gear: Sequence[str]) -> tuple[str, ...]:
    """A campaign character's weapons: those carried, then those ``policy.shopping_gear``
    buys that he does not carry (each once, in its order; P-13).

    A weapon bought in the game is one more bit of the belongings mask, so the
    fights are compiled for it as for a carried one (P-23, P-37).
    """
    carried = tuple(weapons)
    return carried + tuple(n for n in dict.fromkeys(gear) if n in rs.weapons
                           and n not in carried)


def gear_armors(rs: Ruleset, armor: str | None, gear: Sequence[str]) -> tuple[str | None, ...]:
    """The armours a campaign character may wear: the starting one (None: none), then those
    ``policy.shopping_gear`` buys (each once, in its order; P-13).

    Each has its own compiled fight, anomaly, event and Emission tables (P-02..P-05).
    """
    return (armor, *(n for n in dict.fromkeys(gear) if n in rs.armor and n != armor))


def gear_artifacts(rs: Ruleset, gear: Sequence[str]) -> tuple[str, ...]:
    """The artefacts ``policy.shopping_gear`` buys, each once, in its order (P-13)."""
    return tuple(n for n in dict.fromkeys(gear) if n in rs.artifacts)


def carry_problems(rs: Ruleset, weapons: Sequence[str], artifacts: Sequence[str],
                   keep: Sequence[str], gear: Sequence[str] = ()) -> list[tuple[str, str]]:
    """What one campaign character cannot carry, as ``(key, message)``.

    The keys are those of a scenario (``loadout.weapons``, ``loadout.artifacts``,
    ``policy.keep_artifacts``). The campaign compiles the fights for every set of
    weapons still held (P-23, P-37), so at most :data:`MAX_WEAPONS`; a
    character's artefact slots, his carried artefacts then the kept names he
    does not carry, are at most :data:`MAX_CAMPAIGN_ARTIFACTS`; and he starts
    with no more artefacts than ``artifacts.carry_limit`` allows (0: no limit).
    The scenario loader reports them with file and line; the campaign compile
    asks again for a scenario whose ruleset was edited after it was loaded.
    The weapons and artefacts ``policy.shopping_gear`` buys (``gear``) count as
    weapons and slots too (:func:`gear_weapons`, :func:`gear_artifacts`); it buys at
    most :data:`MAX_BOUGHT_ARMORS` armours besides the starting one (:func:`gear_armors`).
    """
    out: list[tuple[str, str]] = []
    bought = [n for n in dict.fromkeys(gear) if n in rs.armor]
    if len(bought) > MAX_BOUGHT_ARMORS:
        out.append(("policy.shopping_gear",
                    f"lists {len(bought)} armours ({', '.join(bought)}); a campaign character "
                    f"buys at most {MAX_BOUGHT_ARMORS} (the fights are compiled for every "
                    "armour he may wear)"))
    everything = gear_weapons(rs, weapons, gear)
    if len(weapons) <= MAX_WEAPONS < len(everything):
        out.append(("policy.shopping_gear",
                    f"makes {len(everything)} weapons (carried, then bought); a campaign "
                    f"character has at most {MAX_WEAPONS} (the fights are compiled for "
                    "every set held, P-37)"))
    if len(weapons) > MAX_WEAPONS:
        out.append(("loadout.weapons",
                    f"lists {len(weapons)} weapons; a campaign character carries at most "
                    f"{MAX_WEAPONS} (the fights are compiled for every set still held, P-37)"))
    if not rs.may_carry(len(artifacts)):
        out.append(("loadout.artifacts", f"lists {len(artifacts)} artefacts; "
                    f"artifacts.carry_limit is {rs.rules.artifacts.carry_limit}"))
    slots = [*artifacts, *(n for n in dict.fromkeys(keep) if n not in artifacts)]
    kept = len(slots)
    slots += [n for n in gear_artifacts(rs, gear) if n not in slots]
    if len(slots) > MAX_CAMPAIGN_ARTIFACTS:
        key = ("loadout.artifacts" if len(artifacts) > MAX_CAMPAIGN_ARTIFACTS
               else "policy.keep_artifacts" if kept > MAX_CAMPAIGN_ARTIFACTS
               else "policy.shopping_gear")
        order = "carried, then kept" if len(slots) == kept else "carried, kept, then bought"
        out.append((key, f"makes {len(slots)} artefact slots ({order}: "
                    f"{', '.join(map(str, slots))}); a campaign character has at most "
                    f"{MAX_CAMPAIGN_ARTIFACTS}"))
    return out


def _carry(toml: TomlFile, prefix: str, rs: Ruleset, player: Player,
           reported: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Report what ``player`` cannot carry (:func:`carry_problems`) under ``prefix``.

    Returns ``(key, message)`` of each problem; those in ``reported`` (a seat's
    loadout inherited from the top level, already reported there) are not repeated.
    """
    found = carry_problems(rs, player.weapons, player.artifacts, player.policy.keep_artifacts,
                           player.policy.shopping_gear)
    for key, message in found:
        if (key, message) not in reported:
            toml.problem(prefix + key, None, message)
    return found


def _loadout(toml: TomlFile, prefix: str, given: dict, rs: Ruleset, stalker, default: dict):
    """Armour, weapons, items, rubles and artefacts of ``[prefix]``; absent keys from ``default``.

    Rubles absent from both are the stalker card's money; when the stalker is
    not a card of the ruleset (already reported) they are not checked.
    """
    for key in given:
        if key not in LOADOUT_KEYS:
            toml.problem(f"{prefix}.{key}", None, "unknown key" + suggest(key, LOADOUT_KEYS))
    merged = {**default, **given}
    armor = merged.get("armor")
    if armor is not None:
        _name(toml, f"{prefix}.armor", armor, rs.armor, "armour")
    weapons = _names(toml, f"{prefix}.weapons", merged.get("weapons", []), rs.weapons, "weapon")
    items = _names(toml, f"{prefix}.items", merged.get("items", []), rs.items, "item")
    artifacts = _names(toml, f"{prefix}.artifacts", merged.get("artifacts", []), rs.artifacts,
                       "artefact")
    rubles = merged.get("rubles")
    if rubles is None:  # the card's money; an unknown stalker is reported already
        known = isinstance(stalker, str) and stalker in rs.stalkers
        rubles = rs.stalkers[stalker].rubles if known else 0
    if not isinstance(rubles, int) or isinstance(rubles, bool) or not 0 <= rubles <= MAX_RUBLES:
        toml.problem(f"{prefix}.rubles", rubles,
                     f"is not a whole number of rubles 0..{MAX_RUBLES}")
    return armor, weapons, items, rubles, artifacts


def _players(toml: TomlFile, data: dict, rs: Ruleset, top: Player, loadout: dict,
             top_carry: list[tuple[str, str]],
             written: dict) -> tuple[tuple[Player, ...], bool]:
    """The seats: ``[[players]]``, or ``stalkers`` copies of the top-level stalker (P-45);
    ``written`` is the top-level ``[policy]`` table as the file writes it.

    Returns the players and whether the scenario is a multiplayer one. The keys
    of seat ``n`` are named ``players[n].character`` and so on, at that seat's
    lines.
    """
    stalkers = data.get("stalkers")
    listed = data.get("players")
    if stalkers is not None and (not isinstance(stalkers, int) or isinstance(stalkers, bool)
                                 or not 1 <= stalkers <= MAX_PLAYERS):
        toml.problem("stalkers", stalkers, f"is not a whole number of stalkers 1..{MAX_PLAYERS}")
        stalkers = None
    if listed is None:
        n = stalkers or 1
        return (top,) * n, n > 1
    if not isinstance(listed, list) or not listed or len(listed) > MAX_PLAYERS or not all(
            isinstance(t, dict) for t in listed):
        toml.problem("players", listed, f"is not a list of 1..{MAX_PLAYERS} [[players]] tables")
        return (top,), True
    if stalkers is not None and stalkers != len(listed):
        toml.problem("stalkers", stalkers, f"does not match the {len(listed)} [[players]]")
    players = []
    for n, seat in enumerate(listed, start=1):
        player = _player(toml, f"players[{n}]", seat, rs, top, loadout, written)
        _carry(toml, f"players[{n}].", rs, player, top_carry)
        players.append(player)
    return tuple(players), True


def _player(toml: TomlFile, seat: str, given: dict, rs: Ruleset, top: Player,
            loadout: dict, inherited: dict) -> Player:
    """One ``[[players]]`` table, its keys named under ``seat``; the rest is the top level's
    (``inherited``: the top-level ``[policy]`` table as written).
    """
    for key in given:
        if key not in PLAYER_KEYS:
            toml.problem(f"{seat}.{key}", None, "unknown key" + suggest(key, PLAYER_KEYS))
    character = given.get("character", top.stalker)
    if character == PHANTOM:
        toml.problem(f"{seat}.character", character, PHANTOM_MESSAGE)
    else:
        _name(toml, f"{seat}.character", character, rs.stalkers, "stalker")
    default: dict = {"weapons": list(top.weapons), "items": list(top.items),
                     "artifacts": list(top.artifacts)}
    if top.armor is not None:
        default["armor"] = top.armor
    if "rubles" in loadout:
        default["rubles"] = top.rubles
    armor, weapons, items, rubles, artifacts = _loadout(
        toml, f"{seat}.loadout", _table(toml, given, "loadout", seat), rs, character, default)
    given_policy = _table(toml, given, "policy", seat)
    own = _policy(toml, given_policy, rs, f"{seat}.policy")
    chosen = {k: getattr(own, k) for k in given_policy if k in POLICY_TYPES}
    player = Player(character, armor, weapons, items, rubles, replace(top.policy, **chosen),
                    artifacts)
    _inert(toml, rs, player, given_policy, f"{seat}.policy", inherited)
    return player


def _location_names(rs: Ruleset) -> list[str]:
    hexmap = getattr(rs, "map", None)
    if hexmap is None:
        return []
    return [h.name for h in hexmap.hexes if h.name]


def _table(toml: TomlFile, data: dict, key: str, within: str = "") -> dict:
    """The table ``key`` of ``data`` (empty if absent); a value that is not a table is a problem.

    ``within`` names the seat (``players[2]``) whose table it is.
    """
    value = data.get(key, {})
    if isinstance(value, dict):
        return value
    header = f"{within.partition('[')[0]}.{key}" if within else key
    toml.problem(f"{within}.{key}" if within else key, value,
                 f"is not a table; write [{header}] and its keys below it")
    return {}


def _name(toml: TomlFile, key: str, value, table, what: str):
    article = "an" if what[0] in "aeiou" else "a"
    if not isinstance(value, str):
        toml.problem(key, value, f"is not {article} {what} name (a string)")
    elif value not in table:
        toml.problem(key, value, f"is not {article} {what} in the ruleset"
                     + suggest(value, table))
    return value


def _names(toml: TomlFile, key: str, values, table, what: str,
           once: str | None = None) -> tuple[str, ...]:
    """The names of list ``key``, each checked; ``once`` (why) refuses a name listed twice,
    as ``policy.route`` refuses a Secret Complex twice (:data:`ROUTE_TWICE`). A loadout's
    lists repeat copies (two Medkits are two doses) and ``policy.shopping`` buys one copy
    per entry, so they take no ``once``.
    """
    if not isinstance(values, list):
        toml.problem(key, values, f"is not a list of {what} names")
        return ()
    seen = set()
    for value in values:
        _name(toml, key, value, table, what)
        if once is not None and isinstance(value, str):
            if value in seen:
                toml.problem(key, value, f"is listed twice: {once}")
            seen.add(value)
    return tuple(value for value in values if isinstance(value, str))  # others are reported


def _policy(toml: TomlFile, given: dict, rs: Ruleset, prefix: str = "policy") -> Policy:
    """The ``[policy]`` table ``given``, its problems named under ``prefix``."""
    values = {}
    for key, value in given.items():
        dotted = f"{prefix}.{key}"
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
    for key, allowed in POLICY_CHOICES.items():
        if key in values and values[key] not in allowed:
            toml.problem(f"{prefix}.{key}", values.pop(key), f"is not one of {', '.join(allowed)}")
    values["weights"] = _weights(toml, f"{prefix}.weights", values.pop("weights", {}))
    values["artifact_use"] = _artifact_use(toml, f"{prefix}.artifact_use",
                                           values.pop("artifact_use", {}), rs)
    route = values.pop("route", "nearest")
    if isinstance(route, str):
        if route != "nearest":
            toml.problem(f"{prefix}.route", route, "is not 'nearest' or a list of complexes")
        route = []
    complexes = _complex_names(rs)
    seen = set()
    for name in route:
        if not isinstance(name, str):  # a nested list or table
            toml.problem(f"{prefix}.route", name, "is not a Secret Complex name (a string)")
        elif name not in complexes:
            toml.problem(f"{prefix}.route", name, "is not a Secret Complex on the map"
                         + suggest(name, complexes))
        elif name in seen:
            toml.problem(f"{prefix}.route", name, ROUTE_TWICE)
        else:
            seen.add(name)
    shopping = _names(toml, f"{prefix}.shopping", values.pop("shopping", []), rs.items, "item")
    keep = _names(toml, f"{prefix}.keep_artifacts", values.pop("keep_artifacts", []),
                  rs.artifacts, "artefact", KEEP_TWICE)
    gear = _names(toml, f"{prefix}.shopping_gear", values.pop("shopping_gear", []),
                  {**rs.weapons, **rs.artifacts, **rs.armor}, "weapon, artefact or armour",
                  GEAR_TWICE)
    policy = Policy(route=tuple(route), shopping=shopping, keep_artifacts=keep,
                    shopping_gear=gear, **values)
    _never_acts(toml, rs, policy, given, prefix)
    return policy


def _bases(rs: Ruleset) -> set[str]:
    """The factions whose bases are on the map (P-26..P-28, Z-05, Z-11)."""
    hexmap = getattr(rs, "map", None)
    return set() if hexmap is None else {h.faction for h in hexmap.of_kind("base")}


def _never_acts(toml: TomlFile, rs: Ruleset, policy: Policy, given: dict, prefix: str) -> None:
    """Refuse the keys of one ``[policy]`` table (``given``, as written, its keys under
    ``prefix``) that can never act on this ruleset (:func:`never_acts`).
    """
    for key, value, why in never_acts(rs, policy, given):
        toml.problem(f"{prefix}.{key}", value, why)


def never_acts(rs: Ruleset, policy: Policy, given) -> list[tuple[str, object, str]]:
    """The keys among ``given`` that can never act on ``rs``, as ``(key, value, why)``: the
    place or card each needs is not in the ruleset, so nothing the scenario could say would
    make them act (docs/rules.md "Policy keys that never act").

    ``sell_trophies_at`` without a Duty base (P-26, P-28); ``helicopter_at`` without a
    Helicopter call card or a Military base (Z-04, Z-05); ``exchange = true`` without the
    Ecologists' base (P-34); a ``shopping`` item that no base of the map sells (Z-11) and
    ``shopping_gear`` where no base of the map sells gear (``economy.gear_shops``, P-13).
    A key not in ``given`` (left at its default, or inherited) is no request here. The
    scenario loader and ``zonesim compare campaign``'s variants both ask.
    """
    bases = _bases(rs)
    listed = ", ".join(sorted(bases)) or "none"
    out: list[tuple[str, object, str]] = []
    if "sell_trophies_at" in given and policy.sell_trophies_at > 0 and "duty" not in bases:
        out.append(("sell_trophies_at", policy.sell_trophies_at, "never acts: the map has no "
                    "Duty base, the one place mutant trophies sell (P-26, P-28); set 0, or give "
                    "the map one"))
    if "helicopter_at" in given and policy.helicopter_at > 0:
        if not _helicopter_calls(rs):
            out.append(("helicopter_at", policy.helicopter_at, "never acts: no item card of the "
                        "ruleset calls the helicopter (effect 'helicopter', Z-04); set 0"))
        elif "military" not in bases:
            out.append(("helicopter_at", policy.helicopter_at, "never acts: the map has no "
                        "Military base, where a Helicopter call flies (Z-05); set 0, or give "
                        "the map one"))
    if "exchange" in given and policy.exchange and "ecologists" not in bases:
        out.append(("exchange", True, "never acts: the map has no Ecologists' base, where "
                    "trophies are exchanged for artefacts (P-34); set false, or give the map "
                    "one"))
    every = rs.rules.economy.shops == "every_base"
    for name in dict.fromkeys(policy.shopping if "shopping" in given else ()):
        sellers = rs.items[name].sellers
        if not bases.intersection(bases if every or not sellers else sellers):
            where = ("the map has no base" if every or not sellers else
                     f"items.csv sold_at: {', '.join(sellers)}; the map's bases: {listed}")
            out.append(("shopping", name, f"is sold at no base of the map ({where}; Z-11)"))
    shops = rs.rules.economy.gear_shops
    if "shopping_gear" in given and policy.shopping_gear and not (
            bases if shops == "every_base" else bases & {shops}):
        out.append(("shopping_gear", list(policy.shopping_gear), "never buys: no base of the "
                    f"map sells gear (economy.gear_shops = {show(shops)}; the map's bases: "
                    f"{listed}; P-13)"))
    return out


def _helicopter_calls(rs: Ruleset) -> set[str]:
    """The item cards that call the helicopter (effect ``helicopter``, Z-04)."""
    return {n for n, card in rs.items.items() if card.effect == "helicopter"}


def _inert(toml: TomlFile, rs: Ruleset, player: Player, own: dict, prefix: str,
           inherited: dict) -> None:
    """Warn of the policy keys ``player`` plays that do nothing in this scenario, though they
    could with another loadout or reading of the rules (docs/rules.md "Policy keys that
    never act"): ``helicopter_at`` for a stalker who holds and buys no Helicopter call
    (Z-04, Z-05), ``retreat_at`` under ``economy.paid_healing = "after_knockout"`` (no
    bunker heals a stalker who walks in, P-37), ``bunker_choice = "toward_objective"`` on a
    map of one bunker (P-38, P-41).

    A key is checked where it is written: ``own`` (the player's table, its keys under
    ``prefix``) or else ``inherited`` (a seat's top-level ``[policy]``, under ``policy``).
    """
    policy = player.policy

    def warn(key: str, value: object, why: str) -> None:
        if key in own or key in inherited:
            where = prefix if key in own else "policy"
            toml.warning(f"{where}.{key}", value, f"does nothing in this scenario: {why}")

    calls = _helicopter_calls(rs)
    if policy.helicopter_at > 0 and not calls & {*player.items, *policy.shopping}:
        warn("helicopter_at", policy.helicopter_at,
             f"{player.stalker} holds no {' or '.join(sorted(calls))} and policy.shopping buys "
             "none (Z-04, Z-05)")
    if policy.retreat_at > 0 and rs.rules.economy.paid_healing == "after_knockout":
        warn("retreat_at", policy.retreat_at, "under economy.paid_healing = 'after_knockout' "
             "no bunker heals a stalker who walks in (P-37)")
    hexmap = getattr(rs, "map", None)
    if (policy.bunker_choice == "toward_objective" and hexmap is not None
            and len(hexmap.of_kind("bunker")) == 1):
        warn("bunker_choice", policy.bunker_choice, "the map has one bunker, the nearest to "
             "every place (P-38, P-41)")


def _weights(toml, key: str, given: dict) -> tuple[tuple[str, float], ...]:
    """``policy.weights`` checked (:data:`WEIGHT_KEYS`, numbers of 0 or more and at most
    :data:`MAX_WEIGHT`: never NaN or infinite), in that order.
    """
    out = []
    for name, value in given.items():
        if name not in WEIGHT_KEYS:
            toml.problem(f"{key}.{name}", None, "unknown key" + suggest(name, WEIGHT_KEYS))
        elif (isinstance(value, bool) or not isinstance(value, int | float)
              or not 0 <= value <= MAX_WEIGHT):
            toml.problem(f"{key}.{name}", value,
                         f"is not a number of 0 or more, at most {MAX_WEIGHT:,} (a finite "
                         "weight; a plan depends only on the weights' ratios)")
        else:
            out.append((name, float(value)))
    return tuple(sorted(out, key=lambda kv: WEIGHT_KEYS.index(kv[0])))


def _artifact_use(toml, key: str, given: dict, rs: Ruleset) -> tuple[tuple[str, int], ...]:
    """``policy.artifact_use`` checked: artefact names, each ``"always"``, ``"never"`` or a
    Health of 1 or more; as ``(name, Health)`` pairs in name order, 0 for never and
    ``always`` left out (the default).
    """
    out = []
    for name, value in given.items():
        if name not in rs.artifacts:
            toml.problem(f"{key}.{name}", None, "is not an artefact card"
                         + suggest(name, rs.artifacts))
        else:
            try:
                level = use_level(value)
            except ValueError as error:
                toml.problem(f"{key}.{name}", value, str(error))
                continue
            if level is not None:
                out.append((name, level))
    return tuple(sorted(out))


def read_table(scenario: Scenario, key: str, given: dict,
               name: str | None = None) -> tuple[object, list]:
    """``given`` read as the scenario file's table ``key`` would be (``policy.weights`` or
    ``targets``), and the problems, in the loader's words with the scenario's file named
    (as ``name`` when given): a page that edits the table (``zonesim studio``) checks it as
    the file is checked.
    """
    toml = TomlFile(Path(scenario.path))
    toml.problems.clear()
    toml.name = toml.name if name is None else name
    value = _targets(toml, given) if key == "targets" else _weights(toml, key, given)
    return value, toml.problems


def use_level(value: object) -> int | None:
    """One ``policy.artifact_use`` value as the policy holds it (P-08): None for ``"always"``
    (left out of the table), 0 for ``"never"``, a Health of ``1..MAX_THRESHOLD`` as itself.
    The one reading of the scenario key and of ``zonesim compare``'s ``artifact_use=NAME:USE``.

    Raises
    ------
    ValueError
        Anything else (the message says what is allowed).
    """
    if value == "always":
        return None
    if value == "never":
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_THRESHOLD:
        return value
    raise ValueError(f"is not {' or '.join(ARTIFACT_USES)} or a Health of 1..{MAX_THRESHOLD}")


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
