"""The ``zonesim`` command line: a thin click layer over the library.

Each command lives in its own module and only parses options, calls the
library and formats what it returns; it does no arithmetic of its own.

The commands are loaded lazily: a command's module (and with it numpy,
numba, pandas or matplotlib) is imported only when that command runs or shows
its help, so ``zonesim --help`` and every command start without paying for the
others (issue 13).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
import warnings

import click

from sim import __version__
from sim.errors import InertKeyWarning, visible
from sim.report import staging

COMMANDS: dict[str, tuple[str, str]] = {
    "anomaly": ("sim.cli.anomaly",
                "Meet one anomaly card (or every card) many times: outcome probabilities."),
    "artifacts": ("sim.cli.artifacts", "Compare each artefact with carrying none: decks and "
                  "whole games, per 1,000 rubles."),
    "balance": ("sim.cli.balance", "Character and seat balance of a multiplayer scenario (P-45)."),
    "campaign": ("sim.cli.campaign",
                 "Play whole games of a scenario: win rate, P(reach the Sarcophagus), days."),
    "combat": ("sim.cli.combat",
               "Fight one enemy card (or every card) many times: outcome probabilities."),
    "compare": ("sim.cli.compare",
                "Compare variants (loadouts, cards, card edits) on common random numbers."),
    "event": ("sim.cli.event",
              "Draw one event card (or every card) many times: outcome probabilities."),
    "explain": ("sim.cli.explain", "Explain a paired difference: where the games that changed "
                "diverged, and what followed."),
    "levers": ("sim.cli.levers",
               "Rank every numeric card value and rule key by how much one step moves a metric."),
    "optimize": ("sim.cli.optimize", "Search the scenario's policy and loadout for the best "
                 "win rate over whole games."),
    "prob": ("sim.cli.prob",
             "Exact probability, Monte Carlo estimate and 95 % interval of one dice primitive."),
    "rebalance": ("sim.cli.rebalance", "Find the fewest card edits that meet every balance "
                  "target, with honest intervals."),
    "readings": ("sim.cli.readings", "Rank the documented readings of the open rules by how "
                 "much they move the win rate."),
    "report": ("sim.cli.report",
               "Run the standard battery on a scenario and write a report folder."),
    "settings": ("sim.cli.settings", "List every setting a designer can change: type, domain, "
                 "default, value, rules."),
    "skirmish": ("sim.cli.skirmish", "Play a firefight scenario many times (S-07..S-43): wins, "
                                     "breaks, casualties, rounds."),
    "studio": ("sim.cli.studio", "Edit cards, rules and play in the browser: live paired "
               "results with intervals."),
    "sweep": ("sim.cli.sweep",
              "Vary card values over a grid and run an experiment at every point."),
    "tune": ("sim.cli.tune", "Search one card value so that a metric meets a target."),
    "validate": ("sim.cli.validate", "Check a ruleset folder (default: the bundled base set)."),
}
"""Command name -> (module defining a command of that name, its one-line help).

