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
- :func:`small_fight`: an exact chain of a firefight of a few figures a side, all
  visible and in range, written from the rules on the scenario model without the
  kernel's code or constants, so that it checks the kernel from outside.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
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
        if (c.params[k.P_NIGHT] or c.params[k.P_BAD_WEATHER]
                or any(c.grp[:, k.G_TERRAIN] != k.TERRAIN_OPEN)):
            raise ValueError("the exact duel is for day, clear weather and open ground "
                             "(small_fight reads the conditions, S-20..S-22)")
        if c.params[k.P_SURRENDER_WHEN] == k.SURRENDER_WITHIN:
            raise ValueError("the exact duel does not play surrender.when = 'within' "
                             "(small_fight does, S-38)")
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


# --- small firefights, written from the rules ------------------------------------------
#
# An exact chain for a few figures a side, written from the seed's text (S-07..S-43) and
# the assumptions documented in docs/skirmish.md, on the validated scenario model
# (sim.rules.skirmish_model), not on the compiled arrays: it shares no code, constant or
# random stream with the firefight kernel or the plain-Python reference, so that the
# tests comparing them check the kernel from outside.

NORMAL, COWERING, FLEEING, SHOT, LOST = "normal", "cowering", "fleeing", "out", "lost"
"""Figure statuses: normal condition, Cower (S-38), Flee (S-39), out of the fight from
damage (S-33), lost in the Zone (fled over the edge, S-08; removed from play, S-42)."""


@dataclass(frozen=True)
class FightExact:
    """Exact outcome distribution of a small firefight (the quantities of ``zonesim skirmish``).

    Attributes
    ----------
    p_win, p_broken, p_withdrew : tuple of Fraction
        Per side (first group listed = side 0).
    p_draw, p_capped : Fraction
    shot, lost : tuple of list of Fraction
        Per side, P(k figures out of the fight / lost), k = 0..figures.
    rounds : list of Fraction
        P(the fight ends in round r), r = 0..max_rounds (r = 0 has probability 0).
    carried : tuple of Fraction
        Per side, the mean number of comrades carried off at a withdrawal (S-04, S-07).
    """

    p_win: tuple[Fraction, Fraction]
    p_draw: Fraction
    p_capped: Fraction
    p_broken: tuple[Fraction, Fraction]
    p_withdrew: tuple[Fraction, Fraction]
    shot: tuple[list[Fraction], list[Fraction]]
    lost: tuple[list[Fraction], list[Fraction]]
    rounds: list[Fraction]
    carried: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0))


def _add(out: dict, key, p: Fraction) -> None:
    out[key] = out.get(key, Fraction(0)) + p


