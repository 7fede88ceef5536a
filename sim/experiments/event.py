"""The event experiment (Z-08..Z-10): run event draws, summarise, name the metrics.

The library behind ``zonesim event``: :func:`event_table` compiles each event
card with the best event item held (:func:`sim.encounter.anomaly.compile_event`),
runs the kernel and the exact twin on it and returns one row per card, most
dangerous first, all on the same seed (common random numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sim import runner
from sim.encounter.anomaly import (
    EVENT_ITEM_EFFECTS,
    HazardPlay,
    StartState,
    compile_event,
    held_items,
)
from sim.encounter.items import best_event_item
from sim.encounter.spec import EventSpec
from sim.exact.best_combat import Objective
from sim.exact.best_hazard import solve_event
from sim.exact.event import OUTCOMES as EVENT_OUTCOMES
from sim.exact.event import event_exact
from sim.experiments import policy_keys, tables
from sim.experiments.anomaly import PlayedTable, objective_cell, start_state
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
from sim.experiments.tables import danger_key, in_deck_order
from sim.kernels import event as event_kernel
from sim.kernels import paired
from sim.kernels.layout import ART_RESIST
from sim.rules import Ruleset


@dataclass(frozen=True)
class Played:
    """An event played by decisions (:class:`HazardPlay`) instead of every artefact."""

    spec: EventSpec
    play: HazardPlay

    def pack(self) -> np.ndarray:
        """The spec's kernel parameters with the decisions packed (P-08)."""
        return self.play.pack_event(self.spec.pack())


def simulate_event(spec: EventSpec, trials: int, seed: int,
                   threads: int | None = None, play: HazardPlay | None = None) -> np.ndarray:
    """Kernel aggregates of ``trials`` draws of one event (see :mod:`sim.kernels.event`),
    every artefact used or those of ``play``.
    """
    params = spec.pack() if play is None else Played(spec, play).pack()
    return runner.run_counts(event_kernel.event_kernel, seed, trials, (event_kernel.WIDTH,),
                             params, threads=threads)


def summarize_event(spec: EventSpec, counts: np.ndarray, trials: int,
                    play: HazardPlay | None = None) -> dict:
    """Result cells from kernel counts and the exact twin.

    Outcomes ``avoided``, ``happened`` (took place, stalker still conscious)
    and ``knocked_out`` (took place, Health or Willpower <= 0) sum to 1, so
    P(the event took place) = 1 - avoided. Then ``deformation`` (P-39),
    ``health_lost``, ``radiation``, ``psi`` (means after the armour),
    ``days_lost``, ``emission_tokens`` (means) and ``armor_destroyed``.
    """
    k = event_kernel
    exact = event_exact(spec, play)

    def mean(col: int, col_sq: int, value) -> dict:
        return tables.mean(counts[col], counts[col_sq], trials, value)

    row = {
        "outcomes": {name: tables.proportion(counts[k.OUTCOME.index[name.upper()]], trials,
                                             exact.outcomes[name])
                     for name in EVENT_OUTCOMES},
        "deformation": tables.proportion(counts[k.DEFORMATION], trials, exact.deformation),
        "health_lost": mean(k.SUM_HEALTH, k.SUM_HEALTH_SQ, exact.health_lost),
        "radiation": mean(k.SUM_RADIATION, k.SUM_RADIATION_SQ, exact.radiation),
        "psi": mean(k.SUM_PSI, k.SUM_PSI_SQ, exact.psi),
        "days_lost": mean(k.SUM_DAYS, k.SUM_DAYS_SQ, exact.days_lost),
        "emission_tokens": mean(k.SUM_TOKENS, k.SUM_TOKENS_SQ, exact.emission_tokens),
        "armor_destroyed": tables.proportion(counts[k.DESTROYED], trials,
                                             exact.armor_destroyed),
    }
    if spec.artifacts:  # P-08..P-10; rows without artefacts keep their keys
        row["artifact_uses"] = {"mc": counts[k.SUM_ART_USES] / trials,
                                "exact": float(exact.mean_artifact_uses)}
        row["side_effects"] = {"mc": counts[k.SUM_SIDE_EFFECTS] / trials,
                               "exact": float(exact.mean_side_effects)}
    if play is not None and spec.artifacts:  # best play's value objectives charge them
        row["side_points"] = {"mc": counts[k.SUM_SIDE_POINTS] / trials,
                              "exact": float(exact.mean_side_points)}
    return row


