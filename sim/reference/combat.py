"""Reference combat (P-14..P-29, Z-12..Z-17; artefacts P-08..P-10), one die at a time."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field

from sim.encounter.loadout import FIRST_ROUND, LATER_ROUNDS, best_with_artifacts
from sim.encounter.spec import CombatSpec
from sim.kernels.layout import (
    ART_CALM,
    ART_COMBAT,
    ART_HEAL,
    ART_STEALTH,
    AVOID_STEALTH,
    TARGET_HEALTH,
    TARGET_RADIATION,
    TARGET_WILLPOWER,
)
from sim.reference.artifact import Harm, absorb, use
from sim.reference.dice import pool_test


@dataclass
class FightResult:
    """What one fight produced (``health``/``other``: the two tracks at its end)."""

    outcome: str
    wounds: int
    rounds: int
    tokens: int
    stimulants: int
    spent: int
    health: int
    artifact_uses: int = 0
    side_effects: int = 0
    other: int = 0
    radiation: int = 0


@dataclass
class _Stalker:
    """The fight's tracks: the enemy's (Health, or Willpower against psi) and the other.

    ``radiation`` counts the doses side effects gave; a fight has no radiation
    track, so a campaign adds them after it (P-39).
    """

    health: int
    other: int
    harm: Harm = field(default_factory=Harm)
    radiation: int = 0

    def suffer(self, spec: CombatSpec) -> None:
        """Apply the side effects collected so far (P-09) and clear them."""
        points = self.harm.points
        own, second = ((TARGET_HEALTH, TARGET_WILLPOWER) if spec.track == TARGET_HEALTH
                       else (TARGET_WILLPOWER, TARGET_HEALTH))
        self.health -= points[own]
        self.other -= points[second]
        self.radiation += points[TARGET_RADIATION]
        for target in points:
            points[target] = 0

    def down(self, spec: CombatSpec) -> bool:
        """Knocked out (P-37) or concussed by a side effect (P-40)."""
        return self.health <= 0 or (bool(spec.artifacts) and self.other <= 0)


def _dice(spec: CombatSpec, effect: int, chosen, me: _Stalker, rand: random.Random) -> int:
    """Dice the chosen artefacts of ``effect`` add to one test (P-08..P-10, P-23)."""
    extra = 0
    for i, a in enumerate(spec.artifacts):
        if a.effect == effect and i in chosen and use(a, spec.art_rules.fail_rule, rand, me.harm):
            extra += a.value
    me.suffer(spec)
    return extra


def _usable(spec: CombatSpec, health: int) -> frozenset[int]:
    """The artefacts the use policy lets him use at ``health`` (``policy.artifact_use``:
    at their ``use_at`` Health or less, P-08).
    """
    return frozenset(i for i, a in enumerate(spec.artifacts) if health <= a.use_at)


def _restore(spec: CombatSpec, me: _Stalker, counts: list, rand: random.Random,
             now: frozenset[int]) -> None:
    """Heal and calm artefacts of ``now`` before a round, at ``--heal-at`` (P-08, P-24)."""
    own, second = (ART_HEAL, ART_CALM) if spec.track == TARGET_HEALTH else (ART_CALM, ART_HEAL)
    for effect, top, attr in ((own, spec.health, "health"), (second, spec.other_max, "other")):
        for i, a in enumerate(spec.artifacts):
            level = getattr(me, attr)
            if (a.effect != effect or i not in now or level > spec.heal_at or level >= top
                    or counts[i] >= spec.art_rules.restore_uses):
                continue
            counts[i] += 1
            if use(a, spec.art_rules.fail_rule, rand, me.harm):
                setattr(me, attr, min(top, level + a.value))
        me.suffer(spec)


@functools.lru_cache(maxsize=4096)
def _loadout(table, available: frozenset, phase: int, now: frozenset) -> tuple:
    """The round's best weapons and combat artefacts of ``now`` (P-23, P-29):
    ``best_with_artifacts``.

    The choice depends on nothing else, so it is remembered: the same fight
    needs it every round, and a campaign needs it in every fight.
    """
    return best_with_artifacts(list(table.slots), set(available), phase, table.rules,
                               tuple(a for a in table.artifacts if a[0] in now))


def fight(spec: CombatSpec, rand: random.Random) -> FightResult:
    """Resolve one fight exactly as the rules read."""
    me = _Stalker(spec.start_health, spec.other)
    tokens, stims = spec.tokens, 0
    uses = list(spec.loadout.uses)
    counts = [0] * len(spec.artifacts)
    wounds_taken = 0

    def result(outcome: str, rounds: int) -> FightResult:
        spent = sum(spec.loadout.uses) - sum(uses)
        return FightResult(outcome, wounds_taken, rounds, tokens, stims, spent, me.health,
                           me.harm.uses, me.harm.side_effects, me.other, me.radiation)

    if spec.sneak and not spec.traits.ambush:  # an ambush cannot be avoided (P-22)
        if spec.avoid_rule == AVOID_STEALTH:
            # P-16 with stealth artefacts; a side effect may knock him out first (P-09).
            extra = _dice(spec, ART_STEALTH, _usable(spec, me.health), me, rand)
            if me.down(spec):
                return result("knocked_out", 0)
            avoided = pool_test(rand, spec.stealth + extra, spec.stealth_face, spec.vigilance)
        else:
            avoided = rand.randint(1, 6) >= spec.escape_target
        if avoided:
            return result("avoided", 0)

    # Trait flees=N (P-22): the enemy leaves after round N, unless the cap ends it first.
    last = spec.max_rounds
    if 0 < spec.traits.flees < last:
        last = spec.traits.flees
    for rnd in range(1, last + 1):
        now = _usable(spec, me.health)  # the round's artefacts, chosen at its start (P-23)
        _restore(spec, me, counts, rand, now)
        if me.down(spec):
            return result("knocked_out", rnd)
        # Stimulants (and medkits under combat.medkits_in_combat) need no hands and work
        # in combat (Z-12, P-24), capped at maximum (Z-14).
        while (stims < len(spec.stimulants) and me.health <= spec.heal_at
               and me.health < spec.health):
            me.health = min(spec.health, me.health + spec.stimulants[stims])
            stims += 1
        if (rnd >= 2 and 0 < spec.flee_at and me.health <= spec.flee_at
                and not spec.traits.relentless):  # no flight from a relentless enemy (P-22)
            # P-21: a Stealth test instead of attacking; a failure costs the enemy's damage.
            extra = _dice(spec, ART_STEALTH, now, me, rand)
            if me.down(spec):
                return result("knocked_out", rnd)
            if pool_test(rand, spec.stealth + extra, spec.stealth_face, spec.vigilance):
                return result("fled", rnd)
        else:
            # P-23, P-29: the best weapons and combat artefacts within two hands.
            phase = FIRST_ROUND if rnd == 1 else LATER_ROUNDS
            table = spec.loadout
            available = {i for i, slot in enumerate(table.slots) if slot.uses is None}
            available |= {i for j, i in enumerate(table.limited) if uses[j] > 0}
            bonus, chosen, arts = _loadout(table, frozenset(available), phase, now)
            for j, i in enumerate(table.limited):
                if i in chosen:
                    uses[j] -= 1
            extra = _dice(spec, ART_COMBAT, arts, me, rand)
            if me.down(spec):
                return result("knocked_out", rnd)
            if pool_test(rand, spec.combat + bonus + extra, spec.success_on, spec.endurance):
                return result("killed", rnd)
        # P-20: the enemy deals its wounds, through resist artefacts and the armour
        # (one die per wound, P-02..P-05).
        # A piercing enemy's wounds ignore the armour (P-22): it does not roll.
        face = spec.resist if spec.durability > 0 and not spec.traits.piercing else 0
        through, tokens = absorb([a for i, a in enumerate(spec.artifacts) if i in now],
                                 spec.art_rules.fail_rule,
                                 spec.art_rules.resist_order, spec.wounds, face,
                                 spec.durability, tokens, rand, me.harm)
        wounds_taken += through
        me.health -= through
        me.suffer(spec)
        if me.down(spec):
            return result("knocked_out", rnd)
    if last < spec.max_rounds:
        return result("fled", last)  # the enemy left (P-22)
    return result("capped", spec.max_rounds)


def simulate(spec: CombatSpec, n_trials: int, seed: int) -> dict[str, int]:
    """Count outcomes of ``n_trials`` reference fights (for tests and benchmarks)."""
    rand = random.Random(seed)
    counts = {"avoided": 0, "killed": 0, "fled": 0, "knocked_out": 0, "capped": 0}
    for _ in range(n_trials):
        counts[fight(spec, rand).outcome] += 1
    return counts
