"""Best play in a fight, solved exactly: backward induction over the fight's states.

The exact twin (:mod:`sim.exact.combat`) pushes a fight's state through a
Markov chain; with the player's choices left open the same chain is a finite
decision process, whose optimal plan backward induction finds exactly
(QuantEcon's ``backward_induction``: the value of round ``r`` from the values of
round ``r + 1``). The choices are those the rules give (see
:mod:`sim.encounter.plan`): avoid the fight or fight for the trophy (P-16,
P-17), stimulant doses before a round (Z-12..Z-14), flee from round 2 (P-21)
or fight, and which limited-use weapons to allow (P-23, P-24).

The state at the start of round ``r`` is (Health, armour tokens, doses used,
uses left of each limited-use weapon); the round number is kept because round 1
differs (P-21, P-29) and the safety cap ``combat.max_rounds`` ends the fight
(``capped``). Each round is one vectorised step over every state.

The objective (:class:`Objective`) weighs the fight's outcomes and charges
wounds, doses and weapon uses; on ties the plan takes the move that spends
less: fewer doses, then fewer limited-use weapons allowed, then fighting
before fleeing, and avoiding the fight before fighting it.

Fights with artefacts are refused for now (their activations are choices too,
P-08, and their state is larger): :class:`BestPlayError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from sim.encounter.plan import FLEE, CombatPlan, PlanShape, entry, fight_action
from sim.encounter.spec import CombatSpec
from sim.errors import InputError
from sim.exact import artifact, dice
from sim.exact.combat import OUTCOMES
from sim.kernels.layout import AVOID_STEALTH
from sim.rules.scenario import OBJECTIVE_NAMES

MAX_STATES = 4_000_000
"""Most entries (rounds x states) a plan may have: 32 MB of decisions."""

TIE = 1e-12
"""Values closer than this are ties (floating-point rounding of equal sums)."""


class BestPlayError(InputError):
    """A fight whose best play cannot be solved (too large, or not supported)."""


@dataclass(frozen=True)
class Objective:
    """What best play maximises: outcome weights less the costs of what it spends.

    Attributes
    ----------
    name : str
        ``survive`` (P(not knocked out), the default), ``kill`` (P(enemy
        killed): trophies, P-17) or ``value`` (the weights given).
    weights : tuple of float
        Value of each outcome, in :data:`sim.exact.combat.OUTCOMES` order
        (avoided, killed, fled, knocked_out, capped).
    wound, stimulant, limited : float
        Cost of each wound taken, each stimulant dose and each limited-use
        weapon use.
    """

    name: str
    weights: tuple[float, ...]
    wound: float = 0.0
    stimulant: float = 0.0
    limited: float = 0.0

    def __post_init__(self) -> None:
        if len(self.weights) != len(OUTCOMES):
            raise ValueError(f"an objective weighs {len(OUTCOMES)} outcomes: {OUTCOMES}")

    def weight(self, outcome: str) -> float:
        """The value of ``outcome``."""
        return self.weights[OUTCOMES.index(outcome)]


OBJECTIVES = {
    "survive": Objective("survive", (1.0, 1.0, 1.0, 0.0, 1.0)),
    "kill": Objective("kill", (0.0, 1.0, 0.0, 0.0, 0.0)),
}
"""The named objectives (:data:`sim.rules.scenario.OBJECTIVE_NAMES`); ``value`` objectives
carry their own weights."""
assert tuple(OBJECTIVES) == OBJECTIVE_NAMES


def value_objective(knocked_out: float = 1.0, wound: float = 0.0, stimulant: float = 0.0,
                    limited: float = 0.0, killed: float = 0.0) -> Objective:
    """An expected-value objective from costs: a knock-out costs ``knocked_out``, each
    wound, dose and limited use its cost, and a kill is worth ``killed``.
    """
    return Objective("value", (0.0, killed, 0.0, -knocked_out, 0.0), wound, stimulant, limited)


@cache
def _pass(n_dice: int, face: int, need: int) -> float:
    return float(dice.pool_pass(n_dice, face, need))


def _shape(spec: CombatSpec) -> PlanShape:
    return PlanShape(spec.max_rounds, spec.health, spec.durability, len(spec.stimulants),
                     tuple(spec.loadout.uses))


def solve_combat(spec: CombatSpec, objective: Objective = OBJECTIVES["survive"]) -> CombatPlan:
    """The optimal plan of a fight and its exact value (P-16..P-24, Z-12..Z-17).

    Raises
    ------
    BestPlayError
        The fight has artefacts, or its plan would exceed :data:`MAX_STATES`.
    """
    if spec.artifacts:
        raise BestPlayError("best play with artefacts is not solved yet; carry none with "
                            "--policy best, or use the threshold policy")
    shape = _shape(spec)
    if shape.size > MAX_STATES:
        raise BestPlayError(f"best play: the fight has {shape.size:,} states (rounds x Health"
                            f" x tokens x doses x weapon uses), more than the limit of "
                            f"{MAX_STATES:,}; carry fewer limited-use weapons or stimulants")
    solver = _Solver(spec, objective, shape)
    values = solver.terminal()
    table = np.zeros((spec.max_rounds, *shape.dims[1:]), dtype=np.int64)
    rnd = spec.max_rounds
    while rnd >= 1:
        later = values
        values, table[rnd - 1] = solver.round(rnd, later)
        if rnd > 2 and np.array_equal(values, later):
            # Rounds 2 .. rnd - 1 are the same step on the same values: the same again.
            table[1:rnd - 1] = table[rnd - 1]
            rnd = 2
        rnd -= 1
    start = (spec.start_health, spec.tokens, 0, *spec.loadout.uses)
    sneak, value = solver.sneak(float(values[start]))
    entries = table.reshape(-1)
    entries.flags.writeable = False
    return CombatPlan(shape, sneak, entries, value, objective.name)


class _Solver:
    """One fight's decision process: the arrays every round's step reuses."""

    def __init__(self, spec: CombatSpec, objective: Objective, shape: PlanShape) -> None:
        self.spec, self.objective, self.shape = spec, objective, shape
        self.dims = shape.dims[1:]  # health, tokens, doses used, uses of each weapon
        self.uses = tuple(spec.loadout.uses)
        n_limited = len(self.uses)
        self.grids = tuple(np.indices(self.dims))
        self.weapon_uses = self.grids[3:]  # one array per limited weapon
        self.masks = sorted(range(1 << n_limited), key=lambda m: (bin(m).count("1"), m))
        face = spec.resist if spec.durability > 0 else 0
        top = self.dims[0] - 1
        shape = (-1,) + (1,) * (len(self.dims) - 2)
        self.damage = []  # per tokens: (Health index after, knocked out, tokens after, p, wounds)
        for tokens in range(self.dims[1]):
            outcomes = []
            for (through, after, *_), p in artifact.absorb(
                    (), spec.art_rules.fail_rule, spec.art_rules.resist_order, spec.wounds, face,
                    spec.durability, tokens).items():
                if p:
                    health = np.arange(top + 1) - through
                    outcomes.append((np.clip(health, 0, top), (health <= 0).reshape(shape),
                                     after, float(p), through))
            self.damage.append(outcomes)

    def terminal(self) -> np.ndarray:
        """Values after the last round: the fight is capped (``combat.max_rounds``)."""
        return np.full(self.dims, self.objective.weight("capped"))

    def _attacked(self, after: np.ndarray) -> np.ndarray:
        """Expected value of taking the enemy's attack in each state (P-20, P-02..P-05)."""
        o = self.objective
        ko = o.weight("knocked_out")
        out = np.zeros(self.dims)
        for tokens, outcomes in enumerate(self.damage):
            for health, down, left, p, through in outcomes:
                value = np.where(down, ko, after[health, left])
                out[:, tokens] += p * (value - o.wound * through)
        return out

    def _spent(self, mask_spent: int) -> tuple[np.ndarray, tuple]:
        """Whether each state can spend ``mask_spent``, and the index of its uses after."""
        ok = np.ones(self.dims, dtype=bool)
        index = list(self.grids[:3])
        for j, uses in enumerate(self.weapon_uses):
            if mask_spent >> j & 1:
                ok &= uses >= 1
                index.append(np.clip(uses - 1, 0, None))
            else:
                index.append(uses)
        return ok, tuple(index)

    def round(self, rnd: int, later: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and decisions at the start of round ``rnd`` from those of round ``rnd + 1``."""
        spec, o = self.spec, self.objective
        attacked = self._attacked(later)
        phase = 0 if rnd == 1 else 1
        best = np.full(self.dims, -np.inf)
        action = np.zeros(self.dims, dtype=np.int64)
        for mask in self.masks:
            allowed, _ = self._spent(mask)
            spent = spec.loadout.spend[phase][mask] & ((1 << len(self.uses)) - 1)
            _, index = self._spent(spent)
            p = _pass(spec.combat + spec.loadout.bonus[phase][mask], spec.success_on,
                      spec.endurance)
            value = (p * o.weight("killed") + (1 - p) * attacked[index]
                     - o.limited * bin(spent).count("1"))
            self._take(best, action, np.where(allowed, value, -np.inf), fight_action(mask))
        if rnd >= 2:
            p = _pass(spec.stealth, spec.stealth_face, spec.vigilance)
            self._take(best, action, p * o.weight("fled") + (1 - p) * attacked, FLEE)
        return self._doses(best, action)

    @staticmethod
    def _take(best: np.ndarray, chosen: np.ndarray, value: np.ndarray, code: int) -> None:
        """Keep ``code`` where ``value`` beats the best so far by more than a tie."""
        better = value > best + TIE
        best[better] = value[better]
        chosen[better] = code

    def _doses(self, after: np.ndarray, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and entries before the doses: take k more now (Z-12..Z-14), fewest on ties.

        A dose is taken only below maximum Health (at the maximum it restores
        nothing), in the order carried; Health stops at the maximum (Z-14).
        """
        doses = self.spec.stimulants
        top = self.dims[0] - 1
        best = np.full(self.dims, -np.inf)
        chosen = np.zeros(self.dims, dtype=np.int64)
        for used in range(len(doses) + 1):
            health = np.arange(top + 1)
            can = np.ones(top + 1, dtype=bool)
            row_best = best[:, :, used]
            row = chosen[:, :, used]
            for k in range(len(doses) - used + 1):
                if k:
                    can &= health < top
                    health = np.minimum(top, health + doses[used + k - 1])
                value = after[health, :, used + k] - self.objective.stimulant * k
                value = np.where(can.reshape((-1,) + (1,) * (value.ndim - 1)), value, -np.inf)
                better = value > row_best + TIE
                row_best[better] = value[better]
                row[better] = entry(k, action[health, :, used + k])[better]
        best[0] = self.objective.weight("knocked_out")
        return best, chosen

    def sneak(self, fight: float) -> tuple[bool, float]:
        """Whether to try to avoid the fight (P-16, Z-15..Z-17), and the plan's value."""
        spec = self.spec
        if spec.avoid_rule == AVOID_STEALTH:
            p = _pass(spec.stealth, spec.stealth_face, spec.vigilance)
        else:
            p = float(dice.threshold_pass(spec.escape_target))
        avoid = p * self.objective.weight("avoided") + (1 - p) * fight
        return (True, avoid) if avoid >= fight - TIE else (False, fight)
