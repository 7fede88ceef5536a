"""Help and output lines generated from the declarations, not written again (issue 44).

The "Variant keys:" line of each ``zonesim compare`` subcommand lists every key its
experiment's descriptor accepts (four hand-written lines omitted 17 of 65), and ``zonesim
validate``'s ok line counts every table the loader reads (a hand-written list had 10 of 12).
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments import registry
from sim.rules.schema import TABLES


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("name", registry.NAMES)
def test_compare_help_lists_every_variant_key(name):
    result = run("compare", name, "--help")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    line = text.partition("Variant keys: ")[2].partition("Metrics:")[0]
    listed = set(re.findall(r"(?:^|, )([a-z_]+)", line))
    assert set(registry.experiment(name).keys) | {"edit", "rules", "label"} <= listed


def test_validate_counts_every_table_the_loader_reads():
    result = run("validate")
    assert result.exit_code == 0, result.output
    counts = result.output.partition(": ok (")[2].rstrip().rstrip(")").split(", ")
    assert [c.split(" ", 1)[1] for c in counts] == list(TABLES)
