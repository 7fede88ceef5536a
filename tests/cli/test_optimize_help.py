"""``zonesim optimize --help`` names every key the search changes (issue 44).

Its prose listed 10 of the 13 ``[policy]`` keys the search changes (not ``exchange``,
``sell_trophies_at``, ``artifact_use``); it is now written from the search's keys
(:func:`sim.workflows.policy_space.in_words`), which the table of settings gives.
"""

from __future__ import annotations

from click.testing import CliRunner

from sim.cli import main
from sim.rules import settings


def test_the_help_prose_names_every_searched_key_with_its_values():
    result = CliRunner().invoke(main, ["optimize", "--help"])
    assert result.exit_code == 0, result.output
    prose = " ".join(result.output.partition("Example:")[0].split())
    searched = [s.name.partition(".")[2] for s in settings.settings() if s.searched is True]
    assert len(searched) == 17
    assert [k for k in searched if k not in prose] == []
    assert "exchange: false or true" in prose
    assert "sell_trophies_at: 0 to 3 lots of mutant trophies" in prose
