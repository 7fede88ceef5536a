"""Readings of the rules: which documented reading of an open rule moves the win rate most.

The seeds leave some rules open, and ``docs/rules.md`` ("Assumptions" and the
key tables) gives each open rule a ``rules.toml`` key: a switch (a ``bool``
key, e.g. ``combat.medkits_in_combat``: P-24 against Z-12) or a choice among
documented readings (a ``str`` key with ``choices``, e.g. ``dice.modifier``:
``successes`` or ``face``, Gap "Test procedure"). A designer must know which
of them decide the numbers (issue 26 §2). What waits in the Sarcophagus is open
too (P-50 names no card; ``sarcophagus.csv`` is an assumption), and it moves
the win rate more than any rule key: each other enemy card as the Sarcophagus
card is a reading as well (:func:`guardian_readings`, issue 46 item 5).

:func:`find_readings` lists every such key of :data:`sim.rules.schema.PARAMS`
flipped to each documented alternative: the other value of a switch, every
other choice of a choice key (a key with one choice has no alternative).
:func:`run_readings` plays each reading as the one edit
``rules.section.key=value`` (:mod:`sim.rules.variants`) of the scenario's
whole games, against the unchanged ruleset on common random numbers (the
``campaign`` experiment's paired runner, as ``zonesim compare campaign``
and :mod:`sim.workflows.levers` play it), and ranks them by the absolute
paired change of the win rate (``p_sarcophagus``, P-45: reach and survive
the Sarcophagus) with its 95 % interval. Each scenario target whose metric
is a per-game campaign metric gets the reading's paired change and the
target's verdict under the reading.

A reading the rules refuse (an edit :func:`~sim.rules.variants.apply_edits`
rejects: the two Epicentre keys set apart, the Phantom of P-46) or whose game
cannot be set up (the campaign compile refuses it) is skipped and listed
with the reason; it never stops the run. A reading that leaves the compiled
game unchanged (a multiplayer key in a one-stalker game) changes nothing by
construction: it is listed with a change of exactly 0 without being played; one
played whose every game ends as before is marked :data:`NO_GAME_CHANGED`.
Every number depends only on the ruleset, the scenario, the trials and the
seed, never on the thread count.

A multiplayer or cooperative scenario (issue 47.7) plays each reading's whole game, every
seat, on the same games as the ruleset's own (:func:`run_seat_readings`): the rows give
the paired change of each seat's win (``seat_win``), of ``p_nobody_wins`` and of the
first-seat advantage (:data:`FIRST_SEAT`: seat 1's win minus the others' mean, per game),
the ranked metric there, and rank the readings by the largest absolute change of any of
them. The turn-order and first-player readings (``multiplayer.turn_order``,
``multiplayer.first_player``) act there; in a one-stalker game they have no effect.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import stats
from sim.campaign.compile import CampaignInputError
from sim.campaign.players import compile_game
from sim.experiments import campaign_metrics as M
from sim.experiments import campaign_paired
from sim.experiments.campaign import game_blocks
from sim.experiments.campaign_metrics import NOBODY_WINS, SEAT_WIN, WIN_RATE
from sim.experiments.registry import canonical_metric
from sim.experiments.registry import experiment as find_experiment
from sim.rules import Ruleset
from sim.rules.scenario import Scenario, ruleset_refusal
from sim.rules.schema import PARAMS, Param
from sim.rules.variants import RULES_TABLE, VariantError, apply_edits
from sim.workflows.batches import UNCHANGED, BatchError, Refusal, fingerprints, run_batches
from sim.workflows.compare import NO_GAME_CHANGED, no_game_changed, paired_rows
from sim.workflows.race import game_digest
from sim.workflows.targets import Target

METRIC = WIN_RATE
"""The metric ranked: P(win), reach and survive the Sarcophagus (P-45)."""
FIRST_SEAT = M.FIRST_SEAT
"""A multiplayer game's ranked metric: seat 1's win minus the mean of the other seats' wins,
per game (above 0: the first seat wins more often than the others)."""

NO_EFFECT = "no effect (the game's compiled inputs are unchanged)"
"""Verdict of a reading that leaves the scenario's compiled game as it was."""

COLUMNS = ("edit", "key", "value", "rank", "current", "mc", "ci_low", "ci_high", "diff",
           "diff_ci_low", "diff_ci_high", "verdict", "effect", "rules", "kind")
"""Columns of the ranking (:meth:`ReadingsResult.ranking`) before the target columns; the
leading text columns name the reading, so a report against a baseline pairs readings by them
(:func:`sim.report.before_after.diff_table`), not by rank."""


