"""Parameter sweeps: vary card values over a grid and run one experiment per point.

A designer asks "how does the Bloodsucker's danger change with its endurance,
and with the Ecolog suit's durability?" A sweep takes one or more
:class:`Vary` axes (``table.card.column`` and its values), forms their cross
product (the first axis varies slowest), applies each point's card edits to
the base ruleset (:func:`sim.rules.variants.apply_edits`) and runs an experiment on
the edited ruleset. Every point runs on the same seed (common random numbers),
so a change between neighbouring points is the card change, not noise.

An experiment is any function ``(ruleset, params, trials, seed) -> rows``
where ``rows`` is a dict (one flat row), a list of flat dicts or a DataFrame;
flat means each Monte Carlo cell is a column ``name`` with ``name_ci_low``,
``name_ci_high`` and ``name_exact`` beside it. The built-in kinds are
``combat``, ``anomaly``, ``event`` and ``campaign``: each experiment's ``sweep_rows``
(:mod:`sim.experiments.registry`).

The grid runs in this process (``workers=1``), on a local process pool
(``workers > 1``) or on a Dask distributed cluster (``scheduler=``); the
result is bit-identical in all three, because a point's numbers depend only
on its ruleset, parameters, trial count and seed. A task carries the ruleset
folder and the edit texts, not the ruleset itself; the worker reloads the
folder, checks its digest and applies the edits.

Example::

    from sim.workflows.sweep import Vary, run_sweep
    result = run_sweep("configs/base", [Vary.parse("enemies.Bloodsucker.endurance=2..6")],
                       "combat", {"stalker": "Strelok", "enemy": "Bloodsucker"},
                       trials=100_000, seed=1)
    result.frame[["enemies.Bloodsucker.endurance", "knocked_out", "knocked_out_ci_low"]]
"""

from __future__ import annotations

import functools
import itertools
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sim import runner
from sim.errors import InputError
from sim.experiments import registry
from sim.rules import Ruleset, load_ruleset
from sim.rules.grid import parse_grid
from sim.rules.variants import VariantError, apply_edits, edit_value

Rows = Mapping[str, Any] | Sequence[Mapping[str, Any]] | pd.DataFrame
PointFunction = Callable[[Ruleset, Mapping[str, Any], int, int], Rows]
"""``(ruleset, params, trials, seed) -> rows``: one grid point's flat result rows (a
registered experiment's ``sweep_rows``, or any such function)."""

MAX_POINTS = 10_000


class SweepError(InputError):
    """A sweep that cannot run: bad --vary text, unknown experiment or metric."""


@dataclass(frozen=True)
class Vary:
    """One axis of the grid: a cell ``table.card.column`` and the texts it takes.

    Attributes
    ----------
    path : str
        ``table.card.column`` (or ``rules.section.key``), as in :mod:`sim.rules.variants`.
    values : tuple of str
        Values in grid order, as they would be written in the CSV cell.
    """

    path: str
    values: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Vary:
        """Parse one ``--vary`` value with the grid grammar of :mod:`sim.rules.grid`.

        Raises
        ------
        SweepError
            Malformed text, an unknown path, an empty range, a repeated value,
            or more than ``MAX_POINTS`` values.
        """
        try:
            grid = parse_grid(text, MAX_POINTS)
        except VariantError as error:
            raise SweepError(str(error), error.field) from None
        return cls(grid.path, grid.values)

    def __str__(self) -> str:
        return f"{self.path}={','.join(self.values)}"


def grid(varies: Sequence[Vary]) -> list[tuple[str, ...]]:
    """Cross product of the axes' values, first axis slowest (edit texts per point)."""
    paths = [v.path for v in varies]
    if len(set(paths)) != len(paths):
        raise SweepError("the same cell is varied twice: " + ", ".join(paths))
    size = math.prod(len(v.values) for v in varies)
    if size > MAX_POINTS:  # counted, not built: a 10**9-point grid is refused in kilobytes
        raise SweepError(f"the grid has {size} points; at most {MAX_POINTS} are allowed")
    return [tuple(f"{v.path}={value}" for v, value in zip(varies, combo, strict=True))
            for combo in itertools.product(*(v.values for v in varies))]


def experiment_of(experiment: str | PointFunction) -> PointFunction:
    """The point function of a registered experiment's name (its ``sweep_rows``), or the
    function itself.
    """
    if callable(experiment):
        return experiment
    if experiment not in registry.NAMES:
        raise SweepError(f"unknown experiment {experiment!r} (known: {', '.join(registry.NAMES)})")
    return registry.experiment(experiment).sweep_rows


