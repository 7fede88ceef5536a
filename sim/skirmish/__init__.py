"""Skirmish firefights (seed 003): the compile step (scenario model -> arrays).

Data flows one way: ``configs/skirmish/*.toml`` -> :mod:`sim.rules.skirmish_loader`
(validated :mod:`sim.rules.skirmish_model`) -> :mod:`sim.skirmish.compile` (arrays)
-> :mod:`sim.kernels.skirmish` (counts) -> :mod:`sim.experiments.skirmish` (tidy
results) -> ``zonesim skirmish``.
"""
