"""Exact twin of the combat kernel: a Markov chain over the fight's small state space.

The state at the start of a round is (Health, the other of Health and
Willpower, armour tokens, stimulants used, uses left of each limited-use
weapon, uses of each heal/calm artefact); the round number is the time index,
because round 1 differs from later rounds (P-21, P-29) and the safety cap
counts rounds. The distribution over states is pushed forward round by round
(a dynamic programme), so every outcome probability and every expectation is
exact up to floating-point rounding. Artefacts (P-08..P-10) branch on
their Intellect tests (:mod:`sim.exact.artifact`). Fights end quickly: every round that does
not end the fight costs Health or places armour tokens, so the chain is
absorbed after at most Health + durability + healing rounds.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cache

from sim.encounter.loadout import FIRST_ROUND, LATER_ROUNDS
from sim.encounter.plan import FLEE, CombatPlan, records, restore_at
from sim.encounter.spec import CombatSpec
from sim.exact import artifact, dice
from sim.kernels.layout import (
    ART_CALM,
    ART_COMBAT,
    ART_HEAL,
    ART_STEALTH,
    AVOID_STEALTH,
    PLAN_KIND_BITS,
    SPEND_ART_SHIFT,
    TARGET_HEALTH,
)

OUTCOMES = ("avoided", "killed", "fled", "knocked_out", "capped")


@dataclass(frozen=True)
class CombatExact:
    """Exact combat results.

    Attributes
    ----------
    outcomes : dict of str to float
        Probability of each of ``OUTCOMES``.
    mean_wounds : float
        Expected wounds that got through the armour (past zero Health too).
    mean_rounds : float
        Expected rounds fought (a flee attempt counts; an avoided fight has 0).
    tokens : tuple of float
        Distribution of armour tokens at the end, ``0..durability``.
    p_destroyed : float
        Probability that the armour is destroyed during the fight.
    mean_stimulants, mean_limited_spent : float
        Expected stimulant doses used and limited-use weapon uses spent.
    mean_artifact_uses, mean_side_effects, mean_side_radiation : float
        Expected artefact uses, side effects suffered and radiation doses
        from side effects (P-08..P-10).
    visited : frozenset
        With a plan: the decision states ``(round, health, tokens, doses used,
        uses, other, counts)`` the fight reaches with a positive probability (after
        the round's heal and calm artefacts).
    restore_visited : frozenset
        With a plan and heal or calm artefacts: the same states at the start of a
        round, where the plan chooses those artefacts.
    """

    outcomes: dict
    mean_wounds: float
    mean_rounds: float
    tokens: tuple
    p_destroyed: float
    mean_stimulants: float
    mean_limited_spent: float
    mean_artifact_uses: float = 0.0
    mean_side_effects: float = 0.0
    mean_side_radiation: float = 0.0
    visited: frozenset = frozenset()
    restore_visited: frozenset = frozenset()


def _pass(n_dice: int, success_on: int, need: int) -> float:
    return float(dice.pool_pass(n_dice, success_on, need))


def _p_avoid(spec: CombatSpec) -> float:
    """P(the fight is avoided): a Stealth test (P-16) or d6 >= Reputation - escape item (Z-16)."""
    if not spec.sneak or spec.traits.ambush:  # an ambush cannot be avoided (P-22)
        return 0.0
    if spec.avoid_rule == AVOID_STEALTH:
        return _pass(spec.stealth, spec.stealth_face, spec.vigilance)
    return float(dice.threshold_pass(spec.escape_target))


def _apply(spec: CombatSpec, health: int, other: int, h: int, w: int) -> tuple[int, int]:
    """Side-effect points on the fight's two tracks (P-09, P-37, P-40)."""
    if spec.track == TARGET_HEALTH:
        return health - h, other - w
    return health - w, other - h


def _down(spec: CombatSpec, health: int, other: int) -> bool:
    """Knocked out (P-37) or concussed by a side effect (P-40)."""
    return health <= 0 or (bool(spec.artifacts) and other <= 0)


def heal_and_calm(spec: CombatSpec, health: int, other: int, counts: tuple,
             select: tuple[int, ...] | None = None) -> list:
    """``(health, other, counts, radiation, uses, side_effects, p)`` after the heal/calm
    artefacts of the records in ``select`` (None: all; P-08).
    """
    arts, rules = spec.artifacts, spec.art_rules
    own, second = (ART_HEAL, ART_CALM) if spec.track == TARGET_HEALTH else (ART_CALM, ART_HEAL)
    out = []
    for (lvl, cnt, h, r, w, u, s), p in artifact.restore(
            arts, rules.fail_rule, own, counts, health, spec.health, spec.heal_at,
            rules.restore_uses, select).items():
        hp, oth = _apply(spec, lvl, other, h, w)
        for (lvl2, cnt2, h2, r2, w2, u2, s2), q in artifact.restore(
                arts, rules.fail_rule, second, cnt, oth, spec.other_max, spec.heal_at,
                rules.restore_uses, select).items():
            hp2, oth2 = _apply(spec, hp, lvl2, h2, w2)
            out.append((hp2, oth2, cnt2, r + r2, u + u2, s + s2, float(p * q)))
    return out


def _dice(spec: CombatSpec, effect: int, select) -> list:
    """``(dice, h, r, w, uses, side_effects, p)`` of the artefacts before one test (P-23)."""
    if not spec.artifacts:
        return [(0, 0, 0, 0, 0, 0, 1.0)]
    return [(*k, float(p)) for k, p in artifact.test_bonus(
        spec.artifacts, spec.art_rules.fail_rule, effect, select).items()]


def _dose(spec: CombatSpec, health: int, used: int) -> tuple[int, int]:
    """The next stimulant dose (Z-12..Z-14): Health up to its maximum; ``(health, used)``."""
    return min(spec.health, health + spec.stimulants[used]), used + 1


def _where(rnd: int, health: int, tokens: int, stims, uses: tuple, other: int,
           counts: tuple) -> tuple:
    """A plan's state (the arguments of :meth:`CombatPlan.decision`): with kinds of dose
    (``stims`` their doses left) those follow the weapons' uses, and no dose count.
    """
    if isinstance(stims, tuple):
        return rnd, health, tokens, 0, uses + stims, other, counts
    return rnd, health, tokens, stims, uses, other, counts


def _kind_doses(spec: CombatSpec, plan: CombatPlan, health: int, left: tuple,
                field: int) -> tuple[int, tuple]:
    """A plan's doses by kind (Z-12, P-24): ``PLAN_KIND_BITS`` bits of ``field`` per kind,
    taken kind by kind, Health up to its maximum (Z-14); ``(health, doses left)``.
    """
    out = list(left)
    for j, (value, _) in enumerate(plan.shape.kinds):
        for _ in range(field >> (PLAN_KIND_BITS * j) & ((1 << PLAN_KIND_BITS) - 1)):
            health = min(spec.health, health + value)
            out[j] -= 1
    return health, tuple(out)


def usable(spec: CombatSpec, health: int) -> tuple[int, ...]:
    """The artefact records the use policy allows at ``health`` (``policy.artifact_use``:
    those whose ``use_at`` is ``health`` or more, P-08), as the thresholds play them.
    """
    return tuple(i for i, a in enumerate(spec.artifacts) if health <= a.use_at)


def _combat_bits(spec: CombatSpec, chosen: tuple[int, ...]) -> int:
    """The loadout mask bits of the combat artefacts among records ``chosen`` (P-23; bit
    ``len(limited) + k`` is ``loadout.artifacts[k]``).
    """
    n = len(spec.loadout.limited)
    return sum(1 << (n + k) for k, (rec, _, _) in enumerate(spec.loadout.artifacts)
               if rec in chosen)


def _chosen(spend: int) -> tuple[int, ...]:
    """Artefact records chosen with the weapons (high bits of ``spend``, P-23)."""
    bits = spend >> SPEND_ART_SHIFT
    return tuple(i for i in range(bits.bit_length()) if bits >> i & 1)


def combat_exact(spec: CombatSpec, plan: CombatPlan | None = None) -> CombatExact:
    """Exact outcome probabilities and expectations of one fight (P-16..P-29, Z-12..Z-17,
    P-08..P-10 with artefacts).

    With a ``plan`` (:mod:`sim.encounter.plan`) the stalker avoids the fight or
    not, uses artefacts, takes stimulants, flees and allows limited-use weapons and
    combat artefacts as the plan says, instead of by the spec's thresholds (which
    use every artefact whenever its rule allows).
    """
    arts, rules = spec.artifacts, spec.art_rules
    sneak_select = usable(spec, spec.start_health)
    if plan is not None:
        spec = replace(spec, sneak=plan.sneak, heal_at=restore_at(spec.health, spec.other_max))
        sneak_select = records(plan.sneak_select, len(arts))

    @cache
    def damage(tokens: int, select: tuple[int, ...] | None) -> tuple:
        """(through, tokens after, h, r, w, uses, side effects, p) of one attack with the
        resist artefacts of ``select`` (None: all; P-02..P-05, P-08).
        """
        face = spec.resist if spec.durability > 0 and not spec.traits.piercing else 0  # P-22
        dist = artifact.absorb(arts, rules.fail_rule, rules.resist_order, spec.wounds, face,
                               spec.durability, tokens, select)
        return tuple((*k, float(p)) for k, p in dist.items() if p)

    totals = defaultdict(float)
    end_tokens = defaultdict(float)
    sums = defaultdict(float)

    carried = len(spec.stimulants)

    def finish(outcome: str, mass: float, tokens: int, stims, uses: tuple) -> None:
        if isinstance(stims, tuple):  # kinds of dose left: the doses used are the rest
            stims = carried - sum(stims)
        totals[outcome] += mass
        end_tokens[tokens] += mass
        sums["stims"] += mass * stims
        sums["spent"] += mass * (sum(spec.loadout.uses) - sum(uses))

    def account(mass: float, r: int, u: int, s: int, wounds: int = 0) -> None:
        sums["wounds"] += mass * wounds
        sums["radiation"] += mass * r
        sums["art_uses"] += mass * u
        sums["side_effects"] += mass * s

    start_uses = spec.loadout.uses
    visited: set = set()
    restore_visited: set = set()
    counts0 = (0,) * len(arts)
    # Doses used so far, or with a plan's kinds of dose each kind's doses left.
    stims0 = tuple(n for _, n in plan.shape.kinds) if plan and plan.shape.kinds else 0
    states = defaultdict(float)
    sneak = spec.sneak and not spec.traits.ambush and spec.avoid_rule == AVOID_STEALTH
    for extra, h, r, w, u, s, p in (_dice(spec, ART_STEALTH, sneak_select) if sneak
                                    else [(0, 0, 0, 0, 0, 0, 1.0)]):
        account(p, r, u, s)
        health, other = _apply(spec, spec.start_health, spec.other, h, w)
        if _down(spec, health, other):
            finish("knocked_out", p, spec.tokens, stims0, start_uses)
            continue
        if sneak:
            p_avoid = _pass(spec.stealth + extra, spec.stealth_face, spec.vigilance)
        else:
            p_avoid = _p_avoid(spec)
        finish("avoided", p * p_avoid, spec.tokens, stims0, start_uses)
        states[(health, other, spec.tokens, stims0, start_uses, counts0)] += p * (1.0 - p_avoid)

    # Trait flees=N (P-22): what is left after round N ends fled, unless the cap comes first.
    last, left = spec.max_rounds, "capped"
    if 0 < spec.traits.flees < last:
        last, left = spec.traits.flees, "fled"
    for rnd in range(1, last + 1):
        following = defaultdict(float)
        for key, mass in states.items():
            if mass == 0.0:
                continue
            sums["rounds"] += mass
            _round(spec, rnd, key, mass, damage, finish, account, following, plan, visited,
                   restore_visited)
        states = following
        if not states:
            break
    for (_, _, tokens, stims, uses, _), mass in states.items():
        finish(left, mass, tokens, stims, uses)

    size = max(spec.durability, 0) + 1
    token_dist = tuple(end_tokens.get(t, 0.0) for t in range(size))
    destroyed = end_tokens.get(spec.durability, 0.0) if spec.durability > 0 else 0.0
    return CombatExact(
        outcomes={name: totals.get(name, 0.0) for name in OUTCOMES},
        mean_wounds=sums["wounds"],
        mean_rounds=sums["rounds"],
        tokens=token_dist,
        p_destroyed=destroyed,
        mean_stimulants=sums["stims"],
        mean_limited_spent=sums["spent"],
        mean_artifact_uses=sums["art_uses"],
        mean_side_effects=sums["side_effects"],
        mean_side_radiation=sums["radiation"],
        visited=frozenset(visited),
        restore_visited=frozenset(restore_visited),
    )


def _round(spec: CombatSpec, rnd: int, key: tuple, mass: float, damage, finish, account,
           following, plan: CombatPlan | None, visited: set, restore_visited: set) -> None:
    """Push the mass of one start-of-round state through round ``rnd`` (P-18..P-21)."""
    health, other, tokens, stims, uses, counts = key
    befores = [(health, other, counts, 0, 0, 0, 1.0)]
    now = usable(spec, health)  # by the thresholds, the round's artefacts (P-08, P-23)
    if spec.artifacts:
        chosen = now if plan is None else None
        if plan is not None and plan.shape.stages == 2:
            where = _where(rnd, health, tokens, stims, uses, other, counts)
            restore_visited.add(where)
            chosen = records(plan.restore_select(*where), len(spec.artifacts))
        befores = heal_and_calm(spec, health, other, counts, chosen)
    for health, other, counts, r0, u0, s0, p0 in befores:
        m0 = mass * p0
        account(m0, r0, u0, s0)
        if _down(spec, health, other):
            finish("knocked_out", m0, tokens, stims, uses)
            continue
        used = stims
        mask = sum(1 << j for j, n in enumerate(uses) if n > 0)
        arts = now  # the stealth and resist artefacts used
        if plan is None:
            mask |= _combat_bits(spec, now)
            while (used < len(spec.stimulants) and health <= spec.heal_at
                   and health < spec.health):
                health, used = _dose(spec, health, used)
            flee = (rnd >= 2 and 0 < spec.flee_at and health <= spec.flee_at
                    and not spec.traits.relentless)  # no flight from a relentless enemy (P-22)
        else:
            where = _where(rnd, health, tokens, stims, uses, other, counts)
            visited.add(where)
            doses, action, select = plan.decision(*where)
            if isinstance(used, tuple):  # kinds of dose (PlanShape.kinds)
                health, used = _kind_doses(spec, plan, health, used, doses)
            else:
                for _ in range(doses):
                    health, used = _dose(spec, health, used)
            flee = action == FLEE
            mask = (mask | spec.loadout.every_artifact) & (action - 1)
            arts = records(select, len(spec.artifacts))
        left = uses
        if flee:
            effect, select = ART_STEALTH, arts
        else:
            phase = FIRST_ROUND if rnd == 1 else LATER_ROUNDS
            spend = spec.loadout.spend[phase][mask]
            left = tuple(n - (spend >> j & 1) for j, n in enumerate(uses))
            effect, select = ART_COMBAT, _chosen(spend)
        for extra, h, r, w, u, s, p in _dice(spec, effect, select):
            m = m0 * p
            account(m, r, u, s)
            hp, oth = _apply(spec, health, other, h, w)
            if _down(spec, hp, oth):
                finish("knocked_out", m, tokens, used, left)
                continue
            if flee:
                ends, p_end = "fled", _pass(spec.stealth + extra, spec.stealth_face,
                                            spec.vigilance)
            else:
                pool = spec.combat + spec.loadout.bonus[phase][mask] + extra
                ends, p_end = "killed", _pass(pool, spec.success_on, spec.endurance)
            finish(ends, m * p_end, tokens, used, left)
            hit = m * (1.0 - p_end)
            if hit == 0.0:
                continue
            for through, after, h2, r2, w2, u2, s2, q in damage(tokens, arts):
                account(hit * q, r2, u2, s2, through)
                hp2, oth2 = _apply(spec, hp - through, oth, h2, w2)
                if _down(spec, hp2, oth2):
                    finish("knocked_out", hit * q, after, used, left)
                else:
                    following[(hp2, oth2, after, used, left, counts)] += hit * q
