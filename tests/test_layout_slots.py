"""Every declared slot of a packed parameter record is written by a compile step and read
by a kernel (issue 28, section 1: "a test asserts that every declared slot is written by
the compile step and read by a kernel").

A static check over the source text, with :mod:`ast`: the encounter params layouts of
``sim/kernels/layout.py`` (``P_*`` combat, ``A_*`` anomaly, ``E_*`` event, ``AF_*``
artefact records) and the campaign's scalar parameters (``C_*`` of
``sim/kernels/campaign.py``). A slot is *written* where it indexes the target of an
assignment in ``sim/encounter/`` or ``sim/campaign/`` (``params[P_HEALTH] = ...``,
``out[rec + S.AF_VALUE] = ...``) or keys the dict the campaign compile packs
(``K.C_HEALTH: stalker.health``), and *read* where it indexes a loaded value in
``sim/kernels/`` (``params[P_HEALTH]``). The ``*_SIZE`` names are lengths, not slots.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[1] / "sim"
COMPILE_SOURCES = sorted((SIM / "encounter").glob("*.py")) + sorted((SIM / "campaign").glob("*.py"))
KERNEL_SOURCES = sorted((SIM / "kernels").glob("*.py"))

LAYOUTS = {
    "combat (P_*)": (SIM / "kernels" / "layout.py", "P_"),
    "anomaly (A_*)": (SIM / "kernels" / "layout.py", "A_"),
    "event (E_*)": (SIM / "kernels" / "layout.py", "E_"),
    "artefact records (AF_*)": (SIM / "kernels" / "layout.py", "AF_"),
    "campaign parameters (C_*)": (SIM / "kernels" / "campaign.py", "C_"),
}


def constants(path: Path, prefix: str) -> dict[str, int]:
    """The module-level integer constants of ``path`` named ``prefix...``, in source order."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if (isinstance(target, ast.Name) and target.id.startswith(prefix)
                        and isinstance(node.value.value, int)):
                    found[target.id] = node.value.value
    return found


def declared(path: Path, prefix: str) -> list[str]:
    """The slots of the layout ``prefix...`` in ``path``: its constants but the size."""
    return [name for name in constants(path, prefix) if name != prefix + "SIZE"]


def _names_in(node: ast.AST) -> set[str]:
    """Every plain or dotted name in ``node`` (``P_HEALTH``, ``S.P_HEALTH`` -> ``P_HEALTH``)."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
    return found


def written(source: str) -> set[str]:
    """Names that index an assignment's target, or key a dict, in ``source``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            found |= _names_in(node.slice)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Name | ast.Attribute):
                    found |= _names_in(key)
    return found


def read(source: str) -> set[str]:
    """Names that index a value loaded (not assigned) in ``source``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            found |= _names_in(node.slice)
    return found


def _over(paths: list[Path], find) -> set[str]:
    return set().union(*(find(path.read_text()) for path in paths))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_slot_is_written_by_a_compile_step_and_read_by_a_kernel(layout):
    path, prefix = LAYOUTS[layout]
    slots = declared(path, prefix)
    assert len(slots) >= 8  # the layout was found
    packed, unpacked = _over(COMPILE_SOURCES, written), _over(KERNEL_SOURCES, read)
    unwritten = [s for s in slots if s not in packed]
    unread = [s for s in slots if s not in unpacked]
    assert not unwritten, f"{layout}: declared but written by no compile step: {unwritten}"
    assert not unread, f"{layout}: declared but read by no kernel: {unread}"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_slots_are_numbered_without_holes_and_the_size_counts_them(layout):
    """Slot ``k`` of the source order has index ``k``, and ``*_SIZE`` is their number: no
    index is left unused (as the event's slot 2 was) or given twice."""
    path, prefix = LAYOUTS[layout]
    values = constants(path, prefix)
    size = values.pop(prefix + "SIZE")
    assert list(values.values()) == list(range(size)), values


def test_the_slots_just_added_for_best_play_are_seen():
    """The plan's slots are written in ``sim/encounter/plan.py`` and ``spec.py`` and read
    in ``sim/kernels/combat.py``: the check finds them where they are."""
    new = {"P_PLAN_STAGE", "P_PLAN_OTHER", "P_PLAN_COUNTS", "P_N_COMBAT_ART", "P_SNEAK_ARTS"}
    assert new <= set(declared(SIM / "kernels" / "layout.py", "P_"))
    assert new <= _over([SIM / "encounter" / "plan.py", SIM / "encounter" / "spec.py"], written)
    assert new <= read((SIM / "kernels" / "combat.py").read_text())


def test_a_dead_slot_would_be_caught():
    """Guard: a slot only packed (as ``C_SUCCESS_ON`` was), or only assigned in a kernel,
    or only compared with, is neither read nor written."""
    compile_step = "values = {K.C_REPUTATION: stalker.reputation, K.C_SUCCESS_ON: 5}\n" \
                   "params[P_HEALTH] = 3\nout[rec + S.AF_VALUE], out[S.P_PLAN] = 1, 2\n"
    kernel = "x = cp[C_REPUTATION] + params[base + AF_VALUE]\nparams[P_HEALTH] = 0\n" \
             "if index == P_PLAN:\n    pass\n"
    packed = written(compile_step)
    assert {"C_REPUTATION", "C_SUCCESS_ON", "P_HEALTH", "AF_VALUE", "P_PLAN"} <= packed
    assert {"C_REPUTATION", "AF_VALUE"} <= read(kernel)
    assert not {"C_SUCCESS_ON", "P_HEALTH", "P_PLAN"} & read(kernel)
    assert not {"C_REPUTATION", "AF_VALUE"} & written(kernel)
