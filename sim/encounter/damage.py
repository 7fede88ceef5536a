"""Where a damage type goes and what stops it: the small rules every compile step shares.

A damage is taken on one track (P-37 Health, P-39 radiation doses, P-40
Willpower), the armour rolls against it or not (P-02, P-03; radiation and
psi only under ``armor.absorbs_radiation`` / ``armor.absorbs_psi``). Each
is written here once and read by the fight, anomaly, event, artefact and
campaign compile steps. Whether a fight has an end at all (a radiation
dealer's has not, P-39) is :func:`sim.rules.fightable`: the loader asks it too.
"""

from __future__ import annotations

from sim.kernels.layout import SIDE_NONE, TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER
from sim.rules import Ruleset


def target_of(damage_type: str) -> int:
    """The track a damage type is taken on (P-37, P-39, P-40): a ``TARGET_*`` code."""
    if damage_type == "radiation":
        return TARGET_RADIATION
    if damage_type == "psi":
        return TARGET_WILLPOWER
    return TARGET_HEALTH


def side_target(side_effect: str) -> int:
    """The track of an artefact's side effect (P-09): :func:`target_of`, or ``SIDE_NONE``."""
    return SIDE_NONE if side_effect == "none" else target_of(side_effect)


def armor_rolls(rs: Ruleset, damage_type: str) -> bool:
    """Whether the armour rolls against a damage of this type (P-02, P-03): wounds always,
    radiation under ``armor.absorbs_radiation``, psi under ``armor.absorbs_psi``.
    """
    if damage_type == "radiation":
        return bool(rs.rules.armor.absorbs_radiation)
    if damage_type == "psi":
        return bool(rs.rules.armor.absorbs_psi)
    return True