class ReadingsError(BatchError):
    """Readings that cannot be run: trials below 1."""


RULE = "rule"
"""Kind of a reading of a ``rules.toml`` key."""
SARCOPHAGUS = "sarcophagus"
"""Kind of a reading of what waits in the Sarcophagus: another enemy card as its guardian."""
GUARDIAN_RULES = "P-50; Gap \"The Sarcophagus\""
"""What a guardian reading answers: P-50 names the Sarcophagus but not what waits there."""


@dataclass(frozen=True)
class Reading:
    """One documented reading of an open rule: a key set to an alternative.

    Either a ``rules.toml`` key (a switch or a choice, :func:`find_readings`) or
    the enemy card that waits in the Sarcophagus (P-50 gives no contents,
    :func:`guardian_readings`).

    Attributes
    ----------
    key : str
        ``section.key`` of a ``rules.toml`` key, or ``sarcophagus.CARD.enemy``.
    current : bool or str
        Its value in the ruleset the readings start from.
    value : bool or str
        The alternative played.
    rules : str
        The rule IDs and gaps the reading answers.
    kind : str
        :data:`RULE` or :data:`SARCOPHAGUS`.
    """

    key: str
    current: bool | str
    value: bool | str
    rules: str
    kind: str = RULE

    @property
    def text(self) -> str:
        """The value as an edit writes it (``true``/``false`` for a switch)."""
        return _text(self.value)

    @property
    def edit(self) -> str:
        """The edit: ``rules.section.key=value`` or ``sarcophagus.CARD.enemy=NAME``."""
        table = f"{RULES_TABLE}." if self.kind == RULE else ""
        return f"{table}{self.key}={self.text}"


def _text(value: bool | str) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def alternatives(p: Param, current: object) -> tuple:
    """The documented alternatives of key ``p`` to ``current``: the other value of a
    switch, every other choice of a choice key; none for any other key.
    """
    if p.type is bool:
        return (not current,)
    if p.type is str and p.choices:
        return tuple(c for c in p.choices if c != current)
    return ()


def find_readings(rs: Ruleset) -> list[Reading]:
    """Every switch and choice key of ``rs`` flipped to each alternative, in declaration order."""
    out = []
    for p in PARAMS:
        current = rs.param(p.section, p.key)
        out += [Reading(f"{p.section}.{p.key}", current, value, p.rules)
                for value in alternatives(p, current)]
    return out


def guardian_readings(rs: Ruleset) -> list[Reading]:
    """Every other enemy card as what waits in the Sarcophagus, one card of its deck at a time.

    The Sarcophagus deck (``sarcophagus.csv``) is an assumption: P-50 says the
    stalker must survive the Sarcophagus, and no seed text says what waits
    there. Swapping that one card moves the win rate more than any rule key, so
    each enemy card of ``enemies.csv`` is a documented reading of it (issue 46,
    item 5), in the deck's order and then the enemy file's.
    """
    return [Reading(f"sarcophagus.{card.name}.enemy", card.enemy, enemy, GUARDIAN_RULES,
                    SARCOPHAGUS)
            for card in sorted(rs.sarcophagus.values(), key=lambda c: c.order)
            for enemy in rs.enemies if enemy != card.enemy]


def all_readings(rs: Ruleset) -> list[Reading]:
    """The readings :func:`run_readings` plays: the rule keys', then the Sarcophagus's."""
    return [*find_readings(rs), *guardian_readings(rs)]


