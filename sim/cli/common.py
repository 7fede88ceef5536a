"""Options and helpers shared by all commands: ruleset loading, output formats."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import click
import pandas as pd

from sim.paths import resolve_ruleset
from sim.rules import Ruleset, RulesetError, load_ruleset

FORMATS = ("table", "json", "csv")
DEFAULT_TRIALS = 1_000_000
DEFAULT_SEED = 20261129
MAX_TRIALS = 10**12
"""Most trials one command runs: hours of kernel time already, and far inside int64."""
MAX_SMALL = 1000
"""Bound of every other integer option (Health, thresholds, dice, workers, threads)."""


def small_int(low: int = 0) -> click.IntRange:
    """An integer option from ``low`` to :data:`MAX_SMALL`, so kernels never see an overflow."""
    return click.IntRange(min=low, max=MAX_SMALL)


def trials_option(default: int = DEFAULT_TRIALS) -> Callable:
    """``--trials N``: number of Monte Carlo trials."""
    return click.option("--trials", type=click.IntRange(min=1, max=MAX_TRIALS), default=default,
                        show_default=True,
                        help=f"Number of Monte Carlo trials (at most {MAX_TRIALS:.0e}).")


def seed_option(func: Callable) -> Callable:
    """``--seed S``: the run seed; same seed and ruleset give bit-identical results."""
    return click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1),
                        default=DEFAULT_SEED, show_default=True,
                        help="Random seed (results are bit-identical for a seed).")(func)


def threads_option(func: Callable) -> Callable:
    """``--threads K``: kernel threads; never changes a result."""
    return click.option("--threads", type=small_int(1), default=None,
                        help="Threads for the kernels (default: all cores). "
                             "Results do not depend on it.")(func)


def rules_option(func: Callable) -> Callable:
    """``--rules DIR``: the ruleset folder (default: the bundled base set)."""
    return click.option("--rules", "rules_dir", type=click.Path(), default=None,
                        help="Ruleset folder, or a bundled ruleset's name (default: base); "
                             "write ./base for a local folder of that name.")(func)


def format_option(func: Callable) -> Callable:
    """``--format table|json|csv``."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True, help="Output format.")(func)


def load_rules_or_exit(path: str | Path | None) -> Ruleset:
    """Load a ruleset; on problems print every one of them and exit with status 2."""
    try:
        return load_ruleset(resolve_ruleset(path))
    except RulesetError as error:
        exit_with_problems(error)


def exit_with_problems(error: RulesetError) -> NoReturn:
    """Print every problem of a ruleset or scenario and exit with status 2 (no traceback)."""
    report_problems(error)
    sys.exit(2)


def report_problems(error: RulesetError) -> None:
    """Print each ruleset problem on its own line to stderr, then a count."""
    for problem in error.problems:
        click.echo(str(problem), err=True)
    n = len(error.problems)
    click.echo(f"zonesim: {n} problem{'s' if n != 1 else ''} in the ruleset", err=True)


@contextmanager
def writing_results() -> Iterator[None]:
    """Run a command that writes a results folder: file-system faults and stop signals
    become one line, with nothing left behind.

    A :class:`~sim.report.staging.WriteError` (read-only folder, permission
    denied, disk full) exits with status 1; SIGTERM or SIGHUP exit with
    128 + the signal number, after the temporary folder is removed.
    """
    from sim.report import staging

    try:
        with staging.stop_on_signals():
            yield
    except staging.WriteError as error:
        raise click.ClickException(str(error)) from None
    except staging.Stopped as stop:
        click.echo(f"zonesim: {stop}; no results folder was written", err=True)
        sys.exit(128 + stop.signum)


def _clean(value):
    """JSON-safe scalars: numpy types to Python, NaN to null."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def dumps(obj) -> str:
    """JSON text of a result dictionary (numpy scalars converted)."""
    return json.dumps(obj, indent=2, default=_clean)


def emit_frame(frame: pd.DataFrame, fmt: str, json_obj: dict, title: str = "",
               table: pd.DataFrame | None = None) -> None:
    """Print a result as an aligned table, CSV, or the command's JSON document.

    ``table`` is an optional readable version of ``frame`` for the table format.
    """
    if fmt == "json":
        click.echo(dumps(json_obj))
    elif fmt == "csv":
        click.echo(frame.to_csv(index=False, float_format="%.6g"), nl=False)
    else:
        if title:
            click.echo(title)
        shown = frame if table is None else table
        click.echo(shown.to_string(index=False, float_format=lambda x: f"{x:.6f}"))
