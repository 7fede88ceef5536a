"""Plain-Python firefight: the readable, executable specification of the kernel.

This module plays the same fight as :func:`sim.kernels.skirmish.fight`, rule
by rule and die by die, on figure objects instead of arrays. It draws from the
same counter-based streams (a pure-Python copy of :mod:`sim.kernels.rng`), so
for a seed it gives bit-identical counts; tests compare the two, and the
benchmark times the kernel against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.kernels import rng
from sim.kernels import skirmish as k
from sim.skirmish.compile import CompiledFight

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Stream:
    """The (seed, trial, purpose) stream of :mod:`sim.kernels.rng`, in plain Python."""

    def __init__(self, seed: int, trial: int, purpose: int) -> None:
        key = _mix64((seed + _GOLDEN * (purpose + 1)) & _MASK)
        self.counter = _mix64(key ^ _mix64((trial * 0xD6E8FEB86659FD93 + _GOLDEN) & _MASK))
        self.bits = 0
        self.left = 0

    def next_u64(self) -> int:
        """Next 64 random bits."""
        self.counter = (self.counter + _GOLDEN) & _MASK
        return _mix64(self.counter)

    def below(self, n: int) -> int:
        """Uniform integer in 0..n-1 without bias, as :func:`sim.kernels.rng.below`."""
        if n < 1 << 32:
            m = (self.next_u64() >> 32) * n
            if m & 0xFFFFFFFF < n:
                threshold = ((1 << 32) - n) % n
                while m & 0xFFFFFFFF < threshold:
                    m = (self.next_u64() >> 32) * n
            return m >> 32
        threshold = (-n) % (1 << 64) % n
        while True:
            x = self.next_u64()
            if x >= threshold:
                return x % n

    def d6(self) -> int:
        """A fair die, cut from the stream's bytes (bytes 252..255 rejected)."""
        while True:
            if self.left == 0:
                self.bits = self.next_u64()
                self.left = 8
            b = self.bits & 0xFF
            self.bits >>= 8
            self.left -= 1
            if b < 252:
                return b % 6 + 1


@dataclass
class Figure:
    """A figure on the abstract battlefield: its data and its state in the fight."""

    index: int
    group: int
    skill: int
    dice: int
    range: int
    suppression: int
    two_weapons: bool
    speed: int
    night_vision: bool = False
    sight: int | None = None
    status: int = k.ACTIVE
    pos: int = k.OPEN
    prone: bool = False
    fast: bool = False
    hidden: bool = False
    moved: bool = False
    fired: bool = False
    target: int = k.NO_TARGET
    skill_mod: int = 0
    fired_upon: bool = False
    hits: int = 0
    suppressed: bool = False
    attacker: int = -1
    testing: bool = False
    waiting: bool = False
    carrying: Figure | None = None
    declared: list = field(default_factory=list)

    def __setattr__(self, name, value) -> None:
        # A figure that leaves normal condition drops the comrade it carries (S-05).
        if name == "status" and value != k.ACTIVE:
            object.__setattr__(self, "carrying", None)
        object.__setattr__(self, name, value)


