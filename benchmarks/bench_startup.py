"""Start-up and wall times of zonesim commands before and after issue 13, beside the load.

Run (after ``pip install -e .`` in each checkout)::

    git worktree add --detach /tmp/fa-before d6e8265
    python3 -m venv /tmp/fa-before/.venv && /tmp/fa-before/.venv/bin/pip install -e /tmp/fa-before
    python benchmarks/bench_startup.py --before /tmp/fa-before/.venv/bin/python \\
        --after .venv/bin/python

Each checkout uses its own numba cache (``<checkout>/.numba_cache``), warmed by one run
of every command first, so the figures are cached ("warm") runs. Every figure is the
median of ``--repeat`` runs, the two checkouts taking turns so that both see the same
load, and is printed with the 1-minute load average of this machine during its runs
(other jobs share it). Kernel speed is measured in-process through ``sim.runner`` (the
issue allows at most a 10 % drop).

``--compile`` instead runs, in an empty numba cache, commands that between them compile
every kernel (``zonesim report`` first) and prints each kernel's compile time and each
command's first-run wall time (the figures behind the compile notice). Kernels that
``zonesim report`` compiles in its second process (``sim/compiling.py``) overlap with the
report's own, so a kernel's time there is from its notice to the next one.

``--first-command REPO[@REF]`` clones the repository into a temporary folder (checking out
``REF``, a branch or a commit) and times the README's first command there exactly as a new
user runs it (no ``NUMBA_CACHE_DIR``, no active venv): the install, the first ``zonesim
report`` and the whole, with each compile notice's time, and the load average (the figure
behind the README's first-run statement).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "zonesim --help": ["--help"],
    "zonesim combat --enemy Bloodsucker --trials 1000000":
        ["combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--trials", "1000000"],
    "zonesim campaign --trials 1000000": ["campaign", "--trials", "1000000"],
}
TARGETS = {"zonesim --help": 0.3, "zonesim combat --enemy Bloodsucker --trials 1000000": 0.8,
           "zonesim campaign --trials 1000000": 2.0}

IMPORT = "import sim.cli"

KERNEL_SPEED = """
import time
from sim.encounter import combat as lib
from sim.experiments import campaign, combat
from sim.rules import load_ruleset
from sim.campaign.compile import compile_campaign
from sim.rules.scenario import load_scenario
rs = load_ruleset(None)
spec = lib.compile_combat(rs, "Strelok", "Bandit", "Stalker suit", ("AK-74",), ("Stimulant",),
                          lib.CombatPolicy(heal_at=2))
arrays = compile_campaign(load_scenario(None))
def best(func, n):
    func(1000)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        func(n)
        times.append(time.perf_counter() - start)
    return n / min(times)
print(best(lambda n: combat.simulate(spec, n, 7, threads=2), 10_000_000),
      best(lambda n: campaign.simulate(arrays, n, 7, threads=2), 200_000))
"""

FIRST_RUN = [
    ["report", "--trials", "2000", "--campaign-trials", "2000", "--format", "json"],
    ["skirmish", "--trials", "2000"],
    ["compare", "campaign", "--baseline", "", "--variant", "item=Dosimeter", "--trials", "2000"],
    ["prob", "pool", "--dice", "3", "--need", "2", "--trials", "2000"],
    ["prob", "armor", "--wounds", "3", "--resist", "3", "--durability", "4", "--tokens", "3",
     "--trials", "2000"],
    ["prob", "event", "--avoid-on", "4", "--trials", "2000"],
    ["prob", "reaction", "--skill", "3", "--trials", "2000"],
]
"""Commands that between them compile every kernel; ``report`` first, as a new user runs it."""


def checkout(python: str) -> Path:
    """The checkout a venv's python belongs to (``<checkout>/.venv/bin/python``)."""
    return Path(python).absolute().parents[2]


def env_for(python: str, cache: Path | None = None) -> dict:
    """Environment with that checkout's numba cache (or ``cache``).

    Every run also starts in its checkout, so that ``python -c`` imports that
    checkout's ``sim`` rather than the one in the current folder.
    """
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache or checkout(python) / ".numba_cache")}


def zonesim(python: str) -> str:
    """The console script beside ``python``."""
    return str(Path(python).parent / "zonesim")


