"""Damage onto one stalker: his tracks, his armour and the artefacts he holds.

The parts every hazard of the game day goes through (events, Emissions,
artefact side effects): points lost on the Health, Radiation and Willpower
tracks (P-37, P-39, P-40), damage through the held resist artefacts and the
armour (P-02..P-05, P-08..P-10), the artefact slots held, and whether a
track is exhausted or over its maximum (the work for
:func:`sim.kernels.campaign.end.conditions`), and the clue and Zone tokens
he holds (Gap "Tokens"): gained at the end of his turn, spent on a track.
"""

from __future__ import annotations

from sim.kernels.anomaly import take_damage
from sim.kernels.artifact import usable
from sim.kernels.campaign import (
    C_ART_FAIL,
    C_CLUE_USE,
    C_CLUES_PER_COMPLEX,
    C_HEALTH,
    C_N_WEAPONS,
    C_RADIATION_MAX,
    C_RESIST_ORDER,
    C_WILLPOWER,
    C_ZONE_PER_ANOMALY,
    C_ZONE_USE,
    S_ARMOR,
    S_ART_USES,
    S_CLUES,
    S_DURABILITY,
    S_HEALTH,
    S_RADIATION,
    S_RADIATION_DOWN,
    S_SIDE_EFFECTS,
    S_WEAPONS,
    S_WILLPOWER,
    S_ZONE_TOKENS,
    USE_HEALTH,
    USE_RADIATION,
    USE_WILLPOWER,
    part,
)
from sim.kernels.tracks import deformed, exhausted, onto


@part
def radiation_limit(st, cp):
    """His radiation limit (P-39): the card's, less what Deformation cards took (not below 0)."""
    return max(cp[C_RADIATION_MAX] - st[S_RADIATION_DOWN], 0)


@part
def hurt(st, cp):
    """Whether a track is exhausted or over its maximum (work for :func:`.end.conditions`)."""
    return (exhausted(st[S_HEALTH]) or exhausted(st[S_WILLPOWER])
            or deformed(st[S_RADIATION], radiation_limit(st, cp)))


@part
def gain_tokens(st, cp, complexes, anomalies):
    """Clue and Zone tokens gained at the end of his turn (Gap "Tokens"; a reading).

    ``tokens.clues_per_complex`` for each Secret Complex explored today
    (P-50) and ``tokens.zone_per_anomaly`` for each anomaly he went through
    (P-32); both 0 by default, when tokens come only from ``*_start``.
    """
    st[S_CLUES] += cp[C_CLUES_PER_COMPLEX] * complexes
    st[S_ZONE_TOKENS] += cp[C_ZONE_PER_ANOMALY] * anomalies


@part
def _spend(st, cp, slot, use):
    """Spend the tokens of seat slot ``slot`` one by one on ``use`` while it helps (Gap "Tokens").

    ``USE_HEALTH``: a wound healed, up to his Health; ``USE_WILLPOWER``: a mental
    disturbance, up to his Willpower; ``USE_RADIATION``: a radiation dose removed.
    """
    while st[slot] > 0:
        if use == USE_HEALTH and st[S_HEALTH] < cp[C_HEALTH]:
            st[S_HEALTH] += 1
        elif use == USE_WILLPOWER and st[S_WILLPOWER] < cp[C_WILLPOWER]:
            st[S_WILLPOWER] += 1
        elif use == USE_RADIATION and st[S_RADIATION] > 0:
            st[S_RADIATION] -= 1
        else:
            return
        st[slot] -= 1


@part
def spend_tokens(st, cp):
    """Clue tokens, then Zone tokens, spent at the end of his turn (``tokens.*_use``)."""
    _spend(st, cp, S_CLUES, cp[C_CLUE_USE])
    _spend(st, cp, S_ZONE_TOKENS, cp[C_ZONE_USE])


@part
def held_artifacts(st, cp):
    """Bit mask of the artefact slots held: the bits of ``S_WEAPONS`` above the weapons."""
    return st[S_WEAPONS] >> cp[C_N_WEAPONS]


@part
def _lose(st, health, radiation, willpower):
    """Points lost on the tracks (P-37, P-39, P-40): radiation doses are gained."""
    st[S_HEALTH] -= health
    st[S_RADIATION] += radiation
    st[S_WILLPOWER] -= willpower


@part
def side_effects(st, health, radiation, willpower, uses, suffered):
    """Artefact side effects onto the tracks (P-09), and the uses counted (P-08..P-10)."""
    _lose(st, health, radiation, willpower)
    st[S_ART_USES] += uses
    st[S_SIDE_EFFECTS] += suffered


@part
def hazard(st, cp, dice, damage, target, resist, recs, n_art):
    """Damage through the resist artefacts and the armour onto one track.

    P-02..P-05 (armour), P-08..P-10 (the held resist artefacts of the
    damage's type, ``recs``: :func:`sim.kernels.anomaly.take_damage`, the
    rule of every hazard), P-37, P-39, P-40 (the tracks).
    """
    through, after, _, _, h, r, w, uses, suffered = take_damage(
        dice, recs, 0, n_art, cp[C_ART_FAIL], cp[C_RESIST_ORDER], damage, target, resist,
        st[S_DURABILITY], st[S_ARMOR], st[S_HEALTH], st[S_RADIATION], cp[C_RADIATION_MAX],
        st[S_WILLPOWER], usable(recs, 0, n_art, st[S_HEALTH]))  # policy.artifact_use (P-08)
    suffer(st, target, through, after, h, r, w, uses, suffered, n_art)


@part
def suffer(st, target, through, after, health, radiation, willpower, uses, suffered, n_art):
    """Write what a damage step did to him: ``take_damage``'s result onto his state.

    The armour's tokens ``after`` it (P-02..P-05), the ``through`` points on the
    ``target`` track (P-37, P-39, P-40) and, with ``n_art`` resist artefacts held,
    their side effects and uses (P-08..P-10). :func:`hazard` and the campaign's
    event card (:func:`.movement._event`, whose damage is
    :func:`sim.kernels.event.event_effect`'s) both write it so.
    """
    st[S_ARMOR] = after
    h, r, w = onto(target, through)
    _lose(st, h, r, w)
    if n_art > 0:
        side_effects(st, health, radiation, willpower, uses, suffered)
