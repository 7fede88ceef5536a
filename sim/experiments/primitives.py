"""Single-primitive probabilities: exact value, Monte Carlo estimate, interval.

This is the library behind ``zonesim prob``: each function runs one dice
primitive's kernel, computes its exact twin, and returns a
:class:`PrimitiveResult` that the CLI only formats.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import pandas as pd

from sim import runner, stats
from sim.encounter.items import best_escape_item, best_event_item
from sim.errors import InputError
from sim.exact import dice as exact
from sim.kernels import dice as kernels


class PrimitiveInputError(InputError):
    """A parameter of a primitive is outside its domain (reported, not raised as a bug)."""


@dataclass(frozen=True)
class Outcome:
    """One outcome of a primitive: exact probability, estimate and 95 % Wilson interval."""

    value: int | str
    exact: float
    mc: float
    ci_low: float
    ci_high: float
    count: int


@dataclass(frozen=True)
class PrimitiveResult:
    """Everything ``zonesim prob`` prints for one primitive."""

    primitive: str
    params: dict
    trials: int
    seed: int
    outcomes: tuple[Outcome, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        """The JSON shape of the issue: primitive, params, trials, seed, outcomes."""
        return {
            "primitive": self.primitive,
            "params": dict(self.params),
            "trials": self.trials,
            "seed": self.seed,
            "outcomes": [
                {"value": o.value, "exact": o.exact, "mc": o.mc,
                 "ci_low": o.ci_low, "ci_high": o.ci_high}
                for o in self.outcomes
            ],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome: value, exact, mc, ci_low, ci_high, z."""
        frame = pd.DataFrame([o.__dict__ for o in self.outcomes])
        frame["z"] = stats.z_scores(frame["count"], self.trials, frame["exact"])
        return frame.drop(columns="count")


def _outcomes(values: Sequence, counts: Sequence[int], exacts: Sequence[Fraction],
              trials: int) -> tuple[Outcome, ...]:
    low, high = stats.wilson(list(counts), trials)
    return tuple(
        Outcome(value=v, exact=float(p), mc=int(k) / trials, ci_low=float(lo),
                ci_high=float(hi), count=int(k))
        for v, k, p, lo, hi in zip(values, counts, exacts, low, high, strict=True)
    )


def _check(condition: bool, message: str) -> None:
    """Raise :class:`PrimitiveInputError` with ``field: text`` split into field and text."""
    if not condition:
        field, _, text = message.partition(": ")
        raise PrimitiveInputError(text, field)


def pool(dice: int, success_on: int, need: int, *, trials: int, seed: int,
         threads: int | None = None) -> PrimitiveResult:
    """Pool test (P-16, P-19, P-31, P-32): successes 0..n, plus ``"pass"`` (>= need)."""
    _check(0 <= dice <= 60, f"dice: {dice} is not in 0..60")
    _check(2 <= success_on <= 6, f"success_on: {success_on} is not a die face 2..6")
    counts = runner.run_counts(kernels.pool_kernel, seed, trials, (dice + 1,), dice,
                               success_on, threads=threads)
    dist = exact.pool_distribution(dice, success_on)
    passed = trials if need <= 0 else int(counts[max(need, 0):].sum())
    return PrimitiveResult(
        "pool", {"dice": dice, "success_on": success_on, "need": need}, trials, seed,
        _outcomes([*range(dice + 1), "pass"], [*counts, passed],
                  [*dist, exact.pool_pass(dice, success_on, need)], trials),
    )


