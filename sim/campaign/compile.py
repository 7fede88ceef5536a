"""Compile a scenario (ruleset, map, stalker, loadout, policy) into campaign-kernel arrays.

Everything the day loop needs is resolved here, once: the map's first-day
route tables for every start hex, objective and movement allowance
(:mod:`sim.campaign.route`), each enemy card as a packed fight
(:mod:`sim.encounter.combat`), each anomaly and event card as packed
parameters (:mod:`sim.encounter.anomaly`), the Emission deck in order, and
the scalar rule parameters and policy thresholds. A multiplayer scenario is
compiled one character slot at a time by :mod:`sim.campaign.players`, and the
slots are stacked by :func:`pack_slots`.
"""

from __future__ import annotations

from dataclasses import make_dataclass

import numpy as np

from sim.campaign import route
from sim.campaign.artifacts import (
    DTYPES,
    RECORDS,
    allowed,
    artifact_keys,
    artifact_slots,
    artifact_tables,
    held,
    intellect,
    movement_bonuses,
    with_use,
)
from sim.campaign.hexmap import HexMap, compile_map
from sim.campaign.memo import per_ruleset
from sim.encounter import anomaly as hazards
from sim.encounter.combat import CombatPolicy, combat_heals, compile_combat
from sim.encounter.damage import armor_rolls, target_of
from sim.encounter.items import best_first, worth
from sim.encounter.spec import PackedFight, policy_slots
from sim.errors import InputError
from sim.kernels import campaign as K
from sim.kernels import layout as S
from sim.kernels.campaign import tables as flat
from sim.kernels.layout import A_SIZE, P_SIZE
from sim.rules import Ruleset, fightable
from sim.rules.scenario import Scenario, carry_problems, gear_armors, gear_weapons
from sim.rules.schema import DEFORMATION_EFFECTS, TOKEN_USES
from sim.rules.settings import settings
from sim.rules.traits import parse_traits

DRAWS = {"nothing": K.DRAW_NOTHING, "event": K.DRAW_EVENT, "enemy": K.DRAW_ENEMY,
         "anomaly": K.DRAW_ANOMALY}
KILLED = {"never": K.KILLED_NEVER, "trophy_sold": K.KILLED_TROPHY_SOLD,
          "at_once": K.KILLED_AT_ONCE, "reshuffle_when_empty": K.KILLED_RESHUFFLE}
HABITATS = {"open": K.HAB_OPEN, "secret": K.HAB_SECRET, "any": K.HAB_ANY}
ENEMY_KINDS = {"mutant": K.KIND_MUTANT, "stalker": K.KIND_STALKER, "animal": K.KIND_ANIMAL}
INERT_ITEMS = ("none", "location_movement")
"""Item effects the simulation never acts on (docs/rules.md, Items): a knocked-out stalker who
keeps what helps him gives these up first (``policy.knockout_loss = "keep_useful"``, P-37)."""

ITEM_EFFECTS = {"event_avoid": K.ITEM_EVENT, "escape": K.ITEM_ESCAPE, "medkit": K.ITEM_MEDKIT,
                "stimulant": K.ITEM_STIMULANT, "movement": K.ITEM_MOVEMENT,
                "helicopter": K.ITEM_HELICOPTER}
BUNKER_CHOICES = {"nearest": K.BUNKER_NEAREST, "toward_objective": K.BUNKER_TOWARD_OBJECTIVE}
FACTIONS = {"": K.FACTION_NONE, "duty": K.FACTION_DUTY, "freedom": K.FACTION_FREEDOM,
            "ecologists": K.FACTION_ECOLOGISTS, "military": K.FACTION_MILITARY}


class CampaignInputError(InputError):
    """A scenario the campaign model cannot run (reported, exit status 2)."""


