"""A fight's decision table: what the stalker does in every state of the fight (P-16..P-24).

Where the rules give the player a choice inside a fight, a *plan* says which
choice is made in each state. A plan is an array the combat kernel reads in
place of the scenario's thresholds (``flee_at``, ``heal_at``, sneak always or
never, every limited-use weapon spent as soon as it helps), and that the exact
twin (:func:`sim.exact.combat.combat_exact`) follows too, so that both give the
outcomes of the same play. :mod:`sim.exact.best_combat` solves the best plan.

The decisions, at the start of each round ``r`` (1 = the first), in state
``(health, tokens, stimulants used, uses left of each limited-use weapon)``:

- how many stimulant doses to take now (Z-12..Z-14; taken in the order carried);
- then flee (from round 2, P-21) or fight, and with which limited-use weapons
  allowed (P-23, P-24: the loadout table's best selection among the unlimited
  weapons and the allowed limited ones, :mod:`sim.encounter.loadout`).

Before the first round, whether to try to avoid the fight (P-16, Z-15..Z-17) or
fight for the trophy (P-17) is :attr:`CombatPlan.sneak`.

An entry packs ``doses + (action << ACTION_SHIFT)``; ``action`` is
:data:`FLEE`, or ``1 + mask`` of the limited-use weapons allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from sim.kernels import layout as S
from sim.kernels.layout import PLAN_ACTION_SHIFT as ACTION_SHIFT

FLEE = 0
"""The action "try to flee" (P-21); any other action ``a`` fights with mask ``a - 1``."""


def fight_action(mask: int) -> int:
    """The action "fight, allowing the limited-use weapons of ``mask``" (P-23)."""
    return 1 + mask


def entry(doses: int, action: int) -> int:
    """One decision: take ``doses`` stimulants, then do ``action``."""
    return doses + (action << ACTION_SHIFT)


def decode(value: int) -> tuple[int, int]:
    """``(doses, action)`` of a decision entry."""
    return value & ((1 << ACTION_SHIFT) - 1), value >> ACTION_SHIFT


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
        Stimulant doses carried: states hold doses used ``0..stimulants``.
    uses : tuple of int
        Uses at the start of each limited-use weapon: states hold ``0..uses[j]`` left.
    """

    rounds: int
    health: int
    durability: int
    stimulants: int
    uses: tuple[int, ...]

    @property
    def dims(self) -> tuple[int, ...]:
        """Sizes of the axes (round, Health, tokens, doses used, then each weapon's uses)."""
        return (self.rounds, self.health + 1, max(self.durability, 0) + 1,
                self.stimulants + 1, *(u + 1 for u in self.uses))

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

    def index(self, rnd: int, health: int, tokens: int, used: int, uses: tuple[int, ...]) -> int:
        """Entry of round ``rnd`` (from 1) in a state."""
        return int(np.dot(self.strides, (rnd - 1, health, tokens, used, *uses)))

    def states(self):
        """Every ``(health, tokens, used, uses)`` of the space, Health from 1."""
        ranges = [range(1, self.health + 1), range(max(self.durability, 0) + 1),
                  range(self.stimulants + 1), *(range(u + 1) for u in self.uses)]
        for health, tokens, used, *uses in product(*ranges):
            yield health, tokens, used, tuple(uses)


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
    """

    shape: PlanShape
    sneak: bool
    entries: np.ndarray
    value: float = float("nan")
    objective: str = ""

    def decision(self, rnd: int, health: int, tokens: int, used: int,
                 uses: tuple[int, ...]) -> tuple[int, int]:
        """``(doses, action)`` at the start of round ``rnd`` in that state."""
        return decode(int(self.entries[self.shape.index(rnd, health, tokens, used, uses)]))

    def pack(self, params: np.ndarray, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``(params, plan)`` for the combat kernel: a copy of a fight's packed ``params``
        (:meth:`sim.encounter.spec.CombatSpec.pack`) that follows this plan, and the entries.

        The strides tell the kernel where a state's entry is (``P_PLAN_*``); the
        limited-use weapons' uses follow as a mixed-radix number. ``start`` is where
        the entries will begin in an array holding the plans of several fights
        (``params[P_PLAN]`` is ``1 + start``; 0 means the thresholds decide).
        """
        out = params.copy()
        rnd, health, tokens, used = self.shape.strides[:4]
        out[S.P_PLAN] = 1 + start
        out[S.P_PLAN_ROUND], out[S.P_PLAN_HEALTH] = rnd, health
        out[S.P_PLAN_TOKENS], out[S.P_PLAN_STIMS] = tokens, used
        out[S.P_SNEAK] = int(self.sneak)
        return out, self.entries
