"""Plain-Python firefight on a battlefield (issue 50): the whole fight, independent of the kernel.

:class:`FieldFight` plays a battlefield scenario as :class:`sim.reference.skirmish.Fight`
plays the abstract one, rule by rule on figure objects, and asks every question about
the table of the plain-Python geometry (:mod:`sim.reference.skirmish_geometry`, wall
segments) and of the scenario's :class:`~sim.rules.skirmish_model.Battlefield`, never
of the kernel's arrays or numba functions: inside a building is in cover (S-01), one
flight of stairs a turn (S-02), doors cost inches and windows end the move (S-03), In
Sight when a mover comes into sight or range (S-14), lines of sight and units of cover
(S-19, S-23, S-31), further targets within the spread (S-25), surrender within 6 inches
in sight (S-38) and encirclement (S-39); the movement policy (``advance``: each figure
that cannot fire heads for the nearest enemy; ``battlefield.walls``) as
docs/skirmish.md words it. It draws from the same streams as the kernel, and
``tests/skirmish/test_skirmish_field_reference.py`` checks that the kernel's win and
casualty distribution agrees with it on both bundled battlefields.
"""

from __future__ import annotations

import math

import numpy as np

from sim.kernels import skirmish as k
from sim.reference import skirmish_geometry as geo
from sim.reference.skirmish import Fight, Figure
from sim.rules.skirmish_model import Scenario
from sim.skirmish.compile import CompiledFight, compile_scenario

INWARD = 1.0
"""Inches inside (or outside) a building's door a figure heads for (docs/skirmish.md)."""