class _Arrays:
    """A compiled one-stalker scenario: one character *slot* of the campaign kernels' tables.

    Its fields are ``cp`` and the tables declared once, with their dimensions, in
    :data:`sim.kernels.campaign.tables.TABLES` (same names, same order); the kernels take
    them packed into one flat array (:meth:`pack`, :func:`pack_slots`: one slot here,
    several for a multiplayer scenario, :mod:`sim.campaign.players`).
    Per-card tables are packed into a few 2-D int64 arrays; their columns are
    the ``H_*``, ``I_*``, ``N_*``, ``V_*`` and ``M_*`` constants of the kernel
    module, and the properties below name them for readers.

    Attributes
    ----------
    cp : int64 (C_SIZE,)
        Scalar rules and policy (``C_*`` indices).
    hexes : int64 (n_hex, 4)
        Location kind code; nearest bunker hex (P-37); that bunker's objective
        index; faction of a base (``FACTION_*``, P-26..P-28).
    day_table : int32 (n_hex, n_targets, n_allowances, width)
        First day of the optimal route (:func:`sim.campaign.route.day_paths`).
    day_len : int32 (n_hex, n_targets, n_allowances)
        Hexes entered on that day.
    target_hex : int64 (n_targets,)
        Objectives: the Secret Complexes in visiting order, the Sarcophagus, the bunkers.
    allowance_of_value : int64 (max item value + 1,)
        Allowance index for a movement item of each value (Z-01..Z-03).
    place_open, place_secret, place_any : int64
        Location hexes for cards of each habitat (P-26..P-28).
    it : int64 (n_items, 4)
        Per item card of ``items.csv``: effect code, value (event items: the
        shift of :func:`sim.encounter.items.event_shift`, ``AUTO_SHIFT`` for ``auto``),
        price, starting count.
    item_order : int64 (N_ITEM_EFFECTS + 1, n_items)
        Row ``e`` (an ``ITEM_*`` effect): the item cards of that effect by
        value, highest first, the first card among equals first (the best held
        one is the first held, Z-02, Z-10, Z-17); row ``O_COMBAT_HEALS``: the
        cards that heal in a fight, in card order (stimulants, Z-12; medkits
        under ``combat.medkits_in_combat``, P-24). Padded with -1.
    lose_order : int64 (n_belongings, 2)
        Belongings lost on a knock-out (P-37), cheapest first: kind
        (``BELONG_*``) and item card index or weapon bit.
    shopping : int64
        The shopping list (item card indices).
    gear : int64 (n_gear, B_SIZE)
        The weapons, artefacts and armours ``policy.shopping_gear`` buys (P-13;
        :func:`gear_table`).
    e_params, e_bonus, e_spend, e_uses0 : int64
        Per armour worn (a block per row of ``armor``), set of belongings held (a bit
        mask over the scenario's weapons, P-37, and above them the artefact slots,
        :mod:`sim.campaign.artifacts`) and enemy card, the packed fight (``P_*``, then
        the held artefacts' records) and its loadout tables, zero-padded to the
        largest number of limited weapons.
    en : int64 (n_enemies, 4)
        Per enemy card: trophy kind, habitat, psi flag, count.
    sarcophagus : int64
        Enemy cards waiting in the Sarcophagus, in order (P-50).
    a_params : int64 (n_armors * n_artifact_masks, n_anomalies, A_SIZE + RECORDS)
        Per armour worn, set of artefact slots held and anomaly card, the packed
        encounter (``A_*``, then the held artefacts' records).
    a_count : per anomaly card
        Count.
    art_deck0, art_value : per artefact type
        Cards in the artefact deck (P-35) and the value of one card (mean price).
    ev : int64 (n_events, V_SIZE)
        Per event card: avoid roll (0: none), effect, value, track, count,
        damage type (index of ``DTYPES``).
    em : int64 (n_emissions, M_SIZE)
        Per Emission card in deck order: wounds, doses, disturbances, Final
        flag, damage type of the wounds.
    art_rec, art_n, art_cards, art_identity : int64
        Artefact records by held mask and damage type, artefact cards, and
        the types whose finds draw their card
        (:func:`sim.campaign.artifacts.artifact_tables`).
    armor : int64 (n_armors, AR_SIZE)
        The armours he may wear (:func:`campaign_armors`; row 0 the starting one, 0s for
        none): durability (P-03) and price.
    ev_resist : int64 (n_armors, n_events)
        Per armour, each event card's absorbing face (0: the armour does not roll).
    em_resist : int64 (n_armors, n_emissions, MR_SIZE)
        Per armour, its face against each Emission card's wounds, doses and
        disturbances (0: the armour does not roll).
    """

    def pack(self) -> np.ndarray:
        """The arrays as the kernels take them, ``T``: one slot (see :func:`pack_slots`)."""
        return pack_slots([self])

    @property
    def max_days(self) -> int:
        """Days simulated at most."""
        return int(self.cp[K.C_MAX_DAYS])

    @property
    def n_characters(self) -> int:
        """Stalker cards of the ruleset (columns of the per-character counts)."""
        return int(self.cp[K.C_N_CHARACTERS])

    loc_kind = property(lambda self: self.hexes[:, K.H_KIND])
    nearest_bunker = property(lambda self: self.hexes[:, K.H_BUNKER])
    bunker_target = property(lambda self: self.hexes[:, K.H_BUNKER_TARGET])
    faction = property(lambda self: self.hexes[:, K.H_FACTION])
    item_effect = property(lambda self: self.it[:, K.I_EFFECT])
    item_value = property(lambda self: self.it[:, K.I_VALUE])
    item_price = property(lambda self: self.it[:, K.I_PRICE])
    item_start = property(lambda self: self.it[:, K.I_START])
    e_kind = property(lambda self: self.en[:, K.N_KIND])
    e_habitat = property(lambda self: self.en[:, K.N_HABITAT])
    e_psi = property(lambda self: self.en[:, K.N_PSI])
    e_count = property(lambda self: self.en[:, K.N_COUNT])
    ev_avoid = property(lambda self: self.ev[:, K.V_AVOID])
    ev_effect = property(lambda self: self.ev[:, K.V_EFFECT])
    ev_value = property(lambda self: self.ev[:, K.V_VALUE])
    ev_target = property(lambda self: self.ev[:, K.V_TARGET])
    ev_count = property(lambda self: self.ev[:, K.V_COUNT])
    em_wounds = property(lambda self: self.em[:, K.M_WOUNDS])
    em_radiation = property(lambda self: self.em[:, K.M_RADIATION])
    em_psi = property(lambda self: self.em[:, K.M_PSI])
    em_final = property(lambda self: self.em[:, K.M_FINAL])
    em_wound_resist = property(lambda self: self.em_resist[0, :, K.M_WOUND_RESIST])
    em_rad_resist = property(lambda self: self.em_resist[0, :, K.M_RAD_RESIST])
    em_psi_resist = property(lambda self: self.em_resist[0, :, K.M_PSI_RESIST])


CampaignArrays = make_dataclass(
    "CampaignArrays", [(name, np.ndarray) for name in ("cp", *flat.TABLES)],
    bases=(_Arrays,), frozen=True, eq=False)
CampaignArrays.__doc__, CampaignArrays.__module__ = _Arrays.__doc__, __name__


PADDED = {"e_params": 0, "e_bonus": 0, "e_spend": 0, "e_uses0": 0, "lose_order": -1,
          "shopping": -1, "gear": -1, "a_params": 0, "art_rec": 0, "art_n": 0, "day_table": 0,
          "day_len": 0, "allowance_of_value": 0, "target_hex": -1, "armor": 0,
          "ev_resist": 0, "em_resist": 0}
"""Tables whose shape depends on the character's loadout and policy, with the value that
pads them for :func:`pack_slots` (the kernel skips ``-1`` rows; zero fights and weapon
uses are the padding the per-mask tables already have)."""


