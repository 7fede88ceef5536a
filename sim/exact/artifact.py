"""Exact twins of the artefact rules (P-08..P-10): distributions of one use, in Fractions.

Each function mirrors one function of :mod:`sim.kernels.artifact` and
returns the distribution of its result tuple as a ``{outcome: probability}``
mapping. The only random parts are the Intellect tests of activated
artefacts (P-10), independent of each other, and the armour roll
(P-02..P-06); so every distribution is a finite sum of exact rationals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from fractions import Fraction

from sim.encounter.artifact import ArtifactSpec
from sim.exact import dice
from sim.kernels import layout as S


def activation(a: ArtifactSpec, fail_rule: int) -> list[tuple[bool, bool, Fraction]]:
    """``(works, side_effect, probability)`` of one use (P-09, P-10; ``failed_activation``)."""
    harm = harmful(a)
    if a.auto:
        return [(True, harm, Fraction(1))]
    p = dice.pool_pass(a.pool, a.face, a.need)
    fail = {S.FAIL_NOTHING: (False, False), S.FAIL_SIDE_EFFECT: (False, harm),
            S.FAIL_BOTH: (True, harm)}[fail_rule]
    return [(True, False, p), (*fail, 1 - p)]


def harmful(a: ArtifactSpec) -> bool:
    """Whether ``a`` has a side effect to suffer: a track and at least one point (P-09)."""
    return a.side_target != S.SIDE_NONE and a.side_value > 0


def side(a: ArtifactSpec) -> tuple[int, int, int]:
    """Side-effect points ``(health, radiation, willpower)`` of one use (P-09)."""
    out = [0, 0, 0]
    if a.side_target != S.SIDE_NONE:
        out[a.side_target] = a.side_value
    return out[S.TARGET_HEALTH], out[S.TARGET_RADIATION], out[S.TARGET_WILLPOWER]


def _uses(arts: Sequence[ArtifactSpec], fail_rule: int, start: tuple, step) -> dict:
    """Fold ``step(value, artefact, works)`` over ``arts`` with their activations.

    ``start`` is ``(value, h, r, w, uses, side_effects)``; ``step`` returns the
    new value, or None when the artefact is not used in that state.
    """
    dist = {start: Fraction(1)}
    for a in arts:
        following: dict = defaultdict(Fraction)
        for state, p in dist.items():
            value, h, r, w, uses, suffered = state
            if step(value, a, None) is None:
                following[state] += p
                continue
            for works, hurt, q in activation(a, fail_rule):
                if q == 0:
                    continue
                sh, sr, sw = side(a) if hurt else (0, 0, 0)
                following[(step(value, a, works), h + sh, r + sr, w + sw, uses + 1,
                           suffered + hurt)] += p * q
        dist = dict(following)
    return dist


def test_bonus(arts: Sequence[ArtifactSpec], fail_rule: int, effect: int,
               select: Sequence[int]) -> dict:
    """Distribution of ``(dice, h, r, w, uses, side_effects)`` for one test (P-23, P-24)."""
    chosen = [a for i, a in enumerate(arts) if a.effect == effect and i in select]

    def step(value, a, works):
        return value + (a.value if works else 0)

    return _uses(chosen, fail_rule, (0, 0, 0, 0, 0, 0), step)


def resist(arts: Sequence[ArtifactSpec], fail_rule: int, damage: int,
           select: Collection[int] | None = None) -> dict:
    """Distribution of ``(left, h, r, w, uses, side_effects)`` against one damage (P-08),
    with the resist artefacts of the records in ``select`` (None: all).
    """

    def step(left, a, works):
        if left <= 0:
            return None
        return left - min(left, a.value) if works else left

    return _uses([a for i, a in enumerate(arts) if a.effect == S.ART_RESIST
                  and (select is None or i in select)], fail_rule, (damage, 0, 0, 0, 0, 0), step)


def armor(damage: int, face: int, durability: int, tokens: int) -> dict:
    """Distribution of ``(through, tokens_after)`` of one armour roll (P-02..P-06)."""
    if damage <= 0:
        return {(0, tokens): Fraction(1)}
    if face <= 0 or tokens >= durability:
        return {(damage, tokens): Fraction(1)}
    through, _ = dice.armor_distribution(damage, face, durability, tokens)
    return {(w, tokens + damage - w): p for w, p in enumerate(through) if p}


def absorb(arts: Sequence[ArtifactSpec], fail_rule: int, order: int, damage: int, face: int,
           durability: int, tokens: int, select: Collection[int] | None = None) -> dict:
    """Distribution of ``(through, tokens_after, h, r, w, uses, side_effects)`` (P-02, P-08),
    with the resist artefacts of the records in ``select`` (None: all).
    """
    out: dict = defaultdict(Fraction)
    if order == S.RESIST_BEFORE_ARMOR:
        for (left, *rest), p in resist(arts, fail_rule, damage, select).items():
            for (through, after), q in armor(left, face, durability, tokens).items():
                out[(through, after, *rest)] += p * q
        return dict(out)
    for (through, after), p in armor(damage, face, durability, tokens).items():
        for (left, *rest), q in resist(arts, fail_rule, through, select).items():
            out[(left, after, *rest)] += p * q
    return dict(out)


def restore(arts: Sequence[ArtifactSpec], fail_rule: int, effect: int, counts: tuple,
            level: int, top: int, at: int, limit: int,
            select: Collection[int] | None = None) -> dict:
    """Distribution of ``(level, counts, h, r, w, uses, side_effects)`` before a round.

    ``counts`` is a tuple of uses so far per artefact record (the kernel packs
    it in bytes); each artefact of ``effect`` among the records in ``select``
    (None: all) with fewer than ``limit`` uses is used once while
    ``level <= at`` and ``level < top``.
    """
    dist = {(level, counts, 0, 0, 0, 0, 0): Fraction(1)}
    for i, a in enumerate(arts):
        if a.effect != effect or (select is not None and i not in select):
            continue
        following: dict = defaultdict(Fraction)
        for state, p in dist.items():
            lvl, cnt, h, r, w, uses, suffered = state
            if lvl > at or lvl >= top or cnt[i] >= limit:
                following[state] += p
                continue
            cnt = cnt[:i] + (cnt[i] + 1,) + cnt[i + 1:]
            for works, hurt, q in activation(a, fail_rule):
                if q == 0:
                    continue
                sh, sr, sw = side(a) if hurt else (0, 0, 0)
                new = min(top, lvl + a.value) if works else lvl
                following[(new, cnt, h + sh, r + sr, w + sw, uses + 1,
                           suffered + hurt)] += p * q
        dist = dict(following)
    return dist
