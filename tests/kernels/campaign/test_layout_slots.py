"""Every declared slot of a packed record is written where the record is filled and read by a
kernel (issue 28, section 1: "a test asserts that every declared slot is written by the
compile step and read by a kernel").

The records are read from their declarations (:class:`sim.kernels.records.Record`): the
encounter parameters of ``sim/kernels/layout.py`` (``COMBAT`` ``P_*``, ``ANOMALY`` ``A_*``,
``EVENT`` ``E_*``, ``ARTEFACT`` ``AF_*``) and the result fields of the fight, anomaly and
event kernels (``RESULT`` ``R_*`` of ``sim/kernels/combat.py``, ``anomaly.py``,
``event.py``) and the campaign's scalar parameters (``PARAMETERS`` ``C_*`` of
``sim/kernels/campaign/__init__.py``, whose other layouts are records too).

A static check over the source text, with :mod:`ast`. A parameter slot is *written* where
it names a slot of the packing helper (``COMBAT.pack(P_HEALTH=...)``), indexes the target
of an assignment (``params[P_HEALTH] = ...``) or keys the dict the campaign compile packs
(``K.C_HEALTH: stalker.health``) in ``sim/encounter/`` or ``sim/campaign/``; a result field
is written where it indexes an assignment's target in ``sim/kernels/`` (the kernel fills
its result). A slot is *read* where it indexes a loaded value in ``sim/kernels/``
(``params[S.P_HEALTH]``, ``fres[F.R_OUTCOME]``). Sizes are lengths, not slots.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from sim.campaign.compile import PLAIN_COPIES
from sim.experiments import anomaly as anomaly_experiment
from sim.experiments import combat as combat_experiment
from sim.experiments import event as event_experiment
from sim.experiments.paired import in_columns
from sim.kernels import anomaly, combat, event, layout, paired, skirmish_layout
from sim.kernels import campaign as K
from sim.kernels.records import Record

SIM = Path(__file__).resolve().parents[3] / "sim"
COMPILE_SOURCES = sorted((SIM / "encounter").glob("*.py")) + sorted((SIM / "campaign").glob("*.py"))
KERNEL_SOURCES = sorted((SIM / "kernels").rglob("*.py"))

PARAMETERS = {
    "combat (P_*)": layout.COMBAT_PARAMS,
    "anomaly (A_*)": layout.ANOMALY_PARAMS,
    "event (E_*)": layout.EVENT_PARAMS,
    "artefact records (AF_*)": layout.ARTEFACT,
}
RESULTS = {
    "fight results (combat R_*)": combat,
    "anomaly results (anomaly R_*)": anomaly,
    "event results (event R_*)": event,
}


CAMPAIGN_SLOTS = K.PARAMETERS.slots


def _names_in(node: ast.AST) -> set[str]:
    """Every plain or dotted name in ``node`` (``P_HEALTH``, ``S.P_HEALTH`` -> ``P_HEALTH``)."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
    return found


def stored(source: str) -> set[str]:
    """Names that index an assignment's target in ``source``."""
    return set().union(*(_names_in(node.slice) for node in ast.walk(ast.parse(source))
                         if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)))


def written(source: str) -> set[str]:
    """Names a compile step writes in ``source``: assignment indices, keywords of a call (the
    packing helper's slot names) and dict keys."""
    found = stored(source)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            found |= {kw.arg for kw in node.keywords if kw.arg is not None}
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Name | ast.Attribute):
                    found |= _names_in(key)
    return found


def read(source: str) -> set[str]:
    """Names that index a value loaded (not assigned) in ``source``."""
    return set().union(*(_names_in(node.slice) for node in ast.walk(ast.parse(source))
                         if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)))


def _over(paths: list[Path], find) -> set[str]:
    return set().union(*(find(path.read_text()) for path in paths))


def result_uses(module) -> tuple[set[str], set[str]]:
    """The fields of ``module.RESULT`` that kernels write and read: ``RESULT.R_LOST`` in the
    module itself, ``alias.R_LOST`` where a kernel imports it as ``alias`` (``_event``), so
    that the event's ``R_LOST`` is not taken for the anomaly's."""
    own = module.__name__.rsplit(".", 1)[1]
    writes: set[str] = set()
    reads: set[str] = set()
    for path in KERNEL_SOURCES:
        tree = ast.parse(path.read_text())
        aliases = {"RESULT"} if path.stem == own else set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "sim.kernels":
                aliases |= {a.asname or a.name for a in node.names if a.name == own}
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript):
                fields = {sub.attr for sub in ast.walk(node.slice)
                          if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                          and sub.value.id in aliases}
                (writes if isinstance(node.ctx, ast.Store) else reads).update(fields)
    return writes, reads


