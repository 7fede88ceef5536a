"""Benchmark: firefight kernel (2 threads) vs the plain-Python reference, and memory.

Run: ``python benchmarks/bench_skirmish.py [--scenario FILE] [--ref-trials N]
[--trials N] [--big-trials N] [--repeat K] [--field FILE]...``. Prints fights/s of both in
the same run, their ratio (target >= 300x), and peak traced memory of a kernel run
at --trials and at --big-trials (it must not grow with the number of trials). Each
``--field`` scenario (a battlefield, issue 50) is timed on the kernel and on its
plain-Python twin (:mod:`sim.reference.skirmish_field`, ``--field-ref-trials`` fights)
in the same run.

The machine is shared, so each rate is the best of ``--repeat`` timed runs,
and the reference and kernel runs alternate so that both see the same load;
the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc

import numpy as np

from sim.experiments import skirmish as api
from sim.reference.skirmish import run_reference
from sim.reference.skirmish_field import run_field_reference
from sim.rules.skirmish_loader import load_scenario
from sim.skirmish.compile import compile_scenario


def _peak_kib(fight, trials: int, threads: int) -> tuple[float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    api.fight_counts(fight, trials=trials, seed=1, threads=threads)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024, elapsed


def _seconds(run) -> float:
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", default="configs/skirmish/street.toml")
    parser.add_argument("--ref-trials", type=int, default=5_000)
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--big-trials", type=int, default=10_000_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--field", action="append", default=[],
                        help="a battlefield scenario timed on the kernel (repeatable)")
    parser.add_argument("--field-trials", type=int, default=200_000)
    parser.add_argument("--field-ref-trials", type=int, default=300)
    args = parser.parse_args()

    fight = compile_scenario(load_scenario(args.scenario))
    api.fight_counts(fight, trials=1000, seed=1, threads=args.threads)  # compile / load cache

    ref_best = kernel_best = float("inf")
    for _ in range(args.repeat):
        ref_best = min(ref_best, _seconds(lambda: run_reference(fight, 1, args.ref_trials)))
        kernel_best = min(kernel_best, _seconds(lambda: api.fight_counts(
            fight, trials=args.trials, seed=1, threads=args.threads)))
    ref_rate = args.ref_trials / ref_best
    kernel_rate = args.trials / kernel_best
    same = np.array_equal(run_reference(fight, 1, args.ref_trials),
                          api.fight_counts(fight, trials=args.ref_trials, seed=1))

    print(f"scenario            {args.scenario}")
    print(f"reference (Python)  {ref_rate:12,.0f} fights/s  ({args.ref_trials:,} fights, "
          f"best of {args.repeat})")
    print(f"kernel ({args.threads} threads)  {kernel_rate:12,.0f} fights/s  "
          f"({args.trials:,} fights, best of {args.repeat})")
    print(f"ratio               {kernel_rate / ref_rate:12,.0f} x  (target >= 300 x)")
    print(f"bit-identical counts on the reference's fights: {same}")
    for path in args.field:
        scenario = load_scenario(path)
        field = compile_scenario(scenario)
        api.fight_counts(field, trials=1000, seed=1, threads=args.threads)
        best = field_ref = float("inf")
        for _ in range(args.repeat):
            field_ref = min(field_ref, _seconds(lambda s=scenario: run_field_reference(
                s, 1, args.field_ref_trials)))
            best = min(best, _seconds(lambda f=field: api.fight_counts(
                f, trials=args.field_trials, seed=1, threads=args.threads)))
        rate = args.field_trials / best
        twin = args.field_ref_trials / field_ref
        print(f"battlefield         {path}")
        print(f"  reference (Python){twin:12,.0f} fights/s  ({args.field_ref_trials:,} fights)")
        print(f"  kernel            {rate:12,.0f} fights/s  ({args.field_trials:,} fights, "
              f"best of {args.repeat}); ratio {rate / twin:,.0f} x")
    print("load average        " + " ".join(f"{x:.2f}" for x in os.getloadavg())
          + f"  ({os.cpu_count()} CPUs)")

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for n in (args.trials, args.big_trials):
        peak, elapsed = _peak_kib(fight, n, args.threads)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"memory {n:>12,} fights: traced peak {peak:8.1f} KiB, "
              f"max RSS {rss / 1024:7.1f} MiB (+{(rss - rss0) / 1024:.1f}), {elapsed:6.1f} s")


if __name__ == "__main__":
    main()
