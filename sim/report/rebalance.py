"""``zonesim rebalance --out DIR``: the chosen edits as a folder to keep (issue 48).

The folder holds ``ruleset/`` (the scenario's ruleset with the chosen edits) and
``scenario.toml`` (the scenario on it), written and checked by
:func:`sim.workflows.rebalance_files.write_edited`, ``rebalance.csv`` (every set raced, with
its targets: :data:`sim.workflows.rebalance.ROW_COLUMNS`) and ``metadata.json`` (the whole
result and provenance). It is staged and renamed into place at once, never over an existing
folder (:func:`sim.report.writer.atomic_folder`): ``zonesim report DIR/scenario.toml
--baseline SCENARIO`` then shows everything that moved.
"""

from __future__ import annotations

from pathlib import Path

from sim.report.writer import atomic_folder, clean_json, manifest, to_csv, write_json
from sim.rules.scenario import Scenario
from sim.workflows.rebalance import Rebalance, change_lines
from sim.workflows.rebalance_files import RULESET, SCENARIO, write_edited

FILES = (RULESET, SCENARIO, "rebalance.csv", "metadata.json")
"""What the folder holds."""


def write_rebalance(result: Rebalance, scenario: Scenario, folder: Path,
                    command: list[str] | None = None) -> Path:
    """Write the folder of :mod:`this module <sim.report.rebalance>`; return where it went."""
    header = [f"Made by zonesim rebalance from {scenario.path} (seed {result.seed}); its "
              f"ruleset is {scenario.ruleset.path} with these edits:",
              *(line.strip() for line in change_lines(result.chosen))]
    with atomic_folder(folder) as staged:
        temp = staged.temp
        write_edited(scenario, result.chosen.edits, temp, header)
        to_csv(result.frame(), temp / "rebalance.csv")
        meta = manifest(command=command, **clean_json(result.to_dict()))
        meta["files"] = list(FILES)
        write_json(meta, temp / "metadata.json")
    return staged.path


__all__ = ["FILES", "write_rebalance"]
