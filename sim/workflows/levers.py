"""The lever finder: which single card value or rule key moves a metric most (issue 15 §3).

A designer who sees a win rate of 0.38 asks "which value do I change?" The
lever finder answers for every numeric value at once: each numeric cell of
every card table (:data:`sim.rules.schema.TABLES`: ``int``, die-face and
numeric ``int_or_auto`` columns) and each numeric ``rules.toml`` key
(:data:`sim.rules.schema.PARAMS`) is a :class:`Lever`, moved one step down and
one step up (the ``lever`` step of its row in :mod:`sim.rules.settings`, as
``zonesim settings`` shows it: 1 for integers, 100 rubles for prices and
money, 1/20 of the range for a real key), and each move is played against the
unchanged ruleset on common random numbers: the baseline and every edit run
the same trials with the same (seed, trial, purpose) streams, through the
experiment's paired runner (the ``run`` of :mod:`sim.experiments.registry`,
e.g. the per-trial campaign kernel of ``zonesim compare campaign``), so every
difference comes from per-trial paired differences and has a paired 95 %
interval (:func:`sim.workflows.compare.paired_rows`), not two independent
ones.

A step the rules refuse (out of the column's range, a row check; exactly
the validation of :func:`sim.rules.variants.apply_edits`), or one whose game
the experiment's compile refuses (a movement edit after which some hex
cannot reach a bunker), is skipped and listed with the reason, which names
the edit (card and cell); no refused step stops the run. Levers are ranked
by the larger of their two absolute differences. With a
:class:`~sim.workflows.targets.Target`, up to ``max_steps`` steps each way
are tried, and the single-value changes whose estimate passes (whole
interval inside the band) are listed, smallest change
(fewest steps) first.

The ranking is read on the dice that made it, so its top is favoured by their noise (the
winner's curse): the :data:`FRESH_TOP` levers that move the metric most (each by its
larger move) and the first :data:`FRESH_TOP` changes that reach a target are played again,
paired with the unchanged ruleset, on the fresh seed of :mod:`sim.workflows.fresh`
(:attr:`LeverResult.fresh`): those are the figures to act on.

The edits run in batches (:mod:`sim.workflows.batches`: each with its own
baseline on the same trials), here, on a local process pool or on a Dask
cluster; a variant's numbers depend only on the ruleset, the edit, the
trials and the seed, never on the backend or batching.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sim.experiments import registry
from sim.experiments.base import Experiment
from sim.experiments.registry import experiment as find_experiment
from sim.experiments.setups import base_setup
from sim.rules import Ruleset, settings
from sim.rules.schema import TABLES
from sim.rules.settings import MONEY_STEP
from sim.rules.tomlfile import suggest
from sim.rules.variants import RULES_TABLE, VariantError, apply_edits, format_value
from sim.workflows.batches import (
    BATCH,
    UNCHANGED,
    BatchError,
    Refusal,
    fingerprints,
    run_batches,
)
from sim.workflows.compare import NO_GAME_CHANGED, no_game_changed, paired_rows
from sim.workflows.fresh import fresh_seed
from sim.workflows.targets import PASS, Target

DEFAULT_METRIC = {e.name: e.default_metric for e in registry.experiments()}
"""The metric ranked when none is given, per experiment (each experiment's
``default_metric``, :mod:`sim.experiments.registry`)."""

COLUMNS = ("rank", "path", "current", "step", "down_value", "down_mc", "down_diff",
           "down_diff_ci_low", "down_diff_ci_high", "down_verdict", "up_value", "up_mc",
           "up_diff", "up_diff_ci_low", "up_diff_ci_high", "up_verdict", "effect", "skipped",
           "kind", "kind_rank")
"""Columns of the ranking (:meth:`LeverResult.ranking`), in order: ``rank`` among every
value, ``kind`` (a key of :data:`KINDS`) and ``kind_rank``, the rank among the values of its
kind (issue 47, item 6: a designer changes a card and a rule in different ways)."""

KINDS = {"card": "card values", "rule": "rule keys"}
"""The two kinds of value a lever moves, ranked apart: a card table's cell, a ``rules.toml``
key."""

STEP_COLUMNS = ("path", "table", "card", "column", "current", "steps", "value", "change",
                "mc", "ci_low", "ci_high", "diff", "diff_ci_low", "diff_ci_high", "diff_exact",
                "verdict", "target_verdict")
"""Columns of one evaluated step (:attr:`LeverResult.steps`)."""

FRESH_TOP = 5
"""How many of the ranking's top levers, and of the changes reaching a target, are played
again on fresh games (:attr:`LeverResult.fresh`)."""

FRESH_COLUMNS = ("path", "steps", "value", "mc", "ci_low", "ci_high", "diff", "diff_ci_low",
                 "diff_ci_high", "verdict", "target_verdict")
"""Columns of a move played again on fresh games (after its ``role``)."""


NO_EFFECT = "no effect (the game's compiled inputs are unchanged)"
"""Verdict of a move whose edit leaves the experiment's compiled inputs as they were."""


