"""The anomaly experiment (P-30..P-36): run encounters, summarise, name the metrics.

The library behind ``zonesim anomaly``: :func:`anomaly_table` compiles each
anomaly (:func:`sim.encounter.anomaly.compile_anomaly`), runs the kernel and
the exact twin on it and returns one row per card, most dangerous first, all
on the same seed (common random numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sim import runner
from sim.encounter.anomaly import ANOMALY_ITEM_EFFECTS, HazardPlay, StartState, compile_anomaly
from sim.encounter.spec import AnomalySpec
from sim.exact.anomaly import OUTCOMES as ANOMALY_OUTCOMES
from sim.exact.anomaly import anomaly_exact
from sim.exact.best_combat import Objective
from sim.exact.best_hazard import hazard_values, solve_anomaly
from sim.experiments import policy_keys, tables
from sim.experiments.base import Case, Experiment, Metric, MetricNames, PairedSums
from sim.experiments.paired import (
    LOADOUT_KEYS,
    STATE_KEYS,
    deck_cases,
    deck_exact,
    deck_weights,
    exact_row,
    in_columns,
    pad_grid,
    run_paired,
    single_cards,
)
from sim.experiments.setups import best_objective
from sim.experiments.tables import HazardTable, danger_key, in_deck_order
from sim.kernels import anomaly as anomaly_kernel
from sim.kernels import paired
from sim.kernels.layout import ART_RESIST
from sim.rules import Ruleset


@dataclass(frozen=True)
class Played:
    """An anomaly played by decisions (:class:`HazardPlay`) instead of the spec's policy."""

    spec: AnomalySpec
    play: HazardPlay

    def pack(self) -> tuple[np.ndarray, np.ndarray]:
        """The spec's kernel arrays with the decisions packed (P-36, P-08)."""
        params, deck = self.spec.pack()
        return self.play.pack_anomaly(params), deck


def simulate_anomaly(spec: AnomalySpec, trials: int, seed: int,
                     threads: int | None = None, play: HazardPlay | None = None) -> np.ndarray:
    """Kernel aggregates of ``trials`` encounters (columns of :mod:`sim.kernels.anomaly`),
    played by the spec's policy or by ``play``.
    """
    arrays = spec.pack() if play is None else Played(spec, play).pack()
    return runner.run_counts(anomaly_kernel.anomaly_kernel, seed, trials,
                             (anomaly_kernel.WIDTH,), *arrays, threads=threads)


def summarize_anomaly(spec: AnomalySpec, counts: np.ndarray, trials: int,
                      play: HazardPlay | None = None) -> dict:
    """Result cells from kernel counts and the exact twin.

    Outcomes ``avoided``, ``unharmed``, ``damaged``, ``knocked_out`` (they sum
    to 1), then ``artifact`` (P-35), ``trophy`` (P-34), ``deformation``
    (P-39), ``perceived`` (P-31), ``mean_loss`` (points lost after the armour,
    a mean over all encounters), ``armor_destroyed`` (P-05) and, when anyone
    searched, ``draws_per_search`` (cards drawn per search, P-35).
    """
    k = anomaly_kernel
    exact = anomaly_exact(spec, play)
    row = {
        "outcomes": {name: tables.proportion(counts[k.OUTCOME.index[name.upper()]], trials,
                                             exact.outcomes[name])
                     for name in ANOMALY_OUTCOMES},
        "artifact": tables.proportion(counts[k.ARTIFACT], trials, exact.artifact),
        "trophy": tables.proportion(counts[k.UNHARMED] + counts[k.DAMAGED], trials,
                                    exact.trophy),
        "deformation": tables.proportion(counts[k.DEFORMATION], trials, exact.deformation),
        "perceived": tables.proportion(counts[k.PERCEIVED], trials, exact.perceived),
        "mean_loss": tables.mean(counts[k.SUM_LOSS], counts[k.SUM_LOSS_SQ], trials,
                                 exact.mean_loss),
        "armor_destroyed": tables.proportion(counts[k.DESTROYED], trials,
                                             exact.armor_destroyed),
    }
    if spec.artifacts:  # P-08..P-10; rows without artefacts keep their keys
        row["artifact_uses"] = {"mc": counts[k.SUM_ART_USES] / trials,
                                "exact": float(exact.mean_artifact_uses)}
        row["side_effects"] = {"mc": counts[k.SUM_SIDE_EFFECTS] / trials,
                               "exact": float(exact.mean_side_effects)}
    if counts[k.SEARCHES] > 0:
        row[DRAWS_PER_SEARCH.name] = tables.mean(
            counts[k.SUM_DRAWS], counts[k.SUM_DRAWS_SQ], int(counts[k.SEARCHES]),
            exact.draws_per_search)
    if play is not None and spec.artifacts:  # best play's value objectives charge them
        row["side_points"] = {"mc": counts[k.SUM_SIDE_POINTS] / trials,
                              "exact": float(exact.mean_side_points)}
    return row


