"""Reference multiplayer campaign (P-44..P-50): several stalkers' day loop as docs/rules.md reads.

The plain-Python statement of docs/rules.md "Multiplayer", built like
:mod:`sim.reference.campaign` from the validated model only (no compiled
arrays, no kernel constants): every seat is a :class:`Seat`, a
:class:`~sim.reference.campaign.Game` whose board, decks and Emission Track
are the one :class:`Zone` all seats share, so each rule of a stalker's turn
is the one-stalker reference's method. :class:`Table` plays the day:
new characters (P-44), the turns in ``multiplayer.turn_order``, then once
for all the Zone phase and the Emission check (P-47..P-49), and decides the
competitive or cooperative game (P-45; Gap "The Sarcophagus"). A one-stalker
scenario under ``death.one_stalker_after_death = "new_character"`` (P-44) is a table
of one seat whose player draws a new character after a death (:func:`renews`). The two
implementations never share a random number; ``tests/kernels/campaign/test_multiplayer.py``
compares them in distribution (two-sample z on every reported probability).
"""

from __future__ import annotations

import random
from collections import Counter

from sim.reference.campaign import SHELTERS, Campaign, Game, deal
from sim.rules.scenario import Scenario

PLAYING, FINISHED, ELIMINATED, AWAITING = "playing", "finished", "eliminated", "awaiting"
"""Where a seat stands."""


class Zone:
    """What every stalker shares: the board, the decks and the Emission Track (P-47)."""

    def __init__(self, campaign: Campaign):
        deal(self, campaign)
        self.drawn = 0
        self.final = False


def _shared(name: str) -> property:
    """An attribute of the one-stalker game that lives in the shared :class:`Zone`."""
    return property(lambda self: getattr(self.shared, name),
                    lambda self, value: setattr(self.shared, name, value))


class Seat(Game):
    """One stalker's game on the shared Zone: every rule is :class:`Game`'s."""

    enemy_pool = _shared("enemy_pool")
    anomaly_pool = _shared("anomaly_pool")
    event_pool = _shared("event_pool")
    artifact_deck = _shared("artifact_deck")
    enemy_discard = _shared("enemy_discard")
    board = _shared("board")
    tokens = _shared("tokens")
    next_emission = _shared("next_emission")
    in_force = _shared("in_force")
    deformation_order = _shared("deformation_order")
    deformation_next = _shared("deformation_next")
    zone_pool = _shared("zone_pool")

    def __init__(self, campaign: Campaign, zone: Zone, streams: list[random.Random],
                 items: list[int] | None = None):
        self.shared = zone
        super().__init__(campaign, *streams, items=items)

    def deal(self, campaign: Campaign) -> None:
        """Nothing: the one :class:`Zone` was dealt for every seat."""


