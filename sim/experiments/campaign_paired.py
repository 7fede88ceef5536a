"""Whole campaigns compared on common random numbers: the ``campaign`` experiment of compare.

A variant of a scenario changes its loadout (``item``, ``armor``, ``weapon``,
``artifacts``, ``rubles``), stalker or start, a policy key (``sneak``, ``retreat_at``,
``shopping``, ...) or any card or rule (``edit=...``, :mod:`sim.rules.variants`).
Every variant plays the same trial indices with the same (seed, trial,
purpose) streams: game ``t`` of every variant rolls the DICE stream of
``(seed, t)``, draws from its DECK stream and places cards with its
ENVIRONMENT stream, so two variants part only where the change makes them part.

Variants may differ in their array shapes (another map, more cards), so they
are not stacked into one kernel call. Trials are processed in blocks of
:data:`BLOCK`: for each block, every variant plays trials ``[first, first +
block)`` with :func:`sim.experiments.campaign.simulate_trials` (one row of results
per game), the rows become per-trial metric values, and per variant the
sums and squares of each metric, and of its difference to the baseline on
the same trial, are added up. The sums are exact integers (Python ints
across blocks), so results are bit-identical for any thread count and block
size, and equal :func:`sim.experiments.campaign.run_campaign`'s counts for the same
seed; memory stays one block whatever the number of trials.

:func:`scenario_setup` turns a scenario into the experiment's base setup;
:data:`EXPERIMENT` is listed in :mod:`sim.experiments.registry` as
``campaign``, so ``compare``, targets and ``tune`` work on it.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import runner
from sim.campaign.compile import CampaignArrays, CampaignInputError, compile_campaign
from sim.experiments.base import Case, CompareInputError, Experiment, Metric, PairedSums
from sim.experiments.campaign import (
    COUNTERS,
    ENDS,
    FRAME_METRICS,
    METRICS,
    exact_sums,
    run_campaign,
    simulate_trials,
)
from sim.experiments.campaign_metrics import WIN_RATE
from sim.kernels import campaign as K
from sim.rules import Ruleset
from sim.rules.scenario import SNEAK, Policy, Scenario, load_scenario

NAME = "campaign"
BLOCK = 65_536
"""Trials per block (every variant plays a block before the next one starts)."""

CAMPAIGN_METRICS: tuple[Metric, ...] = tuple(
    Metric(name, kind, better) for name, kind, better, _ in METRICS)
"""Per-game metrics (:data:`sim.experiments.campaign.METRICS`, where each is declared with
its label), named as in ``zonesim campaign``'s JSON; ``game_days`` is the mean day a game
ended over all games (the days to the Sarcophagus among those who got there is a
conditional mean, not a per-trial quantity, and is left out)."""

CAMPAIGN_KEYS: dict[str, tuple[str, str]] = {
    "stalker": ("stalker", "str"), "start": ("start", "str"),
    "armor": ("armor", "optional"), "weapon": ("weapons", "list"),
    "item": ("items", "list"), "rubles": ("rubles", "rubles"),
    "route": ("route", "route"), "sneak": ("sneak", "sneak"), "flee_at": ("flee_at", "int"),
    "heal_at": ("heal_at", "int"), "medkit_at": ("medkit_at", "int"),
    "enter_anomalies": ("enter_anomalies", "bool"), "retreat_at": ("retreat_at", "int"),
    "pay_heal": ("pay_heal", "bool"), "shopping": ("shopping", "list"),
    "artifacts": ("artifacts", "list"), "keep_artifacts": ("keep_artifacts", "list"),
    "calm_at": ("calm_at", "int"), "purge_at": ("purge_at", "int"),
    "use_movement_artifacts": ("use_movement_artifacts", "bool"),
    "exchange": ("exchange", "bool"), "knockout_loss": ("knockout_loss", "knockout_loss"),
}
"""Variant keys: the scenario's loadout, stalker, start and every ``[policy]`` key."""

