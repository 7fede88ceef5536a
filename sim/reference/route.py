"""Reference movement on the hex map (Z-01..Z-03, Z-19..Z-26), in plain Python.

Two searches over the validated map model (:class:`sim.rules.model.Map`),
sharing no code with :mod:`sim.campaign.route` or :mod:`sim.campaign.hexmap`:

- :class:`Terrain.first_day` and :meth:`Terrain.costs`: Dijkstra over the
  states (hex, road segment arrived on) with the label (day, steps used that
  day), the optimal route of docs/rules.md "Route planning" (fewest days,
  then most steps left on the last day). Ties go to the state popped first
  in (label, hex, segment) order, the tie rule the rules document, so that
  the campaign reference walks the same hexes as the kernel when two routes
  are equally good.
- :meth:`Terrain.walk`: a brute-force walker that knows no labels and no
  ordering. Day by day it collects every (hex, segment, steps used) that
  some sequence of moves reaches, with an optional rest (ending the day
  early) before any move. It checks the Dijkstra above and the campaign
  kernel's days on whole maps.

Movement rules, as docs/rules.md "Movement" states them: a day has
``allowance`` steps (Z-19, plus the best movement item, Z-01, Z-02); entering
a hex costs its terrain (Z-21, Z-22, Z-24), an Epicentre hex
``movement.epicentre_cost`` (Z-03); a move that does not fit waits for the
next day and unused steps are lost (Z-23); a move into the Epicentre must
keep the day's steps within ``min(allowance, base_steps)`` unless
``movement.items_in_epicentre`` (Z-03); leaving a road hex by another segment
than the one arrived on adds ``movement.road_change_cost`` (Z-25, Z-26); a
day, a route and an off-road move start on no segment.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any

from sim.rules.model import Map
from sim.rules.schema import DIRECTIONS

NO_SEGMENT = -1
"""The segment of a stalker who did not arrive along a road (or starts a day)."""


@dataclass(frozen=True)
class Search:
    """Labels and parents of one Dijkstra search from ``start``.

    Attributes
    ----------
    start : int
        Hex index the search started from (day 1, no step used).
    allowance : int
        Steps a day.
    best : dict
        ``(hex, segment) -> (day, steps used that day)``, the optimal label.
    parent : dict
        ``(hex, segment) -> (hex, segment)`` of the move that set the label.
    """

    start: int
    allowance: int
    best: dict
    parent: dict


class Terrain:
    """The map as movement sees it: neighbours, step costs, Epicentre flags, road segments.

    Parameters
    ----------
    hexmap : Map
        The validated map model (``ruleset.map``); hex ``i`` is row ``i`` of
        ``map.csv``.
    movement : object
        The ``rules.movement`` section (``base_steps``, ``epicentre_cost``,
        ``road_change_cost``, ``items_in_epicentre``).
    """

    def __init__(self, hexmap: Map, movement: Any):
        self.hexes = hexmap.hexes
        where = {(h.q, h.r): i for i, h in enumerate(self.hexes)}
        self.neighbours = [[where.get(h.neighbour(d)) for d in range(len(DIRECTIONS))]
                           for h in self.hexes]
        self.epicentre = [h.epicentre for h in self.hexes]
        self.cost = [int(movement.epicentre_cost) if h.epicentre else h.terrain
                     for h in self.hexes]
        # The segment of each hex leaving by each direction (Z-26), numbered in
        # the order the ``roads`` cell lists them.
        self.segment = [[NO_SEGMENT] * len(DIRECTIONS) for _ in self.hexes]
        for i, h in enumerate(self.hexes):
            for s, directions in enumerate(h.roads):
                for d in directions:
                    self.segment[i][d] = s
        self.base = int(movement.base_steps)
        self.change = int(movement.road_change_cost)
        self.items_in_epicentre = bool(movement.items_in_epicentre)

    def epicentre_limit(self, allowance: int) -> int:
        """Steps usable on a day that enters the Epicentre (Z-03)."""
        return allowance if self.items_in_epicentre else min(allowance, self.base)

    def moves(self, h: int, seg: int, used: int, allowance: int):
        """Every move from ``(h, seg)`` with ``used`` steps spent today.

        Yields ``(next hex, segment arrived on, steps it costs today or None
        when it does not fit today, cost on a fresh day or None when it never
        fits)``.
        """
        epi = self.epicentre_limit(allowance)
        for d, m in enumerate(self.neighbours[h]):
            if m is None:
                continue
            limit = epi if self.epicentre[m] else allowance
            cost = self.cost[m]
            if cost > limit:
                continue  # Z-23: more than a whole day's steps
            out = self.segment[h][d]
            extra = self.change if out >= 0 and seg >= 0 and out != seg else 0
            arrive = self.segment[m][(d + 3) % 6] if out >= 0 else NO_SEGMENT
            today = used + cost + extra if used + cost + extra <= limit else None
            yield m, arrive, today, cost

    def search(self, start: int, allowance: int) -> Search:
        """Dijkstra from ``start`` at the beginning of day 1 with ``allowance`` steps a day."""
        best = {(start, NO_SEGMENT): (1, 0)}
        parent: dict = {}
        heap = [(1, 0, start, NO_SEGMENT)]
        while heap:
            day, used, h, seg = heapq.heappop(heap)
            if best[(h, seg)] != (day, used):
                continue  # a stale entry: a better label was found later
            for m, arrive, today, fresh in self.moves(h, seg, used, allowance):
                label = (day, today) if today is not None else (day + 1, fresh)
                state = (m, arrive)
                if state not in best or label < best[state]:
                    best[state] = label
                    parent[state] = (h, seg)
                    heapq.heappush(heap, (*label, m, arrive))
        return Search(start, allowance, best, parent)

    @staticmethod
    def _target_state(search: Search, target: int):
        """The state of ``target`` with the smallest label (lowest segment on ties)."""
        states = [(label, seg) for (h, seg), label in search.best.items() if h == target]
        if not states:
            return None
        _, seg = min(states)
        return target, seg

    def costs(self, search: Search, target: int) -> tuple[int, int]:
        """``(days, steps left on the last day)`` of the optimal route; ``(-1, 0)`` if none.

        ``(0, allowance)`` is not returned here: callers handle start == target.
        """
        state = self._target_state(search, target)
        if state is None:
            return -1, 0
        day, used = search.best[state]
        return day, search.allowance - used

    def first_day(self, search: Search, target: int) -> tuple[int, ...]:
        """Hexes entered on the first day of the optimal route to ``target`` (empty: none)."""
        if target == search.start:
            return ()
        state = self._target_state(search, target)
        if state is None:
            return ()
        chain = []
        while state in search.parent:
            chain.append(state)
            state = search.parent[state]
        return tuple(h for h, seg in reversed(chain) if search.best[(h, seg)][0] == 1)

    def walk(self, start: int, target: int, allowance: int, max_days: int = 200
             ) -> tuple[int, int]:
        """Fewest days and most steps left of any walk, by exhaustive search (no labels).

        Every sequence of moves is followed, with an optional rest before any
        move (a rest ends the day; the next starts on no segment with no step
        used), collapsing only identical (hex, segment, steps used) states of
        the same day.

        Returns
        -------
        tuple of int
            ``(days, steps left on the last day)``; ``(0, allowance)`` when
            ``start == target``; ``(-1, 0)`` when no walk of at most
            ``max_days`` days reaches it.
        """
        if start == target:
            return 0, allowance
        mornings = {start}
        seen_mornings: set[int] = set()
        for day in range(1, max_days + 1):
            today = {(h, NO_SEGMENT, 0) for h in mornings}
            frontier = list(today)
            while frontier:
                h, seg, used = frontier.pop()
                for m, arrive, spent, _ in self.moves(h, seg, used, allowance):
                    state = (m, arrive, spent)
                    if spent is not None and state not in today:
                        today.add(state)
                        frontier.append(state)
            reached = [used for h, seg, used in today if h == target]
            if reached:
                return day, allowance - min(reached)
            seen_mornings |= mornings
            mornings = {h for h, _, _ in today} - seen_mornings
            if not mornings:
                return -1, 0
        return -1, 0
