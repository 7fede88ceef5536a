"""Each kernel's cold compile with the numba compiler patches all on, all off, and each one off
alone (issue 45, item 3), beside the load.

Run::

    python benchmarks/bench_compile.py                      # every kernel, every patch
    python benchmarks/bench_compile.py --kernels combat campaign --jobs 2

Each (kernel, patches) pair runs in a fresh subprocess with an empty, temporary
``NUMBA_CACHE_DIR`` and ``ZONESIM_NUMBA_PATCHES`` set to ``on``, ``off`` or
``without:NAME`` (:data:`sim.jitting.options.PATCHES`). The subprocess first compiles
a trivial function (numba's own start-up, the same for every kernel), then runs the
kernel's command twice in-process; the compile is the first run less the second, in CPU
seconds of the process (one numba thread, a few trials), which the machine's load
changes far less than wall seconds, so that pairs can run side by side (``--jobs``) on a
busy machine. The table gives seconds with all patches on, all off, and each patch off
alone, then what each patch saves, in percent of the kernel's cold compile with all
patches on (the time it adds when off alone); ``uptime``'s load is printed before and
after. A patch that saves less than :data:`KEEP_PERCENT` % of every kernel's cold compile
is not worth its numba internals.

Measured (issue 45, item 3; this 2-core machine shared with other jobs, under ``nice -n
5``; CPU seconds of the cold compile). Campaign and combat: main at 7d67c72, load 8-21. The
others: main at 9ca0f4c, one compile at a time, load 12-17, except skirmish (``on`` alone
at load 5-15, each patch off two side by side, load 11-17, 20-40 minutes of wall each) and
anomaly, event, pool ``on`` and ``off``, measured again at load 13-16 (the first figure,
at load 5, in brackets)::

    kernel    on     off    -inlining -untyped -liveness -flags -ssa  -literals -views -nrt
    campaign  41.5   199.6  57.8      41.5     41.2      41.3   46.1  54.6      65.0   44.0
    combat    41.3   69.9   63.0      39.1     41.6      41.0   42.7  44.1      42.5   37.0
    skirmish  177.8  -      -         171.7    195.2     173.9  -     -         -      168.9
    skirmish  42.5   (one serial chunk body, main at 3942b92, load 15-16; see below)
    anomaly   6.4    6.8    6.2       6.4      6.7       6.6    6.4   6.5       6.6    6.5
              (6.1)  (6.2)
    event     6.1    6.1    5.9       6.0      6.1       6.2    6.0   6.0       5.9    5.9
              (5.3)  (5.7)
    pool      2.1    2.3    2.1       2.2      2.2       2.2    2.2   2.3       2.1    2.3
              (2.1)  (2.1)

Saved by each patch, % of the kernel's cold compile with all on: inlining 39 (campaign), 53
(combat); liveness 10 (skirmish: 195.2 against 177.8, and 12-16 % against its three
neighbours measured side by side at the same load); ssa 11, literals 32, views 57
(campaign). ``untyped`` and ``flags`` save less than 10 % on every kernel (-6 to +5 %,
within these runs' noise: one setting measured at two loads differs by up to 15 % on the
small kernels) and were removed. ``nrt`` saves 6 % of the campaign's compile and is kept for
run time, not compile time: ``_nrt=False`` spares the campaign parts the reference counts
on the arrays every thread shares (``zonesim campaign --trials 100000 --threads 1``: 10.0 s
wall with it, 12.1 s without, the same output, load 12). The skirmish kernel's other
settings were not measured (its patches are kept by the campaign's and combat's figures
anyway). After the removal, all on (load 13-17): combat 36.4, anomaly 6.7, event 6.4,
pool 2.2.

The skirmish kernel's second row (issue 45): its fight was inlined into two ``prange``
kernels, and numba's parallel passes on that body (``parfor_fusion_pass`` 77.5 CPU s,
``parfor_prelowering_pass`` 21.4, parfor lowering 13.9) took 113 of its 170 CPU s (a
``numba.core.event`` listener's exclusive time per pass; ``on`` again at main d883ce6, load
7-12: 172.7). Both firefight kernels now drive one serial ``play_chunk`` from plain
Python (``pool_kernel``), which allocates nothing and runs without reference counts
(``_nrt=False``): 42.5 CPU s with all patches on at load 15-16 (the profile, load 14-16:
LLVM 19.4, lowering 5.9, inlining 4.6, typing 3.0), and the paired kernel compiles nothing
more. The first row's ``-liveness`` (the one figure that kept that patch) is the old
kernel's. On the new one (main at 2d6d067, ``--kernels skirmish --patches liveness --jobs
1``, load 0.7-1.0): all on 47.1, all off 122.9, without liveness 45.3 CPU s: the patch saves
-4 %, under :data:`KEEP_PERCENT` on every kernel now (campaign -1 %, combat +1 % above), and
was removed (``sim/jitting/liveness.py``, its ``PATCHES`` entry and its tests), as
``untyped`` and ``flags`` were.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KEEP_PERCENT = 10.0
"""The least share of some kernel's cold compile a patch must save to be kept."""