_POLICY_INTS = ("flee_at", "heal_at", "medkit_at", "retreat_at", "calm_at", "purge_at")


def scenario_setup(scenario: Scenario) -> dict[str, Any]:
    """The base setup of the ``campaign`` experiment for ``scenario``.

    ``rubles`` is None unless the scenario's loadout sets it: the starting money
    then follows the (possibly edited or overridden) stalker card, as when the
    scenario is loaded.
    A multiplayer scenario (``[[players]]``, issue 12) is refused: these
    experiments play one stalker, and seat 1 alone would answer another question.
    """
    if scenario.multiplayer:
        raise CompareInputError(f"{scenario.path} is a multiplayer scenario: compare, tune "
                                "and sweep play one stalker; use zonesim campaign or "
                                "zonesim balance characters")
    p = scenario.policy
    return {"scenario": str(scenario.path), "stalker": scenario.stalker,
            "start": scenario.start, "armor": scenario.armor,
            "weapons": tuple(scenario.weapons), "items": tuple(scenario.items),
            "rubles": _explicit_rubles(scenario.path), "route": tuple(p.route),
            "sneak": p.sneak, "flee_at": p.flee_at, "heal_at": p.heal_at,
            "medkit_at": p.medkit_at, "enter_anomalies": p.enter_anomalies,
            "retreat_at": p.retreat_at, "pay_heal": p.pay_heal,
            "shopping": tuple(p.shopping), "artifacts": tuple(scenario.artifacts),
            "keep_artifacts": tuple(p.keep_artifacts), "calm_at": p.calm_at,
            "purge_at": p.purge_at, "use_movement_artifacts": p.use_movement_artifacts,
            "exchange": p.exchange, "knockout_loss": p.knockout_loss}


def _explicit_rubles(path: Path) -> int | None:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    rubles = data.get("loadout", {}).get("rubles")
    return rubles if isinstance(rubles, int) and not isinstance(rubles, bool) else None


def _known(value: Any, table: Mapping, what: str) -> None:
    if value not in table:
        raise CompareInputError(f"{what} {value!r} is not in the ruleset "
                                f"(known: {', '.join(map(str, table))})")


def scenario_of(case: Case) -> Scenario:
    """The scenario a case plays: its setup on its ruleset (edits applied).

    Raises
    ------
    CompareInputError
        A card, location or policy value the ruleset does not know.
    """
    s, rs = case.setup, case.ruleset
    stalker = str(s["stalker"])
    _known(stalker, rs.stalkers, "stalker")
    armor = s.get("armor")
    if armor is not None:
        _known(armor, rs.armor, "armour")
    weapons = tuple(s.get("weapons", ()))
    for weapon in weapons:
        _known(weapon, rs.weapons, "weapon")
    items = tuple(s.get("items", ()))
    shopping = tuple(s.get("shopping", ()))
    for item in (*items, *shopping):
        _known(item, rs.items, "item")
    artifacts = tuple(s.get("artifacts", ()))
    keep = tuple(s.get("keep_artifacts", ()))
    for name in (*artifacts, *keep):
        _known(name, rs.artifacts, "artefact")
    hexmap = getattr(rs, "map", None)
    hexes = [] if hexmap is None else hexmap.hexes
    start = str(s["start"])
    if start not in {h.name for h in hexes if h.name}:
        raise CompareInputError(f"start {start!r} is not a named location on the map")
    route = tuple(r for r in s.get("route", ()) if r != "nearest")
    complexes = {h.name for h in hexes if h.location == "complex"}
    for name in route:
        if name not in complexes:
            raise CompareInputError(f"route {name!r} is not a Secret Complex on the map "
                                    f"(known: {', '.join(sorted(complexes))})")
    sneak = str(s.get("sneak", "always"))
    if sneak not in SNEAK:
        raise CompareInputError(f"sneak {sneak!r} is not one of {', '.join(SNEAK)}")
    ints = {key: int(s.get(key, getattr(Policy, key))) for key in _POLICY_INTS}
    rubles = s.get("rubles")
    if rubles is None:
        rubles = rs.stalkers[stalker].rubles
    policy = Policy(route=route, sneak=sneak, enter_anomalies=bool(s.get("enter_anomalies")),
                    pay_heal=bool(s.get("pay_heal", True)), shopping=shopping,
                    keep_artifacts=keep,
                    use_movement_artifacts=bool(s.get("use_movement_artifacts", True)),
                    exchange=bool(s.get("exchange", True)),
                    knockout_loss=str(s.get("knockout_loss", Policy.knockout_loss)), **ints)
    path = Path(str(s.get("scenario", "scenario")))
    return Scenario(path=path, name=path.stem, ruleset=rs, stalker=stalker, start=start,
                    stalkers=1, armor=armor, weapons=weapons, items=items, rubles=int(rubles),
                    policy=policy, artifacts=artifacts)


