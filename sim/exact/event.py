"""Exact twin of the event kernel (Z-08..Z-10): one avoidance roll, one armour roll.

P(avoid) is that of one d6 against ``avoid_on`` minus the best item's shift
(Z-09, Z-10), 1 with the Torsion scanner and 0 for a card without a roll;
if the event happens its damage goes through the armour exactly as in an
anomaly (:func:`sim.exact.anomaly.hazard`), with the resist artefacts.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sim.encounter.anomaly import HazardPlay
from sim.encounter.spec import EventSpec
from sim.exact import dice
from sim.exact.anomaly import hazard
from sim.kernels.layout import (
    EFFECT_DAMAGE,
    EFFECT_EMISSION_TOKENS,
    EFFECT_LOST_DAY,
    TARGET_HEALTH,
    TARGET_RADIATION,
    TARGET_WILLPOWER,
)

OUTCOMES = ("avoided", "happened", "knocked_out")


@dataclass(frozen=True)
class EventExact:
    """Exact event results (all :class:`~fractions.Fraction`).

    Attributes
    ----------
    outcomes : dict of str to Fraction
        ``avoided``; ``happened`` (the event took place, the stalker is still
        conscious); ``knocked_out`` (it took place and Health or Willpower fell
        to 0, P-37/P-40). They sum to 1.
    deformation : Fraction
        P(radiation above the maximum), P-39.
    health_lost, radiation, psi : Fraction
        Expected wounds, doses and disturbances taken after the armour.
    days_lost, emission_tokens : Fraction
        Expected days lost and Emission tokens placed.
    armor_destroyed : Fraction
        P(the armour is destroyed), P-05.
    mean_artifact_uses, mean_side_effects : Fraction
        Expected resist-artefact uses and side effects suffered (P-08..P-10).
    mean_side_points : Fraction
        Expected side-effect points taken, on every track together (P-09).
    """

    outcomes: dict
    deformation: Fraction
    health_lost: Fraction
    radiation: Fraction
    psi: Fraction
    days_lost: Fraction
    emission_tokens: Fraction
    armor_destroyed: Fraction
    mean_artifact_uses: Fraction = Fraction(0)
    mean_side_effects: Fraction = Fraction(0)
    mean_side_points: Fraction = Fraction(0)


def event_exact(spec: EventSpec, play: HazardPlay | None = None) -> EventExact:
    """Exact probabilities and expectations of one event card (Z-08..Z-10).

    With ``play`` only the artefacts it uses act on the damage (P-08), as in the
    kernel reading the packed decisions; without, every one does.
    """
    arts = spec.artifacts if play is None else play.chosen(spec.artifacts)
    arts = [a for a in arts if spec.health <= a.use_at]  # policy.artifact_use (P-08)
    if not spec.rolls:
        avoided = Fraction(0)
    else:
        avoided = dice.threshold_pass(spec.avoid_target, spec.automatic)
    happens = 1 - avoided
    knocked_out = deformation = destroyed = Fraction(0)
    lost = [Fraction(0)] * 3  # indexed by TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER
    days = tokens = uses = side_effects = side_points = Fraction(0)
    if spec.effect == EFFECT_DAMAGE:
        hurt = hazard(arts, spec.art_rules, spec.value, spec.target,
                      spec.effective_resist, spec.durability, spec.tokens, spec.health,
                      spec.willpower, spec.radiation, spec.radiation_max)
        destroyed = happens * hurt.destroyed
        lost[spec.target] = happens * hurt.mean_loss
        knocked_out = happens * hurt.knocked_out
        deformation = happens * hurt.deformation
        uses, side_effects = happens * hurt.uses, happens * hurt.side_effects
        side_points = happens * hurt.side_points
    elif spec.effect == EFFECT_LOST_DAY:
        days = happens * spec.value
    elif spec.effect == EFFECT_EMISSION_TOKENS:
        tokens = happens * spec.value
    return EventExact(
        outcomes={"avoided": avoided, "happened": happens - knocked_out,
                  "knocked_out": knocked_out},
        deformation=deformation,
        health_lost=lost[TARGET_HEALTH],
        radiation=lost[TARGET_RADIATION],
        psi=lost[TARGET_WILLPOWER],
        days_lost=days,
        emission_tokens=tokens,
        armor_destroyed=destroyed,
        mean_artifact_uses=uses,
        mean_side_effects=side_effects,
        mean_side_points=side_points,
    )
