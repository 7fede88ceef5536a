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


@pytest.mark.parametrize("name", sorted(golden.COMMANDS))
def test_output_is_byte_identical(name):
    assert golden.run(name) == STORED[name], (
        f"{name}: output changed; if intended, run python -m tests.golden --update")
