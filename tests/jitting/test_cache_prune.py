"""Stale kernel cache folders are pruned, and nothing else (issue 43, item 2).

With ``NUMBA_CACHE_DIR=/tmp`` (a common setting) the cache folder sits beside the user's own
folders; the prune removed every ``zonesim-*`` folder unused for 14 days, a user's
``zonesim-photos`` included. Now only a folder zonesim made (its marker file inside) holding
nothing but cache files goes. The prune is called directly on temporary folders: no kernel
compiles here.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sim.jitting import cachedirs

CURRENT = "zonesim-" + "a" * 16
"""The cache folder in use (never pruned)."""

OLD = "zonesim-" + "0123456789abcdef"
"""The name of an older cache folder (a digest of older sources)."""

SUB = "campaign_1546f40e278afc4bc0219e0aa217d01b8e9774bf"
"""A sub-folder of a cache folder, as numba names it (one per kernel source folder)."""

CACHE_FILES = ("game.play_run-379.py311.nbi", "game.play_run-379.py311.1.nbc",
               "game.play_run-379.py311.nbi.lock", "zonesim-index.lock",
               "dice.pool_kernel-40.py311.2.nbc.tmp.0123456789abcdef")


def stale(path: Path) -> Path:
    """Make ``path`` look unused for longer than the prune waits (a day more)."""
    then = time.time() - (cachedirs.STALE_DAYS + 1) * 86400
    os.utime(path, (then, then), follow_symlinks=False)
    return path


def cache_folder(base: Path, name: str = OLD, marked: bool = True) -> Path:
    """A cache folder as zonesim leaves it: marker, a sub-folder of numba's files, locks."""
    folder = base / name
    sub = folder / SUB
    sub.mkdir(parents=True)
    (folder / "tests_7b2908f1dbb555e53ff8c49fc55a14c33695aa45").mkdir()  # empty, as numba makes
    for file in CACHE_FILES:
        (sub / file).write_bytes(b"machine code")
    if marked:
        cachedirs.mark(folder)
    for path in (sub, folder):
        stale(path)
    return folder


def prune(base: Path) -> None:
    (base / CURRENT).mkdir(exist_ok=True)
    cachedirs.prune(base, {CURRENT})


def test_a_users_folder_named_zonesim_something_survives(tmp_path):
    photos = tmp_path / "zonesim-photos"
    photos.mkdir()
    (photos / "holiday.jpg").write_bytes(b"\xff\xd8 a photo")
    stale(photos)
    prune(tmp_path)
    assert (photos / "holiday.jpg").read_bytes() == b"\xff\xd8 a photo"


def test_an_unmarked_folder_with_a_cache_name_and_cache_files_survives(tmp_path):
    """A folder of an older zonesim (no marker) or a user's copy: never guessed at."""
    folder = cache_folder(tmp_path, marked=False)
    prune(tmp_path)
    assert folder.is_dir() and len(list(folder.rglob("*"))) == len(CACHE_FILES) + 2


def test_a_marked_stale_cache_folder_is_pruned_with_one_line(tmp_path, capsys):
    folder = cache_folder(tmp_path)
    prune(tmp_path)
    assert not folder.exists()
    assert (tmp_path / CURRENT).is_dir()
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("zonesim: removed 1 kernel cache folder") and str(folder) in line


def test_a_marked_cache_folder_in_use_stays(tmp_path):
    folder = cache_folder(tmp_path)
    os.utime(folder)  # a process started with it a moment ago
    prune(tmp_path)
    assert folder.is_dir()


@pytest.mark.parametrize("where", ["top", "sub-folder"])
def test_a_marked_folder_holding_a_foreign_file_is_kept_whole(tmp_path, where):
    folder = cache_folder(tmp_path)
    inside = folder if where == "top" else folder / SUB
    (inside / "notes.txt").write_text("mine")
    stale(inside)
    prune(tmp_path)
    assert (inside / "notes.txt").read_text() == "mine"
    assert all((folder / SUB / file).is_file() for file in CACHE_FILES)  # none taken either
    assert (folder / cachedirs.MARKER).is_file()


def test_a_folder_whose_marker_says_something_else_is_kept(tmp_path):
    folder = cache_folder(tmp_path, marked=False)
    (folder / cachedirs.MARKER).write_text("my own notes\n")
    stale(folder)
    prune(tmp_path)
    assert folder.is_dir()


def test_a_symbolic_link_named_zonesim_is_not_followed(tmp_path):
    """A link beside the cache pointing at a stale, marked cache folder elsewhere: neither the
    link nor anything behind it is touched."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = cache_folder(elsewhere)
    base = tmp_path / "base"
    base.mkdir()
    link = base / "zonesim-x"
    link.symlink_to(target, target_is_directory=True)
    stale(link)
    prune(base)
    assert link.is_symlink() and target.is_dir()
    assert len(list(target.rglob("*"))) == len(CACHE_FILES) + 3


@pytest.mark.parametrize("name", ["game.play_run-379.py311.1.nbc", "linked_folder"])
def test_a_marked_folder_holding_a_symbolic_link_is_kept_and_the_link_not_followed(
        tmp_path, name):
    """A link inside a cache folder (to a user's file with a cache file's name, or to a user's
    folder) is not a cache file: the folder stays, and what the link points at too."""
    user = tmp_path / "user"
    user.mkdir()
    (user / "game.play_run-379.py311.1.nbc").write_text("mine")
    base = tmp_path / "base"
    base.mkdir()
    folder = cache_folder(base)
    target = user / name if name.endswith(".nbc") else user
    (folder / name).symlink_to(target)
    stale(folder)
    prune(base)
    assert (user / "game.play_run-379.py311.1.nbc").read_text() == "mine"
    assert (folder / cachedirs.MARKER).is_file()


MODULE_OLD = "zonesim-sim.kernels.combat-" + "0123456789abcdef"
"""An older cache folder of one kernel module (issue 45, item 1: a folder per module)."""

MODULE_NOW = "zonesim-sim.kernels.skirmish-" + "fedcba9876543210"
"""The folder of a kernel module as its sources are now."""


def test_a_stale_module_folder_of_older_sources_is_pruned(tmp_path):
    old = cache_folder(tmp_path, MODULE_OLD)
    prune(tmp_path)
    assert not old.exists()


def test_a_stale_module_folder_of_the_sources_as_they_are_now_stays(tmp_path):
    """A kernel not run for 14 days keeps its folder while its sources are unchanged: the
    prune keeps every name of the current sources, used by this process or not."""
    now = cache_folder(tmp_path, MODULE_NOW)
    cachedirs.prune(tmp_path, {MODULE_NOW})
    assert (now / SUB / CACHE_FILES[0]).is_file()


def test_a_folder_in_use_is_made_marked_and_set_in_time(tmp_path):
    folder = stale(cache_folder(tmp_path, MODULE_OLD))
    cachedirs.use(folder)
    cachedirs.prune(tmp_path, set())
    assert folder.is_dir() and (folder / cachedirs.MARKER).is_file()
    cachedirs.use(tmp_path / MODULE_NOW)
    assert (tmp_path / MODULE_NOW / cachedirs.MARKER).is_file()


def test_the_folder_in_use_gets_its_marker(tmp_path):
    folder = tmp_path / CURRENT
    folder.mkdir()
    cachedirs.mark(folder)
    cachedirs.mark(folder)  # a second process: the marker is kept as it is
    text = (folder / cachedirs.MARKER).read_text()
    assert text.startswith(cachedirs.MARKER_LINE) and "14 days" in text
