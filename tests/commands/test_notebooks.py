"""The notebooks in notebooks/: committed without outputs, each runs and shows its key result.

Each executed notebook must hold at least one image output (its plots shown as PNG).

Each notebook is executed in a temporary copy (its outputs never touch the repository)
with a Jupyter kernel of this Python; small trial counts keep each one to seconds.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbclient  # declared test dependencies: a missing one fails the run, never skips it
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KEY_RESULTS = {
    # Appended as a last cell to the executed copy: what each notebook is there to show.
    "artifact_worth.ipynb": """
assert set(table["artifact"]) == set(rs.artifacts) and len(kept) == len(table), kept
verdicts = dict(zip(answer["artifact"], answer["enemy_deck"], strict=True))
assert verdicts["Stone blood"] == "protects", verdicts   # resists physical wounds (P-08, P-09)
games = dict(zip(answer["artifact"], answer["whole_games"], strict=True))
assert games["Stone blood"] == "helps" and games["Stone flower"] == "hurts", games  # P-09, P-43
assert paired_half < apart_half, (paired_half, apart_half)   # common random numbers pay
""",
    "campaign_balance.ipynb": """
ends = sum(e["mc"] for e in data["ends"])
assert abs(ends - 1) < 1e-9 and 0 < data["p_sarcophagus"]["mc"] < 1, data
assert data["days"]["p10"] <= data["days"]["median"] <= data["days"]["p90"]
assert len(section.tables["targets"]) >= 2
win = paired.to_frame().set_index(["variant", "metric"]).loc[
    ("Bloodsucker endurance 5", "p_sarcophagus")]
assert win["diff_ci_high"] < 0 and win["verdict"] == "worse", win   # paired, and detectable
""",
    "compare_items.ipynb": """
gain = dict(zip(avoided["variant"], avoided["diff_exact"], strict=True))
assert [n.split(" (")[0] for n in sorted(gain, key=gain.get)] == [
    "Bag of nuts", "Dosimeter", "Torsion scanner"], gain   # Z-09: +1, +2, automatic
assert all(v > 0 for v in gain.values())
assert set(armours.to_frame()["variant"]) == {"none", *rs.armor}
assert (value["price"].iloc[1:] == [a.price for a in rs.armor.values()]).all()
""",
    "tune_enemy_deck.ipynb": """
assert len(frame) == 12 and (frame["verdict"] == "PASS").any(), frame
assert edits and set(deck.to_frame()["variant"]) == {"current", "tuned"}
""",
}


def test_there_are_notebooks():
    assert {p.name for p in NOTEBOOKS} >= {"artifact_worth.ipynb", "compare_items.ipynb",
                                            "tune_enemy_deck.ipynb", "campaign_balance.ipynb"}


CELL_TIMEOUT = 1800
"""A cell's limit: a cell may compile a kernel cold (minutes at a load of 10); only a hang
reaches it."""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has outputs"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


@pytest.mark.notebook
@pytest.mark.subprocess
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    # The kernel is a child process: it finds `sim` through PYTHONPATH, keeps numba's
    # cache where the suite keeps it, and uses platformdirs (no jupyter_core warning).
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    book = nbformat.read(copy, as_version=4)
    book.cells.append(nbformat.v4.new_code_cell(KEY_RESULTS[path.name]))
    client = nbclient.NotebookClient(book, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in book.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # plots are shown as images, not as "<Figure size 700x400 with 1 Axes>"
    assert any("image/png" in o.get("data", {}) for o in outputs), path.name
    assert not any("<Figure size" in o.get("data", {}).get("text/plain", "") for o in outputs)