def compile_cases(cases: Sequence[Case]) -> list[CampaignArrays]:
    """Compile each case's scenario; errors become :class:`CompareInputError`."""
    out = []
    for case in cases:
        try:
            out.append(compile_campaign(scenario_of(case)))
        except CampaignInputError as error:
            raise CompareInputError(str(error)) from None
    return out


def trial_metrics(rows: np.ndarray) -> np.ndarray:
    """Per-trial metric values (int64, shape (n, M)) from per-game rows (n, G_ROW)."""
    end = rows[:, K.G_END]
    values = {WIN_RATE: end == K.REACHED,
              "p_reach_sarcophagus": rows[:, K.G_SARCOPHAGUS] > 0,
              "p_survive": (end == K.REACHED) | (end == K.CAPPED),
              "p_final_emission": end == K.DEATH_FINAL_EMISSION,
              "p_capped": end == K.CAPPED,
              **{f"causes.{cause}": end == code for code, cause in enumerate(ENDS)},
              "game_days": rows[:, K.G_DAY],
              **{name: rows[:, column] for name, column in COUNTERS.items()}}
    out = np.empty((rows.shape[0], len(CAMPAIGN_METRICS)), dtype=np.int64)
    for i, metric in enumerate(CAMPAIGN_METRICS):
        out[:, i] = values[metric.name]
    return out


def trial_values(compiled: CampaignArrays, metrics: Sequence[str], *, seed: int, first: int,
                 trials: int, threads: int | None = None, block: int = BLOCK) -> np.ndarray:
    """Per-game values of some :data:`CAMPAIGN_METRICS` over trials ``first .. first + trials - 1``.

    Game ``t`` plays the streams of ``(seed, t)`` (:func:`~sim.experiments.campaign.
    simulate_trials`), so two scenarios given the same ``first`` and ``trials`` are paired
    game by game, and values of consecutive ranges join into those of the whole range.

    Returns
    -------
    ndarray of int64, shape (trials, len(metrics))
    """
    names = [m.name for m in CAMPAIGN_METRICS]
    columns = [names.index(name) for name in metrics]
    out = np.empty((trials, len(columns)), dtype=np.int64)
    buffer = np.empty((min(block, trials), K.G_ROW), dtype=np.int64)
    runner.started(trials)
    for lo in range(0, trials, block):
        n = min(block, trials - lo)
        rows = simulate_trials(compiled, seed, first + lo, n, threads, out=buffer)
        out[lo:lo + n] = trial_metrics(rows)[:, columns]
        runner.advanced(n)
    return out


