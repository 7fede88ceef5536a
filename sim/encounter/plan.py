"""A fight's decision table: what the stalker does in every state of the fight (P-16..P-24).

Where the rules give the player a choice inside a fight, a *plan* says which
choice is made in each state. A plan is an array the combat kernel reads in
place of the scenario's thresholds (``flee_at``, ``heal_at``, sneak always or
never, every limited-use weapon spent as soon as it helps), and that the exact
twin (:func:`sim.exact.combat.combat_exact`) follows too, so that both give the
outcomes of the same play. :mod:`sim.exact.best_combat` solves the best plan.

The decisions, at the start of each round ``r`` (1 = the first), in state
``(health, other, tokens, stimulants used, heal/calm uses so far, uses left of each
limited-use weapon)``:

- which heal and calm artefacts to use now (P-08, P-24; a record mask), when the
  fight has any: this is a stage of its own, decided before their results are seen;
- then, on the state after them: how many stimulant doses to take (Z-12..Z-14;
  in the order carried), flee (from round 2, P-21) or fight, with which
  limited-use weapons and combat artefacts allowed (P-23, P-24: the loadout
  table's best selection among the unlimited weapons and the allowed ones,
  :mod:`sim.encounter.loadout`), and which stealth artefacts to use on the flight
  and resist artefacts against the enemy's attack (P-08; a record mask).

The other track (Willpower, or Health in a psi fight) and the heal/calm uses are
state only in fights with artefacts (side effects and calm change them, P-09).
This is the policy's information structure: the rules let the stalker equip and
use artefacts before each round (P-23) and decide whether a use pays (P-08).

Before the first round, whether to try to avoid the fight (P-16, Z-15..Z-17) or
fight for the trophy (P-17) is :attr:`CombatPlan.sneak`, with the stealth
artefacts :attr:`CombatPlan.sneak_select`.

An entry packs ``doses + (action << ACTION_SHIFT) + (select << ART_SHIFT)``;
``action`` is :data:`FLEE`, or ``1 + mask`` of the limited-use weapons (bits
``0..``) and combat artefacts (bits from the number of limited weapons) allowed;
``select`` the artefact records used.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from sim.encounter.spec import PackedFight
from sim.kernels import layout as S
from sim.kernels.layout import PLAN_ACTION_BITS as ACTION_BITS
from sim.kernels.layout import PLAN_ACTION_SHIFT as ACTION_SHIFT
from sim.kernels.layout import PLAN_ART_SHIFT as ART_SHIFT

FLEE = 0
"""The action "try to flee" (P-21); any other action ``a`` fights with mask ``a - 1``."""


def fight_action(mask: int) -> int:
    """The action "fight, allowing the limited-use weapons and combat artefacts of
    ``mask``" (P-23).
    """
    return 1 + mask


def entry(doses: int, action: int, select: int = 0) -> int:
    """One decision: take ``doses`` stimulants, then do ``action``, using the artefact
    records of ``select`` (P-08).
    """
    return doses + (action << ACTION_SHIFT) + (select << ART_SHIFT)


def decode(value: int) -> tuple[int, int, int]:
    """``(doses, action, select)`` of a decision entry."""
    return (value & ((1 << ACTION_SHIFT) - 1), value >> ACTION_SHIFT & ACTION_BITS,
            value >> ART_SHIFT)


def records(select: int, n: int) -> tuple[int, ...]:
    """The record indices ``0..n - 1`` in mask ``select`` (-1: all)."""
    return tuple(i for i in range(n) if select >> i & 1)


def restore_at(health: int, other_max: int) -> int:
    """The heal/calm threshold a plan's fight is played with: none, the plan's choice
    of artefacts decides (P-08) and a restore stops at the maximum (P-24).
    """
    return max(health, other_max)


@dataclass(frozen=True)
class PlanShape:
    """The state space of a fight's plan and its row-major strides.

    Attributes
    ----------
    rounds : int
        Rounds of the fight (``combat.max_rounds``): round ``r`` is row ``r - 1``.
    health : int
        Maximum Health: states hold Health ``0..health``.
    durability : int
        The armour's durability: states hold tokens ``0..durability``.
    stimulants : int
        Stimulant doses carried, taken in the order carried: states hold doses used
        ``0..stimulants`` (0 with :attr:`kinds`).
    uses : tuple of int
        Uses at the start of each limited-use weapon: states hold ``0..uses[j]`` left.
    other : int
        Maximum of the other track when the plan tracks it (fights with artefacts),
        else 0: states hold ``0..other``.
    restores : tuple of int
        The heal and calm artefacts' records: states hold the uses so far of each,
        ``0..limit``; with any, each round has a heal/calm stage before its decision.
    limit : int
        Uses of each heal/calm artefact per fight (``artifacts.restore_uses``).
    kinds : tuple of (int, int)
        With doses of different sizes (medkits and stimulants under
        ``combat.medkits_in_combat``, P-24), ``(value, count)`` of each kind: the plan
        chooses how many of each to take, and states hold each kind's doses left
        ``0..count``, as digits after the weapons' uses (the kernel's ``uses`` beyond
        its limited weapons).
    """

    rounds: int
    health: int
    durability: int
    stimulants: int
    uses: tuple[int, ...]
    other: int = 0
    restores: tuple[int, ...] = ()
    limit: int = 1
    kinds: tuple[tuple[int, int], ...] = ()

    @property
    def radices(self) -> tuple[int, ...]:
        """Most left of each digit of the last axis: each weapon's uses, then each kind's
        doses.
        """
        return (*self.uses, *(count for _, count in self.kinds))

    @property
    def stages(self) -> int:
        """Decisions per round: the heal/calm choice (with such artefacts), then the rest."""
        return 2 if self.restores else 1

    @property
    def dims(self) -> tuple[int, ...]:
        """Sizes of the axes: round, stage, Health, other track, tokens, doses used, the
        heal/calm uses (one mixed-radix axis), the weapons' uses (one mixed-radix axis).
        """
        return (self.rounds, self.stages, self.health + 1, self.other + 1,
                max(self.durability, 0) + 1, self.stimulants + 1,
                (self.limit + 1) ** len(self.restores),
                int(np.prod([u + 1 for u in self.radices])))

    @property
    def size(self) -> int:
        """Number of entries."""
        return int(np.prod(self.dims))

    @property
    def strides(self) -> tuple[int, ...]:
        """Row-major strides of :attr:`dims`, in entries."""
        out, step = [], 1
        for n in reversed(self.dims):
            out.append(step)
            step *= n
        return tuple(reversed(out))

    def uses_code(self, uses: tuple[int, ...]) -> int:
        """The weapons' uses left (then each kind's doses left) as one mixed-radix number,
        the first weapon highest.
        """
        code = 0
        for u, left in zip(self.radices, uses, strict=True):
            code = code * (u + 1) + left
        return code

    def counts_code(self, counts: tuple[int, ...]) -> int:
        """The heal/calm uses so far (``counts`` per artefact record) as one digit."""
        code = 0
        for i in self.restores:
            code = code * (self.limit + 1) + counts[i]
        return code

    def index(self, rnd: int, health: int, tokens: int, used: int, uses: tuple[int, ...],
              other: int = 0, counts: tuple[int, ...] = (), stage: int = -1) -> int:
        """Entry of round ``rnd`` (from 1) in a state: the decision (``stage`` -1) or the
        heal/calm choice (``stage`` 0).
        """
        stage = stage % self.stages
        return int(np.dot(self.strides, (rnd - 1, stage, health, other if self.other else 0,
                                         tokens, used, self.counts_code(counts),
                                         self.uses_code(uses))))

    def states(self):
        """Every ``(health, tokens, used, uses, other, counts)`` of the space, Health (and
        the other track) from 1; ``uses`` the weapons' then the kinds' (:attr:`radices`),
        ``counts`` per artefact record of ``n_art``.
        """
        n_art = max(self.restores, default=-1) + 1
        others = range(1, self.other + 1) if self.other else (0,)
        ranges = [range(1, self.health + 1), range(max(self.durability, 0) + 1),
                  range(self.stimulants + 1), product(*(range(u + 1) for u in self.radices)),
                  others, product(*(range(self.limit + 1) for _ in self.restores))]
        for health, tokens, used, uses, other, code in product(*ranges):
            counts = [0] * n_art
            for i, n in zip(self.restores, code, strict=True):
                counts[i] = n
            yield health, tokens, used, tuple(uses), other, tuple(counts)


@dataclass(frozen=True)
class CombatPlan:
    """A decision for every state of a fight, and the value it achieves.

    Attributes
    ----------
    shape : PlanShape
        The state space.
    sneak : bool
        Try to avoid the fight before it starts (P-16, Z-15..Z-17).
    entries : numpy.ndarray
        One :func:`entry` per state, row-major over ``shape.dims`` (int64, read-only).
    value : float
        The objective's expected value under this plan (its solver's figure).
    objective : str
        The objective the plan was made for.
    sneak_select : int
        The stealth artefacts' records used on the Stealth test to avoid the fight
        (P-16, P-08; -1: all).
    """

    shape: PlanShape
    sneak: bool
    entries: np.ndarray
    value: float = float("nan")
    objective: str = ""
    sneak_select: int = -1

    def decision(self, rnd: int, health: int, tokens: int, used: int, uses: tuple[int, ...],
                 other: int = 0, counts: tuple[int, ...] = ()) -> tuple[int, int, int]:
        """``(doses, action, select)`` in round ``rnd`` in that state, after its heal/calm."""
        return decode(int(self.entries[self.shape.index(rnd, health, tokens, used, uses,
                                                        other, counts)]))

    def restore_select(self, rnd: int, health: int, tokens: int, used: int,
                       uses: tuple[int, ...], other: int, counts: tuple[int, ...]) -> int:
        """The heal and calm artefacts' records used at the start of round ``rnd`` (0: none)."""
        if self.shape.stages == 1:
            return 0
        return decode(int(self.entries[self.shape.index(rnd, health, tokens, used, uses,
                                                        other, counts, stage=0)]))[2]

    def pack(self, packed: PackedFight, start: int = 0) -> tuple[PackedFight, np.ndarray]:
        """``(packed, plan)`` for the combat kernel: a fight's packed arrays
        (:meth:`sim.encounter.spec.CombatSpec.pack`) changed to follow this plan, and the
        entries.

        The strides tell the kernel where a state's entry is (``P_PLAN_*``); the
        limited-use weapons' uses follow as a mixed-radix number, then, with
        :attr:`PlanShape.kinds`, each kind's doses left (``stimulants`` then holds
        each kind's value and ``uses0`` the kinds' counts after the weapons').
        ``start`` is where the entries will begin in an array holding the plans of
        several fights (``params[P_PLAN]`` is ``1 + start``; 0 means the thresholds
        decide).

        A fight without artefacts and kinds of dose gets its entries as the kernel plays
        them (:func:`sim.kernels.combat.played_entries`: the Health and the index move of
        each entry's doses, issue 24, section 4); the others get a copy of :attr:`entries`.
        The kernel's array can be written, as the thresholds' ``NO_PLAN`` (the kernel
        writes neither): numba compiles one kernel for a read-only and another for a
        writable array, and a process playing both thresholds and plans (the report, a
        comparison of both policies) would compile the combat kernel twice.
        """
        params, stimulants, uses0 = packed.params, packed.stimulants, packed.uses
        rnd, stage, health, other, tokens, used, counts, _ = self.shape.strides
        kinds = self.shape.kinds
        out = S.COMBAT_PARAMS.pack(
            params, P_PLAN=1 + start, P_PLAN_ROUND=rnd, P_PLAN_HEALTH=health,
            P_PLAN_TOKENS=tokens,
            P_PLAN_STIMS=0 if kinds else used,  # with kinds, the doses left are digits
            P_PLAN_STAGE=stage if self.shape.stages == 2 else 0,
            P_PLAN_OTHER=other if self.shape.other else 0, P_PLAN_COUNTS=counts,
            P_SNEAK=int(self.sneak and params[S.P_AMBUSH] == 0),  # no avoiding (P-22)
            P_SNEAK_ARTS=self.sneak_select,
            P_HEAL_AT=restore_at(int(params[S.P_HEALTH]), int(params[S.P_OTHER_MAX])),
            P_N_KINDS=len(kinds))
        entries = self.entries
        if kinds:  # the doses left are digits of the last axis, the dose count no axis
            stimulants = np.asarray([v for v, _ in kinds] + [0], dtype=np.int64)
            uses0 = np.asarray(self.shape.radices + (0,), dtype=np.int64)
        elif params[S.P_N_ART] == 0:  # the kernel's variant without artefacts' code
            entries = self._played(int(params[S.P_HEALTH]), stimulants)
        if not entries.flags.writeable:
            entries = entries.copy()
        return packed._replace(params=out, stimulants=stimulants, uses=uses0), entries

    def _played(self, health_max: int, stimulants: np.ndarray) -> np.ndarray:
        """:attr:`entries` as the kernel plays them without artefacts."""
        from sim.kernels.combat import GAIN_BITS, played_entries  # numba only when played

        if max(health_max, self.shape.stimulants) >> GAIN_BITS:
            raise ValueError(f"a plan plays at most {(1 << GAIN_BITS) - 1} Health and doses")
        rnd, _, health, _, _, used, _, _ = self.shape.strides
        dims = self.shape.dims
        played = played_entries(np.ascontiguousarray(self.entries, dtype=np.int64), rnd, health,
                                dims[2], used, dims[5], health_max,
                                np.ascontiguousarray(stimulants, dtype=np.int64))
        return played


