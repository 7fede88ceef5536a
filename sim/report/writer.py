"""Writing result folders: all or nothing, with a provenance manifest.

A results folder is built in a hidden temporary folder beside its final
place and renamed at the end (:func:`atomic_folder`), so a run that fails or
is interrupted half-way leaves no half-written folder behind. Tables are
written as CSV (for spreadsheets; text that a spreadsheet would run as a
formula is neutralised, :func:`to_csv`) and Parquet (typed, for pandas, the
names exactly as written); ``metadata.json`` records the seed, trials,
ruleset digest, package versions, timings and command line.
"""

from __future__ import annotations

import math
import os
import platform
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from importlib import metadata as importlib_metadata
from pathlib import Path

import pandas as pd

from sim import jsontext
from sim.errors import InputError, visible
from sim.jsontext import finite as clean_json
from sim.report import staging

RESULTS_DIR = staging.RESULTS_DIR
PACKAGES = ("zonesim", "numpy", "numba", "pandas", "matplotlib", "pyarrow", "click")


def timestamp() -> str:
    """Local time as ``YYYYmmdd-HHMMSS``, for folder names."""
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def default_folder(stem: str, root: Path = RESULTS_DIR) -> Path:
    """``root/<stem>-<timestamp>``, with ``-2``, ``-3``... if that folder exists already."""
    base = Path(root) / f"{stem}-{timestamp()}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    return folder


def refuse_existing(final: Path) -> None:
    """Raise FileExistsError if ``final`` exists (results are never overwritten); its
    message shows the folder's name as text (:func:`sim.errors.visible`).

    A symbolic link whose target does not exist (a dangling ``--out``) is refused
    too, as bad input (:class:`~sim.errors.InputError` on ``out``, exit status 2),
    before any work: the folder would otherwise be made wherever the link points,
    or the run would fail at its very end. Nothing is written through a link.
    """
    path = Path(final)
    if path.is_symlink() and not path.exists():
        raise InputError(f"{visible(str(final), lines=False)} is a symbolic link to "
                         f"{visible(os.readlink(path), lines=False)}, which does not exist; "
                         "results are never written through a link: give a new folder",
                         "out")
    if path.exists():
        raise FileExistsError(f"{visible(str(final), lines=False)} exists already; results "
                              "are never overwritten")


@contextmanager
def atomic_folder(final: Path) -> Iterator[staging.Staged]:
    """Yield a :class:`~sim.report.staging.Staged` folder that becomes ``final`` on success.

    The temporary folder ``.temp`` is created beside ``final`` (same file
    system, so the rename is atomic) with a hidden ``.tmp`` name; on any
    exception it is removed and the exception propagates, so ``final`` never
    exists half written. If another run takes the name meanwhile, the folder
    is written beside it (``.path`` says where).

    Raises
    ------
    FileExistsError
        If ``final`` exists already (results are never overwritten).
    WriteError
        The file system refused (read-only, permission denied, disk full).
    """
    refuse_existing(final)
    with staging.staged(final) as folder:
        yield folder


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection)."""

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _neutral(value):
    """A text cell that a spreadsheet would run as a formula, with ``'`` in front."""
    if isinstance(value, str) and value.startswith(FORMULA_START) \
            and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def to_csv(frame: pd.DataFrame, path: Path | None = None, **options) -> str | None:
    """Write ``frame`` as CSV (no index) to ``path``, or return the text; the one CSV writer.

    Every CSV the tool writes (results folders, ``--format csv``) goes
    through here. Card, stalker and scenario names are data from the
    designer's files, and a spreadsheet opening the CSV would run a text cell
    starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a
    formula (``=HYPERLINK(...)``, ``=cmd|...``). So, as the OWASP guidance on
    CSV injection says, such a text cell, and such a column name, gets a
    single quote ``'`` in front: the spreadsheet shows the text as written,
    with the quote. Numbers stay numbers, whether a numeric column or text
    that is a plain number (``-3``, ``+0.5``, ``-1e-3``: not formulas). The
    Parquet files and JSON keep the names exactly. ``options`` go to
    :meth:`pandas.DataFrame.to_csv` (``float_format``).
    """
    safe = frame.rename(columns=_neutral)
    for i, dtype in enumerate(safe.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            safe.isetitem(i, safe.iloc[:, i].map(_neutral))
    return safe.to_csv(path, index=False, **options)


def write_table(frame: pd.DataFrame, folder: Path, stem: str) -> list[Path]:
    """Write ``frame`` as ``stem.csv`` (:func:`to_csv`) and ``stem.parquet``; return both paths."""
    csv, parquet = folder / f"{stem}.csv", folder / f"{stem}.parquet"
    to_csv(frame, csv)
    _parquet_ready(frame).to_parquet(parquet, index=False)
    return [csv, parquet]


def _parquet_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns of mixed Python objects (``None`` beside text) become strings for Arrow."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object:
            values = [v for v in out[col] if v is not None and not _isnan(v)]
            if len({type(v) for v in values}) > 1:
                out[col] = out[col].map(lambda v: None if v is None or _isnan(v) else str(v))
    return out


def _isnan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def versions() -> dict[str, str | None]:
    """Python and package versions (None for a package that is not installed)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            out[name] = None
    return out


def manifest(command: list[str] | None = None, **fields) -> dict:
    """The common part of ``metadata.json``: creation time, versions, host, command line.

    ``command`` defaults to ``sys.argv`` (the command line that made the folder).
    """
    return {"created": datetime.now().isoformat(timespec="seconds"),
            "command": list(sys.argv if command is None else command),
            "versions": versions(), "platform": platform.platform(),
            "cpu_count": os.cpu_count(), **fields}


def write_json(obj: dict, path: Path) -> Path:
    """Write ``obj`` as indented strict JSON (:func:`sim.jsontext.dumps`: numpy scalars
    converted, NaN and infinities as null).
    """
    path.write_text(jsontext.dumps(obj, default=_json_default) + "\n", encoding="utf-8")
    return path


def _json_default(value):
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)


class Stopwatch:
    """Wall time per named section, for ``metadata.json``."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.sections: dict[str, float] = {}

    @contextmanager
    def section(self, name: str) -> Iterator[None]:
        """Time the enclosed block under ``name`` (seconds, rounded to ms)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.sections[name] = round(time.perf_counter() - t0, 3)

    def total(self) -> float:
        """Seconds since the stopwatch was made."""
        return round(time.perf_counter() - self.start, 3)


def write_sweep(result, folder: Path, metric: str, command: list[str] | None = None,
                target=None) -> Path:
    """Write a :class:`~sim.workflows.sweep.SweepResult` folder atomically; return where it went.

    Files: ``sweep.csv``, ``sweep.parquet``, ``metadata.json`` and, for one or
    two varied cells, ``sweep-<metric>.png`` (line plot or heatmaps, showing
    ``target`` when given; metadata then records it).
    """
    from sim.report import plots

    with atomic_folder(folder) as staged:
        temp = staged.temp
        write_table(result.frame, temp, "sweep")
        figure = plots.sweep_figure(result, metric, target)
        files = ["sweep.csv", "sweep.parquet"]
        if figure is not None:
            plots.save(figure, temp / f"sweep-{metric}.png")
            files.append(f"sweep-{metric}.png")
        meta = manifest(command=command, **clean_json(result.metadata()))
        meta["metric"] = metric
        if target is not None:
            meta["target"] = str(target)
        meta["files"] = files + ["metadata.json"]
        write_json(meta, temp / "metadata.json")
    return staged.path
