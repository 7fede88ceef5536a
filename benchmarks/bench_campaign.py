"""Campaign kernel speed against the plain-Python day loop, measured in the same run.

Run: ``python benchmarks/bench_campaign.py`` (after ``pip install -e .``). Prints games
per second of the numba kernel (2 threads) and of the reference (sim/reference/campaign.py)
on the bundled base scenario, their ratio, peak memory after 1e5 and 1e7 games (flat:
aggregation happens in the kernel), and the wall time of 1,000,000 games.

``python benchmarks/bench_campaign.py --players`` does the same for the bundled
four-player scenario (``four_stalkers``, issue 12) against the multiplayer reference
(sim/reference/campaign_players.py): 1,000,000 four-player games, the ratio, and peak
memory after 1e5 and 1e6 games (1e7 with ``--long``).
"""

from __future__ import annotations

import resource
import sys
import time

from sim.campaign.compile import compile_campaign
from sim.campaign.players import compile_game
from sim.experiments.campaign import simulate
from sim.reference import campaign as reference
from sim.reference import campaign_players
from sim.rules.scenario import load_scenario


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best_rate(func, trials: int, repeats: int = 3) -> float:
    """Best of ``repeats`` runs, in games per second."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        func(trials)
        best = min(best, time.perf_counter() - start)
    return trials / best


def main() -> None:
    scenario = load_scenario(None)
    arrays = compile_campaign(scenario)
    simulate(arrays, 1000, 1, threads=2)  # compile or load from the cache
    kernel = best_rate(lambda n: simulate(arrays, n, 7, threads=2), 1_000_000)
    plain = best_rate(lambda n: reference.simulate(scenario, n, 7), 2000, repeats=2)
    print(f"scenario: {scenario.name} ({scenario.stalker} from {scenario.start})")
    print(f"kernel (2 threads): {kernel / 1e3:9.1f} k games/s")
    print(f"plain Python      : {plain / 1e3:9.3f} k games/s")
    print(f"ratio             : {kernel / plain:9.0f} x")
    start = time.perf_counter()
    simulate(arrays, 1_000_000, 11, threads=2)
    print(f"1,000,000 games: {time.perf_counter() - start:.2f} s wall (kernel only)")
    simulate(arrays, 100_000, 3, threads=2)
    small = peak_rss_mib()
    simulate(arrays, 10_000_000, 3, threads=2)
    print(f"peak RSS after 1e5 games: {small:.1f} MiB; after 1e7: {peak_rss_mib():.1f} MiB")


def players(long: bool) -> None:
    """1e6 four-player games (issue 12) against the plain-Python multiplayer day loop."""
    scenario = load_scenario("four_stalkers")
    arrays = compile_game(scenario)
    simulate(arrays, 1000, 1, threads=2)  # compile or load from the cache
    simulate(arrays, 100_000, 3, threads=2)
    small = peak_rss_mib()
    start = time.perf_counter()
    simulate(arrays, 1_000_000, 11, threads=2)
    seconds = time.perf_counter() - start
    plain = best_rate(lambda n: campaign_players.play(scenario, n, 7), 500, repeats=2)
    print(f"scenario: {scenario.name} ({len(scenario.players)} players, {scenario.variant})")
    print(f"1,000,000 games: {seconds:.2f} s wall (kernel only, 2 threads)")
    print(f"kernel (2 threads): {1e6 / seconds / 1e3:9.1f} k games/s")
    print(f"plain Python      : {plain / 1e3:9.3f} k games/s")
    print(f"ratio             : {1e6 / seconds / plain:9.0f} x")
    if long:
        simulate(arrays, 10_000_000, 3, threads=2)
    print(f"peak RSS after 1e5 games: {small:.1f} MiB; after {'1e7' if long else '1e6'}: "
          f"{peak_rss_mib():.1f} MiB")


if __name__ == "__main__":
    if "--players" in sys.argv:
        players("--long" in sys.argv)
    else:
        main()
