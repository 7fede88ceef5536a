"""``zonesim validate``: check a ruleset and print every problem at once."""

from __future__ import annotations

import click

from sim.cli import common
from sim.rules.schema import TABLES


@click.command(cls=common.Command)
@click.argument("ruleset_dir", required=False, type=click.Path())
def validate(ruleset_dir: str | None) -> None:
    """Check a ruleset folder (default: the bundled base set).

    Every problem is printed as FILE:LINE: column 'NAME': VALUE ..., all at
    once; the exit status is 2 if there is any. Without one, the ok line counts
    the cards of every table the loader reads.

    \b
    Example:
      zonesim validate configs/base
    """
    ruleset = common.load_rules_or_exit(ruleset_dir)
    counts = ", ".join(f"{len(getattr(ruleset, table))} {table}" for table in TABLES)
    click.echo(f"{common.shown_path(ruleset.path)}: ok ({counts})")