class Table:
    """One multiplayer game; :meth:`play` returns its result row.

    Parameters
    ----------
    scenario : Scenario
        A multiplayer scenario.
    slots : dict
        ``Campaign`` per seat (``("seat", p)``) and per new character (``("new", name)``).
    streams : list of random.Random
        Dice, deck and environment streams.
    """

    def __init__(self, scenario: Scenario, slots: dict, streams: list[random.Random]):
        self.scenario, self.slots, self.streams = scenario, slots, streams
        self.keys = scenario.ruleset.rules.multiplayer
        self.rules = scenario.ruleset.rules
        self.characters = list(scenario.ruleset.stalkers)
        first = slots[("seat", 0)]
        self.zone = Zone(first)
        self.names = [seat.stalker for seat in seats(scenario)]
        self.seats = [Seat(slots[("seat", p)], self.zone, streams)
                      for p in range(len(self.names))]
        self.renew = renews(scenario)
        self.status = [PLAYING] * len(self.seats)
        self.deaths = [0] * len(self.seats)
        self.new = [0] * len(self.seats)
        self.discarded: set[str] = set()
        self.winners: set[int] = set()
        self.win_day = 0
        self.reached = 0
        self.first = 0  # the first player (``multiplayer.first_player``)
        if len(self.seats) > 1 and self.keys.first_player == "random":
            self.first = int(streams[2].random() * len(self.seats))

    def order(self, day: int) -> list[int]:
        """Today's turn order (``multiplayer.turn_order``)."""
        n = len(self.seats)
        first = self.first + (day - 1 if self.keys.turn_order == "rotating" else 0)
        order = [(first + i) % n for i in range(n)]
        if self.keys.turn_order == "simultaneous":
            self.streams[2].shuffle(order)
        return order

    def free(self, p: int | None = None) -> list[str]:
        """The stalker cards a new character can be (P-44): neither dead nor held.

        Held: by a seat other than ``p`` that is playing or has finished.
        """
        held = {self.names[q] for q in range(len(self.seats))
                if q != p and self.status[q] in (PLAYING, FINISHED)}
        return [c for c in self.characters if c not in held and c not in self.discarded]

    def in_game(self) -> list[int]:
        """The seats still in the game: playing, finished, or awaiting a card still free.

        Tomorrow's free cards go to today's awaiting seats in seat order (P-44,
        :meth:`new_character`); an awaiting seat left without one is out now.
        """
        spare = len(self.free())
        seats = []
        for p, status in enumerate(self.status):
            if status == AWAITING:
                if spare == 0:
                    continue
                spare -= 1
            if status != ELIMINATED:
                seats.append(p)
        return seats

    def new_character(self, p: int) -> None:
        """A new random character for seat ``p`` (P-44), or the seat is out."""
        free = self.free(p)
        if not free:
            self.status[p] = ELIMINATED
            return
        name = free[int(self.streams[1].random() * len(free))]
        campaign = self.slots[("new", name)]
        items = [0] * len(campaign.items)
        for _ in range(self.keys.new_character_items):
            items[int(self.streams[1].random() * len(items))] += 1
        self.seats[p] = Seat(campaign, self.zone, self.streams, items)
        self.names[p], self.status[p] = name, PLAYING
        self.new[p] += 1

    def settle(self, p: int, day: int) -> None:
        """Seat ``p``'s character left the Zone: a win, a finish, or a death (P-43..P-45)."""
        end = self.seats[p].me.end
        if self.status[p] != PLAYING or end is None:
            return
        if end == "reached":
            self.status[p] = FINISHED
            self.reached += 1
            if self.scenario.variant == "competitive" and (self.win_day in (0, day) and (
                    self.win_day == 0 or self.keys.same_day_win == "shared")):
                self.win_day = day
                self.winners.add(p)
            return
        self.deaths[p] += 1
        self.discarded.add(self.names[p])
        again = self.renew and not self.zone.final
        self.status[p] = AWAITING if again else ELIMINATED

    def over(self) -> bool:
        """Whether the game is over (P-44, P-45, P-49, P-50; ``multiplayer.*`` keys).

        Over when no seat is playing or can still get a character (:meth:`in_game`).
        Cooperative: a seat out of the game loses it for the team under
        ``cooperative_dead = "team_loses"``, else only leaves the seats still in;
        the team (the seats still in) wins once ``cooperative_needed`` of them
        (0: all) survived the Sarcophagus.
        """
        if self.zone.final:
            return True
        standing = self.in_game()
        in_zone = sum(self.status[p] != FINISHED for p in standing)
        if self.scenario.variant == "cooperative":
            if self.keys.cooperative_dead == "team_loses" and len(standing) < len(self.seats):
                return True  # a teammate is out of the game: the team has lost (P-45)
            needed = self.keys.cooperative_needed or len(standing)
            if needed > 0 and self.reached >= needed:
                self.winners = set(standing)
                return True
            return in_zone == 0 or len(standing) < needed
        if self.winners and self.keys.after_win == "end":
            return True
        return in_zone == 0

    def end_of_day(self) -> None:
        """Medkits, the Zone phase, the Emission check for all (P-47..P-49), conditions."""
        playing = [p for p, s in enumerate(self.status) if s == PLAYING]
        for p in playing:
            if self.seats[p].me.lost == 0:
                self.seats[p].use_medkits()
        self.seats[0].zone()
        self.emission(playing)
        for p in playing:
            if self.seats[p].me.end is None:
                self.seats[p].conditions()

    def emission(self, playing: list[int]) -> None:
        """At the threshold, the next Emission card hits every stalker in the Open Space."""
        zone, rules = self.zone, self.rules.emission
        if zone.tokens < rules.threshold:
            return
        zone.tokens = 0
        emissions = self.seats[0].c.emissions
        card = emissions[min(zone.next_emission, len(emissions) - 1)]
        zone.next_emission += 1
        zone.drawn += 1
        if card.final:
            zone.final = True
        else:
            own = [card.wounds, card.radiation, card.psi]
            zone.in_force = [a + b for a, b in zip(zone.in_force, own, strict=True)]
        for p in playing:
            seat = self.seats[p]
            seat.me.tally["emissions"] += 1
            if card.final:
                seat.me.end = "final_emission"
            elif seat.c.location[seat.me.pos] not in SHELTERS and seat.me.lost == 0:
                seat.me.tally["emissions_suffered"] += 1
                seat.emission_damage(card, zone.in_force if rules.accumulate == "persist"
                                     else own)

    def day(self, day: int) -> bool:
        """One day; True when the game is over."""
        for p, status in enumerate(self.status):
            if status == AWAITING:
                self.new_character(p)
        for p in self.order(day):
            if self.status[p] != PLAYING:
                continue
            self.seats[p].turn()
            self.settle(p, day)
            if self.over() and (self.keys.same_day_win == "first"
                                or self.scenario.variant == "cooperative"):
                return True
        if self.over():
            return True
        self.end_of_day()
        for p in range(len(self.seats)):
            self.settle(p, day)
        return self.over()

    def play(self) -> dict:
        """Play the game; its result: winners, their characters, length, deaths, Emissions."""
        day, over = 0, False
        while not over and day < self.rules.campaign.max_days:
            day += 1
            over = self.day(day)
        return {"winners": sorted(self.winners),
                "characters": [self.names[p] for p in sorted(self.winners)],
                "days": day, "final": self.zone.final, "capped": not over,
                "deaths": list(self.deaths), "new": list(self.new), "drawn": self.zone.drawn}


