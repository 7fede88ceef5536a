"""Artefact rules (P-08..P-10, P-23, P-24): one use of an artefact, and what it gives.

An encounter's params array carries its artefacts as records after its
header (:mod:`sim.kernels.layout`, ``AF_*``); ``base`` is the offset of the
first record and ``n_art`` their number. Each function below is one rule,
called by the fight (:func:`sim.kernels.combat.fight`), the anomaly
encounter (:func:`sim.kernels.anomaly.encounter`) and the event draw
(:func:`sim.kernels.event.resolve_event`), so every kernel uses the same
statement of it. Exact twins: :mod:`sim.exact.artifact`; plain-Python
statement: :mod:`sim.reference.artifact`.

Side effects are returned as points per track ``(health, radiation,
willpower)`` for the caller to apply: they are taken directly, not rolled
against the armour (P-09: the stalker "cannot avoid them"). Activation tests
use the DICE stream of the caller.
"""

from __future__ import annotations

from sim.jitting.options import jit
from sim.kernels import layout as S
from sim.kernels.dice import armor_absorb, pool_test


@jit
def activate(state, params, rec, fail_rule):
    """One use of the artefact at record ``rec``: ``(works, side_effect)`` (P-09, P-10).

    Automatic artefacts need no test and always bring their side effect
    (P-09). Activated artefacts make an Intellect test (P-10): a pass works
    and avoids the side effect; a failure follows ``fail_rule``
    (``artifacts.failed_activation``): nothing, the side effect alone, or
    both the effect and the side effect. An artefact whose side effect is
    ``none`` (or of 0 points) has none to bring: ``side_effect`` is False
    for it, whatever the test (:func:`harmful`).
    """
    harm = harmful(params, rec)
    if params[rec + S.AF_AUTO] != 0:
        return True, harm
    if pool_test(state, params[rec + S.AF_POOL], params[rec + S.AF_FACE],
                 params[rec + S.AF_NEED]):
        return True, False
    if fail_rule == S.FAIL_NOTHING:
        return False, False
    if fail_rule == S.FAIL_SIDE_EFFECT:
        return False, harm
    return True, harm


@jit
def harmful(params, rec):
    """Whether the artefact at record ``rec`` has a side effect to suffer (P-09): a track
    and at least one point (``side_effect = none`` in ``artifacts.csv`` has neither).
    """
    return params[rec + S.AF_SIDE_TARGET] != S.SIDE_NONE and params[rec + S.AF_SIDE_VALUE] > 0


@jit(inline="always")
def usable(params, base, n_art, health):
    """Bit mask of the artefact records the stalker's use policy lets him use at ``health``
    (``policy.artifact_use``, P-08: using a carried artefact is the player's choice).

    Record ``i`` is used only while ``health <= AF_USE_AT``: ``USE_ALWAYS`` (the default)
    is every time its rule allows, 0 never (a stalker at 0 Health is knocked out, P-37),
    and a threshold ``N`` only once he is down to ``N`` Health, so that an artefact whose
    side effect costs more than it gives at full Health (P-09) waits for the danger.
    """
    mask = 0
    for i in range(n_art):
        if health <= params[base + i * S.AF_SIZE + S.AF_USE_AT]:
            mask |= 1 << i
    return mask


@jit
def side_points(params, rec, target):
    """Points of the side effect of record ``rec`` on track ``target`` (P-09)."""
    if params[rec + S.AF_SIDE_TARGET] == target:
        return params[rec + S.AF_SIDE_VALUE]
    return 0


@jit
def test_bonus(state, params, base, n_art, fail_rule, effect, select):
    """Dice the artefacts of ``effect`` in bit mask ``select`` add to one test (P-08..P-10).

    Every selected artefact of the effect (``ART_COMBAT`` before a Combat
    test, ``ART_STEALTH`` before a Stealth test) is used once, in record
    order: P-23 lets the stalker use artefacts before every combat round.

    Returns
    -------
    tuple of int
        ``(dice, health, radiation, willpower, uses, side_effects)``: dice
        added, side-effect points per track, artefacts used, side effects
        suffered.
    """
    bonus = 0
    h = r = w = 0
    uses = 0
    suffered = 0
    for i in range(n_art):
        rec = base + i * S.AF_SIZE
        if params[rec + S.AF_EFFECT] != effect or not (select >> i) & 1:
            continue
        works, side = activate(state, params, rec, fail_rule)
        uses += 1
        if works:
            bonus += params[rec + S.AF_VALUE]
        if side:
            suffered += 1
            h += side_points(params, rec, S.TARGET_HEALTH)
            r += side_points(params, rec, S.TARGET_RADIATION)
            w += side_points(params, rec, S.TARGET_WILLPOWER)
    return bonus, h, r, w, uses, suffered