class FieldFight(Fight):
    """One firefight of a battlefield scenario (S-01..S-43 on the table).

    Parameters
    ----------
    scenario : Scenario
        A validated scenario with a ``battlefield``.
    seed, trial : int
        The streams: dice from (seed, trial, DICE), target choices from
        (seed, trial, POLICY).
    fight : CompiledFight, optional
        The scenario's figure and rule data (compiled once for many trials).
    """

    def __init__(self, scenario: Scenario, seed: int, trial: int,
                 fight: CompiledFight | None = None) -> None:
        fight = fight or compile_scenario(scenario)
        super().__init__(fight, seed, trial)
        self.field = scenario.battlefield
        rules = scenario.rules
        self.block = rules.battlefield_units_block
        self.door = float(rules.battlefield_door_inches)
        self.contact = float(rules.battlefield_contact_inches)
        self.recover_inches = float(rules.battlefield_recover_inches)
        self.surround = float(rules.flee_surrounded_inches)
        self.counted = rules.battlefield_shooter_cover == "counted"
        self.height = rules.battlefield_height_clears_cover
        self.enter_move = rules.battlefield_entering == "move"
        self.round = self.field.walls == "round"
        self.movement = [g.movement for g in scenario.groups]
        positions = [p for g in scenario.groups for p in g.positions]
        for f, place in zip(self.figures, positions, strict=True):
            f.weapon_range = int(fight.fig[f.index, k.F_RANGE])
            f.spread = int(fight.fig[f.index, k.F_SPREAD])
            f.sight_lit = self.sight(f.group, f.night_vision, lit=True)
            f.x, f.y = float(place[0]), float(place[1])
            f.floor = int(place[2]) if len(place) > 2 else 0
            f.entering = False
            f.old = (f.x, f.y, f.floor)
            if self.building(f) >= 0:
                f.pos = k.COVER                                      # S-01

    # -- the table ----------------------------------------------------------------------
    def building(self, f: Figure) -> int:
        """The building ``f`` stands in, -1 outside."""
        return geo.home(self.field, f.x, f.y)

    def sight_at(self, s: Figure, t: Figure) -> float:
        """How far ``s`` sees ``t``: S-20's limit lifted where ``t`` stands lit."""
        lit = any(a.x <= t.x <= a.x + a.width and a.y <= t.y <= a.y + a.depth
                  for a in self.field.lit)
        sight = s.sight_lit if lit else s.sight
        return math.inf if sight is None else sight

    def seen(self, s: Figure, t: Figure, at) -> bool:
        """Whether ``s`` sees ``t`` standing at ``at`` (x, y, floor): within sight, S-19."""
        if math.hypot(s.x - at[0], s.y - at[1]) > self.sight_at(s, t):
            return False
        return not geo.blocked(self.field, (s.x, s.y, s.floor), at)

    def fire_level(self, s: Figure, t: Figure) -> int:
        """Cover level of ``s``'s fire at ``t``, -1 if it cannot fire (S-19, S-23, S-31)."""
        d = math.hypot(s.x - t.x, s.y - t.y)
        if d > s.weapon_range or d > self.sight_at(s, t):
            return -1
        return geo.fire_level(self.field, (s.x, s.y, s.floor), (t.x, t.y, t.floor),
                              block_units=self.block, entering=t.entering,
                              contact=self.contact, shooter_counted=self.counted,
                              height_clears=self.height)

    def can_fire(self, s: Figure) -> bool:
        """Whether ``s`` can fire at some visible enemy."""
        return any(self.targetable(t) and self.fire_level(s, t) >= 0
                   for t in self.groups[1 - s.group])

    def settle(self, f: Figure) -> None:
        """S-01: inside and not entering is in cover, else in the open."""
        f.pos = k.COVER if self.building(f) >= 0 and not f.entering else k.OPEN

    # -- the hooks of the abstract fight ------------------------------------------------
    def may_fire(self, s: Figure) -> bool:
        """On the table a shooter's reach is its line of fire (:meth:`declare`)."""
        return True

    def line_level(self, s: Figure, t: Figure) -> int:
        """The cover the line of fire crosses raises the hit-table level (S-23, S-31)."""
        return self.fire_level(s, t)

    def declare(self, s: Figure, enemy: int) -> list[Figure]:
        """Targets ``s`` can fire at: the fixed one kept (S-35), else a random first and up to
        ``targets_per_shooter - 1`` more within the weapon's spread of it (S-25, S-28).
        """
        if s.target >= 0:
            t = self.figures[s.target]
            return [t] if self.targetable(t) and self.fire_level(s, t) >= 0 else []
        cand = [e for e in self.groups[enemy]
                if self.targetable(e) and self.fire_level(s, e) >= 0]
        if not cand:
            return []
        first = cand[self.policy.below(len(cand)) if len(cand) > 1 else 0]
        want = min(self.p[k.P_TARGETS], s.dice) - 1
        if want <= 0:
            return [first]
        near = [e for e in cand if e is not first and (e.x - first.x) ** 2
                + (e.y - first.y) ** 2 <= s.spread * s.spread + 1e-9]
        chosen = [first]
        for j in range(min(want, len(near))):
            i = j + self.policy.below(len(near) - j) if len(near) - j > 1 else j
            near[j], near[i] = near[i], near[j]
            chosen.append(near[j])
        return chosen

    def flee(self, f: Figure) -> None:
        """S-39: a fleeing figure every run to a table edge of which passes within
        ``flee.surrounded_inches`` of an enemy in normal condition surrenders instead.
        """
        if self.p[k.P_SURROUNDED]:
            enemies = [(e.x, e.y) for e in self.active(1 - f.group)]
            if geo.is_surrounded(self.field, (f.x, f.y), enemies, self.surround):
                f.status = k.LOST
                self.surrendered[f.group] += 1
                return
        f.status = k.FLEE

    def may_recover(self, f: Figure) -> bool:
        """S-41: only with a friend in normal condition within ``recover_inches``."""
        return any(c is not f and c.status == k.ACTIVE
                   and math.hypot(c.x - f.x, c.y - f.y) <= self.recover_inches
                   for c in self.groups[f.group])

    def surrender(self, g: int, enemies: list[Figure]) -> None:
        """S-38: a cowering figure with an armed enemy (of ``enemies``, in normal condition)
        within ``surrender.inches`` that sees it is taken prisoner.
        """
        inches = self.p[k.P_SURRENDER]
        if inches < 0:
            return
        for c in self.groups[g]:
            if c.status != k.COWER:
                continue
            if any(e.status == k.ACTIVE and math.hypot(e.x - c.x, e.y - c.y) <= inches
                   and self.seen(e, c, (c.x, c.y, c.floor)) for e in enemies):
                c.status = k.LOST
                self.surrendered[g] += 1

    # -- In Sight (S-14) ----------------------------------------------------------------
    def in_sight_testers(self, g: int) -> list[Figure]:
        """Figures of ``g`` a mover came into the sight, or into the range within sight, of."""
        movers = [m for m in self.groups[1 - g] if m.moved and m.status in (k.ACTIVE, k.COWER)]
        out = []
        for f in self.active(g):
            for m in movers:
                reach = min(f.weapon_range, self.sight_at(f, m))
                before = math.hypot(m.old[0] - f.x, m.old[1] - f.y)
                seen_before = self.seen(f, m, m.old)
                seen_now = self.seen(f, m, (m.x, m.y, m.floor))
                now = math.hypot(m.x - f.x, m.y - f.y)
                if seen_now and (not seen_before or (now <= reach and before > reach)):
                    out.append(f)
                    break
        return out

    # -- movement (S-02, S-03, S-09), the policy ``advance`` ----------------------------
    def way(self, b: int, f: Figure, inward: float):
        """The point ``inward`` inches inside (negative: outside) building ``b``'s nearest
        door to ``f``, else its nearest ground-floor window; None if it has neither.
        """
        openings = [o for o in self.field.buildings[b].openings if o.floor == 0]
        for kind in ("door", "window"):
            ways = [o for o in openings if o.kind == kind]
            if ways:
                o = min(ways, key=lambda o: (o.x - f.x) ** 2 + (o.y - f.y) ** 2)
                break
        else:
            return None
        bb = self.field.buildings[b]
        if abs(o.y - bb.y) <= 1e-9:
            return o.x, o.y + inward
        if abs(o.y - (bb.y + bb.depth)) <= 1e-9:
            return o.x, o.y - inward
        if abs(o.x - bb.x) <= 1e-9:
            return o.x + inward, o.y
        return o.x - inward, o.y

    def step(self, at, goal, inches: float, stop: float):
        """One move towards ``goal`` (S-03): ``(x, y, how, rest)``, ``rest`` the inches left
        at the goal (:func:`sim.reference.skirmish_geometry.move_round`, or straight).
        """
        if self.round:
            return geo.move_round(self.field, at, goal, inches, door=self.door, stop=stop)
        x, y, how = geo.move(self.field, at, goal, inches, door=self.door, stop=stop)
        return x, y, how, inches - math.hypot(goal[0] - at[0], goal[1] - at[1])

    def field_move(self, g: int) -> None:
        """Each figure of ``g`` that may act and cannot fire heads for the nearest enemy."""
        dice = self.roll(2) if self.p[k.P_FAST_ATTEMPT] else []
        for f in self.groups[g]:
            f.moved = False
            f.old = (f.x, f.y, f.floor)
        for f in self.acting(g):
            if f.fired or self.can_fire(f):
                continue
            goals = [c for c in self.groups[1 - g] if c.status in (k.ACTIVE, k.COWER)]
            if not goals:
                continue
            goal = min(goals, key=lambda c: math.hypot(c.x - f.x, c.y - f.y))
            best = math.hypot(goal.x - f.x, goal.y - f.y)
            n = self.passes(dice, f.skill) if dice else 0
            if f.carrying is not None and len(self.carriers_of(f.carrying)) < 2:
                n = 0                                                # S-05
            inches = float(f.speed + n * self.p[k.P_FAST_INCHES])
            b, gb = self.building(f), self.building(goal)
            if b >= 0 and (f.floor > 0 and gb != b or gb == b and f.floor != goal.floor):
                want = 0 if gb != b else goal.floor                  # S-02: one floor a turn
                if self.field.buildings[b].stairs and want != f.floor:
                    f.floor += 1 if want > f.floor else -1
            else:
                self.walk(f, goal, b, gb, best, inches)
            f.fast, f.prone, f.hidden, f.moved = n >= 1, False, False, True
            self.settle(f)

    def walk(self, f: Figure, goal: Figure, b: int, gb: int, best: float, inches: float):
        """The straight legs of ``f``'s move towards ``goal`` (S-03), through a way in or out."""
        at = (f.x, f.y, f.floor)
        x, y, left, found = f.x, f.y, inches, False
        side = gb if gb >= 0 else b
        if gb != b and side >= 0:
            way = 1.0 if gb >= 0 else -1.0
            before = self.way(side, f, -way * INWARD)
            through = self.way(side, f, way * INWARD)
            found = through is not None
            if found:
                leg = math.hypot(before[0] - f.x, before[1] - f.y)
                if leg > geo.PAST:
                    x, y, how, rest = self.step(at, before, left, 0.0)
                    left = rest if how == "free" and rest >= 0.0 else 0.0
                if left > 0.0:
                    x, y, _, _ = self.step((x, y, f.floor), through, left, 0.0)
        if not found:
            stop = 1.0
            reach = min(f.weapon_range, self.sight_at(f, goal))
            if best > reach:
                stop = reach - 0.5
            x, y, _, _ = self.step(at, (goal.x, goal.y), left, stop)
        if self.building_at(x, y) != b:
            f.entering = self.building_at(x, y) >= 0
        f.x, f.y = x, y

    def building_at(self, x: float, y: float) -> int:
        """The building holding ``(x, y)``, -1 outside."""
        return geo.home(self.field, x, y)

    # -- the activation -----------------------------------------------------------------
    def activate(self, g: int) -> bool:
        """One activation of ``g`` on the table; True if the fight is over."""
        if self.begin(g):
            return True
        if not self.enter_move:
            for f in self.groups[g]:
                if f.entering:
                    f.entering = False
                    self.settle(f)
        advance = self.movement[g] == "advance" and any(
            not self.can_fire(f) for f in self.acting(g))
        if advance:
            self.field_move(g)
            self.surrender(1 - g, [f for f in self.groups[g] if f.moved])
            testers = self.in_sight_testers(1 - g)
            if self.test_in_sight(1 - g, testers) > 0:
                self.exchange(1 - g)
                if self.ended():
                    return True
            self.entered(g)
        else:
            for f in self.groups[g]:
                f.moved = False
        return self.fire(g)

    def entered(self, g: int) -> None:
        """With ``entering = "move"`` the entering of ``g``'s movers ends after In Sight."""
        if self.enter_move:
            for f in self.groups[g]:
                if f.entering:
                    f.entering = False
                    self.settle(f)


def run_field_reference(scenario: Scenario, seed: int, n_trials: int) -> np.ndarray:
    """Counts of ``n_trials`` battlefield fights in the kernel's row layout (without the
    position grids), played in plain Python.
    """
    fight = compile_scenario(scenario)
    n0, n1 = fight.sizes
    row = np.zeros(k.row_layout(n0, n1, int(fight.params[k.P_MAX_ROUNDS]))[-1], dtype=np.int64)
    for t in range(n_trials):
        game = FieldFight(scenario, seed, t, fight)
        game.tally(game.play(), row)
    return row
