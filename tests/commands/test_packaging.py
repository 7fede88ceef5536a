"""The explicit package list in pyproject.toml covers the whole tree."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_and_config_folder_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "sim").rglob("__init__.py")
    }
    on_disk |= {"sim._configs"} | {
        f"sim._configs.{p.name}" for p in (ROOT / "configs").iterdir() if p.is_dir()
        and not p.name.startswith((".", "_"))
    }
    assert on_disk == listed
