"""Best play in a fight, solved exactly: backward induction over the fight's states.

The exact twin (:mod:`sim.exact.combat`) pushes a fight's state through a
Markov chain; with the player's choices left open the same chain is a finite
decision process, whose optimal plan backward induction finds exactly
(QuantEcon's ``backward_induction``: the value of round ``r`` from the values of
round ``r + 1``). The choices are those the rules give (see
:mod:`sim.encounter.plan`): avoid the fight or fight for the trophy (P-16,
P-17), the heal and calm artefacts to use before a round (P-08, P-24), stimulant
doses (Z-12..Z-14), flee from round 2 (P-21) or fight, which limited-use weapons
and combat artefacts to allow (P-23, P-24), and the stealth and resist
artefacts to use (P-08: "it is worth considering whether using one is
worthwhile").

The state at the start of round ``r`` is (Health, the other track, armour
tokens, doses used, heal/calm uses so far, uses left of each limited-use
weapon); the other track and the heal/calm uses only in fights with artefacts.
The round number is kept because round 1 differs (P-21, P-29) and the safety
cap ``combat.max_rounds`` ends the fight (``capped``). Each stage of a round is
one vectorised step over every state (a flat index): the value of a stage is
the expected value of the next stage's values at the states its outcomes lead
to, outcome by outcome (the artefacts' activations from :mod:`sim.exact.artifact`,
the armour's roll, the tests).

The objective (:class:`Objective`) weighs the fight's outcomes and charges
wounds, doses, weapon uses and side effects; on ties the plan takes the move
that spends less: fewer doses, then fewer limited-use weapons and combat
artefacts allowed, then fewer other artefacts used, then fighting before
fleeing, and avoiding the fight before fighting it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations, product

import numpy as np

from sim.encounter.plan import (
    FLEE,
    CombatPlan,
    PlanShape,
    entry,
    fight_action,
    records,
    restore_at,
)
from sim.encounter.spec import CombatSpec
from sim.errors import InputError
from sim.exact import artifact, dice
from sim.exact.combat import OUTCOMES, heal_and_calm
from sim.kernels.layout import (
    ART_CALM,
    ART_COMBAT,
    ART_HEAL,
    ART_RESIST,
    ART_STEALTH,
    AVOID_STEALTH,
    PLAN_ACTION_SHIFT,
    PLAN_KIND_BITS,
    SPEND_ART_SHIFT,
    TARGET_HEALTH,
)
from sim.rules.scenario import MAX_WEIGHT, OBJECTIVE_NAMES, WEIGHT_KEYS

MAX_KINDS = PLAN_ACTION_SHIFT // PLAN_KIND_BITS
"""Most kinds of dose a plan chooses between (the dose field of an entry)."""

MAX_STATES = 4_000_000
"""Most entries (rounds x stages x states) a plan may have: 32 MB of decisions."""

TIE = 1e-12
"""Values closer than this are ties (floating-point rounding of equal sums)."""


class BestPlayError(InputError):
    """A fight whose best play cannot be solved (too large)."""


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
    wound, stimulant, limited, side_effect : float
        Cost of each wound taken, each stimulant dose, each limited-use weapon
        use and each artefact side effect suffered (P-09).
    """

    name: str
    weights: tuple[float, ...]
    wound: float = 0.0
    stimulant: float = 0.0
    limited: float = 0.0
    side_effect: float = 0.0

    def __post_init__(self) -> None:
        """Refuse weights the solvers cannot add up: each outcome's weight within
        ±:data:`~sim.rules.scenario.MAX_WEIGHT`, each cost in ``0..MAX_WEIGHT`` (so no
        value of :func:`solve_combat` or :mod:`sim.exact.best_hazard` can overflow).
        """
        if len(self.weights) != len(OUTCOMES):
            raise ValueError(f"an objective weighs {len(OUTCOMES)} outcomes: {OUTCOMES}")
        costs = {"wound": self.wound, "stimulant": self.stimulant, "limited": self.limited,
                 "side_effect": self.side_effect}
        for name, w in (*zip(OUTCOMES, self.weights, strict=True), *costs.items()):
            if not (0 if name in costs else -MAX_WEIGHT) <= w <= MAX_WEIGHT:
                low = "0" if name in costs else f"-{MAX_WEIGHT:,}"
                raise ValueError(f"objective {self.name!r}: the weight of {name} is {w!r}, "
                                 f"not a number {low}..{MAX_WEIGHT:,}")

    def weight(self, outcome: str) -> float:
        """The value of ``outcome``."""
        return self.weights[OUTCOMES.index(outcome)]


