"""Exact twin of the combat kernel: a Markov chain over the fight's small state space.

The state at the start of a round is (Health, armour tokens, stimulants used,
uses left of each limited-use weapon); the round number is the time index,
because round 1 differs from later rounds (P-21, P-29) and the safety cap
counts rounds. The distribution over states is pushed forward round by round
(a dynamic programme), so every outcome probability and every expectation is
exact up to floating-point rounding. Fights end quickly: every round that does
not end the fight costs Health or places armour tokens, so the chain is
absorbed after at most Health + durability + healing rounds.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache

from sim.encounter.loadout import FIRST_ROUND, LATER_ROUNDS
from sim.encounter.spec import CombatSpec
from sim.exact import dice
from sim.kernels.layout import AVOID_STEALTH

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
    """

    outcomes: dict
    mean_wounds: float
    mean_rounds: float
    tokens: tuple
    p_destroyed: float
    mean_stimulants: float
    mean_limited_spent: float


def _pass(n_dice: int, success_on: int, need: int) -> float:
    return float(dice.pool_pass(n_dice, success_on, need))


def _p_avoid(spec: CombatSpec) -> float:
    """P(the fight is avoided): a Stealth test (P-16) or d6 >= Reputation - escape item (Z-16)."""
    if not spec.sneak:
        return 0.0
    if spec.avoid_rule == AVOID_STEALTH:
        return _pass(spec.stealth, spec.stealth_face, spec.vigilance)
    return float(dice.threshold_pass(spec.escape_target))


def combat_exact(spec: CombatSpec) -> CombatExact:
    """Exact outcome probabilities and expectations of one fight (P-16..P-29, Z-12..Z-17)."""

    @cache
    def damage(tokens: int) -> tuple[tuple[int, int, float], ...]:
        """(wounds through, tokens after, probability) of one enemy attack (P-02..P-05)."""
        resist = spec.resist if spec.durability > 0 else None
        through, _ = dice.armor_distribution(spec.wounds, resist, max(spec.durability, 1),
                                             min(tokens, max(spec.durability, 1)))
        return tuple((w, tokens + spec.wounds - w, float(p))
                     for w, p in enumerate(through) if p)

    totals = defaultdict(float)
    end_tokens = defaultdict(float)
    sums = {"wounds": 0.0, "rounds": 0.0, "stims": 0.0, "spent": 0.0}

    def finish(outcome: str, mass: float, tokens: int, stims: int, uses: tuple) -> None:
        totals[outcome] += mass
        end_tokens[tokens] += mass
        sums["stims"] += mass * stims
        sums["spent"] += mass * (sum(spec.loadout.uses) - sum(uses))

    p_avoid = _p_avoid(spec)
    start_uses = spec.loadout.uses
    finish("avoided", p_avoid, spec.tokens, 0, start_uses)
    states = {(spec.start_health, spec.tokens, 0, start_uses): 1.0 - p_avoid}
    p_flee = _pass(spec.stealth, spec.stealth_face, spec.vigilance)

    for rnd in range(1, spec.max_rounds + 1):
        following = defaultdict(float)
        for (health, tokens, stims, uses), mass in states.items():
            if mass == 0.0:
                continue
            sums["rounds"] += mass
            while stims < len(spec.stimulants) and health <= spec.heal_at \
                    and health < spec.health:
                health = min(spec.health, health + spec.stimulants[stims])
                stims += 1
            if rnd >= 2 and 0 < spec.flee_at and health <= spec.flee_at:
                finish("fled", mass * p_flee, tokens, stims, uses)
                hit = mass * (1.0 - p_flee)
            else:
                phase = FIRST_ROUND if rnd == 1 else LATER_ROUNDS
                mask = sum(1 << j for j, left in enumerate(uses) if left > 0)
                spend = spec.loadout.spend[phase][mask]
                uses = tuple(left - (spend >> j & 1) for j, left in enumerate(uses))
                pool = spec.combat + spec.loadout.bonus[phase][mask]
                p_kill = _pass(pool, spec.success_on, spec.endurance)
                finish("killed", mass * p_kill, tokens, stims, uses)
                hit = mass * (1.0 - p_kill)
            if hit == 0.0:
                continue
            for through, after, p in damage(tokens):
                sums["wounds"] += hit * p * through
                if health - through <= 0:
                    finish("knocked_out", hit * p, after, stims, uses)
                else:
                    following[(health - through, after, stims, uses)] += hit * p
        states = following
        if not states:
            break
    for (_, tokens, stims, uses), mass in states.items():
        finish("capped", mass, tokens, stims, uses)

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
    )