def objective_cell(best: Objective, row: dict, exact: float, lost: tuple[str, ...]) -> dict:
    """The objective's value under best play: its Monte Carlo estimate beside the solver's.

    ``survive`` is 1 - P(knocked out), ``kill`` P(artefact found) on an anomaly
    (:class:`sim.exact.best_hazard.HazardValues`), proportions with their Wilson
    intervals; a ``value`` objective is the weighted sum of the outcomes less the
    points lost (the cells ``lost``), without an interval.
    """
    out = row["outcomes"]
    if best.name == "kill" and "artifact" in row:
        return {**row["artifact"], "exact": exact}
    if best.name == "survive":
        cell = dict(out["knocked_out"])
        cell["mc"], cell["ci_low"], cell["ci_high"] = (
            1 - cell["mc"], 1 - cell["ci_high"], 1 - cell["ci_low"])
        return {**cell, "exact": exact}
    v = hazard_values(best)
    found = row["artifact"]["mc"] if "artifact" in row else 0.0
    came_out = 1 - out["avoided"]["mc"] - out["knocked_out"]["mc"] - found
    mc = (float(v.avoided) * out["avoided"]["mc"] + float(v.found) * found
          + float(v.came_out) * came_out + float(v.knocked_out) * out["knocked_out"]["mc"]
          - float(v.point) * sum(row[c]["mc"] for c in lost if c in row))
    return {"mc": mc, "exact": exact}


class PlayedTable(HazardTable):
    """A :class:`HazardTable` whose rows may carry best play's decisions in words."""

    def to_frame(self) -> pd.DataFrame:
        """One flat row per card; the decisions joined into one text column."""
        import pandas as pd

        rows = [{k: "; ".join(v) if isinstance(v, list) else v for k, v in r.items()}
                for r in self.rows]
        keys = tuple(k for k in rows[0] if not isinstance(rows[0][k], dict))
        return pd.DataFrame([tables.flatten(r, keys) for r in rows])

    def decision_lines(self) -> list[str]:
        """Under best play, each card's decisions in words ("Burner: go around ...")."""
        return [f"{r[self.card]}: " + "; ".join(r["decisions"]) for r in self.rows
                if r.get("decisions")]


