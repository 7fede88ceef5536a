"""Reference campaign (P-37..P-50, Z-01..Z-26): the day loop as the rules read.

The same game as :mod:`sim.kernels.campaign`, written for reading: objects
instead of index constants, :class:`random.Random` dice rolled one at a time,
and the fights played by :func:`sim.reference.combat.fight`. It takes the
compiled scenario (:class:`sim.campaign.compile.CampaignArrays`: the route
tables and packed cards) as its input, and is checked against the kernel
within Monte Carlo error; the benchmark measures the kernel against it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace

from sim.campaign.compile import CampaignArrays, weapon_subsets
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.kernels import campaign as K
from sim.kernels import layout as S
from sim.reference.combat import fight
from sim.reference.dice import pool_test
from sim.rules.scenario import Scenario

OPEN, SECRET, COMPLEX, BUNKER, BASE, SARCOPHAGUS = (
    K.LOC_OPEN, K.LOC_SECRET, K.LOC_COMPLEX, K.LOC_BUNKER, K.LOC_BASE, K.LOC_SARCOPHAGUS)
SHELTERS = (SECRET, COMPLEX, BUNKER, BASE)


@dataclass
class Stalker:
    """Everything that changes during one game."""

    pos: int
    health: int
    willpower: int
    rubles: int
    items: list
    radiation: int = 0
    deformations: int = 0
    armor_tokens: int = 0
    objective: int = 0
    weapons: int = 0
    knocked_down: int = 0
    lost: int = 0
    trophies_mutant: int = 0
    trophies_stalker: int = 0
    artifacts: int = 0
    artifact_value: int = 0
    stop: bool = False
    end: str | None = None
    tally: Counter = field(default_factory=Counter)


def _roll(rand: random.Random) -> int:
    return rand.randint(1, 6)


class Game:
    """One game of one stalker; :meth:`play` returns how and on which day it ended."""

    def __init__(self, scenario: Scenario, arrays: CampaignArrays, fights: dict,
                 rand: random.Random, deck_rand: random.Random, env_rand: random.Random):
        self.a = arrays
        self.cp = arrays.cp
        self.fights = fights
        self.rand, self.deck_rand, self.env_rand = rand, deck_rand, env_rand
        cp = arrays.cp
        self.me = Stalker(pos=int(cp[K.C_START]), health=int(cp[K.C_HEALTH]),
                          willpower=int(cp[K.C_WILLPOWER]), rubles=int(cp[K.C_RUBLES]),
                          items=[int(x) for x in arrays.item_start],
                          weapons=int(cp[K.C_WEAPONS]))
        self.enemies = [int(x) for x in arrays.e_count]
        self.anomalies = [int(x) for x in arrays.a_count]
        self.events = [int(x) for x in arrays.ev_count]
        self.artifact_deck = [int(x) for x in arrays.art_deck0]
        self.board: dict[int, tuple[str, int]] = {}
        self.tokens = 0
        self.next_emission = 0
        self.accumulated = [0, 0, 0]

    # --- items -----------------------------------------------------------------------
    def best(self, effect: int) -> int:
        """The held item of ``effect`` with the highest value, -1 if none (Z-02, Z-10, Z-17)."""
        held = [i for i, n in enumerate(self.me.items)
                if n > 0 and self.a.item_effect[i] == effect]
        return max(held, key=lambda i: (self.a.item_value[i], -i)) if held else -1

    # --- decks -----------------------------------------------------------------------
    def draw(self, pool: list, suits=lambda card: True) -> int:
        """One card uniformly from those left that suit; it leaves the pool (-1: none)."""
        cards = [c for c, n in enumerate(pool) for _ in range(n) if suits(c)]
        if not cards:
            return -1
        card = cards[self.deck_rand.randrange(len(cards))]
        pool[card] -= 1
        return card

    # --- damage and its consequences ---------------------------------------------------
    def armour(self, points: int, resist: int) -> int:
        """Points through the armour; absorbed points place tokens (P-02..P-05)."""
        durability = int(self.cp[K.C_DURABILITY])
        if points <= 0 or resist <= 0 or self.me.armor_tokens >= durability:
            return max(points, 0)
        hits = sum(_roll(self.rand) >= resist for _ in range(points))
        absorbed = min(hits, durability - self.me.armor_tokens)
        self.me.armor_tokens += absorbed
        return points - absorbed

    def hurt(self, points: int, target: int, resist: int) -> None:
        """Damage onto Health, the radiation track or Willpower (P-37, P-39, P-40)."""
        through = self.armour(points, resist)
        if target == S.TARGET_HEALTH:
            self.me.health -= through
        elif target == S.TARGET_RADIATION:
            self.me.radiation += through
        else:
            self.me.willpower -= through

    def pay_heal(self) -> None:
        """Heal wounds and disturbances at the bunker price while money lasts (P-37, P-40)."""
        if not self.cp[K.C_PAY_HEAL]:
            return
        price = max(int(self.cp[K.C_HEAL_PRICE]), 1)
        for track, top in (("health", K.C_HEALTH), ("willpower", K.C_WILLPOWER)):
            heal = min(int(self.cp[top]) - getattr(self.me, track), self.me.rubles // price)
            if heal > 0:
                setattr(self.me, track, getattr(self.me, track) + heal)
                self.me.rubles -= heal * int(self.cp[K.C_HEAL_PRICE])

    def recover(self) -> None:
        """Placed in the nearest bunker; the exhausted track back to 1; pay to heal."""
        self.me.pos = int(self.a.nearest_bunker[self.me.pos])
        if self.me.health <= 0:
            self.me.health = int(self.cp[K.C_KNOCKOUT_REGAIN])
        if self.me.willpower <= 0:
            self.me.willpower = int(self.cp[K.C_KNOCKOUT_REGAIN])
        self.pay_heal()

    def lose_half(self) -> None:
        """Lose half of all belongings, rounded in his favour, cheapest first (P-37).

        Items, weapons, the armour (unless destroyed) and, last, artefacts.
        """
        me, durability = self.me, int(self.cp[K.C_DURABILITY])
        weapons = [j for j in range(64) if me.weapons >> j & 1]
        armor = me.armor_tokens < durability
        lose = (sum(me.items) + len(weapons) + armor + me.artifacts) // 2
        for kind, i in self.a.lose_order:
            if kind == K.BELONG_ITEM:
                while lose > 0 and me.items[i] > 0:
                    me.items[i] -= 1
                    lose -= 1
            elif kind == K.BELONG_WEAPON:
                if lose > 0 and i in weapons:
                    me.weapons &= ~(1 << int(i))
                    lose -= 1
            elif lose > 0 and armor:
                me.armor_tokens = durability
                lose -= 1
        if lose > 0 and self.me.artifacts > 0:
            self.me.artifact_value -= self.me.artifact_value * lose // self.me.artifacts
            self.me.artifacts -= lose

    def conditions(self) -> None:
        """Deformation, knock-out, concussion and death after damage (P-37..P-43, P-47)."""
        me, cp = self.me, self.cp
        if me.lost > 0:
            return  # out of play until placed in a bunker (P-38, P-41)
        if me.radiation > cp[K.C_RADIATION_MAX]:
            me.deformations += 1
            me.radiation = 0
            self.tokens += int(cp[K.C_TOKENS_DEFORMATION])
            if me.deformations >= cp[K.C_DEFORMATION_LIMIT]:
                me.end = "fifth_deformation"
                return
        knocked, concussed = me.health <= 0, me.willpower <= 0
        if not (knocked or concussed):
            return
        if knocked and concussed:
            me.end = "knockout_and_concussion"
            return
        if self.a.loc_kind[me.pos] == SARCOPHAGUS:
            me.end = "knocked_out_in_sarcophagus" if knocked else "concussion_in_sarcophagus"
            return
        if knocked:
            me.tally["knockouts"] += 1
            self.tokens += int(cp[K.C_TOKENS_KNOCKOUT])
            self.lose_half()
        else:
            me.tally["concussions"] += 1
            self.tokens += int(cp[K.C_TOKENS_CONCUSSION])
        me.stop = True
        me.knocked_down = int(cp[K.C_KNOCKED_DOWN_DAYS])
        if self.a.loc_kind[me.pos] in (SECRET, COMPLEX):
            me.lost = int(cp[K.C_LOST_DAYS])  # P-38, P-41: lost first
        else:
            self.recover()

    # --- encounters --------------------------------------------------------------------
    def heals_in_combat(self, i: int) -> bool:
        """Stimulants heal in a fight (Z-12); medkits under combat.medkits_in_combat (P-24)."""
        effect = self.a.item_effect[i]
        return effect == K.ITEM_STIMULANT or (effect == K.ITEM_MEDKIT
                                              and bool(self.cp[K.C_MEDKITS_IN_COMBAT]))

    def fight(self, enemy: int, sneak: bool) -> str:
        """Fight an enemy card with the current Health, armour and stimulants (P-16..P-29)."""
        me = self.me
        base = self.fights[me.weapons, enemy]
        psi = bool(self.a.e_psi[enemy])
        stimulants = ()
        if not psi:
            for i, n in enumerate(me.items):
                if self.heals_in_combat(i):
                    stimulants += (int(self.a.item_value[i]),) * n
        escape = self.best(K.ITEM_ESCAPE)
        rating = int(self.a.item_value[escape]) if escape >= 0 else 0
        if (escape >= 0 and sneak and self.cp[K.C_ESCAPE_ITEMS_CONSUMED]
                and base.avoid_rule == S.AVOID_REPUTATION):
            me.items[escape] -= 1  # Z-15: used on the avoid roll, under escape.items_consumed
            me.tally["items_used"] += 1
        spec = replace(base, start_health=me.willpower if psi else me.health,
                       tokens=me.armor_tokens, sneak=sneak, stimulants=stimulants[:63],
                       escape_target=int(self.cp[K.C_REPUTATION]) - rating)
        result = fight(spec, self.rand)
        me.armor_tokens = result.tokens
        if psi:
            me.willpower = result.health
        else:
            me.health = result.health
            used = result.stimulants
            me.tally["items_used"] += used
            for i, n in enumerate(me.items):
                if self.heals_in_combat(i):
                    take = min(n, used)
                    me.items[i] -= take
                    used -= take
        if result.outcome != "avoided":
            me.tally["fights"] += 1
        if result.outcome == "killed":
            me.tally["kills"] += 1
            if self.a.e_kind[enemy] == K.KIND_STALKER:
                me.trophies_stalker += 1
            else:
                me.trophies_mutant += 1
        return result.outcome

    def anomaly(self, card: int) -> bool:
        """Meet an anomaly (P-31..P-36); True when its card is kept as a trophy (P-34)."""
        p = self.a.a_params[card]
        success_on = int(p[S.A_SUCCESS_ON])
        seen = pool_test(self.rand, int(p[S.A_PERCEPTION]), success_on,
                         int(p[S.A_PERCEPTION_NEED]))
        if seen and not p[S.A_ENTER]:
            return False
        self.me.tally["anomalies_entered"] += 1
        pool = int(p[S.A_AGILITY]) + (int(p[S.A_BONUS_DICE]) if seen else 0)
        if not pool_test(self.rand, pool, success_on, int(p[S.A_AGILITY_NEED])):
            self.hurt(int(p[S.A_DAMAGE]), int(p[S.A_TARGET]), int(p[S.A_RESIST]))
        target = int(p[S.A_TARGET])
        knocked = ((target == S.TARGET_HEALTH and self.me.health <= 0)
                   or (target == S.TARGET_WILLPOWER and self.me.willpower <= 0))
        if knocked:
            return False
        want = int(p[S.A_ARTIFACT])
        if want >= 0:
            # P-35: draw until the type turns up; other cards go back (Gap).
            deck = list(self.artifact_deck)
            while sum(deck):
                drawn = self.draw(deck)
                if drawn == want:
                    self.artifact_deck[want] -= 1
                    self.me.artifacts += 1
                    self.me.artifact_value += int(self.a.art_value[want])
                    self.me.tally["artifacts_found"] += 1
                    break
        self.me.tally["anomaly_trophies"] += 1
        return True

    def event(self, card: int) -> None:
        """An event card (Z-08..Z-10) with the best event item held."""
        a, me = self.a, self.me
        me.tally["events"] += 1
        if a.ev_avoid[card] > 0:
            best = self.best(K.ITEM_EVENT)
            shift = int(a.item_value[best]) if best >= 0 else 0
            if best >= 0 and self.cp[K.C_EVENT_ITEMS_CONSUMED]:
                me.items[best] -= 1
                me.tally["items_used"] += 1
            # Z-09: the Torsion scanner (AUTO_SHIFT) avoids without a roll.
            if shift >= S.AUTO_SHIFT or _roll(self.rand) >= a.ev_avoid[card] - shift:
                return
        effect, value = int(a.ev_effect[card]), int(a.ev_value[card])
        if effect == S.EFFECT_DAMAGE:
            self.hurt(value, int(a.ev_target[card]), int(a.ev_resist[card]))
        elif effect == S.EFFECT_LOST_DAY:
            me.stop = True
            me.knocked_down += value
        elif effect == S.EFFECT_EMISSION_TOKENS:
            self.tokens += value

    def enter(self, h: int, kind: int) -> None:
        """Resolve the card on a location, or draw from the right deck."""
        a, sneak = self.a, bool(self.cp[K.C_SNEAK])
        if h in self.board:
            what, card = self.board[h]
            if what == "enemy":
                if self.fight(card, sneak) == "killed":
                    del self.board[h]
            else:
                if not self.anomaly(card):
                    self.anomalies[card] += 1
                del self.board[h]
            return
        draw = self.cp[K.C_OPEN_DRAW] if kind == OPEN else self.cp[K.C_SECRET_DRAW]
        if draw == K.DRAW_EVENT:
            card = self.draw(self.events)
            if card < 0:
                self.events = [int(x) for x in a.ev_count]
                card = self.draw(self.events)
            if card >= 0:
                self.event(card)
        elif draw == K.DRAW_ENEMY:
            want = K.HAB_OPEN if kind == OPEN else K.HAB_SECRET
            card = self.draw(self.enemies,
                             lambda c: a.e_habitat[c] in (K.HAB_ANY, want))
            if card >= 0 and self.fight(card, sneak) != "killed":
                self.enemies[card] += 1
        elif draw == K.DRAW_ANOMALY:
            card = self.draw(self.anomalies)
            if card >= 0 and not self.anomaly(card):
                self.anomalies[card] += 1

    def trade(self, faction: int) -> None:
        """Sell trophies and artefacts, then shop (P-11, P-26..P-28).

        Duty buys mutant and animal trophies, Freedom stalker trophies, each
        only at its own base; artefacts sell at any base.
        """
        me, cp = self.me, self.cp
        me.tally["trades"] += 1
        lot = max(int(cp[K.C_TROPHY_LOT]), 1)
        if faction == K.FACTION_DUTY:
            lots = me.trophies_mutant // lot
            me.rubles += lots * int(cp[K.C_TROPHY_PRICE])
            me.trophies_mutant -= lots * lot
        gear = max(int(cp[K.C_GEAR_LOT]), 1)
        if faction == K.FACTION_FREEDOM and cp[K.C_GEAR_ITEM] >= 0:
            while me.trophies_stalker >= gear:
                me.trophies_stalker -= gear
                me.items[int(cp[K.C_GEAR_ITEM])] += 1
        me.rubles += me.artifact_value // max(int(cp[K.C_SELL_DIVISOR]), 1)
        me.artifact_value = me.artifacts = 0
        for i in self.a.shopping:
            if me.rubles >= self.a.item_price[i]:
                me.rubles -= int(self.a.item_price[i])
                me.items[i] += 1

    def medkits(self) -> None:
        """Medkits outside combat while Health <= medkit_at (Z-11..Z-14)."""
        me = self.me
        while me.health <= self.cp[K.C_MEDKIT_AT] and me.health < self.cp[K.C_HEALTH]:
            best = self.best(K.ITEM_MEDKIT)
            if best < 0:
                return
            me.items[best] -= 1
            me.tally["items_used"] += 1
            me.health = min(int(self.cp[K.C_HEALTH]), me.health + int(self.a.item_value[best]))

    # --- phases ------------------------------------------------------------------------
    def move(self) -> None:
        """Follow today's part of the optimal route toward the objective."""
        a, cp, me = self.a, self.cp, self.me
        n_objectives = int(cp[K.C_N_OBJECTIVES])
        sarcophagus = int(cp[K.C_SARCOPHAGUS_TARGET])
        if (cp[K.C_RETREAT_AT] > 0 and me.health <= cp[K.C_RETREAT_AT]
                and me.rubles >= cp[K.C_HEAL_PRICE] and cp[K.C_PAY_HEAL]):
            target = int(a.bunker_target[me.pos])
        else:
            target = me.objective if me.objective < n_objectives else sarcophagus
        goal = int(a.target_hex[target])
        mover = self.best(K.ITEM_MOVEMENT)
        allowance = int(a.allowance_of_value[a.item_value[mover]]) if mover >= 0 else 0
        start = me.pos
        downs = me.tally["knockouts"] + me.tally["concussions"]
        for i in range(int(a.day_len[start, target, allowance])):
            h = int(a.day_table[start, target, allowance, i])
            me.pos = h
            kind = int(a.loc_kind[h])
            if kind == BASE:
                self.trade(int(a.faction[h]))
            elif kind in (OPEN, SECRET, COMPLEX):
                self.enter(h, kind)
                self.conditions()
                if me.end:
                    return
                self.medkits()
            if kind == SARCOPHAGUS and h == goal and target == sarcophagus:
                # P-50: fight what waits there; a knock-out there is death (P-43).
                for enemy in a.sarcophagus:
                    self.fight(int(enemy), bool(cp[K.C_SNEAK]))
                    self.conditions()
                    if me.end:
                        return
                me.end = "reached"
                return
            if me.stop or h == goal:
                break
        if me.pos == goal:
            if target > sarcophagus:
                self.pay_heal()
            elif (target < n_objectives and me.lost == 0
                  and me.tally["knockouts"] + me.tally["concussions"] == downs):
                me.objective += 1  # Secret Complex explored (P-50)
                me.tally["complexes_explored"] += 1

    def zone(self) -> None:
        """Zone phase: new cards on the board, Environment change (P-47)."""
        a, cp = self.a, self.cp
        places = {K.HAB_OPEN: a.place_open, K.HAB_SECRET: a.place_secret,
                  K.HAB_ANY: a.place_any}
        for _ in range(int(cp[K.C_ENEMIES_PER_DAY])):
            card = self.draw(self.enemies)
            if card < 0:
                break
            self.lay("enemy", card, places[int(a.e_habitat[card])], K.C_ENEMY_LIMIT,
                     self.enemies)
        for _ in range(int(cp[K.C_ANOMALIES_PER_DAY])):
            card = self.draw(self.anomalies)
            if card < 0:
                break
            self.lay("anomaly", card, a.place_any, K.C_ANOMALY_LIMIT, self.anomalies)
        if self.env_rand.random() < cp[K.C_ENVIRONMENT_CHANCE] / 2**62:
            self.tokens += int(cp[K.C_TOKENS_ENVIRONMENT])

    def lay(self, what: str, card: int, places, limit: int, pool: list) -> None:
        """Lay a card on a random location; past the board limit it adds tokens (P-47)."""
        on_board = sum(1 for w, _ in self.board.values() if w == what)
        if on_board >= self.cp[limit] or len(places) == 0:
            pool[card] += 1
            if on_board >= self.cp[limit]:
                self.tokens += int(self.cp[K.C_TOKENS_LIMIT])  # P-47
            return
        h = int(places[self.env_rand.randrange(len(places))])
        if h in self.board:
            pool[card] += 1
        else:
            self.board[h] = (what, card)

    def emission(self) -> None:
        """Emission check (P-48, P-49)."""
        a, cp, me = self.a, self.cp, self.me
        if self.tokens < cp[K.C_THRESHOLD]:
            return
        self.tokens = 0
        k = min(self.next_emission, len(a.em_final) - 1)
        self.next_emission += 1
        me.tally["emissions"] += 1
        if a.em_final[k]:
            me.end = "final_emission"
            return
        card = (int(a.em_wounds[k]), int(a.em_radiation[k]), int(a.em_psi[k]))
        self.accumulated = [x + y for x, y in zip(self.accumulated, card, strict=True)]
        if a.loc_kind[me.pos] in SHELTERS or me.lost > 0:
            return
        me.tally["emissions_suffered"] += 1
        wounds, doses, psi = self.accumulated if cp[K.C_ACCUMULATE] else card
        self.hurt(wounds, S.TARGET_HEALTH, int(a.em_wound_resist[k]))
        self.hurt(doses, S.TARGET_RADIATION, int(a.em_rad_resist[k]))
        self.hurt(psi, S.TARGET_WILLPOWER, int(a.em_psi_resist[k]))

    def play(self, observer=None) -> tuple[str, int]:
        """Play days until the game ends; returns (end, day).

        ``observer(game, day)``, if given, is called after every day (tests
        check invariants with it).
        """
        me = self.me
        day = 0
        while me.end is None and day < self.cp[K.C_MAX_DAYS]:
            day += 1
            me.stop = False
            if me.lost > 0:
                me.lost -= 1
                if me.lost == 0:
                    self.recover()
            elif me.knocked_down > 0:
                me.knocked_down -= 1
            else:
                self.move()
            if me.end:
                break
            if me.lost == 0:
                self.medkits()
            self.zone()
            self.emission()
            if me.end is None:
                self.conditions()
            if observer is not None:
                observer(self, day)
        return me.end or "capped", day


