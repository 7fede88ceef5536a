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
from sim.kernels.layout import EFFECT_DAMAGE, TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER
from sim.reference.artifact import Harm, absorb
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


def _hurt(spec: AnomalySpec | EventSpec, damage: int, rand: random.Random
          ) -> tuple[int, bool, bool, bool]:
    """``(points lost, knocked out, deformation, harmed)`` of one damage.

    The damage goes through the resist artefacts and the armour
    (:func:`sim.reference.artifact.absorb`, P-02..P-06, P-08); the artefacts'
    side effects count on their tracks (P-09). Health <= 0 is a knock-out
    (P-37), Willpower <= 0 a concussion (P-40), radiation above the maximum a
    deformation (P-39).
    """
    harm = Harm()
    # policy.artifact_use (P-08): those it keeps for a lower Health stay unused.
    arts = [a for a in spec.artifacts if spec.health <= a.use_at]
    lost, _ = absorb(arts, spec.art_rules.fail_rule, spec.art_rules.resist_order,
                     damage, spec.effective_resist, spec.durability, spec.tokens, rand, harm)
    points = dict(harm.points)
    points[spec.target] += lost
    knocked_out = (spec.health - points[TARGET_HEALTH] <= 0
                   or spec.willpower - points[TARGET_WILLPOWER] <= 0)
    deformation = spec.radiation + points[TARGET_RADIATION] > spec.radiation_max
    return lost, knocked_out, deformation, any(points.values())


def encounter(spec: AnomalySpec, rand: random.Random, deck_rand: random.Random) -> AnomalyResult:
    """Resolve one anomaly encounter exactly as the rules read."""
    # P-31: notice the anomaly.
    perceived = pool_test(rand, spec.perception, spec.perception_face, spec.perception_need)
    if perceived and not spec.enter:
        return AnomalyResult("avoided", True, 0, False, 0, False)
    # P-32, P-33: one Agility test; P-36: a bonus die after a pass on a voluntary entry.
    dice = spec.agility + (spec.bonus_dice if perceived else 0)
    lost, knocked_out, deformation, harmed = 0, False, False, False
    if not pool_test(rand, dice, spec.agility_face, spec.agility_need):
        lost, knocked_out, deformation, harmed = _hurt(spec, spec.damage, rand)
    outcome = "knocked_out" if knocked_out else "damaged" if harmed else "unharmed"
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
    lost, knocked_out, deformation, _ = _hurt(spec, spec.value, rand)
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
