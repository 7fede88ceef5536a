"""zonesim: Monte Carlo balance simulator for a S.T.A.L.K.E.R.-themed board game.

Data flows one way: ruleset files -> validated model (:mod:`sim.rules`) ->
compiled arrays -> numba kernels (:mod:`sim.kernels`) -> aggregated counts ->
pandas tables (:mod:`sim.runner`, :mod:`sim.stats`) -> CLI (:mod:`sim.cli`).
Every stochastic kernel has an exact twin in :mod:`sim.exact`.
"""

__version__ = "0.1.0"
