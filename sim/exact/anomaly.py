"""Exact twin of the anomaly kernel: a closed form over the few cases, in Fractions.

An encounter has at most two branches into the anomaly (Perception passed
with a voluntary entry, P-36, or failed, P-32), each with one Agility test
(P-33) and, on a failure, one armour roll (P-02..P-06) whose distribution of
points through is binomial and capped by the durability; a survivor then
makes the find test (P-07, P-35), independent of all that went before. Every outcome is a
finite sum over (branch, points through), so all results below are exact
rational numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sim.encounter.anomaly import HazardPlay
from sim.encounter.spec import AnomalySpec
from sim.exact import artifact, dice
from sim.kernels.layout import TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER

OUTCOMES = ("avoided", "unharmed", "damaged", "knocked_out")


@dataclass(frozen=True)
class AnomalyExact:
    """Exact anomaly results (all :class:`~fractions.Fraction`).

    Attributes
    ----------
    outcomes : dict of str to Fraction
        Probability of each of ``OUTCOMES`` (they sum to 1).
    perceived : Fraction
        P(the Perception test passes), P-31.
    trophy : Fraction
        P(the stalker keeps the trophy): inside and not knocked out (P-34).
    deformation : Fraction
        P(radiation above the maximum after the encounter), P-39.
    artifact : Fraction
        P(an artefact of the anomaly's type is found), P-35.
    searched : Fraction
        P(the stalker searches the deck): inside, not knocked out, the anomaly
        yields a type, and the find test passed (P-07, P-35).
    draws_per_search : Fraction
        Expected cards drawn in one search (:func:`expected_draws`).
    mean_loss : Fraction
        Expected points lost after the armour (wounds, doses or disturbances).
    armor_destroyed : Fraction
        P(the armour is destroyed in the encounter), P-05.
    mean_artifact_uses, mean_side_effects : Fraction
        Expected artefact uses and side effects suffered (P-08..P-10).
    mean_side_points : Fraction
        Expected side-effect points taken, on every track together (P-09).
    """

    outcomes: dict
    perceived: Fraction
    trophy: Fraction
    deformation: Fraction
    artifact: Fraction
    searched: Fraction
    draws_per_search: Fraction
    mean_loss: Fraction
    armor_destroyed: Fraction
    mean_artifact_uses: Fraction = Fraction(0)
    mean_side_effects: Fraction = Fraction(0)
    mean_side_points: Fraction = Fraction(0)


def consequence(target: int, through: int, health: int, willpower: int, radiation: int,
                radiation_max: int) -> tuple[bool, bool]:
    """``(knocked_out, deformation)`` after ``through`` points on ``target``.

    Health <= 0 is unconsciousness (P-37); Willpower <= 0 is a concussion
    (P-40), also counted as knocked out; radiation above the maximum is a
    deformation (P-39: "exceeds"), not a knock-out.
    """
    if target == TARGET_HEALTH:
        return health - through <= 0, False
    if target == TARGET_WILLPOWER:
        return willpower - through <= 0, False
    return False, radiation + through > radiation_max


def expected_draws(n_cards: int, n_matching: int) -> Fraction:
    """Expected cards drawn without replacement until the first of ``n_matching`` (P-35).

    With K matching cards among N the first match is at position
    (N + 1) / (K + 1) on average; with none, the whole deck (N cards) is
    drawn and nothing is found.
    """
    if n_matching <= 0:
        return Fraction(n_cards)
    return Fraction(n_cards + 1, n_matching + 1)


@dataclass(frozen=True)
class Hurt:
    """What one damage does, given that it is dealt (all :class:`~fractions.Fraction`).

    ``unharmed``, ``damaged`` and ``knocked_out`` sum to 1; ``deformation``,
    ``destroyed`` are probabilities; ``mean_loss`` (points on the damage's
    track), ``uses``, ``side_effects`` (artefacts) and ``side_points`` (their
    points on every track, P-09) are expectations.
    """

    unharmed: Fraction
    damaged: Fraction
    knocked_out: Fraction
    deformation: Fraction
    destroyed: Fraction
    mean_loss: Fraction
    uses: Fraction
    side_effects: Fraction
    side_points: Fraction = Fraction(0)


def hazard(arts, rules, damage: int, target: int, face: int, durability: int, tokens: int,
           health: int, willpower: int, radiation: int, radiation_max: int) -> Hurt:
    """Exact twin of :func:`sim.kernels.anomaly.take_damage` (P-02..P-06, P-08..P-10, P-37..P-40).

    Side effects count on their tracks (P-09) and a harm of any kind, on any
    track, makes the stalker "damaged".
    """
    sums = dict.fromkeys(("unharmed", "damaged", "knocked_out", "deformation", "destroyed",
                          "loss", "uses", "side", "points"), Fraction(0))
    dist = artifact.absorb(arts, rules.fail_rule, rules.resist_order, damage, face,
                           durability, tokens)
    for (through, after, h, r, w, uses, suffered), p in dist.items():
        lost = [h, r, w]  # by TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER
        lost[target] += through
        out = (health - lost[TARGET_HEALTH] <= 0 or willpower - lost[TARGET_WILLPOWER] <= 0)
        outcome = "knocked_out" if out else "damaged" if through + h + r + w else "unharmed"
        sums[outcome] += p
        sums["deformation"] += p if radiation + lost[TARGET_RADIATION] > radiation_max else 0
        sums["destroyed"] += p if 0 < durability and tokens < durability <= after else 0
        sums["loss"] += p * through
        sums["uses"] += p * uses
        sums["side"] += p * suffered
        sums["points"] += p * (h + r + w)
    return Hurt(sums["unharmed"], sums["damaged"], sums["knocked_out"], sums["deformation"],
                sums["destroyed"], sums["loss"], sums["uses"], sums["side"], sums["points"])


def anomaly_exact(spec: AnomalySpec, play: HazardPlay | None = None) -> AnomalyExact:
    """Exact outcome probabilities and expectations of one anomaly encounter (P-31..P-36).

    With ``play`` the encounter follows its decisions (enter after noticing, P-36;
    the artefacts used against the damage, P-08) instead of the spec's policy
    (``enter``, every artefact used), as the kernel does with the packed decisions.
    """
    enter = spec.enter if play is None else play.enter
    arts = spec.artifacts if play is None else play.chosen(spec.artifacts)
    arts = [a for a in arts if spec.health <= a.use_at]  # policy.artifact_use (P-08)
    p_seen = dice.pool_pass(spec.perception, spec.perception_face, spec.perception_need)
    if enter:
        avoided = Fraction(0)
        branches = [(p_seen, spec.agility + spec.bonus_dice), (1 - p_seen, spec.agility)]
    else:
        avoided = p_seen
        branches = [(1 - p_seen, spec.agility)]
    p_inside = sum((m for m, _ in branches), Fraction(0))
    p_hit = sum((m * (1 - dice.pool_pass(pool, spec.agility_face, spec.agility_need))
                 for m, pool in branches), Fraction(0))
    hurt = hazard(arts, spec.art_rules, spec.damage, spec.target,
                  spec.effective_resist, spec.durability, spec.tokens, spec.health,
                  spec.willpower, spec.radiation, spec.radiation_max)
    unharmed = p_inside - p_hit + p_hit * hurt.unharmed
    damaged = p_hit * hurt.damaged
    knocked_out = p_hit * hurt.knocked_out
    deformation = p_hit * hurt.deformation
    mean_loss = p_hit * hurt.mean_loss
    trophy = unharmed + damaged
    yields = spec.artifact >= 0
    # P-07, P-35: the find test decides whether the deck is searched.
    p_find = dice.pool_pass(spec.find_pool, spec.find_face, spec.find_need)
    searched = trophy * p_find if yields else Fraction(0)
    n_cards = sum(spec.deck)
    n_matching = spec.deck[spec.artifact] if yields else 0
    return AnomalyExact(
        outcomes={"avoided": avoided, "unharmed": unharmed, "damaged": damaged,
                  "knocked_out": knocked_out},
        perceived=p_seen,
        trophy=trophy,
        deformation=deformation,
        artifact=searched if n_matching > 0 else Fraction(0),
        searched=searched,
        draws_per_search=expected_draws(n_cards, n_matching) if yields else Fraction(0),
        mean_loss=mean_loss,
        armor_destroyed=p_hit * hurt.destroyed,
        mean_artifact_uses=p_hit * hurt.uses,
        mean_side_effects=p_hit * hurt.side_effects,
        mean_side_points=p_hit * hurt.side_points,
    )