class LeverError(BatchError):
    """A lever search that cannot run: unknown metric, table or card, no lever left."""


@dataclass(frozen=True)
class Lever:
    """One numeric value that can be moved: a card cell or a ``rules.toml`` key.

    Attributes
    ----------
    table, card, column : str
        The edit path's parts (``rules``, section, key for a rule key).
    current : int or float
        Its value in the ruleset.
    step : int or float
        One step (its setting's ``lever``, :mod:`sim.rules.settings`).
    """

    table: str
    card: str
    column: str
    current: int | float
    step: int | float

    @property
    def path(self) -> str:
        """``table.card.column`` (or ``rules.section.key``)."""
        return f"{self.table}.{self.card}.{self.column}"

    def value(self, steps: int) -> int | float:
        """The value ``steps`` steps from the current one (negative: down)."""
        if isinstance(self.step, int) and isinstance(self.current, int):
            return self.current + steps * self.step
        return round(self.current + steps * self.step, 12)

    def edit(self, steps: int) -> str:
        """The edit text that moves the value ``steps`` steps."""
        return f"{self.path}={format_value(self.value(steps))}"


def _card_levers(rs: Ruleset) -> list[Lever]:
    """Each card's cell of every column the table of settings gives a lever step, table by
    table and card by card (a blank cell, or ``auto``, is no number and no lever).
    """
    steps = _steps("card")
    out = []
    for table, columns in TABLES.items():
        numeric = [c.name for c in columns if f"{table}.{c.name}" in steps]
        for card, row in getattr(rs, table).items():
            for col in numeric:
                value = getattr(row, col)
                if isinstance(value, int) and not isinstance(value, bool):
                    out.append(Lever(table, card, col, value, steps[f"{table}.{col}"]))
    return out


def _rule_levers(rs: Ruleset) -> list[Lever]:
    """Every ``rules.toml`` key the table of settings gives a lever step, in its order."""
    return [Lever(RULES_TABLE, section, key, rs.param(section, key), step)
            for (section, _, key), step in ((name.partition("."), step)
                                            for name, step in _steps("rule").items())]


def _steps(kind: str) -> dict[str, int | float]:
    """The lever step of each setting of ``kind`` that levers move (:mod:`sim.rules.settings`:
    a number where the table gives one, else the reason they do not).
    """
    return {s.name: s.lever for s in settings.of_kind(kind) if not isinstance(s.lever, str)}


