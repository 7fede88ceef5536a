"""``--out`` as a dangling symbolic link is refused before any work (issue 43).

A link whose target does not exist passed the "never overwrite" check (the
link's target does not exist), so the command played everything and then
failed at its very end, or wrote through the link. Every command with
``--out`` a results folder (report, sweep, levers) now refuses it first: one
line naming the link and its target, exit status 2, nothing written through it.
"""

from __future__ import annotations

import os

import pytest

from tests.cli.test_cli import run

COMMANDS = {
    "report": ["report", "base", "--trials", "10", "--campaign-trials", "10"],
    "sweep": ["sweep", "--stalker", "Strelok", "--enemy", "Flesh", "--vary",
              "enemies.Flesh.endurance=1,2", "--trials", "10", "--workers", "1"],
    "levers": ["levers", "base", "--experiment", "combat", "--card", "Flesh", "--tables",
               "enemies", "--cards", "Flesh", "--trials", "10", "--workers", "1"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_dangling_out_link_is_refused(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    os.symlink(tmp_path / "gone" / "target", tmp_path / "out")

    def refuse(*args, **kwargs):
        raise AssertionError("work began before --out was checked")

    monkeypatch.setattr("sim.runner.started", refuse)
    result = run(*COMMANDS[command], "--out", "out")
    assert result.exit_code == 2, result.output
    assert (f"Invalid value for --out: out is a symbolic link to {tmp_path / 'gone' / 'target'}, "
            "which does not exist; results are never written through a link") \
        in " ".join(result.output.split())
    assert not (tmp_path / "gone").exists()
    assert os.readlink(tmp_path / "out") == str(tmp_path / "gone" / "target")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
