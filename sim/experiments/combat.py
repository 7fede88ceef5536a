"""The combat experiment (P-14..P-29, Z-12..Z-17): run fights, summarise, name the metrics.

The library behind ``zonesim combat``: :func:`combat_table` compiles each
fight (:func:`sim.encounter.combat.compile_combat`), runs the kernel and the
exact Markov chain on it and shapes one result row per enemy, all on the same
seed (common random numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from sim import runner
from sim.encounter.combat import CombatInputError, CombatPolicy, compile_combat
from sim.encounter.plan import CombatPlan
from sim.encounter.spec import CombatSpec, PackedFight
from sim.exact.best_combat import BestPlayError, Objective, solve_combat
from sim.exact.combat import OUTCOMES as COMBAT_OUTCOMES
from sim.exact.combat import CombatExact, combat_exact
from sim.experiments import policy_keys, tables
from sim.experiments.base import (
    Case,
    CompareInputError,
    Experiment,
    Metric,
    PairedSums,
    PlayedCards,
)
from sim.experiments.paired import (
    LOADOUT_KEYS,
    NO_EXACT,
    deck_cards,
    deck_exact,
    deck_weights,
    exact_row,
    in_columns,
    pad_grid,
    run_paired,
    single_cards,
)
from sim.experiments.plan_words import describe
from sim.experiments.setups import best_objective
from sim.experiments.tables import in_deck_order
from sim.kernels import combat as kernel
from sim.kernels import paired
from sim.rules import Ruleset, fightable

if TYPE_CHECKING:  # imported where a frame is built: zonesim combat's JSON and table need none
    import pandas as pd


def simulate(spec: CombatSpec, trials: int, seed: int, threads: int | None = None,
             plan: CombatPlan | None = None):
    """Kernel aggregates of ``trials`` fights (see :mod:`sim.kernels.combat` columns), played
    by the spec's thresholds or by ``plan``.
    """
    packed = spec.pack()
    decisions = kernel.NO_PLAN
    if plan is not None:
        packed, decisions = plan.pack(packed)
    return runner.run_counts(kernel.combat_kernel, seed, trials, (kernel.width(spec.durability),),
                             *packed, decisions, threads=threads)


class _SamePlan:
    """A plan hashed and compared by its contents: :func:`exact_of` finds it solved again."""

    __slots__ = ("plan", "_key")

    def __init__(self, plan: CombatPlan):
        self.plan = plan
        entries = plan.entries
        self._key = (plan.shape, plan.sneak, entries.dtype.str, entries.shape,
                     entries.tobytes(), plan.value, plan.objective, plan.sneak_select)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SamePlan) and self._key == other._key


EXACT_MEMO = 512
"""Fights whose exact twins :func:`exact_of` keeps: more than one report's distinct fights
(its decks under the policy and best play, the items and artefacts compared)."""


@lru_cache(maxsize=EXACT_MEMO)
def _exact(spec: CombatSpec, plan: _SamePlan | None) -> CombatExact:
    return combat_exact(spec, None if plan is None else plan.plan)


def exact_of(spec: CombatSpec, plan: CombatPlan | None = None) -> CombatExact:
    """:func:`sim.exact.combat.combat_exact`, solved once per fight and plan in a process.

    ``zonesim report`` asks for the same fights' exact twins in its enemy deck table, the
    deck comparison beside it (the scenario's policy and best play), the items compared and
    the artefacts compared (each against carrying none): one chain each, not one per
    question (issue 45, item 4). The result is frozen; callers only read it.
    """
    return _exact(spec, None if plan is None else _SamePlan(plan))


def fight_key(spec: CombatSpec, plan: CombatPlan | None = None) -> tuple:
    """A fight as :class:`~sim.experiments.base.PlayedCards` names it: its spec and plan."""
    return spec, None if plan is None else _SamePlan(plan)


def played_counts(played: PlayedCards | None, spec: CombatSpec, plan: CombatPlan | None,
                  trials: int, seed: int) -> np.ndarray | None:
    """The counts :func:`simulate` would give for this fight, read from a paired deck run
    that played it on the same trials and seed (None where it did not).

    The paired kernel plays each card on the streams the combat kernel plays it on
    (:mod:`sim.kernels.paired`), so its per-card sums are these counts bit for bit:
    the columns :func:`summarize` reads (outcomes, wounds, rounds and their squares,
    armour destroyed, stimulants, uses spent). A fight carrying artefacts is not read
    (the paired kernel does not count their uses).
    """
    card = None if played is None or spec.artifacts else played.of(
        fight_key(spec, plan), trials, seed)
    if card is None:
        return None
    total, squares = card.astype(np.int64)  # integer sums: exact in float64
    counts = np.zeros(kernel.width(spec.durability), dtype=np.int64)
    counts[:kernel.N_OUTCOMES] = total[:kernel.N_OUTCOMES]
    m = paired.COMBAT_METRIC
    for into, column in ((kernel.SUM_WOUNDS, m.C_WOUNDS), (kernel.SUM_ROUNDS, m.C_ROUNDS),
                         (kernel.DESTROYED, m.C_DESTROYED),
                         (kernel.SUM_STIMULANTS, m.C_STIMULANTS),
                         (kernel.SUM_SPENT, m.C_SPENT)):
        counts[into] = total[column]
    counts[kernel.SUM_WOUNDS_SQ] = squares[m.C_WOUNDS]
    counts[kernel.SUM_ROUNDS_SQ] = squares[m.C_ROUNDS]
    return counts


def summarize(spec: CombatSpec, counts, trials: int, plan: CombatPlan | None = None) -> dict:
    """One result row from kernel counts and the exact twin (issue JSON shape)."""
    exact = exact_of(spec, plan)
    outcomes = {name: tables.proportion(counts[kernel.OUTCOME.index[name.upper()]], trials,
                                        exact.outcomes[name])
                for name in COMBAT_OUTCOMES}
    row = {
        "outcomes": outcomes,
        "mean_wounds": tables.mean(counts[kernel.SUM_WOUNDS], counts[kernel.SUM_WOUNDS_SQ],
                                   trials, exact.mean_wounds),
        "mean_rounds": tables.mean(counts[kernel.SUM_ROUNDS], counts[kernel.SUM_ROUNDS_SQ],
                                   trials, exact.mean_rounds),
        "armor_destroyed": tables.proportion(counts[kernel.DESTROYED], trials,
                                             exact.p_destroyed),
        "mean_stimulants": {"mc": counts[kernel.SUM_STIMULANTS] / trials,
                            "exact": exact.mean_stimulants},
        "mean_limited_spent": {"mc": counts[kernel.SUM_SPENT] / trials,
                               "exact": exact.mean_limited_spent},
    }
    if spec.artifacts:  # P-08..P-10; rows without artefacts keep their keys
        row["artifact_uses"] = {"mc": counts[kernel.SUM_ART_USES] / trials,
                                "exact": exact.mean_artifact_uses}
        row["side_effects"] = {"mc": counts[kernel.SUM_SIDE_EFFECTS] / trials,
                               "exact": exact.mean_side_effects}
        row["side_radiation"] = {"mc": counts[kernel.SUM_SIDE_RADIATION] / trials,
                                 "exact": exact.mean_side_radiation}
    if plan is not None:
        row["decisions"] = describe(spec, plan, exact.visited, exact.restore_visited)
    return row


@dataclass(frozen=True)
class CombatTable:
    """Rows of ``zonesim combat``: one per enemy, sorted by danger."""

    trials: int
    seed: int
    rows: tuple[dict, ...]

    def to_dict(self) -> dict:
        """The issue's JSON: ``{"trials", "seed", "rows": [...]}``."""
        return {"trials": self.trials, "seed": self.seed, "rows": list(self.rows)}

    def to_frame(self) -> pd.DataFrame:
        """One flat row per enemy: each cell as estimate, interval bounds and exact value."""
        import pandas as pd

        return pd.DataFrame([{**tables.flatten(r, ("stalker", "enemy")), **_plan_columns(r)}
                             for r in self.rows])

    def to_table(self) -> pd.DataFrame:
        """Readable rows: each cell as ``estimate ±half-width (exact)``."""
        import pandas as pd

        return pd.DataFrame(self.table_rows())

    def table_rows(self) -> list[dict]:
        """The rows of :meth:`to_table` as text cells, without pandas."""
        return [tables.compact(r, ("enemy",)) for r in self.rows]

    def decision_lines(self) -> list[str]:
        """Under best play, each card's plan in words ("Chimera: never flee; ...")."""
        return [f"{r['enemy']}: " + "; ".join(r["decisions"]) for r in self.rows
                if "decisions" in r]


def _plan_columns(row: dict) -> dict:
    """The policy and the plan in words, as flat columns (rows played by a plan only)."""
    if "decisions" not in row:
        return {}
    return {"policy": row["policy"], "decisions": "; ".join(row["decisions"])}


def combat_table(rs: Ruleset, stalker: str, enemies: Sequence[str], armor: str | None = None,
                 weapons: Sequence[str] = (), items: Sequence[str] = (),
                 policy: CombatPolicy = CombatPolicy(), *, trials: int, seed: int,
                 threads: int | None = None, artifacts: Sequence[str] = (),
                 intellect: int | None = None, best: Objective | None = None,
                 played: PlayedCards | None = None) -> CombatTable:
    """Fight each enemy in turn and tabulate, most dangerous (P(knocked out)) first.

    Every enemy is fought on the same seed, so differences between cards are
    not blurred by independent noise (common random numbers). ``artifacts``
    are carried (P-08..P-10), activated with ``intellect`` (None = the card's).
    With ``best``, each fight is played by its optimal plan for that objective
    (:func:`sim.exact.best_combat.solve_combat`) instead of the policy's
    thresholds; each row says which policy it used. A fight that ``played`` (a paired
    deck run's cards, :func:`run_combat` with ``cards``) holds on the same trials and seed is
    read from it, not played again (:func:`played_counts`).
    """
    rows = []
    for enemy in enemies:
        spec = compile_combat(rs, stalker, enemy, armor, weapons, items, policy, artifacts,
                              intellect)
        plan = None if best is None else solve_combat(spec, best)
        row = {"stalker": stalker, "enemy": enemy}
        if plan is not None:  # rows of the thresholds keep their keys
            row["policy"] = f"best ({best.name})"
        counts = played_counts(played, spec, plan, trials, seed)
        if counts is None:
            counts = simulate(spec, trials, seed, threads, plan)
        row.update(summarize(spec, counts, trials, plan))
        if plan is not None:
            row["objective"] = _objective(best, row, plan.value)
        rows.append(row)
    rows.sort(key=lambda r: -r["outcomes"]["knocked_out"]["mc"])
    return CombatTable(trials, seed, tuple(rows))


def _objective(best: Objective, row: dict, exact: float) -> dict:
    """The objective's value under the plan: the Monte Carlo estimate beside the solver's.

    ``survive`` is 1 - P(knocked out) and ``kill`` P(killed), proportions with
    their Wilson intervals; a ``value`` objective is the weighted sum of the
    outcomes less the mean costs, without an interval (its terms are correlated).
    """
    out = row["outcomes"]
    if best.name in ("survive", "kill"):
        cell = dict(out["killed"] if best.name == "kill" else out["knocked_out"])
        if best.name == "survive":
            cell["mc"], cell["ci_low"], cell["ci_high"] = (
                1 - cell["mc"], 1 - cell["ci_high"], 1 - cell["ci_low"])
        return {**cell, "exact": exact}
    mc = (sum(best.weight(o) * out[o]["mc"] for o in COMBAT_OUTCOMES)
          - best.wound * row["mean_wounds"]["mc"] - best.stimulant * row["mean_stimulants"]["mc"]
          - best.limited * row["mean_limited_spent"]["mc"])
    if "side_effects" in row:
        mc -= best.side_effect * row["side_effects"]["mc"]
    return {"mc": mc, "exact": exact}


def deck_names(rs: Ruleset, which: str) -> list[str]:
    """``all`` -> every enemy the model can fight (not radiation dealers); else [which]."""
    if which != "all":
        return [which]
    return [name for name, foe in rs.enemies.items() if fightable(foe.wound_type)]


COMBAT_METRICS: tuple[Metric, ...] = in_columns(kernel.OUTCOME, paired.COMBAT_METRIC, {
    "AVOIDED": Metric("avoided", "proportion", "higher", "avoided"),
    "KILLED": Metric("killed", "proportion", None, "enemy killed"),
    "FLED": Metric("fled", "proportion", None, "fled"),
    "KNOCKED_OUT": Metric("knocked_out", "proportion", "lower", "knocked out"),
    "CAPPED": Metric("capped", "proportion", None, "fight cut off at the round cap"),
    "C_WOUNDS": Metric("mean_wounds", "mean", "lower", "wounds taken"),
    "C_ROUNDS": Metric("mean_rounds", "mean", None, "combat rounds"),
    "C_DESTROYED": Metric("armor_destroyed", "proportion", "lower", "armour destroyed"),
    "C_STIMULANTS": Metric("mean_stimulants", "mean", None, "stimulants used"),
    "C_SPENT": Metric("mean_limited_spent", "mean", None, "limited-use items spent"),
})
"""Combat metrics (the cells of ``zonesim combat``), in the paired kernel's columns; outcomes
sum to 1."""
assert tuple(m.name for m in COMBAT_METRICS[:kernel.N_OUTCOMES]) == COMBAT_OUTCOMES


def combat_inputs(cases: Sequence[Case], exact: bool = True
                  ) -> tuple[tuple[np.ndarray, ...], np.ndarray, bool]:
    """Kernel arguments of :func:`paired.paired_combat_kernel` for ``cases``.

    Returns
    -------
    tuple
        ``(args, exact, indicator)``: the arrays from ``params`` to
        ``weights``; exact values (V, M), NaN without ``exact``; whether every
        case is a single card.
    """
    return _inputs(cases, exact)[:3]


def _inputs(cases: Sequence[Case], exact: bool
            ) -> tuple[tuple[np.ndarray, ...], np.ndarray, bool, list[list[tuple]]]:
    """:func:`combat_inputs` and each case's fights (:func:`fight_key`), card by card."""
    decks, packs, exacts, plans, keys = [], [], [], [], []
    start = 0
    for case in cases:
        s, rs = case.setup, case.ruleset
        names = deck_names(rs, str(s["enemy"]))
        deck = deck_cards(rs.enemies, names, str(s["enemy"]))
        policy = CombatPolicy.from_setup(s)
        best = best_objective(s)
        row, row_exact, row_keys = [], [], []
        for enemy, _ in deck:
            try:
                spec = compile_combat(
                    rs, str(s["stalker"]), enemy, s.get("armor"),
                    tuple(s.get("weapons", ())), tuple(s.get("items", ())),
                    policy, tuple(s.get("artifacts", ())), s.get("intellect"))
                plan = None if best is None else solve_combat(spec, best)
            except (CombatInputError, BestPlayError) as error:
                raise CompareInputError(str(error)) from None
            packed = spec.pack()
            if plan is not None:
                packed, entries = plan.pack(packed, start)
                plans.append(entries)
                start += entries.size
            row.append(packed)
            row_exact.append(_combat_exact(spec, plan) if exact else NO_EXACT)
            row_keys.append(fight_key(spec, plan))
        keys.append(row_keys)
        decks.append(deck)
        packs.append(row)
        exacts.append(row_exact)
    params, stims, uses, bonus, spend = (
        pad_grid([[getattr(p, name) for p in row] for row in packs])
        for name in PackedFight._fields)
    n_stims = np.asarray([[len(p.stimulants) - 1 for p in row] + [0] * (params.shape[1] - len(row))
                          for row in packs], dtype=np.int64)
    flat = np.concatenate(plans) if plans else kernel.NO_PLAN
    args = (params, n_stims, stims, uses, bonus, spend, flat, deck_weights(decks))
    return (args, deck_exact(exacts, decks, paired.N_COMBAT_METRICS), single_cards(decks),
            keys)


def run_combat(cases: Sequence[Case], *, trials: int, seed: int, exact: bool = True,
               threads: int | None = None, cards: bool = False) -> PairedSums:
    """Fights (P-14..P-29, Z-12..Z-17) of every case on common random numbers.

    Setup keys: ``stalker``, ``enemy`` (a card or ``all``), ``armor``,
    ``weapons``, ``items``, ``sneak``, ``flee_at``, ``heal_at``, ``artifacts``,
    ``intellect``, ``policy`` (``thresholds`` or ``best``: each card's optimal plan,
    :mod:`sim.exact.best_combat`) and ``objective``. ``exact=False``
    skips the exact twin (NaN exact values; faster for many short runs). ``cards`` keeps
    each card's own sums (:class:`~sim.experiments.base.PlayedCards`, by
    :func:`fight_key`): :func:`combat_table` reads its fights there instead of playing
    them again.
    """
    args, exact_values, indicator, keys = _inputs(cases, exact)
    if not cards:
        sums = run_paired(paired.paired_combat_kernel, paired.N_COMBAT_METRICS, trials, seed,
                          threads, *args)
        return PairedSums(trials, COMBAT_METRICS, sums, exact_values, indicator)
    sums, per_card = run_paired(paired.paired_combat_kernel, paired.N_COMBAT_METRICS, trials,
                                seed, threads, *args, cards=True)
    played = PlayedCards(trials, seed, {key: per_card[v, k] for v, row in enumerate(keys)
                                        for k, key in enumerate(row)})
    return PairedSums(trials, COMBAT_METRICS, sums, exact_values, indicator, played)


def _combat_exact(spec, plan: CombatPlan | None = None) -> np.ndarray:
    e = exact_of(spec, plan)
    return exact_row(COMBAT_METRICS, {
        **e.outcomes, "mean_wounds": e.mean_wounds, "mean_rounds": e.mean_rounds,
        "armor_destroyed": e.p_destroyed, "mean_stimulants": e.mean_stimulants,
        "mean_limited_spent": e.mean_limited_spent})




def sweep_rows(rs: Ruleset, params: Mapping[str, Any], trials: int,
                      seed: int) -> pd.DataFrame:
    """Fights of ``stalker`` against ``enemy`` (a card or ``all``): :func:`~sim.encounter.
    combat_table` rows, in deck order.

    ``params`` keys: ``stalker`` (required), ``enemy`` (default ``all``),
    ``armor``, ``weapons``, ``items``, ``sneak``, ``flee_at``, ``heal_at``,
    ``artifacts``, ``intellect``.
    """
    names = deck_names(rs, params.get("enemy", "all"))
    policy = CombatPolicy.from_setup(params)
    table = combat_table(rs, params["stalker"], names, params.get("armor"),
                                tuple(params.get("weapons", ())), tuple(params.get("items", ())),
                                policy, trials=trials, seed=seed,
                                artifacts=tuple(params.get("artifacts", ())),
                                intellect=params.get("intellect"))
    return in_deck_order(table.to_frame(), "enemy", names)


def compile_inputs(cases: Sequence[Case]) -> list:
    """Each case's kernel inputs (:func:`combat_inputs`, no exact values): equal inputs
    fight equal fights on equal streams (:mod:`sim.workflows.batches`).
    """
    return [combat_inputs([case], exact=False)[0] for case in cases]


EXPERIMENT = Experiment(
    "combat", COMBAT_METRICS,
    {**LOADOUT_KEYS, "enemy": ("enemy", "str"), "weapon": ("weapons", "list"),
     **policy_keys.variant_keys("combat")},
    run_combat,
    sweep_rows, tuple(m.name for m in COMBAT_METRICS),
    default_metric="knocked_out", card_key="enemy", card_table="enemies",
    scenario_keys=("stalker", "armor", "weapons", "items", *policy_keys.setup_keys("combat")),
    item_effects=None,  # every item carried: the fight uses its stimulants and escape items
    option_keys=("stalker", "armor", "enemy", "weapons", "items",
                 *policy_keys.option_keys("combat")),
    compile_inputs=compile_inputs)
"""Fights (P-14..P-29) compared on common random numbers (``zonesim compare combat``)."""
