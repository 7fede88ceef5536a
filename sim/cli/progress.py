"""Progress on stderr: a tqdm bar with the time left, for runs that last more than a moment.

The library reports kernel runs batch by batch (:func:`sim.runner.reporting`);
a :class:`Bar` turns that into one tqdm bar on stderr. It is silent when
stderr is not a terminal or with ``--quiet``, and it never writes to stdout,
so ``--format json`` stays parseable. A bar shows only once a run has lasted
:data:`DELAY` seconds, so quick commands print nothing, and it is erased when
the run ends, so nothing of it is left between the command's own lines.
"""

from __future__ import annotations

import sys

DELAY = 2.0
"""Seconds a run must last before its bar appears (runs expected to be shorter show none)."""


class Bar:
    """One progress bar for a command; every method is a no-op when ``enabled`` is false.

    The bar counts trials. A command that knows how many trials it will run
    in all declares them with :meth:`expect`, and its kernel runs then share
    one bar whose estimate covers the whole command; otherwise each kernel run
    gets a bar of its own. :meth:`points` drives a bar over units the library
    counts itself (the points of a sweep), and :meth:`note` prints a line
    without tearing a bar that is on screen.

    Parameters
    ----------
    label : str
        Shown before the bar (the command's name).
    enabled : bool
        Whether to show anything at all.
    """

    def __init__(self, label: str, enabled: bool) -> None:
        self.label = label
        self.enabled = enabled
        self._bar = None
        self._expected = 0

    def expect(self, trials: int) -> None:
        """Declare that the command will run ``trials`` trials in all (one bar for all runs)."""
        self._expected = trials

    def started(self, trials: int) -> None:
        """A kernel run of ``trials`` trials begins (:class:`sim.runner.Progress`)."""
        if not self.enabled:
            return
        if self._bar is not None and self._bar.n + trials <= self._bar.total:
            return
        self.close()
        self._bar = self._new(max(trials, self._expected), "trial")

    def advanced(self, trials: int) -> None:
        """``trials`` more trials are done (:class:`sim.runner.Progress`)."""
        if self._bar is not None:
            self._bar.update(trials)
            if self._bar.n >= self._bar.total:  # erased before the command prints its result
                self.close()

    def points(self, done: int, total: int) -> None:
        """``done`` of ``total`` points of a grid are finished."""
        if not self.enabled:
            return
        if self._bar is None or self._bar.total != total or self._bar.unit != "point":
            self.close()
            self._bar = self._new(total, "point")
        self._bar.update(done - self._bar.n)
        if done >= total:
            self.close()

    def note(self, line: str) -> None:
        """Print ``line`` on stderr (if enabled), after erasing a bar that is showing.

        Notes mark a new stage (a report's section), so the next kernel run
        starts a fresh bar below them.
        """
        if not self.enabled:
            return
        self.close()
        print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Erase the bar, if one is showing."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def _new(self, total: int, unit: str):
        from tqdm import tqdm  # only when a bar may be shown: keeps quiet runs' start fast

        return tqdm(total=total, desc=self.label, unit=unit, unit_scale=unit == "trial",
                    file=sys.stderr, delay=DELAY, leave=False, dynamic_ncols=True,
                    mininterval=0.5)