def paired_block_sums(arrays: Sequence[CampaignArrays], *, trials: int, seed: int,
                      threads: int | None = None, block: int = BLOCK) -> np.ndarray:
    """Exact paired sums of V compiled scenarios over trials ``0 .. trials - 1``.

    Returns
    -------
    ndarray of object (Python int), shape (V, 4, M)
        Per variant: sum of x, of x**2, of x - x_baseline and of its square
        (the :class:`sim.workflows.compare.PairedSums` layout; zero differences for the
        baseline), for the metrics :data:`CAMPAIGN_METRICS`.
    """
    if trials < 1:
        raise CompareInputError("trials must be >= 1")
    if seed < 0:
        raise CompareInputError("seed must be >= 0")
    if block < 1:
        raise ValueError("block must be >= 1")
    n_var, n_met = len(arrays), len(CAMPAIGN_METRICS)
    totals = np.zeros((n_var, 4, n_met), dtype=object)
    totals[...] = 0
    buffer = np.empty((min(block, trials), K.G_ROW), dtype=np.int64)
    runner.started(trials * n_var)
    for first in range(0, trials, block):
        n = min(block, trials - first)
        base = None
        for v, compiled in enumerate(arrays):
            x = trial_metrics(simulate_trials(compiled, seed, first, n, threads, out=buffer))
            runner.advanced(n)
            s, s2 = exact_sums(x)
            totals[v, 0] += s
            totals[v, 1] += s2
            if v == 0:
                base = x
            else:
                d, d2 = exact_sums(x - base)
                totals[v, 2] += d
                totals[v, 3] += d2
    return totals


def run_campaign_compare(cases: Sequence[Case], *, trials: int, seed: int,
                         threads: int | None = None, block: int = BLOCK) -> PairedSums:
    """Whole games of every case on common random numbers (the ``campaign`` experiment).

    Setup keys: ``scenario`` (its path, for provenance), ``stalker``, ``start``,
    ``armor``, ``weapons``, ``items``, ``rubles`` (None: the stalker card's),
    and the policy keys of :class:`sim.rules.scenario.Policy`
    (:func:`scenario_setup` builds them from a scenario). There are no exact
    values (NaN).
    """
    compiled = compile_cases(cases)
    totals = paired_block_sums(compiled, trials=trials, seed=seed, threads=threads,
                               block=block)
    sums = np.asarray([[[float(v) for v in row] for row in var] for var in totals])
    exact = np.full((len(cases), len(CAMPAIGN_METRICS)), np.nan)
    return PairedSums(trials, CAMPAIGN_METRICS, sums, exact, indicator=True)



__all__ = ["BLOCK", "CAMPAIGN_KEYS", "CAMPAIGN_METRICS", "NAME", "compile_cases",
           "paired_block_sums", "run_campaign_compare", "scenario_of", "scenario_setup",
           "trial_metrics", "trial_values"]


def sweep_rows(rs: Ruleset, params: Mapping[str, Any], trials: int,
                        seed: int) -> pd.DataFrame:
    """Whole games of ``scenario`` (default ``base``) played on the edited ruleset.

    One row: :meth:`CampaignResult.to_frame` of :func:`sim.experiments.campaign.run_campaign`.
    """
    scenario = dataclasses.replace(load_scenario(params.get("scenario")), ruleset=rs)
    return run_campaign(scenario, trials=trials, seed=seed).to_frame()


def compile_inputs(cases: Sequence[Case]) -> list:
    """Each case's packed campaign arrays: equal arrays play equal games on equal streams
    (:mod:`sim.workflows.batches`).
    """
    return [arrays.pack() for arrays in compile_cases(cases)]


EXPERIMENT = Experiment(NAME, CAMPAIGN_METRICS, CAMPAIGN_KEYS, run_campaign_compare, sweep_rows,
                        FRAME_METRICS, default_metric=WIN_RATE,
                        option_keys=("stalker", "armor", "weapons", "items", "sneak", "flee_at",
                                     "heal_at"),
                        from_scenario=scenario_setup, compile_inputs=compile_inputs)
"""Whole campaigns compared on common random numbers (``zonesim compare campaign``)."""
