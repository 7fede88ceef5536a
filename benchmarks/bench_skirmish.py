"""Benchmark: firefight kernel (2 threads) vs the plain-Python reference, and memory.

Run: ``python benchmarks/bench_skirmish.py [--scenario FILE] [--ref-trials N]
[--trials N] [--big-trials N]``. Prints fights/s of both in the same run, their
ratio (target >= 300x), and peak traced memory of a kernel run at --trials and
at --big-trials (it must not grow with the number of trials).
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from sim.skirmish import api, load_scenario
from sim.skirmish.compile import compile_scenario
from sim.skirmish.reference import run_reference


def _peak_kib(fight, trials: int, threads: int) -> tuple[float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    api.fight_counts(fight, trials=trials, seed=1, threads=threads)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", default="configs/skirmish/street.toml")
    parser.add_argument("--ref-trials", type=int, default=5_000)
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--big-trials", type=int, default=10_000_000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    fight = compile_scenario(load_scenario(args.scenario))
    api.fight_counts(fight, trials=1000, seed=1, threads=args.threads)  # compile / load cache

    t0 = time.perf_counter()
    ref = run_reference(fight, 1, args.ref_trials)
    ref_rate = args.ref_trials / (time.perf_counter() - t0)
    same = np.array_equal(ref, api.fight_counts(fight, trials=args.ref_trials, seed=1))

    t0 = time.perf_counter()
    api.fight_counts(fight, trials=args.trials, seed=1, threads=args.threads)
    kernel_rate = args.trials / (time.perf_counter() - t0)

    print(f"scenario            {args.scenario}")
    print(f"reference (Python)  {ref_rate:12,.0f} fights/s  ({args.ref_trials:,} fights)")
    print(f"kernel ({args.threads} threads)  {kernel_rate:12,.0f} fights/s  "
          f"({args.trials:,} fights)")
    print(f"ratio               {kernel_rate / ref_rate:12,.0f} x  (target >= 300 x)")
    print(f"bit-identical counts on the reference's fights: {same}")

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for n in (args.trials, args.big_trials):
        peak, elapsed = _peak_kib(fight, n, args.threads)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"memory {n:>12,} fights: traced peak {peak:8.1f} KiB, "
              f"max RSS {rss / 1024:7.1f} MiB (+{(rss - rss0) / 1024:.1f}), {elapsed:6.1f} s")


if __name__ == "__main__":
    main()
