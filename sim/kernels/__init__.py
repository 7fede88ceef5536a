"""numba kernels: pure array functions, no I/O, no parsing, no Python objects.

Every kernel draws its random numbers from :mod:`sim.kernels.rng` streams
keyed by (seed, trial index, purpose) and aggregates counts in place, so that
results are bit-identical for any thread count or chunk size and memory does
not grow with the number of trials.
"""
