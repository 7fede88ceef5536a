"""Every command's output on the bundled configs is byte-identical to tests/golden/outputs.json.

A refactor changes no number; a change that means to move numbers regenerates the
file with ``python -m tests.golden --update`` so the diff shows what moved
(see tests/golden/__init__.py).
"""

from __future__ import annotations

import json

import pytest

from tests import golden

STORED = json.loads(golden.GOLDEN.read_text())


def test_golden_file_covers_every_command():
    assert sorted(STORED) == sorted(golden.COMMANDS)


def test_every_zonesim_command_is_in_the_golden_file_or_left_out_with_a_reason():
    """Issue 45, item 5: the file covered 11 of the commands; a new command is added here
    (additively: no stored output changes) or named in ``LEFT_OUT`` with its reason."""
    import click

    from sim.cli import main

    commands = set(main.list_commands(click.Context(main)))
    covered = {argv[0] for argv in golden.COMMANDS.values()}
    assert sorted(commands - covered) == sorted(golden.LEFT_OUT)
    assert not set(golden.LEFT_OUT) & covered


@pytest.mark.parametrize("name", sorted(golden.COMMANDS))
def test_output_is_byte_identical(name):
    assert golden.run(name) == STORED[name], (
        f"{name}: output changed; if intended, run python -m tests.golden --update")
