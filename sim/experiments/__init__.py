"""Experiments: one module per experiment simulates, summarises and names its metrics once.

``primitives`` (dice primitives), ``combat``, ``anomaly``, ``event``,
``campaign`` (+ ``campaign_paired``) and ``skirmish`` run compiled specs
and arrays through the kernels and shape tidy results; ``registry`` lists the
experiments that compare, sweep, tune and report run by name. ``base`` holds
their shared types and ``paired`` the common-random-numbers plumbing of the
encounter experiments; ``tables`` shapes result cells.
"""
