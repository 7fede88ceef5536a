"""``zonesim optimize`` on the base scenario with its defaults: wall time, games per second,
and the share of the time spent outside the campaign kernel (issue 25, section 5).

Run: ``python benchmarks/bench_optimize.py [--seed S] [--threads K]`` (after
``pip install -e .``; the kernel is compiled first, outside the timing). Prints the games
played (selection and fresh), the wall time, games per second, the seconds spent in
``simulate_trials`` (the per-game kernel run) and the share of the wall time outside it:
compiling candidates, their digests, halving, interval arithmetic. The issue asks for at
most 5 minutes on 2 cores and at most 10 % outside the kernels.
"""

from __future__ import annotations

import argparse
import time

from sim.experiments import campaign_paired
from sim.rules.scenario import load_scenario
from sim.workflows.optimize import optimize


def main() -> None:
    """Time one default search on base."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    scenario = load_scenario("base")
    optimize(scenario, keys="sneak", trials=50, budget=200, fresh_trials=50)  # compile first
    real, spent = campaign_paired.simulate_trials, [0.0]

    def timed(*a, **kw):
        start = time.perf_counter()
        try:
            return real(*a, **kw)
        finally:
            spent[0] += time.perf_counter() - start

    campaign_paired.simulate_trials = timed
    start = time.perf_counter()
    result = optimize(scenario, seed=args.seed, threads=args.threads)
    wall = time.perf_counter() - start
    campaign_paired.simulate_trials = real
    fresh = sum(n for _, n in result.fresh_range)
    games = result.played + fresh
    print(f"optimize base, seed {args.seed}: {result.played:,} games of selection in "
          f"{result.races} races ({result.stopped}) + {fresh:,} fresh")
    print(f"wall {wall:.1f} s, {games / wall:,.0f} games/s; in the kernel {spent[0]:.1f} s, "
          f"outside it {100 * (1 - spent[0] / wall):.1f} % of the wall time")
    print("best:", result.winner.label)


if __name__ == "__main__":
    main()
