"""Seats under everyone's best play: ``zonesim balance seats SCENARIO --best-play``.

Issue 46 item 9. Each seat of a multiplayer scenario has its policy and loadout searched in
turn (:func:`sim.workflows.optimize.optimize` with ``seat``: that seat's win, P-45, on
common random numbers) against the other seats' *current* best, which starts as the
scenario's. A seat's best replaces its current policy only when it beats it beyond noise
on the search's fresh games (the paired 95 % interval of best minus current above 0), so a
round changes a seat only for a measured gain. Rounds repeat until one changes no seat
(``converged``) or ``rounds`` are done (``rounds``).

**Honest numbers.** The searches' fresh games decided which seats changed, so the reported
figures are played on games none of them used: trials from :data:`FINAL_FIRST` of the same
seed, the scenario as given and under everyone's best play, paired game by game. Per seat:
its character, P(seat wins) under each with its Wilson 95 % interval, and the paired
difference; the scenario's and the best play's seat spread (best seat minus worst seat,
half-widths added, as the characters' spread is given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.campaign.players import compile_game
from sim.experiments import tables
from sim.experiments.campaign import game_blocks
from sim.experiments.campaign_metrics import SEAT_WIN
from sim.experiments.campaign_paired import seat_scenario, seat_setup, trial_metrics
from sim.rules.scenario import Scenario
from sim.workflows.optimize import FRESH_FIRST, Optimization, OptimizeError, optimize
from sim.workflows.policy_space import SCENARIO_POLICY, value_text
from sim.workflows.race import paired

FINAL_FIRST = FRESH_FIRST + 2**61
"""First trial of the final games: above every search's fresh games (trials ``FRESH_FIRST ..
FRESH_FIRST + fresh_trials``), below 2**63."""
ROUNDS = 3
"""Rounds over the seats at most."""


@dataclass(frozen=True)
class SeatsBestPlay:
    """Result of :func:`best_seats`.

    Attributes
    ----------
    scenario : Scenario
        The scenario as given.
    best : Scenario
        The scenario with every seat playing its best found.
    searches : tuple of (int, int, Optimization, bool)
        Per search: the round (from 1), the seat (from 1), the search, whether the seat's
        policy changed.
    rounds : int
        Rounds played.
    stopped : str
        ``converged`` (a round changed no seat) or ``rounds``.
    seed, trials : int
        The seed, and the final games (trials from :data:`FINAL_FIRST`).
    seats : tuple of dict
        Per seat: ``seat``, ``character``, ``scenario`` and ``best`` (estimate cells),
        ``diff`` (best minus scenario, paired) and ``policy`` (the seat's best, in words).
    """

    scenario: Scenario
    best: Scenario
    searches: tuple
    rounds: int
    stopped: str
    seed: int
    trials: int
    seats: tuple

    def spread(self, which: str) -> dict:
        """Best seat minus worst seat under ``which`` (``scenario`` or ``best``)."""
        cells = {r["seat"]: r[which] for r in self.seats}
        top = max(cells, key=lambda s: cells[s]["mc"])
        low = min(cells, key=lambda s: cells[s]["mc"])
        half = sum((cells[s]["ci_high"] - cells[s]["ci_low"]) / 2 for s in (top, low))
        d = cells[top]["mc"] - cells[low]["mc"]
        return {"policy": which, "best_seat": top, "worst_seat": low, "spread": d,
                "ci_low": d - half, "ci_high": d + half}

    def rows(self) -> list[dict]:
        """One flat row per seat: both estimates, the paired difference, the best policy."""
        return [{"seat": r["seat"], "character": r["character"],
                 **{f"{w}_{k}": r[w][k] for w in ("scenario", "best")
                    for k in ("mc", "ci_low", "ci_high")},
                 **r["diff"], "best_policy": r["policy"]} for r in self.seats]

    def to_frame(self) -> pd.DataFrame:
        """:meth:`rows` as a frame."""
        return pd.DataFrame(self.rows())

    def table_rows(self) -> list[dict]:
        """:meth:`rows` in words: each estimate with its 95 % interval, the gap paired."""
        return [{"seat": str(r["seat"]), "character": r["character"],
                 "scenario's play": _cell(r["scenario"]),
                 "everyone's best play": _cell(r["best"]),
                 "best - scenario's (paired)": _diff(r["diff"]), "seat's best": r["policy"]}
                for r in self.seats]

    def notes(self) -> list[str]:
        """The spreads between seats, then what each search decided, in words."""
        out = [f"seat spread ({'everyone' if s['policy'] == 'best' else 'the scenario'}'s "
               f"{'best play' if s['policy'] == 'best' else 'play'}): seat {s['best_seat']} "
               f"minus seat {s['worst_seat']} {s['spread']:.4f} ({s['ci_low']:.4f} to "
               f"{s['ci_high']:.4f})" for s in (self.spread("scenario"), self.spread("best"))]
        out.append((f"converged after {self.rounds} round(s): the last changed no seat"
                    if self.stopped == "converged" else
                    f"not converged: a seat still gained in round {self.rounds}, the last "
                    "(--rounds)")
                   + "; each search's best against the seat's current policy, on its fresh "
                     "games (changed: beyond noise):")
        out += [f"  round {n}, seat {seat}: {_diff(s.reevaluation['vs_scenario'])}"
                f"{' changed' if changed else ''} ({s.winner.label})"
                for n, seat, s, changed in self.searches]
        return out

    def to_dict(self) -> dict:
        """JSON document: the final games per seat, the spreads, every search's verdict."""
        return {"scenario": str(self.scenario.path), "seed": self.seed,
                "trials": self.trials, "first_trial": FINAL_FIRST, "rounds": self.rounds,
                "stopped": self.stopped, "seats": self.rows(),
                "spreads": [self.spread(w) for w in ("scenario", "best")],
                "searches": [{"round": n, "seat": seat, "changed": changed,
                              "best": s.winner.label, "played": s.played,
                              "vs_current": s.reevaluation["vs_scenario"]}
                             for n, seat, s, changed in self.searches]}


def _cell(c: dict) -> str:
    return f"{c['mc']:.4f} ({c['ci_low']:.4f}-{c['ci_high']:.4f})"


def _diff(d: dict) -> str:
    return f"{d['diff']:+.4f} ({d['diff_ci_low']:+.4f} to {d['diff_ci_high']:+.4f})"


def _gains(result: Optimization) -> bool:
    """Whether the seat's best beats its current policy beyond noise (fresh, paired)."""
    return result.reevaluation["vs_scenario"]["diff_ci_low"] > 0


def best_seats(scenario: Scenario, *, rounds: int = ROUNDS, games: int, seed: int,
               threads: int | None = None, progress: Callable[[str], None] | None = None,
               **options) -> SeatsBestPlay:
    """Every seat under everyone's best play (module docstring).

    ``options`` go to each seat's :func:`~sim.workflows.optimize.optimize` (``budget``,
    ``trials``, ``fresh_trials``, ``keys``); ``games``: the final games per scenario.

    Raises
    ------
    OptimizeError
        A one-stalker scenario (field ``scenario``), or a bad search option.
    """
    if not scenario.multiplayer:
        raise OptimizeError(f"{scenario.path} is a one-stalker scenario: seats under best "
                            "play need a multiplayer one (e.g. four_stalkers)", "scenario")
    current, searches, stopped, n = scenario, [], "rounds", 0
    for n in range(1, rounds + 1):
        changed = False
        for p in range(len(scenario.players)):
            if progress is not None:
                progress(f"round {n}, seat {p + 1}")
            result = optimize(current, seat=p + 1, seed=seed, threads=threads, **options)
            gain = result.reevaluation is not None and _gains(result)
            if gain:
                current = seat_scenario(current, p, result.winner.setup(seat_setup(current, p)))
                changed = True
            searches.append((n, p + 1, result, gain))
        if not changed:
            stopped = "converged"
            break
    return SeatsBestPlay(scenario, current, tuple(searches), n, stopped, seed, games,
                         tuple(_final(scenario, current, games, seed, threads)))


def _final(scenario: Scenario, best: Scenario, trials: int, seed: int,
           threads: int | None) -> list[dict]:
    """Each seat's win under the scenario's play and under everyone's best, paired."""
    seats = range(len(scenario.players))
    wins = {}
    for name, sc in (("scenario", scenario), ("best", best)):
        parts = {p: [] for p in seats}
        for _, _, rows in game_blocks([compile_game(sc)], seed=seed, trials=trials,
                                      first=FINAL_FIRST, threads=threads):
            for p in seats:
                parts[p].append(trial_metrics(rows, (SEAT_WIN,), p)[:, 0].copy())
        wins[name] = {p: np.concatenate(parts[p]) for p in seats}
    out = []
    for p in seats:
        a, b = wins["scenario"][p], wins["best"][p]
        out.append({"seat": p + 1, "character": scenario.players[p].stalker,
                    "scenario": tables.proportion(int(a.sum()), len(a)),
                    "best": tables.proportion(int(b.sum()), len(b)), "diff": paired(b, a),
                    "policy": _changes(scenario, best, p)})
    return out


def _changes(scenario: Scenario, best: Scenario, p: int) -> str:
    """Seat ``p``'s best against the scenario's, in words (``key=value, ...``)."""
    old, new = seat_setup(scenario, p), seat_setup(best, p)
    return ", ".join(f"{k}={value_text(v, k)}" for k, v in new.items()
                     if old.get(k) != v) or SCENARIO_POLICY


__all__ = ["FINAL_FIRST", "ROUNDS", "SeatsBestPlay", "best_seats"]
