"""Reference combat (P-14..P-29, Z-12..Z-17), one die at a time."""

from __future__ import annotations

import random
from dataclasses import dataclass

from sim.encounter.loadout import FIRST_ROUND, LATER_ROUNDS, best_selection
from sim.encounter.spec import CombatSpec
from sim.kernels.layout import AVOID_STEALTH
from sim.reference.dice import pool_test


@dataclass
class FightResult:
    """What one fight produced."""

    outcome: str
    wounds: int
    rounds: int
    tokens: int
    stimulants: int
    spent: int
    health: int


def fight(spec: CombatSpec, rand: random.Random) -> FightResult:
    """Resolve one fight exactly as the rules read."""
    health, tokens, stims = spec.start_health, spec.tokens, 0
    uses = list(spec.loadout.uses)
    wounds_taken = 0

    def result(outcome: str, rounds: int) -> FightResult:
        spent = sum(spec.loadout.uses) - sum(uses)
        return FightResult(outcome, wounds_taken, rounds, tokens, stims, spent, health)

    if spec.sneak:
        if spec.avoid_rule == AVOID_STEALTH:
            avoided = pool_test(rand, spec.stealth, spec.stealth_face, spec.vigilance)
        else:
            avoided = rand.randint(1, 6) >= spec.escape_target
        if avoided:
            return result("avoided", 0)

    for rnd in range(1, spec.max_rounds + 1):
        # Stimulants (and medkits under combat.medkits_in_combat) need no hands and work
        # in combat (Z-12, P-24), capped at maximum (Z-14).
        while stims < len(spec.stimulants) and health <= spec.heal_at and health < spec.health:
            health = min(spec.health, health + spec.stimulants[stims])
            stims += 1
        if rnd >= 2 and 0 < spec.flee_at and health <= spec.flee_at:
            # P-21: a Stealth test instead of attacking; a failure costs the enemy's damage.
            if pool_test(rand, spec.stealth, spec.stealth_face, spec.vigilance):
                return result("fled", rnd)
        else:
            # P-23, P-29: the best weapons within two hands for this round.
            phase = FIRST_ROUND if rnd == 1 else LATER_ROUNDS
            table = spec.loadout
            available = {i for i, slot in enumerate(table.slots) if slot.uses is None}
            available |= {i for j, i in enumerate(table.limited) if uses[j] > 0}
            bonus, chosen = best_selection(list(table.slots), available, phase, table.rules)
            for j, i in enumerate(table.limited):
                if i in chosen:
                    uses[j] -= 1
            pool = spec.combat + bonus
            if pool_test(rand, pool, spec.success_on, spec.endurance):
                return result("killed", rnd)
        # P-20: the enemy deals its wounds; the armour rolls one die per wound (P-02..P-05).
        through = spec.wounds
        if spec.resist and tokens < spec.durability:
            for _ in range(spec.wounds):
                if tokens < spec.durability and rand.randint(1, 6) >= spec.resist:
                    tokens += 1
                    through -= 1
        wounds_taken += through
        health -= through
        if health <= 0:
            return result("knocked_out", rnd)
    return result("capped", spec.max_rounds)


def simulate(spec: CombatSpec, n_trials: int, seed: int) -> dict[str, int]:
    """Count outcomes of ``n_trials`` reference fights (for tests and benchmarks)."""
    rand = random.Random(seed)
    counts = {"avoided": 0, "killed": 0, "fled": 0, "knocked_out": 0, "capped": 0}
    for _ in range(n_trials):
        counts[fight(spec, rand).outcome] += 1
    return counts