@dataclass(frozen=True)
class ReadingsResult:
    """Finished readings of one scenario.

    Attributes
    ----------
    scenario : str
        The scenario's name.
    trials, seed : int
        Games of every reading and their common seed.
    baseline : dict
        Per metric (the ranked one and each target's), ``mc``, ``ci_low``,
        ``ci_high`` of the unchanged ruleset.
    rows : tuple of dict
        One per reading played or unchanged, ranked (keys :data:`COLUMNS`
        and, per target, ``target: TEXT`` its verdict under the reading and,
        for a target on another metric, ``METRIC diff`` with its interval).
    skipped : tuple of dict
        ``{"key", "value", "edit", "reason", "refused_by"}`` per refused reading
        (``rules``: the edit checks; ``compile``: the game cannot be set up).
    targets : tuple of str
        The scenario's targets judged here; ``unpaired`` those that are not a
        per-game metric (a median of days), not judged.
    ruleset : str
        SHA-256 of the ruleset.
    wall_s : float
        Seconds the runs took.
    metric : str
        The metric of the rows' ``mc`` and ``diff``: the win rate (:data:`METRIC`), or in a
        multiplayer game the first-seat advantage (:data:`FIRST_SEAT`).
    """

    scenario: str
    trials: int
    seed: int
    baseline: dict
    rows: tuple[dict, ...]
    skipped: tuple[dict, ...] = ()
    targets: tuple[str, ...] = ()
    unpaired: tuple[str, ...] = ()
    ruleset: str = ""
    wall_s: float = 0.0
    metric: str = METRIC

    def ranking(self) -> pd.DataFrame:
        """The readings played, largest absolute change of the win rate first."""
        extra = [c for r in self.rows for c in r if c not in COLUMNS]
        return pd.DataFrame(list(self.rows), columns=[*COLUMNS, *dict.fromkeys(extra)])

    def top(self, n: int = 3, kind: str = RULE) -> list[dict]:
        """The ``n`` readings of one kind (:data:`RULE`, :data:`SARCOPHAGUS`) with the
        largest effect.
        """
        return [r for r in self.rows if r["kind"] == kind][:n]

    def of_kind(self, kind: str) -> list[dict]:
        """Every reading of one kind played, largest effect first."""
        return [r for r in self.rows if r["kind"] == kind]

    def to_dict(self) -> dict:
        """JSON document: provenance, ``baseline``, ``readings`` (ranked) and ``skipped``."""
        return {"scenario": self.scenario, "experiment": campaign_paired.NAME,
                "metric": self.metric,
                "trials": self.trials, "seed": self.seed, "ruleset_sha256": self.ruleset,
                "wall_s": self.wall_s, "baseline": self.baseline,
                "targets": list(self.targets), "unpaired_targets": list(self.unpaired),
                "readings": list(self.rows), "skipped": list(self.skipped)}


def plan(rs: Ruleset, readings: Sequence[Reading]) -> tuple[list[Reading], list[dict]]:
    """The readings the rules accept, and one skipped row per reading they refuse."""
    valid, refused = [], []
    for reading in readings:
        try:
            apply_edits(rs, [reading.edit])
        except VariantError as error:
            refused.append(_skipped(reading, str(error), "rules"))
            continue
        valid.append(reading)
    return valid, refused


def _skipped(reading: Reading, reason: str, by: str) -> dict:
    text = reason if reason.startswith("edit ") else f"edit {reading.edit!r}: {reason}"
    return {"key": reading.key, "value": reading.text, "edit": reading.edit, "reason": text,
            "refused_by": by}


def paired_targets(scenario: Scenario) -> tuple[list[Target], list[str]]:
    """The scenario's targets on per-game campaign metrics, and the texts of the others."""
    known = {m.name for m in find_experiment(campaign_paired.NAME).metrics}
    judged, others = [], []
    for metric, (low, high) in scenario.targets.items():
        text = f"{metric} in {low:g}..{high:g}"
        name = canonical_metric(metric)
        if name in known:
            judged.append(Target(name, float(low), float(high), text=text))
        else:
            others.append(text)
    return judged, others


