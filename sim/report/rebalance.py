"""``zonesim rebalance``'s place in the report: its ``--out`` folder, and the report's pointer.

:func:`command_line` is the line the report's first screen adds where it flags a failed
target or a wide character spread: the ``zonesim rebalance`` command that would look for
the fewest card edits to fix them (the report does not run it).

``zonesim rebalance --out DIR``: the chosen edits as a folder to keep (issue 48).

The folder holds ``ruleset/`` (the scenario's ruleset with the chosen edits) and
``scenario.toml`` (the scenario on it), written and checked by
:func:`sim.workflows.rebalance_files.write_edited`, ``rebalance.csv`` (every set raced, with
its targets: :data:`sim.workflows.rebalance.ROW_COLUMNS`) and ``metadata.json`` (the whole
result and provenance). It is staged and renamed into place at once, never over an existing
folder (:func:`sim.report.writer.atomic_folder`): ``zonesim report DIR/scenario.toml
--baseline SCENARIO`` then shows everything that moved.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from sim.errors import visible
from sim.experiments.campaign_metrics import CHARACTER_SPREAD
from sim.paths import configs_root
from sim.report import outliers
from sim.report.tables import Section
from sim.report.writer import atomic_folder, clean_json, manifest, to_csv, write_json
from sim.rules.scenario import Scenario

if TYPE_CHECKING:
    from sim.workflows.rebalance import Rebalance

FILES = ("ruleset", "scenario.toml", "rebalance.csv", "metadata.json")
"""What the folder holds."""


def command_line(sc: Scenario, sections: Mapping[str, Section]) -> str | None:
    """The ``zonesim rebalance`` command for the targets the report fails and a wide spread.

    A scenario target whose verdict is ``FAIL`` is named as the scenario writes it; a wide
    spread of the characters' win rates (:data:`sim.report.outliers.WIDE_SPREAD`) as
    ``character_spread <= WIDE_SPREAD``. None when the report flags neither.
    """
    targets = sections.get("targets")
    frame = targets.tables.get("targets") if targets else None
    texts = [] if frame is None else [
        f"{r['metric']} in {r['low']:g}..{r['high']:g}"
        for r in frame.to_dict("records") if r["verdict"] == "FAIL"]
    chars = sections.get("characters")
    table = chars.data.get("characters") if chars else None
    found = None if table is None else outliers.spread(table.to_dict("records"))
    if found is not None and found["wide"]:
        texts.append(f"{CHARACTER_SPREAD} <= {outliers.WIDE_SPREAD:g}")
    if not texts:
        return None
    path = Path(sc.path)
    name = path.stem if path.resolve().parent == (configs_root() / "scenarios").resolve() \
        else str(path)
    command = " ".join(["zonesim rebalance", shlex.quote(visible(name, lines=False)),
                        *(f"--target {shlex.quote(t)}" for t in texts)])
    return (f"To look for the fewest card edits that fix this: {command} (the report does "
            "not run it).")


def write_rebalance(result: Rebalance, scenario: Scenario, folder: Path,
                    command: list[str] | None = None) -> Path:
    """Write the folder of :mod:`this module <sim.report.rebalance>`; return where it went."""
    from sim.workflows.rebalance import change_lines
    from sim.workflows.rebalance_files import write_edited

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


__all__ = ["FILES", "command_line", "write_rebalance"]