def anomaly_table(rs: Ruleset, stalker: str, anomalies: Sequence[str], armor: str | None = None,
                  items: Sequence[str] = (), *, enter: bool = False,
                  state: StartState = StartState(), trials: int, seed: int,
                  threads: int | None = None, artifacts: Sequence[str] = (),
                  intellect: int | None = None, best: Objective | None = None) -> PlayedTable:
    """Meet each anomaly in turn; rows sorted by danger (exact P(knocked out) first).

    Each row holds ``stalker``, ``anomaly``, ``armor``, ``enter`` and the
    cells of :func:`summarize_anomaly`; ``artifacts`` are carried (P-08..P-10).
    With ``best``, each card is played by its exact best decisions for that
    objective (:func:`sim.exact.best_hazard.solve_anomaly`: enter after noticing,
    P-36, and the resist artefacts used, P-08) instead of ``enter`` and every
    artefact; the row then says ``policy``, its ``enter``, ``artifacts_used``,
    ``decisions`` in words and the ``objective``'s value.
    """
    rows = []
    for name in anomalies:
        spec = compile_anomaly(rs, stalker, name, armor, items, enter=enter, state=state,
                               artifacts=artifacts, intellect=intellect)
        play = None if best is None else solve_anomaly(spec, best)
        row = {"stalker": stalker, "anomaly": name, "armor": armor,
               "enter": enter if play is None else play.enter}
        if play is not None:
            row["policy"] = f"best ({best.name})"
            row["artifacts_used"] = [a.name for a in play.chosen(spec.artifacts)
                                     if a.effect == ART_RESIST]
            row["decisions"] = play.words(spec.artifacts, anomaly=True)
        row.update(summarize_anomaly(spec, simulate_anomaly(spec, trials, seed, threads, play),
                                     trials, play))
        if play is not None:
            row["objective"] = objective_cell(best, row, play.value, (*LOST, "side_points"))
        rows.append(row)
    rows.sort(key=danger_key(NAMES, LOST))
    return PlayedTable(trials, seed, "anomaly", tuple(rows))


def anomaly_names(rs: Ruleset, which: str) -> list[str]:
    """``all`` -> every anomaly card; else ``[which]`` (checked later)."""
    return list(rs.anomalies) if which == "all" else [which]


ANOMALY_METRICS: tuple[Metric, ...] = in_columns(anomaly_kernel.OUTCOME, paired.ANOMALY_METRIC, {
    "AVOIDED": Metric("avoided", "proportion", None, "avoided"),
    "UNHARMED": Metric("unharmed", "proportion", "higher", "unharmed"),
    "DAMAGED": Metric("damaged", "proportion", "lower", "damaged"),
    "KNOCKED_OUT": Metric("knocked_out", "proportion", "lower", "knocked out"),
    "A_ARTIFACT": Metric("artifact", "proportion", "higher", "artefact found"),
    "A_TROPHY": Metric("trophy", "proportion", "higher", "kept as a trophy"),
    "A_DEFORMATION": Metric("deformation", "proportion", "lower", "deformation"),
    "A_PERCEIVED": Metric("perceived", "proportion", None, "noticed"),
    "A_LOSS": Metric("mean_loss", "mean", "lower", "Health lost"),
    "A_DESTROYED": Metric("armor_destroyed", "proportion", "lower", "armour destroyed"),
})
"""Anomaly metrics (cells of ``zonesim anomaly``), in the paired kernel's columns; outcomes
sum to 1."""
assert tuple(m.name for m in ANOMALY_METRICS[:anomaly_kernel.N_OUTCOMES]) == ANOMALY_OUTCOMES
NAMES = MetricNames(ANOMALY_METRICS)
"""The anomaly's metric names, read from :data:`ANOMALY_METRICS` (``NAMES.knocked_out``)."""
LOST = (NAMES.mean_loss,)
"""The anomaly's metric of points lost after the armour (its danger order, a value objective)."""
DRAWS_PER_SEARCH = Metric("draws_per_search", "mean", None, "draws per search")
"""Anomaly cards drawn per search (P-35): a sweep column, no paired metric (a mean over the
searches, not over the trials)."""


def start_state(s: Mapping[str, Any]) -> StartState:
    """The starting state of a case (``health``, ``willpower``, ``radiation``, ``tokens``)."""
    return StartState(health=s.get("health"), willpower=s.get("willpower"),
                      radiation=int(s.get("radiation", 0)), tokens=int(s.get("tokens", 0)))


