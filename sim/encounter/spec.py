"""Plain, immutable descriptions of one encounter, shared by kernel, twin and reference.

A spec holds only integers and tuples: everything the rules need, already
resolved from cards, loadout and policy by :mod:`sim.encounter.compile`. The
numba kernel receives it packed into arrays (:meth:`CombatSpec.pack`), the
exact Markov chain (:mod:`sim.exact.combat`) and the plain-Python reference
(:mod:`sim.reference.combat`) read its attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.encounter.loadout import LoadoutTable

AVOID_STEALTH = 0
AVOID_REPUTATION = 1

# Layout of the packed integer parameters of a combat (index constants used by the kernel).
P_HEALTH = 0
P_START_HEALTH = 1
P_COMBAT = 2
P_STEALTH = 3
P_VIGILANCE = 4
P_ENDURANCE = 5
P_WOUNDS = 6
P_RESIST = 7
P_DURABILITY = 8
P_TOKENS = 9
P_SUCCESS_ON = 10
P_SNEAK = 11
P_AVOID_RULE = 12
P_ESCAPE_TARGET = 13
P_FLEE_AT = 14
P_HEAL_AT = 15
P_MAX_ROUNDS = 16
P_N_LIMITED = 17
P_SIZE = 18


@dataclass(frozen=True)
class CombatSpec:
    """One fight: a stalker with a loadout and policy against one enemy card.

    Attributes
    ----------
    health, start_health : int
        Maximum Health (healing cap, Z-14) and Health at the start.
    combat, stealth : int
        Pool sizes of the Combat (P-19) and Stealth (P-16) tests.
    vigilance, endurance : int
        The enemy's Vigilance (need of Stealth tests, P-15/P-16/P-21) and
        Toughness/endurance (need of the Combat test, P-19).
    wounds : int
        Wounds the enemy deals per failed round (P-20).
    resist, durability, tokens : int
        Armour resistance to the enemy's wound type (0 = none), durability
        (0 = no armour) and damage tokens at the start (P-02..P-05).
    success_on : int
        Die face counting as a success (``dice.success_on``).
    sneak : bool
        Try to avoid the fight first (P-16); False fights for the trophy (P-17).
    avoid_rule : int
        ``AVOID_STEALTH`` (P-16) or ``AVOID_REPUTATION`` (Z-15..Z-17).
    escape_target : int
        For the Reputation rule: the d6 face needed, Reputation minus the best
        escape item's rating.
    flee_at, heal_at : int
        Policies: try to flee from round 2 when Health <= flee_at (0 = never,
        P-21); use stimulants when Health <= heal_at (Z-12..Z-14).
    stimulants : tuple of int
        Health restored by each stimulant dose, in the order they are used.
    loadout : LoadoutTable
        Per-round weapon choice (P-23, P-24, P-29).
    max_rounds : int
        Safety cap on rounds (``combat.max_rounds``).
    """

    health: int
    start_health: int
    combat: int
    stealth: int
    vigilance: int
    endurance: int
    wounds: int
    resist: int
    durability: int
    tokens: int
    success_on: int
    sneak: bool
    avoid_rule: int
    escape_target: int
    flee_at: int
    heal_at: int
    stimulants: tuple[int, ...]
    loadout: LoadoutTable
    max_rounds: int

    def pack(self) -> tuple[np.ndarray, ...]:
        """Arrays for the kernel: ``(params, stimulants, uses, bonus, spend)``.

        ``params`` is int64 of length ``P_SIZE`` (see the ``P_*`` indices);
        ``bonus`` and ``spend`` are int64 of shape (2, 2**n_limited).
        """
        params = np.zeros(P_SIZE, dtype=np.int64)
        params[P_HEALTH] = self.health
        params[P_START_HEALTH] = self.start_health
        params[P_COMBAT] = self.combat
        params[P_STEALTH] = self.stealth
        params[P_VIGILANCE] = self.vigilance
        params[P_ENDURANCE] = self.endurance
        params[P_WOUNDS] = self.wounds
        params[P_RESIST] = self.resist
        params[P_DURABILITY] = self.durability
        params[P_TOKENS] = self.tokens
        params[P_SUCCESS_ON] = self.success_on
        params[P_SNEAK] = int(self.sneak)
        params[P_AVOID_RULE] = self.avoid_rule
        params[P_ESCAPE_TARGET] = self.escape_target
        params[P_FLEE_AT] = self.flee_at
        params[P_HEAL_AT] = self.heal_at
        params[P_MAX_ROUNDS] = self.max_rounds
        params[P_N_LIMITED] = len(self.loadout.limited)
        return (
            params,
            np.asarray(self.stimulants + (0,), dtype=np.int64),
            np.asarray(self.loadout.uses + (0,), dtype=np.int64),
            np.asarray(self.loadout.bonus, dtype=np.int64),
            np.asarray(self.loadout.spend, dtype=np.int64),
        )


@dataclass(frozen=True)
class AnomalySpec:
    """One anomaly encounter (P-30..P-36).

    Attributes
    ----------
    perception, agility : int
        The stalker's pool sizes for the Perception (P-31) and Agility (P-32) tests.
    perception_need, agility_need : int
        The anomaly's eye and skull modifiers (needed successes).
    damage : int
        Damage dealt on a failed Agility test (P-32).
    target : int
        Where the damage goes: 0 Health (wounds), 1 radiation track, 2 Willpower.
    resist, durability, tokens : int
        Armour against the damage type (0 resist = no protection).
    armor_absorbs : bool
        Whether the armour rolls against this damage (``armor.absorbs_radiation``
        and ``armor.absorbs_psi`` for those targets).
    health, radiation, radiation_max, willpower : int
        Current Health, radiation doses and maximum, Willpower.
    success_on : int
        Die face counting as a success.
    enter : bool
        Policy: enter voluntarily after a passed Perception test (P-36).
    bonus_dice : int
        Extra Agility dice for a voluntary entry after a pass (P-36: one).
    artifact_available : bool
        Whether the artefact deck holds a card of the anomaly's type (P-35).
    """

    perception: int
    agility: int
    perception_need: int
    agility_need: int
    damage: int
    target: int
    resist: int
    durability: int
    tokens: int
    armor_absorbs: bool
    health: int
    radiation: int
    radiation_max: int
    willpower: int
    success_on: int
    enter: bool
    bonus_dice: int
    artifact_available: bool