def find_levers(rs: Ruleset, tables: Sequence[str] | None = None,
                cards: Sequence[str] | None = None) -> list[Lever]:
    """Every numeric card value and rule key of ``rs``, in table and card order.

    Parameters
    ----------
    tables : sequence of str, optional
        Keep these tables only (card tables of :data:`~sim.rules.schema.TABLES`
        and ``rules`` for the ``rules.toml`` keys); default all.
    cards : sequence of str, optional
        Keep these cards only (a rule key's "card" is its section); default all.

    Raises
    ------
    LeverError
        An unknown table or a card that no kept table holds; no lever left.
    """
    known = (*TABLES, RULES_TABLE)
    for table in tables or ():
        if table not in known:
            raise LeverError(f"unknown table {table!r}{suggest(table, known)} "
                             f"(known: {', '.join(known)})", "tables")
    levers = [lv for lv in (*_card_levers(rs), *_rule_levers(rs))
              if tables is None or lv.table in tables]
    if cards is not None:
        names = {lv.card for lv in levers}
        unknown = [c for c in cards if c not in names]
        if unknown:
            raise LeverError(f"no numeric value of card {unknown[0]!r} in the tables searched"
                             + suggest(unknown[0], names), "cards")
        levers = [lv for lv in levers if lv.card in cards]
    if not levers:
        raise LeverError("no numeric value to move")
    return levers


@dataclass(frozen=True)
class Step:
    """One move of one lever: ``steps`` steps (negative: down) and its edit."""

    lever: Lever
    steps: int

    @property
    def edit(self) -> str:
        """The edit text."""
        return self.lever.edit(self.steps)


def plan_steps(rs: Ruleset, levers: Sequence[Lever], max_steps: int = 1
               ) -> tuple[list[Step], list[dict]]:
    """The moves to play (1..max_steps each way) and those the rules refuse.

    A move beyond a refused one is not tried (the range is an interval).

    Returns
    -------
    (list of Step, list of dict)
        The valid moves, lever by lever (down then up, nearest first), and one
        ``{"path", "steps", "value", "reason", "refused_by": "rules"}`` per
        refused move (the reason names the edit: card and cell).
    """
    valid, refused = [], []
    for lever in levers:
        for sign in (-1, 1):
            for k in range(1, max_steps + 1):
                move = Step(lever, sign * k)
                try:
                    apply_edits(rs, [move.edit])
                except VariantError as error:
                    refused.append(_refusal(move, str(error), "rules"))
                    break
                valid.append(move)
    return valid, refused


def check_metric(exp: Experiment, metric: str | None,
                 setup: Mapping[str, Any] | None = None) -> str:
    """The metric to rank (the experiment's default when None).

    With the base ``setup``, a metric its games give (:meth:`Experiment.played`: a
    multiplayer game of three seats has no ``seat_win.4``).

    Raises
    ------
    LeverError
        (field ``metric``) A name the experiment does not have.
    """
    metric = metric or exp.default_metric
    known = [m.name for m in (exp.metrics if setup is None else exp.played(setup))]
    if metric not in known:
        raise LeverError(f"{metric!r} is not a {exp.name} metric{suggest(metric, known)} "
                         f"(known: {', '.join(known)})", "metric")
    return metric


