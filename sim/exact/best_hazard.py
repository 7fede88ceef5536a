"""Best play in an anomaly or on an event, solved exactly (P-31..P-36, P-08..P-10, Z-08..Z-10).

The decisions the rules leave to the player are few and small, so they are
solved exactly, in Fractions, by backward induction over the encounter's two
decision points (QuantEcon's ``backward_induction`` on a two-step horizon):

1. **The damage** (a failed Agility test, P-32, or an event that happens):
   which carried resist artefacts to use against it (P-08: "it is worth
   considering whether using one is worthwhile"; a used artefact brings its
   activation test and side effect, P-09, P-10). The choice is made once,
   before any die of the damage is rolled; it is the same whether the stalker
   fell in or entered on purpose, since the state he is in (Health, armour
   tokens, radiation, Willpower) is the same. Every subset of the resist records
   is weighed (at most ``2 ** MAX_ARTIFACTS``); ties go to the subset that uses
   fewer artefacts, then to the earlier carried.
2. **After noticing an anomaly** (a passed Perception test, P-31): enter on
   purpose, with ``anomaly.voluntary_bonus_dice`` more Agility dice (P-36), or
   go around. The value of going in is that of the Agility test with the bonus,
   the best damage decision and, for a survivor, the find test (P-07, P-35);
   ties go to going around.

The event item (Z-08..Z-10) is no decision: P(avoid) grows with the item's
shift, no item has a side effect or is used up by a draw (``events.items_consumed``
changes no single draw), and no event card helps the stalker, so under every
objective here the item with the largest shift is at least as good as any other
(today's rule, :func:`sim.encounter.items.best_event_item`; docs/rules.md "Best
play in anomalies and events"). :func:`solve_event` therefore solves only the
artefacts.

The objective is the fight's :class:`~sim.exact.best_combat.Objective`, read
on a hazard's outcomes by :func:`hazard_values`: an anomaly's "kill" is its
prize, the artefact found (P-35).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from sim.encounter.anomaly import HazardPlay
from sim.encounter.spec import AnomalySpec, EventSpec
from sim.exact import dice
from sim.exact.anomaly import AnomalyExact, hazard
from sim.exact.best_combat import OBJECTIVES, Objective
from sim.exact.event import EventExact
from sim.kernels.layout import ART_RESIST, EFFECT_DAMAGE


@dataclass(frozen=True)
class HazardValues:
    """An objective read on a hazard's outcomes, in exact Fractions.

    The combat outcomes map onto a hazard's as follows: ``avoided`` is going
    around the anomaly (P-31) or avoiding the event (Z-09); ``killed``, the
    fight's prize, is an anomaly's artefact found (P-35; the stalker keeps the
    card trophy too, P-34); ``fled``, coming out conscious without the prize, is
    being inside the anomaly and out again without an artefact, or an event that
    happened without knocking out; ``knocked_out`` is Health or Willpower at 0
    (P-37, P-40). ``capped`` has no analogue. The fight's ``wound`` cost is
    charged for every point the stalker loses, on any track: the damage after
    the artefacts and armour, and side effects (P-09).

    So ``survive`` is P(not knocked out), ``kill`` P(artefact found) (0 on an
    event) and :func:`~sim.exact.best_combat.value_objective` the expected
    weights less the points' cost.

    Attributes
    ----------
    avoided, found, came_out, knocked_out : Fraction
        Values of the outcomes.
    point : Fraction
        Cost of each point lost.
    """

    avoided: Fraction
    found: Fraction
    came_out: Fraction
    knocked_out: Fraction
    point: Fraction


def hazard_values(objective: Objective) -> HazardValues:
    """The hazard reading of ``objective`` (:class:`HazardValues`), its floats as exact
    Fractions (so ties are exact).
    """
    return HazardValues(Fraction(objective.weight("avoided")), Fraction(objective.weight("killed")),
                        Fraction(objective.weight("fled")),
                        Fraction(objective.weight("knocked_out")), Fraction(objective.wound))


def anomaly_objective(e: AnomalyExact, objective: Objective) -> Fraction:
    """The objective's exact value of an anomaly's exact results (P-31..P-36)."""
    v = hazard_values(objective)
    out = e.outcomes
    return (v.avoided * out["avoided"] + v.found * e.artifact
            + v.came_out * (e.trophy - e.artifact) + v.knocked_out * out["knocked_out"]
            - v.point * (e.mean_loss + e.mean_side_points))


def event_objective(e: EventExact, objective: Objective) -> Fraction:
    """The objective's exact value of an event's exact results (Z-08..Z-10)."""
    v = hazard_values(objective)
    out = e.outcomes
    lost = e.health_lost + e.radiation + e.psi + e.mean_side_points
    return (v.avoided * out["avoided"] + v.came_out * out["happened"]
            + v.knocked_out * out["knocked_out"] - v.point * lost)


def _masks(artifacts) -> list[int]:
    """Every subset of the resist records, fewest first, then the earlier carried."""
    resist = [i for i, a in enumerate(artifacts) if a.effect == ART_RESIST]
    out = []
    for k in range(len(resist) + 1):
        for chosen in combinations(resist, k):
            out.append(sum(1 << i for i in chosen))
    return out


def best_damage(spec: AnomalySpec | EventSpec, damage: int, conscious: Fraction,
                values: HazardValues) -> tuple[int, Fraction]:
    """The resist artefacts to use against one damage (P-08..P-10) and its value.

    ``conscious`` is what coming out of the damage conscious is worth (for an
    anomaly, the find test after it). Every subset of the resist records is
    weighed with the exact damage (:func:`sim.exact.anomaly.hazard`); the first
    best of :func:`_masks` wins, so ties use fewer artefacts.

    Returns
    -------
    tuple
        ``(used, value)``: the bit mask of the records used and the expected value.
    """
    best_mask, best = 0, None
    for mask in _masks(spec.artifacts):
        arts = tuple(a for i, a in enumerate(spec.artifacts) if mask >> i & 1)
        hurt = hazard(arts, spec.art_rules, damage, spec.target, spec.effective_resist,
                      spec.durability, spec.tokens, spec.health, spec.willpower,
                      spec.radiation, spec.radiation_max)
        value = (hurt.knocked_out * values.knocked_out + (1 - hurt.knocked_out) * conscious
                 - values.point * (hurt.mean_loss + hurt.side_points))
        if best is None or value > best:
            best_mask, best = mask, value
    return best_mask, best


def solve_anomaly(spec: AnomalySpec, objective: Objective = OBJECTIVES["survive"]
                  ) -> HazardPlay:
    """Best play in an anomaly (P-31..P-36, P-08): enter after noticing or go around, and
    the resist artefacts to use; the value exact (:attr:`HazardPlay.value` as a float).
    """
    values = hazard_values(objective)
    n_matching = spec.deck[spec.artifact] if spec.artifact >= 0 else 0
    p_find = dice.pool_pass(spec.find_pool, spec.find_face, spec.find_need) if n_matching else 0
    conscious = p_find * values.found + (1 - p_find) * values.came_out
    used, hit = best_damage(spec, spec.damage, conscious, values)

    def inside(pool: int) -> Fraction:
        p = dice.pool_pass(pool, spec.agility_face, spec.agility_need)
        return p * conscious + (1 - p) * hit

    p_seen = dice.pool_pass(spec.perception, spec.perception_face, spec.perception_need)
    entered = inside(spec.agility + spec.bonus_dice)
    enter = entered > values.avoided
    noticed = entered if enter else values.avoided
    value = p_seen * noticed + (1 - p_seen) * inside(spec.agility)
    return HazardPlay(enter, used, float(value), objective.name)


def solve_event(spec: EventSpec, objective: Objective = OBJECTIVES["survive"]) -> HazardPlay:
    """Best play on an event (Z-08..Z-10, P-08): the resist artefacts to use against its
    damage; the event item is the best held (today's rule, see the module notes).
    """
    values = hazard_values(objective)
    avoided = dice.threshold_pass(spec.avoid_target, spec.automatic) if spec.rolls else 0
    used, happened = 0, values.came_out
    if spec.effect == EFFECT_DAMAGE:
        used, happened = best_damage(spec, spec.value, values.came_out, values)
    value = avoided * values.avoided + (1 - avoided) * happened
    return HazardPlay(False, used, float(value), objective.name)


__all__ = ["HazardValues", "anomaly_objective", "best_damage", "event_objective",
           "hazard_values", "solve_anomaly", "solve_event"]