def thresholds_plan(spec) -> CombatPlan:
    """The spec's thresholds written as a plan (fights without artefacts): the same doses
    (at ``heal_at`` or less, below the maximum, Z-12..Z-14), flight (from round 2 at
    ``flee_at`` or less, P-21), every limited-use weapon allowed and the same sneak (P-16).

    The kernel then plays the same fights through its plan path as through its
    thresholds, dice for dice: a check of that path, and the benchmark's measure of
    what reading a plan costs.
    """
    if spec.artifacts:
        raise ValueError("the thresholds' artefact uses are no plan: fights without artefacts")
    shape = PlanShape(spec.max_rounds, spec.health, spec.durability, len(spec.stimulants),
                      tuple(spec.loadout.uses))
    entries = np.zeros(shape.size, dtype=np.int64)
    every = (1 << len(spec.loadout.uses)) - 1
    for rnd in range(1, spec.max_rounds + 1):
        for health, tokens, used, uses, _, _ in shape.states():
            level, doses = health, 0
            while (used + doses < len(spec.stimulants) and level <= spec.heal_at
                   and level < spec.health):
                level = min(spec.health, level + spec.stimulants[used + doses])
                doses += 1
            flee = rnd >= 2 and 0 < spec.flee_at and level <= spec.flee_at
            entries[shape.index(rnd, health, tokens, used, uses)] = entry(
                doses, FLEE if flee else fight_action(every))
    entries.flags.writeable = False
    return CombatPlan(shape, spec.sneak, entries)