@dataclass(frozen=True)
class LeverResult:
    """A finished lever search.

    Attributes
    ----------
    experiment, metric : str
        What was run and ranked.
    setup : dict
        The experiment's base setup.
    trials, seed : int
        Trials of every variant and their common seed.
    baseline : dict
        ``mc``, ``ci_low``, ``ci_high`` of the unchanged ruleset.
    steps : tuple of dict
        Every evaluated move (keys :data:`STEP_COLUMNS`).
    skipped : tuple of dict
        Moves the rules refuse: ``path``, ``steps``, ``value``, ``reason``.
    target : Target or None
        The band searched for.
    ruleset, backend : str
        Base ruleset SHA-256; ``serial``, ``processes:N`` or ``dask:ADDRESS``.
    wall_s : float
        Seconds the runs took.
    fresh : dict or None
        The top of the ranking and of the reaching changes played again on fresh games:
        ``seed``, ``trials``, ``baseline`` and ``rows`` (``role`` ``top`` or ``reaching``,
        ``path``, ``steps``, ``value``, ``mc``, ``ci_low``, ``ci_high``, ``diff``,
        ``diff_ci_low``, ``diff_ci_high``, ``target_verdict``); None when no move was played.
    """

    experiment: str
    metric: str
    setup: dict
    trials: int
    seed: int
    baseline: dict
    steps: tuple[dict, ...]
    skipped: tuple[dict, ...] = ()
    target: Target | None = None
    ruleset: str = ""
    backend: str = "serial"
    wall_s: float = 0.0
    levers: int = field(default=0)
    fresh: dict | None = None

    def ranking(self) -> pd.DataFrame:
        """One row per lever (columns :data:`COLUMNS`), largest one-step effect first."""
        return pd.DataFrame(rank_levers(self.steps, self.skipped), columns=list(COLUMNS))

    def reaching_rows(self) -> list[dict]:
        """The moves whose estimate passes the target, fewest steps first (none without one).

        Ties: the estimate nearest the target's aim point first.
        """
        rows = [s for s in self.steps if s["target_verdict"] == PASS]
        aim = self.target.aim if self.target is not None else 0.0
        rows.sort(key=lambda s: (abs(s["steps"]), abs(s["mc"] - aim), s["path"], s["steps"]))
        return rows

    def jumps_over(self) -> list[dict]:
        """Moves whose one step jumps over the target band (none without a target).

        Per lever and direction, the first pair of neighbours (the current value
        and one step, or two neighbouring steps) whose estimates lie wholly on
        opposite sides of the band: ``{"path", "from", "to"}``. No whole number
        of steps of that value alone passes there, as ``zonesim tune`` says.
        """
        if self.target is None:
            return []
        out = []
        by_path: dict[str, list[dict]] = {}
        for s in self.steps:
            by_path.setdefault(s["path"], []).append(s)
        for path, moves in by_path.items():
            for sign in (-1, 1):
                line = [{"value": moves[0]["current"], **self.baseline}, *sorted(
                    (m for m in moves if m["steps"] * sign > 0), key=lambda m: abs(m["steps"]))]
                for a, b in zip(line, line[1:], strict=False):
                    if _side(a, self.target) * _side(b, self.target) < 0:
                        out.append({"path": path, "from": a["value"], "to": b["value"]})
                        break
        return out

    def reaching(self) -> pd.DataFrame:
        """:meth:`reaching_rows` as a frame (columns :data:`STEP_COLUMNS`)."""
        return pd.DataFrame(self.reaching_rows(), columns=list(STEP_COLUMNS))

    def inert(self) -> list[str]:
        """The values that move the metric in no game played: every step of each changed
        no game's metric (:data:`~sim.workflows.compare.NO_GAME_CHANGED`, at least one
        step played; the others left the compiled game as it was), in table order.

        On base the trophy prices are such values for the win rate (issue 46, item 6): a
        lot of trophies is sold in a handful of games of 200,000, and ten times the
        price changes no game's win, so tuning it does not matter in this scenario.
        """
        verdicts: dict[str, set[str]] = {}
        for s in self.steps:
            verdicts.setdefault(s["path"], set()).add(s["verdict"])
        return [path for path, seen in verdicts.items()
                if NO_GAME_CHANGED in seen and seen <= {NO_GAME_CHANGED, NO_EFFECT}]

    def to_dict(self, top: int | None = None) -> dict:
        """JSON document: provenance, ``baseline``, ``levers`` (the ranking), ``reaching``,
        ``steps``, ``skipped`` and ``inert`` (:meth:`inert`).
        """
        ranking = rank_levers(self.steps, self.skipped)[:top or None]
        return {"experiment": self.experiment, "metric": self.metric, "trials": self.trials,
                "seed": self.seed, "ruleset_sha256": self.ruleset, "setup": self.setup,
                "target": None if self.target is None else str(self.target),
                "backend": self.backend, "wall_s": self.wall_s, "values": self.levers,
                "baseline": self.baseline,
                "levers": ranking, "reaching": self.reaching_rows(),
                "jumps_over": self.jumps_over(),
                "steps": list(self.steps), "skipped": list(self.skipped),
                "inert": self.inert(), "fresh": self.fresh}


def _side(row: dict, target: Target) -> int:
    """-1 if the estimate's interval lies wholly below the band, +1 wholly above, else 0."""
    if row["ci_high"] < target.low:
        return -1
    if row["ci_low"] > target.high:
        return 1
    return 0


