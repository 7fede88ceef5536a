"""``python -m sim.report.ahead SCENARIO``: compile a report's kernels ahead, last section first.

:func:`sim.report.build.run_report` starts this second process (through
:func:`sim.compiling.ahead`) when its first section begins to compile. It runs
the battery's sections backwards with :data:`TRIALS` trials each, so that the
campaign kernel, the longest compile and needed last, compiles on another core
while the report compiles and runs the deck tables. A section whose kernel
the report has reached (:class:`sim.compiling.Busy`: saved, or being compiled
there), or that a later section compiled here (:func:`sim.compiling.step`: the
campaign sections after the best-play search), is left for the report, and the
section before it is tried, whose kernels may still be missing (the event
deck's while the report compiles the enemy deck's); it writes nothing but
numba's cache and prints only compile notices; if anything else fails here the
report compiles that kernel itself, so the process ends quietly.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sim import compiling
from sim.report import build
from sim.rules.scenario import Scenario, load_scenario

TRIALS = 64
"""Trials of each section here: enough for every code path of a section to run its kernels."""


def main(argv: list[str] | None = None) -> None:
    """Compile ahead the kernels of the report on the scenario file ``argv[0]``
    (:func:`compile_sections`), as the second process.
    """
    args = sys.argv[1:] if argv is None else argv
    compiling.serve()
    try:
        compile_sections(load_scenario(Path(args[0])))
    except Exception:  # the report itself compiles whatever is left
        return


def compile_sections(sc: Scenario) -> None:
    """Run the report's sections on ``sc``, last first, with :data:`TRIALS` trials, each until
    it meets a kernel the report has or an earlier section compiled here (``tests/warm.py``
    runs them too, after the suite's longest kernels).
    """
    for _name, func, trials in reversed(build.steps(TRIALS, TRIALS, sc.multiplayer)):
        try:
            with compiling.step():
                func(sc, trials, 0)
        except compiling.Busy:
            continue  # nothing to compile ahead here; an earlier section may have some


if __name__ == "__main__":
    main()