The one-line help is the first line of the command's docstring, kept here so
that listing the commands imports none of them; ``tests/cli/test_cli.py`` checks
that both agree."""

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""

MAX_THREADS = 1000
"""Most kernel threads ``NUMBA_NUM_THREADS`` may ask for, as many as ``--threads``: numba
starts that many threads at its first parallel kernel (tens of thousands crash it)."""

_UNWRITABLE = {errno.ENOSPC, errno.EFBIG, errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC)}
"""Why standard output may refuse a write: a full disk or device (``> /dev/full``), a file
size or quota limit, a terminal that is gone."""


def environment_problem() -> str | None:
    """What is wrong with the environment variables numba or the compiles read, or None.

    numba stops with a traceback at its first import when ``NUMBA_NUM_THREADS``
    is 0 or negative, crashes when it asks for tens of thousands of threads, and
    warns with a traceback and takes every core when it is not an integer; so
    the command line checks it before any command imports numba. The wait for
    another process's compile, ``ZONESIM_COMPILE_WAIT``, is checked with it
    (:func:`sim.compiling.wait_problem`), before any work.
    """
    from sim import compiling  # no numba: it loads with the command

    text = os.environ.get("NUMBA_NUM_THREADS")
    threads_ok = text is None
    with contextlib.suppress(ValueError):
        threads_ok = threads_ok or 1 <= int(text) <= MAX_THREADS
    if not threads_ok:
        return (f"environment variable NUMBA_NUM_THREADS={text!r} is not a number of kernel "
                f"threads from 1 to {MAX_THREADS}; set one in that range, or unset it for one "
                f"per core")
    return compiling.wait_problem()


class LazyGroup(click.Group):
    """The root group: lists :data:`COMMANDS` and imports a command's module on first use.

    Ctrl-C anywhere in a command ends it with one line on stderr and exit
    status :data:`INTERRUPTED`: kernels run in short batches
    (:mod:`sim.runner`), so the interrupt arrives within about a second, and
    results folders are written all or nothing, so none is left behind.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, sorted."""
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Import and return the command ``cmd_name`` (None if there is none)."""
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(COMMANDS[cmd_name][0])
        return getattr(module, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from :data:`COMMANDS` without importing any."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit))
                for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, *args, **kwargs):
        """Run the command line; output that cannot be written, or memory that cannot be had,
        ends it with one line.

        A full device or disk (``zonesim ... > /dev/full``), a quota or a file
        size limit on standard output gives one line on stderr and exit status
        1, no traceback (click itself handles a closed pipe); what standard
        output still buffers is dropped, or Python's flush at exit would fail
        again with a second message and exit status 120. Results folders
        name their own write faults (:class:`~sim.report.staging.WriteError`),
        so a write that fails here is the command's output. A failure to get memory
        (numba's compiler under a low ``ulimit -v``, :func:`_end_if_out_of_memory`)
        gives one line too, and exit status 1.
        """
        try:
            return super().main(*args, **kwargs)
        except Exception as error:
            if not isinstance(error, OSError) or error.errno not in _UNWRITABLE:
                _end_if_out_of_memory(error)
                raise
            where = "the output" if error.filename is None else error.filename
            click.echo(f"zonesim: cannot write {where}: {error.strerror}", err=True)
            if error.filename is None:
                # what stdout still buffers would fail again when Python flushes it at
                # exit (exit status 120 and a second message): it goes nowhere instead
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)

    def invoke(self, ctx: click.Context):
        """Run the command; Ctrl-C becomes one line and exit status 130, no traceback.

        A bad numba setting in the environment (:func:`environment_problem`)
        is refused first, with exit status 2. A scenario key that does nothing
        is one warning line on stderr (:func:`_show_inert_keys`). Every error
        message click prints (a usage error, a bad option value, a results
        folder that exists) shows
        the characters a terminal would not show as escapes
        (:func:`sim.errors.visible`): a file name given may hold an ESC.
        """
        problem = environment_problem()
        if problem is not None:
            raise click.UsageError(problem)
        try:
            with warnings.catch_warnings():
                _show_inert_keys()
                return super().invoke(ctx)
        except click.ClickException as error:
            error.message = visible(error.message)
            raise
        except KeyboardInterrupt:
            click.echo("zonesim: interrupted; nothing was written", err=True)
            sys.exit(INTERRUPTED)


def _end_if_out_of_memory(error: Exception) -> None:
    """End with one line and exit status 1 if ``error`` is a failure to get memory.

    Under a low address-space limit, numba's compiler fails with a traceback
    that does not say why (llvmlite "could not find/load" its library, as if it
    were not installed); :func:`sim.compiling.out_of_memory` says what it was,
    with the limit, and what to do.
    """
    from sim.compiling import out_of_memory  # no numba: it may be what failed to load

    line = out_of_memory(error)
    if line is not None:
        click.echo(line, err=True)
        sys.exit(1)


def _show_inert_keys() -> None:
    """Print each :class:`~sim.errors.InertKeyWarning` of the running command once, as one
    line on stderr (``zonesim: warning: FILE:LINE: key 'KEY': ...``); other warnings are
    shown as Python shows them. Called inside :func:`warnings.catch_warnings`, which
    restores both settings.
    """
    warnings.simplefilter("default", InertKeyWarning)
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, InertKeyWarning):
            click.echo(f"zonesim: warning: {visible(str(message))}", err=True)
        else:
            previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show


@click.group(cls=LazyGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="zonesim")
def main() -> None:
    """zonesim: Monte Carlo balance simulator for the Zone board game.

    Every number comes with its exact value where one exists and a 95 %
    confidence interval. Results depend only on --seed and the ruleset, never
    on the thread count.

    \b
    Example:
      zonesim validate configs/base
      zonesim prob armor --wounds 3 --resist 3 --durability 4 --tokens 3
    """
    staging.clean_left_over()  # folders of runs killed before they could clean