PACKED = _over(COMPILE_SOURCES, written) | {s.slot for s in PLAIN_COPIES}
"""The slots a compile step writes: by name in its source, or as the slot a setting of the
table names (:data:`sim.campaign.compile.PLAIN_COPIES`, packed by ``plain_copies``)."""
UNPACKED = _over(KERNEL_SOURCES, read)


def unchecked(slots, writes: set[str], reads: set[str]) -> tuple[list[str], list[str]]:
    """The slots of ``slots`` that nothing writes, and those that nothing reads."""
    return [s for s in slots if s not in writes], [s for s in slots if s not in reads]


@pytest.mark.parametrize("record", PARAMETERS)
def test_every_parameter_slot_is_written_by_a_compile_step_and_read_by_a_kernel(record):
    unwritten, unread = unchecked(PARAMETERS[record].slots, PACKED, UNPACKED)
    assert not unwritten, f"{record}: declared but written by no compile step: {unwritten}"
    assert not unread, f"{record}: declared but read by no kernel: {unread}"


@pytest.mark.parametrize("record", RESULTS)
def test_every_result_field_is_written_and_read_by_a_kernel(record):
    module = RESULTS[record]
    unwritten, unread = unchecked(module.RESULT.slots, *result_uses(module))
    assert not unwritten, f"{record}: declared but written by no kernel: {unwritten}"
    assert not unread, f"{record}: declared but read by no kernel: {unread}"


SKIRMISH = {"figures (F_*)": skirmish_layout.FIGURE, "groups (G_*)": skirmish_layout.GROUP,
            "rule options (P_*)": skirmish_layout.PARAMS}


@pytest.mark.parametrize("record", SKIRMISH)
def test_every_skirmish_slot_is_written_by_its_compile_step_and_read_by_its_kernel(record):
    """The firefight's static arrays (seed 003): packed by sim/skirmish, read by the kernel."""
    writes = _over(sorted((SIM / "skirmish").glob("*.py")), written)
    reads = _over([SIM / "kernels" / "skirmish.py"], read)
    unwritten, unread = unchecked(SKIRMISH[record].slots, writes, reads)
    assert not unwritten, f"skirmish {record}: declared but written by no compile step: {unwritten}"
    assert not unread, f"skirmish {record}: declared but read by no kernel: {unread}"


def test_every_campaign_parameter_is_written_by_the_compile_step_and_read_by_the_kernel():
    assert len(CAMPAIGN_SLOTS) >= 8
    unwritten, unread = unchecked(CAMPAIGN_SLOTS, PACKED, UNPACKED)
    assert not unwritten, f"campaign (C_*): declared but written by no compile step: {unwritten}"
    assert not unread, f"campaign (C_*): declared but read by no kernel: {unread}"


CAMPAIGN_RECORDS = {name: value for name, value in vars(K).items() if isinstance(value, Record)}


@pytest.mark.parametrize("record", CAMPAIGN_RECORDS)
def test_the_campaign_layouts_are_generated_from_their_declarations(record):
    """``K.S_HEALTH`` is the place of ``"S_HEALTH"`` in ``SEAT_STATE``: every campaign
    constant of a record is the record's own (no hand-numbered copy left beside it)."""
    rec = CAMPAIGN_RECORDS[record]
    for name, value in rec.constants.items():
        assert getattr(K, name) == value, name
    assert list(rec.index.values()) == sorted(rec.index.values())
    assert rec.size > max(rec.index.values())


def test_the_campaign_result_and_count_records_follow_one_another():
    """The count columns begin where the end codes stop, the game's result columns where the
    one-stalker columns stop, and the seats' block is ``SEAT_COLS`` wide per seat."""
    assert K.SUMS.start == K.ENDS.size and K.GAME.start == K.ONE_STALKER.size
    assert K.G_ART_USES - K.G_SEATS == K.SEAT_COLS * K.MAX_PLAYERS
    assert K.MP_DEATHS - K.MP_WINS == K.MAX_PLAYERS


DECLARED = {**{name: (layout, rec) for name, rec in PARAMETERS.items()},
            **{name: (module, module.RESULT) for name, module in RESULTS.items()}}


@pytest.mark.parametrize("record", DECLARED)
def test_the_module_constants_are_generated_from_the_declaration(record):
    """``layout.P_HEALTH`` is the place of ``"P_HEALTH"`` in ``COMBAT`` and ``layout.P_SIZE``
    its length (numba reads them as module integers); the record's attributes agree."""
    module, rec = DECLARED[record]
    assert len(rec.slots) >= 8
    for k, name in enumerate(rec.slots):
        assert getattr(module, name) == getattr(rec, name) == k
    assert getattr(module, rec.size_name) == rec.size == len(rec.slots)


ENCOUNTER_KERNELS = {"combat": combat, "anomaly": anomaly, "event": event}


