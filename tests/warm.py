"""``python -m tests.warm``: compile the suite's longest kernels ahead, in a second process.

``tests/conftest.py`` starts it when the whole suite starts with an empty kernel cache (CI,
the README's test command). The two pytest-xdist workers of a two-core machine would
otherwise compile the campaign and skirmish kernels (most of a minute each) inside whichever
tests reach them first, one worker waiting for the other's compile (:mod:`sim.compiling`)
or, before the locks, compiling it a second time. This process compiles them from the
start, longest first, on the CPU a waiting worker leaves, then the report's kernels last
section first; a kernel a worker has compiled or is compiling is skipped
(:class:`sim.compiling.Busy`). It writes only numba's cache, and it changes no result:
the workers load the same machine code they would compile.
"""

from __future__ import annotations

from sim import compiling

TRIALS = 64
"""Trials of each warm-up run: enough to reach every kernel, a moment to run."""


def _campaign() -> None:
    from sim.campaign.compile import compile_campaign
    from sim.experiments import campaign
    from sim.rules.scenario import load_scenario

    campaign.simulate(compile_campaign(load_scenario(None)), TRIALS, 0)


def _skirmish() -> None:
    from sim.experiments import skirmish
    from sim.rules.skirmish_loader import load_scenario

    skirmish.simulate(load_scenario(None), trials=TRIALS, seed=0)


def _report() -> None:
    from sim.report import ahead
    from sim.rules.scenario import load_scenario

    ahead.compile_sections(load_scenario(None))


def main() -> None:
    """Run each warm-up, longest compile first; skip the rest of one a worker has reached."""
    compiling.serve()
    for warm in (_campaign, _skirmish, _report):
        try:
            warm()
        except compiling.Busy:
            continue
        except Exception:  # a worker's test will compile (and report) whatever failed here
            continue


if __name__ == "__main__":
    main()