def event_table(rs: Ruleset, stalker: str, events: Sequence[str], armor: str | None = None,
                items: Sequence[str] = (), *, state: StartState = StartState(), trials: int,
                seed: int, threads: int | None = None, artifacts: Sequence[str] = (),
                intellect: int | None = None, best: Objective | None = None) -> PlayedTable:
    """Draw each event in turn; rows sorted by danger (exact P(knocked out) first).

    Each row holds ``stalker``, ``event``, ``item`` (the best event item used,
    or None), ``armor`` and the cells of :func:`summarize_event`; ``artifacts``
    are carried (P-08..P-10). With ``best``, each card is played by its exact
    best decisions (:func:`sim.exact.best_hazard.solve_event`: the resist
    artefacts used, P-08; the event item stays the best held, which best play
    always is, Z-10); the row then says ``policy``, ``artifacts_used``,
    ``decisions`` and the ``objective``'s value.
    """
    item = best_event_item(held_items(rs, items, EVENT_ITEM_EFFECTS, "on an event"))
    rows = []
    for name in events:
        spec = compile_event(rs, stalker, name, armor, items, state=state,
                             artifacts=artifacts, intellect=intellect)
        row = {"stalker": stalker, "event": name, "item": None if item is None else item.name,
               "armor": armor}
        play = None if best is None else solve_event(spec, best)
        if play is not None:
            row["policy"] = f"best ({best.name})"
            row["artifacts_used"] = [a.name for a in play.chosen(spec.artifacts)
                                     if a.effect == ART_RESIST]
            row["decisions"] = [f"use {row['item'] or 'no event item'} (the best held, Z-10)",
                                *play.words(spec.artifacts, anomaly=False)]
        row.update(summarize_event(spec, simulate_event(spec, trials, seed, threads, play),
                                   trials, play))
        if play is not None:
            row["objective"] = objective_cell(best, row, play.value, (*LOST, "side_points"))
        rows.append(row)
    rows.sort(key=danger_key(NAMES, LOST))
    return PlayedTable(trials, seed, "event", tuple(rows))


def event_names(rs: Ruleset, which: str) -> list[str]:
    """``all`` -> every event card; else ``[which]`` (checked later)."""
    return list(rs.events) if which == "all" else [which]


EVENT_METRICS: tuple[Metric, ...] = in_columns(event_kernel.OUTCOME, paired.EVENT_METRIC, {
    "AVOIDED": Metric("avoided", "proportion", "higher", "avoided"),
    "HAPPENED": Metric("happened", "proportion", "lower", "event happened"),
    "KNOCKED_OUT": Metric("knocked_out", "proportion", "lower", "knocked out"),
    "E_DEFORMATION": Metric("deformation", "proportion", "lower", "deformation"),
    "E_HEALTH": Metric("health_lost", "mean", "lower", "Health lost"),
    "E_RADIATION": Metric("radiation", "mean", "lower", "radiation doses"),
    "E_PSI": Metric("psi", "mean", "lower", "psi damage"),
    "E_DAYS": Metric("days_lost", "mean", "lower", "days lost"),
    "E_TOKENS": Metric("emission_tokens", "mean", "lower", "Emission tokens"),
    "E_DESTROYED": Metric("armor_destroyed", "proportion", "lower", "armour destroyed"),
})
"""Event metrics (cells of ``zonesim event``), in the paired kernel's columns; outcomes sum
to 1."""
assert tuple(m.name for m in EVENT_METRICS[:event_kernel.N_OUTCOMES]) == EVENT_OUTCOMES
NAMES = MetricNames(EVENT_METRICS)
"""The event's metric names, read from :data:`EVENT_METRICS` (``NAMES.knocked_out``)."""
LOST = (NAMES.health_lost, NAMES.radiation, NAMES.psi)
"""The event's metrics of points lost after the armour (its danger order, a value objective)."""


