"""Plain-Python reference implementations: the readable, executable spec.

They roll dice one by one with :class:`random.Random`, favour clarity over
speed, share no code with the kernels, and serve two purposes: tests check
them against the exact twins, and benchmarks measure the kernels' speed-up
against them in the same run.
"""