OBJECTIVES = {
    "survive": Objective("survive", (1.0, 1.0, 1.0, 0.0, 1.0)),
    "kill": Objective("kill", (0.0, 1.0, 0.0, 0.0, 0.0)),
}
"""The objectives without weights (:data:`sim.rules.scenario.OBJECTIVE_NAMES`); ``value``
objectives carry their own (:func:`objective`)."""
assert tuple(OBJECTIVES) + ("value",) == OBJECTIVE_NAMES


def value_objective(knocked_out: float = 1.0, wound: float = 0.0, stimulant: float = 0.0,
                    limited: float = 0.0, side_effect: float = 0.0,
                    killed: float = 0.0) -> Objective:
    """An expected-value objective from costs: a knock-out costs ``knocked_out``, each
    wound, dose, limited use and side effect its cost, and a kill is worth ``killed``
    (the keys of :data:`sim.rules.scenario.WEIGHT_KEYS`, in that order).
    """
    return Objective("value", (0.0, killed, 0.0, -knocked_out, 0.0), wound, stimulant, limited,
                     side_effect)


assert value_objective.__code__.co_varnames[:len(WEIGHT_KEYS)] == WEIGHT_KEYS


def objective(name: str, weights: Iterable[tuple[str, float]] = ()) -> Objective:
    """The objective ``name`` (``policy.objective``, ``--objective``); ``value`` weighs the
    outcomes by ``weights`` (``policy.weights``: pairs of :data:`WEIGHT_KEYS` and numbers,
    a knock-out 1 and the rest 0 unless given).
    """
    if name == "value":
        return value_objective(**dict(weights))
    return OBJECTIVES[name]


@cache
def _pass(n_dice: int, face: int, need: int) -> float:
    return float(dice.pool_pass(n_dice, face, need))


def restore_records(spec: CombatSpec) -> tuple[int, ...]:
    """The heal and calm artefacts' records (their uses so far are part of the state)."""
    return tuple(i for i, a in enumerate(spec.artifacts) if a.effect in (ART_HEAL, ART_CALM))


def dose_kinds(spec: CombatSpec) -> tuple[tuple[int, int], ...]:
    """``(value, count)`` of each kind of dose carried, in the order first carried, where
    the doses differ in size (medkits and stimulants under ``combat.medkits_in_combat``,
    P-24): which to take is then a choice (Z-12); else ``()`` (taken in the order carried).

    Raises
    ------
    BestPlayError
        More kinds than a plan entry holds (:data:`MAX_KINDS`).
    """
    kinds = tuple((v, spec.stimulants.count(v)) for v in dict.fromkeys(spec.stimulants))
    if len(kinds) > MAX_KINDS:
        raise BestPlayError(f"best play: {len(kinds)} kinds of healing dose carried "
                            f"({', '.join(str(v) for v, _ in kinds)} points), more than the "
                            f"{MAX_KINDS} a plan chooses between")
    return kinds if len(kinds) > 1 else ()


def plan_shape(spec: CombatSpec) -> PlanShape:
    """The state space of the fight's plan (:class:`sim.encounter.plan.PlanShape`)."""
    kinds = dose_kinds(spec)
    return PlanShape(spec.max_rounds, spec.health, spec.durability,
                     0 if kinds else len(spec.stimulants), tuple(spec.loadout.uses),
                     spec.other_max if spec.artifacts else 0, restore_records(spec),
                     spec.art_rules.restore_uses, kinds)