def pack_slots(slots) -> np.ndarray:
    """The kernel's compiled scenario ``T``: every slot's header, then the tables
    (:mod:`sim.kernels.campaign.tables`).

    Slot ``s`` is ``slots[s]``, a :class:`CampaignArrays`; tables of different
    sizes (weapon subsets, belongings, shopping lists: :data:`PADDED`) are padded
    to the largest. Every other table must have the same shape in every slot. A
    table equal in every slot is stored once; the header of each slot holds its
    parameters (``cp``), where its tables begin (``T_*``), their dimensions (``N_*``)
    and where each array of a game's state begins in ``G`` (``GS_*``).
    """
    n = len(slots)
    padded = {name: _padded(name, [getattr(slot, name) for slot in slots])
              for name in flat.TABLES}
    cps = [np.asarray(slot.cp, dtype=np.int64) for slot in slots]
    dims = _dimensions(padded)
    data, at = [], n * flat.SLOT_SIZE
    where = [dict() for _ in slots]
    for name, arrays in padded.items():
        shared = all(np.array_equal(a, arrays[0]) for a in arrays[1:])
        for s, array in enumerate(arrays):
            if s == 0 or not shared:
                data.append(array.reshape(-1))
                at += array.size
            where[s]["T_" + name.upper()] = at - array.size
    headers = np.zeros((n, flat.SLOT_SIZE), dtype=np.int64)
    for s, cp in enumerate(cps):
        headers[s, :K.C_SIZE] = cp
        headers[s] = flat.LAYOUT.pack(headers[s], **dims, **where[s])
    state, at = {}, K.Z_SIZE + int(cps[0][K.C_N_PLAYERS]) * K.S_SIZE
    for name, declared in flat.STATE.items():
        state["GS_" + name.upper()] = at
        at += int(np.prod(flat.shape(declared, headers[0])))
    for s in range(n):
        headers[s] = flat.LAYOUT.pack(headers[s], **state, GS_SIZE=at)
    return np.concatenate([headers.reshape(-1), *data])


def _padded(name: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """One table of every slot as int64 arrays of one shape, padded (:data:`PADDED`)."""
    shape = tuple(max(dims) for dims in zip(*(a.shape for a in arrays), strict=True))
    if name not in PADDED and any(a.shape != shape for a in arrays):
        raise CampaignInputError(f"the characters' {name} tables differ in shape")
    out = []
    for a in arrays:
        full = np.full(shape, PADDED.get(name, 0), dtype=np.int64)
        full[tuple(slice(0, k) for k in a.shape)] = a
        out.append(full)
    return out


def _dimensions(padded: dict[str, list[np.ndarray]]) -> dict[str, int]:
    """The ``N_*`` header slots, measured on the tables; each table's shape is checked
    against its declaration (:data:`sim.kernels.campaign.tables.TABLES`).
    """
    dims: dict[str, int] = {}
    for name, declared in flat.TABLES.items():
        shape = padded[name][0].shape
        if len(shape) != len(declared):
            raise ValueError(f"table {name}: shape {shape}, declared {declared}")
        for dim, size in zip(declared, shape, strict=True):
            known = dim if isinstance(dim, int) else dims.get(dim, size)
            if known != size:
                raise ValueError(f"table {name}: {dim} is {size}, elsewhere {known}")
            if isinstance(dim, str):
                dims[dim] = size
    dims["N_TROPHIES"] = dims["N_ENEMIES"] + dims["N_ANOMALIES"]
    return dims


PLAIN_COPIES = tuple(s for s in settings() if s.slot)
"""The settings the campaign kernel reads unchanged, each from the parameter slot it names
(:attr:`sim.rules.settings.Setting.slot`: ``rules.toml`` keys, ``[policy]`` keys, the
starting money). The rules layer may not import the kernels, so it names the slot and this
layer resolves it (:meth:`~sim.kernels.records.Record.pack` refuses a name that is no
slot)."""


def plain_copies(scenario: Scenario) -> dict[str, int]:
    """The ``C_*`` values of :data:`PLAIN_COPIES` for ``scenario``, by slot name (a ``bool``
    as 0 or 1): a new rule or policy key the kernel reads as it is needs its declaration
    (with its slot), the kernel's read and the reference twin's, and no line here.
    """
    return {s.slot: int(s.value(scenario)) for s in PLAIN_COPIES}


def game_keys(scenario: Scenario) -> dict[str, int]:
    """The kernel's game-wide ``C_*`` values: seats and the ``multiplayer.*`` keys (P-44, P-45).

    A one-stalker scenario without ``[[players]]`` measures one life: a death
    ends its game (``after_death`` is then ``eliminated``), unless
    ``death.one_stalker_after_death = "new_character"`` (P-44): then the player
    draws a new character as a multiplayer seat does (:func:`renews`).
    """
    rules = scenario.ruleset.rules.multiplayer
    multiplayer = scenario.multiplayer
    return dict(
        C_N_PLAYERS=len(scenario.players) if multiplayer else 1,
        C_N_CHARACTERS=len(scenario.ruleset.stalkers),
        C_TURN_ORDER=("seat", "rotating", "simultaneous").index(rules.turn_order),
        C_SAME_DAY=("first", "shared").index(rules.same_day_win),
        C_AFTER_WIN=("end", "play_on").index(rules.after_win),
        C_AFTER_DEATH=K.AFTER_DEATH_NEW if renews(scenario) else K.AFTER_DEATH_ELIMINATED,
        C_COOPERATIVE=scenario.variant == "cooperative",
        C_COOP_DEAD=("ignored", "team_loses").index(rules.cooperative_dead),
        C_FIRST_PLAYER=("seat1", "random").index(rules.first_player),
    )


def renews(scenario: Scenario) -> bool:
    """Whether a dead character's player draws a new one (P-43, P-44): in a multiplayer game
    under ``multiplayer.after_death = "new_character"``, in a one-stalker game under
    ``death.one_stalker_after_death = "new_character"`` (a reading; by default a death ends
    a one-stalker game).
    """
    rules = scenario.ruleset.rules
    if scenario.multiplayer:
        return rules.multiplayer.after_death == "new_character"
    return rules.death.one_stalker_after_death == "new_character"


def token_keys(rs: Ruleset) -> dict[str, int | list[int]]:
    """The ``C_*`` values, by name, of the tokens (Gap "Tokens") and the Deformation deck (P-39).

    The deck's cards are listed one per copy (``count``), in file order, with
    their ``DEFORM_*`` effect and value (the wide slots ``C_DEFORM_EFFECT`` and
    ``C_DEFORM_VALUE``); a deck none of whose cards does anything is not drawn
    (``C_DEFORM_CARDS`` 0), so it takes no random draw.
    """
    tokens = rs.rules.tokens
    cards = [card for card in rs.deformations.values() for _ in range(card.count)]
    active = any(card.effect != "none" for card in cards)
    return dict(
        C_CLUE_USE=TOKEN_USES.index(tokens.clue_use),
        C_ZONE_USE=TOKEN_USES.index(tokens.zone_use),
        C_DEFORM_CARDS=len(cards) if active else 0,
        C_DEFORM_EFFECT=[DEFORMATION_EFFECTS.index(card.effect) for card in cards],
        C_DEFORM_VALUE=[card.value for card in cards],
    )


def zone_keys(rs: Ruleset) -> dict[str, int | list[int]]:
    """The ``C_*`` values, by name, of the Zone phase's Zone deck (P-30, P-47; ``zone.csv``).

    ``C_ZONE_DECK`` is 1 under ``zone.cards = "deck"``; each kind of Zone card
    (a row of ``zone.csv``, in file order) gets its copies and what it does in
    the wide ``C_ZONE_*`` slots. Under ``"per_day"`` the kinds are compiled
    too but never drawn.
    """
    zone, cards = rs.rules.zone, list(rs.zone.values())
    return dict(
        C_ZONE_DECK=zone.cards == "deck",
        C_ZONE_COUNT=[card.count for card in cards],
        C_ZONE_ENEMIES=[card.enemies for card in cards],
        C_ZONE_ANOMALIES=[card.anomalies for card in cards],
        C_ZONE_ENVIRONMENT=[int(card.environment) for card in cards],
        C_ZONE_TOKENS=[card.emission_tokens for card in cards],
    )


def _i64(values) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.int64).reshape(-1))