def run_event(cases: Sequence[Case], *, trials: int, seed: int, exact: bool = True,
              threads: int | None = None) -> PairedSums:
    """Event draws (Z-08..Z-10) of every case on common random numbers.

    Setup keys: ``stalker``, ``event`` (a card or ``all``), ``armor``, ``items``
    (``event_avoid`` only; the best counts, Z-10), ``health``, ``willpower``,
    ``radiation``, ``tokens``, ``artifacts``, ``intellect``, ``policy``
    (``thresholds``: every artefact; ``best``: each card's exact best decisions,
    :mod:`sim.exact.best_hazard`) and ``objective``. ``exact=False`` skips the
    exact twin.
    """

    def compile_card(rs, s, name):
        spec = compile_event(rs, str(s["stalker"]), name, s.get("armor"),
                             tuple(s.get("items", ())), state=start_state(s),
                             artifacts=tuple(s.get("artifacts", ())),
                             intellect=s.get("intellect"))
        best = best_objective(s)
        return spec if best is None else Played(spec, solve_event(spec, best))

    decks, packs, exacts = deck_cases(cases, "event", lambda rs: rs.events, event_names,
                                      compile_card, _event_exact, exact)
    params = pad_grid(packs)
    weights = deck_weights(decks)
    sums = run_paired(paired.paired_event_kernel, paired.N_EVENT_METRICS, trials, seed,
                       threads, params, weights)
    return PairedSums(trials, EVENT_METRICS, sums,
                      deck_exact(exacts, decks, paired.N_EVENT_METRICS), single_cards(decks))


def _event_exact(spec) -> np.ndarray:
    e = event_exact(spec.spec, spec.play) if isinstance(spec, Played) else event_exact(spec)
    return exact_row(EVENT_METRICS, {
        **e.outcomes, "deformation": e.deformation, "health_lost": e.health_lost,
        "radiation": e.radiation, "psi": e.psi, "days_lost": e.days_lost,
        "emission_tokens": e.emission_tokens, "armor_destroyed": e.armor_destroyed})


def sweep_rows(rs: Ruleset, params: Mapping[str, Any], trials: int,
                     seed: int) -> pd.DataFrame:
    """Draws of ``event`` (a card or ``all``) for ``stalker``, in deck order.

    ``params`` keys: ``stalker`` (required), ``event`` (default ``all``),
    ``armor``, ``items`` (event items; the best one counts).
    """
    names = event_names(rs, params.get("event", "all"))
    table = event_table(rs, params["stalker"], names, params.get("armor"),
                                tuple(params.get("items", ())), trials=trials, seed=seed,
                                artifacts=tuple(params.get("artifacts", ())),
                                intellect=params.get("intellect"))
    return in_deck_order(table.to_frame(), "event", names)


EXPERIMENT = Experiment(
    "event", EVENT_METRICS,
    {**LOADOUT_KEYS, "event": ("event", "str"), **STATE_KEYS,
     **policy_keys.variant_keys("event")}, run_event,
    sweep_rows, tuple(m.name for m in EVENT_METRICS),
    default_metric="avoided", card_key="event", card_table="events",
    scenario_keys=("stalker", "armor", "items", *policy_keys.setup_keys("event")),
    item_effects=EVENT_ITEM_EFFECTS,
    option_keys=("stalker", "armor", "event", "items", *policy_keys.option_keys("event"),
                 *STATE_KEYS))
"""Event draws compared on common random numbers (``zonesim compare event``)."""