@cache
def _shared_roll(skills: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
    """Dice passed by each of several figures on one shared 2d6 (S-10, S-11).

    Enumerates the 36 rolls: a die is passed by a figure when it shows the
    figure's Skill or less.
    """
    out: dict = {}
    for dice in product(FACES, repeat=2):
        _add(out, tuple(sum(d <= s for d in dice) for s in skills), Fraction(1, 36))
    return out


def sight(scenario, g: int, night_vision: bool = False) -> int | None:
    """Inches a figure of group ``g`` sees the enemy; None: no limit (S-19..S-22).

    Written from the text on the scenario model: at night 12 inches unless the
    figure has a night-vision device or the enemy stands in a well-lit area
    (S-20); in woods 12 inches by day and 6 at night, unless either figure is
    at the edge of the wood (S-21); in bad weather likewise (S-22). Where
    ``visibility.exceptions_lift`` is ``all_night_limits``, the S-20 exceptions
    also make woods and weather read as by day.
    """
    rules = scenario.rules
    own, enemy = scenario.groups[g], scenario.groups[1 - g]
    night = scenario.light == "night"
    excused = night_vision or enemy.lit
    out = []
    if night and not excused:
        out.append(rules.visibility_night_inches)
    if night and not (excused and rules.visibility_exceptions_lift == "all_night_limits"):
        reduced = rules.visibility_reduced_night_inches
    else:
        reduced = rules.visibility_reduced_day_inches
    terrains = (own.terrain, enemy.terrain)
    if "woods" in terrains and "wood_edge" not in terrains:
        out.append(reduced)
    if scenario.weather == "bad":
        out.append(reduced)
    return min(out) if out else None


class _SmallFight:
    """The chain behind :func:`small_fight`.

    A state is a tuple with one ``(status, cover, prone, carrying)`` per figure
    (``carrying``: the comrade it carries, S-04, or None), side 0
    first; it is the whole memory of the fight between activations, since nobody
    moves (everyone starts in range), nobody is hidden and Fast marks never arise.
    """

    def __init__(self, scenario) -> None:
        rules = scenario.rules
        self.rules = rules
        self.figures = []                                   # (side, skill, weapon)
        self.sides: list[list[int]] = [[], []]
        start = []
        for g, group in enumerate(scenario.groups):
            if group.hidden:
                raise ValueError("the exact small fight needs visible figures (S-16)")
            for f in group.figures:
                seen = sight(scenario, g, f.night_vision)
                if min(f.weapon.range, seen or f.weapon.range) < scenario.distance:
                    raise ValueError("the exact small fight needs every figure in range and "
                                     "in sight (S-09, S-19..S-22)")
                self.sides[g].append(len(self.figures))
                self.figures.append((g, f.skill, f.weapon))
                start.append((NORMAL, f.cover, bool(f.prone), None))
        if rules.shooting_targets_per_shooter != 1:
            raise ValueError("the exact small fight needs shooting.targets_per_shooter = 1")
        self.start = tuple(start)
        self.distance = scenario.distance
        self.flanked = [group.flanked for group in scenario.groups]
        self.withdraw_at = [group.withdraw_at for group in scenario.groups]
        self.carriers = [group.carriers for group in scenario.groups]
        self.q_out = Fraction(rules.damage_faces.count("out"), 6)   # S-33, one d6 per hit
        self.memo_activation: dict = {}
        self.memo_exchange: dict = {}

    # -- rules of one figure ----------------------------------------------------------
    def in_cover(self, cover: str) -> bool:
        """'In cover' on the reaction tables (S-36, S-42; ``reaction.partial_cover_is``)."""
        return cover == "cover" or (cover == "partial"
                                    and self.rules.reaction_partial_cover_is == "cover")

    def p_hit(self, shooter: int, skill: int, target: tuple, carrying: bool = False) -> Fraction:
        """One die of 1d6 + Skill at a sole (first) target, read off the S-30 rows.

        The last row (``need[2]``, "10+") always hits; the 9 row misses a target
        in cover; the 8 row also misses a partly covered or prone target and a
        shooter with two weapons (S-31; nobody moves fast here). Lower totals miss.
        A shooter carrying a comrade sees every target in cover (S-06).
        """
        row8, row9, row10 = self.rules.hit_need
        _, cover, prone, _ = target
        if carrying:
            cover = "cover"
        two = self.figures[shooter][2].two_weapons
        hits = 0
        for die in FACES:
            total = die + skill
            if total >= row10:
                hits += 1
            elif total >= row9:
                hits += cover != "cover"
            elif total >= row8:
                hits += cover == "open" and not prone and not two
        return Fraction(hits, 6)

    def suppresses(self, shooter: int, target: int) -> bool:
        """S-32: the shooter's rating against the target's weapon (``suppression.compare``)."""
        a = self.figures[shooter][2].suppression
        b = self.figures[target][2].suppression
        return a >= b if self.rules.suppression_compare == "greater_or_equal" else a > b

    def received_fire_table(self, passed: int, cover: str, suppressed: bool,
                            flanked: bool) -> str:
        """The S-36 table, rows in the text's order; nobody here moved, so none moved fast.

        Returns ``"fire"``, ``"fire-1"``, ``"prone"``, ``"cower"`` or ``"flee"``. In the
        open a suppressed figure that did not move fast goes prone (the "moved
        normally" row). On the one-die rows the text lists flank before suppressed
        in cover and suppressed before flank in the open; ``received_fire.precedence``
        keeps that order or puts one condition first on both.
        """
        covered = self.in_cover(cover)
        if passed == 2:
            return "prone" if suppressed else "fire"
        if passed == 0:
            return "cower" if covered else "flee"
        rows = [("flank", flanked, "flee"), ("suppressed", suppressed, "prone")]
        if not covered:
            rows.reverse()
        precedence = self.rules.received_fire_precedence
        if precedence == "suppressed_first":
            rows.sort(key=lambda row: row[0] != "suppressed")
        elif precedence == "flank_first":
            rows.sort(key=lambda row: row[0] != "flank")
        for _, applies, result in rows:
            if applies:
                return result
        return "fire-1"

    # -- a volley and the exchange it starts -------------------------------------------
    def volley(self, state: tuple, side: int, shooters: tuple) -> dict:
        """One volley of ``side`` (S-25..S-34, S-38).

        ``shooters``: ``(figure, fixed target or None, Skill modifier)`` in figure
        order. Every target is named before any die (S-28): a fixed target (return
        fire, S-35) if it can still be shot, else a visible enemy in normal
        condition or cowering, uniformly at random. Returns ``{(state, testers):
        p}`` with ``testers`` the Received Fire testers ``(figure, attacker,
        suppressed)``; the attacker of a figure fired upon by several is the last
        of them in figure order.
        """
        enemy = self.sides[1 - side]
        shootable = [e for e in enemy if state[e][0] in (NORMAL, COWERING)]
        choices = []
        for s, fixed, _ in shooters:
            if state[s][0] != NORMAL:
                choices.append([(None, Fraction(1))])
            elif fixed is not None:
                choices.append([(fixed if fixed in shootable else None, Fraction(1))])
            elif shootable:
                choices.append([(t, Fraction(1, len(shootable))) for t in shootable])
            else:
                choices.append([(None, Fraction(1))])
        out: dict = {}
        for picks in product(*choices):
            w = Fraction(1)
            for _, p in picks:
                w *= p
            declared = [(s, smod, t) for (s, _, smod), (t, _) in zip(shooters, picks, strict=True)
                        if t is not None]
            for key, p in self._fire(state, declared).items():
                _add(out, key, w * p)
        return out

    def _fire(self, state: tuple, declared: list) -> dict:
        """Roll the declared shots and settle the targets (S-29..S-34, S-38)."""
        attacker: dict = {}
        suppressed: dict = {}
        for s, _, t in declared:
            attacker[t] = s
            suppressed[t] = suppressed.get(t, False) or self.suppresses(s, t)
        # Branches: per target, (put out of the fight, hit at least once).
        branches = {tuple((t, False, False) for t in sorted(attacker)): Fraction(1)}
        for s, smod, t in declared:
            n = self.figures[s][2].dice
            p = self.p_hit(s, self.figures[s][1] + smod, state[t], state[s][3] is not None)
            p_stays = (1 - p * self.q_out) ** n       # every hit's damage die spares it
            p_miss = (1 - p) ** n
            nxt: dict = {}
            for b, w in branches.items():
                i = [x[0] for x in b].index(t)
                _, out_, hit = b[i]
                if out_:
                    _add(nxt, b, w)                   # hits on a figure already out are wasted
                    continue
                outcomes = (((t, True, True), 1 - p_stays),          # put out (S-33)
                            ((t, False, True), p_stays - p_miss),    # hit, no damage
                            ((t, False, hit), p_miss))               # every die missed
                for new, p_new in outcomes:
                    _add(nxt, b[:i] + (new,) + b[i + 1:], w * p_new)
            branches = nxt
        out: dict = {}
        for b, w in branches.items():
            new = list(state)
            testers = []
            for t, out_, hit in b:
                status, cover, prone, carrying = state[t]
                if out_:
                    new[t] = (SHOT, cover, prone, None)        # drops his comrade
                elif status == COWERING:
                    new[t] = (FLEEING, cover, prone, None)     # S-38
                elif not hit or self.rules.received_fire_trigger == "no_damage":
                    testers.append((t, attacker[t], suppressed[t]))   # S-34 / S-43
            _add(out, (tuple(new), tuple(testers)), w)
        return out

    def received_fire(self, state: tuple, g: int, testers: tuple, may_fire: bool) -> dict:
        """Group ``g`` takes one Received Fire test on a shared 2d6 (S-10..S-12, S-34..S-37).

        Returns ``{(state, shooters): p}``: the figures told to fire back shoot at
        their attacker (S-35), with -1 Skill on one die passed.
        """
        out: dict = {}
        for passes, p in _shared_roll(tuple(self.figures[f][1] for f, _, _ in testers)).items():
            new = list(state)
            back = []
            for (f, attacker, suppressed), passed in zip(testers, passes, strict=True):
                status, cover, prone, carrying = state[f]
                r = self.received_fire_table(passed, cover, suppressed, self.flanked[g])
                if r in ("fire", "fire-1"):
                    if may_fire:
                        back.append((f, attacker, -1 if r == "fire-1" else 0))
                elif r == "prone":
                    new[f] = (status, cover, True, carrying)
                elif r == "cower":
                    new[f] = (COWERING, cover, prone, None)    # a carrier drops his comrade
                else:
                    new[f] = (FLEEING, cover, prone, None)
            self.surrender(new, g)
            _add(out, (tuple(new), tuple(sorted(back))), p)
        return out

    def surrender(self, state: list, g: int) -> None:
        """S-38: cowering figures of ``g`` with an armed enemy within 6 inches surrender.

        Nobody moves here, so no enemy ever "comes within" (``surrender.when =
        "approach"``); under ``"within"`` a figure that cowers with an enemy in normal
        condition within ``surrender.inches`` is taken prisoner (lost). Every figure
        here is in range and so in sight (S-19..S-22).
        """
        rules = self.rules
        if rules.surrender_when != "within" or self.distance > rules.surrender_inches:
            return
        if any(state[e][0] == NORMAL for e in self.sides[1 - g]):
            for f in self.sides[g]:
                if state[f][0] == COWERING:
                    state[f] = (LOST, *state[f][1:])

    def ended(self, state: tuple) -> bool:
        """S-18: a side with no figure in normal condition can no longer fire."""
        return any(all(state[f][0] != NORMAL for f in side) for side in self.sides)

    def exchange(self, state: tuple, side: int, shooters: tuple, depth: int) -> dict:
        """A volley and the return fire it provokes, ``received_fire.max_chain`` volleys at most.

        Returns ``{state: p}`` at the end of the exchange.
        """
        key = (state, side, shooters, depth)
        if key in self.memo_exchange:
            return self.memo_exchange[key]
        out: dict = {}
        for (s1, testers), p1 in self.volley(state, side, shooters).items():
            if self.ended(s1) or not testers:
                _add(out, s1, p1)
                continue
            may_fire = depth < self.rules.received_fire_max_chain
            for (s2, back), p2 in self.received_fire(s1, 1 - side, testers, may_fire).items():
                if self.ended(s2) or not back:
                    _add(out, s2, p1 * p2)
                    continue
                for s3, p3 in self.exchange(s2, 1 - side, back, depth + 1).items():
                    _add(out, s3, p1 * p2 * p3)
        self.memo_exchange[key] = out
        return out

    # -- an activation --------------------------------------------------------------------
    def recover(self, state: tuple, g: int) -> dict:
        """Recover test of group ``g`` (S-41, S-42) on a shared 2d6.

        Returns ``{(state, waiting): p}``, ``waiting`` the figures that returned
        on one die: back in the fight, but without the two-dice result's "may
        immediately take any action", so they do not act in this activation.
        """
        mine = self.sides[g]
        trying = [f for f in mine if state[f][0] in (COWERING, FLEEING)]
        friends = [f for f in mine if state[f][0] == NORMAL]
        if not trying or not friends or not self.rules.recover_attempt:
            return {(state, ()): Fraction(1)}
        best = max(self.figures[f][1] for f in friends)
        skills = tuple(best if self.rules.recover_skill == "best_in_group" else self.figures[f][1]
                       for f in trying)
        out: dict = {}
        for passes, p in _shared_roll(skills).items():
            new = list(state)
            waiting = []
            for f, passed in zip(trying, passes, strict=True):
                status, cover, prone, _ = state[f]
                if passed == 2:
                    new[f] = ((NORMAL, "open", False, None) if status == FLEEING
                              else (NORMAL, cover, prone, None))
                elif passed == 1 and status == COWERING and self.in_cover(cover):
                    new[f] = (NORMAL, cover, prone, None)
                    waiting.append(f)
                else:
                    new[f] = (LOST, cover, prone, None)        # removed from play
            _add(out, (tuple(new), tuple(waiting)), p)
        return out

    def pick_up(self, state: tuple, g: int, waiting: tuple) -> tuple[tuple, tuple]:
        """S-04: the group's ``carriers`` pick up each comrade out of the fight.

        Comrades nobody carries, in figure order, each by the first 1 or 2
        figures (a policy, S-05) in normal condition that may act and carry
        nobody; picking up ends the carrier's turn, so it joins ``waiting`` (no
        fire in this activation). Nobody moves here, so S-05's speed never shows.
        """
        n = self.carriers[g]
        if n == 0:
            return state, waiting
        new = list(state)
        waiting = list(waiting)
        for x in self.sides[g]:
            if new[x][0] != SHOT or any(new[c][3] == x for c in self.sides[g]):
                continue
            free = [c for c in self.sides[g]
                    if new[c][0] == NORMAL and c not in waiting and new[c][3] is None]
            if len(free) < n:
                break
            for c in free[:n]:
                new[c] = (*new[c][:3], x)
                waiting.append(c)
        return tuple(new), tuple(waiting)

    def activation(self, state: tuple, g: int) -> dict:
        """One activation of group ``g``: ``{("go" | "end" | "withdrew", state): p}``.

        Voluntary exit (S-07) when ``withdraw_at`` or fewer figures are in normal
        condition; Recover (S-41, S-42); fleeing figures leave the table (S-40,
        S-08); then every figure in normal condition that may act fires at a
        target of its choice (S-25, S-35) and the exchange runs its course.
        """
        key = (state, g)
        if key in self.memo_activation:
            return self.memo_activation[key]
        mine = self.sides[g]
        out: dict = {}
        if sum(state[f][0] == NORMAL for f in mine) <= self.withdraw_at[g]:
            out[("withdrew", state)] = Fraction(1)
        else:
            for (s1, waiting), p1 in self.recover(state, g).items():
                s1, waiting = self.pick_up(s1, g, waiting)
                s2 = tuple((LOST, c, pr, None) if f in mine and st == FLEEING else (st, c, pr, x)
                           for f, (st, c, pr, x) in enumerate(s1))
                shooters = tuple((f, None, 0) for f in mine
                                 if s2[f][0] == NORMAL and f not in waiting)
                ends = self.exchange(s2, g, shooters, 1) if shooters else {s2: Fraction(1)}
                for s3, p3 in ends.items():
                    _add(out, ("end" if self.ended(s3) else "go", s3), p1 * p3)
        self.memo_activation[key] = out
        return out

    def first(self, r: int) -> list[tuple[int, Fraction]]:
        """Who activates first in round ``r`` (``activation.order``)."""
        order = self.rules.activation_order
        if order == "fixed":
            return [(0, Fraction(1))]
        if order == "alternate":
            return [((r - 1) % 2, Fraction(1))]
        return [(0, Fraction(1, 2)), (1, Fraction(1, 2))]

    def solve(self) -> FightExact:
        """Play the rounds up to ``activation.max_rounds``; then the fight is capped.

        A round is two activations; the fight stops at the first activation that
        ends it. The states between the two are merged before the second.
        """
        max_rounds = self.rules.activation_max_rounds
        ends: dict = {}                       # (kind, state, group, round) -> p
        states = {self.start: Fraction(1)}
        for r in range(1, max_rounds + 1):
            nxt: dict = {}
            for g, p_first in self.first(r):
                mid: dict = {}
                for state, p in states.items():
                    for (kind, s1), p1 in self.activation(state, g).items():
                        _add(mid if kind == "go" else ends,
                             s1 if kind == "go" else (kind, s1, g, r), p * p_first * p1)
                for state, p in mid.items():
                    for (kind, s2), p2 in self.activation(state, 1 - g).items():
                        _add(nxt if kind == "go" else ends,
                             s2 if kind == "go" else (kind, s2, 1 - g, r), p * p2)
            states = nxt
        for state, p in states.items():
            _add(ends, ("capped", state, -1, max_rounds), p)
        return self.tally(ends)

    def tally(self, ends: dict) -> FightExact:
        """The quantities of docs/skirmish.md from the end states.

        Winner: the side still in normal condition, or the side that stayed when
        the other withdrew (S-07); a draw if neither or at the round cap. Lost:
        fled, removed or still fleeing, plus cowering figures of a losing side
        under ``end_of_fight.cowering = "surrender"`` (S-38). Broken: no figure
        in normal condition at the end, not all of them out of the fight.
        """
        zero = Fraction(0)
        sizes = [len(side) for side in self.sides]
        win, broken, withdrew = [zero, zero], [zero, zero], [zero, zero]
        shot = ([zero] * (sizes[0] + 1), [zero] * (sizes[1] + 1))
        lost = ([zero] * (sizes[0] + 1), [zero] * (sizes[1] + 1))
        rounds = [zero] * (self.rules.activation_max_rounds + 1)
        draw = capped = zero
        carried = [zero, zero]
        surrender = self.rules.end_of_fight_cowering == "surrender"
        for (kind, state, who, r), p in ends.items():
            rounds[r] += p
            normal = [sum(state[f][0] == NORMAL for f in side) for side in self.sides]
            winner = -1
            if kind == "withdrew":
                winner = 1 - who
                withdrew[who] += p
                # S-07: the comrades carried by figures in normal condition are kept.
                carried[who] += p * sum(
                    state[x][0] == SHOT and any(state[c][0] == NORMAL and state[c][3] == x
                                                for c in self.sides[who])
                    for x in self.sides[who])
            elif kind == "capped":
                capped += p
            elif normal[0] > 0 and normal[1] == 0:
                winner = 0
            elif normal[1] > 0 and normal[0] == 0:
                winner = 1
            if winner >= 0:
                win[winner] += p
            else:
                draw += p
            for g, side in enumerate(self.sides):
                statuses = [state[f][0] for f in side]
                n_shot = statuses.count(SHOT)
                n_lost = statuses.count(LOST) + statuses.count(FLEEING)
                if surrender and winner == 1 - g:
                    n_lost += statuses.count(COWERING)
                shot[g][n_shot] += p
                lost[g][n_lost] += p
                if (kind == "end" or (kind == "withdrew" and who != g)) and normal[g] == 0 \
                        and n_shot < sizes[g]:
                    broken[g] += p
        return FightExact(p_win=(win[0], win[1]), p_draw=draw, p_capped=capped,
                          p_broken=(broken[0], broken[1]), p_withdrew=(withdrew[0], withdrew[1]),
                          shot=shot, lost=lost, rounds=rounds,
                          carried=(carried[0], carried[1]))


def small_fight(scenario) -> FightExact:
    """Exact outcome of a small firefight whose figures all start visible and in range.

    A Markov chain over the status, cover and posture of every figure, played
    activation by activation up to ``activation.max_rounds`` rounds, written
    from the rules (S-07..S-43) and the documented assumptions (docs/skirmish.md)
    on the scenario model, independently of the kernel: volleys with targets
    named before the dice (S-28), the hit table (S-30, S-31), the damage table
    (S-33), suppression (S-32), Received Fire on shared dice (S-10, S-34..S-36)
    with return fire (S-35), Cower and Flee (S-38..S-40), surrender within 6 inches
    under ``surrender.when = "within"`` (S-38), Recover (S-41, S-42)
    and voluntary exit (S-07). Two against two takes a few seconds.

    Parameters
    ----------
    scenario : sim.rules.skirmish_model.Scenario
        A validated scenario with no hidden group, every weapon's range at least
        the distance, and ``shooting.targets_per_shooter = 1``.

    Raises
    ------
    ValueError
        If the scenario is outside that scope.
    """
    return _SmallFight(scenario).solve()
