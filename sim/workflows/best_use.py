"""Artefacts valued under their best use, in whole games (issue 46, item 2).

The artefact comparison (:func:`sim.experiments.artifacts.artifacts_compared`) plays whole
games with each artefact carried besides the scenario's loadout and used as the scenario's
``policy.artifact_use`` says, by default whenever its rule allows ("always"). A player
who plays well uses an artefact only where a use pays (P-08): never, or at a Health
threshold. :func:`best_uses` values each artefact under its best use:

1. **Selection.** The artefact is carried and played under each use of :func:`uses`
   (always, never, and each Health ``1 .. Health - 1`` of the stalker card: "at this
   Health or less", P-21; at his full Health it is "always") on games ``0 .. trials - 1``
   of ``seed`` (common random numbers); the use with the highest win rate
   (``p_sarcophagus``: reach and survive the Sarcophagus, P-50) is chosen, the first of
   :func:`uses` on a tie. Uses that compile to the same game (equal tables,
   :func:`sim.workflows.race.game_digest`) play it once.
2. **Fresh games.** The chosen use and carrying nothing more are played again on games
   ``FRESH_FIRST ..`` of the same seed (:data:`sim.workflows.optimize.FRESH_FIRST`, none of
   the selection's), and their paired difference is reported: the artefact's value under
   its best use, free of the winner's curse.

Columns follow :func:`~sim.experiments.artifacts.artifacts_compared`'s cells (stem
:data:`STEM`), so the report's tables and the verdict read them as the other changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from sim.experiments import campaign_paired
from sim.experiments.base import Case
from sim.experiments.campaign_metrics import WIN_RATE
from sim.rules.scenario import Scenario
from sim.workflows.optimize import FRESH_FIRST
from sim.workflows.race import game_digest, paired

STEM = f"best_use_{WIN_RATE}"
"""Column stem of the change in the win rate under each artefact's best use, fresh games."""
USE = "best_use"
"""Column of the chosen use in words: ``always``, ``never`` or ``at N`` (Health N or less)."""
SELECTED = f"best_use_selection_{WIN_RATE}"
"""Column of the chosen use's change on the selection's games (optimistic: it was picked there)."""


def uses(health: int) -> tuple[int | None, ...]:
    """The uses searched, as ``policy.artifact_use`` holds them (P-08): None (always), 0
    (never), then each Health ``1 .. health - 1``.
    """
    return (None, 0, *range(1, health))


def use_text(use: int | None) -> str:
    """A use in words: ``always``, ``never``, ``at 3``."""
    return "always" if use is None else "never" if use == 0 else f"at {use}"


def _with_use(setup: dict[str, Any], name: str, use: int | None) -> dict[str, Any]:
    """``setup`` carrying ``name`` besides its artefacts, used as ``use`` says."""
    table = {n: u for n, u in setup["artifact_use"] if n != name}
    if use is not None:
        table[name] = use
    return {**setup, "artifacts": tuple(setup["artifacts"]) + (name,),
            "artifact_use": tuple(sorted(table.items()))}


def _wins(arrays, *, seed: int, first: int, trials: int, threads: int | None) -> np.ndarray:
    """Per-game win (0 or 1) of trials ``first .. first + trials - 1``."""
    return campaign_paired.trial_values(arrays, [WIN_RATE], seed=seed, first=first,
                                        trials=trials, threads=threads)[:, 0]


def best_uses(scenario: Scenario, names: Sequence[str], *, trials: int, seed: int,
              fresh_trials: int | None = None, threads: int | None = None) -> pd.DataFrame:
    """One row per artefact: its best use, chosen on ``trials`` games, valued on fresh ones.

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario; each artefact is carried besides its loadout's.
    names : sequence of str
        Artefact cards.
    trials : int
        Selection games per use (trials ``0 .. trials - 1`` of ``seed``).
    seed : int
        The seed of both the selection and the fresh games.
    fresh_trials : int, optional
        Fresh games (trials from :data:`~sim.workflows.optimize.FRESH_FIRST`); default
        ``trials``.
    threads : int, optional
        Kernel threads; never changes a number.

    Returns
    -------
    DataFrame
        ``artifact``, :data:`USE`, ``best_use_trials``, ``best_use_first_trial``,
        :data:`SELECTED` and the cells of :data:`STEM` (``_mc``, ``_ci_low``, ``_ci_high``,
        ``_exact`` (NaN: whole games have no exact twin)): the win rate carrying the
        artefact under its best use minus carrying nothing more, paired on the fresh games.
    """
    fresh_trials = fresh_trials or trials
    base = campaign_paired.scenario_setup(scenario)
    health = scenario.ruleset.stalkers[scenario.stalker].health

    def compiled(setup):
        return campaign_paired.compile_cases([Case(scenario.ruleset, setup)])[0]

    def play(arrays, first, n):
        return _wins(arrays, seed=seed, first=first, trials=n, threads=threads)

    without = compiled(base)
    selection_none = play(without, 0, trials)
    fresh_none = play(without, FRESH_FIRST, fresh_trials)
    rows = []
    for name in names:
        known: dict = {}
        seen: dict[str, float] = {}
        best, best_mean, best_games = None, -np.inf, None
        for use in uses(health):
            arrays = compiled(_with_use(base, name, use))
            digest = game_digest(arrays, known)
            if digest in seen:
                continue  # the same game as an earlier use: the same mean, never better
            games = play(arrays, 0, trials)
            seen[digest] = mean = float(games.mean())
            if mean > best_mean:
                best, best_mean, best_games = (use, arrays), mean, games
        use, arrays = best
        selected = paired(best_games, selection_none)["diff"]
        change = paired(play(arrays, FRESH_FIRST, fresh_trials), fresh_none)
        rows.append({"artifact": name, USE: use_text(use), "best_use_trials": fresh_trials,
                     "best_use_first_trial": FRESH_FIRST, SELECTED: selected,
                     f"{STEM}_mc": change["diff"], f"{STEM}_ci_low": change["diff_ci_low"],
                     f"{STEM}_ci_high": change["diff_ci_high"], f"{STEM}_exact": float("nan")})
    return pd.DataFrame(rows)


def with_best_uses(frame: pd.DataFrame, scenario: Scenario, *, trials: int, seed: int,
                   threads: int | None = None) -> pd.DataFrame:
    """``frame`` (:func:`~sim.experiments.artifacts.artifacts_compared`'s rows) with the
    columns of :func:`best_uses` and the change per 1,000 rubles of price, as its others.
    """
    best = best_uses(scenario, list(frame["artifact"]), trials=trials, seed=seed,
                     threads=threads)
    out = frame.merge(best, on="artifact", how="left", sort=False)
    scale = [1000 / p if p else float("nan") for p in out["price"]]
    for end in ("", "_ci_low", "_ci_high"):
        part = "mc" if end == "" else end[1:]
        out[f"{STEM}_per_1000_rubles{end}"] = out[f"{STEM}_{part}"] * scale
    return out


__all__ = ["SELECTED", "STEM", "USE", "best_uses", "use_text", "uses", "with_best_uses"]
