"""The numba cache never serves stale or damaged machine code; the patches are optional
(issue 23, items 1-3 and 9).

Each case runs ``zonesim`` in a subprocess on a copy of the package (``sim/`` and
``configs/``), with its own home and cache folders, so that a changed kernel source or
a damaged cache file touches nothing of the checkout and no other test.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.hostile import ROOT

COPY_TIMEOUT = 1800
"""A copy's command may compile a kernel cold without the numba patches: about 90 s
for the campaign kernel on an idle two-core machine, several times that at a load of 8
(it ran past 300 s there); the limit only catches a hang."""
POOL = ("prob", "pool", "--dice", "4", "--trials", "20000", "--seed", "3", "--format", "json")
"""A small command whose kernel (``dice.pool_kernel``) calls another kernel file (``rng.py``)."""

# ``rng.py``'s trial multiplier: every random stream changes with it (a changed rule in a
# file other than the one defining the kernel, which numba alone does not notice).
OLD_MUL = "0xD6E8FEB86659FD93"
NEW_MUL = "0xD6E8FEB86659FD95"


def _copy_project(tmp_path: Path) -> tuple[Path, dict]:
    """A copy of the package without caches under ``tmp_path``, and an environment that
    reaches only it."""
    proj = tmp_path / "proj"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "sim", proj / "sim", ignore=ignore)
    shutil.copytree(ROOT / "configs", proj / "configs", ignore=ignore)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("NUMBA_") and k not in ("PYTHONPATH", "ZONESIM_NUMBA_PATCHES")}
    env.update(PYTHONPATH=str(proj), HOME=str(tmp_path / "home"),
               XDG_CACHE_HOME=str(tmp_path / "xdg"))
    return proj, env


@pytest.fixture
def project(tmp_path):
    """A copy of the package without caches, and an environment that reaches only it."""
    return _copy_project(tmp_path)


@pytest.fixture(scope="module")
def pool_cached(tmp_path_factory):
    """One copy of the package, the pool kernel compiled once into its cache (a cold
    compile), that cache kept aside and the run's numbers: the damaged-cache cases each
    start from that cache (:func:`fresh_pool_cache`) instead of compiling it cold again,
    and the unwritable-cache cases compare with those numbers. Numba's cache folder names
    the copy's path, so every case that reuses the cache runs this one copy."""
    tmp = tmp_path_factory.mktemp("pool")
    proj, env = _copy_project(tmp)
    env["NUMBA_CACHE_DIR"] = str(tmp / "cache")
    good = zonesim_copy(POOL, proj, env)
    assert "compiling kernel" in good.stderr
    shutil.copytree(tmp / "cache", tmp / "kept")
    return SimpleNamespace(proj=proj, env=env, cache=tmp / "cache", kept=tmp / "kept",
                           counts=counts(good), stdout=good.stdout)


def fresh_pool_cache(pool) -> Path:
    """The shared copy's cache as the first compile left it (an earlier case damaged it)."""
    shutil.rmtree(pool.cache)
    shutil.copytree(pool.kept, pool.cache)
    return pool.cache


def zonesim_copy(args, proj: Path, env: dict, **kwargs):
    result = subprocess.run([sys.executable, "-m", "sim.cli", *args], cwd=proj, env=env,
                            capture_output=True, text=True, timeout=COPY_TIMEOUT, **kwargs)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    return result


def counts(result) -> list:
    return [row["mc"] for row in json.loads(result.stdout)["outcomes"]]


def cache_folders(base: Path) -> list[Path]:
    return sorted(base.glob("zonesim-*"))


def warnings_of(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if "warning" in line]


# --- 1. a changed kernel source compiles afresh ------------------------------------------------

