"""Exact distributions of the dice-test primitives (twins of :mod:`sim.kernels.dice`)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

SIXTH = Fraction(1, 6)


def face_at_least(face: int) -> Fraction:
    """P(one d6 shows ``face`` or more); faces outside 1..6 clamp to 0 or 1."""
    return Fraction(min(max(7 - face, 0), 6), 6)


def face_at_most(face: int) -> Fraction:
    """P(one d6 shows ``face`` or less); faces outside 1..6 clamp to 0 or 1."""
    return Fraction(min(max(face, 0), 6), 6)


def binomial(n: int, p: Fraction) -> list[Fraction]:
    """P(k successes) for k = 0..n among ``n`` independent dice of success ``p``."""
    n = max(n, 0)
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def pool_distribution(n_dice: int, success_on: int) -> list[Fraction]:
    """Distribution of successes of an ``n_dice`` pool (P-19, P-31, P-32)."""
    return binomial(n_dice, face_at_least(success_on))


@cache
def pool_pass(n_dice: int, success_on: int, need: int) -> Fraction:
    """P(pool test passes): at least ``need`` successes; ``need <= 0`` always passes.

    Kept per argument (a few hundred triples at most, each an immutable Fraction): the
    exact fights and the campaign's fight tables ask for the same tests tens of thousands of
    times in one ``zonesim report`` (a quarter of its CPU time before, issue 45 item 4).
    """
    if need <= 0:
        return Fraction(1)
    return sum(pool_distribution(n_dice, success_on)[need:], Fraction(0))


def armor_distribution(
    wounds: int, resist: int | None, durability: int, tokens: int
) -> tuple[list[Fraction], Fraction]:
    """Wounds through the armour and the chance it is destroyed (P-02..P-06).

    Parameters
    ----------
    wounds : int
        Incoming wounds W of one type.
    resist : int or None
        Absorbing die face R (2..6); None or 0 means no protection.
    durability, tokens : int
        Durability D and tokens T already placed, ``T < D``.

    Returns
    -------
    tuple
        ``(p_through, p_destroyed)`` where ``p_through[w]`` is P(w wounds go
        through), ``w = 0..W``.
    """
    through = [Fraction(0)] * (wounds + 1)
    if not resist or tokens >= durability:
        through[wounds] = Fraction(1)
        return through, Fraction(0)
    room = durability - tokens
    destroyed = Fraction(0)
    for hits, p in enumerate(binomial(wounds, face_at_least(resist))):
        absorbed = min(hits, room)
        through[wounds - absorbed] += p
        if absorbed == room:
            destroyed += p
    return through, destroyed


def threshold_pass(target: int, automatic: bool = False) -> Fraction:
    """P(d6 >= target) (Z-09, Z-16); ``automatic`` passes with certainty."""
    if automatic:
        return Fraction(1)
    return face_at_least(target)


def event_avoid(avoid_on: int, shift: int = 0, automatic: bool = False) -> Fraction:
    """P(avoid an event): d6 >= avoid_on - shift of the best event item (Z-08..Z-10)."""
    return threshold_pass(avoid_on - shift, automatic)


def escape(reputation: int, rating: int = 0) -> Fraction:
    """P(avoid a fight): d6 >= Reputation - rating of the best escape item (Z-15..Z-17)."""
    return threshold_pass(reputation - rating)


def reaction_distribution(skill: int, n_dice: int = 2, cap: int = 2) -> list[Fraction]:
    """Distribution of dice passed (0..cap) in a reaction test (S-11, S-15).

    Each die passes when it shows Skill or less; with Covering a third die is
    rolled (``n_dice = 3``) and the count is capped at ``cap``.
    """
    out = [Fraction(0)] * (cap + 1)
    for k, p in enumerate(binomial(n_dice, face_at_most(skill))):
        out[min(k, cap)] += p
    return out
