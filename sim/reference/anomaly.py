"""Reference anomalies (P-30..P-36) and events (Z-08..Z-10), one die at a time.

The readable executable spec of :mod:`sim.kernels.anomaly` and
:mod:`sim.kernels.event`: plain Python with :class:`random.Random`, every
test rolled die by die and every artefact card drawn from a shuffled deck.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from sim.encounter.spec import AnomalySpec, EventSpec
from sim.kernels.layout import EFFECT_DAMAGE, TARGET_HEALTH, TARGET_RADIATION
from sim.reference.dice import pool_test


@dataclass
class AnomalyResult:
    """What one anomaly encounter produced."""

    outcome: str
    perceived: bool
    lost: int
    deformation: bool
    draws: int
    artifact: bool


def _through_armor(rand: random.Random, points: int, resist: int, durability: int,
                   tokens: int) -> int:
    """Points that get through the armour (P-02..P-06): one die per point."""
    through = points
    if resist:
        for _ in range(points):
            # P-06: every die is rolled; a success absorbs only while tokens fit.
            if rand.randint(1, 6) >= resist and tokens < durability:
                tokens += 1
                through -= 1
    return through


def _hurt(target: int, through: int, health: int, willpower: int, radiation: int,
          radiation_max: int) -> tuple[bool, bool]:
    """(knocked out, deformation): P-37 Health, P-40 Willpower, P-39 radiation."""
    if target == TARGET_HEALTH:
        return health - through <= 0, False
    if target == TARGET_RADIATION:
        return False, radiation + through > radiation_max
    return willpower - through <= 0, False


def encounter(spec: AnomalySpec, rand: random.Random, deck_rand: random.Random) -> AnomalyResult:
    """Resolve one anomaly encounter exactly as the rules read."""
    # P-31: notice the anomaly.
    perceived = pool_test(rand, spec.perception, spec.perception_face, spec.perception_need)
    if perceived and not spec.enter:
        return AnomalyResult("avoided", True, 0, False, 0, False)
    # P-32, P-33: one Agility test; P-36: a bonus die after a pass on a voluntary entry.
    dice = spec.agility + (spec.bonus_dice if perceived else 0)
    lost, knocked_out, deformation = 0, False, False
    if not pool_test(rand, dice, spec.agility_face, spec.agility_need):
        lost = _through_armor(rand, spec.damage, spec.effective_resist, spec.durability,
                              spec.tokens)
        knocked_out, deformation = _hurt(spec.target, lost, spec.health, spec.willpower,
                                         spec.radiation, spec.radiation_max)
    outcome = "knocked_out" if knocked_out else "damaged" if lost else "unharmed"
    # P-34 trophy unless knocked out; P-07/P-35 a find test, then draw until the
    # anomaly's type turns up.
    draws, found = 0, False
    if (not knocked_out and spec.artifact >= 0
            and pool_test(rand, spec.find_pool, spec.find_face, spec.find_need)):
        deck = [t for t, n in enumerate(spec.deck) for _ in range(n)]
        deck_rand.shuffle(deck)
        for card in deck:
            draws += 1
            if card == spec.artifact:
                found = True
                break
    return AnomalyResult(outcome, perceived, lost, deformation, draws, found)


def simulate(spec: AnomalySpec, n_trials: int, seed: int) -> Counter:
    """Counts of outcomes and of ``perceived``, ``deformation``, ``artifact``."""
    rand, deck_rand = random.Random(seed), random.Random(seed + 1)
    counts: Counter = Counter()
    for _ in range(n_trials):
        r = encounter(spec, rand, deck_rand)
        counts[r.outcome] += 1
        counts["perceived"] += r.perceived
        counts["deformation"] += r.deformation
        counts["artifact"] += r.artifact
        counts["lost"] += r.lost
        counts["draws"] += r.draws
    return counts


def event(spec: EventSpec, rand: random.Random) -> tuple[str, int, bool]:
    """Resolve one event card: ``(outcome, points lost, deformation)`` (Z-09, Z-10)."""
    if spec.rolls and (spec.automatic or rand.randint(1, 6) >= spec.avoid_target):
        return "avoided", 0, False
    if spec.effect != EFFECT_DAMAGE:
        return "happened", 0, False
    lost = _through_armor(rand, spec.value, spec.effective_resist, spec.durability, spec.tokens)
    knocked_out, deformation = _hurt(spec.target, lost, spec.health, spec.willpower,
                                     spec.radiation, spec.radiation_max)
    return ("knocked_out" if knocked_out else "happened"), lost, deformation


def simulate_event(spec: EventSpec, n_trials: int, seed: int) -> Counter:
    """Counts of event outcomes, ``deformation`` and total ``lost`` points."""
    rand = random.Random(seed)
    counts: Counter = Counter()
    for _ in range(n_trials):
        outcome, lost, deformation = event(spec, rand)
        counts[outcome] += 1
        counts["lost"] += lost
        counts["deformation"] += deformation
    return counts
