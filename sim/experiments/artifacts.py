"""Artefacts compared (issue 11): what carrying each artefact changes, per 1,000 rubles.

:func:`artifacts_compared` runs, on common random numbers, the whole enemy
deck (:func:`sim.experiments.combat.run_combat`), the whole anomaly deck
(:func:`sim.experiments.anomaly.run_anomaly`) and, given a one-stalker
scenario, whole games (:func:`sim.experiments.campaign_paired.run_campaign_compare`)
once carrying nothing more and once carrying each artefact (P-08..P-10), and
returns one row per artefact: the paired change in each metric with its 95 %
interval and its exact change where the exact twins give one (encounters;
games have none), the price (P-11) and the change per 1,000 rubles. The
report's "Artefacts compared" section calls it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from sim import stats
from sim.experiments import anomaly as anomaly_experiment
from sim.experiments import campaign_paired
from sim.experiments import combat as combat_experiment
from sim.experiments.anomaly import run_anomaly
from sim.experiments.base import Case, CompareInputError, PairedSums
from sim.experiments.campaign_metrics import WIN_RATE
from sim.experiments.combat import run_combat
from sim.rules import Ruleset
from sim.rules.scenario import Scenario

COMBAT = combat_experiment.EXPERIMENT.names
ANOMALY = anomaly_experiment.EXPERIMENT.names
"""The encounters' metric names, read from their declarations."""
COMBAT_COLUMNS = (COMBAT.knocked_out,)
"""Enemy-deck metrics tabulated (P(knocked out), the issue's first column)."""
ANOMALY_COLUMNS = (ANOMALY.knocked_out, ANOMALY.damaged, ANOMALY.deformation)
"""Anomaly-deck metrics tabulated."""
CAMPAIGN_COLUMNS = (WIN_RATE,)
"""Whole-game metrics tabulated: the win rate ``p_sarcophagus``, P-50 (its label is
:func:`sim.experiments.campaign.label`'s, as everywhere)."""


def _changes(sums: PairedSums, variant: int, names: Sequence[str], prefix: str) -> dict:
    """Paired change of ``names`` for ``variant`` against variant 0: cells with intervals."""
    index = {m.name: i for i, m in enumerate(sums.metrics)}
    out = {}
    for name in names:
        m = index[name]
        d = sums.sums[variant]
        mean, low, high = stats.mean_interval(d[2, m], d[3, m], sums.trials)
        exact = sums.exact[variant, m] - sums.exact[0, m]
        out[f"{prefix}_{name}"] = {"mc": mean, "ci_low": low, "ci_high": high, "exact": exact}
    return out


def scenario_setup(sc: Scenario, intellect: int | None = None) -> dict[str, Any]:
    """The scenario's stalker, loadout and policy as :func:`artifacts_compared` reads them.

    The report's deck tables use the same stalker, armour, weapons, items and
    policy (sneak, flee_at, heal_at for fights; enter_anomalies for anomalies;
    ``policy.weights`` for best play's ``value`` objective), so the artefact
    table answers for the stalker the rest of the report describes.
    ``intellect`` overrides the stalker card's for the activation tests (P-10).
    """
    setup: dict[str, Any] = {
        "stalker": sc.stalker, "armor": sc.armor, "weapons": tuple(sc.weapons),
        "items": tuple(sc.items), "sneak": sc.policy.sneak, "flee_at": sc.policy.flee_at,
        "heal_at": sc.policy.heal_at, "enter": sc.policy.enter_anomalies,
        "weights": sc.policy.weights}
    if intellect is not None:
        setup["intellect"] = intellect
    return setup


def campaign_changes(scenario: Scenario, names: Sequence[str], *, trials: int, seed: int,
                     threads: int | None = None) -> PairedSums:
    """Whole games carrying the scenario's artefacts, then each of ``names`` besides them.

    Variant 0 is the scenario as it is; variant ``i`` adds ``names[i - 1]``
    to the loadout's artefacts, on the same games (common random numbers).
    """
    base = campaign_paired.scenario_setup(scenario)
    carried = tuple(base["artifacts"])
    cases = [Case(scenario.ruleset, {**base, "artifacts": carried + extra})
             for extra in ((), *((n,) for n in names))]
    if trials < 1:
        raise CompareInputError("trials must be >= 1")
    values = [campaign_paired.played_values(arrays, CAMPAIGN_COLUMNS, seed=seed, first=0,
                                            trials=trials, threads=threads)
              for arrays in campaign_paired.compile_cases(cases)]
    totals = campaign_paired.value_totals(values)
    metrics = tuple(m for name in CAMPAIGN_COLUMNS for m in campaign_paired.CAMPAIGN_METRICS
                    if m.name == name)
    return PairedSums(trials, metrics, totals.astype(float),
                      np.full((len(cases), len(metrics)), np.nan), indicator=True)