def renews(scenario: Scenario) -> bool:
    """Whether a dead character's player draws a new one (P-43, P-44): ``multiplayer.
    after_death = "new_character"`` in a multiplayer game, ``death.one_stalker_after_death =
    "new_character"`` in a one-stalker one (docs/rules.md "Life and death").
    """
    rules = scenario.ruleset.rules
    if scenario.multiplayer:
        return rules.multiplayer.after_death == "new_character"
    return rules.death.one_stalker_after_death == "new_character"


def seats(scenario: Scenario) -> list[Scenario]:
    """Each seat as a one-stalker scenario: the ``[[players]]``, or the scenario itself."""
    if not scenario.multiplayer:
        return [scenario]
    return [scenario.seat(p) for p in range(len(scenario.players))]


def campaigns(scenario: Scenario) -> dict:
    """The ``Campaign`` of every seat (``("seat", p)``) and new character (``("new", name)``).

    A found or exchanged artefact is drawn as a card when its type holds a
    name any seat keeps (docs/rules.md "Artefacts in the campaign" 7): the
    seats' ``keep_artifacts`` and, when new characters come, the top-level
    policy's, which they play by.
    """
    renew = renews(scenario)
    policies = [s.policy for s in seats(scenario)] + ([scenario.policy] if renew else [])
    keepers = frozenset(n for policy in policies for n in policy.keep_artifacts)
    slots = {("seat", p): Campaign(seat, keepers) for p, seat in enumerate(seats(scenario))}
    if renew:
        slots.update({("new", c): Campaign(scenario.new_character(c), keepers)
                      for c in scenario.ruleset.stalkers})
    return slots


def play(scenario: Scenario, n_trials: int, seed: int) -> list[dict]:
    """Play ``n_trials`` reference multiplayer games; one result row per game."""
    slots = campaigns(scenario)
    streams = [random.Random(f"{seed}:{purpose}") for purpose in ("dice", "deck", "env")]
    return [Table(scenario, slots, streams).play() for _ in range(n_trials)]


def summarise(rows: list[dict], seats: int) -> Counter:
    """Counts of the reported outcomes and sums of the per-game quantities.

    Wins per seat and character, nobody, Final, capped; sums and sums of squares
    (``key_sq``) of days, Emissions drawn, deaths and new characters per seat.
    """
    counts: Counter = Counter()
    for row in rows:
        for p, name in zip(row["winners"], row["characters"], strict=True):
            counts[f"seat{p + 1}"] += 1
            counts[name] += 1
        counts["nobody"] += not row["winners"]
        counts["final"] += row["final"] and not row["winners"]
        counts["capped"] += row["capped"]
        values = {"days": row["days"], "drawn": row["drawn"]}
        for p in range(seats):
            values[f"deaths{p + 1}"] = row["deaths"][p]
            values[f"new{p + 1}"] = row["new"][p]
        for key, value in values.items():
            counts[key] += value
            counts[f"{key}_sq"] += value * value
    return counts