def rank_levers(steps: Sequence[dict], skipped: Sequence[dict] = ()) -> list[dict]:
    """The ranking: per lever its one-step-down and one-step-up moves, largest effect first.

    ``effect`` is the larger absolute difference of the two moves; ties keep
    table order. ``skipped`` names a refused side. Each row's ``kind`` says whether
    it is a card value or a rule key, ``kind_rank`` its rank among its kind.
    Returns dicts with the keys :data:`COLUMNS`.
    """
    levers: dict[str, dict] = {}
    for s in steps:
        if abs(s["steps"]) != 1:
            continue
        row = levers.setdefault(s["path"], _blank(s["path"], s["current"], s["change"]))
        side = "down" if s["steps"] < 0 else "up"
        row.update({f"{side}_value": s["value"], f"{side}_mc": s["mc"],
                    f"{side}_diff": s["diff"], f"{side}_diff_ci_low": s["diff_ci_low"],
                    f"{side}_diff_ci_high": s["diff_ci_high"], f"{side}_verdict": s["verdict"]})
    for s in skipped:
        if s["path"] in levers and abs(s["steps"]) == 1:
            side = "down" if s["steps"] < 0 else "up"
            levers[s["path"]]["skipped"] = f"{side}: {s['reason']}"
    rows = list(levers.values())
    for row in rows:
        diffs = [abs(row[k]) for k in ("down_diff", "up_diff") if row[k] is not None]
        row["effect"] = max(diffs)
    rows.sort(key=lambda r: -r["effect"])
    counted = dict.fromkeys(KINDS, 0)
    for i, row in enumerate(rows, 1):
        row["rank"] = i
        row["kind"] = "rule" if row["path"].startswith(f"{RULES_TABLE}.") else "card"
        counted[row["kind"]] += 1
        row["kind_rank"] = counted[row["kind"]]
    return rows


def _blank(path: str, current, change) -> dict:
    row: dict = {c: None for c in COLUMNS}
    row.update(path=path, current=current, step=abs(change), skipped="")
    return row

def changing(rs: Ruleset, name: str, setup: Mapping[str, Any], moves: Sequence[Step], *,
             batch: int = BATCH, **backend) -> tuple[list[Step], list[Step], list[dict]]:
    """Split ``moves`` into those that change the compiled inputs, those that do not, and
    those the experiment's compile refuses.

    A move the card checks accept may still make a game that cannot be set up
    (a map edit after which some hex cannot reach a bunker): it is not
    played, and its refusal (``{"path", "steps", "value", "reason",
    "refused_by": "compile"}``, the reason starting with the edit, which
    names the card and cell) is listed with the skipped moves. ``backend``
    holds ``workers``, ``scheduler``, ``threads`` and ``progress`` of
    :func:`~sim.workflows.batches.run_batches`
    (:func:`~sim.workflows.batches.fingerprints`).
    """
    prints = fingerprints(rs, name, setup, [m.edit for m in moves], batch=batch, **backend)
    live, idle, refused = [], [], []
    for move, print_ in zip(moves, prints, strict=True):
        if isinstance(print_, Refusal):
            refused.append(_refusal(move, print_.reason, "compile"))
        elif print_ == UNCHANGED:
            idle.append(move)
        else:
            live.append(move)
    return live, idle, refused


def _refusal(move: Step, reason: str, by: str) -> dict:
    """One skipped move: its path, steps, value and why (``refused_by`` rules or compile)."""
    lever = move.lever
    text = reason if reason.startswith("edit ") else f"edit {move.edit!r}: {reason}"
    return {"path": lever.path, "steps": move.steps, "value": lever.value(move.steps),
            "reason": text, "refused_by": by}


def _pick_metric(exp: Experiment, metric: str | None, target: Target | None,
                 setup: Mapping[str, Any]) -> str:
    if target is not None and metric is not None and target.metric != metric:
        raise LeverError(f"the target is on {target.metric!r} but --metric is {metric!r}",
                         "target")
    return check_metric(exp, metric or (target.metric if target is not None else None), setup)


