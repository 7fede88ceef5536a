"""The kernel's battlefield fight against its plain-Python twin (issue 50, item 3).

:mod:`sim.reference.skirmish_field` plays a whole battlefield fight in plain Python on
the reference geometry (wall segments), independent of the kernel's numba functions.
On both bundled battlefields the kernel's distribution of the winner and of each
side's casualties must agree with the reference's: every cell's two-sample |z| below
``Z_TOL`` (4.5), the reference on other trials (seed + 1) than the kernel. Guard: a
reference that ignores S-23 (a line across 2 units of cover is fired along) disagrees.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.experiments import skirmish as api
from sim.kernels import skirmish as k
from sim.reference import skirmish_field as ref
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario
from tests.conftest import Z_TOL

KERNEL_TRIALS = 40_000
REFERENCE_TRIALS = 300
SEED = 2026


def _cells(row: np.ndarray, n0: int, n1: int, max_rounds: int) -> dict[str, np.ndarray]:
    shot0, shot1, lost0, _, _, _ = k.row_layout(n0, n1, max_rounds)
    return {"outcome": np.array([row[k.O_WIN], row[k.O_WIN + 1], row[k.O_DRAW]]),
            "casualties 0": row[shot0:shot1], "casualties 1": row[shot1:lost0]}


def _worst_z(scenario, reference_row: np.ndarray, n_ref: int) -> float:
    """The largest two-sample |z| over the outcome and casualty cells."""
    fight = compile_scenario(scenario)
    n0, n1 = fight.sizes
    rounds = int(fight.params[k.P_MAX_ROUNDS])
    kernel = _cells(api.fight_counts(fight, trials=KERNEL_TRIALS, seed=SEED), n0, n1, rounds)
    twin = _cells(reference_row, n0, n1, rounds)
    worst = 0.0
    for name, counts in kernel.items():
        p_k = counts / KERNEL_TRIALS
        p_r = twin[name] / n_ref
        pooled = (counts + twin[name]) / (KERNEL_TRIALS + n_ref)
        se = np.sqrt(pooled * (1 - pooled) * (1 / KERNEL_TRIALS + 1 / n_ref))
        z = np.where(se > 0, np.abs(p_r - p_k) / np.where(se > 0, se, 1), 0.0)
        worst = max(worst, float(z.max()))
    return worst


@pytest.mark.parametrize("name", ["street_buildings", "field_cover"])
def test_the_kernel_plays_the_reference_fight(name):
    scenario = load_scenario(f"configs/skirmish/{name}.toml")
    row = ref.run_field_reference(scenario, SEED + 1, REFERENCE_TRIALS)
    assert row[k.O_WIN] + row[k.O_WIN + 1] + row[k.O_DRAW] == REFERENCE_TRIALS
    assert _worst_z(scenario, row, REFERENCE_TRIALS) < Z_TOL


def test_a_reference_that_ignores_the_two_unit_block_disagrees(monkeypatch):
    """Guard: S-23 off in the twin only (no line is too covered to fire along)."""
    scenario = load_scenario("configs/skirmish/field_cover.toml")
    real = ref.FieldFight.__init__

    def blind(self, *args, **kwargs):
        real(self, *args, **kwargs)
        self.block = 99

    monkeypatch.setattr(ref.FieldFight, "__init__", blind)
    row = ref.run_field_reference(scenario, SEED + 1, REFERENCE_TRIALS)
    assert _worst_z(scenario, row, REFERENCE_TRIALS) > Z_TOL


@pytest.mark.parametrize("name", ["street_buildings", "field_cover", "round", "stop"])
def test_the_kernel_equals_the_reference_fight_for_fight(name, tmp_path):
    """Both draw from the same streams, so on the same trials the counts are bit-identical
    (also for a bandit going round a block, ``battlefield.walls``, and one stopped by it)."""
    if name in ("round", "stop"):
        from tests.skirmish.test_skirmish_walls import STUCK
        path = tmp_path / f"{name}.toml"
        path.write_text(STUCK.format(walls=name))
    else:
        path = f"configs/skirmish/{name}.toml"
    scenario = load_scenario(path)
    row = ref.run_field_reference(scenario, 5, 150)
    kernel = api.fight_counts(compile_scenario(scenario), trials=150, seed=5)
    assert np.array_equal(row, kernel[:len(row)])
