"""Skirmish firefights (seed 003): scenario model, loading, compiling and the library API.

Data flows one way: ``configs/skirmish/*.toml`` -> :mod:`sim.skirmish.loader`
(validated :mod:`sim.skirmish.model`) -> :mod:`sim.skirmish.compile` (arrays)
-> :mod:`sim.kernels.skirmish` (counts) -> :mod:`sim.skirmish.api` (tidy
results) -> ``zonesim skirmish``.
"""

from sim.skirmish.api import FightResult, simulate
from sim.skirmish.loader import load_rules, load_scenario

__all__ = ["FightResult", "load_rules", "load_scenario", "simulate"]