@pytest.mark.compile
@pytest.mark.subprocess
def test_a_changed_kernel_source_compiles_afresh_and_gives_its_numbers(pool_cached, tmp_path):
    """Item 1: after an edit of ``rng.py`` alone the pool kernel (in ``dice.py``) compiles
    again and gives the new rule's numbers, those of a compile in an empty cache, with the
    README's install (no ``NUMBA_CACHE_DIR``: numba would cache beside the sources) and
    with ``NUMBA_CACHE_DIR`` set. numba alone reloads the old machine code here.

    Both places start from the cache of the first compile (:func:`pool_cached`, copied
    beside the sources: what lies under a cache folder does not depend on the base), are
    seen to load it without a compile, and are compared with one compile of the edited
    sources in an empty cache."""
    pool = pool_cached
    proj, beside = pool.proj, pool.proj / "sim" / "kernels" / "__pycache__"
    places = {pool.cache: pool.env,
              beside: {k: v for k, v in pool.env.items() if k != "NUMBA_CACHE_DIR"}}
    fresh_pool_cache(pool)
    for folder in pool.kept.glob("zonesim-*"):
        shutil.copytree(folder, beside / folder.name)
    rng = proj / "sim" / "kernels" / "rng.py"
    text = rng.read_text()
    assert OLD_MUL in text
    try:
        for env in places.values():
            again = zonesim_copy(POOL, proj, env)
            assert "compiling kernel" not in again.stderr and counts(again) == pool.counts
        rng.write_text(text.replace(OLD_MUL, NEW_MUL))
        changed = [zonesim_copy(POOL, proj, env) for env in places.values()]
        fresh = zonesim_copy(POOL, proj, {**pool.env, "NUMBA_CACHE_DIR": str(tmp_path)})
        folders = {base: [f.name.rsplit("-", 1)[0] for f in cache_folders(base)]
                   for base in places}  # one per module and version of its sources
    finally:  # the copy is shared with the other cases
        rng.write_text(text)
        for folder in beside.glob("zonesim-*"):
            shutil.rmtree(folder)
    for result in changed:
        assert "compiling kernel" in result.stderr
        assert counts(result) != pool.counts and counts(result) == counts(fresh)
    assert all(names.count("zonesim-sim.kernels.dice") == 2 for names in folders.values())
    assert not (pool.proj.parent / "home").exists() and not (pool.proj.parent / "xdg").exists()


@pytest.mark.compile
@pytest.mark.subprocess
def test_a_kernel_loads_from_its_cache_after_a_campaign_edit(pool_cached):
    """Issue 45, item 1: after an edit to a campaign part (which the kernel does not import)
    a kernel runs from its cache, with no compile notice and the same output. Under one
    digest of all kernel files it compiled again.

    The kernel is the pool kernel (``dice.py``, importing ``rng.py`` as the combat, anomaly,
    event and skirmish kernels do, and nothing of ``sim/kernels/campaign/``), from the
    compile :func:`pool_cached` shares: which folder a module's kernels are cached in does
    not depend on the kernel, and ``tests/jitting/test_cache_folders.py`` checks every
    kernel module's folder name after such an edit; this case shows the process uses that
    folder. The combat kernel compiled cold here before (40 s, minutes under load)."""
    proj, env = pool_cached.proj, pool_cached.env
    fresh_pool_cache(pool_cached)
    part = proj / "sim" / "kernels" / "campaign" / "movement.py"
    text = part.read_text()
    part.write_text(text + "\n# an edit to a campaign part\n")
    try:
        again = zonesim_copy(POOL, proj, env)
    finally:
        part.write_text(text)  # the copy is shared with the other cases
    assert "compiling kernel" not in again.stderr and again.stdout == pool_cached.stdout


@pytest.mark.compile
@pytest.mark.subprocess
def test_a_read_only_package_caches_in_the_user_cache_folder(project, tmp_path):
    """Item 1: where ``__pycache__`` beside the kernels cannot be made (an installed,
    read-only package; here a file of that name, which even root cannot write into) the
    digest-named folder is made in the user's cache folder."""
    proj, env = project
    (proj / "sim" / "kernels" / "__pycache__").write_text("not a folder")
    zonesim_copy(POOL, proj, env)
    assert len(cache_folders(tmp_path / "xdg" / "zonesim")) >= 1


@pytest.mark.compile
@pytest.mark.subprocess
def test_an_unwritable_numba_cache_dir_falls_back_with_one_warning(project, tmp_path):
    proj, env = project
    (tmp_path / "file").write_text("not a folder")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "file" / "cache")
    result = zonesim_copy(POOL, proj, env)
    [warning] = warnings_of(result)
    assert str(tmp_path / "file" / "cache") in warning and "cannot be written" in warning
    assert len(cache_folders(proj / "sim" / "kernels" / "__pycache__")) >= 1


@pytest.mark.compile
@pytest.mark.subprocess
def test_no_writable_cache_folder_anywhere_still_runs(project, tmp_path):
    """Without any writable place (``NUMBA_CACHE_DIR``, ``__pycache__`` beside the kernels,
    the user's cache folder: here each is a file) kernels run compiled, after one warning
    about the cache; ``--help`` loads no kernel and says nothing."""
    proj, env = project
    for path in (tmp_path / "file", proj / "sim" / "kernels" / "__pycache__", tmp_path / "xdg"):
        path.write_text("not a folder")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "file" / "cache")
    assert zonesim_copy(["--help"], proj, env).stderr == ""
    result = zonesim_copy(POOL, proj, env)
    [warning] = warnings_of(result)
    assert "no writable numba cache folder" in warning


