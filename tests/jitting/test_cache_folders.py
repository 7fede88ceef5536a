"""A cache folder per kernel module, named by the sources it imports (issue 45, item 1).

One digest of every file under ``sim/kernels/`` and ``sim/jitting/`` named the cache folder
of every kernel, so an edit to a campaign part recompiled the combat, anomaly, event and
skirmish kernels too (35-40 s each), though none of them imports it. Now each module's
folder is named by its own import closure (:class:`sim.jitting.cachedirs.Sources`); the
names are computed on copies of the sources here; ``tests/jitting/test_cache_faults.py``
shows the combat kernel loaded from its cache after a campaign edit, in a subprocess.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from sim import runner
from sim.jitting import cachedirs, options

ROOT = Path(__file__).resolve().parents[2]

UNTOUCHED_BY_CAMPAIGN = ("sim.kernels.combat", "sim.kernels.anomaly", "sim.kernels.event",
                         "sim.kernels.skirmish", "sim.kernels.paired", "sim.kernels.dice",
                         "sim.kernels.rng")
"""Kernel modules that import nothing of ``sim/kernels/campaign/``."""

IMPORTING_RNG = ("sim.kernels.combat", "sim.kernels.anomaly", "sim.kernels.event",
                 "sim.kernels.skirmish", "sim.kernels.paired", "sim.kernels.dice",
                 "sim.kernels.artifact", "sim.kernels.campaign.game",
                 "sim.kernels.campaign.movement", "sim.kernels.rng")
"""Kernel modules that import ``rng.py``, directly or through another kernel file."""

NOT_IMPORTING_RNG = ("sim.kernels.tracks", "sim.kernels.layout", "sim.kernels.records",
                     "sim.kernels.skirmish_layout")


def copies(tmp_path: Path) -> cachedirs.Sources:
    """The sources of a copy of ``sim/kernels/`` and ``sim/jitting/`` (no caches)."""
    areas = []
    for package, folder in options.AREAS:
        copy = tmp_path / package
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
        areas.append((package, copy))
    return cachedirs.Sources(areas)


def names(sources: cachedirs.Sources, modules) -> dict[str, str]:
    return {module: options.cache_name(module, sources=sources) for module in modules}


def edit(sources: cachedirs.Sources, module: str) -> cachedirs.Sources:
    """Append a comment to ``module``'s file; fresh sources that read the edited file."""
    path = sources.file(module)
    path.write_text(path.read_text() + "\n# an edit\n")
    return cachedirs.Sources(sources.areas)


def test_a_kernel_is_cached_in_the_folder_of_its_own_module():
    from sim.kernels.combat import combat_kernel

    folder = Path(runner.cache_folder(combat_kernel))
    assert folder.parent.name == options.cache_name("sim.kernels.combat")
    assert folder.parent.name.startswith("zonesim-sim.kernels.combat-")


def test_the_copies_name_the_same_folders_as_the_checkout(tmp_path):
    """The digest covers module names and contents, not where the checkout lies."""
    modules = options.SOURCES.modules()
    assert names(copies(tmp_path), modules) == names(options.SOURCES, modules)


def test_a_campaign_edit_leaves_the_other_kernels_folders(tmp_path):
    """The guard: one digest of all files gave every kernel a new folder here."""
    sources = copies(tmp_path)
    kept = UNTOUCHED_BY_CAMPAIGN + ("sim.kernels.tracks", "sim.kernels.artifact")
    before = names(sources, kept + ("sim.kernels.campaign.game",))
    after = names(edit(sources, "sim.kernels.campaign.movement"),
                  kept + ("sim.kernels.campaign.game",))
    assert {m: after[m] for m in kept} == {m: before[m] for m in kept}
    assert after["sim.kernels.campaign.game"] != before["sim.kernels.campaign.game"]


def test_an_rng_edit_names_new_folders_for_every_module_importing_it(tmp_path):
    sources = copies(tmp_path)
    before = names(sources, IMPORTING_RNG + NOT_IMPORTING_RNG)
    after = names(edit(sources, "sim.kernels.rng"), IMPORTING_RNG + NOT_IMPORTING_RNG)
    assert all(after[m] != before[m] for m in IMPORTING_RNG)
    assert all(after[m] == before[m] for m in NOT_IMPORTING_RNG)


def test_a_patch_edit_names_new_folders_for_every_kernel(tmp_path):
    """The patches (imported by :mod:`sim.jitting.options`) change how every kernel compiles
    and how its cache files look; the views, only the campaign's."""
    sources = copies(tmp_path)
    modules = ("sim.kernels.combat", "sim.kernels.skirmish", "sim.kernels.campaign.game")
    before = names(sources, modules)
    after = names(edit(sources, "sim.jitting.inlining"), modules)
    assert all(after[m] != before[m] for m in modules)
    views = names(edit(cachedirs.Sources(sources.areas), "sim.jitting.views"), modules)
    assert [views[m] == after[m] for m in modules] == [True, True, False]


def test_the_folder_name_changes_with_the_patch_switch(monkeypatch):
    patched = options.cache_name("sim.kernels.combat")
    monkeypatch.setenv("ZONESIM_NUMBA_PATCHES", "off")
    assert options.cache_name("sim.kernels.combat") != patched


def test_a_module_outside_the_kernels_counts_its_own_file(tmp_path):
    """A jitted helper outside ``sim/kernels/`` (``sim/campaign/route.py``) is named by its
    own file and the kernel sources it imports."""
    route = ROOT / "sim" / "campaign" / "route.py"
    copy = tmp_path / "route.py"
    copy.write_text(route.read_text())
    name = options.cache_name("sim.campaign.route", copy)
    assert name == options.cache_name("sim.campaign.route", route)
    closure = options.SOURCES.closure("sim.campaign.route", route)
    assert "sim.jitting.options" in closure and "sim.kernels.combat" not in closure
    copy.write_text(route.read_text() + "\n# an edit\n")
    fresh = cachedirs.Sources(options.AREAS)  # each file is read once per instance
    assert options.cache_name("sim.campaign.route", copy, fresh) != name


def _parsed_imports(sources: cachedirs.Sources, module: str) -> set[str]:
    """What Python's parser, reading the whole file, finds ``module`` importing inside the
    areas (the slow reading :meth:`Sources.imports` must agree with)."""
    path = sources.file(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = cachedirs._imported(list(ast.walk(ast.parse(path.read_text()))), package)
    return {name for name in found if sources.file(name) is not None}


def test_the_line_scan_finds_every_import_the_parser_finds():
    sources = options.SOURCES
    for module in sources.modules():
        scanned = {name for name in sources.imports(module, sources.file(module))
                   if sources.file(name) is not None}
        assert scanned >= _parsed_imports(sources, module), module


def test_relative_multiline_and_commented_imports_are_followed(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__", "a", "b", "c", "d", "e", "sub/__init__", "sub/f"):
        (package / f"{name}.py").write_text("")
    (package / "a.py").write_text(
        '"""Prose: import nothing here, from the table import of old."""\n'
        "from . import b\n"
        "from .c import (  # a comment with a ) in it\n"
        "    thing,\n"
        ")\n"
        "if True:\n"
        "    import pkg.d as d\n"
        "from pkg.sub import \\\n    f\n")
    sources = cachedirs.Sources([("pkg", package)])
    assert set(sources.closure("pkg.a")) == {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d",
                                             "pkg.sub", "pkg.sub.f"}
