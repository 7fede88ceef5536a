"""Reference campaign (P-01..P-50, Z-01..Z-26): the day loop as docs/rules.md reads.

The readable executable spec of a whole game, built only from the validated
model: a :class:`~sim.rules.scenario.Scenario` and its
:class:`~sim.rules.Ruleset` (cards, ``rules.toml`` values, the map model).
It shares no code with the campaign kernel or its compile step: no compiled
arrays, no kernel constants, no route tables, no packed encounter specs. It
plans its own routes (:mod:`sim.reference.route`), fights from the enemy
and weapon cards, meets anomalies and events from their cards, and rolls one
d6 at a time with :class:`random.Random`. Three streams, as the kernel has
(dice; deck draws; board placements and the Environment), though the two
never share a random number: they agree in distribution only, which
``tests/test_campaign_oracle.py`` checks with two-sample tests.

Rules, each where its method says: movement and objectives (Z-01..Z-03,
Z-19..Z-26, P-50), fights (P-14..P-29, Z-12..Z-17), anomalies (P-31..P-36,
P-07), events (Z-08..Z-10), armour (P-02..P-06), damage tracks, knock-outs,
concussions, Deformations and death (P-37..P-43), trade (P-11, P-26..P-28),
healing items (Z-11..Z-14), the Zone phase and Emissions (P-47..P-49).
Modelling choices follow docs/rules.md "Campaign" and its Assumptions table.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from sim.reference.loadout import best_weapons
from sim.reference.route import Terrain
from sim.rules.scenario import Scenario

ENDS = ("reached", "knocked_out_in_sarcophagus", "concussion_in_sarcophagus",
        "fifth_deformation", "knockout_and_concussion", "final_emission", "capped")
"""How a game ends (docs/rules.md "Campaign", Outputs)."""

COUNTERS = ("knockouts", "concussions", "deformations", "emissions_suffered", "emissions",
            "items_used", "fights", "kills", "anomalies_entered", "artifacts_found", "events",
            "complexes_explored")
"""Per-game counters, named as :data:`sim.experiments.campaign.TRIAL_COLUMNS` names them."""

SHELTERS = ("secret", "complex", "bunker", "base")
"""Locations an Emission does not reach (P-48)."""

ENCOUNTERS = ("open", "secret", "complex")
"""Locations whose card is resolved on entering (P-14, P-30)."""

IMPOSSIBLE_FACE = 7
"""A face no d6 shows: a test that needs it cannot pass."""


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
    """Everything about the stalker that changes during one game."""

    pos: int
    health: int
    willpower: int
    rubles: int
    items: list[int]
    weapons: list[bool]
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
    stop: bool = False
    end: str | None = None
    tally: Counter = field(default_factory=Counter)


class Campaign:
    """What every game of a scenario shares: cards, map, objectives, policy (read-only).

    Parameters
    ----------
    scenario : Scenario
        The validated scenario; everything is read from it and its ruleset.
    """

    def __init__(self, scenario: Scenario):
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
        self.weapons = [rs.weapons[w] for w in scenario.weapons]
        self.armor = rs.armor[scenario.armor] if scenario.armor else None
        # Radiation-dealing enemies end no fight (P-39), so the campaign leaves them out
        # (docs/rules.md "Combat" 6).
        self.enemies = [c for c in rs.enemies.values() if c.wound_type != "radiation"]
        fightable = {c.name: i for i, c in enumerate(self.enemies)}
        self.sarcophagus_deck = [fightable[n] for n in rs.sarcophagus_deck() if n in fightable]
        self.anomalies = list(rs.anomalies.values())
        self.events = list(rs.events.values())
        self.artifact_types: list[str] = []
        deck: Counter = Counter()
        prices: dict[str, list[int]] = {}
        for card in rs.artifacts.values():
            if card.type not in self.artifact_types:
                self.artifact_types.append(card.type)
            deck[card.type] += card.count
            prices.setdefault(card.type, []).extend([card.price] * card.count)
        self.artifact_deck = [deck[t] for t in self.artifact_types]
        # P-11: one found card is worth its type's mean price (whole rubles).
        self.artifact_value = [sum(prices[t]) // max(len(prices[t]), 1)
                               for t in self.artifact_types]
        self.emissions = rs.emission_deck()
        self.loss_order = self._loss_order()
        self.gear = (self.items.index(rs.items[self.policy.shopping[0]])
                     if self.policy.shopping else None)

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

    def allowance(self, items: list[int]) -> int:
        """Steps a day: base plus the best movement item held (Z-01, Z-02, Z-19)."""
        bonus = [int(c.value) for c, n in zip(self.items, items, strict=True)
                 if n > 0 and c.effect == "movement"]
        return self.base_steps + max(bonus, default=0)

    # --- belongings (P-37) ------------------------------------------------------------------
    def _loss_order(self) -> list[tuple[str, int]]:
        """Belongings a knock-out gives up first: cheapest by price (Gap "Item loss").

        Items (card order), then the scenario's weapons, then the armour on
        equal prices; artefacts go last (docs/rules.md "Life and death").
        """
        rows = [(c.price, "item", i) for i, c in enumerate(self.items)]
        rows += [(w.price, "weapon", j) for j, w in enumerate(self.weapons)]
        if self.armor is not None:
            rows.append((self.armor.price, "armor", 0))
        return [(kind, i) for _, kind, i in sorted(rows, key=lambda r: r[0])]

    def resistance(self, damage_type: str) -> int | None:
        """The armour's absorbing face against ``damage_type``, None if it does not roll.

        Wounds always roll (P-02); doses only under ``armor.absorbs_radiation``
        (P-01, P-03), disturbances only under ``armor.absorbs_psi``.
        """
        if self.armor is None:
            return None
        if damage_type == "radiation" and not self.rules.armor.absorbs_radiation:
            return None
        if damage_type == "psi" and not self.rules.armor.absorbs_psi:
            return None
        return self.armor.resistance(damage_type)


def deal(state, campaign: Campaign) -> None:
    """Give ``state`` the full decks, an empty board and an empty Emission Track (P-47)."""
    state.enemy_pool = [c.count for c in campaign.enemies]
    state.anomaly_pool = [c.count for c in campaign.anomalies]
    state.event_pool = [c.count for c in campaign.events]
    state.artifact_deck = list(campaign.artifact_deck)
    state.board = {}
    state.tokens = 0
    state.next_emission = 0
    state.in_force = [0, 0, 0]


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
                          weapons=[True] * len(campaign.weapons))
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
                   else int(self.c.items[i].value))

    def use(self, i: int) -> None:
        """One item card used up."""
        self.me.items[i] -= 1
        self.me.tally["items_used"] += 1

    # --- damage (P-02..P-06, P-37, P-39, P-40) ----------------------------------------------
    def through_armor(self, points: int, resist: int | None) -> int:
        """Points that get through: one die per point, absorbed = min(successes, room) (P-06)."""
        durability = self.c.armor.durability if self.c.armor is not None else 0
        if points <= 0 or resist is None or self.me.tokens >= durability:
            return max(points, 0)
        absorbed = min(successes(self.dice, points, resist), durability - self.me.tokens)
        self.me.tokens += absorbed
        return points - absorbed

    def hurt(self, points: int, damage_type: str, resist: int | None) -> None:
        """Damage onto its track: Health (wounds), radiation (doses), Willpower (psi)."""
        through = self.through_armor(points, resist)
        if damage_type == "radiation":
            self.me.radiation += through
        elif damage_type == "psi":
            self.me.willpower -= through
        else:
            self.me.health -= through

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
                me.rubles -= heal * price

    def recover(self) -> None:
        """Placed in the nearest bunker, the exhausted track back to ``death.regain`` (P-37)."""
        me = self.me
        me.pos = self.c.nearest_bunker(me.pos)
        regain = int(self.c.rules.death.regain)
        if me.health <= 0:
            me.health = regain
        if me.willpower <= 0:
            me.willpower = regain
        self.pay_heal()

    def lose_half(self) -> None:
        """Half of all belongings lost, rounded in his favour, cheapest first (P-37)."""
        me, c = self.me, self.c
        armor = c.armor is not None and me.tokens < c.armor.durability
        lose = (sum(me.items) + sum(me.weapons) + armor + me.artifacts) // 2
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
            elif kind == "armor" and armor:
                me.tokens = c.armor.durability  # gone, as if destroyed (P-05)
                lose -= 1
        if lose > 0 and me.artifacts > 0:
            me.artifact_value -= me.artifact_value * lose // me.artifacts
            me.artifacts -= lose

    def conditions(self) -> None:
        """Deformation, knock-out, concussion and death after damage (P-37..P-43, P-47)."""
        me, rules = self.me, self.c.rules
        if me.lost > 0:
            return  # out of play on the Emission Track (P-38, P-41)
        if me.radiation > self.c.hero.radiation_max:
            me.deformations += 1
            me.tally["deformations"] += 1
            me.radiation = 0
            self.tokens += int(rules.emission.tokens_per_deformation)
            if me.deformations >= rules.death.deformation_limit:
                me.end = "fifth_deformation"
                return
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
        me.stop = True
        me.knocked_down = int(rules.death.knocked_down_days)
        if self.c.location[me.pos] in ("secret", "complex") and int(rules.death.lost_days) > 0:
            me.lost = int(rules.death.lost_days)  # P-38, P-41: lost before the bunker
        else:
            self.recover()  # lost_days = 0: placed in the bunker at once

    # --- fights (P-14..P-29, Z-12..Z-17) ----------------------------------------------------
    def heals_in_combat(self, i: int) -> bool:
        """Stimulants heal in fights (Z-12); medkits too under ``combat.medkits_in_combat``."""
        effect = self.c.items[i].effect
        return effect == "stimulant" or (effect == "medkit"
                                         and bool(self.c.rules.combat.medkits_in_combat))

    def weapon_bonus(self, uses: list[int | None], later: bool, melee_enemy: bool) -> int:
        """The best Combat bonus this round within the hand limit (P-23, P-24, P-29).

        Every subset of the held weapons with uses left is tried; the largest
        bonus wins, then the one spending fewer limited uses, then the first
        found (smaller subsets first). The chosen limited weapons spend a use.
        """
        rules = self.c.rules.combat
        held = [u if self.me.weapons[j] else 0 for j, u in enumerate(uses)]
        bonus, chosen = best_weapons(
            self.c.weapons, held, close=melee_enemy and later, melee_enemy=melee_enemy,
            hands=rules.hands, long_range_divisor=rules.long_range_divisor,
            short_range_full=rules.short_range_close_combat == "full",
            melee_weapons_vs_ranged=rules.melee_weapons_vs_ranged)
        for j in chosen:
            if uses[j] is not None:
                uses[j] -= 1
        return bonus

    def fight(self, e: int, sneak: bool) -> str:
        """Fight enemy card ``e`` with today's Health, armour, weapons and heals.

        P-16 or Z-15..Z-17 to avoid it, then rounds (P-18..P-20): heals before
        each round while the track is at ``heal_at`` or less (Z-12..Z-14, not
        against psi), a flight from round 2 at ``flee_at`` or less (P-21),
        otherwise the Combat test with the best weapons (P-19, P-23, P-29);
        a round not won costs the enemy's wounds through the armour (P-02).
        Psi enemies hit Willpower (P-40). Returns the outcome.
        """
        me, c = self.me, self.c
        enemy, rules, policy = c.enemies[e], c.rules, c.policy
        psi = enemy.wound_type == "psi"
        top = c.hero.willpower if psi else c.hero.health
        track = me.willpower if psi else me.health
        doses = [] if psi else [i for i, n in enumerate(me.items) if self.heals_in_combat(i)
                                for _ in range(n)]
        escape = self.best("escape")
        reputation_rule = rules.combat.avoid_rule == "reputation"
        if escape >= 0 and sneak and reputation_rule and rules.escape.items_consumed:
            self.use(escape)  # Z-15: used on the avoid roll, whatever it shows
        outcome, used = "capped", 0
        if sneak and reputation_rule:
            rating = int(c.items[escape].value) if escape >= 0 else 0
            avoided = d6(self.dice) >= c.hero.reputation - rating  # Z-16
        else:
            avoided = sneak and self.test(c.hero.stealth, enemy.vigilance)  # P-16
        if avoided:
            outcome = "avoided"
        else:
            uses = [w.uses for w in c.weapons]
            resist = c.resistance(enemy.wound_type)
            for rnd in range(1, rules.combat.max_rounds + 1):
                while used < len(doses) and track <= policy.heal_at and track < top:
                    track = min(top, track + int(c.items[doses[used]].value))
                    used += 1
                if rnd >= 2 and 0 < policy.flee_at and track <= policy.flee_at:
                    if self.test(c.hero.stealth, enemy.vigilance):
                        outcome = "fled"
                        break
                else:
                    bonus = self.weapon_bonus(uses, rnd >= 2, enemy.melee)
                    face = rules.dice.success_on
                    if successes(self.dice, c.hero.combat + bonus, face) >= enemy.endurance:
                        outcome = "killed"
                        break
                track -= self.through_armor(enemy.wounds, resist)
                if track <= 0:
                    outcome = "knocked_out"
                    break
        for i in doses[:used]:
            self.use(i)
        if psi:
            me.willpower = track
        else:
            me.health = track
        if outcome != "avoided":
            me.tally["fights"] += 1
        if outcome == "killed":
            me.tally["kills"] += 1
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
            self.hurt(card.damage, card.damage_type, c.resistance(card.damage_type))
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
                        me.artifacts += 1
                        me.artifact_value += c.artifact_value[want]
                        me.tally["artifacts_found"] += 1
                        break
        me.tally["anomaly_trophies"] += 1
        return True

    def event(self, v: int) -> None:
        """Event card ``v``: the avoid roll with the best event item (Z-09, Z-10), its effect."""
        me, c = self.me, self.c
        card = c.events[v]
        me.tally["events"] += 1
        if card.avoid_on is not None:
            best = self.best("event_avoid")
            if best >= 0 and c.rules.events.items_consumed:
                self.use(best)
            item = c.items[best] if best >= 0 else None
            if item is not None and item.value == "auto":
                return  # the Torsion scanner avoids without a roll (Z-09)
            if d6(self.dice) >= card.avoid_on - (int(item.value) if item is not None else 0):
                return
        if card.effect in ("wounds", "radiation", "psi"):
            damage_type = card.effect
            if card.effect == "wounds":
                damage_type = card.damage_type or "physical"
            self.hurt(card.value, damage_type, c.resistance(damage_type))
        elif card.effect == "lost_day":
            me.stop = True
            me.knocked_down += card.value
        elif card.effect == "emission_tokens":
            self.tokens += card.value

    def enter(self, h: int) -> None:
        """Resolve the card lying on location ``h``, or draw one (docs/rules.md "Campaign" 3)."""
        c, sneak = self.c, self.c.policy.sneak == "always"
        if h in self.board:
            what, card = self.board[h]
            if what == "enemy":
                if self.fight(card, sneak) == "killed":
                    del self.board[h]  # otherwise it stays (P-16)
            else:
                if not self.anomaly(card):
                    self.anomaly_pool[card] += 1
                del self.board[h]
            return
        kind = c.location[h]
        rules = c.rules.campaign
        draw = rules.open_location_draw if kind == "open" else rules.secret_location_draw
        if draw == "event":
            v = self.draw(self.event_pool)
            if v < 0:  # the deck ran out: reshuffle it
                self.event_pool = [e.count for e in c.events]
                v = self.draw(self.event_pool)
            if v >= 0:
                self.event(v)
        elif draw == "enemy":
            want = "open" if kind == "open" else "secret"
            e = self.draw(self.enemy_pool, lambda i: c.enemies[i].habitat in (want, "any"))
            if e >= 0 and self.fight(e, sneak) != "killed":
                self.enemy_pool[e] += 1  # back into the pool (P-16)
        elif draw == "anomaly":
            a = self.draw(self.anomaly_pool)
            if a >= 0 and not self.anomaly(a):
                self.anomaly_pool[a] += 1

    # --- bases and healing items ------------------------------------------------------------
    def trade(self, faction: str) -> None:
        """At a faction base: sell trophies and artefacts, then shop (P-11, P-26..P-28).

        Duty buys mutant and animal trophies in lots (P-26, P-28), Freedom
        gives one Gear (the first item of the shopping list) per lot of
        stalker trophies (P-27), each only at its own base; artefacts sell at
        any base for the value // ``economy.artifact_sell_divisor`` (P-11).
        """
        me, c = self.me, self.c
        me.tally["trades"] += 1
        economy = c.rules.economy
        if faction == "duty":
            lots = me.trophies_mutant // economy.mutant_trophy_lot
            me.rubles += lots * economy.mutant_trophy_price
            me.trophies_mutant -= lots * economy.mutant_trophy_lot
        if faction == "freedom" and c.gear is not None:
            while me.trophies_stalker >= economy.stalker_trophy_lot:
                me.trophies_stalker -= economy.stalker_trophy_lot
                me.items[c.gear] += 1
        me.rubles += me.artifact_value // economy.artifact_sell_divisor
        me.artifact_value = me.artifacts = 0
        for name in c.policy.shopping:
            i = c.items.index(c.rs.items[name])
            if me.rubles >= c.items[i].price:
                me.rubles -= c.items[i].price
                me.items[i] += 1

    def use_medkits(self) -> None:
        """Outside combat, the best medkit while Health <= ``medkit_at`` (Z-11..Z-14)."""
        me, top = self.me, self.c.hero.health
        while me.health <= self.c.policy.medkit_at and me.health < top:
            best = self.best("medkit")
            if best < 0:
                return
            self.use(best)
            me.health = min(top, me.health + int(self.c.items[best].value))

    # --- the day ----------------------------------------------------------------------------
    def retreats(self) -> bool:
        """Walk to the nearest bunker: Health <= ``retreat_at`` and he can pay to heal."""
        me, policy = self.me, self.c.policy
        return (policy.retreat_at > 0 and me.health <= policy.retreat_at and policy.pay_heal
                and me.rubles >= self.c.rules.economy.heal_price_per_wound)

    def move(self) -> None:
        """Follow today's part of the optimal route toward the objective (Z-19..Z-26, P-50)."""
        me, c = self.me, self.c
        bunker = self.retreats()
        if bunker:
            goal = c.nearest_bunker(me.pos)
        elif me.objective < len(c.complexes):
            goal = c.complexes[me.objective]
        else:
            goal = c.sarcophagus
        downs = me.tally["knockouts"] + me.tally["concussions"]
        for h in c.today(me.pos, goal, c.allowance(me.items)):
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
            if h == goal and not bunker and goal == c.sarcophagus:
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
            elif (goal != c.sarcophagus and me.lost == 0
                  and me.tally["knockouts"] + me.tally["concussions"] == downs):
                me.objective += 1  # the Secret Complex is explored (P-50; assumption)
                me.tally["complexes_explored"] += 1

    def zone(self) -> None:
        """Zone phase (P-47): new enemy and anomaly cards on the board, the Environment."""
        c, zone, emission = self.c, self.c.rules.zone, self.c.rules.emission
        places = {"open": c.open_places, "secret": c.secret_places,
                  "any": c.open_places + c.secret_places}
        for _ in range(zone.enemies_per_day):
            e = self.draw(self.enemy_pool)
            if e < 0:
                break
            self.lay("enemy", e, places[c.enemies[e].habitat], zone.enemy_limit,
                     self.enemy_pool)
        for _ in range(zone.anomalies_per_day):
            a = self.draw(self.anomaly_pool)
            if a < 0:
                break
            self.lay("anomaly", a, places["any"], zone.anomaly_limit, self.anomaly_pool)
        if self.env.random() < zone.environment_change_chance:
            self.tokens += emission.tokens_per_environment

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
        if c.location[me.pos] in SHELTERS or me.lost > 0:
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
                      self.c.resistance(damage_type) if absorbs else None)

    def play(self, observer: Callable | None = None) -> tuple[str, int]:
        """Play days until the game ends; returns ``(end, day)``.

        ``observer(game, day)``, if given, is called after every day (tests
        check invariants with it).
        """
        me = self.me
        day = 0
        while me.end is None and day < self.c.rules.campaign.max_days:
            day += 1
            me.stop = False
            if me.lost > 0:
                me.lost -= 1
                if me.lost == 0:
                    self.recover()  # P-38: placed in a bunker now
            elif me.knocked_down > 0:
                me.knocked_down -= 1  # P-42: no movement today
            else:
                self.move()
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
        return {"end": end, "day": day, **{k: self.me.tally[k] for k in COUNTERS},
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