# --- 3. a damaged or unwritable cache ---------------------------------------------------------

def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _zero(path: Path) -> None:
    path.write_bytes(bytes(path.stat().st_size))


def _garble(path: Path) -> None:
    """Flip one byte in the middle: the machine code, not the pickle's structure."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x5A
    path.write_bytes(bytes(data))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


DAMAGE = {"truncated": _truncate, "zeroed": _zero, "garbled": _garble, "empty": _empty}


@pytest.mark.compile
@pytest.mark.subprocess
@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("suffix", ["nbi", "nbc"])
def test_a_damaged_cache_entry_is_compiled_afresh_with_one_warning(pool_cached, damage,
                                                                   suffix):
    """Item 3: a truncated, zeroed, garbled or empty index (``.nbi``) or data file
    (``.nbc``) of a cached kernel gives one warning naming the cache folder and the right
    numbers (compiled afresh), and the next run loads the replaced entry silently. The
    cache is the one the pool kernel's first compile wrote (:func:`pool_cached`)."""
    proj, env = pool_cached.proj, pool_cached.env
    [path] = fresh_pool_cache(pool_cached).glob(f"zonesim-*/*/dice.pool_kernel-*.{suffix}")
    DAMAGE[damage](path)
    result = zonesim_copy(POOL, proj, env)
    assert counts(result) == pool_cached.counts
    [warning] = warnings_of(result)
    assert "damaged numba cache entry" in warning and str(path.parent) in warning
    later = zonesim_copy(POOL, proj, env)
    assert later.stderr == "" and counts(later) == pool_cached.counts


