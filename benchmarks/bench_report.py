"""A cached ``zonesim report``: wall and CPU time, each piece of work done once or not.

Issue 45, item 4: the report solved the same fights' exact twins (the deck table, the deck
comparison under the policy and under best play, the items and artefacts compared) and the
same dice-pool probabilities again and again, started two threads for every campaign run,
packed a compiled game's tables for every run, edited and compiled each reading's ruleset
twice, and played the scenario's and the artefacts' games again for the best uses. This
benchmark runs the report in this process (kernels cached: run it once first), twice in
turns per repeat: ``once`` as the library is, and ``again`` with those caches switched off
(:func:`_solved_again`: every question solved, every game compiled, packed and played
afresh, a new pool per run, as before). CPU time (user + system of this process, every
thread) is the figure a busy machine disturbs least; the wall time and the load average
(``uptime``) are printed beside it::

    python benchmarks/bench_report.py --trials 50000 --campaign-trials 20000 --repeat 1

Both runs write the same numbers (``python -m tests.golden --check`` holds the report's).

What a cached report spends its time on, at the defaults (500,000 trials, 200,000 games,
seed 1; two cores, wall the load's): with this branch's caches off, 117.3 s CPU, 34.0 s of
it on the main thread, in 330 s wall at load 10.7-12.7; with them, 106.2 s CPU, 31.5 s on the
main thread, in 508 s wall at load 13-17 (the same CSV files byte for byte). Per section
(CPU s, main thread's in brackets, after): artefacts 58.5 (6.5; each artefact's best use:
every use played on whole games and the best again on fresh ones; the decks and games
compared under the policy and best play), best play 28.5 (17.1: the scenario's search and
its replicate, then each other character's two searches; most of it compiling and hashing
some 3,000 candidate games), readings 7.0 (1.0), items 5.1 (2.8), enemy deck 1.1, anomaly
deck 1.0, event deck 0.7, campaign 1.3, characters 1.0. The campaign kernel runs on a pool
of two threads and the main thread plays no whole game, so the main thread's 31.5 s are the serial
share (30 %): compiling games (``compile_campaign``, 4,011 calls for 3,864 distinct setups,
about 9 s), the exact twins, pandas and the figures. What is left to cut is what the searches
and best uses play, which changes their numbers: the report's budgets
(:data:`sim.report.build.BEST_PLAY_SHARE`, ``ARTIFACT_SHARE``), not work done twice; the
anomaly and event decks are still played per card besides their deck runs (their per-card
columns, such as draws per search, are not in the paired kernels), about 1 s CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def _solved_again():
    """Every exact twin and pool probability computed afresh, every game compiled, packed and
    played again where asked for again, a new pair of threads per campaign run and each
    reading's ruleset edited again per stage (the behaviour before)."""
    from concurrent.futures import ThreadPoolExecutor

    from sim import runner
    from sim.campaign.players import compile_scenario
    from sim.exact import dice
    from sim.experiments import campaign, campaign_paired, combat
    from sim.rules.variants import apply_edits
    from sim.workflows import batches

    patched = [(combat, "exact_of"), (dice, "pool_pass"), (runner, "thread_pool"),
               (campaign, "packed"), (campaign_paired, "packed"), (campaign_paired, "_compiled"),
               (campaign_paired, "played_values"), (batches, "edited")]
    kept = [getattr(module, name) for module, name in patched]
    combat.exact_of = lambda spec, plan=None: combat.combat_exact(spec, plan)
    dice.pool_pass = dice.pool_pass.__wrapped__
    runner.thread_pool = lambda threads: (contextlib.nullcontext(None) if threads <= 1
                                          else ThreadPoolExecutor(threads, "zonesim"))
    campaign.packed = campaign_paired.packed = lambda arrays: arrays.pack()
    campaign_paired._compiled = lambda rs, fields: compile_scenario(campaign_paired.Scenario(
        ruleset=rs, **dict(zip(campaign_paired._SCENARIO_FIELDS, fields, strict=True))))
    campaign_paired.played_values = campaign_paired.trial_values
    batches.edited = lambda rs, edits: apply_edits(rs, list(edits))
    try:
        yield
    finally:
        for (module, name), value in zip(patched, kept, strict=True):
            setattr(module, name, value)


def _report(trials: int, campaign_trials: int) -> tuple[float, float]:
    from sim.exact import dice
    from sim.experiments import campaign_paired, combat
    from sim.report.build import run_report

    combat._exact.cache_clear()
    if hasattr(dice.pool_pass, "cache_clear"):  # not while solved again
        dice.pool_pass.cache_clear()
    if hasattr(campaign_paired._compiled, "cache_clear"):
        campaign_paired._compiled.cache_clear()
    campaign_paired._played.clear()
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = time.perf_counter(), _cpu()
        run_report(None, trials=trials, campaign_trials=campaign_trials, seed=1,
                   out=Path(tmp) / "report")
        return time.perf_counter() - wall, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=500_000)
    parser.add_argument("--campaign-trials", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    _report(64, 64)  # imports and kernels loaded before any figure
    figures: dict[str, list[tuple[float, float]]] = {"once": [], "again": []}
    for _ in range(args.repeat):
        figures["once"].append(_report(args.trials, args.campaign_trials))
        with _solved_again():
            figures["again"].append(_report(args.trials, args.campaign_trials))
    print(f"zonesim report, trials {args.trials}, campaign trials {args.campaign_trials}, "
          f"{os.cpu_count()} CPUs, median of {args.repeat}")
    for name, runs in figures.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"  {name:5s}  wall {wall:7.1f} s   CPU {cpu:7.1f} s")
    once, again = (statistics.median(c for _, c in figures[k]) for k in ("once", "again"))
    print(f"  CPU saved: {again - once:.1f} s ({100 * (1 - once / again):.0f} %)")
    print("  load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