_SUFFIXES = ("_ci_low", "_ci_high", "_exact")
_NOT_METRICS = frozenset({"trials", "seed", "point"})


def _frame(rows: Rows) -> pd.DataFrame:
    """An experiment's rows as a tidy frame: keys, then each metric's four columns.

    A metric is a column with a ``_ci_low`` twin, or any other numeric (not
    boolean) column except ``trials`` and ``seed``; missing ``_ci_low``,
    ``_ci_high`` or ``_exact`` columns are added as NaN (unknown), so every
    experiment's table has the same shape.
    """
    if isinstance(rows, pd.DataFrame):
        frame = rows.reset_index(drop=True)
    elif isinstance(rows, Mapping):
        frame = pd.DataFrame([dict(rows)])
    else:
        frame = pd.DataFrame([dict(r) for r in rows])
    columns = list(frame.columns)
    suffixed = {f"{c}{s}" for c in columns for s in _SUFFIXES if f"{c}_ci_low" in columns}
    metrics = [c for c in columns if c not in suffixed and c not in _NOT_METRICS
               and (f"{c}_ci_low" in columns or (pd.api.types.is_numeric_dtype(frame[c])
                                                  and not pd.api.types.is_bool_dtype(frame[c])))]
    keys = [c for c in columns if c not in suffixed and c not in metrics]
    data = {k: frame[k] for k in keys}
    missing = pd.Series(float("nan"), index=frame.index)
    for m in metrics:
        data[m] = frame[m]
        for name in (f"{m}{suffix}" for suffix in _SUFFIXES):
            data[name] = frame[name].astype(float) if name in frame else missing
    return pd.DataFrame(data, index=frame.index)


# --- running a grid ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Task:
    """What a worker needs for one grid point; plain data, so it pickles."""

    point: int
    rules_path: str
    base_digest: str
    edits: tuple[str, ...]
    experiment: PointFunction
    params: Mapping[str, Any]
    trials: int
    seed: int
    threads: int | None


@functools.lru_cache(maxsize=4)
def checked_ruleset(path: str, digest: str) -> Ruleset:
    """The ruleset at ``path``, loaded once per process, if its digest is still ``digest``."""
    rs = load_ruleset(path)
    if rs.digest() != digest:
        raise SweepError(f"the ruleset at {path} changed while the sweep ran "
                         f"(digest {rs.digest()[:12]}, expected {digest[:12]})")
    return rs


