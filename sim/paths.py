"""Where the bundled rulesets and scenarios live.

The top-level ``configs/`` folder of the repository is shipped inside the
wheel as the namespace package ``sim._configs`` (see ``pyproject.toml``). From
a plain checkout (nothing installed) the folder beside the package is used.

Names and paths are told apart explicitly (:func:`bundled_or_path`): a bare
name such as ``base`` (no folder part) means the bundled ruleset or scenario
of that name whenever one exists, so a folder called ``base`` in the working
directory never shadows it; ``./base`` names the local folder.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

BASE_RULESET = "base"


def configs_root() -> Path:
    """The folder holding the bundled rulesets (``configs/`` in the repository)."""
    checkout = Path(__file__).resolve().parents[1] / "configs"
    if checkout.is_dir():
        return checkout
    module = importlib.import_module("sim._configs")
    return Path(next(iter(module.__path__)))


def bundled_ruleset(name: str = BASE_RULESET) -> Path:
    """Path of a bundled ruleset folder, e.g. ``configs/base``."""
    return configs_root() / name


_BARE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


def is_bare_name(text: str, suffix: str = "") -> bool:
    """Whether ``text`` is a name (``base``), not a path (``./base``, ``a/b``, ``x.toml``)."""
    return bool(_BARE.fullmatch(text)) and not (suffix and text.endswith(suffix))


def bundled_or_path(name: str | Path, root: Path, suffix: str = "",
                    relative_to: Path | None = None) -> Path:
    """The bundled ``root/<name><suffix>`` for a bare name that has one, else the path given.

    Parameters
    ----------
    name : str or Path
        A bundled name (``base``) or a path (``./base``, ``configs/my``, ``x.toml``).
    root : Path
        Folder of the bundled ones (``configs/`` or ``configs/scenarios/``).
    suffix : str
        Suffix of a bundled file (``.toml`` for scenarios).
    relative_to : Path, optional
        Folder that a relative path is read from (a scenario's own folder).

    Returns
    -------
    Path
        A bare name without a bundled namesake resolves as a path when that
        exists, and otherwise to where the bundled one would be, so the
        message says "not found" about the place the user most likely meant.
    """
    text = str(name)
    bare = is_bare_name(text, suffix)
    bundled = root / f"{text}{suffix}"
    if bare and bundled.exists():
        return bundled
    path = Path(text)
    if relative_to is not None and not path.is_absolute():
        path = Path(relative_to) / path
    if bare and not path.exists():
        return bundled
    return path


def resolve_ruleset(name: str | Path | None) -> Path:
    """A ruleset folder given on the command line: bundled name or path (None: base)."""
    return bundled_ruleset() if name is None else bundled_or_path(name, configs_root())