def reference_fights(scenario: Scenario, arrays: CampaignArrays) -> dict:
    """A CombatSpec per (weapons still held as a bit mask, enemy card index of ``arrays``)."""
    rs, policy = scenario.ruleset, scenario.policy
    combat = CombatPolicy(sneak=policy.sneak, flee_at=policy.flee_at, heal_at=policy.heal_at)
    names = [n for n, c in rs.enemies.items() if c.wound_type != "radiation"]
    return {(mask, i): compile_combat(rs, scenario.stalker, name, scenario.armor, held, (),
                                      combat)
            for mask, held in enumerate(weapon_subsets(scenario.weapons))
            for i, name in enumerate(names)}


def simulate(scenario: Scenario, arrays: CampaignArrays, n_trials: int, seed: int) -> Counter:
    """Count how ``n_trials`` reference games end, and their tallies."""
    fights = reference_fights(scenario, arrays)
    rand, deck_rand, env_rand = (random.Random(seed), random.Random(seed + 1),
                                 random.Random(seed + 2))
    counts: Counter = Counter()
    for _ in range(n_trials):
        game = Game(scenario, arrays, fights, rand, deck_rand, env_rand)
        end, day = game.play()
        counts[end] += 1
        counts["days"] += day
        counts.update(game.me.tally)
    return counts