def _table(rows, width: int) -> np.ndarray:
    """Rows of ints as a C-contiguous int64 array of shape (len(rows), width)."""
    return np.ascontiguousarray(np.asarray(rows, dtype=np.int64).reshape(-1, width))


def visiting_order(scenario: Scenario, hexmap: HexMap, start: int) -> list[int]:
    """Secret Complexes in the order the policy visits them (P-50).

    Every complex is visited exactly once before the Sarcophagus (P-50).
    ``policy.route`` lists them by name (each at most once, checked when the
    scenario is read); the complexes it leaves out follow nearest first: from
    the last one listed (or the start), repeatedly the unexplored complex with
    the shortest route (fewest days, then most steps left, base allowance),
    fixed for the game.
    """
    movement = scenario.ruleset.rules.movement
    order = [hexmap.index_of(name) for name in scenario.policy.route]
    left = [int(h) for h in hexmap.of_kind("complex") if int(h) not in order]
    here = order[-1] if order else start
    base = int(movement.base_steps)
    while left:
        days, steps = route.route_costs(hexmap, [here], left, [base], movement)
        reach = [(days[0, j, 0], -steps[0, j, 0], h) for j, h in enumerate(left)
                 if days[0, j, 0] >= 0]
        if not reach:
            raise CampaignInputError("a Secret Complex cannot be reached from "
                                     f"{hexmap.names[here] or here}")
        here = min(reach)[2]
        order.append(here)
        left.remove(here)
    return order


def _allowances(rs: Ruleset, slots: tuple[str, ...]) -> tuple[list[int], np.ndarray]:
    """Distinct daily allowances: base, plus each movement item with the movement artefacts
    of the slots (Z-01..Z-03, Z-20).
    """
    base = int(rs.rules.movement.base_steps)
    items = sorted({0} | {int(i.value) for i in rs.items.values() if i.effect == "movement"})
    bonuses = movement_bonuses(rs, slots, items)
    allowances = [base + b for b in bonuses]
    of_value = np.zeros(max(bonuses) + 1, dtype=np.int64)
    for index, bonus in enumerate(bonuses):
        of_value[bonus] = index
    return allowances, of_value