def _step_row(move: Step, row: dict, target: Target | None) -> dict:
    lever = move.lever
    verdict = None if target is None else target.judge(row["mc"], row["ci_low"],
                                                       row["ci_high"])
    value = lever.value(move.steps)
    return {"path": lever.path, "table": lever.table, "card": lever.card,
            "column": lever.column, "current": lever.current, "steps": move.steps,
            "value": value, "change": round(value - lever.current, 12), "mc": row["mc"],
            "ci_low": row["ci_low"], "ci_high": row["ci_high"], "diff": row["diff"],
            "diff_ci_low": row["diff_ci_low"], "diff_ci_high": row["diff_ci_high"],
            "diff_exact": row["diff_exact"],
            "verdict": (NO_GAME_CHANGED if row["verdict"] != NO_EFFECT and no_game_changed(row)
                        else row["verdict"]),
            "target_verdict": verdict}


def run_levers(rs: Ruleset, name: str, setup: Mapping[str, Any], *, trials: int, seed: int,
               metric: str | None = None, tables: Sequence[str] | None = None,
               cards: Sequence[str] | None = None, target: Target | None = None,
               max_steps: int = 1, workers: int = 1, scheduler: Any = None,
               threads: int | None = None, batch: int = BATCH,
               progress: Callable[[int, int], None] | None = None) -> LeverResult:
    """Move every numeric value one step each way and rank the values by the metric's change.

    Parameters
    ----------
    rs : Ruleset
        The base ruleset (loaded from a folder, so workers can reload it).
    name : str
        Experiment of :mod:`sim.experiments.registry` (``campaign``, ``combat``, ...).
    setup : mapping
        Its base setup (e.g. :func:`sim.experiments.campaign_paired.scenario_setup`).
    trials, seed : int
        Trials of every variant; every variant runs on ``seed`` (common random numbers).
    metric : str, optional
        The metric to rank (default: the experiment's ``default_metric``, or the
        target's).
    tables, cards : sequence of str, optional
        Filters of :func:`find_levers`.
    target : Target, optional
        A band: moves of up to ``max_steps`` steps each way are tried and those
        that pass are listed (:meth:`LeverResult.reaching`).
    max_steps : int
        Steps tried each way with a target (without one, 1).
    workers, scheduler, threads, progress :
        As for :func:`sim.workflows.sweep.run_sweep`; ``progress(done, total)``
        counts batches.
    batch : int
        Edits per task; never changes a result.

    Raises
    ------
    LeverError, CompareInputError
        Unknown metric, table or card; a setup the experiment cannot run.
    """
    exp = find_experiment(name)
    metric = _pick_metric(exp, metric, target, setup)
    if max_steps < 1 or batch < 1:
        raise LeverError("max_steps and batch must be >= 1")
    levers = find_levers(rs, tables, cards)
    moves, refused = plan_steps(rs, levers, max_steps if target is not None else 1)
    stages = _Stages(progress, math.ceil(len(moves) / batch)
                     if exp.compile_inputs is not None else 0)
    backend = {"workers": workers, "scheduler": scheduler, "threads": threads}
    start = time.perf_counter()
    moves, unchanged, unplayable = changing(rs, name, setup, moves, batch=batch,
                                            progress=stages.first, **backend)
    place = {lever.path: i for i, lever in enumerate(levers)}
    refused = sorted([*refused, *unplayable], key=lambda r: (place[r["path"]], r["steps"]))
    chunks = [moves[i:i + batch] for i in range(0, len(moves), batch)] or [[]]
    stages.total += len(chunks)
    variants = [((), *((m.edit,) for m in chunk)) for chunk in chunks]
    outputs, used = run_batches(rs, name, setup, variants, trials=trials, seed=seed,
                                progress=stages.second, **backend)
    wall = time.perf_counter() - start
    steps, baseline = [], {}
    for chunk, sums in zip(chunks, outputs, strict=True):
        rows = paired_rows(sums, ["baseline", *(m.edit for m in chunk)], [metric])
        baseline = {k: rows[0][k] for k in ("mc", "ci_low", "ci_high", "exact")}
        steps.extend(_step_row(m, row, target) for m, row in zip(chunk, rows[1:], strict=True))
    steps.extend(_step_row(m, _unchanged_row(baseline), target) for m in unchanged)
    steps.sort(key=lambda r: (place[r["path"]], r["steps"]))  # table order, down before up
    result = LeverResult(name, metric, dict(setup), trials, seed, baseline, tuple(steps),
                         tuple(refused), target, rs.sha256, used, round(wall, 3), len(levers))
    by_key = {(m.lever.path, m.steps): m for m in moves}
    fresh = _fresh(rs, name, setup, result, by_key, metric, target, backend)
    return dataclasses.replace(result, fresh=fresh,
                               wall_s=round(time.perf_counter() - start, 3))