def run_readings(scenario: Scenario, *, trials: int, seed: int, threads: int | None = None,
                 progress: Callable[[int, int], None] | None = None) -> ReadingsResult:
    """Play every documented reading of the scenario's ruleset and rank them by the win rate.

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario: its ruleset, stalker, loadout and policy.
    trials, seed : int
        Games of every reading, all on ``seed`` (common random numbers).
    threads : int, optional
        Kernel threads; never changes a result.
    progress : callable, optional
        ``progress(done, total)`` over the two stages (compiling, playing).

    A multiplayer or cooperative scenario is played whole, every seat
    (:func:`run_seat_readings`).

    Raises
    ------
    ReadingsError
        Trials below 1.
    """
    if trials < 1:
        raise ReadingsError(f"trials must be >= 1 (got {trials})", "trials")
    if scenario.multiplayer:
        return run_seat_readings(scenario, trials=trials, seed=seed, threads=threads,
                                 progress=progress)
    rs = scenario.ruleset
    setup = campaign_paired.scenario_setup(scenario)
    targets, unpaired = paired_targets(scenario)
    metrics = list(dict.fromkeys([METRIC, *(t.metric for t in targets)]))
    start = time.perf_counter()
    readings, skipped = plan(rs, all_readings(rs))
    prints = fingerprints(rs, campaign_paired.NAME, setup, [r.edit for r in readings], batch=len(
        readings) or 1, threads=threads, progress=_stage(progress, 0))
    live, idle = [], []
    for reading, print_ in zip(readings, prints, strict=True):
        if isinstance(print_, Refusal):
            skipped.append(_skipped(reading, print_.reason, "compile"))
        else:
            (idle if print_ == UNCHANGED else live).append(reading)
    variants = [((), *((r.edit,) for r in live))]
    (sums,), _ = run_batches(rs, campaign_paired.NAME, setup, variants, trials=trials, seed=seed,
                             threads=threads, progress=_stage(progress, 1))
    table = paired_rows(sums, ["baseline", *(r.edit for r in live)], metrics)
    by = {(row["variant"], row["metric"]): row for row in table}
    baseline = {m: {k: by["baseline", m][k] for k in ("mc", "ci_low", "ci_high")}
                for m in metrics}
    rows = [_row(r, {m: by[r.edit, m] for m in metrics}, targets) for r in live]
    rows += [_row(r, {m: _unchanged(baseline[m]) for m in metrics}, targets) for r in idle]
    _rank(rs, rows, skipped)
    return ReadingsResult(scenario.name, trials, seed, baseline, tuple(rows), tuple(skipped),
                          tuple(t.text for t in targets), tuple(unpaired), rs.sha256,
                          round(time.perf_counter() - start, 3))


def seat_names(seats: int) -> list[str]:
    """The per-game columns of a multiplayer game: :data:`FIRST_SEAT`, each seat's
    ``seat_win seat N`` (from 1), then ``p_nobody_wins``.
    """
    return [FIRST_SEAT, *(f"{SEAT_WIN} seat {p + 1}" for p in range(seats)), NOBODY_WINS]


def _seat_values(arrays, seats: int, *, trials: int, seed: int,
                 threads: int | None) -> np.ndarray:
    """Per game (trials ``0 .. trials - 1``), the values of :func:`seat_names`."""
    out = np.empty((trials, seats + 2))
    for lo, _, rows in game_blocks([arrays], seed=seed, trials=trials, threads=threads):
        wins = np.stack([campaign_paired.trial_metrics(rows, [SEAT_WIN], p)[:, 0]
                         for p in range(seats)], axis=1).astype(float)
        others = (wins[:, 1:].mean(axis=1) if seats > 1 else np.zeros(len(rows)))
        out[lo:lo + len(rows), 0] = wins[:, 0] - others
        out[lo:lo + len(rows), 1:seats + 1] = wins
        out[lo:lo + len(rows), seats + 1] = wins.sum(axis=1) == 0
    return out


def _cell(values: np.ndarray) -> dict:
    """Mean and 95 % interval of per-game values."""
    mean, low, high = stats.mean_interval(float(values.sum()), float((values ** 2).sum()),
                                          len(values))
    return {"mc": mean, "ci_low": low, "ci_high": high}


def _diff(values: np.ndarray, base: np.ndarray) -> dict:
    """The paired change of per-game values against the baseline's, with its interval."""
    d = _cell(values - base)
    return {"diff": d["mc"], "diff_ci_low": d["ci_low"], "diff_ci_high": d["ci_high"]}


