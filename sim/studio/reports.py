"""The studio's before/after reports: ``zonesim report --baseline`` of the page's edits.

The page's Report button asks for the report of the current edits: the scenario with the
edits (written out as :func:`sim.workflows.whatif.export_zip` writes it, in a temporary
folder) against the scenario as loaded, by the library's report builder
(:func:`sim.report.build.run_report`) with fewer trials than the command's defaults. The
report folder is made under the one folder the server owns (``zonesim studio --reports``),
under a new name (a folder is never overwritten), and served by an ID the server made:
the browser never names a path, and only a plain file of a folder written here is served.
"""

from __future__ import annotations

import io
import secrets
import tempfile
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

from sim.report import writer
from sim.report.build import run_report
from sim.rules.scenario import Scenario
from sim.workflows import whatif

REPORT_TRIALS = 20_000
"""Trials per encounter table of a report from the page (``zonesim report``: 500,000)."""
REPORT_CAMPAIGN_TRIALS = 20_000
"""Games of a report from the page (``zonesim report``: 200,000): a win rate to within about
+-0.007, a report in a few minutes."""


class Stopped(Exception):
    """The page stopped the report (or its tab went away): nothing is written."""


class Reports:
    """The report folders this server wrote, each by the ID it made.

    Parameters
    ----------
    root : Path, optional
        The folder the reports go to (made if missing); None: a new temporary folder,
        made when the first report starts.
    trials, campaign_trials : int
        :func:`~sim.report.build.run_report`'s trial counts.
    """

    def __init__(self, root: str | Path | None = None, *, trials: int = REPORT_TRIALS,
                 campaign_trials: int = REPORT_CAMPAIGN_TRIALS) -> None:
        self._root = None if root is None else Path(root).resolve()
        self.trials, self.campaign_trials = trials, campaign_trials
        self.folders: dict[str, Path] = {}
        self.lock = threading.Lock()

    @property
    def root(self) -> Path:
        """The folder the reports go to, made on first use."""
        with self.lock:
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="zonesim-studio-reports-"))
            self._root.mkdir(parents=True, exist_ok=True)
            return self._root

    def write(self, scenario: Scenario, chosen: whatif.Variant, *, seed: int,
              stop: threading.Event | None = None,
              say: Callable[[str], None] = lambda line: None) -> dict:
        """Write the report of ``chosen`` against ``scenario`` as loaded; return its ``id``,
        ``url`` (report.html as this server serves it), ``folder`` (on disk) and trial
        counts. Setting ``stop`` ends it at its next step, writing nothing.

        Raises
        ------
        Stopped
            ``stop`` was set.
        InputError
            The variant or a target the report cannot judge (the report's message).
        """
        def progress(line: str) -> None:
            if stop is not None and stop.is_set():
                raise Stopped("stopped: no report written")
            say(line)

        stem = Path(scenario.path).stem
        with tempfile.TemporaryDirectory(prefix="zonesim-studio-variant-") as temp:
            zipfile.ZipFile(io.BytesIO(whatif.export_zip(scenario, chosen, "edited"))
                            ).extractall(temp)
            edited = Path(temp) / "edited" / f"{stem}-edited.toml"
            (Path(temp) / "edited" / "scenario.toml").rename(edited)
            report = run_report(edited, trials=self.trials,
                                campaign_trials=self.campaign_trials, seed=seed,
                                out=writer.default_folder(f"{stem}-edited", self.root),
                                baseline=str(scenario.path), progress=progress,
                                command=["zonesim", "studio", "(Report button)"])
        key = secrets.token_urlsafe(16)
        with self.lock:
            self.folders[key] = Path(report.folder)
        return {"id": key, "url": f"/reports/{key}/report.html", "folder": str(report.folder),
                "trials": self.trials, "campaign_trials": self.campaign_trials}

    def file(self, key: str, name: str) -> Path | None:
        """The plain file ``name`` of the report folder ``key`` (None: no such report or
        file; a name with a folder in it, a hidden name or a link is none).
        """
        folder = self.folders.get(key)
        if folder is None or not name or name != Path(name).name or name.startswith(".") \
                or "\\" in name or "\x00" in name:
            return None
        path = folder / name
        if path.is_symlink() or not path.is_file() or path.resolve().parent != folder.resolve():
            return None
        return path


__all__ = ["REPORT_CAMPAIGN_TRIALS", "REPORT_TRIALS", "Reports", "Stopped"]