def _no_space(limit: int):
    """A child process whose files cannot grow past ``limit`` bytes (EFBIG, as a full disk)."""
    def limit_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limit_files


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB file system (a tmpfs; root only), or None where none can be mounted."""
    mount = tmp_path / "full"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True) if shutil.which("mount") else None
    if made is None or made.returncode != 0:
        yield None
        return
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)


@pytest.mark.compile
@pytest.mark.subprocess
@pytest.mark.parametrize("fault", ["full file system", "file size limit"])
def test_a_cache_that_cannot_be_written_runs_uncached_with_one_warning(project, tmp_path,
                                                                       full_disk, fault,
                                                                       pool_cached):
    """Item 3: a cache folder on a full disk (ENOSPC on a 64 KiB tmpfs, where this user may
    mount one) or whose files cannot grow (EFBIG under a file size limit) gives one warning
    naming the folder, the right numbers (those of a compile into a writable cache,
    :func:`pool_cached`) and exit status 0; nothing half-written stays."""
    proj, env = project
    if fault == "full file system":
        if full_disk is None:
            pytest.skip("no tmpfs can be mounted here (needs root)")
        base, extra = full_disk, {}
    else:
        base, extra = tmp_path / "limited", {"preexec_fn": _no_space(8192)}
    env["NUMBA_CACHE_DIR"] = str(base)
    result = zonesim_copy(POOL, proj, env, **extra)
    assert counts(result) == pool_cached.counts
    [warning] = warnings_of(result)
    assert "cannot write the numba cache" in warning and str(base) in warning
    assert not list(base.rglob("*.tmp.*"))


# --- 9. numba's internals: the patches are optional ---------------------------------------------

CAMPAIGN_JSON = ("campaign", "--trials", "2000", "--seed", "5", "--format", "json")


OTHER_NUMBA = ("-c", "import numba, runpy; numba.__version__ = '0.99.0'; "
               "runpy.run_module('sim.cli', run_name='__main__')")
"""``zonesim`` under a numba version the patches were not checked against (issue 45, item 2)."""


@functools.cache
def patched_output(args: tuple[str, ...]):
    """``zonesim ARGS``'s JSON from the checkout with its patched, cached kernels: computed
    once for both ways of switching the patches off."""
    patched_env = {k: v for k, v in os.environ.items() if k != "ZONESIM_NUMBA_PATCHES"}
    return json.loads(zonesim_copy(args, ROOT, patched_env).stdout)


@pytest.mark.compile
@pytest.mark.subprocess
@pytest.mark.parametrize("way", [pytest.param("patches off", marks=pytest.mark.slow),
                                 "another numba"])
def test_the_kernels_give_the_same_numbers_with_the_numba_patches_off(project, tmp_path, way):
    """Item 9: with ``ZONESIM_NUMBA_PATCHES=off`` (plain numba), and under a numba version
    outside the checked ones (issue 45, item 2: plain numpy views, numba's default ``_nrt``),
    the kernels compile and give bit-identical results to the checkout's patched kernels,
    cached (sealed files: the lock and seals hold under any numba) in folders of their own.

    Which kernels: the campaign kernel, the only one with code of its own for the patches
    off (:mod:`sim.jitting.views`' plain views, numba's default ``_nrt`` in its parts), and
    the dice pool kernel, a parallel (``prange``) kernel inlining ``inline="always"``
    helpers, as the combat, anomaly and event kernels are. Those three compile the same
    source, patches on or off, only through numba's passes with or without the compiler
    patches, which the campaign and pool kernels go through here as well; the patches
    change compile time, not code (``tests/jitting/test_numba_compile_speed.py`` compares
    the SSA and literal patches with numba's own). Compiling them here too
    (combat: 70 s of CPU without the patches, once per way) proved nothing more.

    The campaign kernel compiles in about 200 s of CPU without the patches (41 s with
    them), so it compiles in the "patches off" way only: both ways compile the same code
    (no patch active,
    :data:`sim.jitting.options.ACTIVE` ``== ()``, so plain views and default ``_nrt`` in
    both; ``tests/jitting/test_other_numba.py`` checks that an unchecked numba switches
    every patch off), and the other numba's own paths (its cache folder names, the cache
    files' lock tried on a temporary folder first) are the same for every kernel."""
    proj, env = project
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    if way == "patches off":
        env["ZONESIM_NUMBA_PATCHES"] = "off"
    for args in (POOL, CAMPAIGN_JSON) if way == "patches off" else (POOL,):
        if way == "patches off":
            plain = zonesim_copy(args, proj, env)
        else:
            plain = subprocess.run([sys.executable, *OTHER_NUMBA, *args], cwd=proj, env=env,
                                   capture_output=True, text=True, timeout=COPY_TIMEOUT)
            assert plain.returncode == 0 and "Traceback" not in plain.stderr, plain.stderr
        assert "compiling kernel" in plain.stderr and "warning" not in plain.stderr
        assert patched_output(args) == json.loads(plain.stdout)
    from sim.jitting import cachefiles, options

    names = {folder.name for folder in cache_folders(tmp_path / "cache")}
    assert options.cache_name("sim.kernels.dice") not in names  # the patched kernels' folder
    assert any(name.startswith("zonesim-sim.kernels.dice-") for name in names)
    indexes = list((tmp_path / "cache").rglob("*.nbi"))
    assert indexes and all(path.read_bytes().startswith(cachefiles.MAGIC) for path in indexes)


def test_the_patches_stay_off_outside_the_checked_numba_versions(monkeypatch):
    """Item 9: ``pyproject.toml`` allows only the numba versions the patches were checked
    against, and :func:`sim.jitting.options.patched` refuses any other one."""
    import tomllib

    import numba

    from sim.jitting import options

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [numba_dep] = [d for d in deps if d.startswith("numba")]
    for version in options.CHECKED_NUMBA:
        assert f">={version}" in numba_dep
    assert "<" in numba_dep
    assert options.patched()
    monkeypatch.setattr(numba, "__version__", "0.99.0")
    assert not options.patched()
    monkeypatch.setattr(numba, "__version__", options.CHECKED_NUMBA[0] + ".1")
    monkeypatch.setenv("ZONESIM_NUMBA_PATCHES", "off")
    assert not options.patched()


@pytest.mark.parametrize("module", ["inlining", "ssa", "cachefiles"])
def test_each_patch_leaves_a_numba_without_its_function_alone(module, monkeypatch):
    """Item 9: "if numba no longer has that function, nothing is changed": each patch's
    ``install`` against a numba module lacking the function it replaces changes nothing
    and raises nothing."""
    import importlib

    patch = importlib.import_module(f"sim.jitting.{module}")
    targets = {
        "inlining": ("numba.core.inline_closurecall", "copy"),
        "ssa": ("numba.core.ssa", "_run_ssa"),
        "cachefiles": ("numba.core.caching", "IndexDataCacheFile"),
    }
    name, attribute = targets[module]
    target = importlib.import_module(name)
    monkeypatch.delattr(target, attribute)
    before = dict(vars(target))
    patch.install()
    assert dict(vars(target)) == before