def run_seat_readings(scenario: Scenario, *, trials: int, seed: int,
                      threads: int | None = None,
                      progress: Callable[[int, int], None] | None = None) -> ReadingsResult:
    """Every documented reading of a multiplayer scenario's ruleset, ranked (issue 47.7).

    Each reading plays the whole game (every seat; P-44..P-50) on trials ``0 .. trials -
    1`` of ``seed``, as the unchanged ruleset does (common random numbers). A row's
    ``mc``, ``diff`` and ``verdict`` are the first-seat advantage's (:data:`FIRST_SEAT`);
    each of :func:`seat_names` gets its own ``NAME``, ``NAME diff`` and intervals; ``effect``
    is the largest absolute change among them. A reading whose compiled game equals the
    unchanged one is "no effect", not played; one the rules refuse, or whose game the
    scenario cannot set up, is skipped with the reason.
    """
    if trials < 1:
        raise ReadingsError(f"trials must be >= 1 (got {trials})", "trials")
    rs, seats = scenario.ruleset, len(scenario.players)
    names = seat_names(seats)
    start = time.perf_counter()
    readings, skipped = plan(rs, all_readings(rs))
    known: dict = {}
    arrays = compile_game(scenario)
    digest = game_digest(arrays, known)
    base = _seat_values(arrays, seats, trials=trials, seed=seed, threads=threads)
    baseline = {n: _cell(base[:, i]) for i, n in enumerate(names)}
    rows = []
    for k, reading in enumerate(readings):
        if progress is not None:
            progress(k, len(readings))
        edited = apply_edits(rs, [reading.edit])
        refused = ruleset_refusal(scenario, edited, f"edit {reading.edit!r}")
        try:
            game = None if refused else compile_game(dataclasses.replace(scenario,
                                                                         ruleset=edited))
        except CampaignInputError as error:
            refused = str(error)
        if refused:
            skipped.append(_skipped(reading, refused, "compile"))
            continue
        if game_digest(game, known) == digest:
            cells = {n: _unchanged(baseline[n]) for n in names}
        else:
            values = _seat_values(game, seats, trials=trials, seed=seed, threads=threads)
            cells = {n: {**_cell(values[:, i]), **_diff(values[:, i], base[:, i])}
                     for i, n in enumerate(names)}
            for cell in cells.values():
                cell["verdict"] = NO_GAME_CHANGED if no_game_changed(cell) else ""
        head = cells[FIRST_SEAT]
        row = {"edit": reading.edit, "key": reading.key, "value": reading.text, "rank": 0,
               "current": _text(reading.current),
               **{k: head[k] for k in ("mc", "ci_low", "ci_high", "diff", "diff_ci_low",
                                       "diff_ci_high", "verdict")},
               "effect": max(abs(c["diff"]) for c in cells.values()),
               "rules": reading.rules, "kind": reading.kind}
        for n in names[1:]:
            row |= {n: cells[n]["mc"], f"{n} diff": cells[n]["diff"],
                    f"{n} diff_ci_low": cells[n]["diff_ci_low"],
                    f"{n} diff_ci_high": cells[n]["diff_ci_high"]}
        rows.append(row)
    _rank(rs, rows, skipped)
    return ReadingsResult(scenario.name, trials, seed, baseline, tuple(rows), tuple(skipped),
                          (), (), rs.sha256, round(time.perf_counter() - start, 3),
                          metric=FIRST_SEAT)


def _rank(rs: Ruleset, rows: list[dict], skipped: list[dict]) -> None:
    """Rank ``rows`` in place, largest ``effect`` first (declaration order on ties), and
    put ``skipped`` in declaration order.
    """
    place = {r.edit: i for i, r in enumerate(all_readings(rs))}
    rows.sort(key=lambda row: (-row["effect"], place[row["edit"]]))
    for i, row in enumerate(rows, 1):
        row["rank"] = i
    skipped.sort(key=lambda s: place[s["edit"]])


def _stage(progress, stage: int):
    if progress is None:
        return None
    return lambda done, total: progress(stage * total + done, 2 * total)


def _unchanged(base: dict) -> dict:
    return {**base, "diff": 0.0, "diff_ci_low": 0.0, "diff_ci_high": 0.0, "verdict": NO_EFFECT}


def _row(reading: Reading, cells: dict, targets: Sequence[Target]) -> dict:
    """One ranked row: the reading, the win rate's paired change, then each target."""
    win = cells[METRIC]
    if no_game_changed(win) and win["verdict"] != NO_EFFECT:
        win = {**win, "verdict": NO_GAME_CHANGED}
    row = {"edit": reading.edit, "key": reading.key, "value": reading.text, "rank": 0,
           "current": _text(reading.current),
           **{k: win[k] for k in ("mc", "ci_low", "ci_high", "diff", "diff_ci_low",
                                  "diff_ci_high", "verdict")},
           "effect": abs(win["diff"]), "rules": reading.rules, "kind": reading.kind}
    for t in targets:
        cell = cells[t.metric]
        if t.metric != METRIC:
            row |= {f"{t.metric} diff": cell["diff"],
                    f"{t.metric} diff_ci_low": cell["diff_ci_low"],
                    f"{t.metric} diff_ci_high": cell["diff_ci_high"]}
        row[f"target: {t.text}"] = t.judge(cell["mc"], cell["ci_low"], cell["ci_high"])
    return row


__all__ = ["COLUMNS", "FIRST_SEAT", "METRIC", "NO_EFFECT", "NO_GAME_CHANGED", "RULE",
           "SARCOPHAGUS", "Reading", "ReadingsError", "ReadingsResult", "all_readings",
           "alternatives", "find_readings", "guardian_readings", "paired_targets", "plan",
           "run_readings", "run_seat_readings", "seat_names"]
