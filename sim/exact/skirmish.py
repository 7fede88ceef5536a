"""Exact twins of the skirmish kernels (seed 003), in Fractions.

- :func:`hit_probability`: one die of 1d6 + Skill on the hit table (S-30, S-31).
- :func:`volley_distribution`: joint hits per target of one volley, dice
  sorted high to low and allocated as announced (S-26), by enumerating the
  multisets of faces.
- :func:`group_reaction_distribution`: dice passed by each member of a group
  on shared dice (S-10, S-11, S-15); one member reduces to
  :func:`sim.exact.dice.reaction_distribution`.
- :func:`duel`: a Markov chain of the whole firefight between one figure and
  another already in range of each other, the exact counterpart of
  :func:`sim.kernels.skirmish.firefight_kernel` on such scenarios.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement, product
from math import factorial

from sim.kernels import skirmish as k
from sim.skirmish.compile import CompiledFight

HIT_NEED = (8, 9, 10)
FACES = range(1, 7)


def condition_level(cover: str = "open", prone: bool = False, fast: bool = False,
                    two_weapons: bool = False) -> int:
    """Hit-table level of one target: 2 cover; 1 partial, prone, fast or two weapons (S-31)."""
    if cover == "cover":
        return 2
    return 1 if cover == "partial" or prone or fast or two_weapons else 0


def die_level(level: int, order: int) -> int:
    """Level of a die at the ``order``-th target (0 = first): second +1 floor, third+ is 2."""
    if order >= 2:
        return 2
    return max(level, 1) if order == 1 else level


def hit_probability(skill: int, level: int = 0, order: int = 0,
                    need: Sequence[int] = HIT_NEED) -> Fraction:
    """P(one die hits): 1d6 + Skill >= the hit table's need for the level (S-30).

    Totals of 3..7 always miss and 10+ always hit with the seed's table; totals
    of 2 or less are not in the table and miss (an assumption, docs/skirmish.md).
    """
    want = need[die_level(level, order)]
    return Fraction(sum(1 for d in FACES if d + skill >= want), 6)


def allocate_hits(sorted_dice: Sequence[int], skill: int, alloc: Sequence[int],
                  levels: Sequence[int], need: Sequence[int] = HIT_NEED) -> tuple[int, ...]:
    """Hits per target of dice already sorted high to low, allocated as announced (S-26)."""
    out, i = [], 0
    for j, n in enumerate(alloc):
        want = need[die_level(levels[j], j)]
        out.append(sum(1 for d in sorted_dice[i:i + n] if d + skill >= want))
        i += n
    return tuple(out)


def volley_distribution(skill: int, alloc: Sequence[int], levels: Sequence[int],
                        need: Sequence[int] = HIT_NEED) -> dict[tuple[int, ...], Fraction]:
    """Joint distribution of hits per target of one volley (S-26, S-29, S-30).

    Parameters
    ----------
    skill : int
        Shooter's Skill, with any modifier.
    alloc : sequence of int
        Dice announced at each target in order (the rate of fire is their sum).
    levels : sequence of int
        Condition level of each target (:func:`condition_level`).
    need : sequence of int
        The hit table.

    Returns
    -------
    dict
        ``{(hits on target 0, ...): probability}``; every multiset of faces
        weighs its number of orderings, so the sum is exactly 1.
    """
    n = sum(alloc)
    out: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    total = 6**n
    for faces in combinations_with_replacement(FACES, n):
        ways = factorial(n)
        for f in FACES:
            ways //= factorial(faces.count(f))
        dice = sorted(faces, reverse=True)
        out[allocate_hits(dice, skill, alloc, levels, need)] += Fraction(ways, total)
    return dict(out)


def group_reaction_distribution(skills: Sequence[int], covering: Sequence[bool] = (),
                                extra: int = 1, cap: int = 2) -> dict[tuple, Fraction]:
    """Joint dice passed per member on one group roll (S-10, S-11, S-15).

    The group rolls 2d6, plus ``extra`` dice if any member is Covering; a
    Covering member reads all dice, the others the first two; passes are
    capped at ``cap``. Computed by enumerating every roll.
    """
    covering = tuple(covering) or (False,) * len(skills)
    n = 2 + (extra if any(covering) else 0)
    out: dict[tuple, Fraction] = defaultdict(Fraction)
    for dice in product(FACES, repeat=n):
        key = tuple(min(sum(d <= s for d in (dice if c else dice[:2])), cap)
                    for s, c in zip(skills, covering, strict=True))
        out[key] += Fraction(1, 6**n)
    return dict(out)


def reaction_passes(skill: int) -> list[Fraction]:
    """P(0, 1, 2 dice passed) of one figure's 2d6 test (S-11)."""
    p = Fraction(min(max(skill, 0), 6), 6)
    return [(1 - p) ** 2, 2 * p * (1 - p), p * p]


