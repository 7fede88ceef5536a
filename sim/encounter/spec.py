"""Plain, immutable descriptions of one encounter, shared by kernel, twin and reference.

A spec holds only integers and tuples: everything the rules need, already
resolved from cards, loadout and policy by :mod:`sim.encounter.compile`. The
numba kernel receives it packed into arrays (:meth:`CombatSpec.pack`), the
exact Markov chain (:mod:`sim.exact.combat`) and the plain-Python reference
(:mod:`sim.reference.combat`) read its attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from sim.encounter.artifact import ArtifactRules, ArtifactSpec, pack_records
from sim.encounter.loadout import LoadoutTable
from sim.kernels import layout as S
from sim.rules.traits import NONE, EnemyTraits


def policy_slots(traits: EnemyTraits, sneak: bool, flee_at: int, heal_at: int) -> dict:
    """The fight policy's slots (P-16, P-21, Z-12) as packed against an enemy with
    ``traits``: no avoid roll against an ambush, no flight from a relentless enemy (P-22).

    :meth:`CombatSpec.pack` and the campaign's tables of one loadout under many policies
    (:func:`sim.campaign.compile.policy_fights`) both write them from here.
    """
    return dict(P_SNEAK=int(sneak and not traits.ambush),
                P_FLEE_AT=0 if traits.relentless else flee_at, P_HEAL_AT=heal_at)


def rolling_face(armor_absorbs: bool, resist: int, durability: int, tokens: int) -> int:
    """The die face with which the armour absorbs a damage, 0 when it does not roll (P-02,
    P-05): it rolls against the damage's type (``armor_absorbs``) while it is worn and whole
    (``tokens < durability``, :func:`sim.kernels.dice.intact`'s reading).
    """
    if not armor_absorbs or durability <= 0 or tokens >= durability:
        return 0
    return resist


class PackedFight(NamedTuple):
    """A fight's arrays for the combat kernel (:meth:`CombatSpec.pack`), in its argument order."""

    params: np.ndarray
    """int64: the ``P_*`` header (``P_SIZE``), then the artefact records (``AF_*``)."""
    stimulants: np.ndarray
    """int64: Health restored by each dose in the order used, then a 0."""
    uses: np.ndarray
    """int64: each limited-use weapon's uses at the start, then a 0."""
    bonus: np.ndarray
    """int64 ``bonus[phase][mask]``: the weapons' pool bonus (:class:`LoadoutTable`, P-23)."""
    spend: np.ndarray
    """int64 ``spend[phase][mask]``: the limited weapons and combat artefacts that choice spends."""


class PackedAnomaly(NamedTuple):
    """An anomaly's arrays for the anomaly kernel (:meth:`AnomalySpec.pack`)."""

    params: np.ndarray
    """int64: the ``A_*`` header (``A_SIZE``), then the artefact records (``AF_*``)."""
    deck: np.ndarray
    """int64 of shape (max(types, 1),): the artefact cards of each type."""


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
    stealth_on : int
        Die face a Stealth die needs (P-16, P-21); 0 = ``success_on``. With
        ``dice.modifier = "face"`` the Vigilance sets the face and ``vigilance``
        holds the successes needed (see :func:`sim.encounter.modifier.test_terms`).
    artifacts : tuple of ArtifactSpec
        Artefacts carried, in the order used (P-08..P-10); combat artefacts
        also sit in ``loadout.artifacts`` (P-23).
    art_rules : ArtifactRules
        The ``[artifacts]`` keys read in a fight.
    track : int
        The track the enemy's wounds hit: ``TARGET_HEALTH`` or ``TARGET_WILLPOWER``.
    other, other_max : int
        The other of Health and Willpower at the start and its maximum
        (side effects and calm artefacts act on it; 0 = Willpower 0, P-40).
    traits : EnemyTraits
        The enemy's special traits (P-22, :mod:`sim.rules.traits`), folded here into the
        values the kernel reads anyway, so that it pays nothing for them: ``ambush`` as no
        avoid roll (``P_SNEAK`` 0; ``P_AMBUSH`` tells the campaign, which sets ``P_SNEAK``
        per fight), ``piercing`` as an armour that does not roll (``P_RESIST`` 0),
        ``relentless`` as thresholds that never flee (``P_FLEE_AT`` 0; best play never
        plans a flight from it, :mod:`sim.exact.best_combat`), ``flees=N`` as the last
        round (``P_MAX_ROUNDS`` N) ending fled (``P_ENEMY_FLEES`` 1).
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
    stealth_on: int = 0
    artifacts: tuple[ArtifactSpec, ...] = ()
    art_rules: ArtifactRules = ArtifactRules()
    track: int = S.TARGET_HEALTH
    other: int = 1
    other_max: int = 1
    traits: EnemyTraits = NONE

    @property
    def stealth_face(self) -> int:
        """The die face a Stealth die needs (P-16, P-21)."""
        return self.stealth_on or self.success_on

    def pack(self) -> PackedFight:
        """Arrays for the kernel: ``(params, stimulants, uses, bonus, spend)``.

        ``params`` is int64 of length ``P_SIZE`` (see the ``P_*`` indices),
        followed by the artefact records (``AF_*``); ``bonus`` and ``spend``
        are int64 of shape (2, 2**n_limited).
        """
        flees = 0 < self.traits.flees < self.max_rounds  # the enemy leaves first (P-22)
        params = S.COMBAT_PARAMS.pack(
            P_HEALTH=self.health, P_START_HEALTH=self.start_health, P_COMBAT=self.combat,
            P_STEALTH=self.stealth, P_VIGILANCE=self.vigilance, P_ENDURANCE=self.endurance,
            P_WOUNDS=self.wounds, P_RESIST=0 if self.traits.piercing else self.resist,
            P_DURABILITY=self.durability, P_TOKENS=self.tokens, P_SUCCESS_ON=self.success_on,
            P_AVOID_RULE=self.avoid_rule, P_ESCAPE_TARGET=self.escape_target,
            P_MAX_ROUNDS=self.traits.flees if flees else self.max_rounds,
            P_N_LIMITED=len(self.loadout.limited), P_STEALTH_ON=self.stealth_face,
            P_N_ART=len(self.artifacts), P_ART_FAIL=self.art_rules.fail_rule,
            P_RESIST_ORDER=self.art_rules.resist_order,
            P_RESTORE_USES=self.art_rules.restore_uses, P_TRACK=self.track,
            P_OTHER=self.other, P_OTHER_MAX=self.other_max,
            P_N_COMBAT_ART=len(self.loadout.artifacts), P_SNEAK_ARTS=-1,
            P_N_KINDS=0,  # doses in the order carried (a plan may choose by kind)
            P_AMBUSH=int(self.traits.ambush), P_ENEMY_FLEES=int(flees),
            **policy_slots(self.traits, self.sneak, self.flee_at, self.heal_at))
        return PackedFight(
            np.concatenate([params, pack_records(self.artifacts)]),
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
        The anomaly's eye and skull modifiers (successes needed; ``<= 0`` passes
        without rolling).
    damage : int
        Damage dealt on a failed Agility test (P-32).
    target : int
        Where the damage goes: ``TARGET_HEALTH``, ``TARGET_RADIATION`` or
        ``TARGET_WILLPOWER``.
    resist, durability, tokens : int
        The armour's resistance to the damage type (0 = no protection),
        durability (0 = no armour) and damage tokens at the start (P-02..P-05).
    armor_absorbs : bool
        Whether the armour rolls against this damage at all (always for wounds;
        ``armor.absorbs_radiation`` and ``armor.absorbs_psi`` for the others).
    health, radiation, radiation_max, willpower : int
        Health and Willpower at the start (>= 1), radiation doses at the start
        and the maximum allowed level (P-37, P-39, P-40).
    success_on : int
        Die face counting as a success (``dice.success_on``).
    enter : bool
        Policy: enter voluntarily after a passed Perception test (P-36).
    bonus_dice : int
        Extra Agility dice for a voluntary entry after a pass
        (``anomaly.voluntary_bonus_dice``, P-36: one).
    deck : tuple of int
        The artefact deck (P-35) as the number of cards of each artefact type.
    artifact : int
        Index in ``deck`` of the type this anomaly yields; -1 = yields none.
    perception_on, agility_on : int
        Die face a Perception / Agility die needs; 0 = ``success_on`` (see
        :func:`sim.encounter.modifier.test_terms` for ``dice.modifier``).
    find_pool, find_on, find_need : int
        The artefact find test (P-07 "passing the appropriate test", P-35 "has
        a chance to find"): pool, die face (0 = ``success_on``) and successes
        needed; ``find_need <= 0`` finds without a test.
    artifacts : tuple of ArtifactSpec
        Artefacts carried (P-08..P-10); resist artefacts of the damage's type act.
    art_rules : ArtifactRules
        The ``[artifacts]`` keys read here.
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
    deck: tuple[int, ...] = ()
    artifact: int = -1
    perception_on: int = 0
    agility_on: int = 0
    find_pool: int = 0
    find_on: int = 0
    find_need: int = 0
    artifacts: tuple[ArtifactSpec, ...] = ()
    art_rules: ArtifactRules = ArtifactRules()

    @property
    def perception_face(self) -> int:
        """The die face a Perception die needs (P-31)."""
        return self.perception_on or self.success_on

    @property
    def agility_face(self) -> int:
        """The die face an Agility die needs (P-32)."""
        return self.agility_on or self.success_on

    @property
    def find_face(self) -> int:
        """The die face a die of the artefact find test needs (P-07, P-35)."""
        return self.find_on or self.success_on

    @property
    def effective_resist(self) -> int:
        """The die face that absorbs this damage, 0 if the armour does not roll (P-02)."""
        return rolling_face(self.armor_absorbs, self.resist, self.durability, self.tokens)

    def pack(self) -> PackedAnomaly:
        """Arrays for the kernel: ``(params, deck)``.

        ``params`` is int64 of length ``A_SIZE`` (see the ``A_*`` indices; the
        resistance is :attr:`effective_resist`) followed by the artefact
        records (``AF_*``); ``deck`` is int64 of shape
        (max(len(deck), 1),), the card count per artefact type.
        """
        params = S.ANOMALY_PARAMS.pack(
            A_PERCEPTION=self.perception, A_AGILITY=self.agility,
            A_PERCEPTION_NEED=self.perception_need, A_AGILITY_NEED=self.agility_need,
            A_DAMAGE=self.damage, A_TARGET=self.target, A_RESIST=self.effective_resist,
            A_DURABILITY=self.durability, A_TOKENS=self.tokens, A_HEALTH=self.health,
            A_RADIATION=self.radiation, A_RADIATION_MAX=self.radiation_max,
            A_WILLPOWER=self.willpower, A_ENTER=int(self.enter), A_BONUS_DICE=self.bonus_dice,
            A_ARTIFACT=self.artifact, A_PERCEPTION_ON=self.perception_face,
            A_AGILITY_ON=self.agility_face, A_FIND_POOL=self.find_pool,
            A_FIND_ON=self.find_face, A_FIND_NEED=self.find_need, A_N_ART=len(self.artifacts),
            A_ART_FAIL=self.art_rules.fail_rule, A_RESIST_ORDER=self.art_rules.resist_order)
        deck = np.zeros(max(len(self.deck), 1), dtype=np.int64)
        deck[: len(self.deck)] = self.deck
        return PackedAnomaly(np.concatenate([params, pack_records(self.artifacts)]), deck)


@dataclass(frozen=True)
class EventSpec:
    """One event card drawn by one stalker (Z-08..Z-10).

    Attributes
    ----------
    rolls : bool
        Whether the card has an avoidance roll (``avoid_on`` not blank); without
        one the event always happens and items do not matter.
    automatic : bool
        The best event item avoids without a roll (Torsion scanner, Z-09).
    avoid_target : int
        Face needed on one d6: ``avoid_on`` minus the best item's shift (Z-09, Z-10).
    shift : int
        That shift (0 with no item or with an automatic one).
    effect : int
        ``EFFECT_NONE``, ``EFFECT_DAMAGE``, ``EFFECT_LOST_DAY`` or ``EFFECT_EMISSION_TOKENS``.
    value : int
        Points of damage, days lost or Emission tokens.
    target : int
        Track of an ``EFFECT_DAMAGE`` (``TARGET_*``).
    resist, durability, tokens, armor_absorbs :
        Armour, as in :class:`AnomalySpec`.
    health, radiation, radiation_max, willpower : int
        Starting state, as in :class:`AnomalySpec`.
    artifacts, art_rules :
        Artefacts carried and the ``[artifacts]`` keys, as in :class:`AnomalySpec`.
    """

    rolls: bool
    automatic: bool
    avoid_target: int
    effect: int
    value: int
    target: int
    resist: int
    durability: int
    tokens: int
    armor_absorbs: bool
    health: int
    radiation: int
    radiation_max: int
    willpower: int
    shift: int = 0
    artifacts: tuple[ArtifactSpec, ...] = ()
    art_rules: ArtifactRules = ArtifactRules()

    @property
    def effective_resist(self) -> int:
        """The die face that absorbs the damage, 0 if the armour does not roll (P-02)."""
        return rolling_face(self.armor_absorbs, self.resist, self.durability, self.tokens)

    def pack(self) -> np.ndarray:
        """The kernel's int64 parameters: ``E_SIZE`` header (``E_*``), then artefact records."""
        params = S.EVENT_PARAMS.pack(
            E_AVOID_ON=self.avoid_target + self.shift if self.rolls else 0,
            E_SHIFT=S.AUTO_SHIFT if self.automatic else self.shift, E_EFFECT=self.effect,
            E_VALUE=self.value, E_TARGET=self.target, E_RESIST=self.effective_resist,
            E_DURABILITY=self.durability, E_TOKENS=self.tokens, E_HEALTH=self.health,
            E_RADIATION=self.radiation, E_RADIATION_MAX=self.radiation_max,
            E_WILLPOWER=self.willpower, E_N_ART=len(self.artifacts),
            E_ART_FAIL=self.art_rules.fail_rule, E_RESIST_ORDER=self.art_rules.resist_order)
        return np.concatenate([params, pack_records(self.artifacts)])
