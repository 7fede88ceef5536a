"""Workflows over experiments: compare (common random numbers), sweep, tune, targets.

:mod:`~sim.workflows.compare` is a framework: it runs whatever
:class:`~sim.experiments.base.Experiment` it is handed and imports none.
"""
