"""The seed of a search's fresh games (honest selection).

A search that picks a best value (``tune``, ``levers``) picks it on some dice, and the
noise of those dice favours the winner (the winner's curse). The winner is shown played
again on the seed :func:`fresh_seed` derives from the search's: every random stream is
keyed by (seed, trial, purpose) (:mod:`sim.kernels.rng`), so no trial of the fresh seed
shares a number with the search's, and the map is one to one, so the fresh games are as
reproducible as the search.
"""

from __future__ import annotations

FRESH_SEED_OFFSET = 2**62
"""The fresh games' seed is the search's plus this, modulo 2**63 (the seed's range)."""


def fresh_seed(seed: int) -> int:
    """The seed of the fresh games of a search run on ``seed``: ``seed + 2**62`` mod ``2**63``."""
    return (seed + FRESH_SEED_OFFSET) % 2**63


__all__ = ["FRESH_SEED_OFFSET", "fresh_seed"]
