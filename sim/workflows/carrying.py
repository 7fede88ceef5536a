"""The items and artefacts worth carrying under best play (issue 25, section 3).

For each card the best policy carries from the start (``items``, ``artifacts``; P-07, P-08,
Z-09..Z-16) or keeps when found (``keep_artifacts``, P-11), the best policy is played again
without one copy of it, on the re-evaluation's fresh games (trials from
:data:`~sim.workflows.optimize.FRESH_FIRST`, none of the selection's), and its paired
difference to the best is reported: the best minus the best without the card, so a
positive difference means the card is worth carrying. A card carried from the start is
refunded at its price into the starting money (:class:`~sim.workflows.policy_space.Purse`,
the loadout search's reading), so the question is "worth its price?"; an artefact kept
when found is sold instead (its half price, P-11, as any find not kept). The winner was
chosen on other games, so these differences carry no winner's curse; each is one more
policy played on the fresh games.
"""

from __future__ import annotations

from sim.workflows.optimize import Optimization
from sim.workflows.policy_space import Purse
from sim.workflows.race import paired

KINDS = {"items": "item carried", "artifacts": "artefact carried",
         "keep_artifacts": "artefact kept"}
"""The best policy's card lists compared, and what a card in each is."""
WORTH, NOT_WORTH, UNCLEAR = "worth carrying", "not worth carrying", "no clear difference"
"""A card's verdict: its paired 95 % interval above 0, below 0, or across it."""


def without_one(held: tuple, card: str) -> tuple:
    """``held`` without the last copy of ``card`` (the order of the others kept)."""
    i = len(held) - 1 - held[::-1].index(card)
    return held[:i] + held[i + 1:]


def worth_carrying(result: Optimization) -> list[dict]:
    """One row per card the best carries or keeps: best minus best without one copy.

    Rows: ``card``, ``kind`` (:data:`KINDS`), ``copies``, ``trials``, ``first_trial``,
    ``diff``, ``diff_ci_low``, ``diff_ci_high`` (the searched metric, paired on the fresh
    games) and ``verdict``. Empty when the search was interrupted (no fresh games).
    """
    fresh = result.fresh_games
    if fresh is None or result.reevaluation is None:
        return []
    trials, base, winner = result.reevaluation["trials"], result.base, result.winner
    purse = Purse.of(fresh.rs, base)
    best = fresh.play(winner, trials)[:, 0]
    rows = []
    for key, kind in KINDS.items():
        held = tuple(winner.value(key, base))
        for card in dict.fromkeys(held):
            other = purse.settle(winner.with_value(key, without_one(held, card), base))
            assert other is not None  # a card fewer is refunded: never less money
            rows.append({"card": card, "kind": kind, "copies": held.count(card),
                         "trials": trials, "first_trial": fresh.first,
                         **_verdict(paired(best, fresh.play(other, trials)[:, 0]),
                                    fresh.objective.sign)})
    return rows


def _verdict(d: dict, sign: int) -> dict:
    """The difference with its verdict (``sign``: +1 when a larger metric is better)."""
    low, high = sorted((sign * d["diff_ci_low"], sign * d["diff_ci_high"]))
    verdict = WORTH if low > 0 else NOT_WORTH if high < 0 else UNCLEAR
    return {**d, "verdict": verdict}


__all__ = ["KINDS", "NOT_WORTH", "UNCLEAR", "WORTH", "without_one", "worth_carrying"]
