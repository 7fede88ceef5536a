"""Exact twins of the stochastic kernels: closed forms and Markov chains.

Results are exact rationals (:class:`fractions.Fraction`) wherever the state
space is small, so that Monte Carlo tests compare against the truth, and the
twins themselves are checked against brute-force enumeration of dice.
"""
