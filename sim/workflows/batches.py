"""Batches of card edits played on common random numbers, here, on a pool or on Dask.

The lever finder (:mod:`sim.workflows.levers`) and its Morris screening
(:mod:`sim.workflows.morris`) run hundreds of edited rulesets. A batch is a
list of variants (each a list of edit texts; the first usually the
unchanged ruleset) played by one call of the experiment's paired runner
(``run`` of :mod:`sim.experiments.registry`), so every variant of a batch
shares the trials and streams of its first: paired differences. A task
carries the ruleset folder, its digest and the edit texts; a worker reloads
the folder (once per process) and checks the digest, as a sweep's points do
(:func:`sim.workflows.sweep.map_tasks`). A variant's numbers depend only on
the ruleset, its edits, the trials and the seed, never on the backend or on
the other variants of its batch.

:func:`unchanged` tells, before anything runs, which edits leave the
experiment's compiled kernel inputs as they were (its ``compile_inputs``): such
an edit cannot move any metric.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim import runner
from sim.campaign.memo import per_ruleset
from sim.errors import InputError
from sim.experiments.base import Case
from sim.experiments.registry import experiment as find_experiment
from sim.rules import Ruleset, load_ruleset
from sim.rules.variants import apply_edits
from sim.workflows.sweep import checked_ruleset, map_tasks, threads_per_worker

BATCH = 16
"""Edits per task (each task also replays the baseline on the same trials)."""


class BatchError(InputError):
    """Batches that cannot run (a ruleset changed in memory that workers cannot reload)."""


@dataclass(frozen=True)
class BatchTask:
    """What a worker needs for one batch: plain data, so it pickles.

    ``variants`` are edit lists; the first is usually the baseline ``()``.
    """

    index: int
    rules_path: str
    digest: str
    experiment: str
    setup: Mapping[str, Any]
    variants: tuple[tuple[str, ...], ...]
    trials: int
    seed: int
    threads: int | None


EDITED_KEPT = 128
"""Edited rulesets remembered per process (:func:`edited`)."""


@per_ruleset(EDITED_KEPT)
def edited(rs: Ruleset, edits: tuple[str, ...]) -> Ruleset:
    """``rs`` with ``edits`` applied (:func:`~sim.rules.variants.apply_edits`), built once.

    The readings are compiled to tell which change nothing (:func:`fingerprint_batch`) and
    then played (:func:`run_batch`): one edited ruleset for both, so its fight tables and
    compiled games, remembered by the ruleset's identity (:mod:`sim.campaign.memo`), are
    built once, not once per stage (issue 45, item 4). A ruleset is never changed after it
    is built, so sharing it changes no number.
    """
    return apply_edits(rs, list(edits))


def run_batch(task: BatchTask, base: Ruleset | None = None):
    """Play one batch's variants on common random numbers: ``(index, PairedSums)``.

    ``base`` is the base ruleset when the batch runs in the caller's process;
    elsewhere it is reloaded from ``task.rules_path`` and its digest checked.
    """
    if base is None:
        base = checked_ruleset(task.rules_path, task.digest)
    exp = find_experiment(task.experiment)
    cases = [Case(edited(base, tuple(edits)), task.setup) for edits in task.variants]
    with runner.thread_count(task.threads):
        return task.index, exp.run(cases, trials=task.trials, seed=task.seed,
                                   threads=task.threads)


def run_batches(rs: Ruleset, name: str, setup: Mapping[str, Any],
                variants: Sequence[tuple[tuple[str, ...], ...]], *, trials: int, seed: int,
                workers: int = 1, scheduler: Any = None, threads: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                func: Callable | None = None) -> tuple[list, str]:
    """Run ``func`` (default :func:`run_batch`) on each batch of edit lists; results in order.

    The batches run here (``workers=1``), on a local process pool or on a Dask
    cluster (:func:`sim.workflows.sweep.map_tasks`).

    Raises
    ------
    BatchError
        A ruleset changed in memory that workers could not reload.
    """
    remote = scheduler is not None or (workers > 1 and len(variants) > 1)
    if remote and load_ruleset(rs.path).digest() != rs.digest():
        raise BatchError("this ruleset was changed in memory, so workers cannot reload it "
                         f"from {rs.path}; run with workers=1 and no scheduler")
    if threads is None and scheduler is None:
        threads = threads_per_worker(workers)
    tasks = [BatchTask(i, str(rs.path), rs.digest(), name, dict(setup), tuple(batch), trials,
                       seed, threads) for i, batch in enumerate(variants)]
    func = func or run_batch
    if not remote:
        return [func(t, rs)[1] for t in _progressing(tasks, progress)], "serial"
    outputs, backend = map_tasks(func, tasks, workers=workers, scheduler=scheduler,
                                 progress=progress)
    return [out for _, out in outputs], backend


def _progressing(tasks: list, progress):
    for i, task in enumerate(tasks):
        yield task
        if progress is not None:
            progress(i + 1, len(tasks))


def _hash(value, h) -> None:
    if isinstance(value, tuple | list):
        for item in value:
            _hash(item, h)
        return
    array = np.ascontiguousarray(value)
    h.update(f"{array.dtype}{array.shape}".encode())
    h.update(array.tobytes())


def inputs_digest(inputs) -> str:
    """SHA-256 of compiled kernel inputs (arrays, nested in tuples or lists): equal
    digests play equal games on equal streams.
    """
    h = hashlib.sha256()
    _hash(inputs, h)
    return h.hexdigest()


@dataclass(frozen=True)
class Refusal:
    """A variant the experiment's compile refuses, with the compile's reason."""

    reason: str


def fingerprint_batch(task: BatchTask, base: Ruleset | None = None):
    """SHA-256 of each variant's compiled kernel inputs: ``(index, list)``.

    A variant whose compile refuses it (an :class:`~sim.errors.InputError`)
    gives a :class:`Refusal` with the reason instead of a digest. Experiments
    without ``compile_inputs`` give None for every variant.
    """
    compile_inputs = find_experiment(task.experiment).compile_inputs
    if compile_inputs is None:
        return task.index, [None] * len(task.variants)
    if base is None:
        base = checked_ruleset(task.rules_path, task.digest)
    out: list[str | Refusal] = []
    for edits in task.variants:
        try:
            (inputs,) = compile_inputs([Case(edited(base, tuple(edits)), task.setup)])
        except InputError as error:
            out.append(Refusal(str(error)))
            continue
        out.append(inputs_digest(inputs))
    return task.index, out


def fingerprints(rs: Ruleset, name: str, setup: Mapping[str, Any], edits: Sequence[str], *,
                 batch: int = BATCH, **backend) -> list[str | Refusal | None]:
    """Per edit: its digest when it changes the compiled kernel inputs of ``setup``,
    :data:`UNCHANGED` when it leaves them as they were, or the :class:`Refusal` of the
    experiment's compile.

    ``backend`` holds ``workers``, ``scheduler``, ``threads`` and ``progress``
    of :func:`run_batches`; the compiling runs there, batch by batch. All
    None for an experiment without ``compile_inputs``.

    Raises
    ------
    BatchError
        The compile refuses ``setup`` itself (no edit).
    """
    if find_experiment(name).compile_inputs is None or not edits:
        return [None] * len(edits)
    chunks = [edits[i:i + batch] for i in range(0, len(edits), batch)]
    variants = [((), *((e,) for e in chunk)) for chunk in chunks]
    outputs, _ = run_batches(rs, name, setup, variants, trials=1, seed=0,
                             func=fingerprint_batch, **backend)
    out: list[str | Refusal | None] = []
    for base, *digests in outputs:
        if isinstance(base, Refusal):
            raise BatchError(base.reason)
        out.extend(UNCHANGED if d == base else d for d in digests)
    return out


UNCHANGED = "unchanged"
"""What :func:`fingerprints` gives an edit that leaves the compiled inputs as they were."""


def unchanged(rs: Ruleset, name: str, setup: Mapping[str, Any], edits: Sequence[str], *,
              batch: int = BATCH, **backend) -> list[bool]:
    """Per edit: whether it leaves the compiled kernel inputs of ``setup`` as they were
    (:func:`fingerprints`; a refused edit counts as a change).
    """
    return [f == UNCHANGED for f in fingerprints(rs, name, setup, edits, batch=batch,
                                                  **backend)]


__all__ = ["BATCH", "UNCHANGED", "BatchError", "BatchTask", "Refusal",
           "fingerprint_batch", "fingerprints", "inputs_digest", "run_batch", "run_batches",
           "unchanged"]