KERNELS = {
    "combat": ["combat", "--scenario", "base", "--enemy", "Bloodsucker", "--trials", "2000",
               "--seed", "5", "--format", "json"],
    "anomaly": ["anomaly", "--scenario", "base", "--anomaly", "all", "--trials", "500",
                "--seed", "5", "--format", "json"],
    "event": ["event", "--scenario", "base", "--event", "all", "--trials", "500", "--seed", "5",
              "--format", "json"],
    "campaign": ["campaign", "--trials", "100", "--seed", "5", "--format", "json"],
    "skirmish": ["skirmish", "--trials", "500", "--seed", "5", "--format", "json"],
    "pool": ["prob", "pool", "--dice", "4", "--trials", "2000", "--seed", "3", "--format",
             "json"],
}
"""A command per kernel that compiles it (and what it calls) with few trials."""

CHILD = """
import json, resource, sys, time
import numba
from click.testing import CliRunner
from sim.cli import main
numba.njit(lambda x: x + 1)(1)  # numba's own start-up, outside every kernel's figure

def once():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu, wall = usage.ru_utime + usage.ru_stime, time.perf_counter()
    result = CliRunner().invoke(main, sys.argv[1:])
    assert result.exit_code == 0, result.output
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime - cpu, time.perf_counter() - wall

cold, warm = once(), once()
print(json.dumps({"cpu": cold[0] - warm[0], "wall": cold[1] - warm[1]}))
"""


def patch_names() -> tuple[str, ...]:
    """The patches (:data:`sim.jitting.options.PATCHES`), read without loading numba here."""
    text = (ROOT / "sim" / "jitting" / "options.py").read_text()
    start = text.index("PATCHES = (")
    return tuple(json.loads("[" + text[start + 11:text.index(")", start)].strip() + "]"))


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def cold_compile(kernel: str, patches: str) -> dict:
    """CPU and wall seconds of ``kernel``'s cold compile under ``ZONESIM_NUMBA_PATCHES=patches``."""
    with tempfile.TemporaryDirectory(prefix="zonesim-bench-") as cache:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env.update(NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", ZONESIM_NUMBA_PATCHES=patches,
                   PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
        done = subprocess.run([sys.executable, "-c", CHILD, *KERNELS[kernel]], env=env,
                              capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{kernel} with ZONESIM_NUMBA_PATCHES={patches} failed:\n"
                         f"{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", nargs="+", choices=sorted(KERNELS), default=list(KERNELS))
    parser.add_argument("--patches", nargs="+", default=None,
                        help="patches to time off alone (default: every one)")
    parser.add_argument("--jobs", type=int, default=2, help="subprocesses side by side")
    args = parser.parse_args()
    names = tuple(args.patches or patch_names())
    settings = ["on", "off", *(f"without:{name}" for name in names)]
    print(f"before: {uptime()}", flush=True)
    pairs = [(kernel, setting) for setting in settings for kernel in args.kernels]

    def timed(pair):
        result = cold_compile(*pair)
        print(f"  {pair[0]:<10}{pair[1]:<20}{result['cpu']:7.1f} CPU s {result['wall']:6.0f} "
              f"wall s   {uptime()}", flush=True)
        return result

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = dict(zip(pairs, pool.map(timed, pairs), strict=True))
    print(f"after:  {uptime()}")
    print(f"\ncold compile, CPU s (wall s beside), {args.jobs} side by side, one numba thread")
    head = f"{'kernel':<10}{'all on':>14}{'all off':>14}" + "".join(
        f"{'-' + name:>14}" for name in names)
    print(head)
    for kernel in args.kernels:
        cells = [results[kernel, setting] for setting in settings]
        print(f"{kernel:<10}" + "".join(f"{c['cpu']:>7.1f} ({c['wall']:>4.0f})" for c in cells))
    print(f"\nsaved by each patch, % of the cold compile with all on (keep: >= {KEEP_PERCENT:g} "
          f"for some kernel)")
    print(f"{'kernel':<10}{'all':>14}" + "".join(f"{name:>14}" for name in names))
    keep = dict.fromkeys(names, False)
    for kernel in args.kernels:
        on = results[kernel, "on"]["cpu"]
        row = [100 * (results[kernel, "off"]["cpu"] - on) / on]
        for name in names:
            saved = 100 * (results[kernel, f"without:{name}"]["cpu"] - on) / on
            keep[name] |= saved >= KEEP_PERCENT
            row.append(saved)
        print(f"{kernel:<10}" + "".join(f"{x:>13.0f}%" for x in row))
    print("\nkeep: " + ", ".join(n for n in names if keep[n]) + "; remove: "
          + (", ".join(n for n in names if not keep[n]) or "none"))


if __name__ == "__main__":
    main()