@pytest.mark.parametrize("kernel", ENCOUNTER_KERNELS)
def test_the_encounter_count_columns_are_generated_from_their_declarations(kernel):
    """An encounter kernel's outcome is a code and a column at once: ``OUTCOME`` gives both
    (``combat.KNOCKED_OUT`` is the code fight() writes and the column that counts it), the
    count columns (``SUMS``) begin where the outcomes end, and every module constant is the
    records' own (no hand-numbered copy beside them)."""
    module = ENCOUNTER_KERNELS[kernel]
    assert module.OUTCOME.start == 0 and module.SUMS.start == module.OUTCOME.size
    assert module.N_OUTCOMES == len(module.OUTCOME.slots) >= 3
    for rec in (module.OUTCOME, module.SUMS):
        for name, value in rec.constants.items():
            assert getattr(module, name) == getattr(rec, name) == value, name


def test_the_paired_metric_columns_begin_after_each_kernels_outcomes():
    """The paired kernels' metric columns: each kernel's outcome indicators (its ``OUTCOME``
    columns), then its own metrics, generated from the records."""
    for metrics, kernel in ((paired.COMBAT_METRIC, combat), (paired.ANOMALY_METRIC, anomaly),
                            (paired.EVENT_METRIC, event)):
        assert metrics.start == kernel.N_OUTCOMES
        for name, value in metrics.constants.items():
            assert getattr(paired, name) == value, name
    assert [getattr(paired, name) for name in paired.AGGREGATE.constants] == [0, 1, 2, 3, 4]


def test_the_experiments_read_their_metrics_from_the_kernel_columns_by_name():
    """Each experiment's metric tuple is in its paired kernel's column order, declared by
    column name; a column left without a metric, or a metric of no column, is refused."""
    for experiment, kernel, column, name in (
            (combat_experiment.COMBAT_METRICS, combat, paired.C_WOUNDS, "mean_wounds"),
            (anomaly_experiment.ANOMALY_METRICS, anomaly, paired.A_TROPHY, "trophy"),
            (event_experiment.EVENT_METRICS, event, paired.E_PSI, "psi")):
        assert experiment[kernel.KNOCKED_OUT].name == "knocked_out"
        assert experiment[column].name == name
    declared = dict(zip((*combat.OUTCOME.slots, *paired.COMBAT_METRIC.slots),
                        combat_experiment.COMBAT_METRICS, strict=True))
    assert in_columns(combat.OUTCOME, paired.COMBAT_METRIC, declared) == \
        combat_experiment.COMBAT_METRICS
    with pytest.raises(ValueError, match="columns are"):
        in_columns(combat.OUTCOME, paired.COMBAT_METRIC,
                   {k: m for k, m in declared.items() if k != "C_SPENT"})
    with pytest.raises(ValueError, match="columns are"):
        in_columns(anomaly.OUTCOME, paired.COMBAT_METRIC, declared)


def test_the_slots_of_the_plan_are_seen():
    """The plan's slots are packed by name in ``sim/encounter/plan.py`` and read in
    ``sim/kernels/combat.py``: the check finds them where they are."""
    new = {"P_PLAN_STAGE", "P_PLAN_OTHER", "P_PLAN_COUNTS", "P_N_COMBAT_ART", "P_SNEAK_ARTS"}
    assert new <= set(layout.COMBAT_PARAMS.slots)
    assert new <= _over([SIM / "encounter" / "plan.py", SIM / "encounter" / "spec.py"], written)
    assert new <= read((SIM / "kernels" / "combat.py").read_text())


def test_a_slot_nobody_reads_would_be_caught():
    """Guard: a combat record with one slot more, packed by name but read by no kernel,
    fails the check on that slot, and only on it."""
    grown = Record("combat parameters", "P_SIZE", (*layout.COMBAT_PARAMS.slots, "P_NOBODY_READS"))
    packer = "params = S.COMBAT_PARAMS.pack(P_HEALTH=spec.health, P_NOBODY_READS=1)\n"
    unwritten, unread = unchecked(grown.slots, PACKED | written(packer), UNPACKED)
    assert unwritten == [] and unread == ["P_NOBODY_READS"]
    unwritten, unread = unchecked(grown.slots, PACKED, UNPACKED)
    assert unwritten == ["P_NOBODY_READS"]


def test_a_result_field_nobody_reads_would_be_caught():
    """Guard: an event result with one field more, filled by the event kernel but read by
    none, fails the check on it; the anomaly's fields of the same names do not count."""
    grown = Record("event results", "RESULT_SIZE", (*event.RESULT.slots, "R_NOBODY_READS"))
    writes, reads = result_uses(event)
    assert unchecked(grown.slots, writes | {"R_NOBODY_READS"}, reads) == ([], ["R_NOBODY_READS"])
    _, anomaly_reads = result_uses(anomaly)
    assert "R_FOUND" in anomaly_reads and "R_FOUND" not in reads | writes


