"""The Emission (P-48, P-49): the check at the end of the Zone phase and the card's hit.

At the threshold of the one Emission Track the next card of the shared deck
is drawn; it hits every stalker in the Open Space through his resist
artefacts and armour, and the Final Emission ends the game for all.
"""

from __future__ import annotations

from sim.kernels import layout as S
from sim.kernels.campaign import (
    C_ACCUMULATE,
    C_BASES_SHELTER,
    C_THRESHOLD,
    DEATH_FINAL_EMISSION,
    DT_PSI,
    DT_RADIATION,
    H_KIND,
    LOC_BASE,
    LOC_BUNKER,
    LOC_COMPLEX,
    LOC_SECRET,
    M_FINAL,
    M_PSI,
    M_PSI_RESIST,
    M_RAD_RESIST,
    M_RADIATION,
    M_WOUND_DTYPE,
    M_WOUND_RESIST,
    M_WOUNDS,
    S_EMISSIONS,
    S_EMISSIONS_HIT,
    S_END,
    S_LOST,
    S_POS,
    Z_ACC_P,
    Z_ACC_R,
    Z_ACC_W,
    Z_EMISSIONS,
    Z_ENEXT,
    Z_ETOKENS,
    Z_FINAL,
    called,
    part,
)
from sim.kernels.campaign.damage import hazard


@part
def emission_card(zone, cp, em):
    """Emission check at the end of the Zone phase (P-48, P-49): the card drawn, or -1.

    At the threshold the shared track is cleared and the next card of the
    shared Emission deck is drawn; its effects accumulate (P-49) whoever it
    hits. A Final Emission sets ``Z_FINAL``.
    """
    if zone[Z_ETOKENS] < cp[C_THRESHOLD]:
        return -1
    zone[Z_ETOKENS] = 0
    k = min(zone[Z_ENEXT], em.shape[0] - 1)
    zone[Z_ENEXT] += 1
    zone[Z_EMISSIONS] += 1
    if em[k, M_FINAL] != 0:
        zone[Z_FINAL] = 1
        return k
    zone[Z_ACC_W] += em[k, M_WOUNDS]
    zone[Z_ACC_R] += em[k, M_RADIATION]
    zone[Z_ACC_P] += em[k, M_PSI]
    return k


@called
def emission(st, zone, cp, dice, hexes, em, resist, k, recs, n_art):
    """Emission card ``k`` against one stalker (P-48, P-49).

    The Final Emission kills him (P-49); any other card hits him only in the
    Open Space (P-48): Secret Locations, Complexes and bunkers shelter, and so
    does being out of play (P-38, P-41); faction bases shelter under
    ``emission.bases_shelter`` (the default; P-48 names only Secret Locations
    and Bunkers, so whether a base is safe is a Gap). Its wounds, doses
    and disturbances are three damages, each through the held resist
    artefacts of its type (``recs``, ``n_art``: rows of ``art_rec``) and the
    armour he wears (``resist``: its ``em_resist`` rows, ``M_*_RESIST`` per card).
    """
    st[S_EMISSIONS] += 1
    if em[k, M_FINAL] != 0:
        st[S_END] = DEATH_FINAL_EMISSION
        return
    kind = hexes[st[S_POS], H_KIND]
    sheltered = (kind == LOC_SECRET or kind == LOC_COMPLEX or kind == LOC_BUNKER
                 or (kind == LOC_BASE and cp[C_BASES_SHELTER] != 0) or st[S_LOST] > 0)
    if sheltered:
        return
    st[S_EMISSIONS_HIT] += 1
    wounds = zone[Z_ACC_W] if cp[C_ACCUMULATE] != 0 else em[k, M_WOUNDS]
    doses = zone[Z_ACC_R] if cp[C_ACCUMULATE] != 0 else em[k, M_RADIATION]
    psi = zone[Z_ACC_P] if cp[C_ACCUMULATE] != 0 else em[k, M_PSI]
    d = em[k, M_WOUND_DTYPE]
    hazard(st, cp, dice, wounds, S.TARGET_HEALTH, resist[k, M_WOUND_RESIST], recs[d], n_art[d])
    hazard(st, cp, dice, doses, S.TARGET_RADIATION, resist[k, M_RAD_RESIST], recs[DT_RADIATION],
            n_art[DT_RADIATION])
    hazard(st, cp, dice, psi, S.TARGET_WILLPOWER, resist[k, M_PSI_RESIST], recs[DT_PSI],
            n_art[DT_PSI])