def _subsets(spec: CombatSpec, effect: int) -> list[int]:
    """Every record mask of the artefacts of ``effect``, fewest first, then earlier carried."""
    chosen = [i for i, a in enumerate(spec.artifacts) if a.effect == effect]
    return [sum(1 << i for i in combo) for k in range(len(chosen) + 1)
            for combo in combinations(chosen, k)]


def solve_combat(spec: CombatSpec, objective: Objective = OBJECTIVES["survive"]) -> CombatPlan:
    """The optimal plan of a fight and its exact value (P-08..P-10, P-16..P-24, Z-12..Z-17).

    Raises
    ------
    BestPlayError
        The plan would exceed :data:`MAX_STATES`.
    """
    shape = plan_shape(spec)
    if shape.size > MAX_STATES:
        raise BestPlayError(f"best play: the fight has {shape.size:,} states (rounds x stages x "
                            f"Health x other track x tokens x doses x artefact uses x weapon "
                            f"uses), more than the limit of {MAX_STATES:,}; carry fewer "
                            "limited-use weapons, stimulants or artefacts")
    solver = _Solver(spec, objective, shape)
    values = solver.terminal()
    table = np.zeros((spec.max_rounds, shape.stages, solver.n), dtype=np.int64)
    rnd = solver.last()  # the plan's later rounds are never reached
    while rnd >= 1:
        later = values
        values, table[rnd - 1] = solver.round(rnd, later)
        if rnd > 2 and np.array_equal(values, later):
            # Rounds 2 .. rnd - 1 are the same step on the same values: the same again.
            table[1:rnd - 1] = table[rnd - 1]
            rnd = 2
        rnd -= 1
    sneak, select, value = solver.sneak(values)
    entries = table.reshape(-1)
    entries.flags.writeable = False
    return CombatPlan(shape, sneak, entries, value, objective.name, select)


