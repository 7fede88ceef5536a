"""No silent passes: every declared test dependency is installed.

``pytest.importorskip`` of a declared dependency turns a broken environment
into skipped tests that look like a pass; the suite imports them plainly
instead, and this test names any that is missing (``pyproject.toml``,
``[project.optional-dependencies] test``).
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_declared_test_dependency_is_installed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["optional-dependencies"]["test"]
    names = [re.match(r"[A-Za-z0-9_.-]+", spec).group(0) for spec in declared]
    assert names, "no test dependencies declared"
    missing = []
    for name in names:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    assert not missing, f"declared test dependencies not installed: {missing}"