def run_anomaly(cases: Sequence[Case], *, trials: int, seed: int, exact: bool = True,
                threads: int | None = None) -> PairedSums:
    """Anomaly encounters (P-30..P-36) of every case on common random numbers.

    Setup keys: ``stalker``, ``anomaly`` (a card or ``all``), ``armor``,
    ``items`` (refused: no item acts inside an anomaly), ``enter``,
    ``health``, ``willpower``, ``radiation``, ``tokens``, ``artifacts``,
    ``intellect``, ``policy`` (``thresholds``: ``enter`` and every artefact;
    ``best``: each card's exact best decisions, :mod:`sim.exact.best_hazard`) and
    ``objective``. ``exact=False`` skips the exact twin (NaN exact values; faster
    for many short runs).
    """

    def compile_card(rs, s, name):
        spec = compile_anomaly(
            rs, str(s["stalker"]), name, s.get("armor"), tuple(s.get("items", ())),
            enter=bool(s.get("enter", False)), state=start_state(s),
            artifacts=tuple(s.get("artifacts", ())), intellect=s.get("intellect"))
        best = best_objective(s)
        return spec if best is None else Played(spec, solve_anomaly(spec, best))

    decks, packs, exacts = deck_cases(cases, "anomaly", lambda rs: rs.anomalies, anomaly_names,
                                      compile_card, _anomaly_exact, exact)
    params, deck_arr = (pad_grid([[p[i] for p in row] for row in packs]) for i in range(2))
    weights = deck_weights(decks)
    sums = run_paired(paired.paired_anomaly_kernel, paired.N_ANOMALY_METRICS, trials, seed,
                       threads, params, deck_arr, weights)
    return PairedSums(trials, ANOMALY_METRICS, sums,
                      deck_exact(exacts, decks, paired.N_ANOMALY_METRICS), single_cards(decks))


def _anomaly_exact(spec) -> np.ndarray:
    e = (anomaly_exact(spec.spec, spec.play) if isinstance(spec, Played)
         else anomaly_exact(spec))
    return exact_row(ANOMALY_METRICS, {
        **e.outcomes, "artifact": e.artifact, "trophy": e.trophy, "deformation": e.deformation,
        "perceived": e.perceived, "mean_loss": e.mean_loss, "armor_destroyed": e.armor_destroyed})


def sweep_rows(rs: Ruleset, params: Mapping[str, Any], trials: int,
                       seed: int) -> pd.DataFrame:
    """Encounters of ``stalker`` with ``anomaly`` (a card or ``all``), in deck order.

    ``params`` keys: ``stalker`` (required), ``anomaly`` (default ``all``),
    ``armor``, ``enter``.
    """
    names = anomaly_names(rs, params.get("anomaly", "all"))
    table = anomaly_table(rs, params["stalker"], names, params.get("armor"),
                                  enter=bool(params.get("enter", False)), trials=trials,
                                  seed=seed, artifacts=tuple(params.get("artifacts", ())),
                                  intellect=params.get("intellect"))
    return in_deck_order(table.to_frame(), "anomaly", names)


EXPERIMENT = Experiment(
    "anomaly", ANOMALY_METRICS,
    {**LOADOUT_KEYS, "anomaly": ("anomaly", "str"), **STATE_KEYS,
     **policy_keys.variant_keys("anomaly")},
    run_anomaly,
    sweep_rows, tuple(m.name for m in (*ANOMALY_METRICS, DRAWS_PER_SEARCH)),
    default_metric="damaged", card_key="anomaly", card_table="anomalies",
    scenario_keys=("stalker", "armor", "items", *policy_keys.setup_keys("anomaly")),
    item_effects=ANOMALY_ITEM_EFFECTS,
    option_keys=("stalker", "armor", "anomaly", *policy_keys.option_keys("anomaly"), *STATE_KEYS),
    sweep_only=(DRAWS_PER_SEARCH,))
"""Anomaly encounters compared on common random numbers (``zonesim compare anomaly``)."""
