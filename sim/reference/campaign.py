"""Reference campaign (P-01..P-50, Z-01..Z-26): the day loop as docs/rules.md reads.

The readable executable spec of a whole game, built only from the validated
model: a :class:`~sim.rules.scenario.Scenario` and its
:class:`~sim.rules.Ruleset` (cards, ``rules.toml`` values, the map model).
It shares no code with the campaign kernel or its compile step: no compiled
arrays, no route tables, no packed encounter specs. It plans its own routes
(:mod:`sim.reference.route`), fights each enemy card with the reference fight
(:mod:`sim.reference.combat`, the plain statement of ``zonesim combat``), meets
anomalies and events from their cards, and rolls one die at a time with
:class:`random.Random`. Artefacts are the cards resolved as every encounter
reads them (:mod:`sim.encounter.artifact`, used through
:mod:`sim.reference.artifact`; the weapons and combat artefacts of a round
from :func:`sim.encounter.loadout.best_with_artifacts`). Three streams, as the kernel has
(dice; deck draws; board placements and the Environment), though the two
never share a random number: they agree in distribution only, which
``tests/reference/test_campaign_oracle.py`` checks with two-sample tests.

Rules, each where its method says: movement and objectives (Z-01..Z-03,
Z-19..Z-26, P-50), fights (P-14..P-29, Z-12..Z-17), anomalies (P-31..P-36,
P-07), events (Z-08..Z-10), armour (P-02..P-06), damage tracks, knock-outs,
concussions, Deformations and death (P-37..P-43), trade (P-11, P-26..P-28),
healing items (Z-11..Z-14), the Zone phase and Emissions (P-47..P-49),
artefacts carried, kept, used, exchanged and lost (P-07..P-11, P-34, P-35,
P-37; Z-20). Modelling choices follow docs/rules.md "Campaign", "Artefacts in
the campaign" and its Assumptions table.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sim.encounter.artifact import (
    ArtifactInputError,
    ArtifactSpec,
    artifact_rules,
    combat_choices,
    compile_artifacts,
)
from sim.encounter.loadout import CloseCombatRules, LoadoutTable, WeaponSlot
from sim.encounter.spec import CombatSpec
from sim.kernels.layout import (
    AVOID_REPUTATION,
    AVOID_STEALTH,
    TARGET_HEALTH,
    TARGET_RADIATION,
    TARGET_WILLPOWER,
)
from sim.reference.artifact import Harm, absorb, use
from sim.reference.combat import fight as fight_spec
from sim.reference.route import Terrain
from sim.rules.model import Armor
from sim.rules.scenario import Scenario
from sim.rules.traits import parse_traits

ENDS = ("reached", "knocked_out_in_sarcophagus", "concussion_in_sarcophagus",
        "fifth_deformation", "knockout_and_concussion", "final_emission", "capped")
"""How a game ends (docs/rules.md "Campaign", Outputs)."""

COUNTERS = ("knockouts", "concussions", "deformations", "emissions_suffered", "emissions",
            "items_used", "fights", "kills", "anomalies_entered", "artifacts_found", "events",
            "complexes_explored", "artifacts_used", "side_effects", "exchanges", "clues",
            "zone_tokens", "clues_lost", "zone_lost", "trophies_found", "trophies_sold",
            "trophy_rubles", "artifacts_sold", "artifact_rubles", "rubles_spent")
"""Per-game counters, named as :data:`sim.experiments.campaign.TRIAL_COLUMNS` names them
(``clues`` and ``zone_tokens``: the tokens held at the end; the economy's last, issue 46,
item 6)."""

SHELTERS = ("secret", "complex", "bunker")
"""Locations an Emission does not reach (P-48); faction bases too under
``emission.bases_shelter`` (:meth:`Campaign.sheltered`)."""

ENCOUNTERS = ("open", "secret", "complex")
"""Locations whose card is resolved on entering (P-14, P-30)."""

IMPOSSIBLE_FACE = 7
"""A face no d6 shows: a test that needs it cannot pass."""

MAX_SLOTS = 4
"""Artefact slots of one character at most (docs/rules.md "Artefacts in the campaign" 1)."""

RESTORES = ("heal", "calm", "purge")
"""Artefacts used once a day, in this order (docs/rules.md "Artefacts in the campaign" 4)."""


def d6(rand: random.Random) -> int:
    """One six-sided die (Gap "Die type": a d6)."""
    return int(rand.random() * 6) + 1


def successes(rand: random.Random, dice: int, face: int) -> int:
    """Dice among ``dice`` showing ``face`` or more, rolled one at a time."""
    return sum(1 for _ in range(dice) if d6(rand) >= face)


def test_terms(modifier: int, success_on: int, reading: str) -> tuple[int, int]:
    """``(face, successes needed)`` of a test with ``modifier`` under ``dice.modifier``.

    ``successes``: the modifier is the successes needed, a die succeeding on
    ``dice.success_on`` (P-16, P-31, P-32 read like P-19). ``face``: the
    modifier is the face each die must reach, one success passes; 1 or less
    passes without a roll (docs/rules.md "Dice and tests").
    """
    if reading == "successes":
        return success_on, modifier
    if modifier <= 1:
        return success_on, 0
    return min(modifier, IMPOSSIBLE_FACE), 1


@dataclass
class Stalker:
    """Everything about the stalker that changes during one game.

    ``artifacts`` and ``artifact_value`` are the artefacts waiting to be sold
    (P-11); ``held`` says which of the character's artefact slots
    (:attr:`Campaign.slots`) he carries; ``trophies_anomaly`` counts the
    anomaly trophies not yet exchanged (P-34); ``trophy_cards`` holds the
    killed enemies' cards, by card, under ``campaign.killed_enemies =
    "trophy_sold"`` (they go back to the deck when sold), ``anomaly_cards``
    the anomaly trophies' cards under ``campaign.anomaly_trophies =
    "when_exchanged"``, and ``waiting_types`` the types of the artefacts
    waiting to be sold (``campaign.sold_artifacts``); ``armor`` is the armour card he
    wears (None: none; P-13: the starting one or one bought), ``tokens`` the damage
    tokens on it (P-04).
    """

    pos: int
    health: int
    willpower: int
    rubles: int
    items: list[int]
    weapons: list[bool]
    armor: Armor | None = None
    tokens: int = 0
    radiation: int = 0
    deformations: int = 0
    objective: int = 0
    knocked_down: int = 0
    lost: int = 0
    trophies_mutant: int = 0
    trophies_stalker: int = 0
    artifacts: int = 0
    artifact_value: int = 0
    held: list[bool] = field(default_factory=list)
    trophies_anomaly: int = 0
    trophy_cards: Counter = field(default_factory=Counter)
    anomaly_cards: Counter = field(default_factory=Counter)
    waiting_types: Counter = field(default_factory=Counter)
    stop: bool = False
    end: str | None = None
    tally: Counter = field(default_factory=Counter)
    clues: int = 0
    zone_tokens: int = 0
    radiation_down: int = 0


class Campaign:
    """What every game of a scenario shares: cards, map, objectives, policy (read-only).

    Parameters
    ----------
    scenario : Scenario
        The validated scenario; everything is read from it and its ruleset.
    keepers : set of str, optional
        Artefact names some stalker of the game keeps (default: this
        character's ``keep_artifacts``); a found or exchanged artefact of a type
        holding one of them is drawn as a card (docs/rules.md "Artefacts in
        the campaign" 7).

    Raises
    ------
    ArtifactInputError
        More than :data:`MAX_SLOTS` artefact slots, a loadout beyond
        ``artifacts.carry_limit``, or ``artifacts.movement_in_epicentre`` unlike
        ``movement.items_in_epicentre`` (the route has one Epicentre rule).
    """

    def __init__(self, scenario: Scenario, keepers: frozenset[str] | None = None):
        rs = scenario.ruleset
        self.scenario, self.rs, self.rules, self.policy = scenario, rs, rs.rules, scenario.policy
        self.hero = rs.stalkers[scenario.stalker]
        self.terrain = Terrain(rs.map, self.rules.movement)
        self.base_steps = int(self.rules.movement.base_steps)
        hexes = rs.map.hexes
        self.location = [h.location for h in hexes]
        self.faction = [h.faction for h in hexes]
        index = {h.name: i for i, h in enumerate(hexes) if h.name}
        self.start = index[scenario.start]
        self.sarcophagus = next(i for i, h in enumerate(hexes) if h.location == "sarcophagus")
        self.bunkers = [i for i, h in enumerate(hexes) if h.location == "bunker"]
        self.military = next((i for i, h in enumerate(hexes) if h.faction == "military"), None)
        self.duty = next((i for i, h in enumerate(hexes) if h.faction == "duty"), None)
        self.open_places = [i for i, h in enumerate(hexes) if h.location == "open"]
        self.secret_places = [i for i, h in enumerate(hexes)
                              if h.location in ("secret", "complex")]
        self._searches: dict = {}
        self._days: dict = {}
        self._nearest: dict = {}
        self.complexes = self._visiting_order(
            [index[n] for n in self.policy.route],
            [i for i, h in enumerate(hexes) if h.location == "complex"])
        self.items = list(rs.items.values())
        self.start_items = [scenario.items.count(c.name) for c in self.items]
        # The weapons carried, then those the policy buys and does not carry (P-13).
        bought = [rs.weapons[n] for n in dict.fromkeys(self.policy.shopping_gear)
                  if n in rs.weapons and n not in scenario.weapons]
        self.weapons = [rs.weapons[w] for w in scenario.weapons] + bought
        self.start_weapons = [j < len(scenario.weapons) for j in range(len(self.weapons))]
        self.armor = rs.armor[scenario.armor] if scenario.armor else None
        # The armours he may wear: the starting one, then those the policy buys (P-13).
        self.armors = [self.armor] + [rs.armor[n] for n in dict.fromkeys(self.policy.shopping_gear)
                                      if n in rs.armor and n != scenario.armor]
        combat = self.rules.combat
        self.close = {melee: CloseCombatRules(
            melee_enemy=melee, hands=combat.hands, long_range_divisor=combat.long_range_divisor,
            short_range_full=combat.short_range_close_combat == "full",
            melee_weapons_vs_ranged=combat.melee_weapons_vs_ranged) for melee in (False, True)}
        # Radiation-dealing enemies end no fight (P-39), so the campaign leaves them out
        # (docs/rules.md "Combat" 6).
        self.enemies = [c for c in rs.enemies.values() if c.wound_type != "radiation"]
        fightable = {c.name: i for i, c in enumerate(self.enemies)}
        self.sarcophagus_deck = [fightable[n] for n in rs.sarcophagus_deck() if n in fightable]
        self.anomalies = list(rs.anomalies.values())
        self.events = list(rs.events.values())
        # The Deformation deck (P-39), a card per copy; not drawn when no card does anything.
        cards = [card for card in rs.deformations.values() for _ in range(card.count)]
        self.deformations = cards if any(c.effect != "none" for c in cards) else []
        self.zone_cards = list(rs.zone.values())  # the Zone deck (P-30, P-47), by kind
        self._artifact_deck()
        self._artifact_slots(scenario, keepers)
        self.emissions = rs.emission_deck()
        self.loss_order = self._loss_order()
        self.gear = (self.items.index(rs.items[self.policy.shopping[0]])
                     if self.policy.shopping else None)

    # --- artefacts (P-07..P-12, P-34, P-35) ------------------------------------------------
    def _artifact_deck(self) -> None:
        """The artefact deck by type (P-35) and what a card of each type is worth (P-11)."""
        self.artifact_types: list[str] = []
        self.type_cards: dict[str, list] = {}
        for card in self.rs.artifacts.values():
            if card.type not in self.artifact_types:
                self.artifact_types.append(card.type)
            self.type_cards.setdefault(card.type, []).append(card)
        self.artifact_deck = [sum(c.count for c in self.type_cards[t])
                              for t in self.artifact_types]
        # P-11: a card whose name is not drawn is worth its type's mean price (whole rubles).
        self.artifact_value = [sum(c.price * c.count for c in self.type_cards[t]) // max(n, 1)
                               for t, n in zip(self.artifact_types, self.artifact_deck,
                                               strict=True)]

    def _artifact_slots(self, scenario: Scenario, keepers: frozenset[str] | None) -> None:
        """The character's artefact slots and the checks on them (docs/rules.md 1, 5, 7).

        Slots are the loadout's artefacts, then the kept names not already
        listed; the types holding a kept name are drawn card by card.
        """
        rs, keys = self.rs, self.rules.artifacts
        kept = self.policy.keep_artifacts
        self.slots = tuple(scenario.artifacts) + tuple(
            n for n in dict.fromkeys(kept) if n not in scenario.artifacts)
        self.slots += tuple(n for n in dict.fromkeys(self.policy.shopping_gear)
                            if n in rs.artifacts and n not in self.slots)  # bought (P-13)
        self.start_held = [i < len(scenario.artifacts) for i in range(len(self.slots))]
        if len(self.slots) > MAX_SLOTS:
            raise ArtifactInputError(f"{len(self.slots)} artefact slots (carried and kept "
                                     f"names); a character has at most {MAX_SLOTS}")
        if keys.carry_limit and len(scenario.artifacts) > keys.carry_limit:
            raise ArtifactInputError(f"{len(scenario.artifacts)} artefacts carried; "
                                     f"artifacts.carry_limit is {keys.carry_limit}")
        if bool(keys.movement_in_epicentre) != bool(self.rules.movement.items_in_epicentre):
            raise ArtifactInputError("artifacts.movement_in_epicentre must equal "
                                     "movement.items_in_epicentre: the campaign's route has "
                                     "one Epicentre rule (docs/rules.md, Artefacts in the "
                                     "campaign 5)")
        names = set(kept) if keepers is None else set(keepers)
        self.identified = {t for t, cards in self.type_cards.items()
                           if any(c.name in names for c in cards)}
        self.art_rules = artifact_rules(rs)
        self._specs: dict = {}
        self._fights: dict = {}

    def spec(self, slot: int, damage_type: str | None = None) -> ArtifactSpec:
        """Slot ``slot``'s artefact as an encounter uses it (resist: against ``damage_type``)."""
        key = (slot, damage_type)
        if key not in self._specs:
            self._specs[key] = compile_artifacts(self.rs, (self.slots[slot],),
                                                 self.hero.intellect, damage_type,
                                                 dict(self.policy.artifact_use))[0]
        return self._specs[key]

    def acting(self, held: list[bool], damage_type: str | None) -> tuple[ArtifactSpec, ...]:
        """The artefacts that act in one encounter: the first ``use_limit`` slots held."""
        slots = [s for s, h in enumerate(held) if h]
        limit = self.rules.artifacts.use_limit
        return tuple(self.spec(s, damage_type) for s in (slots[:limit] if limit else slots))

    def fight_base(self, enemy, weapons: tuple[bool, ...], held: tuple[bool, ...],
                   armor: Armor | None) -> CombatSpec:
        """A fight against card ``enemy`` with the weapons and artefact slots held and the
        armour worn (cached).

        Weapons as the hands allow (P-23, P-29); the artefacts that act
        (P-08..P-10): resist ones against the enemy's wound type, combat ones
        within the hands. The caller sets the day's tracks, tokens and heals.
        """
        key = (enemy.name, weapons, held, armor.name if armor is not None else None)
        if key in self._fights:
            return self._fights[key]
        rules, hero = self.rules, self.hero
        psi = enemy.wound_type == "psi"
        slots = tuple(WeaponSlot(w.name, w.bonus, w.hands, w.range, w.uses)
                      for w, kept in zip(self.weapons, weapons, strict=True) if kept)
        limited = tuple(i for i, w in enumerate(slots) if w.uses is not None)
        arts = self.acting(list(held), enemy.wound_type)
        loadout = LoadoutTable(slots, self.close[enemy.melee], limited,
                               tuple(slots[i].uses for i in limited), (), (),
                               combat_choices(arts))
        face, need = test_terms(enemy.vigilance, rules.dice.success_on, rules.dice.modifier)
        self._fights[key] = CombatSpec(
            health=hero.willpower if psi else hero.health, start_health=0,
            combat=hero.combat, stealth=hero.stealth, vigilance=need,
            endurance=enemy.endurance, wounds=enemy.wounds,
            resist=self.resistance(armor, enemy.wound_type) or 0,
            durability=armor.durability if armor is not None else 0, tokens=0,
            success_on=rules.dice.success_on, sneak=False,
            avoid_rule=AVOID_REPUTATION if rules.combat.avoid_rule == "reputation"
            else AVOID_STEALTH,
            escape_target=0, flee_at=self.policy.flee_at, heal_at=self.policy.heal_at,
            stimulants=(), loadout=loadout, max_rounds=rules.combat.max_rounds,
            stealth_on=face, artifacts=arts, art_rules=self.art_rules,
            track=TARGET_WILLPOWER if psi else TARGET_HEALTH,
            other_max=hero.health if psi else hero.willpower,
            traits=parse_traits(enemy.traits)[0])  # P-22
        return self._fights[key]

    # --- movement (Z-01..Z-03, Z-19..Z-26) ------------------------------------------------
    def search(self, start: int, allowance: int):
        """The reference Dijkstra from ``start`` (cached: the map never changes)."""
        key = (start, allowance)
        if key not in self._searches:
            self._searches[key] = self.terrain.search(start, allowance)
        return self._searches[key]

    def today(self, start: int, target: int, allowance: int) -> tuple[int, ...]:
        """Hexes entered today on the optimal route to ``target`` (re-planned each morning)."""
        key = (start, target, allowance)
        if key not in self._days:
            self._days[key] = self.terrain.first_day(self.search(start, allowance), target)
        return self._days[key]

    def rank(self, start: int, target: int) -> tuple[int, int, int]:
        """Nearness with the base allowance: (days, steps used on the last day, hex)."""
        if start == target:
            return 0, 0, target
        days, left = self.terrain.costs(self.search(start, self.base_steps), target)
        return (days if days >= 0 else 1 << 30), self.base_steps - left, target

    def nearest_bunker(self, h: int) -> int:
        """The nearest bunker (P-37): fewest days, most steps left, first in map.csv."""
        if h not in self._nearest:
            self._nearest[h] = min(self.bunkers, key=lambda b: self.rank(h, b))
        return self._nearest[h]

    def bunker_toward(self, goal: int) -> int:
        """The bunker nearest to ``goal`` by route from the bunker (P-38 "of his choice",
        ``policy.bunker_choice = "toward_objective"``): fewest days, most steps left, first
        in map.csv.
        """
        return min(self.bunkers, key=lambda b: self.rank(b, goal)[:2])

    def sheltered(self, h: int) -> bool:
        """An Emission does not reach hex ``h`` (P-48; bases under ``emission.bases_shelter``)."""
        kind = self.location[h]
        return kind in SHELTERS or (kind == "base" and bool(self.rules.emission.bases_shelter))

    def _visiting_order(self, listed: list[int], complexes: list[int]) -> list[int]:
        """Secret Complexes in visiting order (P-50): the policy's list, then nearest first."""
        order = list(listed)
        left = [h for h in complexes if h not in order]
        here = order[-1] if order else self.start
        while left:
            here = min(left, key=lambda h: self.rank(here, h))
            order.append(here)
            left.remove(here)
        return order

    def allowance(self, items: list[int], artifacts: int = 0) -> int:
        """Steps a day: base plus the best movement item held (Z-01, Z-02, Z-19).

        ``artifacts`` steps from movement artefacts add to the item's under
        ``artifacts.movement_stacks``, or replace it when larger (Z-20).
        """
        bonus = max((int(c.value) for c, n in zip(self.items, items, strict=True)
                     if n > 0 and c.effect == "movement"), default=0)
        if self.rules.artifacts.movement_stacks:
            return self.base_steps + bonus + artifacts
        return self.base_steps + max(bonus, artifacts)

    # --- belongings (P-37) ------------------------------------------------------------------
    def _loss_order(self) -> list[tuple[str, int]]:
        """Belongings a knock-out gives up first: cheapest by price (Gap "Item loss").

        Items (card order), then the scenario's weapons, then the armours he may
        wear (only the worn one is lost) on equal prices; artefacts go last
        (docs/rules.md "Life and death").
        Keeping what helps him (``policy.knockout_loss = "keep_useful"``, P-37),
        the stalker first gives up the cards of no effect here: the item cards
        ``none`` and ``location_movement`` (not simulated, docs/rules.md "Items"),
        then, on equal prices, the artefact slots his ``policy.artifact_use`` never
        uses (P-08); the other artefacts are given up in :meth:`Game.lose_half`.
        """
        inert = self.policy.knockout_loss == "keep_useful"
        never = ("none", "location_movement") + (
            ("helicopter",) if self.policy.helicopter_at == 0 else ())  # never called
        rows = [(not (inert and c.effect in never), c.price, "item", i)
                for i, c in enumerate(self.items)]
        rows += [(True, w.price, "weapon", j) for j, w in enumerate(self.weapons)]
        rows += [(True, a.price, "armor", k) for k, a in enumerate(self.armors) if a is not None]
        unused = {name for name, use in self.policy.artifact_use if use == 0}
        rows += [(False, self.rs.artifacts[name].price, "artifact", s)
                 for s, name in enumerate(self.slots) if inert and name in unused]
        return [(kind, i) for _, _, kind, i in sorted(rows, key=lambda r: (r[0], r[1]))]

    def sells(self, faction: str, item) -> bool:
        """Whether a base of ``faction`` sells ``item`` (Z-05, Z-11): its ``sold_at`` names the
        faction or is empty, or ``economy.shops = "every_base"``.
        """
        return (self.rules.economy.shops == "every_base" or not item.sold_at
                or faction in item.sold_at.split("-"))

    def resistance(self, armor: Armor | None, damage_type: str) -> int | None:
        """``armor``'s absorbing face against ``damage_type``, None if it does not roll.

        Wounds always roll (P-02); doses only under ``armor.absorbs_radiation``
        (P-01, P-03), disturbances only under ``armor.absorbs_psi``.
        """
        if armor is None:
            return None
        if damage_type == "radiation" and not self.rules.armor.absorbs_radiation:
            return None
        if damage_type == "psi" and not self.rules.armor.absorbs_psi:
            return None
        return armor.resistance(damage_type)


def deal(state, campaign: Campaign) -> None:
    """Give ``state`` the full decks, an empty board and an empty Emission Track (P-47)."""
    state.enemy_pool = [c.count for c in campaign.enemies]
    state.anomaly_pool = [c.count for c in campaign.anomalies]
    state.event_pool = [c.count for c in campaign.events]
    state.artifact_deck = list(campaign.artifact_deck)
    state.enemy_discard = [0] * len(campaign.enemies)
    state.board = {}
    state.tokens = 0
    state.next_emission = 0
    state.in_force = [0, 0, 0]
    state.deformation_order = None  # shuffled at the first Deformation card (P-39)
    state.deformation_next = 0
    state.zone_pool = [c.count for c in campaign.zone_cards]  # the Zone deck, full (P-30)


class Game:
    """One game of one stalker; :meth:`play` returns how and on which day it ended.

    Each rule is one method, so that a test can replace one rule by a wrong
    one and show that the kernel comparison notices (guard tests).

    Parameters
    ----------
    campaign : Campaign
        The scenario's shared, read-only part.
    dice, deck, env : random.Random
        Streams for dice (tests, armour, avoid rolls), deck draws, and board
        placements with Environment changes.
    """

    def __init__(self, campaign: Campaign, dice: random.Random, deck: random.Random,
                 env: random.Random, items: list[int] | None = None):
        self.c = campaign
        self.dice, self.deck, self.env = dice, deck, env
        hero = campaign.hero
        self.me = Stalker(pos=campaign.start, health=hero.health, willpower=hero.willpower,
                          rubles=campaign.scenario.rubles,
                          items=list(campaign.start_items if items is None else items),
                          weapons=list(campaign.start_weapons), armor=campaign.armor,
                          held=list(campaign.start_held))
        tokens = campaign.rules.tokens
        self.me.clues, self.me.zone_tokens = int(tokens.clues_start), int(tokens.zone_start)
        self.deal(campaign)

    def deal(self, campaign: Campaign) -> None:
        """Lay out what every stalker shares (:func:`deal`); a one-stalker game has its own."""
        deal(self, campaign)

    # --- dice and cards ---------------------------------------------------------------------
    def test(self, dice: int, modifier: int) -> bool:
        """A test of ``dice`` dice against a card's ``modifier`` (``dice.modifier``)."""
        rules = self.c.rules.dice
        face, need = test_terms(modifier, rules.success_on, rules.modifier)
        return need <= 0 or successes(self.dice, dice, face) >= need

    def draw(self, pool: list[int], suits: Callable[[int], bool] = lambda card: True) -> int:
        """One card uniformly among those left that suit (drawing "until a suitable card
        turns up", Gap); it leaves the pool. -1 when none is left.
        """
        cards = [c for c, n in enumerate(pool) if suits(c) for _ in range(n)]
        if not cards:
            return -1
        card = cards[int(self.deck.random() * len(cards))]
        pool[card] -= 1
        return card

    def draw_enemy(self, suits: Callable[[int], bool] = lambda card: True) -> int:
        """An enemy card that suits, or -1 (``campaign.killed_enemies``; P-19, Gap).

        Under ``reshuffle_when_empty`` a draw finding no suitable card puts the
        killed cards set aside back into the deck and draws again. -1: the
        location stays empty, the Zone phase lays no enemy.
        """
        e = self.draw(self.enemy_pool, suits)
        if e < 0 and self.c.rules.campaign.killed_enemies == "reshuffle_when_empty":
            if sum(self.enemy_discard) > 0:
                self.enemy_pool = [a + b for a, b in zip(self.enemy_pool, self.enemy_discard,
                                                          strict=True)]
                self.enemy_discard = [0] * len(self.enemy_discard)
                e = self.draw(self.enemy_pool, suits)
        return e

    def killed(self, e: int) -> None:
        """Where killed enemy card ``e`` goes (P-19; ``campaign.killed_enemies``)."""
        reading = self.c.rules.campaign.killed_enemies
        if reading == "at_once":
            self.enemy_pool[e] += 1
        elif reading == "reshuffle_when_empty":
            self.enemy_discard[e] += 1
        elif reading == "trophy_sold":
            self.me.trophy_cards[e] += 1

    def sell_trophies(self, stalker: bool, n: int) -> None:
        """``n`` trophies of stalkers (or of mutants and animals) sold: their cards go back.

        Under ``trophy_sold`` only, the first cards of enemies.csv first (P-26..P-28; Gap).
        """
        if self.c.rules.campaign.killed_enemies != "trophy_sold":
            return
        for e, enemy in enumerate(self.c.enemies):
            if (enemy.kind == "stalker") == stalker and n > 0:
                take = min(n, self.me.trophy_cards[e])
                self.me.trophy_cards[e] -= take
                self.enemy_pool[e] += take
                n -= take

    def best(self, effect: str) -> int:
        """The held item of ``effect`` that helps most (Z-02, Z-10, Z-17): -1 if none.

        The largest value wins, the Torsion scanner's ``auto`` above every
        number (Z-09); of equal ones, the first item card.
        """
        held = [i for i, (c, n) in enumerate(zip(self.c.items, self.me.items, strict=True))
                if n > 0 and c.effect == effect]
        if not held:
            return -1
        return max(held, key=lambda i: float("inf") if self.c.items[i].value == "auto"
                   else int(self.c.items[i].value or 0))

    def use(self, i: int) -> None:
        """One item card used up."""
        self.me.items[i] -= 1
        self.me.tally["items_used"] += 1

    # --- damage (P-02..P-06, P-08, P-09, P-37, P-39, P-40) ----------------------------------
    def suffer(self, harm: Harm) -> None:
        """Artefact side effects onto the tracks at once (P-09), and the artefact tallies."""
        me = self.me
        me.health -= harm.points[TARGET_HEALTH]
        me.willpower -= harm.points[TARGET_WILLPOWER]
        me.radiation += harm.points[TARGET_RADIATION]
        me.tally["artifacts_used"] += harm.uses
        me.tally["side_effects"] += harm.side_effects

    def activate(self, a: ArtifactSpec) -> bool:
        """One use of a held artefact (P-09, P-10); True when it works."""
        harm = Harm()
        works = use(a, self.c.art_rules.fail_rule, self.dice, harm)
        self.suffer(harm)
        return works

    def hurt(self, points: int, damage_type: str, resist: int | None) -> None:
        """One damage onto its track: Health (wounds), radiation (doses), Willpower (psi).

        Resist artefacts of its type and the armour (``resist``: its face, None
        when it does not roll) absorb in ``artifacts.resist_order`` (P-02..P-06,
        P-08); their side effects follow at once.
        """
        me, c = self.me, self.c
        harm = Harm()
        durability = me.armor.durability if me.armor is not None else 0
        arts = [a for a in c.acting(me.held, damage_type)  # policy.artifact_use (P-08)
                if me.health <= a.use_at]
        through, me.tokens = absorb(arts, c.art_rules.fail_rule,
                                    c.art_rules.resist_order, max(points, 0), resist or 0,
                                    durability, me.tokens, self.dice, harm)
        if damage_type == "radiation":
            me.radiation += through
        elif damage_type == "psi":
            me.willpower -= through
        else:
            me.health -= through
        self.suffer(harm)

    def pay_heal(self) -> None:
        """At a bunker, heal wounds and disturbances while money lasts (P-37, P-40)."""
        if not self.c.policy.pay_heal:
            return
        price = int(self.c.rules.economy.heal_price_per_wound)
        me, hero = self.me, self.c.hero
        for track, top in (("health", hero.health), ("willpower", hero.willpower)):
            heal = min(top - getattr(me, track), me.rubles // max(price, 1))
            if heal > 0:
                setattr(me, track, getattr(me, track) + heal)
                self.spend(heal * price)

    def recover(self) -> None:
        """Placed in a bunker, the exhausted track back to ``death.regain`` (P-37, P-38).

        The nearest bunker (P-37); lost in a Secret Location (P-38, P-41: "any bunker of
        his choice"), under ``policy.bunker_choice = "toward_objective"`` the one nearest
        to his current objective.
        """
        me, c = self.me, self.c
        if (c.policy.bunker_choice == "toward_objective"
                and c.location[me.pos] in ("secret", "complex")):
            me.pos = c.bunker_toward(self.goal())
        else:
            me.pos = c.nearest_bunker(me.pos)
        regain = int(self.c.rules.death.regain)
        if me.health <= 0:
            me.health = regain
        if me.willpower <= 0:
            me.willpower = regain
        self.pay_heal()

    def lose_half(self) -> None:
        """Half of all belongings lost, rounded in his favour, cheapest first (P-37).

        Items, weapons and armour by price (after the cards of no effect, never-used
        artefacts among them: :meth:`Campaign._loss_order`); then held artefacts,
        cheapest first; then artefacts waiting to be sold (docs/rules.md "Artefacts in
        the campaign" 8).
        """
        me, c = self.me, self.c
        armor = me.armor is not None and me.tokens < me.armor.durability
        lose = (sum(me.items) + sum(me.weapons) + armor + sum(me.held) + me.artifacts) // 2
        for kind, i in c.loss_order:
            if lose == 0:
                break
            if kind == "item":
                take = min(me.items[i], lose)
                me.items[i] -= take
                lose -= take
            elif kind == "weapon" and me.weapons[i]:
                me.weapons[i] = False
                lose -= 1
            elif kind == "armor" and armor and c.armors[i] is me.armor:
                me.tokens = me.armor.durability  # gone, as if destroyed (P-05)
                lose -= 1
            elif kind == "artifact" and me.held[i]:
                me.held[i] = False
                lose -= 1
        held = [s for s, h in enumerate(me.held) if h]
        for s in sorted(held, key=lambda s: c.rs.artifacts[c.slots[s]].price)[:lose]:
            me.held[s] = False
            lose -= 1
        if lose > 0 and me.artifacts > 0:
            me.artifact_value -= me.artifact_value * lose // me.artifacts
            me.artifacts -= lose

    def conditions(self) -> None:
        """Deformation, knock-out, concussion and death after damage (P-37..P-43, P-47)."""
        me, rules = self.me, self.c.rules
        if me.lost > 0:
            return  # out of play on the Emission Track (P-38, P-41)
        if me.radiation > self.radiation_limit():
            me.deformations += 1
            me.tally["deformations"] += 1
            lost = me.clues // 2  # P-39: half, rounded in his favour
            me.clues -= lost
            me.tally["clues_lost"] += lost
            me.radiation = 0
            self.tokens += int(rules.emission.tokens_per_deformation)
            if me.deformations >= rules.death.deformation_limit:
                me.end = "fifth_deformation"
                return
            self.deformation_card()
        knocked, concussed = me.health <= 0, me.willpower <= 0
        if not (knocked or concussed):
            return
        if knocked and concussed:
            me.end = "knockout_and_concussion"
            return
        if self.c.location[me.pos] == "sarcophagus":
            me.end = "knocked_out_in_sarcophagus" if knocked else "concussion_in_sarcophagus"
            return
        if knocked:
            me.tally["knockouts"] += 1
            self.tokens += int(rules.emission.tokens_per_knockout)
            self.lose_half()
        else:
            me.tally["concussions"] += 1
            self.tokens += int(rules.emission.tokens_per_concussion)
            lost = me.zone_tokens // 2  # P-40: half, rounded in his favour
            me.zone_tokens -= lost
            me.tally["zone_lost"] += lost
        me.stop = True
        me.knocked_down = int(rules.death.knocked_down_days)
        if self.c.location[me.pos] in ("secret", "complex") and int(rules.death.lost_days) > 0:
            me.lost = int(rules.death.lost_days)  # P-38, P-41: lost before the bunker
        else:
            self.recover()  # lost_days = 0: placed in the bunker at once

    def radiation_limit(self) -> int:
        """His radiation limit: the card's less what his Deformation cards took (P-39)."""
        return max(self.c.hero.radiation_max - self.me.radiation_down, 0)

    def deformation_card(self) -> None:
        """The next card of the shared Deformation deck, and its effect (P-39; Gap).

        The deck is shuffled at its first draw of the game and cycles: after
        its last card its first comes again.
        """
        cards, me = self.c.deformations, self.me
        if not cards:
            return
        if self.deformation_order is None:
            order = list(range(len(cards)))
            self.deck.shuffle(order)
            self.deformation_order = order
        card = cards[self.deformation_order[self.deformation_next]]
        self.deformation_next = (self.deformation_next + 1) % len(cards)
        if card.effect == "radiation_limit":
            me.radiation_down += card.value
        elif card.effect == "wounds":
            me.health -= card.value
        elif card.effect == "disturbances":
            me.willpower -= card.value
        elif card.effect == "knocked_down":
            me.stop = True
            me.knocked_down += card.value
        elif card.effect == "emission_tokens":
            self.tokens += card.value

    def gain_tokens(self, complexes: int, anomalies: int) -> None:
        """Tokens gained at the end of his turn (Gap "Tokens"): per complex, per anomaly."""
        tokens = self.c.rules.tokens
        self.me.clues += int(tokens.clues_per_complex) * complexes
        self.me.zone_tokens += int(tokens.zone_per_anomaly) * anomalies

    def spend_tokens(self) -> None:
        """Clue tokens, then Zone tokens, each healing one point of its track while it helps."""
        me, hero, tokens = self.me, self.c.hero, self.c.rules.tokens
        for held, spent_on in (("clues", tokens.clue_use), ("zone_tokens", tokens.zone_use)):
            while getattr(me, held) > 0:
                if spent_on == "health" and me.health < hero.health:
                    me.health += 1
                elif spent_on == "willpower" and me.willpower < hero.willpower:
                    me.willpower += 1
                elif spent_on == "radiation" and me.radiation > 0:
                    me.radiation -= 1
                else:
                    break
                setattr(me, held, getattr(me, held) - 1)

    # --- fights (P-14..P-29, Z-12..Z-17) ----------------------------------------------------
    def heals_in_combat(self, i: int) -> bool:
        """Stimulants heal in fights (Z-12); medkits too under ``combat.medkits_in_combat``."""
        effect = self.c.items[i].effect
        return effect == "stimulant" or (effect == "medkit"
                                         and bool(self.c.rules.combat.medkits_in_combat))

    def combat_spec(self, enemy, sneak: bool, escape: int, doses: list[int]) -> CombatSpec:
        """Today's fight against card ``enemy`` as the reference fight reads it.

        The card's fight with the weapons and artefacts held
        (:meth:`Campaign.fight_base`), and today's tracks, armour tokens,
        heals in ``doses`` (item indices, one card a dose) and the escape
        item's rating (Z-15, Z-16). Psi enemies fight on Willpower, the other
        track being Health (P-40).
        """
        me, c = self.me, self.c
        psi = enemy.wound_type == "psi"
        rating = int(c.items[escape].value) if escape >= 0 else 0
        return replace(
            c.fight_base(enemy, tuple(me.weapons), tuple(me.held), me.armor),
            start_health=me.willpower if psi else me.health, tokens=me.tokens, sneak=sneak,
            escape_target=c.hero.reputation - rating,
            stimulants=tuple(int(c.items[i].value) for i in doses),
            other=me.health if psi else me.willpower)

    def fight(self, e: int, sneak: bool) -> str:
        """Fight enemy card ``e`` with today's tracks, armour, weapons, heals and artefacts.

        The reference fight (:func:`sim.reference.combat.fight`): P-16 or
        Z-15..Z-17 to avoid it, then rounds (P-18..P-20) with heal and calm
        artefacts and heals at ``heal_at`` or less (Z-12..Z-14; no heals
        against psi), a flight from round 2 at ``flee_at`` or less (P-21),
        otherwise the Combat test with the best weapons and combat artefacts
        (P-19, P-23, P-29); a round not won costs the enemy's wounds through
        resist artefacts and the armour (P-02, P-08). Side effects hit at once;
        their radiation is added after the fight (P-09, P-39). Returns the outcome.
        """
        me, c = self.me, self.c
        enemy, rules = c.enemies[e], c.rules
        psi = enemy.wound_type == "psi"
        doses = [] if psi else [i for i, n in enumerate(me.items) if self.heals_in_combat(i)
                                for _ in range(n)]
        escape = self.best("escape")
        if (escape >= 0 and sneak and rules.combat.avoid_rule == "reputation"
                and rules.escape.items_consumed
                and not parse_traits(enemy.traits)[0].ambush):  # no avoid roll (P-22)
            self.use(escape)  # Z-15: used on the avoid roll, whatever it shows
        result = fight_spec(self.combat_spec(enemy, sneak, escape, doses), self.dice)
        for i in doses[:result.stimulants]:
            self.use(i)
        me.tokens = result.tokens
        if psi:
            me.willpower, me.health = result.health, result.other
        else:
            me.health, me.willpower = result.health, result.other
        me.radiation += result.radiation
        me.tally["artifacts_used"] += result.artifact_uses
        me.tally["side_effects"] += result.side_effects
        outcome = result.outcome
        if outcome != "avoided":
            me.tally["fights"] += 1
        if outcome == "killed":
            me.tally["kills"] += 1
            me.tally["trophies_found"] += 1  # its card, a trophy (P-19)
            if enemy.kind == "stalker":
                me.trophies_stalker += 1
            else:
                me.trophies_mutant += 1
        return outcome

    # --- anomalies (P-30..P-36, P-07) and events (Z-08..Z-10) -------------------------------
    def anomaly(self, a: int) -> bool:
        """Meet anomaly card ``a``; True when it is kept as a trophy (P-34).

        Perception test to go around it (P-31) unless entering on purpose
        (P-36, a bonus die after a pass); one Agility test (P-32, P-33); its
        damage through the armour; survivors keep the card and may find an
        artefact: the find test (P-07), then cards drawn until the anomaly's
        type turns up, the others going back (P-35; Gap).
        """
        me, c = self.me, self.c
        card, hero, rules = c.anomalies[a], c.hero, c.rules
        seen = self.test(hero.perception, card.perception)
        if seen and not c.policy.enter_anomalies:
            return False
        me.tally["anomalies_entered"] += 1
        bonus = rules.anomaly.voluntary_bonus_dice if seen else 0
        if not self.test(hero.agility + bonus, card.agility):
            self.hurt(card.damage, card.damage_type, c.resistance(me.armor, card.damage_type))
            if me.health <= 0 or me.willpower <= 0:
                return False
        if card.artifact_type in c.artifact_types:
            find = rules.anomaly.find_need if card.find is None else card.find
            if self.test(getattr(hero, rules.anomaly.find_attribute), find):
                want = c.artifact_types.index(card.artifact_type)
                deck = list(self.artifact_deck)
                while sum(deck) > 0:
                    if self.draw(deck) == want:
                        self.artifact_deck[want] -= 1
                        me.tally["artifacts_found"] += 1
                        self.gain(want)
                        break
        me.tally["anomaly_trophies"] += 1
        me.tally["trophies_found"] += 1
        me.trophies_anomaly += 1
        return True

    def gain(self, t: int, card=None) -> None:
        """An artefact of type ``t`` found or exchanged: kept, or waiting to be sold.

        Its card is ``card``, or drawn among the type's cards in proportion to
        their printed counts when the type holds a name some stalker keeps
        (P-35; DECK stream); otherwise it stays unnamed, worth its type's mean
        price (P-11). A named card is kept in the first slot of its name when
        no card of that name is held and ``artifacts.carry_limit`` allows
        (docs/rules.md "Artefacts in the campaign" 1, 7).
        """
        me, c = self.me, self.c
        kind = c.artifact_types[t]
        if card is None and kind in c.identified:
            cards = c.type_cards[kind]
            pick = int(self.deck.random() * sum(x.count for x in cards))
            card = next(x for x in cards if (pick := pick - x.count) < 0)
        if card is None:
            me.artifacts += 1
            me.artifact_value += c.artifact_value[t]
            me.waiting_types[t] += 1
            return
        limit = c.rules.artifacts.carry_limit
        named = [s for s, name in enumerate(c.slots) if name == card.name]
        if (named and not any(me.held[s] for s in named)
                and (limit == 0 or sum(me.held) < limit)):
            me.held[named[0]] = True
            return
        me.artifacts += 1
        me.artifact_value += card.price
        me.waiting_types[t] += 1

    def exchange(self) -> None:
        """Anomaly trophies for artefacts at the Ecologists' Bunker (P-07, P-34).

        Every ``artifacts.exchange_trophies`` trophies buy one card while the
        deck has any: a type drawn in proportion to its cards left (``random``,
        then :meth:`gain` names it), or the cheapest or dearest card whose
        type has cards left (first in artifacts.csv on equal prices).
        """
        me, c = self.me, self.c
        keys = c.rules.artifacts
        while me.trophies_anomaly >= keys.exchange_trophies and sum(self.artifact_deck) > 0:
            me.trophies_anomaly -= keys.exchange_trophies
            me.tally["exchanges"] += 1
            if keys.exchange_draw == "random":
                self.gain(self.draw(self.artifact_deck))
                continue
            left = [x for x in c.rs.artifacts.values()
                    if self.artifact_deck[c.artifact_types.index(x.type)] > 0]
            pick = min if keys.exchange_draw == "cheapest" else max
            card = pick(left, key=lambda x: x.price)
            t = c.artifact_types.index(card.type)
            self.artifact_deck[t] -= 1
            self.gain(t, card)

    def event(self, v: int) -> str | None:
        """Event card ``v``: the avoid roll with the best event item (Z-09, Z-10), its effect.

        Returns the encounter the card brings, ``"enemy"`` (P-16) or ``"anomaly"``
        (P-30), for :meth:`enter` to draw; None when it brings none or is avoided.
        """
        me, c = self.me, self.c
        card = c.events[v]
        me.tally["events"] += 1
        if card.avoid_on is not None:
            best = self.best("event_avoid")
            if best >= 0 and c.rules.events.items_consumed:
                self.use(best)
            item = c.items[best] if best >= 0 else None
            if item is not None and item.value == "auto":
                return None  # the Torsion scanner avoids without a roll (Z-09)
            if d6(self.dice) >= card.avoid_on - (int(item.value) if item is not None else 0):
                return None
        if card.effect in ("wounds", "radiation", "psi"):
            damage_type = card.effect
            if card.effect == "wounds":
                damage_type = card.damage_type or "physical"
            self.hurt(card.value, damage_type, c.resistance(me.armor, damage_type))
        elif card.effect == "lost_day":
            me.stop = True
            me.knocked_down += card.value
        elif card.effect == "emission_tokens":
            self.tokens += card.value
        elif card.effect in ("enemy", "anomaly"):
            return card.effect
        return None

    def enter(self, h: int) -> None:
        """Resolve the card lying on location ``h``, or draw one (docs/rules.md "Campaign" 3)."""
        c, sneak = self.c, self.c.policy.sneak == "always"
        if h in self.board:
            what, card = self.board[h]
            if what == "enemy":
                if self.fight(card, sneak) == "killed":
                    del self.board[h]  # otherwise it stays (P-16)
                    self.killed(card)
            else:
                self.met_anomaly(card)
                del self.board[h]
            return
        kind = c.location[h]
        rules = c.rules.campaign
        draw = rules.open_location_draw if kind == "open" else rules.secret_location_draw
        if draw == "event":  # an event card, which may bring an enemy or an anomaly
            v = self.draw(self.event_pool)
            if v < 0:  # the deck ran out: reshuffle it
                self.event_pool = [e.count for e in c.events]
                v = self.draw(self.event_pool)
            draw = self.event(v) if v >= 0 else None
        if draw == "enemy":
            want = "open" if kind == "open" else "secret"
            e = self.draw_enemy(lambda i: c.enemies[i].habitat in (want, "any"))
            if e >= 0:
                if self.fight(e, sneak) == "killed":
                    self.killed(e)
                else:
                    self.enemy_pool[e] += 1  # back into the pool (P-16)
        elif draw == "anomaly":
            a = self.draw(self.anomaly_pool)
            if a >= 0:
                self.met_anomaly(a)

    def met_anomaly(self, a: int) -> None:
        """Meet anomaly card ``a``: back into the pool, or kept as a trophy (P-31, P-34).

        A trophy's card returns when exchanged under ``campaign.anomaly_trophies``.
        """
        if not self.anomaly(a):
            self.anomaly_pool[a] += 1
        elif self.c.rules.campaign.anomaly_trophies == "when_exchanged":
            self.me.anomaly_cards[a] += 1

    def hand_in(self, n: int) -> None:
        """``n`` anomaly trophies exchanged: their cards go back, first of anomalies.csv first."""
        if self.c.rules.campaign.anomaly_trophies != "when_exchanged":
            return
        for a in range(len(self.anomaly_pool)):
            take = min(n, self.me.anomaly_cards[a])
            self.me.anomaly_cards[a] -= take
            self.anomaly_pool[a] += take
            n -= take

    def sell_artifacts(self) -> None:
        """The artefacts waiting to be sold are sold (P-11): their cards go back, or not.

        Cards beyond the count were lost on knock-outs (P-37), the first types
        taken as the lost ones; under ``campaign.sold_artifacts = "returned"``
        the others go back into the artefact deck.
        """
        me = self.me
        lost = sum(me.waiting_types.values()) - me.artifacts
        for t in sorted(me.waiting_types):
            drop = min(me.waiting_types[t], max(lost, 0))
            lost -= drop
            if self.c.rules.campaign.sold_artifacts == "returned":
                self.artifact_deck[t] += me.waiting_types[t] - drop
        me.waiting_types.clear()

    # --- bases and healing items ------------------------------------------------------------
    def trade(self, faction: str) -> None:
        """At a faction base: exchange, sell trophies and artefacts, then shop (P-11, P-26..P-28).

        The Ecologists first exchange anomaly trophies (:meth:`exchange`, P-34).
        Duty buys mutant and animal trophies in lots (P-26, P-28), Freedom
        gives one Gear (the first item of the shopping list) per lot of
        stalker trophies (P-27), each only at its own base; artefacts sell at
        any base for the value // ``economy.artifact_sell_divisor`` (P-11).
        """
        me, c = self.me, self.c
        me.tally["trades"] += 1
        if faction == "ecologists" and c.policy.exchange:
            trophies = me.trophies_anomaly
            self.exchange()
            self.hand_in(trophies - me.trophies_anomaly)
        economy = c.rules.economy
        if faction == "duty":
            lots = me.trophies_mutant // economy.mutant_trophy_lot
            self.earn(lots * economy.mutant_trophy_price, "trophy_rubles")
            me.trophies_mutant -= lots * economy.mutant_trophy_lot
            me.tally["trophies_sold"] += lots * economy.mutant_trophy_lot
            self.sell_trophies(False, lots * economy.mutant_trophy_lot)
        if faction == "freedom" and c.gear is not None:
            while me.trophies_stalker >= economy.stalker_trophy_lot:
                me.trophies_stalker -= economy.stalker_trophy_lot
                me.tally["trophies_sold"] += economy.stalker_trophy_lot
                me.items[c.gear] += 1
                self.sell_trophies(True, economy.stalker_trophy_lot)
        self.earn(me.artifact_value // economy.artifact_sell_divisor, "artifact_rubles")
        me.tally["artifacts_sold"] += me.artifacts
        self.sell_artifacts()
        me.artifact_value = me.artifacts = 0
        for name in c.policy.shopping:
            i = c.items.index(c.rs.items[name])
            if c.sells(faction, c.items[i]) and me.rubles >= c.items[i].price:
                self.spend(c.items[i].price)
                me.items[i] += 1
        self.buy_gear(faction)

    def buy_gear(self, faction: str) -> None:
        """Buy the weapons, artefacts and armours of ``policy.shopping_gear``, after the items
        (P-13).

        Only at the bases of ``economy.gear_shops`` (``every_base`` or one faction);
        in the list's order, each card at its price while money lasts and while
        he does not hold it. An artefact fills its slot within
        ``artifacts.carry_limit``; under ``economy.bought_artifacts = "from_deck"``
        a card of its type must be left in the artefact deck, and it is taken (P-35).
        The listed armours are wishes, best first: at each, unless an earlier one is
        worn or was bought now, :meth:`buy_armor`.
        """
        me, c = self.me, self.c
        economy = c.rules.economy
        if economy.gear_shops not in ("every_base", faction):
            return
        limit = c.rules.artifacts.carry_limit
        settled = False
        for name in dict.fromkeys(c.policy.shopping_gear):
            if name in c.rs.armor:
                settled = settled or self.buy_armor(c.rs.armor[name])
                continue
            if name in c.rs.weapons:
                j = next(j for j, w in enumerate(c.weapons) if w.name == name)
                if not me.weapons[j] and me.rubles >= c.weapons[j].price:
                    self.spend(c.weapons[j].price)
                    me.weapons[j] = True
                continue
            card, s = c.rs.artifacts[name], c.slots.index(name)
            t = c.artifact_types.index(card.type)
            from_deck = economy.bought_artifacts == "from_deck"
            if (me.held[s] or me.rubles < card.price or (limit and sum(me.held) >= limit)
                    or (from_deck and self.artifact_deck[t] <= 0)):
                continue
            if from_deck:
                self.artifact_deck[t] -= 1
            self.spend(card.price)
            me.held[s] = True

    def buy_armor(self, armor: Armor) -> bool:
        """A listed armour: True when he wears it whole already, or buys and wears it (P-13).

        He buys it when money pays for it; it has no token (P-04). The old one, unless
        destroyed (P-05), is discarded, or sold for its price //
        ``economy.armor_trade_in_divisor`` when that is above 0, towards the new one.
        """
        me = self.me
        divisor = int(self.c.rules.economy.armor_trade_in_divisor)
        wearing = me.armor is not None and me.tokens < me.armor.durability
        if wearing and armor.name == me.armor.name:
            return True
        back = me.armor.price // divisor if wearing and divisor > 0 else 0
        if me.rubles + back < armor.price:
            return False
        self.spend(armor.price - back)
        me.armor, me.tokens = armor, 0
        return True

    def earn(self, rubles: int, sale: str) -> None:
        """``rubles`` from a sale, counted in ``sale``: ``trophy_rubles`` (P-26, P-28) or
        ``artifact_rubles`` (P-11).
        """
        self.me.rubles += rubles
        self.me.tally[sale] += rubles

    def spend(self, rubles: int) -> None:
        """``rubles`` paid for items, gear, armour (less the old one's trade-in; P-13) or
        healing (P-37, P-40).
        """
        self.me.rubles -= rubles
        self.me.tally["rubles_spent"] += rubles

    def use_medkits(self) -> None:
        """Outside combat, the best medkit while Health <= ``medkit_at`` (Z-11..Z-14); then
        the best stimulant while Health <= ``stimulant_at`` > 0 (Z-12: also outside combat).
        """
        me, top, policy = self.me, self.c.hero.health, self.c.policy
        for effect, at in (("medkit", policy.medkit_at), ("stimulant", policy.stimulant_at)):
            if effect == "stimulant" and at <= 0:
                return
            while me.health <= at and me.health < top:
                best = self.best(effect)
                if best < 0:
                    break
                self.use(best)
                me.health = min(top, me.health + int(self.c.items[best].value))

    # --- the day ----------------------------------------------------------------------------
    def retreats(self) -> bool:
        """Walk to the nearest bunker: Health <= ``retreat_at`` and he can pay to heal.

        Never when bunkers heal only after a knock-out (``economy.paid_healing =
        "after_knockout"``, P-37): a walk there would buy nothing.
        """
        me, policy, economy = self.me, self.c.policy, self.c.rules.economy
        return (economy.paid_healing == "bunker" and policy.retreat_at > 0
                and me.health <= policy.retreat_at and policy.pay_heal
                and me.rubles >= economy.heal_price_per_wound)

    def sells_trophies(self) -> bool:
        """Walk to the Duty base to sell mutant trophies (P-26, P-28; ``sell_trophies_at``).

        When he holds at least ``policy.sell_trophies_at`` > 0 of them and at least a lot
        (``economy.mutant_trophy_lot``), and is not there already.
        """
        me, c = self.me, self.c
        at = c.policy.sell_trophies_at
        return (at > 0 and c.duty is not None and me.pos != c.duty
                and me.trophies_mutant >= max(at, c.rules.economy.mutant_trophy_lot, 1))

    def goal(self) -> int:
        """His objective's hex: the next Secret Complex, then the Sarcophagus (P-50)."""
        me, c = self.me, self.c
        return c.complexes[me.objective] if me.objective < len(c.complexes) else c.sarcophagus

    def helicopter(self) -> bool:
        """At the start of his turn, the Helicopter call (Z-04, Z-05); True when he flies.

        At Health <= ``policy.helicopter_at`` > 0, holding a card of effect
        ``helicopter``, and not at the Military base already: the card is used up (it goes
        back to the deck, so the Military base sells it again), he is flown to the Military
        base, which is his day's movement (assumption), and trades there.
        """
        me, c = self.me, self.c
        if (c.policy.helicopter_at <= 0 or me.health > c.policy.helicopter_at
                or c.military is None or me.pos == c.military):
            return False
        call = self.best("helicopter")
        if call < 0:
            return False
        self.use(call)
        me.pos = c.military
        self.trade("military")
        return True

    def movement_artifacts(self) -> int:
        """Steps the held movement artefacts add today, each used once (Z-20, P-09, P-10).

        Under ``policy.use_movement_artifacts``. The conditions follow at
        once, as after any damage (P-37..P-43); a knock-out keeps him where
        he is today.
        """
        me, c = self.me, self.c
        if not c.policy.use_movement_artifacts:
            return 0
        steps = 0
        health = me.health  # the use policy's choice, made before any of them (P-08)
        for s, held in enumerate(me.held):
            if held and c.rs.artifacts[c.slots[s]].effect == "movement" \
                    and health <= c.spec(s).use_at and self.activate(c.spec(s)):
                steps += c.spec(s).value
        self.conditions()
        return steps

    def daily_artifacts(self) -> None:
        """Heal, calm and purge artefacts once a day, after his move (P-08; Gap).

        Each group in :data:`RESTORES` order, slots in order; each held
        artefact up to ``artifacts.restore_uses`` uses while its track needs it
        (Health <= ``medkit_at``, Willpower <= ``calm_at``, doses >=
        ``purge_at`` > 0); then the conditions, once (docs/rules.md "Artefacts
        in the campaign" 4).
        """
        me, c = self.me, self.c
        hero, policy = c.hero, c.policy
        wanted = {"heal": lambda: me.health <= policy.medkit_at and me.health < hero.health,
                  "calm": lambda: me.willpower <= policy.calm_at and me.willpower < hero.willpower,
                  "purge": lambda: 0 < policy.purge_at <= me.radiation}
        for effect in RESTORES:
            for s, held in enumerate(me.held):
                if not held or c.rs.artifacts[c.slots[s]].effect != effect:
                    continue
                for _ in range(c.rules.artifacts.restore_uses):
                    if not wanted[effect]() or me.health > c.spec(s).use_at:
                        break
                    if self.activate(c.spec(s)):
                        self.restore(effect, c.spec(s).value)
        self.conditions()

    def restore(self, effect: str, value: int) -> None:
        """What a working heal, calm or purge artefact does (P-08), within the maximum (Z-14)."""
        me, hero = self.me, self.c.hero
        if effect == "heal":
            me.health = min(hero.health, me.health + value)
        elif effect == "calm":
            me.willpower = min(hero.willpower, me.willpower + value)
        else:
            me.radiation = max(0, me.radiation - value)

    def move(self) -> None:
        """Follow today's part of the optimal route toward the objective (Z-19..Z-26, P-50)."""
        me, c = self.me, self.c
        steps = self.movement_artifacts()
        if me.end or me.stop:
            return
        bunker = self.retreats()
        selling = not bunker and self.sells_trophies()
        if bunker:
            goal = c.nearest_bunker(me.pos)
        elif selling:
            goal = c.duty  # he sells there on arrival (trade)
        elif me.objective < len(c.complexes):
            goal = c.complexes[me.objective]
        else:
            goal = c.sarcophagus
        downs = me.tally["knockouts"] + me.tally["concussions"]
        for h in c.today(me.pos, goal, c.allowance(me.items, steps)):
            me.pos = h
            kind = c.location[h]
            if kind == "base":
                self.trade(c.faction[h])
            elif kind in ENCOUNTERS:
                self.enter(h)
                self.conditions()
                if me.end:
                    return
                self.use_medkits()
            if h == goal and not bunker and not selling and goal == c.sarcophagus:
                # P-50: what waits in the Sarcophagus, in order; a knock-out there is
                # death (P-43).
                for e in c.sarcophagus_deck:
                    self.fight(e, c.policy.sneak == "always")
                    self.conditions()
                    if me.end:
                        return
                me.end = "reached"
                return
            if me.stop or h == goal:
                break
        if me.pos == goal:
            if bunker:
                self.pay_heal()
            elif (goal != c.sarcophagus and not selling and me.lost == 0
                  and me.tally["knockouts"] + me.tally["concussions"] == downs):
                me.objective += 1  # the Secret Complex is explored (P-50; assumption)
                me.tally["complexes_explored"] += 1

    def zone(self) -> None:
        """Zone phase (P-30, P-47): new enemy and anomaly cards on the board, the Environment.

        ``zone.cards = "per_day"``: the per-day numbers of cards and the chance
        of an Environment change; ``"deck"``: ``zone.cards_per_phase`` Zone cards
        (:meth:`zone_card`), each laying its enemies, then its anomalies, then
        changing the Environment if it says so and adding its Emission tokens.
        """
        zone, emission = self.c.rules.zone, self.c.rules.emission
        if zone.cards == "per_day":
            self.lay_cards(zone.enemies_per_day, zone.anomalies_per_day)
            if self.env.random() < zone.environment_change_chance:
                self.tokens += emission.tokens_per_environment
            return
        for _ in range(zone.cards_per_phase):
            card = self.zone_card()
            if card is None:
                return
            self.lay_cards(card.enemies, card.anomalies)
            if card.environment:
                self.tokens += emission.tokens_per_environment
            self.tokens += card.emission_tokens

    def zone_card(self):
        """The next card of the shared Zone deck (P-30, P-47), or None when it holds none.

        Drawn without replacement; when the deck runs out every card is
        shuffled back in (Gap). The draw uses the environment stream.
        """
        cards = [k for k, n in enumerate(self.zone_pool) for _ in range(n)]
        if not cards:
            self.zone_pool = [c.count for c in self.c.zone_cards]
            cards = [k for k, n in enumerate(self.zone_pool) for _ in range(n)]
            if not cards:
                return None
        k = cards[int(self.env.random() * len(cards))]
        self.zone_pool[k] -= 1
        return self.c.zone_cards[k]

    def lay_cards(self, enemies: int, anomalies: int) -> None:
        """Draw and lay ``enemies`` enemy cards, then ``anomalies`` anomaly cards (P-47).

        A draw finding no card left ends that kind's laying (``campaign.killed_enemies``).
        """
        c = self.c
        places = {"open": c.open_places, "secret": c.secret_places,
                  "any": c.open_places + c.secret_places}
        for _ in range(enemies):
            e = self.draw_enemy()
            if e < 0:
                break
            self.lay("enemy", e, places[c.enemies[e].habitat], c.rules.zone.enemy_limit,
                     self.enemy_pool)
        for _ in range(anomalies):
            a = self.draw(self.anomaly_pool)
            if a < 0:
                break
            self.lay("anomaly", a, places["any"], c.rules.zone.anomaly_limit, self.anomaly_pool)

    def lay(self, what: str, card: int, places: list[int], limit: int, pool: list[int]) -> None:
        """Lay a card on a random location of its habitat (P-47).

        Past the board limit it goes back and adds ``emission.tokens_per_limit``
        tokens; a card whose location is taken goes back.
        """
        if sum(1 for w, _ in self.board.values() if w == what) >= limit:
            pool[card] += 1
            self.tokens += self.c.rules.emission.tokens_per_limit
            return
        if not places:
            pool[card] += 1
            return
        h = places[int(self.env.random() * len(places))]
        if h in self.board:
            pool[card] += 1
        else:
            self.board[h] = (what, card)

    def emission(self) -> None:
        """Emission check (P-48, P-49): the next card hits a stalker in the Open Space."""
        me, c = self.me, self.c
        if self.tokens < c.rules.emission.threshold:
            return
        self.tokens = 0
        card = c.emissions[min(self.next_emission, len(c.emissions) - 1)]
        self.next_emission += 1
        me.tally["emissions"] += 1
        if card.final:
            me.end = "final_emission"
            return
        own = [card.wounds, card.radiation, card.psi]
        self.in_force = [a + b for a, b in zip(self.in_force, own, strict=True)]
        if c.sheltered(me.pos) or me.lost > 0:
            return
        me.tally["emissions_suffered"] += 1
        self.emission_damage(card, self.in_force if c.rules.emission.accumulate == "persist"
                             else own)

    def emission_damage(self, card, damage: list[int]) -> None:
        """An Emission's wounds, doses and disturbances, in that order (P-49).

        The armour rolls only under ``emission.armor_absorbs`` (Gap), each
        type as the armour rules allow.
        """
        absorbs = bool(self.c.rules.emission.armor_absorbs)
        for points, damage_type in zip(damage, (card.wound_type, "radiation", "psi"),
                                       strict=True):
            self.hurt(points, damage_type,
                      self.c.resistance(self.me.armor, damage_type) if absorbs else None)

    def turn(self) -> None:
        """His turn: out of play, knocked down, or moving (P-38, P-41, P-42; Z-19).

        It ends with the day's artefact uses when he is in play and his game
        goes on (:meth:`daily_artifacts`).
        """
        me = self.me
        me.stop = False
        if me.lost > 0:
            me.lost -= 1
            if me.lost == 0:
                self.recover()  # P-38: placed in a bunker now
        elif me.knocked_down > 0:
            me.knocked_down -= 1  # P-42: no movement today
        elif not self.helicopter():
            complexes, anomalies = (me.tally["complexes_explored"],
                                    me.tally["anomalies_entered"])
            self.move()
            self.gain_tokens(me.tally["complexes_explored"] - complexes,
                             me.tally["anomalies_entered"] - anomalies)
        if me.end is None and me.lost == 0:
            self.daily_artifacts()
        if me.end is None and me.lost == 0:
            self.spend_tokens()

    def play(self, observer: Callable | None = None) -> tuple[str, int]:
        """Play days until the game ends; returns ``(end, day)``.

        ``observer(game, day)``, if given, is called after every day (tests
        check invariants with it).
        """
        me = self.me
        day = 0
        while me.end is None and day < self.c.rules.campaign.max_days:
            day += 1
            self.turn()
            if me.end:
                break
            if me.lost == 0:
                self.use_medkits()
            self.zone()
            self.emission()
            if me.end is None:
                self.conditions()
            if observer is not None:
                observer(self, day)
        return me.end or "capped", day

    def row(self, end: str, day: int) -> dict:
        """The game's results, named as :data:`sim.experiments.campaign.TRIAL_COLUMNS`."""
        held = {"clues": self.me.clues, "zone_tokens": self.me.zone_tokens}
        return {"end": end, "day": day, **{k: self.me.tally[k] for k in COUNTERS}, **held,
                "rubles_at_end": self.me.rubles}


def play(scenario: Scenario, n_trials: int, seed: int, game: type[Game] = Game) -> list[dict]:
    """Play ``n_trials`` reference games; one result row per game (see :meth:`Game.row`).

    Parameters
    ----------
    scenario : Scenario
        The validated scenario.
    n_trials, seed : int
        Games and the seed of the three :class:`random.Random` streams.
    game : type, optional
        The game class (a test passes a subclass with one rule broken).
    """
    if scenario.ruleset.rules.death.one_stalker_after_death != "game_over":
        raise ValueError("death.one_stalker_after_death = new_character plays a table of one "
                         "seat: sim.reference.campaign_players.play (P-44)")
    campaign = Campaign(scenario)
    streams = [random.Random(f"{seed}:{purpose}") for purpose in ("dice", "deck", "env")]
    rows = []
    for _ in range(n_trials):
        g = game(campaign, *streams)
        rows.append(g.row(*g.play()))
    return rows


def simulate(scenario: Scenario, n_trials: int, seed: int) -> Counter:
    """How ``n_trials`` reference games end (counts per end) and their summed counters."""
    counts: Counter = Counter()
    for row in play(scenario, n_trials, seed):
        counts[row.pop("end")] += 1
        counts["days"] += row.pop("day")
        counts.update(row)
    return counts