@jit
def resist(state, params, base, n_art, fail_rule, damage, select):
    """Resist artefacts against one damage of ``damage`` points (P-08..P-10).

    Each resist artefact in bit mask ``select`` (-1: all; the compile step
    keeps only those of the damage's type) is used once per damage while
    points remain, in record order, and absorbs up to its value when it works.

    Returns
    -------
    tuple of int
        ``(left, health, radiation, willpower, uses, side_effects)``.
    """
    left = damage
    h = r = w = 0
    uses = 0
    suffered = 0
    for i in range(n_art):
        rec = base + i * S.AF_SIZE
        if params[rec + S.AF_EFFECT] != S.ART_RESIST or left <= 0 or not (select >> i) & 1:
            continue
        works, side = activate(state, params, rec, fail_rule)
        uses += 1
        if works:
            left -= min(left, params[rec + S.AF_VALUE])
        if side:
            suffered += 1
            h += side_points(params, rec, S.TARGET_HEALTH)
            r += side_points(params, rec, S.TARGET_RADIATION)
            w += side_points(params, rec, S.TARGET_WILLPOWER)
    return left, h, r, w, uses, suffered


@jit
def absorb(state, params, base, n_art, fail_rule, order, damage, resist_face, durability,
           tokens, select):
    """One damage through the resist artefacts in bit mask ``select`` (-1: all) and the
    armour (P-02..P-06, P-08).

    ``order`` (``artifacts.resist_order``): the artefacts absorb first and
    the armour rolls one die per point left (``RESIST_BEFORE_ARMOR``), or the
    armour rolls first and the artefacts absorb from what got through.

    Returns
    -------
    tuple of int
        ``(through, tokens_after, health, radiation, willpower, uses,
        side_effects)``: points taken, armour tokens, side-effect points per
        track, artefacts used and side effects suffered.
    """
    if order == S.RESIST_BEFORE_ARMOR:
        left, h, r, w, uses, suffered = resist(state, params, base, n_art, fail_rule, damage,
                                               select)
        through, after = armor_absorb(state, left, resist_face, durability, tokens)
        return through, after, h, r, w, uses, suffered
    through, after = armor_absorb(state, damage, resist_face, durability, tokens)
    left, h, r, w, uses, suffered = resist(state, params, base, n_art, fail_rule, through, select)
    return left, after, h, r, w, uses, suffered


@jit
def restore(state, params, base, n_art, fail_rule, effect, counts, level, top, at, limit,
            select):
    """Heal or calm artefacts before a combat round (P-08, P-24; ``--heal-at``).

    Each artefact of ``effect`` in bit mask ``select`` (-1: all) with uses left
    (``limit`` per encounter, ``artifacts.restore_uses``; ``counts`` packs the
    uses so far, 8 bits per record) is used once while ``level <= at`` and ``level < top``; when it
    works it restores its value, capped at ``top``.

    Returns
    -------
    tuple of int
        ``(level, counts, health, radiation, willpower, uses,
        side_effects)``; the side effects are not yet applied to ``level``.
    """
    h = r = w = 0
    uses = 0
    suffered = 0
    for i in range(n_art):
        rec = base + i * S.AF_SIZE
        if (params[rec + S.AF_EFFECT] != effect or level > at or level >= top
                or not (select >> i) & 1):
            continue
        if (counts >> (8 * i)) & 255 >= limit:
            continue
        counts += 1 << (8 * i)
        works, side = activate(state, params, rec, fail_rule)
        uses += 1
        if works:
            level = min(top, level + params[rec + S.AF_VALUE])
        if side:
            suffered += 1
            h += side_points(params, rec, S.TARGET_HEALTH)
            r += side_points(params, rec, S.TARGET_RADIATION)
            w += side_points(params, rec, S.TARGET_WILLPOWER)
    return level, counts, h, r, w, uses, suffered
