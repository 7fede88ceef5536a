"""The notebooks in notebooks/: committed without outputs, and each one runs top to bottom.

Each notebook is executed in a temporary copy (its outputs never touch the repository)
with a Jupyter kernel of this Python; small trial counts keep each one to seconds.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
NEEDS = {"campaign_balance.ipynb": "sim.experiments.campaign"}


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"compare_items.ipynb", "tune_enemy_deck.ipynb",
                                            "campaign_balance.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has outputs"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    if path.name in NEEDS:
        pytest.importorskip(NEEDS[path.name],
                            reason=f"{path.name} needs {NEEDS[path.name]} (the campaign API)")
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    # The kernel is a child process: it finds `sim` through PYTHONPATH, keeps numba's
    # cache where the suite keeps it, and uses platformdirs (no jupyter_core warning).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    book = nbformat.read(copy, as_version=4)
    client = nbclient.NotebookClient(book, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in book.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