class Fight:
    """One firefight between the two groups of a compiled scenario (S-07..S-43).

    Parameters
    ----------
    fight : CompiledFight
        The scenario.
    seed, trial : int
        Which streams to draw from: dice from (seed, trial, DICE), target
        choices from (seed, trial, POLICY).
    """

    def __init__(self, fight: CompiledFight, seed: int, trial: int) -> None:
        self.c = fight
        self.p = [int(x) for x in fight.params]
        self.need = [int(x) for x in fight.need]
        self.damage = [int(x) for x in fight.damage]
        self.dice = Stream(seed, trial, rng.DICE)
        self.policy = Stream(seed, trial, rng.POLICY)
        self.figures = []
        for i, row in enumerate(fight.fig.tolist()):
            self.figures.append(Figure(
                index=i, group=row[k.F_GROUP], skill=row[k.F_SKILL], dice=row[k.F_DICE],
                range=row[k.F_RANGE], suppression=row[k.F_SUPP], two_weapons=bool(row[k.F_TWO]),
                speed=row[k.F_SPEED], pos=row[k.F_POS], hidden=bool(row[k.F_HIDDEN]),
                prone=bool(row[k.F_PRONE]), night_vision=bool(row[k.F_NIGHT_VISION])))
        self.groups = [self.figures[fight.grp[g, k.G_START]:fight.grp[g, k.G_STOP]]
                       for g in range(2)]
        for f in self.figures:
            f.sight = self.sight(f.group, f.night_vision)
            f.range = min(f.range, f.sight) if f.sight is not None else f.range
        self.leader = [bool(fight.grp[g, k.G_LEADER]) for g in range(2)]
        self.flanked = [bool(fight.grp[g, k.G_FLANKED]) for g in range(2)]
        self.withdraw_at = [int(fight.grp[g, k.G_WITHDRAW]) for g in range(2)]
        self.carriers = [int(fight.grp[g, k.G_CARRIERS]) for g in range(2)]
        self.distance = fight.distance
        self.withdrew = -1
        self.capped = False
        self.surrendered = [0, 0]  # taken prisoner in the fight (S-38)

    # -- helpers ------------------------------------------------------------------------
    def sight(self, g: int, night_vision: bool, lit: bool | None = None) -> int | None:
        """How far a figure of group ``g`` sees the enemy; None: no limit (S-19..S-22).

        A figure shoots only what it sees (S-19), so its weapon reaches no
        further than this (``Fight.__init__``). ``lit``: whether the enemy stands
        in a well-lit area (S-20; default: its group's ``lit``).
        """
        night = self.c.params[k.P_NIGHT] == 1
        terrain = [int(self.c.grp[h, k.G_TERRAIN]) for h in (g, 1 - g)]
        lit = bool(self.c.grp[1 - g, k.G_LIT]) if lit is None else lit
        limits = []
        if night and not (night_vision or lit):                     # S-20
            limits.append(int(self.c.params[k.P_NIGHT_INCHES]))
        # S-21, S-22: 12 by day, 6 at night; where the S-20 exceptions lift every
        # night limit (visibility.exceptions_lift), they see as by day.
        dark = night and not ((night_vision or lit) and self.c.params[k.P_EXCUSED_ALL] == 1)
        reduced = int(self.c.params[k.P_REDUCED_NIGHT if dark else k.P_REDUCED_DAY])
        at_edge = k.TERRAIN_EDGE in terrain                         # seen and seeing: S-21
        if k.TERRAIN_WOODS in terrain and not at_edge:
            limits.append(reduced)
        if self.c.params[k.P_BAD_WEATHER] == 1:                     # S-22
            limits.append(reduced)
        return min(limits) if limits else None

    def active(self, g: int) -> list[Figure]:
        """Figures of group ``g`` in normal condition."""
        return [f for f in self.groups[g] if f.status == k.ACTIVE]

    def acting(self, g: int) -> list[Figure]:
        """Figures of group ``g`` that may act in its activation: not one-die returners (S-42)."""
        return [f for f in self.active(g) if not f.waiting]

    def ended(self) -> bool:
        """S-18: the fight is over when a side has nobody left who can fire."""
        return not self.active(0) or not self.active(1)

    def in_cover(self, f: Figure) -> bool:
        """'In cover' on the reaction tables (``reaction.partial_cover_is``)."""
        return f.pos == k.COVER or (f.pos == k.PARTIAL and self.p[k.P_PARTIAL_IS_COVER] != 0)

    def roll(self, n: int) -> list[int]:
        """Shared group dice, in the order rolled (S-11)."""
        return [self.dice.d6() for _ in range(n)]

    @staticmethod
    def passes(dice: list[int], skill: int, cap: int = 2) -> int:
        """Dice showing Skill or less (S-11), capped (S-15)."""
        return min(sum(d <= skill for d in dice), cap)

    @staticmethod
    def targetable(f: Figure) -> bool:
        """Visible and still on the field (S-16, S-38)."""
        return f.status in (k.ACTIVE, k.COWER) and not f.hidden

    # -- what a battlefield changes (sim.reference.skirmish_field.FieldFight) -------------
    def may_fire(self, s: Figure) -> bool:
        """Whether ``s`` reaches the enemy at all: the group distance within its range."""
        return self.distance <= s.range

    def line_level(self, s: Figure, t: Figure) -> int:
        """Hit-table level the line of fire adds (none on the abstract battlefield)."""
        return 0

    def flee(self, f: Figure) -> None:
        """``f`` flees (S-38, S-39)."""
        f.status = k.FLEE

    def may_recover(self, f: Figure) -> bool:
        """Whether ``f`` may try Recover (a friend near: always so on the group distance)."""
        return True

    # -- shooting -----------------------------------------------------------------------
    def declare(self, s: Figure, enemy: int) -> list[Figure]:
        """Targets named before any die is rolled (S-25, S-28, S-35)."""
        if s.target >= 0:
            t = self.figures[s.target]
            return [t] if self.targetable(t) else []
        cand = [e for e in self.groups[enemy] if self.targetable(e)]
        m = min(self.p[k.P_TARGETS], len(cand), s.dice)
        chosen = []
        for j in range(m):
            i = j + self.policy.below(len(cand) - j) if len(cand) - j > 1 else j
            cand[j], cand[i] = cand[i], cand[j]
            chosen.append(cand[j])
        return chosen

    def volley(self, side: int) -> None:
        """Group ``side`` fires at once; hits roll damage; the fired-upon react (S-28..S-38)."""
        enemy = 1 - side
        for f in self.figures:
            f.fired_upon, f.hits, f.suppressed, f.testing = False, 0, False, False
        for s in self.groups[side]:
            s.declared = []
            if s.target != k.NO_TARGET and s.status == k.ACTIVE and self.may_fire(s):
                s.declared = self.declare(s, enemy)
            s.target = k.NO_TARGET
        for s in self.groups[side]:
            if not s.declared:
                s.skill_mod = 0
                continue
            s.hidden, s.fired = False, True
            dice = sorted((self.dice.d6() for _ in range(s.dice)), reverse=True)  # S-26
            skill = s.skill + s.skill_mod
            s.skill_mod = 0
            m = len(s.declared)
            shooter_lvl = 1 if s.fast or s.two_weapons else 0
            if s.carrying is not None:
                shooter_lvl = 2                     # S-06: every target counts as in cover
            i = 0
            for j, t in enumerate(s.declared):
                lvl = max(self.target_level(t), shooter_lvl, self.line_level(s, t))
                lvl = 2 if j >= 2 else (max(lvl, 1) if j == 1 else lvl)
                t.fired_upon, t.attacker = True, s.index
                if self.suppresses(s, t):
                    t.suppressed = True
                for _ in range(s.dice // m + (1 if j < s.dice % m else 0)):                 # S-26
                    if dice[i] + skill >= self.need[lvl]:
                        t.hits += 1
                        if t.status != k.OUT and self.damage[self.dice.d6()] == k.DMG_OUT:
                            t.status = k.OUT
                    i += 1
        for t in self.groups[enemy]:
            if not t.fired_upon:
                continue
            if t.status == k.COWER:
                self.flee(t)                                        # S-38
            elif t.status == k.ACTIVE and (self.p[k.P_TRIGGER] == k.TRIGGER_NO_DAMAGE
                                           or t.hits == 0):
                t.testing = True                                    # S-34 / S-43

    @staticmethod
    def target_level(t: Figure) -> int:
        """Hit-table conditions of the target (S-30, S-31)."""
        if t.pos == k.COVER:
            return 2
        return 1 if t.pos == k.PARTIAL or t.prone or t.fast else 0

    def suppresses(self, s: Figure, t: Figure) -> bool:
        """S-32: the shooter's rating against the target's weapon (``suppression.compare``)."""
        if self.p[k.P_SUPP_CMP] == k.SUPP_GREATER_EQUAL:
            return s.suppression >= t.suppression
        return s.suppression > t.suppression

    def apply(self, f: Figure, result: int) -> None:
        """A reaction result that is not fire."""
        if result == k.R_PRONE:
            f.prone = True
        elif result in (k.R_COVER_PRONE, k.R_HIDE):
            f.pos = k.COVER
            f.prone = True if result == k.R_COVER_PRONE else f.prone
        elif result == k.R_FLEE:
            self.flee(f)
        elif result == k.R_COWER:
            f.status = k.COWER
        elif result == k.R_REVEAL:
            f.hidden = False

    def received_fire(self, g: int, allow_fire: bool) -> int:
        """Group ``g`` takes one Received Fire test on shared 2d6 (S-34..S-37)."""
        testers = [f for f in self.groups[g] if f.testing]
        if not testers:
            return 0
        dice = self.roll(2)
        back = 0
        for f in testers:
            f.testing = False
            r = self.received_fire_result(self.passes(dice, f.skill), self.in_cover(f),
                                          f.suppressed, f.fast, self.flanked[g])
            if r in (k.R_FIRE, k.R_FIRE_M1):
                if allow_fire:
                    f.target, f.skill_mod = f.attacker, (-1 if r == k.R_FIRE_M1 else 0)
                    back += 1
            else:
                self.apply(f, r)
        if self.p[k.P_SURRENDER_WHEN] == k.SURRENDER_WITHIN:
            self.surrender(g, self.active(1 - g))                   # S-38
        return back

    def received_fire_result(self, n: int, cover: bool, suppressed: bool, fast: bool,
                             flanked: bool) -> int:
        """The Received Fire table (S-36), conditions in ``received_fire.precedence`` order."""
        if n == 2:
            if cover:
                return k.R_PRONE if suppressed else k.R_FIRE
            if suppressed:
                return k.R_COVER_PRONE if fast else k.R_PRONE
            return k.R_FIRE
        if n == 1:
            prec = self.p[k.P_PRECEDENCE]
            flank_first = prec == k.PREC_FLANK or (prec == k.PREC_TEXT and cover)
            if flank_first and flanked:
                return k.R_FLEE
            if suppressed:
                return k.R_PRONE
            if flanked:
                return k.R_FLEE
            return k.R_FIRE_M1
        return k.R_COWER if cover else k.R_FLEE

    def exchange(self, side: int) -> None:
        """A volley and the return fire it provokes (S-34, S-35), ``max_chain`` volleys at most."""
        depth = 1
        while True:
            self.volley(side)
            if self.ended():
                return
            back = self.received_fire(1 - side, depth < self.p[k.P_MAX_CHAIN])
            if back == 0 or self.ended():
                return
            side, depth = 1 - side, depth + 1

    # -- activation ---------------------------------------------------------------------
    def covering(self, f: Figure) -> bool:
        """Covering for the In Sight test (S-15, ``covering.when``)."""
        when = self.p[k.P_COVER_WHEN]
        return when == k.COVER_ALWAYS or (when == k.COVER_STATIONARY and not f.moved)

    def in_sight_result(self, n: int, f: Figure, g: int) -> int:
        """The In Sight table (S-15)."""
        if f.hidden:
            if self.leader[g] and n >= 1:
                return k.R_FIRE if self.p[k.P_LEADER_CHOICE] == k.LEADER_FIRE else k.R_NONE
            return {2: k.R_FIRE, 1: k.R_FIRE_M1}.get(n, k.R_REVEAL)
        if n >= 2:
            return k.R_FIRE
        if n == 1:
            if self.in_cover(f):
                return k.R_FIRE_M1
            return k.R_PRONE if self.p[k.P_OPEN_ONE] == k.OPEN_ONE_PRONE else k.R_HIDE
        return k.R_NONE

    def in_sight(self, g: int, old: int) -> int:
        """Figures of ``g`` the enemy moved into range of test In Sight (S-14, S-15)."""
        return self.test_in_sight(g, [f for f in self.groups[g]
                                      if f.status == k.ACTIVE and old > f.range >= self.distance])

    def test_in_sight(self, g: int, testers: list[Figure]) -> int:
        """The In Sight test of ``testers`` on shared dice (S-15); return how many fire."""
        if not testers:
            return 0
        extra = self.p[k.P_COVER_EXTRA] if any(self.covering(f) for f in testers) else 0
        dice = self.roll(2 + extra)
        shooters = 0
        for f in testers:
            n = self.passes(dice if self.covering(f) else dice[:2], f.skill, self.p[k.P_CAP])
            r = self.in_sight_result(n, f, g)
            if r in (k.R_FIRE, k.R_FIRE_M1):
                f.target, f.skill_mod = k.CHOOSE, (-1 if r == k.R_FIRE_M1 else 0)
                shooters += 1
            else:
                self.apply(f, r)
        return shooters

    def recover(self, g: int) -> None:
        """Cowering and fleeing figures try to return (S-41, S-42) on shared 2d6.

        Two dice passed: back in the fight and "may immediately take any
        action". One die passed (cowering in cover): back in the fight, but it
        waits, taking no action in this activation (no advance, no fire); it
        still reacts to enemy fire.
        """
        for f in self.groups[g]:
            f.waiting = False
        friends = self.active(g)
        waiting = [f for f in self.groups[g] if f.status in (k.COWER, k.FLEE)]
        if not waiting or not friends or self.p[k.P_RECOVER_ATTEMPT] == 0:
            return
        best = max(f.skill for f in friends)
        dice = self.roll(2)
        for f in waiting:
            if not self.may_recover(f):
                continue
            skill = best if self.p[k.P_RECOVER_SKILL] == k.RECOVER_BEST else f.skill
            n = self.passes(dice, skill)
            sitting = f.status == k.COWER and self.in_cover(f)
            if n == 2:
                if f.status == k.FLEE:
                    f.pos, f.prone = k.OPEN, False
                f.status = k.ACTIVE
            elif n == 1 and sitting:
                f.status, f.waiting, f.moved = k.ACTIVE, True, False
            else:
                f.status = k.LOST

    def move(self, g: int) -> None:
        """Advance at the slowest figure's pace, with a fast-move test (S-09, S-31)."""
        dice = self.roll(2) if self.p[k.P_FAST_ATTEMPT] else []
        step = None
        movers = self.acting(g)
        for f in movers:
            n = self.passes(dice, f.skill) if dice else 0
            if f.carrying is not None and len(self.carriers_of(f.carrying)) < 2:
                n = 0                               # S-05: no fast move, unless two carry
            inches = f.speed + n * self.p[k.P_FAST_INCHES]
            step = inches if step is None else min(step, inches)
            f.fast, f.pos, f.prone, f.hidden, f.moved = n >= 1, k.OPEN, False, False, True
        self.distance = max(self.distance - step, 0)
        self.surrender(1 - g, movers)

    def surrender(self, g: int, enemies: list[Figure]) -> None:
        """S-38: "if an armed enemy comes within 6 inches and in line of sight, the
        cowering figure surrenders" (``surrender.inches``; taken prisoner: lost).

        ``enemies``: the figures that came (the group that just advanced), or, under
        ``surrender.when = "within"``, every enemy in normal condition when a figure
        has just cowered. Every figure carries a weapon. In line of sight: within the
        enemy's sight (S-19..S-22).
        """
        inches = self.p[k.P_SURRENDER]
        if inches < 0 or self.distance > inches:
            return
        if any(f.sight is None or self.distance <= f.sight for f in enemies):
            for f in self.groups[g]:
                if f.status == k.COWER:
                    f.status = k.LOST
                    self.surrendered[g] += 1

    def carriers_of(self, x: Figure) -> list[Figure]:
        """The figures carrying comrade ``x``."""
        return [c for c in self.groups[x.group] if c.carrying is x]

    def pick_up(self, g: int) -> None:
        """S-04: comrades out of the fight are picked up, which ends the carrier's turn.

        The group's ``carriers`` (a policy, 1 or 2 per comrade, S-05; 0: nobody
        is picked up) take each comrade nobody carries, in figure order, from the
        first figures that may act and carry nobody; a carrier waits out this
        activation like a one-die returner (no advance, no fire).
        """
        n = self.carriers[g]
        if n == 0:
            return
        for x in self.groups[g]:
            if x.status != k.OUT or self.carriers_of(x):
                continue
            free = [c for c in self.acting(g) if c.carrying is None]
            if len(free) < n:
                return
            for c in free[:n]:
                c.carrying, c.waiting, c.moved = x, True, False

    def begin(self, g: int) -> bool:
        """The start of ``g``'s activation: it withdraws (True, S-07), or Recover (S-41),
        picking up comrades (S-04), fleeing figures leave the table (S-40, S-08) and its
        Fast marks end.
        """
        if len(self.active(g)) <= self.withdraw_at[g]:
            self.withdrew = g                                       # S-07
            return True
        self.recover(g)
        self.pick_up(g)
        for f in self.groups[g]:
            if f.status == k.FLEE:
                f.status = k.LOST                                   # S-40, S-08
            f.fast = f.fired = False
        return False

    def fire(self, g: int) -> bool:
        """Every figure of ``g`` that may act and has not fired shoots (S-29); True if the
        fight is over.
        """
        shooters = [f for f in self.acting(g) if not f.fired]
        for f in shooters:
            f.target = k.CHOOSE
        if shooters:
            self.exchange(g)
        return self.ended()

    def activate(self, g: int) -> bool:
        """One activation of group ``g``; True if the fight is over."""
        if self.begin(g):
            return True
        if any(f.range < self.distance for f in self.acting(g)):
            old = self.distance
            self.move(g)
            if self.in_sight(1 - g, old) > 0:
                self.exchange(1 - g)
                if self.ended():
                    return True
        else:
            for f in self.groups[g]:
                f.moved = False
        return self.fire(g)

    def first(self, r: int) -> int:
        """Which group activates first in round ``r`` (``activation.order``)."""
        if self.p[k.P_ORDER] == k.ORDER_FIXED:
            return 0
        if self.p[k.P_ORDER] == k.ORDER_ALTERNATE:
            return (r - 1) % 2
        while True:
            a, b = self.dice.d6(), self.dice.d6()
            if a != b:
                return 0 if a > b else 1

    def play(self) -> int:
        """Play the fight; return the round it ended in."""
        for r in range(1, self.p[k.P_MAX_ROUNDS] + 1):
            g = self.first(r)
            if self.activate(g) or self.activate(1 - g):
                return r
        self.capped = True
        return self.p[k.P_MAX_ROUNDS]

    def tally(self, rounds: int, row: np.ndarray) -> None:
        """Add the finished fight to a row laid out as :func:`sim.kernels.skirmish.tally` does."""
        n0, n1 = self.c.sizes
        shot0, shot1, lost0, lost1, o_rounds, _ = k.row_layout(n0, n1, self.p[k.P_MAX_ROUNDS])
        winner = -1
        if self.withdrew >= 0:
            winner = 1 - self.withdrew
        elif not self.capped:
            a0, a1 = len(self.active(0)), len(self.active(1))
            winner = 0 if a0 and not a1 else (1 if a1 and not a0 else -1)
        row[k.O_WIN + winner if winner >= 0 else k.O_DRAW] += 1
        if self.withdrew >= 0:
            row[k.O_WITHDREW + self.withdrew] += 1
        row[k.O_CAPPED] += self.capped
        row[k.O_ROUNDS_SUM] += rounds
        row[k.O_ROUNDS_SQ] += rounds * rounds
        row[o_rounds + rounds] += 1
        for g, (o_shot, o_lost) in enumerate(((shot0, lost0), (shot1, lost1))):
            figs = self.groups[g]
            shot = sum(f.status == k.OUT for f in figs)
            lost = sum(f.status in (k.LOST, k.FLEE) for f in figs)
            if winner == 1 - g and self.p[k.P_COWER_END] == k.COWER_END_SURRENDER:
                lost += sum(f.status == k.COWER for f in figs)
            if self.withdrew == g and self.carriers[g]:
                carried = sum(f.status == k.OUT and bool(self.carriers_of(f)) for f in figs)
                row[k.O_CARRIED + g] += carried                     # S-07: kept
                row[k.O_CARRIED_SQ + g] += carried * carried
            row[o_shot + shot] += 1
            row[o_lost + lost] += 1
            if (not self.capped and self.withdrew != g and not self.active(g)
                    and shot < len(figs)):
                row[k.O_BROKEN + g] += 1
            row[k.O_SURR + g] += self.surrendered[g]
            row[k.O_SURR_SQ + g] += self.surrendered[g] ** 2


def run_reference(fight: CompiledFight, seed: int, n_trials: int) -> np.ndarray:
    """Counts of ``n_trials`` fights in the kernel's row layout, played in plain Python."""
    row = np.zeros(fight.width, dtype=np.int64)
    for t in range(n_trials):
        game = Fight(fight, seed, t)
        game.tally(game.play(), row)
    return row
