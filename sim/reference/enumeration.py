"""Brute-force enumeration of every die of a short fight (P-02..P-06, P-16..P-29, Z-12..Z-17).

The exact twin of combat (:mod:`sim.exact.combat`) is a Markov chain over
(Health, tokens, stimulants, uses) with binomial pool probabilities and the
tabulated loadout of :mod:`sim.encounter.loadout`. This module checks it from
outside, on fights capped at one or two rounds: it follows the rules of
docs/rules.md "Combat" step by step and enumerates every face of every die
rolled (``itertools.product`` over 1..6), weighting each sequence of faces
by 6**-dice, with exact :class:`~fractions.Fraction` arithmetic. It uses no
Markov chain, no binomial formula and no loadout table: the weapons of each
round are chosen here from the weapon cards by trying every subset (P-23,
P-29). Only the fight's parameters (a :class:`~sim.encounter.spec.CombatSpec`,
the input every combat implementation shares) are read.

The cost grows as 6**dice per test, so it is meant for small pools (a few
dice per test) and at most two rounds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product

from sim.encounter.spec import CombatSpec
from sim.kernels.layout import AVOID_STEALTH
from sim.reference.loadout import best_weapons

SIXTH = Fraction(1, 6)


@cache
def successes(dice: int, face: int) -> tuple[Fraction, ...]:
    """P(k dice of ``dice`` show ``face`` or more), k = 0..dice, over all 6**dice rolls."""
    counts = Counter(sum(f >= face for f in faces)
                     for faces in product(range(1, 7), repeat=dice))
    return tuple(Fraction(counts[k], 6 ** dice) for k in range(dice + 1))


def passes(dice: int, face: int, need: int) -> Fraction:
    """P(a test of ``dice`` dice reaching ``need`` successes); need <= 0 passes unrolled."""
    if need <= 0:
        return Fraction(1)
    return sum(successes(dice, face)[need:], Fraction(0))


def absorb(faces: tuple[int, ...], resist: int, durability: int, tokens: int
           ) -> tuple[int, int]:
    """One armour roll (P-02..P-06): ``(wounds through, tokens after)`` for these faces.

    One die per incoming wound; each face >= ``resist`` absorbs one wound
    while tokens fit (the wound whose token fills the durability is still
    absorbed, P-06); the rest get through.
    """
    through = len(faces)
    for face in faces:
        if face >= resist and tokens < durability:
            tokens += 1
            through -= 1
    return through, tokens


@dataclass(frozen=True)
class Enumerated:
    """Exact results of a short fight, from enumeration.

    Attributes
    ----------
    outcomes : dict of str to Fraction
        avoided, killed, fled, knocked_out, capped.
    tokens : dict of int to Fraction
        Armour tokens at the end.
    mean_wounds, mean_rounds, mean_stimulants, mean_limited_spent : Fraction
        Expectations over all fights (an avoided fight has 0 rounds).
    """

    outcomes: dict
    tokens: dict
    mean_wounds: Fraction
    mean_rounds: Fraction
    mean_stimulants: Fraction
    mean_limited_spent: Fraction


def weapon_bonus(spec: CombatSpec, uses: tuple, later: bool) -> tuple[int, tuple]:
    """The round's best weapons within the hand limit (P-23, P-24, P-29), from the cards.

    ``uses`` holds the uses left of every weapon slot (None: unlimited).
    Returns ``(bonus, uses after the round)``; of equal bonuses the choice
    spending fewer limited weapons wins, then the smaller, earlier subset.
    """
    rules = spec.loadout.rules
    bonus, chosen = best_weapons(
        spec.loadout.slots, uses, close=rules.melee_enemy and later,
        melee_enemy=rules.melee_enemy, hands=rules.hands,
        long_range_divisor=rules.long_range_divisor, short_range_full=rules.short_range_full,
        melee_weapons_vs_ranged=rules.melee_weapons_vs_ranged)
    left = list(uses)
    for i in chosen:
        if left[i] is not None:
            left[i] -= 1
    return bonus, tuple(left)


def enumerate_fight(spec: CombatSpec) -> Enumerated:
    """Every die of a fight capped at ``spec.max_rounds`` (1 or 2) rounds, exactly.

    The procedure of docs/rules.md "Combat": an avoid roll first under the
    sneak policy (P-16 Stealth test, or d6 >= Reputation - item, Z-16);
    then each round heals while Health <= heal_at (Z-12..Z-14), flees from
    round 2 at Health <= flee_at (P-21), or makes the Combat test with the
    round's best weapons (P-19, P-23, P-29); a round not won costs the
    enemy's wounds through the armour (P-20, P-02..P-06), and Health <= 0 is
    a knock-out (P-37); the enemy's traits (P-22, :mod:`sim.rules.traits`) forbid the
    avoid roll or the flight, pierce the armour or end the fight as ``fled`` after their
    round.
    """
    if spec.max_rounds > 2:
        raise ValueError("enumeration is for fights of at most two rounds")
    if spec.artifacts:
        raise ValueError("enumeration does not follow artefacts (P-08..P-10); "
                         "sim.reference.combat does")
    ends: Counter = Counter()

    def end(weight, outcome, rounds, tokens, wounds, stims, uses):
        spent = sum(u0 - u for u0, u in zip(start_uses, uses, strict=True) if u is not None)
        ends[(outcome, rounds, tokens, wounds, stims, spent)] += weight

    def round_(rnd, weight, health, tokens, stims, uses, wounds):
        if rnd > last:
            end(weight, left, last, tokens, wounds, stims, uses)
            return
        while stims < len(spec.stimulants) and health <= spec.heal_at and health < spec.health:
            health = min(spec.health, health + spec.stimulants[stims])
            stims += 1
        if (rnd >= 2 and 0 < spec.flee_at and health <= spec.flee_at
                and not spec.traits.relentless):  # no flight from a relentless enemy (P-22)
            won = passes(spec.stealth, spec.stealth_face, spec.vigilance)
            outcome = "fled"
        else:
            bonus, uses = weapon_bonus(spec, uses, rnd >= 2)
            won = passes(spec.combat + bonus, spec.success_on, spec.endurance)
            outcome = "killed"
        if won:
            end(weight * won, outcome, rnd, tokens, wounds, stims, uses)
        if won == 1:
            return
        lost = weight * (1 - won)
        if (spec.wounds <= 0 or not spec.resist or tokens >= spec.durability
                or spec.traits.piercing):  # a piercing enemy: the armour does not roll (P-22)
            rolls = [(Fraction(1), max(spec.wounds, 0), tokens)]  # no armour roll
        else:
            rolls = [(SIXTH ** spec.wounds, *absorb(faces, spec.resist, spec.durability, tokens))
                     for faces in product(range(1, 7), repeat=spec.wounds)]
        for p, through, after in rolls:
            if health - through <= 0:
                end(lost * p, "knocked_out", rnd, after, wounds + through, stims, uses)
            else:
                round_(rnd + 1, lost * p, health - through, after, stims, uses, wounds + through)

    # Trait flees=N (P-22): the enemy leaves after round N, unless the cap comes first.
    last, left = spec.max_rounds, "capped"
    if 0 < spec.traits.flees < last:
        last, left = spec.traits.flees, "fled"
    start_uses = tuple(s.uses for s in spec.loadout.slots)
    fight_weight = Fraction(1)
    if spec.sneak and not spec.traits.ambush:  # an ambush cannot be avoided (P-22)
        if spec.avoid_rule == AVOID_STEALTH:
            avoid = passes(spec.stealth, spec.stealth_face, spec.vigilance)
        else:
            avoid = sum((SIXTH for face in range(1, 7) if face >= spec.escape_target),
                        Fraction(0))
        ends[("avoided", 0, spec.tokens, 0, 0, 0)] += avoid
        fight_weight = 1 - avoid
    if fight_weight:
        round_(1, fight_weight, spec.start_health, spec.tokens, 0, start_uses, 0)
    outcomes: Counter = Counter()
    tokens: Counter = Counter()
    means = [Fraction(0)] * 4
    for (outcome, rounds, after, wounds, stims, spent), w in ends.items():
        outcomes[outcome] += w
        tokens[after] += w
        for k, x in enumerate((wounds, rounds, stims, spent)):
            means[k] += w * x
    return Enumerated({o: outcomes[o] for o in ("avoided", "killed", "fled", "knocked_out",
                                                "capped")},
                      dict(tokens), *means)