class _Solver:
    """One fight's decision process: the flat state space and the steps every round reuses."""

    def __init__(self, spec: CombatSpec, objective: Objective, shape: PlanShape) -> None:
        self.spec, self.objective, self.shape = spec, objective, shape
        self.ko = objective.weight("knocked_out")
        dims = shape.dims[2:]  # Health, other, tokens, doses used, heal/calm uses, weapon uses
        self.n = int(np.prod(dims))
        self.strides = np.asarray(shape.strides[2:])
        (self.health, self.other, self.tokens, self.used, self.counts,
         self.code) = np.indices(dims).reshape(len(dims), -1)
        digits, radix = [], 1  # each digit's count left and its step in the code
        for u in reversed(shape.radices):
            digits.insert(0, (self.code // radix % (u + 1), radix))
            radix *= u + 1
        self.uses = digits[:len(shape.uses)]  # each limited weapon's
        self.kinds = digits[len(shape.uses):]  # each kind of dose's (PlanShape.kinds)
        self.tracked = bool(shape.other)
        self.down_now = (self.health <= 0) | (self.tracked & (self.other <= 0))
        self.resists = _subsets(spec, ART_RESIST)
        self.stealths = _subsets(spec, ART_STEALTH)
        n_limited = len(spec.loadout.uses)
        self.masks = sorted(range(1 << (n_limited + len(spec.loadout.artifacts))),
                            key=lambda m: (bin(m).count("1"), m))
        self.attacks = [self._attack_outcomes(x) for x in self.resists]
        self.restore_masks = [0]
        if shape.restores:
            self.restore_masks = [sum(1 << i for i in combo)
                                  for k in range(len(shape.restores) + 1)
                                  for combo in combinations(shape.restores, k)]
        self.restores = [self._restore_outcomes(r) for r in self.restore_masks[1:]]

    # -- moving between states ---------------------------------------------------------
    def _index(self, health, other, tokens=None, used=None, counts=None, code=None):
        """Flat indices of the states with these components (the others unchanged)."""
        parts = (np.clip(health, 0, None), np.clip(other, 0, None) if self.tracked else 0,
                 self.tokens if tokens is None else tokens, self.used if used is None else used,
                 self.counts if counts is None else counts, self.code if code is None else code)
        return sum(s * p for s, p in zip(self.strides, parts, strict=True))

    def _sides(self, health, other, h: int, w: int):
        """Side-effect points on the fight's two tracks (P-09, P-37, P-40), and down."""
        if self.spec.track == TARGET_HEALTH:
            health, other = health - h, other - w
        else:
            health, other = health - w, other - h
        return health, other, (health <= 0) | (self.tracked & (other <= 0))

    def _expect(self, values: np.ndarray, outcomes) -> np.ndarray:
        """Expected value over ``(p, to, down, cost)`` outcomes of ``values`` at ``to``."""
        out = np.zeros(self.n)
        for p, to, down, cost in outcomes:
            out += p * (np.where(down, self.ko, values[to]) - cost)
        return out

    # -- the stages' outcomes, the same every round ------------------------------------
    def _attack_outcomes(self, select: int) -> list:
        """The enemy's attack with resist artefacts ``select`` (P-02..P-05, P-08, P-20)."""
        spec, o = self.spec, self.objective
        face = spec.resist if spec.durability > 0 and not spec.traits.piercing else 0  # P-22
        out = []
        for tokens in range(max(spec.durability, 0) + 1):
            at = self.tokens == tokens
            dist = artifact.absorb(spec.artifacts, spec.art_rules.fail_rule,
                                   spec.art_rules.resist_order, spec.wounds, face,
                                   spec.durability, tokens, records(select, len(spec.artifacts)))
            for (through, after, h, _, w, _, suffered), p in dist.items():
                if not p:
                    continue
                health, other, down = self._sides(self.health - through, self.other, h, w)
                out.append((np.where(at, float(p), 0.0),
                            self._index(health, other, np.full(self.n, after)), down,
                            o.wound * through + o.side_effect * suffered))
        return out

    def _test_outcomes(self, effect: int, chosen) -> list:
        """``(extra dice, health, other, down, cost, p)`` of the artefacts before a test."""
        spec = self.spec
        dist = artifact.test_bonus(spec.artifacts, spec.art_rules.fail_rule, effect, chosen)
        out = []
        for (extra, h, _, w, _, suffered), p in dist.items():
            if p:
                health, other, down = self._sides(self.health, self.other, h, w)
                out.append((extra, health, other, down,
                            self.objective.side_effect * suffered, float(p)))
        return out

    def _restore_outcomes(self, select: int) -> list:
        """The heal and calm artefacts of ``select`` before a round (P-08, P-24)."""
        spec, shape, o = self.spec, self.shape, self.objective
        top = restore_at(spec.health, spec.other_max)
        play = replace(spec, heal_at=top)
        n_art = len(spec.artifacts)
        cells: dict = {}
        for health, _, _, _, other, counts in shape.states():
            key = (health, other, shape.counts_code(counts))
            if key not in cells:
                cells[key] = heal_and_calm(play, health, other, counts, records(select, n_art))
        width = max(len(v) for v in cells.values())
        p = np.zeros((width, self.n))
        to = np.zeros((width, self.n), dtype=np.int64)
        down = np.zeros((width, self.n), dtype=bool)
        cost = np.zeros((width, self.n))
        for (health, other, code), dist in cells.items():
            at = (self.health == health) & (self.counts == code)
            if self.tracked:
                at &= self.other == other
            for k, (hp, oth, cnt, _, _, suffered, q) in enumerate(dist):
                p[k, at] = q
                to[k, at] = self._index(np.full(self.n, hp), np.full(self.n, oth),
                                        counts=np.full(self.n, shape.counts_code(cnt)))[at]
                down[k, at] = hp <= 0 or (self.tracked and oth <= 0)
                cost[k, at] = o.side_effect * suffered
        return list(zip(p, to, down, cost, strict=True))

    # -- one round -----------------------------------------------------------------------
    def last(self) -> int:
        """The last round a fight can reach: ``combat.max_rounds``, or with the trait
        ``flees=N`` (P-22) round N if that comes first.
        """
        flees = self.spec.traits.flees
        return flees if 0 < flees < self.spec.max_rounds else self.spec.max_rounds

    def terminal(self) -> np.ndarray:
        """Values after the last round: the fight is capped (``combat.max_rounds``), or
        the enemy has fled (``flees=N``, P-22).
        """
        ends = "fled" if self.last() < self.spec.max_rounds else "capped"
        return np.full(self.n, self.objective.weight(ends))

    def round(self, rnd: int, later: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and entries (per stage) at the start of round ``rnd`` from those of
        round ``rnd + 1``.
        """
        attacked = [self._expect(later, outcomes) for outcomes in self.attacks]
        best, entries = self._act(rnd, attacked)
        best, entries = self._doses(best, entries)
        if not self.restores:
            return best, entries[None, :]
        before = best.copy()  # no heal or calm artefact used
        chosen = np.zeros(self.n, dtype=np.int64)
        for mask, outcomes in zip(self.restore_masks[1:], self.restores, strict=True):
            self._take(before, chosen, self._expect(best, outcomes), entry(0, 0, mask))
        before[self.down_now] = self.ko
        return before, np.stack([chosen, entries])

    def _act(self, rnd: int, attacked: list) -> tuple[np.ndarray, np.ndarray]:
        """Values and entries of the round's action (after heal/calm and doses)."""
        spec, o = self.spec, self.objective
        loadout = spec.loadout
        n_limited = len(loadout.uses)
        phase = 0 if rnd == 1 else 1
        best = np.full(self.n, -np.inf)
        action = np.zeros(self.n, dtype=np.int64)
        for mask in self.masks:
            allowed = np.ones(self.n, dtype=bool)
            code = self.code.copy()
            spend = loadout.spend[phase][mask]
            for j, (uses, step) in enumerate(self.uses):
                if mask >> j & 1:
                    allowed &= uses >= 1
                if spend >> j & 1:
                    code = code - step
            spent = bin(spend & ((1 << n_limited) - 1)).count("1")
            chosen = records(spend >> SPEND_ART_SHIFT, len(spec.artifacts))
            pool = spec.combat + loadout.bonus[phase][mask]
            tests = self._test_outcomes(ART_COMBAT, chosen)
            for x, hit in zip(self.resists, attacked, strict=True):
                value = -o.limited * spent
                for extra, health, other, down, cost, p in tests:
                    kill = _pass(pool + extra, spec.success_on, spec.endurance)
                    after = hit[self._index(health, other, code=np.clip(code, 0, None))]
                    value = value + p * (np.where(down, self.ko, kill * o.weight("killed")
                                                  + (1 - kill) * after) - cost)
                self._take(best, action, np.where(allowed, value, -np.inf),
                           entry(0, fight_action(mask), x))
        if rnd >= 2 and not spec.traits.relentless:  # no flight from a relentless enemy (P-22)
            for s in self.stealths:
                tests = self._test_outcomes(ART_STEALTH, records(s, len(spec.artifacts)))
                for x, hit in zip(self.resists, attacked, strict=True):
                    value = 0.0
                    for extra, health, other, down, cost, p in tests:
                        fled = _pass(spec.stealth + extra, spec.stealth_face, spec.vigilance)
                        after = hit[self._index(health, other)]
                        value = value + p * (np.where(down, self.ko, fled * o.weight("fled")
                                                      + (1 - fled) * after) - cost)
                    self._take(best, action, value, entry(0, FLEE, s | x))
        return best, action

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
        if self.kinds:
            return self._kind_doses(after, action)
        doses = np.asarray(self.spec.stimulants + (0,), dtype=np.int64)
        top = self.spec.health
        best = np.full(self.n, -np.inf)
        chosen = np.zeros(self.n, dtype=np.int64)
        health = self.health.copy()
        can = np.ones(self.n, dtype=bool)
        for k in range(len(self.spec.stimulants) + 1):
            if k:
                can &= (health < top) & (self.used + k <= len(self.spec.stimulants))
                health = np.minimum(top, health + doses[np.minimum(self.used + k - 1,
                                                                   len(doses) - 1)])
            used = np.minimum(self.used + k, len(self.spec.stimulants))
            to = self._index(health, self.other, used=used)
            value = np.where(can, after[to] - self.objective.stimulant * k, -np.inf)
            better = value > best + TIE
            best[better] = value[better]
            chosen[better] = (action[to] + k)[better]
        best[self.down_now] = self.ko
        return best, chosen

    def _kind_doses(self, after: np.ndarray, action: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_doses` with kinds of dose: how many of each to take now (Z-12, P-24),
        fewest doses on ties; taken kind by kind in the order first carried, each only
        below maximum Health, Health stopping at the maximum (Z-14).
        """
        top = self.spec.health
        best = np.full(self.n, -np.inf)
        chosen = np.zeros(self.n, dtype=np.int64)
        limit = (1 << PLAN_KIND_BITS) - 1
        counts = [min(count, limit) for _, count in self.shape.kinds]
        for take in sorted(product(*(range(c + 1) for c in counts)), key=lambda t: (sum(t), t)):
            health, code = self.health.copy(), self.code.copy()
            can = np.ones(self.n, dtype=bool)
            field = 0
            for j, ((value, _), (left, step), n) in enumerate(
                    zip(self.shape.kinds, self.kinds, take, strict=True)):
                can &= left >= n
                for _ in range(n):
                    can &= health < top
                    health = np.minimum(top, health + value)
                code = code - n * step
                field += n << (PLAN_KIND_BITS * j)
            to = self._index(health, self.other, code=np.clip(code, 0, None))
            value = np.where(can, after[to] - self.objective.stimulant * sum(take), -np.inf)
            better = value > best + TIE
            best[better] = value[better]
            chosen[better] = (action[to] + field)[better]
        best[self.down_now] = self.ko
        return best, chosen

    def sneak(self, values: np.ndarray) -> tuple[bool, int, float]:
        """Whether to try to avoid the fight (P-16, Z-15..Z-17), with which stealth
        artefacts, and the plan's value.
        """
        spec, o = self.spec, self.objective
        start = self._index(np.array([spec.start_health]), np.array([spec.other]),
                            np.array([spec.tokens]), np.array([0]), np.array([0]),
                            np.array([self.shape.uses_code(self.shape.radices)]))
        fight = float(values[start][0])
        if spec.traits.ambush:  # the fight cannot be avoided (P-22)
            return False, -1, fight
        if spec.avoid_rule != AVOID_STEALTH:
            p = float(dice.threshold_pass(spec.escape_target))
            avoid = p * o.weight("avoided") + (1 - p) * fight
            return (True, -1, avoid) if avoid >= fight - TIE else (False, -1, fight)
        best, select = -np.inf, 0
        for s in self.stealths:
            value = 0.0
            for extra, h, _, w, _, suffered, p in (
                    (*k, float(q)) for k, q in artifact.test_bonus(
                        spec.artifacts, spec.art_rules.fail_rule, ART_STEALTH,
                        records(s, len(spec.artifacts))).items() if q):
                health, other, down = self._sides(np.array([spec.start_health]),
                                                  np.array([spec.other]), h, w)
                if bool(down[0]):
                    value += p * (self.ko - o.side_effect * suffered)
                    continue
                at = self._index(health, other, np.array([spec.tokens]), np.array([0]),
                                 np.array([0]),
                                 np.array([self.shape.uses_code(self.shape.radices)]))
                avoided = _pass(spec.stealth + extra, spec.stealth_face, spec.vigilance)
                value += p * (avoided * o.weight("avoided") + (1 - avoided) * float(values[at][0])
                              - o.side_effect * suffered)
            if value > best + TIE:
                best, select = value, s
        return (True, select, best) if best >= fight - TIE else (False, -1, fight)