def _run_point(task: _Task, base: Ruleset | None = None) -> tuple[int, pd.DataFrame, str, float]:
    """Run one grid point: ``(point, rows, edited ruleset digest, seconds)``.

    ``base`` is the base ruleset when the point runs in the caller's process;
    elsewhere it is reloaded from ``task.rules_path`` and its digest checked. A
    point whose game the experiment refuses (an :class:`~sim.errors.InputError`:
    a map edit after which some hex cannot reach a bunker) gives no rows
    (None) and the reason in place of the digest.
    """
    start = time.perf_counter()
    if base is None:
        base = checked_ruleset(task.rules_path, task.base_digest)
    rs = apply_edits(base, task.edits)
    try:
        with runner.thread_count(task.threads):
            frame = _frame(task.experiment(rs, task.params, task.trials, task.seed))
    except InputError as error:  # the experiment cannot set this point's game up
        return task.point, None, str(error), time.perf_counter() - start
    return task.point, frame, rs.digest(), time.perf_counter() - start


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep: the tidy table and its provenance.

    Attributes
    ----------
    frame : DataFrame
        One row per grid point and card: ``point``, one column per varied
        cell (named by its path, typed as the card column), then the
        experiment's key columns and metric columns (``m``, ``m_ci_low``,
        ``m_ci_high``, ``m_exact``). Rows in grid order, cards in deck order.
    experiment : str
        Experiment name (or the function's qualified name).
    params : dict
        The experiment's parameters.
    varies : tuple of Vary
        The axes, in the order given.
    trials, seed : int
        Per point; every point uses the same seed.
    base_digest : str
        ``ruleset.digest()`` of the base ruleset.
    points : tuple of dict
        Per point played: ``point``, ``edits`` (texts), ``digest`` (of the
        edited ruleset) and ``seconds``.
    skipped : tuple of dict
        Per point not played: ``point``, ``edits``, ``reason`` (starting with
        the edit to blame, which names the card and cell) and ``refused_by``
        (``rules``: the edit checks; ``compile``: the experiment cannot set
        the game up).
    backend : str
        ``serial``, ``processes:N`` or ``dask:ADDRESS``.
    wall_s : float
        Wall time of the whole grid.
    """

    frame: pd.DataFrame
    experiment: str
    params: dict
    varies: tuple[Vary, ...]
    trials: int
    seed: int
    base_digest: str
    rules_path: str
    points: tuple[dict, ...] = ()
    backend: str = "serial"
    wall_s: float = 0.0
    metrics: tuple[str, ...] = field(default=())
    skipped: tuple[dict, ...] = ()

    @property
    def parameter_columns(self) -> list[str]:
        """Names of the varied-cell columns, in --vary order."""
        return [v.path for v in self.varies]

    def metadata(self) -> dict:
        """Provenance for ``metadata.json``: everything needed to rerun the sweep (and the
        skipped points, when there are any).
        """
        return {"kind": "sweep", "experiment": self.experiment, "params": self.params,
                "varies": {v.path: list(v.values) for v in self.varies},
                "trials": self.trials, "seed": self.seed, "rules_path": self.rules_path,
                "ruleset_digest": self.base_digest, "points": list(self.points),
                "backend": self.backend, "wall_s": self.wall_s,
                "metrics": list(self.metrics),
                **({"skipped": list(self.skipped)} if self.skipped else {})}

    def to_dict(self) -> dict:
        """JSON document: the metadata plus ``rows`` (records of :attr:`frame`)."""
        out = self.metadata()
        out["rows"] = self.frame.astype(object).where(self.frame.notna(), None) \
            .to_dict(orient="records")
        return out


def metric_names(frame: pd.DataFrame) -> list[str]:
    """Metric columns of a flat table: those with a ``_ci_low`` twin, in column order."""
    return [c for c in frame.columns if f"{c}_ci_low" in frame.columns]


def threads_per_worker(workers: int) -> int | None:
    """Kernel threads of each of ``workers`` processes (None: all cores, for one)."""
    if workers <= 1:
        return None
    return max(1, (os.cpu_count() or 1) // workers)


def run_sweep(rules: str | Path | Ruleset | None, varies: Sequence[Vary | str],
              experiment: str | PointFunction, params: Mapping[str, Any], *, trials: int,
              seed: int, workers: int = 1, scheduler: Any = None, threads: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> SweepResult:
    """Run ``experiment`` at every point of the grid of ``varies``.

    Parameters
    ----------
    rules : str, Path, Ruleset or None
        The base ruleset: a folder, a loaded ruleset read from a folder (it is
        reloaded in each worker and its digest checked), or None for the
        bundled base set.
    varies : sequence of Vary or str
        The axes (``table.card.column=a..b`` or ``=v1,v2``); the grid is their
        cross product, first axis slowest.
    experiment : str or callable
        A name of :data:`sim.experiments.registry.NAMES` or a function ``(ruleset, params,
        trials, seed) -> rows``; on a process pool or cluster it must be
        importable or picklable.
    params : mapping
        The experiment's parameters (e.g. ``stalker``, ``enemy``, ``armor``).
    trials, seed : int
        Monte Carlo trials per point; the same seed at every point.
    workers : int
        1: run here, point after point; N > 1: a pool of N processes
        (``spawn``, since numba's OpenMP layer is not fork-safe), each kernel
        on ``cpu_count // N`` threads.
    scheduler : str or distributed.Client, optional
        Run each point as one task on a Dask distributed cluster at this
        address (or through this client); results are gathered in grid order.
    threads : int, optional
        Kernel threads per grid point (default: all cores when running here or
        on a cluster, ``cpu_count // workers`` on a pool). Never changes a result.
    progress : callable, optional
        Called as ``progress(done, total)`` after each point.

    Returns
    -------
    SweepResult

    Raises
    ------
    SweepError
        Bad axes, an unknown experiment, or a grid none of whose points can be
        played. A point the rules refuse (every point's edits are checked
        before running) or whose game the experiment cannot set up is skipped
        and listed in :attr:`SweepResult.skipped` with its reason; it never
        stops the sweep.
    """
    func = experiment_of(experiment)
    name = experiment if isinstance(experiment, str) else getattr(
        experiment, "__qualname__", repr(experiment))
    axes = tuple(v if isinstance(v, Vary) else Vary.parse(v) for v in varies)
    if not axes:
        raise SweepError("a sweep needs at least one --vary")
    base = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    points, skipped = [], []
    for i, edits in enumerate(grid(axes)):  # every point checked before any run
        try:
            points.append((i, edits, apply_edits(base, edits)))
        except VariantError as error:
            skipped.append(_skip(i, edits, str(error), "rules"))
    if not points:
        raise SweepError(_all_refused(skipped))
    values = [{a.path: edit_value(rs, a.path) for a in axes} for _, _, rs in points]
    remote = scheduler is not None or (workers > 1 and len(points) > 1)
    if remote and load_ruleset(base.path).digest() != base.digest():
        raise SweepError("this ruleset was changed in memory, so workers cannot reload it from "
                         f"{base.path}; run the sweep with workers=1 and no scheduler")
    if threads is None and scheduler is None:
        threads = threads_per_worker(workers)
    tasks = [_Task(i, str(base.path), base.digest(), edits, func, dict(params), trials, seed,
                   threads) for i, edits, _ in points]
    start = time.perf_counter()
    outputs, backend = _execute(tasks, base, workers, scheduler, progress)
    wall = time.perf_counter() - start
    played = [(out, edits, cells) for out, (_, edits, _), cells
              in zip(outputs, points, values, strict=True) if out[1] is not None]
    skipped += [_skip(out[0], edits, out[2], "compile") for out, (_, edits, _)
                in zip(outputs, points, strict=True) if out[1] is None]
    skipped.sort(key=lambda s: s["point"])
    if not played:
        raise SweepError(_all_refused(skipped))
    table, meta = _tidy(played)
    return SweepResult(frame=table, experiment=name, params=dict(params), varies=axes,
                       trials=trials, seed=seed, base_digest=base.digest(),
                       rules_path=str(base.path), points=tuple(meta), backend=backend,
                       wall_s=wall, metrics=tuple(metric_names(table)),
                       skipped=tuple(skipped))


def _skip(point: int, edits: Sequence[str], reason: str, by: str) -> dict:
    """One skipped point: its edits and why (the reason starts with the edit to blame)."""
    if not reason.startswith("edit ") and len(edits) == 1:
        reason = f"edit {edits[0]!r}: {reason}"
    return {"point": point, "edits": list(edits), "reason": reason, "refused_by": by}


def _all_refused(skipped: Sequence[dict]) -> str:
    """The message of a grid none of whose points can be played."""
    first = skipped[0]
    more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
    return f"no point of the grid can be played: {first['reason']}{more}"


def _execute(tasks: list[_Task], base: Ruleset, workers: int, scheduler: Any,
             progress: Callable[[int, int], None] | None) -> tuple[list, str]:
    """Run every grid point here, on a process pool or on a Dask cluster.

    Returns the points' outputs in grid order and the backend's name (for the
    provenance); the backend never changes a result.
    """
    if scheduler is not None or (workers > 1 and len(tasks) > 1):
        return map_tasks(_run_point, tasks, workers=workers, scheduler=scheduler,
                         progress=progress)
    outputs = []
    for task in tasks:
        outputs.append(_run_point(task, base))
        if progress is not None:
            progress(len(outputs), len(tasks))
    return outputs, "serial"


def _tidy(played: list) -> tuple[pd.DataFrame, list[dict]]:
    """One tidy frame (point, varied values, the experiment's rows) and the points' provenance,
    from ``(output, edits, varied values)`` per point played.
    """
    frames, meta = [], []
    for (point, frame, digest, seconds), edits, cells in played:
        head = pd.DataFrame({"point": [point] * len(frame),
                             **{k: [v] * len(frame) for k, v in cells.items()}})
        frames.append(pd.concat([head, frame], axis=1))
        meta.append({"point": point, "edits": list(edits), "digest": digest,
                     "seconds": round(seconds, 4)})
    return pd.concat(frames, ignore_index=True), meta


def _exit_with_parent(parent: int) -> None:
    """Pool initializer: end this worker as soon as the sweep's process is gone.

    A parent killed outright (SIGKILL) cannot stop its workers, and a worker in
    the middle of a long point would run on as an orphan; a daemon thread
    notices the new parent id and ends the worker. Ctrl-C reaches every
    process of the terminal's group; a worker ignores it and leaves the
    stopping to the parent, which ends its workers and prints the one line.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def map_tasks(func: Callable, tasks: Sequence, *, workers: int = 1, scheduler: Any = None,
              progress: Callable[[int, int], None] | None = None) -> tuple[list, str]:
    """Run ``func(task)`` for every task here, on a process pool or on a Dask cluster.

    The backends of :func:`run_sweep`, for any picklable task and importable
    ``func`` (e.g. the lever finder's batches). Returns the outputs in task
    order and the backend's name; the backend never changes a result.
    """
    if scheduler is not None:
        return _run_dask(list(tasks), scheduler, progress, func)
    if workers > 1 and len(tasks) > 1:
        return _run_pool(list(tasks), workers, progress, func), f"processes:{workers}"
    outputs = []
    for task in tasks:
        outputs.append(func(task))
        if progress is not None:
            progress(len(outputs), len(tasks))
    return outputs, "serial"


def _run_pool(tasks: list, workers: int, progress, func: Callable = _run_point) -> list:
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=context,
                               initializer=_exit_with_parent, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(func, t) for t in tasks]
        outputs = []
        for future in futures:
            outputs.append(future.result())
            if progress is not None:
                progress(len(outputs), len(tasks))
    except BaseException:
        # Stopped, interrupted or failed: waiting for running points would only delay the
        # cleanup, so the workers are ended now (the executor has no public way to do it).
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return outputs


CONNECT_TIMEOUT = 10.0
"""Seconds :func:`check_scheduler` waits for a scheduler's address to answer."""
_SOCKET_SCHEMES = ("tcp", "tls", "ws", "wss")
"""Dask address schemes whose location is ``host:port``."""


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """Refuse, before any work, a ``--scheduler`` address that is malformed or unreachable.

    The address is parsed as Dask parses it (``tcp://host:8786``; a bare ``host:port`` is
    tcp), then asked who it is (Dask's ``identity`` message) within ``timeout`` seconds
    (default :data:`CONNECT_TIMEOUT`): only a Dask scheduler's answer passes. No client is
    started, so a refused, silent or foreign address costs that long and no more, and
    leaves nothing behind.

    Raises
    ------
    SweepError
        With field ``scheduler``: the address and why (no dask.distributed, a malformed
        address, a refused or timed-out connection, an answer that is not a scheduler's).
    """
    import asyncio

    try:
        from distributed.comm import connect, parse_address, parse_host_port
        from distributed.comm.registry import backends
    except ImportError:
        raise SweepError("a scheduler needs dask.distributed: pip install 'zonesim[dask]'",
                         "scheduler") from None
    try:
        scheme, location = parse_address(address)
        if scheme not in backends:
            raise ValueError(f"unknown scheme {scheme!r}; known: {', '.join(backends)}")
        if scheme in _SOCKET_SCHEMES and not 0 < parse_host_port(location)[1] < 2**16:
            raise ValueError("the port is not in 1..65535")
    except (ValueError, TypeError) as error:
        raise SweepError(f"{address!r} is not a Dask scheduler address like "
                         f"tcp://host:8786 ({error})", "scheduler") from None
    wait = CONNECT_TIMEOUT if timeout is None else timeout

    async def identity():
        comm = await connect(address, timeout=wait)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await asyncio.wait_for(comm.read(), wait)
        finally:
            comm.abort()

    try:
        reply = asyncio.run(identity())
    except Exception as error:  # refused, timed out, or a stranger's bytes (any of Dask's)
        why = (str(error) or type(error).__name__ if isinstance(error, OSError)
               else "what answers is not a Dask scheduler")
        raise SweepError(f"{address!r}: no Dask scheduler answers there ({why})",
                         "scheduler") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise SweepError(f"{address!r}: what answers there is not a Dask scheduler",
                         "scheduler")


def _run_dask(tasks: list, scheduler: Any, progress,
              func: Callable = _run_point) -> tuple[list, str]:
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("a scheduler needs dask.distributed: pip install 'zonesim[dask]'",
                         "scheduler") from None
    own = not isinstance(scheduler, Client)
    if own:
        check_scheduler(scheduler)
    client = Client(scheduler) if own else scheduler
    try:
        # pure=False: tasks that look alike must still each run (no result sharing by key).
        futures = client.map(func, tasks, pure=False)
        outputs = client.gather(futures)
        if progress is not None:
            progress(len(tasks), len(tasks))
        address = client.scheduler.address if client.scheduler is not None else str(scheduler)
    finally:
        if own:
            client.close()
    return list(outputs), f"dask:{address}"


__all__ = ["CONNECT_TIMEOUT", "PointFunction", "SweepError", "SweepResult", "Vary",
           "check_scheduler", "checked_ruleset", "experiment_of", "grid", "map_tasks",
           "metric_names", "run_sweep", "threads_per_worker"]
