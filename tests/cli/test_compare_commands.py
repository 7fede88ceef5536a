"""The ``zonesim compare`` subcommands are one loop over the experiment registry (issue 44).

The four subcommands were written out one by one, each with its own option stack; a new
encounter declared in :mod:`sim.experiments.registry` had no ``compare`` command until one
was written. Now each encounter's command is built from its descriptor: an option per
``option_keys`` (the stalker and the card it meets first), its variant keys and metrics in
the help.
"""

from __future__ import annotations

import dataclasses

import click
from click.testing import CliRunner

from sim.cli import common, main
from sim.cli import compare as cli
from sim.experiments import registry


def test_every_experiment_is_a_compare_subcommand_with_its_options():
    group = main.get_command(click.Context(main), "compare")
    assert set(registry.NAMES) <= set(group.commands)
    for exp in registry.encounters():
        params = {p.name: p for p in group.commands[exp.name].params}
        assert {common.param_of(k) for k in exp.option_keys} <= set(params), exp.name
        assert params[common.param_of(exp.card_key)].required


def test_a_new_encounter_gets_its_compare_command_from_its_descriptor():
    ambush = dataclasses.replace(registry.experiment("event"), name="ambush")
    result = CliRunner().invoke(cli.encounter_command(ambush), ["--help"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Compare ambush encounters under variants." in text
    assert "--event TEXT Event card name, or 'all' for the deck. [required]" in text
    assert all(f"--{o}" in text for o in ("stalker", "armor", "item", "health", "variant"))
    assert f"Metrics: {', '.join(m.name for m in ambush.metrics)}." in text