def wall(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds of one run, and the 1-minute load average just after it."""
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=checkout(cmd[0]), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, os.getloadavg()[0]


def import_seconds(python: str, env: dict) -> tuple[float, float]:
    """Cumulative import time of sim.cli from ``-X importtime`` (seconds), and the load."""
    done = subprocess.run([python, "-X", "importtime", "-c", IMPORT], env=env,
                          cwd=checkout(python), check=True, capture_output=True, text=True)
    line = [r for r in done.stderr.splitlines() if r.rstrip().endswith("| sim.cli")][-1]
    return int(line.split("|")[1]) / 1e6, os.getloadavg()[0]


def median(samples: list[tuple[float, float]]) -> tuple[float, float]:
    """Median figure and the mean load over its samples."""
    return (statistics.median(s for s, _ in samples), statistics.mean(ld for _, ld in samples))


def warm(python: str) -> None:
    """Run every benchmarked command once, so the numba cache holds its kernels."""
    for args in COMMANDS.values():
        subprocess.run([zonesim(python), *args], env=env_for(python), cwd=checkout(python),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def startup_table(sides: dict[str, str], repeat: int) -> None:
    """Print the issue's table: each figure before and after, with the load average."""
    for python in sides.values():
        warm(python)
    rows = {name: {side: [] for side in sides} for name in ["import sim.cli", *COMMANDS]}
    for _ in range(repeat):
        for side, python in sides.items():
            env = env_for(python)
            rows["import sim.cli"][side].append(import_seconds(python, env))
            for name, args in COMMANDS.items():
                rows[name][side].append(wall([zonesim(python), *args], env))
    speeds: dict[str, tuple] = {}
    for _ in range(2):  # the checkouts take turns; each keeps its faster round
        for side, python in sides.items():
            rates, load = kernel_speed(python)
            if side not in speeds or rates[0] > speeds[side][0][0]:
                speeds[side] = (rates, load)
    print(f"{'wall time, cached kernels (s)':55} {'target':>7}  "
          + "  ".join(f"{side + ' (load)':>16}" for side in sides) + "  met")
    for name, samples in rows.items():
        figures = {side: median(samples[side]) for side in sides}
        target = TARGETS.get(name)
        last = figures[list(sides)[-1]][0]
        met = "" if target is None else ("yes" if last <= target else "no")
        print(f"{name:55} {'' if target is None else f'<= {target}':>7}  "
              + "  ".join(f"{v:8.2f} ({ld:4.2f})" for v, ld in figures.values()) + f"  {met}")
    print()
    print(f"{'kernel speed (2 threads)':55} {'':>7}  "
          + "  ".join(f"{side + ' (load)':>16}" for side in sides) + "  change")
    for i, (name, unit, scale) in enumerate([("combat kernel, Bandit fight", "M/s", 1e6),
                                             ("campaign kernel, base scenario", "k/s", 1e3)]):
        values = [speeds[side][0][i] / scale for side in sides]
        loads = [speeds[side][1] for side in sides]
        change = f"{values[-1] / values[0] - 1:+.0%}" if len(values) > 1 else ""
        print(f"{name + ' (' + unit + ')':55} {'':>7}  "
              + "  ".join(f"{v:8.2f} ({ld:4.2f})" for v, ld in zip(values, loads, strict=True))
              + f"  {change}")


def kernel_speed(python: str) -> tuple[tuple[float, float], float]:
    """Combats and games per second through ``sim.runner``, and the load after."""
    done = subprocess.run([python, "-c", KERNEL_SPEED], env=env_for(python),
                          cwd=checkout(python), check=True, capture_output=True, text=True)
    combat, campaign = (float(x) for x in done.stdout.split())
    return (combat, campaign), os.getloadavg()[0]


def compile_table(python: str) -> None:
    """Time each kernel's first compile: the commands of :data:`FIRST_RUN` in an empty cache.

    A kernel's time runs from its compile notice to the next notice or the end
    of its command (its tiny run included), read from stderr as it arrives.
    """
    with tempfile.TemporaryDirectory() as cache:
        env = env_for(python, Path(cache))
        print(f"{'first run in an empty numba cache':60} {'seconds':>8} {'load':>5}")
        for args in FIRST_RUN:
            start = time.perf_counter()
            proc = subprocess.Popen([zonesim(python), *args], env=env, cwd=checkout(python),
                                    text=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            marks = [(line.split()[3].rstrip(","), time.perf_counter())
                     for line in proc.stderr if line.startswith("zonesim: compiling kernel")]
            proc.wait()
            end = time.perf_counter()
            ends = [at for _, at in marks[1:]] + [end] if marks else []
            for (name, at), until in zip(marks, ends, strict=True):
                print(f"  {name:58} {until - at:8.1f} {os.getloadavg()[0]:5.2f}")
            print(f"{'zonesim ' + ' '.join(args[:2]):60} {end - start:8.1f} "
                  f"{os.getloadavg()[0]:5.2f}")


README_FIRST = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . >/dev/null"
                " && echo INSTALLED >&2 && zonesim report >/dev/null")
"""The README's first command; the marker between install and report splits the two times."""


def first_command(source: str) -> None:
    """Time :data:`README_FIRST` in a fresh clone of ``source`` (``REPO`` or ``REPO@REF``)."""
    repo, _, branch = source.partition("@")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.endswith(("/.venv/bin", "/venv/bin")))
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "zonesim"
        subprocess.run(["git", "clone", "-q", repo, str(clone)], check=True)
        if branch:
            subprocess.run(["git", "-C", str(clone), "checkout", "-q", branch], check=True)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.Popen(["bash", "-c", README_FIRST], cwd=clone, env=env, text=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        installed = None
        for line in proc.stderr:
            at = time.perf_counter() - start
            if line.strip() == "INSTALLED":
                installed = at
            elif line.startswith("zonesim: compiling kernel"):
                print(f"  {at:6.1f} s  {line.split(' (')[0]}")
        end = time.perf_counter() - start
        if proc.wait() != 0 or installed is None:
            raise SystemExit(f"the README's first command failed (exit {proc.returncode})")
        print(f"{source}: install {installed:.1f} s, first zonesim report {end - installed:.1f} s,"
              f" total {end:.1f} s; load {load:.2f} before, {os.getloadavg()[0]:.2f} after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", help="python of the checkout before (its venv)")
    parser.add_argument("--after", default=sys.executable, help="python of this checkout")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="time first-run compiles")
    parser.add_argument("--first-command", metavar="REPO[@REF]",
                        help="time the README's first command in a fresh clone")
    args = parser.parse_args()
    if args.first_command:
        first_command(args.first_command)
        return
    if args.compile:
        compile_table(args.after)
        return
    sides = {"before": args.before} if args.before else {}
    startup_table({**sides, "after": args.after}, args.repeat)


if __name__ == "__main__":
    main()
