"""Combat kernel speed against the plain-Python reference, measured in the same run.

Run: ``python benchmarks/bench_combat.py`` (after ``pip install -e .``). Prints combats
per second of the numba kernel (2 threads) and of the reference on the same fight, their
ratio, peak memory after 1e6 and 1e8 trials (flat: aggregation happens in the kernel), and
the wall time of the ``zonesim combat`` commands the issue targets.

Issue 13's figure "combat kernel, 2 threads, Strelok vs Bloodsucker (a fight of about 3
rounds)" is the Bloodsucker fight with the base scenario's loadout (SVD sniper rifle and
Knife, Stalker suit, two Stimulants, sneak always, heal at 2: 3.3 rounds a fight), run
through ``sim.runner`` on 2 threads, best of 5 runs of 10 million fights; the same fight
without a loadout (2 rounds) is printed beside it. On this shared two-core machine a run
gets both cores only when no other job holds one: take the best of several invocations
and print the load average beside it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

from sim.encounter import combat as lib
from sim.experiments import combat as combat_experiment
from sim.experiments.setups import scenario_values
from sim.kernels.combat import SUM_ROUNDS
from sim.reference import combat as reference
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario

FIGHT = dict(stalker="Strelok", enemy="Bandit", armor="Stalker suit", weapons=("AK-74",),
             items=("Stimulant",), policy=lib.CombatPolicy(heal_at=2))


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rate(func, trials: int, repeats: int = 3) -> float:
    """Best of ``repeats`` runs, in trials per second."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        func(trials)
        best = min(best, time.perf_counter() - start)
    return trials / best


def wall(*args: str) -> float:
    """Wall time of one zonesim command (kernels already cached)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sim.cli", *args], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def bloodsucker() -> None:
    """Issue 13's kernel figure: Strelok vs Bloodsucker, base loadout and none, 2 threads."""
    scenario = load_scenario("base")
    setup = scenario_values("combat", scenario)
    policy = lib.CombatPolicy(sneak=setup["sneak"], flee_at=setup["flee_at"],
                              heal_at=setup["heal_at"])
    specs = {
        "base scenario's loadout": lib.compile_combat(
            scenario.ruleset, setup["stalker"], "Bloodsucker", setup["armor"], setup["weapons"],
            setup["items"], policy),
        "no loadout": lib.compile_combat(scenario.ruleset, setup["stalker"], "Bloodsucker"),
    }
    for name, spec in specs.items():
        counts = combat_experiment.simulate(spec, 1_000_000, 7, threads=2)
        rounds = counts[SUM_ROUNDS] / 1_000_000
        fights = rate(lambda n, spec=spec: combat_experiment.simulate(spec, n, 7, threads=2),
                      10_000_000, repeats=5)
        target = "target >= 40; " if spec is specs["base scenario's loadout"] else ""
        print(f"Strelok vs Bloodsucker, {name} ({rounds:.1f} rounds a fight), kernel "
              f"(2 threads): {fights / 1e6:6.1f} M fights/s ({target}load "
              f"{os.getloadavg()[0]:.2f})")


def main() -> None:
    bloodsucker()
    rs = load_ruleset(None)
    spec = lib.compile_combat(rs, FIGHT["stalker"], FIGHT["enemy"], FIGHT["armor"],
                              FIGHT["weapons"], FIGHT["items"], FIGHT["policy"])
    combat_experiment.simulate(spec, 1000, 1, threads=2)  # compile or load from cache
    kernel_rate = rate(lambda n: combat_experiment.simulate(spec, n, 7, threads=2), 10_000_000)
    reference_rate = rate(lambda n: reference.simulate(spec, n, 7), 30_000)
    print(f"fight: {FIGHT['stalker']} vs {FIGHT['enemy']}, {FIGHT['armor']}, "
          f"{', '.join(FIGHT['weapons'])}")
    print(f"kernel (2 threads): {kernel_rate / 1e6:8.2f} M combats/s")
    print(f"plain Python      : {reference_rate / 1e3:8.2f} k combats/s")
    print(f"ratio             : {kernel_rate / reference_rate:8.0f} x")
    combat_experiment.simulate(spec, 1_000_000, 3, threads=2)
    after_1e6 = peak_rss_mib()
    combat_experiment.simulate(spec, 100_000_000, 3, threads=2)
    after_1e8 = peak_rss_mib()
    print(f"peak RSS after 1e6 trials: {after_1e6:.1f} MiB; after 1e8: {after_1e8:.1f} MiB")
    single = wall("combat", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--trials",
                  "1000000")
    deck = wall("combat", "--stalker", "Strelok", "--enemy", "all", "--trials", "1000000")
    print(f"zonesim combat --enemy Bloodsucker --trials 1e6: {single:.2f} s wall")
    print(f"zonesim combat --enemy all --trials 1e6 (whole deck): {deck:.2f} s wall")


if __name__ == "__main__":
    main()