@dataclass(frozen=True)
class DuelExact:
    """Exact outcome distribution of a one-against-one firefight (layout of the kernel row).

    Attributes
    ----------
    p_win : tuple of Fraction
        P(side 0 wins), P(side 1 wins).
    p_draw, p_capped : Fraction
    p_broken : tuple of Fraction
    shot, lost : tuple of list of Fraction
        Per side, P(0) and P(1) figures out of the fight / lost.
    rounds : list of Fraction
        P(the fight ends in round r), r = 0..max_rounds (r = 0 has probability 0).
    """

    p_win: tuple[Fraction, Fraction]
    p_draw: Fraction
    p_capped: Fraction
    p_broken: tuple[Fraction, Fraction]
    shot: tuple[list[Fraction], list[Fraction]]
    lost: tuple[list[Fraction], list[Fraction]]
    rounds: list[Fraction]


class _Duel:
    """The Markov chain behind :func:`duel`: state = which figures are prone."""

    def __init__(self, c: CompiledFight) -> None:
        if c.sizes != (1, 1):
            raise ValueError("the exact duel needs one figure per side")
        self.f = [[int(x) for x in row] for row in c.fig]
        self.p = [int(x) for x in c.params]
        self.need = [int(x) for x in c.need]
        self.q_out = Fraction(sum(1 for face in FACES if c.damage[face] == k.DMG_OUT), 6)
        self.flanked = [bool(c.grp[g, k.G_FLANKED]) for g in range(2)]
        for f in self.f:
            if f[k.F_RANGE] < c.distance or f[k.F_HIDDEN]:
                raise ValueError("the exact duel needs both figures visible and in range")
        self.memo: dict = {}

    def cover(self, g: int) -> bool:
        pos = self.f[g][k.F_POS]
        return pos == k.COVER or (pos == k.PARTIAL and self.p[k.P_PARTIAL_IS_COVER] != 0)

    def rf_result(self, n: int, g: int, suppressed: bool) -> int:
        """S-36 for figure ``g`` (never fast: nobody moves in a duel in range)."""
        cover, flanked, prec = self.cover(g), self.flanked[g], self.p[k.P_PRECEDENCE]
        if n == 2:
            return k.R_PRONE if suppressed else k.R_FIRE
        if n == 1:
            flank_first = prec == k.PREC_FLANK or (prec == k.PREC_TEXT and cover)
            if flank_first and flanked:
                return k.R_FLEE
            if suppressed:
                return k.R_PRONE
            return k.R_FLEE if flanked else k.R_FIRE_M1
        return k.R_COWER if cover else k.R_FLEE

    def volley(self, side: int, smod: int, depth: int, prone: tuple[int, int]) -> dict:
        """Outcomes of a volley by ``side`` and all return fire after it.

        Keys: ``("end", loser, loser_status)`` or ``("go", prone)``.
        """
        key = (side, smod, depth, prone)
        if key in self.memo:
            return self.memo[key]
        s, t = self.f[side], self.f[1 - side]
        lvl = max(2 if t[k.F_POS] == k.COVER else
                  (1 if t[k.F_POS] == k.PARTIAL or prone[1 - side] else 0),
                  1 if s[k.F_TWO] else 0)
        p_hit = hit_probability(s[k.F_SKILL] + smod, lvl, 0, self.need)
        n = s[k.F_DICE]
        p_out = 1 - (1 - p_hit * self.q_out) ** n
        p_test = (1 - p_hit) ** n if self.p[k.P_TRIGGER] == k.TRIGGER_NOT_HIT else 1 - p_out
        cmp_ge = self.p[k.P_SUPP_CMP] == k.SUPP_GREATER_EQUAL
        suppressed = (s[k.F_SUPP] >= t[k.F_SUPP]) if cmp_ge else (s[k.F_SUPP] > t[k.F_SUPP])
        out: dict = defaultdict(Fraction)
        out[("end", 1 - side, k.OUT)] += p_out
        out[("go", prone)] += 1 - p_out - p_test
        for n_pass, p_pass in enumerate(reaction_passes(t[k.F_SKILL])):
            r = self.rf_result(n_pass, 1 - side, suppressed)
            w = p_test * p_pass
            if r in (k.R_FIRE, k.R_FIRE_M1):
                if depth < self.p[k.P_MAX_CHAIN]:
                    back = self.volley(1 - side, -1 if r == k.R_FIRE_M1 else 0, depth + 1, prone)
                    for o, p in back.items():
                        out[o] += w * p
                else:
                    out[("go", prone)] += w
            elif r == k.R_PRONE:
                new = list(prone)
                new[1 - side] = 1
                out[("go", tuple(new))] += w
            else:
                out[("end", 1 - side, k.FLEE if r == k.R_FLEE else k.COWER)] += w
        self.memo[key] = dict(out)
        return self.memo[key]

    def first(self, r: int) -> list[tuple[int, Fraction]]:
        order = self.p[k.P_ORDER]
        if order == k.ORDER_FIXED:
            return [(0, Fraction(1))]
        if order == k.ORDER_ALTERNATE:
            return [((r - 1) % 2, Fraction(1))]
        return [(0, Fraction(1, 2)), (1, Fraction(1, 2))]

    def solve(self) -> DuelExact:
        start = (self.f[0][k.F_PRONE], self.f[1][k.F_PRONE])
        states = {start: Fraction(1)}
        ends: dict = defaultdict(Fraction)        # (loser, status) -> probability
        rounds = [Fraction(0)] * (self.p[k.P_MAX_ROUNDS] + 1)
        for r in range(1, self.p[k.P_MAX_ROUNDS] + 1):
            nxt: dict = defaultdict(Fraction)
            for state, p_state in states.items():
                for g, p_first in self.first(r):
                    mid = self.volley(g, 0, 1, state)
                    for o1, p1 in mid.items():
                        w1 = p_state * p_first * p1
                        if o1[0] == "end":
                            ends[o1[1:]] += w1
                            rounds[r] += w1
                            continue
                        for o2, p2 in self.volley(1 - g, 0, 1, o1[1]).items():
                            if o2[0] == "end":
                                ends[o2[1:]] += w1 * p2
                                rounds[r] += w1 * p2
                            else:
                                nxt[o2[1]] += w1 * p2
            states = nxt
        capped = sum(states.values(), Fraction(0))
        rounds[-1] += capped
        return self._result(ends, capped, rounds)

    def _result(self, ends: dict, capped: Fraction, rounds: list[Fraction]) -> DuelExact:
        surrender = self.p[k.P_COWER_END] == k.COWER_END_SURRENDER
        win = [Fraction(0), Fraction(0)]
        broken = [Fraction(0), Fraction(0)]
        shot = ([Fraction(0)] * 2, [Fraction(0)] * 2)
        lost = ([Fraction(0)] * 2, [Fraction(0)] * 2)
        for (loser, status), p in ends.items():
            win[1 - loser] += p
            shot[loser][1 if status == k.OUT else 0] += p
            shot[1 - loser][0] += p
            is_lost = status == k.FLEE or (status == k.COWER and surrender)
            lost[loser][1 if is_lost else 0] += p
            lost[1 - loser][0] += p
            if status != k.OUT:
                broken[loser] += p
        for g in range(2):
            shot[g][0] += capped
            lost[g][0] += capped
        return DuelExact(p_win=(win[0], win[1]), p_draw=capped, p_capped=capped,
                         p_broken=(broken[0], broken[1]), shot=shot, lost=lost, rounds=rounds)


def duel(fight: CompiledFight) -> DuelExact:
    """Exact outcome of a firefight between one figure and one other, both in range.

    A Markov chain over which figures are prone, played round by round up to
    ``activation.max_rounds``: each activation is a volley and the return
    fire it provokes (S-29..S-36), with exact hit (S-30), damage (S-33) and
    reaction (S-11) probabilities. With one figure a side, a figure that
    cowers or flees ends the fight at once (no friend can rally it, S-41), so
    the state needs only the two prone flags.

    Raises
    ------
    ValueError
        If the scenario is not one visible figure against one, in range.
    """
    return _Duel(fight).solve()