def armor(wounds: int, resist: int | None, durability: int, tokens: int, *, trials: int,
          seed: int, threads: int | None = None) -> PrimitiveResult:
    """Armour absorption (P-02..P-06): wounds through 0..W, plus ``"destroyed"``."""
    _check(0 <= wounds <= 60, f"wounds: {wounds} is not in 0..60")
    _check(resist is None or 2 <= resist <= 6, f"resist: {resist} is not a die face 2..6")
    _check(1 <= durability <= 60, f"durability: {durability} is not in 1..60")
    _check(0 <= tokens < durability, f"tokens: {tokens} is not in 0..{durability - 1}")
    counts = runner.run_counts(kernels.armor_kernel, seed, trials, (wounds + 2,), wounds,
                               resist or 0, durability, tokens, threads=threads)
    through, destroyed = exact.armor_distribution(wounds, resist, durability, tokens)
    return PrimitiveResult(
        "armor",
        {"wounds": wounds, "resist": resist, "durability": durability, "tokens": tokens},
        trials, seed,
        _outcomes([*range(wounds + 1), "destroyed"], list(counts), [*through, destroyed],
                  trials),
    )


def _threshold(primitive: str, params: dict, target: int, automatic: bool, *, trials: int,
               seed: int, threads: int | None) -> PrimitiveResult:
    counts = runner.run_counts(kernels.threshold_kernel, seed, trials, (1,), target,
                               automatic, threads=threads)
    return PrimitiveResult(primitive, params, trials, seed,
                           _outcomes(["avoid"], list(counts),
                                     [exact.threshold_pass(target, automatic)], trials))


def event(avoid_on: int, items: Iterable = (), *, trials: int, seed: int,
          threads: int | None = None) -> PrimitiveResult:
    """Event avoidance (Z-08..Z-10): d6 >= avoid_on - shift of the best event item.

    ``items`` are item cards; only the best one with effect ``event_avoid``
    counts (Z-10). The Torsion scanner (value ``auto``) avoids without a roll.
    """
    _check(1 <= avoid_on <= 7, f"avoid_on: {avoid_on} is not in 1..7")
    items = _only(items, "event_avoid")
    best = best_event_item(items)
    shift, automatic = (0, False) if best is None else _event_shift(best)
    params = {"avoid_on": avoid_on, "item": None if best is None else best.name,
              "shift": shift, "automatic": automatic}
    return _threshold("event", params, avoid_on - shift, automatic, trials=trials, seed=seed,
                      threads=threads)


def escape(reputation: int, items: Iterable = (), *, trials: int, seed: int,
           threads: int | None = None) -> PrimitiveResult:
    """Escape by Reputation (Z-15..Z-17): d6 >= Reputation - rating of the best escape item."""
    _check(0 <= reputation <= 12, f"reputation: {reputation} is not in 0..12")
    items = _only(items, "escape")
    best = best_escape_item(items)
    rating = 0 if best is None else int(best.value)
    params = {"reputation": reputation, "item": None if best is None else best.name,
              "rating": rating}
    return _threshold("escape", params, reputation - rating, False, trials=trials, seed=seed,
                      threads=threads)


def reaction(skill: int, covering: bool, *, extra_dice: int, cap: int, trials: int, seed: int,
             threads: int | None = None) -> PrimitiveResult:
    """Reaction test (S-11, S-15): dice passed 0..cap among 2d6 (+extra dice if Covering)."""
    _check(0 <= skill <= 12, f"skill: {skill} is not in 0..12")
    n_dice = 2 + (extra_dice if covering else 0)
    counts = runner.run_counts(kernels.reaction_kernel, seed, trials, (cap + 1,), skill,
                               n_dice, cap, threads=threads)
    return PrimitiveResult(
        "reaction", {"skill": skill, "covering": covering, "dice": n_dice, "cap": cap},
        trials, seed,
        _outcomes(list(range(cap + 1)), list(counts),
                  exact.reaction_distribution(skill, n_dice, cap), trials),
    )


def _only(items: Iterable, effect: str) -> list:
    items = list(items)
    for item in items:
        _check(item.effect == effect,
               f"item: '{item.name}' has effect '{item.effect}', not {effect}")
    return items


def _event_shift(item) -> tuple[int, bool]:
    if item.value == "auto":
        return 0, True
    return int(item.value), False






