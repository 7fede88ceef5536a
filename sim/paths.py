"""Where the bundled rulesets and scenarios live.

The top-level ``configs/`` folder of the repository is shipped inside the
wheel as the namespace package ``sim._configs`` (see ``pyproject.toml``). From
a plain checkout (nothing installed) the folder beside the package is used.
"""

from __future__ import annotations

import importlib
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