def chosen_moves(result: LeverResult) -> list[tuple[str, dict]]:
    """The moves a designer would act on: the :data:`FRESH_TOP` levers that move the metric
    most (each by its larger move) and the first :data:`FRESH_TOP` that reach the target,
    as ``(role, step row)``, each move once (the first role that names it).
    """
    steps = {(s["path"], s["steps"]): s for s in result.steps}
    out, seen = [], set()
    for lever in rank_levers(result.steps, result.skipped)[:FRESH_TOP]:
        down, up = lever["down_diff"], lever["up_diff"]
        sign = -1 if up is None or (down is not None and abs(down) >= abs(up)) else 1
        out.append(("top", steps[(lever["path"], sign)]))
    out += [("reaching", s) for s in result.reaching_rows()[:FRESH_TOP]]
    keep = []
    for role, s in out:
        if (s["path"], s["steps"]) not in seen:
            seen.add((s["path"], s["steps"]))
            keep.append((role, s))
    return keep


def _fresh(rs: Ruleset, name: str, setup: Mapping[str, Any], result: LeverResult,
           by_key: Mapping[tuple[str, int], Step], metric: str, target: Target | None,
           backend: Mapping[str, Any]) -> dict | None:
    """Play :func:`chosen_moves` again, paired with the unchanged ruleset, on fresh games
    (one batch on :func:`~sim.workflows.fresh.fresh_seed`); moves that change no compiled
    input are not played (their difference is 0 on any dice).
    """
    chosen = [(role, s) for role, s in chosen_moves(result)
              if (s["path"], s["steps"]) in by_key]
    if not chosen:
        return None
    moves = [by_key[(s["path"], s["steps"])] for _, s in chosen]
    seed = fresh_seed(result.seed)
    [sums], _ = run_batches(rs, name, setup, [((), *((m.edit,) for m in moves))],
                            trials=result.trials, seed=seed, **backend)
    rows = paired_rows(sums, ["baseline", *(m.edit for m in moves)], [metric])
    out = []
    for (role, _), move, row in zip(chosen, moves, rows[1:], strict=True):
        step = _step_row(move, row, target)
        out.append({"role": role, **{k: step[k] for k in FRESH_COLUMNS}})
    return {"seed": seed, "trials": result.trials,
            "baseline": {k: rows[0][k] for k in ("mc", "ci_low", "ci_high", "exact")},
            "rows": out}


def _unchanged_row(baseline: dict) -> dict:
    """The comparison row of a move that cannot change anything: the baseline, difference 0."""
    return {**baseline, "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0,
            "diff_exact": None if baseline.get("exact") is None else 0.0, "verdict": NO_EFFECT}


class _Stages:
    """One progress count over both stages (compiling, then running the batches)."""

    def __init__(self, progress, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def first(self, done: int, total: int) -> None:
        self.done = done
        if self.progress is not None:
            self.progress(done, max(self.total, 1))

    def second(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(self.done + done, self.total)


__all__ = ["COLUMNS", "DEFAULT_METRIC", "FRESH_COLUMNS", "FRESH_TOP", "MONEY_STEP", "NO_EFFECT",
           "STEP_COLUMNS", "Lever", "LeverError", "LeverResult", "Step", "base_setup",
           "changing", "check_metric", "chosen_moves", "find_levers", "plan_steps",
           "rank_levers", "run_levers"]
