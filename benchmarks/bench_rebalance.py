"""``zonesim rebalance`` on base: games played, the share of time outside the kernels, wall time
(issue 48, "Speed").

Run: ``python benchmarks/bench_rebalance.py [--play scenario|best] [--budget N] [--trials N]
[--encounter] [--seed S] [--threads K]`` (after ``pip install -e .``; the kernels are
compiled first, outside the timing). Without ``--encounter`` it runs the issue's case,
``--target "p_sarcophagus in 0.40..0.50" --target "character_spread <= 0.05"`` with every
lever (at most 5 minutes under ``--play scenario``, 30 under ``--play best`` on 2 cores);
with it, an encounter-only rebalance over every lever
(``combat:Bloodsucker:knocked_out in 0.2..0.4``, exact values, at most 10 s). Prints the
games played (selection, best-play searches and fresh), the wall time, the seconds in the
campaign kernel (``simulate_trials``) and the share outside it, split into compiling games
(``compile_cases``), hashing them (``game_digest``), the encounters' exact values
(``combat_inputs``) and the rest; then the load (``uptime``) and the edits found.
"""

from __future__ import annotations

import argparse
import subprocess
import time

from timing import timing

from sim.experiments import campaign
from sim.rules.scenario import load_scenario
from sim.workflows import race
from sim.workflows import rebalance as R

BASE_TARGETS = ("p_sarcophagus in 0.40..0.50", "character_spread <= 0.05")
ENCOUNTER_TARGETS = ("combat:Bloodsucker:knocked_out in 0.2..0.4",)
PARTS = ((campaign, "simulate_trials"), (R, "compile_cases"), (race, "compile_cases"),
         (R, "game_digest"), (race, "game_digest"), (R, "combat_inputs"))
"""The functions timed (module, name): the kernel run, then parts of the time outside it."""


def main() -> None:
    """Time one rebalance of base."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", choices=R.PLAYS, default="scenario")
    parser.add_argument("--budget", type=int, default=R.BUDGET)
    parser.add_argument("--trials", type=int, default=R.FRESH_TRIALS)
    parser.add_argument("--encounter", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    scenario = load_scenario("base")
    targets = ENCOUNTER_TARGETS if args.encounter else BASE_TARGETS
    R.rebalance(scenario, targets, ["stalkers.Strelok.health"], budget=2000,  # compile first
                fresh_trials=100, max_edits=1)
    with timing(PARTS) as spent:
        start = time.perf_counter()
        result = R.rebalance(scenario, targets, budget=args.budget, fresh_trials=args.trials,
                             play=args.play, seed=args.seed, threads=args.threads)
        wall = time.perf_counter() - start
    fresh = sum(n for _, n in result.fresh_ranges)
    kernel = spent["sim.experiments.campaign.simulate_trials"]
    print(f"rebalance base {', '.join(targets)}; play {args.play}; seed {args.seed}: "
          f"{result.played:,} games of selection and best-play searches + {fresh:,} fresh "
          f"({result.levers} levers, {result.screened} moves screened, {result.inert} inert)")
    print(f"wall {wall:.1f} s; in the campaign kernel {kernel:.1f} s, outside it "
          f"{100 * (1 - kernel / wall):.1f} % of the wall time:")
    parts = {"compiling games": spent["sim.workflows.rebalance.compile_cases"]
             + spent["sim.workflows.race.compile_cases"],
             "hashing them": spent["sim.workflows.rebalance.game_digest"]
             + spent["sim.workflows.race.game_digest"],
             "encounters' exact values": spent["sim.workflows.rebalance.combat_inputs"]}
    for label, seconds in parts.items():
        print(f"  {label} {seconds:.1f} s ({100 * seconds / wall:.1f} %)")
    rest = wall - kernel - sum(parts.values())
    print(f"  the rest (edits, proposals, halving, intervals) {rest:.1f} s "
          f"({100 * rest / wall:.1f} %)")
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for line in result.lines():
        print(line)


if __name__ == "__main__":
    main()