def test_a_dead_slot_would_be_caught():
    """Guard: a slot only packed (as ``C_SUCCESS_ON`` was), or only assigned in a kernel,
    or only compared with, is not read; a kernel's reads are no writes."""
    compile_step = "values = {K.C_REPUTATION: stalker.reputation, K.C_SUCCESS_ON: 5}\n" \
                   "params[P_HEALTH] = 3\nout[rec + S.AF_VALUE], out[S.P_PLAN] = 1, 2\n" \
                   "p = S.EVENT_PARAMS.pack(base, E_SHIFT=2)\n"
    kernel = "x = cp[C_REPUTATION] + params[base + AF_VALUE]\nparams[P_HEALTH] = 0\n" \
             "if index == P_PLAN:\n    pass\ny = f(E_TOKENS=params[S.E_SHIFT])\n"
    packed = written(compile_step)
    assert {"C_REPUTATION", "C_SUCCESS_ON", "P_HEALTH", "AF_VALUE", "P_PLAN", "E_SHIFT"} <= packed
    assert {"C_REPUTATION", "AF_VALUE", "E_SHIFT"} <= read(kernel)
    assert not {"C_SUCCESS_ON", "P_HEALTH", "P_PLAN", "E_TOKENS"} & read(kernel)
    assert not {"C_REPUTATION", "AF_VALUE"} & written(kernel)
    assert stored(kernel) == {"P_HEALTH"}


def test_pack_writes_the_named_slots_and_zero_elsewhere():
    rec = Record("test parameters", "T_SIZE", ("T_A", "T_B", "T_C"))
    assert (rec.T_A, rec.T_B, rec.T_C, rec.T_SIZE) == (0, 1, 2, 3)
    packed = rec.pack(T_C=7, T_A=-1)
    assert packed.dtype == np.int64 and packed.tolist() == [-1, 0, 7]


def test_pack_on_a_base_copies_it_and_keeps_what_follows_the_record():
    rec = Record("test parameters", "T_SIZE", ("T_A", "T_B"))
    base = np.array([1, 2, 30, 40], dtype=np.int64)  # two slots, then a record after them
    assert rec.pack(base, T_B=5).tolist() == [1, 5, 30, 40]
    assert base.tolist() == [1, 2, 30, 40]


def test_pack_refuses_a_name_that_is_no_slot():
    with pytest.raises(ValueError, match="combat parameters have no slot P_HELTH"):
        layout.COMBAT_PARAMS.pack(P_HELTH=3)


def test_a_name_declared_twice_is_refused():
    with pytest.raises(ValueError, match="declared twice"):
        Record("test parameters", "T_SIZE", ("T_A", "T_B", "T_A"))


def test_a_wide_slot_is_packed_from_a_sequence_and_refuses_a_longer_one():
    """``Record.pack`` writes a ``(name, width)`` slot from its first column on and leaves the
    columns after the sequence as they were; a sequence wider than the slot is refused."""
    rec = Record("test record", "T_SIZE", ("T_A", ("T_WIDE", 3), "T_B"))
    assert list(rec.pack(T_A=1, T_WIDE=[7, 8], T_B=9)) == [1, 7, 8, 0, 9]
    with pytest.raises(ValueError, match="3 columns wide"):
        rec.pack(T_WIDE=[1, 2, 3, 4])


def test_the_kernels_copies_of_the_model_s_constants_agree_with_it():
    # sim.rules and sim.kernels are independent layers (pyproject.toml), so the few numbers
    # both need are written in each; here they are tied: the seats of a game (P-44, the
    # scenario's 1..MAX_PLAYERS) and the art_rec rows, one per damage type in the model's
    # order, then no damage (sim.campaign.artifacts.DTYPES).
    from sim.campaign.artifacts import DTYPES
    from sim.rules import DAMAGE_TYPES
    from sim.rules.scenario import MAX_PLAYERS

    assert K.MAX_PLAYERS == MAX_PLAYERS
    assert DTYPES == (*DAMAGE_TYPES, "none")
    assert (K.DT_RADIATION, K.DT_PSI, K.DT_NONE) == (
        DTYPES.index("radiation"), DTYPES.index("psi"), DTYPES.index("none"))
    assert K.DT_NONE == len(DTYPES) - 1


def test_a_wrong_copy_of_a_model_constant_would_be_caught():
    from sim.rules import DAMAGE_TYPES

    shuffled = (*reversed(DAMAGE_TYPES), "none")
    assert (K.DT_RADIATION, K.DT_PSI) != (shuffled.index("radiation"), shuffled.index("psi"))