def _pad(arrays: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """Stack arrays of different sizes into one zero-padded int64 array of ``shape``."""
    if all(array.shape == shape[1:] for array in arrays) and len(arrays) == shape[0]:
        return np.array(arrays, dtype=np.int64)  # nothing to pad
    out = np.zeros(shape, dtype=np.int64)
    for index, array in enumerate(arrays):
        out[index][tuple(slice(0, n) for n in array.shape)] = array
    return out


def campaign_weapons(scenario: Scenario) -> tuple[str, ...]:
    """The weapon bits of the belongings mask: the weapons carried, then those bought.

    P-13; :func:`sim.rules.scenario.gear_weapons`.
    """
    return gear_weapons(scenario.ruleset, scenario.weapons, scenario.policy.shopping_gear)


def campaign_armors(scenario: Scenario) -> tuple[str | None, ...]:
    """The armours he may wear, the rows of the ``armor`` table: the starting one, then those
    bought (P-13; :func:`sim.rules.scenario.gear_armors`).
    """
    return gear_armors(scenario.ruleset, scenario.armor, scenario.policy.shopping_gear)


def by_armor(blocks: list[np.ndarray]) -> np.ndarray:
    """One table's blocks, one per armour worn (:func:`campaign_armors`), on its first axis.

    Block ``c`` starts at row ``c`` times a block's rows (the largest, zero-padded); a lone
    block is returned as it is (the remembered, read-only array).
    """
    if len(blocks) == 1:
        return blocks[0]
    shape = tuple(max(dims) for dims in zip(*(b.shape for b in blocks), strict=True))
    return _pad(blocks, (len(blocks), *shape)).reshape(-1, *shape[1:])


def weapon_subsets(weapons: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every subset of the scenario's weapons, indexed by bit mask (bit j: weapon j held)."""
    return [tuple(w for j, w in enumerate(weapons) if mask >> j & 1)
            for mask in range(1 << len(weapons))]


TABLES_KEPT = 64
"""Per-scenario tables remembered per process (:func:`sim.campaign.memo.per_ruleset`):
the fights, the hazards and the map of the last this many distinct inputs."""
FIGHTS_KEPT = 16384
"""Packed fights of one card and loadout remembered per process (:func:`packed_fight`):
``zonesim optimize``'s default search on base builds 6,804 distinct ones (about a kilobyte
each); at 4,096 it rebuilt 1,988 of them after they had been dropped."""


def _enemies(scenario: Scenario, slots: tuple[str, ...]) -> dict:
    """Fights of every enemy card with every armour worn and set of weapons and artefacts held
    (P-02..P-05, P-13, P-23, P-37).

    Bit ``j`` of a mask is weapon ``j`` of the scenario; the bits above the
    weapons are the artefact slots (P-08..P-10). A mask holding more
    artefacts than ``artifacts.carry_limit`` cannot occur and stays zero.
    Each armour he may wear has a block of masks (:func:`by_armor`).
    Remembered (read-only) for candidates whose fights have the same inputs
    (:func:`policy_fights`).
    """
    policy = scenario.policy
    tables = [policy_fights(scenario.ruleset, scenario.stalker, armor,
                            campaign_weapons(scenario), tuple(slots), policy.sneak,
                            int(policy.flee_at), int(policy.heal_at), intellect(scenario),
                            policy.artifact_use)
              for armor in campaign_armors(scenario)]
    return {**tables[0], **{name: by_armor([t[name] for t in tables])
                            for name in ("e_params", "e_bonus", "e_spend", "e_uses0")}}


def _fightable(rs: Ruleset) -> list:
    """The enemy cards a fight can be played against (:func:`fightable`), in enemies.csv
    order: the card axis of the fight tables.
    """
    return [(name, card) for name, card in rs.enemies.items() if fightable(card.wound_type)]


@per_ruleset(TABLES_KEPT)
def policy_fights(rs: Ruleset, stalker: str, armor: str | None, weapons: tuple[str, ...],
                  slots: tuple[str, ...], sneak: str, flee_at: int, heal_at: int,
                  pool: int, use: tuple[tuple[str, int], ...] = ()) -> dict:
    """The enemy tables of :func:`_enemies` under one fight policy (read-only arrays).

    :func:`fight_tables` of the loadout with the policy's values written into every fight's
    policy slots (P-16, P-21, Z-12), as :func:`sim.encounter.combat.compile_combat` packs
    them (:func:`~sim.encounter.spec.policy_slots`, which reads the enemy's traits, P-22):
    a search trying many thresholds (``zonesim optimize``) compiles each loadout's fights
    once. ``use`` (``policy.artifact_use``, P-08) goes into the artefact records
    (:func:`sim.campaign.artifacts.with_use`). The policy keys that only the day loop reads
    (medkit_at, retreat_at, the route, the shopping list, pay_heal, enter_anomalies) leave
    these tables alone.
    """
    tables = fight_tables(rs, stalker, armor, weapons, slots, pool)
    params = tables["e_params"].copy()
    for k, (_, card) in enumerate(_fightable(rs)):
        written = policy_slots(parse_traits(card.traits)[0], sneak == "always", flee_at,
                               heal_at)
        for name, value in written.items():
            params[:, k, getattr(S.COMBAT_PARAMS, name)] = value
    return {**tables, "e_params": with_use(params, P_SIZE, slots, use, len(weapons))}


@per_ruleset(TABLES_KEPT)
def fight_tables(rs: Ruleset, stalker: str, armor: str | None, weapons: tuple[str, ...],
                 slots: tuple[str, ...], pool: int) -> dict:
    """The enemy tables of one loadout from the whole of their inputs (read-only arrays).

    The ruleset (by identity), the stalker card, armour, the scenario's weapons, the
    artefact slots and the Intellect; the fights are packed under the default fight policy,
    whose slots :func:`policy_fights` overwrites.
    """
    meta = _fightable(rs)
    subsets = weapon_subsets(weapons)
    n_weapons = len(weapons)
    fights = {}
    for mask in range(len(subsets) << len(slots)):
        arts = mask >> n_weapons
        if allowed(rs, arts):  # else never held: the weapons' fights stand in
            fights[mask] = [packed_fight(rs, stalker, name, armor,
                                         subsets[mask & (len(subsets) - 1)], held(slots, arts),
                                         pool)
                            for name, _ in meta]
    packed = [fights.get(m, fights[m & (len(subsets) - 1)])
              for m in range(len(subsets) << len(slots))]
    n_masks, n_cards = len(packed), len(meta)
    width = max(p.bonus.shape[1] for row in packed for p in row)
    limited = max(p.uses.shape[0] for row in packed for p in row)
    flat = [p for row in packed for p in row]
    index = {name: i for i, (name, _) in enumerate(meta)}
    sarcophagus = [index[n] for n in rs.sarcophagus_deck() if n in index]
    return {
        "e_params": _pad([p.params for p in flat], (n_masks * n_cards, P_SIZE + RECORDS)).reshape(
            n_masks, n_cards, -1),
        "e_bonus": _pad([p.bonus for p in flat], (n_masks * n_cards, 2, width)).reshape(
            n_masks, n_cards, 2, width),
        "e_spend": _pad([p.spend for p in flat], (n_masks * n_cards, 2, width)).reshape(
            n_masks, n_cards, 2, width),
        "e_uses0": _pad([p.uses for p in flat], (n_masks * n_cards, limited)).reshape(
            n_masks, n_cards, limited),
        "en": _table([(ENEMY_KINDS[c.kind], HABITATS[c.habitat],
                       target_of(c.wound_type) == S.TARGET_WILLPOWER, c.count)  # P-40
                      for _, c in meta], 4),
        "sarcophagus": _i64(sarcophagus),
    }


@per_ruleset(FIGHTS_KEPT)
def packed_fight(rs: Ruleset, stalker: str, enemy: str, armor: str | None,
                 weapons: tuple[str, ...], artifacts: tuple[str, ...], pool: int) -> PackedFight:
    """One enemy card's packed fight with these weapons and artefacts held (read-only).

    Under the default fight policy (:func:`policy_fights` writes the scenario's). Shared by
    the tables of artefact slots that hold the same artefacts (a ``keep_artifacts``
    candidate adds a slot; the masks without it fight as before).
    """
    return compile_combat(rs, stalker, enemy, armor, weapons, (), CombatPolicy(),
                          artifacts=artifacts, intellect=pool).pack()


def _anomalies(rs: Ruleset, stalker: str, armor: str | None, slots: tuple[str, ...],
               enter: bool, pool: int) -> np.ndarray:
    """Every anomaly card with every set of artefact slots held (P-08, P-31..P-36)."""
    out = np.zeros((1 << len(slots), len(rs.anomalies), A_SIZE + RECORDS), dtype=np.int64)
    for mask in range(1 << len(slots)):
        if not allowed(rs, mask):
            continue
        for a, name in enumerate(rs.anomalies):
            packed = hazards.compile_anomaly(
                rs, stalker, name, armor, enter=enter, artifacts=held(slots, mask),
                intellect=pool).pack().params
            out[mask, a, :packed.shape[0]] = packed
    return out


def _event_damage_type(card) -> str:
    """The damage type of an event card's effect (``none`` when it deals no damage)."""
    if card.effect == "wounds":
        return card.damage_type or "physical"
    return card.effect if card.effect in ("radiation", "psi") else "none"


def _hazards(scenario: Scenario, slots: tuple[str, ...]) -> dict:
    """The anomaly, artefact-deck and event tables, remembered like the fights.

    See :func:`hazard_tables`; the anomalies have a block per armour he may wear
    (:func:`by_armor`), the events' faces a row (``ev_resist``).
    """
    tables = [hazard_tables(scenario.ruleset, scenario.stalker, armor, tuple(slots),
                            bool(scenario.policy.enter_anomalies), intellect(scenario))
              for armor in campaign_armors(scenario)]
    use = scenario.policy.artifact_use  # P-08, written after the remembered tables
    return {**tables[0], "a_params": by_armor([with_use(t["a_params"], A_SIZE, tuple(slots), use)
                                               for t in tables]),
            "ev_resist": np.stack([t["ev_resist"] for t in tables])}


@per_ruleset(TABLES_KEPT)
def hazard_tables(rs: Ruleset, stalker: str, armor: str | None, slots: tuple[str, ...],
                  enter: bool, pool: int) -> dict:
    """The tables of :func:`_hazards` from the whole of their inputs (read-only arrays)."""
    types, deck = hazards.artifact_deck(rs)
    prices: dict[str, list[int]] = {}
    for card in rs.artifacts.values():
        prices.setdefault(card.type, []).extend([card.price] * card.count)
    events = [hazards.compile_event(rs, stalker, name, armor) for name in rs.events]
    return {
        "a_params": _anomalies(rs, stalker, armor, slots, enter, pool),
        "a_count": _i64([c.count for c in rs.anomalies.values()]),
        "art_deck0": _i64(deck) if deck else _i64([0]),
        "art_value": _i64([sum(prices.get(t, [0])) // max(len(prices.get(t, [])), 1)
                           for t in types]) if types else _i64([0]),
        "ev": _table([(e.avoid_target if e.rolls else 0, e.effect, e.value, e.target,
                       card.count, DTYPES.index(_event_damage_type(card)))
                      for e, card in zip(events, rs.events.values(), strict=True)], K.V_SIZE),
        "ev_resist": _i64([e.effective_resist for e in events]),
    }


def _emissions(scenario: Scenario) -> dict:
    """The Emission deck (``em``), each armour's faces against its cards (``em_resist``) and
    the armours he may wear (``armor``: durability, price; 0s for none).
    """
    rs = scenario.ruleset
    deck = rs.emission_deck()
    armors = [rs.armor[name] if name else None for name in campaign_armors(scenario)]

    def resist(armor, damage_type: str) -> int:
        """Absorbing face against one damage type of an Emission (0: no roll)."""
        if (armor is None or not rs.rules.emission.armor_absorbs
                or not armor_rolls(rs, damage_type)):
            return 0
        return armor.resistance(damage_type) or 0

    return {
        "em": _table([(c.wounds, c.radiation, c.psi, c.final, DTYPES.index(c.wound_type))
                      for c in deck], K.M_SIZE),
        "em_resist": _i64([[(resist(a, c.wound_type), resist(a, "radiation"), resist(a, "psi"))
                            for c in deck] for a in armors]).reshape(
                                len(armors), len(deck), K.MR_SIZE),
        "armor": _table([(a.durability, a.price) if a else (0, 0) for a in armors], K.AR_SIZE),
    }


def lose_order(scenario: Scenario, slots: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """Belongings in the order a knock-out loses them (P-37; ``policy.knockout_loss``).

    Item cards, the scenario's weapons (by bit) and the armours he may wear (by row of
    ``armor``: the one worn is lost), sorted by
    price (stable: items, then weapons, then armour on equal prices); the
    player's choice is a Gap, and the policy keeps the dearest gear. Under
    ``keep_useful`` (the default) the item cards that never act in the
    simulation (:data:`INERT_ITEMS`) and the artefact slots the policy never uses
    (``policy.artifact_use`` "never", P-08) go before all of them, by price (items
    first on equal prices). Then the other artefact slots (bits above the weapons),
    cheapest first; artefacts waiting to be sold are lost last, after all of these
    (see the kernel).
    """
    rs = scenario.ruleset
    useful = scenario.policy.knockout_loss == "keep_useful"
    rows = [(c.price, K.BELONG_ITEM, i) for i, c in enumerate(rs.items.values())]
    inert = [r for r, c in zip(rows, rs.items.values(), strict=True)
             if useful and inert_item(c, scenario.policy)]
    rows = [r for r in rows if r not in inert]
    weapons = campaign_weapons(scenario)  # the bought ones too: lost when held (P-13)
    rows += [(rs.weapons[w].price, K.BELONG_WEAPON, j) for j, w in enumerate(weapons)]
    rows += [(rs.armor[name].price, K.BELONG_ARMOR, c)
             for c, name in enumerate(campaign_armors(scenario)) if name]
    arts = [(rs.artifacts[name].price, K.BELONG_WEAPON, len(weapons) + j)
            for j, name in enumerate(slots)]
    inert += [r for r, name in zip(arts, slots, strict=True)
              if useful and never_used(name, scenario.policy)]
    arts = [r for r in arts if r not in inert]
    return [(kind, index) for _, kind, index in [*sorted(inert, key=lambda r: r[0]),
                                                 *sorted(rows, key=lambda r: r[0]),
                                                 *sorted(arts, key=lambda r: r[0])]]


def never_used(artifact: str, policy) -> bool:
    """An artefact the policy never uses (``policy.artifact_use`` "never", P-08): inert like
    the item cards of :func:`inert_item`, a knock-out gives it up first under ``keep_useful``
    (P-37 leaves the choice to the player).
    """
    return dict(policy.artifact_use).get(artifact) == 0


def inert_item(card, policy) -> bool:
    """An item card that never acts in the simulation (:data:`INERT_ITEMS`), or a Helicopter
    call a policy never calls (``policy.helicopter_at = 0``, Z-05).
    """
    return card.effect in INERT_ITEMS or (card.effect == "helicopter" and policy.helicopter_at == 0)


def sold_at(rs: Ruleset, card) -> int:
    """Bit mask of the factions (``FACTION_*``) whose bases sell ``card`` (Z-05, Z-11).

    ``economy.shops = "per_base"``: the factions of its ``sold_at`` (empty: every base);
    ``every_base``: every base sells every item.
    """
    every = sum(1 << code for name, code in FACTIONS.items() if name)
    if rs.rules.economy.shops == "every_base" or not card.sellers:
        return every
    return sum(1 << FACTIONS[f] for f in card.sellers)


def item_order(it: np.ndarray, heals: tuple[int, ...]) -> np.ndarray:
    """The kernel's ``item_order`` table of the item cards ``it`` (see :class:`CampaignArrays`).

    Which held item a stalker uses is decided here once, not by a scan of every
    card at each use: the best of an effect is the first held card of its row
    (Z-02, Z-10, Z-17), and the fight heals with the cards of the last row,
    those whose effect code is in ``heals`` (:func:`sim.encounter.combat.combat_heals`).
    """
    effect, value = it[:, K.I_EFFECT], it[:, K.I_VALUE]
    rows = []
    for e in range(K.N_ITEM_EFFECTS):
        cards = np.flatnonzero(effect == e)
        rows.append(cards[best_first(value[cards].tolist())])
    rows.append(np.flatnonzero(np.isin(effect, heals)))
    order = np.full((len(rows), len(it)), -1, dtype=np.int64)
    for r, cards in enumerate(rows):
        order[r, :len(cards)] = cards
    return order


def _items(scenario: Scenario, slots: tuple[str, ...]) -> dict:
    rs = scenario.ruleset
    names = list(rs.items)
    cards = list(rs.items.values())
    start = np.zeros(len(names), dtype=np.int64)
    for name in scenario.items:
        start[names.index(name)] += 1
    it = _table([(ITEM_EFFECTS.get(c.effect, K.ITEM_OTHER), worth(c), c.price, n, sold_at(rs, c))
                 for c, n in zip(cards, start, strict=True)], K.I_SIZE)
    return {
        "it": it,
        "item_order": item_order(it, tuple(ITEM_EFFECTS[e] for e in combat_heals(rs))),
        "lose_order": _table(lose_order(scenario, slots), 2),
        "shopping": _i64([names.index(n) for n in scenario.policy.shopping]),
        "gear": gear_table(scenario, slots),
    }


def gear_table(scenario: Scenario, slots: tuple[str, ...]) -> np.ndarray:
    """The kernel's ``gear`` table: a ``B_*`` row per card ``policy.shopping_gear`` names (P-13).

    In the list's order, each card once: a weapon's bit (:func:`campaign_weapons`), an
    artefact's slot bit above the weapons and its type in the deck (P-35), or an armour's
    row of ``armor`` (:func:`campaign_armors`); and its price.
    """
    rs = scenario.ruleset
    weapons = campaign_weapons(scenario)
    armors = campaign_armors(scenario)
    types, _ = hazards.artifact_deck(rs)
    rows = []
    for name in dict.fromkeys(scenario.policy.shopping_gear):
        if name in rs.weapons:
            rows.append((K.GEAR_WEAPON, weapons.index(name), rs.weapons[name].price, 0))
        elif name in rs.armor:
            rows.append((K.GEAR_ARMOR, armors.index(name), rs.armor[name].price, 0))
        else:
            card = rs.artifacts[name]
            rows.append((K.GEAR_ARTIFACT, len(weapons) + slots.index(name), card.price,
                         types.index(card.type)))
    return _table(rows, K.B_SIZE)


@per_ruleset(4)
def _map(rs: Ruleset) -> HexMap:
    """The ruleset's compiled map (:func:`sim.campaign.hexmap.compile_map`; read-only)."""
    return compile_map(rs)


@per_ruleset(4)
def _nearest_bunkers(rs: Ruleset) -> np.ndarray:
    """The nearest bunker of every hex (:func:`sim.campaign.route.nearest_table`; read-only)."""
    return route.nearest_table(_map(rs), "bunker", rs.rules.movement)


def objective_bunkers(rs: Ruleset, objectives: list[int], bunkers: list[int]) -> list[int]:
    """The bunker nearest to each objective hex, by route from the bunker (P-38, P-41).

    ``policy.bunker_choice = "toward_objective"``: fewest days, then most steps left with
    the base allowance, ties to the first bunker in map.csv; -1 where none reaches it.
    """
    movement = rs.rules.movement
    days, left = route.route_costs(_map(rs), bunkers, objectives, [int(movement.base_steps)],
                                   movement)
    out = []
    for j in range(len(objectives)):
        reach = [(days[i, j, 0], -left[i, j, 0], i) for i in range(len(bunkers))
                 if days[i, j, 0] >= 0]
        out.append(bunkers[min(reach)[2]] if reach else -1)
    return out


def _bunker_keys(scenario: Scenario, objectives: list[int],
                 bunkers: list[int]) -> tuple[dict[str, int], list[int]]:
    """``policy.bunker_choice`` (its ``C_*`` value by name) and, per objective, the bunker
    toward it (P-38, P-41; none under ``nearest``), for the wide slot ``C_OBJECTIVE_BUNKER``.
    """
    choice = scenario.policy.bunker_choice
    keys = dict(C_BUNKER_CHOICE=BUNKER_CHOICES[choice])
    if choice == "nearest":
        return keys, []
    if len(objectives) > K.MAX_OBJECTIVES:
        raise CampaignInputError(
            f"{scenario.path}: key 'policy.bunker_choice': 'toward_objective' plays maps of "
            f"at most {K.MAX_OBJECTIVES - 1} Secret Complexes; this one has "
            f"{len(objectives) - 1}")
    return keys, objective_bunkers(scenario.ruleset, objectives, bunkers)


def compile_campaign(scenario: Scenario) -> CampaignArrays:
    """Resolve a one-stalker scenario into the campaign kernel's arrays (:class:`CampaignArrays`).

    A multiplayer scenario is compiled slot by slot by
    :func:`sim.campaign.players.compile_game`.
    """
    if scenario.multiplayer:
        raise CampaignInputError(f"{scenario.path}: a multiplayer scenario ([[players]] or "
                                 "stalkers > 1) runs with zonesim campaign only")
    if scenario.policy.encounters != "thresholds":
        raise CampaignInputError(
            f"{scenario.path}: key 'policy.encounters': {scenario.policy.encounters!r}: whole "
            "games play the fights by the thresholds (sneak, flee_at, heal_at) only so far; "
            "best play is for the encounter commands (zonesim combat, compare combat)")
    rs = scenario.ruleset
    refused = carry_problems(rs, scenario.weapons, scenario.artifacts,
                             scenario.policy.keep_artifacts, scenario.policy.shopping_gear)
    if refused:  # the scenario loader refuses these; a variant or an edit may bring them
        key, message = refused[0]
        raise CampaignInputError(f"{scenario.path}: key '{key}': {message}")
    rules = rs.rules
    movement = rules.movement
    hexmap = _map(rs)
    start = hexmap.index_of(scenario.start)
    complexes = visiting_order(scenario, hexmap, start)
    sarcophagus = [int(h) for h in hexmap.of_kind("sarcophagus")]
    bunkers = [int(h) for h in hexmap.of_kind("bunker")]
    # The Duty base, where mutant trophies sell (P-26), follows the bunkers when the policy
    # walks there to sell (policy.sell_trophies_at), so that no other scenario's tables grow.
    duty = [h for h, f in enumerate(hexmap.factions) if f == "duty"][:1]
    selling = duty if scenario.policy.sell_trophies_at > 0 else []
    targets = [*complexes, *sarcophagus, *bunkers, *selling]
    slots = artifact_slots(scenario)
    weapons = campaign_weapons(scenario)
    allowances, allowance_of_value = _allowances(rs, slots)
    # A target's column of the route tables depends on that target only (one search per
    # start and allowance), so the tables are searched for the targets in hex order and
    # reordered: every visiting order of the complexes shares one remembered search.
    hexes, column = np.unique(np.asarray(targets, dtype=np.int64), return_inverse=True)
    table, lengths = route.day_paths(hexmap, np.arange(hexmap.n), hexes, allowances, movement)
    table, lengths = table[:, column], lengths[:, column]
    nearest = _nearest_bunkers(rs)
    if (nearest < 0).any():
        raise CampaignInputError("some hexes cannot reach a bunker")
    bunker_target = _i64([targets.index(int(b), len(complexes) + 1) for b in nearest])
    kinds = hexmap.kind.astype(np.int64)
    open_places = np.flatnonzero(kinds == K.LOC_OPEN)
    secret_places = np.flatnonzero((kinds == K.LOC_SECRET) | (kinds == K.LOC_COMPLEX))
    stalker = rs.stalkers[scenario.stalker]
    policy = scenario.policy
    gear = policy.shopping[0] if policy.shopping else None
    bunker_keys, toward = _bunker_keys(scenario, [*complexes, *sarcophagus], bunkers)
    cp = K.PARAMETERS.pack(
        **plain_copies(scenario),
        C_START=start, C_HEALTH=stalker.health,
        C_WILLPOWER=stalker.willpower, C_RADIATION_MAX=stalker.radiation_max,
        C_ENVIRONMENT_CHANCE=int(round(rules.zone.environment_change_chance * 2**62)),
        C_ACCUMULATE=rules.emission.accumulate == "persist",
        # A retreat walks to a bunker to pay for healing; under economy.paid_healing =
        # "after_knockout" no bunker heals a stalker who walks in, so he does not retreat.
        C_RETREAT_AT=policy.retreat_at if rules.economy.paid_healing == "bunker" else 0,
        C_MILITARY_BASE=next((h for h, f in enumerate(hexmap.factions) if f == "military"), -1),
        C_TROPHY_TARGET=len(targets) - 1 if selling else -1,
        **bunker_keys,
        C_N_OBJECTIVES=len(complexes), C_SARCOPHAGUS_TARGET=len(complexes),
        C_OPEN_DRAW=DRAWS[rules.campaign.open_location_draw],
        C_SECRET_DRAW=DRAWS[rules.campaign.secret_location_draw],
        C_KILLED_ENEMIES=KILLED[rules.campaign.killed_enemies],
        C_ANOMALY_TROPHIES=rules.campaign.anomaly_trophies == "when_exchanged",
        C_SOLD_ARTIFACTS=rules.campaign.sold_artifacts == "returned",
        C_REPUTATION=stalker.reputation,
        C_GEAR_ITEM=list(rs.items).index(gear) if gear else -1,
        C_SNEAK=policy.sneak == "always",
        # Held at the start: the weapons and artefacts carried, not those bought (P-13).
        C_WEAPONS=(1 << len(scenario.weapons)) - 1
        | ((1 << len(scenario.artifacts)) - 1) << len(weapons),
        C_N_WEAPONS=len(weapons),
        C_GEAR_SHOPS=sum(1 << code for name, code in FACTIONS.items()
                         if name and rules.economy.gear_shops in ("every_base", name)),
        C_BOUGHT_FROM_DECK=rules.economy.bought_artifacts == "from_deck",
        C_N_SLOTS=len(slots),
        **artifact_keys(scenario),
        C_CHARACTER=list(rs.stalkers).index(scenario.stalker),
        **game_keys(scenario),
        **token_keys(rs),  # tokens, the Deformation deck (P-39)
        **zone_keys(rs),  # the Zone deck (P-30, P-47)
        C_OBJECTIVE_BUNKER=toward,  # a column per objective: the bunker toward it (P-38, P-41)
    )
    return CampaignArrays(
        cp=cp, hexes=np.stack([kinds, nearest.astype(np.int64), bunker_target,
                               _i64([FACTIONS[f or ""] for f in hexmap.factions])], axis=1),
        day_table=table, day_len=lengths,
        target_hex=_i64(targets), allowance_of_value=allowance_of_value,
        place_open=_i64(open_places), place_secret=_i64(secret_places),
        place_any=_i64(np.concatenate([open_places, secret_places])),
        **_items(scenario, slots), **_enemies(scenario, slots), **_hazards(scenario, slots),
        **_emissions(scenario), **artifact_tables(scenario, slots),
    )
