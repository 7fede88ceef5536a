"""Campaign kernel speed against the plain-Python day loop, measured in the same run.

Run: ``python benchmarks/bench_campaign.py`` (after ``pip install -e .``). Prints the
figures of issue 28, section 2, each beside its target and the load average, on the
bundled base scenario:

- games per second of the numba kernel on 2 threads (wall clock, best of 3 runs of
  1,000,000 games) and of the reference (sim/reference/campaign.py), and their ratio;
- games per second of one thread's CPU time (best of 3), which other jobs on this shared
  machine move little, and twice it: what 2 threads give when both cores are free;
- the wall time of 1,000,000 games in-process and of ``zonesim campaign --trials 1000000``
  (cached kernels, the whole command);
- peak memory after 1e5 and 1e7 games (flat: aggregation happens in the kernel).

``--players`` does the same for the bundled four-player scenario (``four_stalkers``,
issue 12) against the multiplayer reference (sim/reference/campaign_players.py), with
peak memory after 1e5 and 1e6 games (1e7 with ``--long``).

``--compile`` adds the campaign kernel's cold compile: a fresh process with an empty numba
cache playing 10 games, whose wall time is nearly all compiling. The fresh clone's first
``zonesim report`` is ``benchmarks/bench_startup.py --first-command .``.

When the 2-thread wall figure is far below twice the one-thread CPU figure, other jobs
held the cores: compare the CPU figures across versions, alternating runs.
``--against PATH`` does that: it times the game body (one thread's CPU time, best of 5
runs of 100,000 base games, or 30,000 with ``--players``) of this checkout and of the
checkout at PATH (each with its own numba cache, ``PATH/.numba_cache``) in fresh
processes, alternately, three times each, and prints both with the load and a checksum
of the result rows (the same when no number moved).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

from sim.campaign.compile import compile_campaign
from sim.campaign.players import compile_game
from sim.experiments.campaign import simulate
from sim.reference import campaign as reference
from sim.reference import campaign_players
from sim.rules.scenario import load_scenario

TARGETS = {"base": 1_000_000, "four_stalkers": 300_000}
"""Games per second on 2 threads that issue 28, section 2 asks for."""
WALL_TARGET = 1.5  # s: 1,000,000 base games of ``zonesim campaign`` (cached)
COMPILE_TARGET = 30.0  # s: the campaign kernel's cold compile


def load() -> str:
    """The 1-minute load average, printed beside every speed figure."""
    return f"load {os.getloadavg()[0]:.2f}"


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best_rate(func, trials: int, repeats: int = 3, clock=time.perf_counter) -> float:
    """Best of ``repeats`` runs on ``clock``, in games per second."""
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        func(trials)
        best = min(best, clock() - start)
    return trials / best


def verdict(value: float, target: float, higher: bool = True) -> str:
    """``met`` or ``not met`` against a target."""
    return "met" if (value >= target if higher else value <= target) else "not met"


def speed(name: str, arrays, plain_rate: float) -> None:
    """The kernel's figures on ``arrays`` against the reference's ``plain_rate``."""
    simulate(arrays, 1000, 1, threads=2)  # compile or load from the cache
    cpu = best_rate(lambda n: simulate(arrays, n, 7, threads=1), 200_000,
                    clock=time.process_time)
    kernel = best_rate(lambda n: simulate(arrays, n, 7, threads=2), 1_000_000)
    target = TARGETS[name]
    print(f"kernel (2 threads, wall)  : {kernel / 1e3:9.1f} k games/s  "
          f"(target {target / 1e3:.0f} k: {verdict(kernel, target)}; {load()})")
    print(f"kernel (1 thread, CPU)    : {cpu / 1e3:9.1f} k games/s  "
          f"(2 free cores: {2 * cpu / 1e3:.0f} k, {verdict(2 * cpu, target)})")
    print(f"plain Python              : {plain_rate / 1e3:9.3f} k games/s")
    print(f"ratio (2 threads, wall)   : {kernel / plain_rate:9.0f} x")
    print(f"ratio (1 thread, CPU)     : {cpu / plain_rate:9.0f} x")
    start = time.perf_counter()
    simulate(arrays, 1_000_000, 11, threads=2)
    print(f"1,000,000 games: {time.perf_counter() - start:.2f} s wall (kernel only; {load()})")


def command_wall(*args: str) -> float:
    """Wall time of one ``zonesim`` command in a fresh process (kernels cached)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim.cli", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def cold_compile() -> None:
    """The campaign kernel compiled in a fresh process with an empty numba cache."""
    code = ("from sim.campaign.compile import compile_campaign\n"
            "from sim.experiments.campaign import simulate\n"
            "from sim.rules.scenario import load_scenario\n"
            "simulate(compile_campaign(load_scenario(None)), 10, 1, threads=1)\n")
    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True,
                       env={**os.environ, "NUMBA_CACHE_DIR": cache}, stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
    print(f"cold compile (empty cache, 10 games): {seconds:.1f} s "
          f"(target {COMPILE_TARGET:.0f} s: {verdict(seconds, COMPILE_TARGET, False)}; {load()})")