def artifacts_compared(rs: Ruleset, setup: Mapping[str, Any], *, trials: int, seed: int,
                       names: Sequence[str] | None = None, threads: int | None = None,
                       campaign: Scenario | None = None,
                       campaign_trials: int | None = None) -> pd.DataFrame:
    """One row per artefact: paired changes on the enemy and anomaly decks, and per price.

    Parameters
    ----------
    rs : Ruleset
        The ruleset.
    setup : mapping
        The stalker's setup as :func:`~sim.experiments.combat.run_combat` and
        :func:`~sim.experiments.anomaly.run_anomaly` read it (``stalker``,
        ``armor``, ``weapons``, ``heal_at``, ``flee_at``, ``enter``, ...);
        ``enemy`` and ``anomaly`` are set to ``all``.
    trials, seed : int
        Trials per deck and seed (the same for every artefact).
    names : sequence of str, optional
        Artefacts to compare; default every card of ``artifacts.csv``.
    campaign : Scenario, optional
        A one-stalker scenario on ``rs``: adds the paired change in whole
        games (``campaign_p_sarcophagus``), each artefact carried besides the
        scenario's own (:func:`campaign_changes`).
    campaign_trials : int, optional
        Games per artefact (default ``trials``).

    Returns
    -------
    DataFrame
        Columns ``artifact``, ``price``, then per metric ``<deck>_<metric>``
        (``combat_knocked_out``, ``anomaly_knocked_out``, ...,
        ``campaign_p_sarcophagus``) as
        ``_mc``, ``_ci_low``, ``_ci_high``, ``_exact`` and
        ``_per_1000_rubles`` (the exact change, or the estimate without one,
        per 1,000 rubles of price) with ``_per_1000_rubles_ci_low`` and
        ``_ci_high`` (the estimate's 95 % interval per 1,000 rubles); sorted
        by the enemy-deck change, most protective first.
    """
    names = list(rs.artifacts) if names is None else list(names)
    base = {k: v for k, v in setup.items() if k != "artifacts"}
    fights = [Case(rs, {**base, "enemy": "all", "artifacts": tuple(a)})
              for a in ([], *([n] for n in names))]
    hazards = [Case(rs, {**base, "anomaly": "all", "items": (), "artifacts": tuple(a)})
               for a in ([], *([n] for n in names))]
    combat = run_combat(fights, trials=trials, seed=seed, threads=threads)
    anomaly = run_anomaly(hazards, trials=trials, seed=seed, threads=threads)
    games = None
    if campaign is not None and not campaign.multiplayer:
        games = campaign_changes(campaign, names, trials=campaign_trials or trials, seed=seed,
                                 threads=threads)
    rows = []
    for v, name in enumerate(names, start=1):
        price = rs.artifacts[name].price
        cells = {**_changes(combat, v, COMBAT_COLUMNS, "combat"),
                 **_changes(anomaly, v, ANOMALY_COLUMNS, "anomaly")}
        if games is not None:
            cells.update(_changes(games, v, CAMPAIGN_COLUMNS, "campaign"))
        row: dict[str, Any] = {"artifact": name, "price": price}
        for key, cell in cells.items():
            for part, value in cell.items():
                row[f"{key}_{part}"] = value
            change = cell["exact"] if cell["exact"] == cell["exact"] else cell["mc"]
            scale = 1000 / price if price else float("nan")
            row[f"{key}_per_1000_rubles"] = change * scale
            row[f"{key}_per_1000_rubles_ci_low"] = cell["ci_low"] * scale
            row[f"{key}_per_1000_rubles_ci_high"] = cell["ci_high"] * scale
        rows.append(row)
    return pd.DataFrame(rows).sort_values(f"combat_{COMBAT.knocked_out}_mc", kind="stable",
                                          ignore_index=True)
