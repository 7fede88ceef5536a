"""``zonesim optimize`` on the base scenario with its defaults: wall time, games per second,
and the share of the time spent outside the campaign kernel (issue 25, section 5).

Run: ``python benchmarks/bench_optimize.py [--seed S] [--threads K]`` (after
``pip install -e .``; the kernel is compiled first, outside the timing). Prints the games
played (selection and fresh), the wall time, games per second, the seconds spent in
``simulate_trials`` (the per-game kernel run) and the share of the wall time outside it,
split into compiling the candidates (``compile_cases``: the campaign's tables, fight tables
for each new loadout among them), their digests (packing the compiled inputs and hashing
them, to find candidates that play the same game), the per-game metrics of each kernel
run (``trial_metrics``) and the rest (halving, interval arithmetic). The issue asks for at
most 5 minutes on 2 cores and at most 10 % outside the kernels.
"""

from __future__ import annotations

import argparse
import time

from timing import timing

from sim.experiments import campaign, campaign_paired
from sim.rules.scenario import load_scenario
from sim.workflows import race
from sim.workflows.optimize import optimize

PARTS = ((campaign, "simulate_trials"), (race, "compile_cases"), (race, "game_digest"),
         (campaign_paired, "trial_metrics"))
"""The functions timed: the kernel run, then the parts of the time outside it."""


def main() -> None:
    """Time one default search on base."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    scenario = load_scenario("base")
    optimize(scenario, keys="sneak", trials=50, budget=200, fresh_trials=50)  # compile first
    with timing(PARTS) as spent:
        start = time.perf_counter()
        result = optimize(scenario, seed=args.seed, threads=args.threads)
        wall = time.perf_counter() - start
    fresh = sum(n for _, n in result.fresh_range)
    games = result.played + fresh
    kernel = spent["sim.experiments.campaign.simulate_trials"]
    print(f"optimize base, seed {args.seed}: {result.played:,} games of selection in "
          f"{result.races} races ({result.stopped}) + {fresh:,} fresh")
    print(f"wall {wall:.1f} s, {games / wall:,.0f} games/s; in the kernel {kernel:.1f} s, "
          f"outside it {100 * (1 - kernel / wall):.1f} % of the wall time:")
    parts = {"compiling candidates": spent["sim.workflows.race.compile_cases"],
             "hashing their inputs": spent["sim.workflows.race.game_digest"],
             "per-game metrics": spent["sim.experiments.campaign_paired.trial_metrics"]}
    for label, seconds in parts.items():
        print(f"  {label} {seconds:.1f} s ({100 * seconds / wall:.1f} %)")
    rest = wall - kernel - sum(parts.values())
    print(f"  the rest (packing inputs to digest, halving, intervals) {rest:.1f} s "
          f"({100 * rest / wall:.1f} %)")
    print("best:", result.winner.label)


if __name__ == "__main__":
    main()