BODY = """
import os, sys, time
import numpy as np
from sim.campaign.compile import compile_campaign
from sim.campaign.players import compile_game
from sim.kernels import campaign as K
from sim.kernels.campaign import game
from sim.kernels.campaign.game import play_run, scratch
from sim.rules.scenario import load_scenario
log = (game.NO_LOG,) if hasattr(game, "NO_LOG") else ()  # a checkout before the trace log
players = sys.argv[1] == "1"
games = 30_000 if players else 100_000
scenario = load_scenario("four_stalkers" if players else None)
tables = (compile_game(scenario) if players else compile_campaign(scenario)).pack()
out, state = np.zeros((games, K.G_ROW), dtype=np.int64), scratch(tables)
state = (state,) if hasattr(state, "_fields") else state  # a checkout before the flat arrays
play_run(tables, *state, 7, 0, 10, out, 0, *log)
best = float("inf")
for _ in range(5):
    start = time.thread_time()
    play_run(tables, *state, 7, 0, games, out, 0, *log)
    best = min(best, time.thread_time() - start)
print(f"{best / games * 1e9:7.0f} ns/game, checksum {int(out.sum())}, "
      f"load {os.getloadavg()[0]:.2f}")
"""
"""A fresh process's one-thread CPU time of the game body (``--against``)."""


def against(other: str, players: bool) -> None:
    """The game body of this checkout and of ``other``, alternately (one thread, CPU time)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for _ in range(3):
        for tree in (other, here):
            env = {**os.environ, "PYTHONPATH": tree,
                   "NUMBA_CACHE_DIR": os.path.join(tree, ".numba_cache")}
            result = subprocess.run([sys.executable, "-c", BODY, "1" if players else "0"],
                                    env=env, cwd=tree, check=True, capture_output=True,
                                    text=True)
            print(f"{tree:40s} {result.stdout.strip()}", flush=True)


def main() -> None:
    scenario = load_scenario(None)
    arrays = compile_campaign(scenario)
    print(f"scenario: {scenario.name} ({scenario.stalker} from {scenario.start}); {load()}")
    speed("base", arrays, best_rate(lambda n: reference.simulate(scenario, n, 7), 2000,
                                    repeats=2))
    command_wall("campaign", "--trials", "1000", "-q")  # the command's own kernels, cached
    seconds = command_wall("campaign", "--trials", "1000000", "-q")
    print(f"zonesim campaign --trials 1000000: {seconds:.2f} s wall (target {WALL_TARGET} s: "
          f"{verdict(seconds, WALL_TARGET, False)}; {load()})")
    simulate(arrays, 100_000, 3, threads=2)
    small = peak_rss_mib()
    simulate(arrays, 10_000_000, 3, threads=2)
    print(f"peak RSS after 1e5 games: {small:.1f} MiB; after 1e7: {peak_rss_mib():.1f} MiB")


def players(long: bool) -> None:
    """Four-player games (issue 12) against the plain-Python multiplayer day loop."""
    scenario = load_scenario("four_stalkers")
    arrays = compile_game(scenario)
    print(f"scenario: {scenario.name} ({len(scenario.players)} players, {scenario.variant}); "
          f"{load()}")
    simulate(arrays, 1000, 1, threads=2)
    simulate(arrays, 100_000, 3, threads=2)
    small = peak_rss_mib()
    speed("four_stalkers", arrays,
          best_rate(lambda n: campaign_players.play(scenario, n, 7), 500, repeats=2))
    if long:
        simulate(arrays, 10_000_000, 3, threads=2)
    print(f"peak RSS after 1e5 games: {small:.1f} MiB; after {'1e7' if long else '1e6'}: "
          f"{peak_rss_mib():.1f} MiB")


if __name__ == "__main__":
    if "--against" in sys.argv:
        against(sys.argv[sys.argv.index("--against") + 1], "--players" in sys.argv)
        sys.exit()
    if "--players" in sys.argv:
        players("--long" in sys.argv)
    else:
        main()
    if "--compile" in sys.argv:
        cold_compile()
