"""Candidates raced on common random numbers by successive halving (``zonesim optimize``).

:class:`Games` plays whole games of candidate policies and keeps each one's per-game
values: game ``t`` of every candidate plays the streams of ``(seed, first + t)``
(:func:`sim.experiments.campaign_paired.trial_values`), so any two candidates are paired
game by game on the games both have played. A candidate is compiled once; candidates whose
compiled games are equal (:func:`game_digest`) share one set of games, and one that compiles
to the incumbent's game is never played (no effect).

:func:`race` runs one race. Rung ``r`` plays every survivor on games ``0 .. n_r - 1``,
``n_r = trials * 2**r``, only the games a survivor has not played yet being new. After each
rung (the rule, applied in this order):

0. a challenger whose per-game values equal the incumbent's on every game played so far
   (every paired difference exactly 0) is dropped as having no effect, and one whose values
   equal an earlier challenger's is dropped as its twin: neither costs another game, so
   a budget is not spent racing values that play the same games (issue 46);
1. a challenger whose constraint verdict is ``FAIL`` (its whole 95 % interval outside the
   target) is dropped as infeasible;
2. the *leader* is the survivor with the best estimate of the metric among the feasible
   ones (ties: the incumbent, then the order given); a challenger whose paired 95 % interval
   of the difference to the leader lies wholly on the worse side of 0 is dropped as clearly
   worse;
3. of the challengers left, the better half by estimate (rounded up) goes on.

The incumbent is never dropped, so the last rung always holds its paired difference to the
leader. The race ends when one challenger is left and its paired interval to the incumbent
excludes 0, when no challenger is left, when the next rung would exceed ``cap`` games per
candidate, or when it would exceed the budget of games. The winner is the leader of the last
rung; the incumbent stays unless a challenger's estimate is strictly better.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim import stats
from sim.campaign.compile import CampaignArrays
from sim.campaign.players import GameArrays
from sim.experiments import tables
from sim.experiments.base import Case, Metric
from sim.experiments.campaign_metrics import GAME_DAYS, QUANTILES, WIN_RATE
from sim.experiments.campaign_paired import (
    CAMPAIGN_METRICS,
    SEAT_METRICS,
    compile_cases,
    trial_values,
)
from sim.experiments.naming import DAY_STATS
from sim.rules import Ruleset
from sim.workflows.policy_space import Candidate
from sim.workflows.sweep import checked_ruleset, map_tasks
from sim.workflows.targets import FAIL, Target

DAY_METRICS = {f"days.{stat}": stat for stat in DAY_STATS}
"""Statistics of the days to the Sarcophagus a constraint may name (``days.median``)."""

DROPPED_WORSE = "clearly worse"
DROPPED_INFEASIBLE = "infeasible"
DROPPED_HALVED = "halved"
DROPPED_SAME = "no effect"
DROPPED_TWIN = "same games as another"
"""Why a challenger left a race (rules 2, 1, 3 and 0 of the module's rule)."""


@dataclass(frozen=True)
class Objective:
    """What the search maximises: a metric of the ``campaign`` experiment, and a constraint.

    Attributes
    ----------
    metric : Metric
        One of :data:`~sim.experiments.campaign_paired.CAMPAIGN_METRICS` with a direction.
    constraint : Target or None
        A target that a candidate must not ``FAIL``: on a metric of that list, or on a
        statistic of the days to the Sarcophagus (:data:`DAY_METRICS`).
    """

    metric: Metric
    constraint: Target | None = None
    seat: int = 0
    """The seat (from 0) whose :data:`~sim.experiments.campaign_paired.SEAT_METRICS` these are."""

    @property
    def columns(self) -> tuple[str, ...]:
        """The per-game values kept: the metric, then those the constraint is judged on."""
        names = [self.metric.name]
        if self.constraint is not None and self.constraint.metric in DAY_METRICS:
            names += [GAME_DAYS, WIN_RATE]
        elif self.constraint is not None:
            names.append(self.constraint.metric)
        return tuple(dict.fromkeys(names))

    def constraint_cell(self, x: np.ndarray) -> dict:
        """The constraint's metric on per-game values ``x`` (columns :attr:`columns`).

        A ``days.*`` statistic is taken over the games that reached the Sarcophagus, as
        in ``zonesim campaign``: the mean with its normal interval, a quantile with its
        order-statistic interval (:func:`sim.stats.quantile_interval`).
        """
        name, col = self.constraint.metric, self.columns.index
        if name not in DAY_METRICS:
            return cell(next(m for m in (*CAMPAIGN_METRICS, *SEAT_METRICS) if m.name == name),
                        x[:, col(name)])
        days = x[x[:, col(WIN_RATE)] == 1, col(GAME_DAYS)]
        stat = DAY_METRICS[name]
        if stat == "mean":
            mc, low, high = stats.mean_interval(float(days.sum()), float((days * days).sum()),
                                                max(len(days), 1))
        else:
            mc, low, high = stats.quantile_interval(days, QUANTILES[stat])
        return {"mc": mc, "ci_low": low, "ci_high": high, "exact": None}

    @property
    def sign(self) -> int:
        """+1 when a larger value is better, -1 when a smaller one is."""
        return 1 if self.metric.better == "higher" else -1


def cell(metric: Metric, x: np.ndarray) -> dict:
    """Estimate and 95 % interval of a metric's per-game values (Wilson for a proportion)."""
    if metric.kind == "proportion":
        return tables.proportion(int(x.sum()), len(x))
    return tables.mean(int(x.sum()), int((x * x).sum()), len(x))


def paired(a: np.ndarray, b: np.ndarray) -> dict:
    """Mean of ``a - b`` over paired games, with its paired 95 % interval."""
    d = a - b
    diff, low, high = stats.mean_interval(float(d.sum()), float((d * d).sum()), len(d))
    return {"diff": diff, "diff_ci_low": low, "diff_ci_high": high}


def game_digest(arrays: CampaignArrays | GameArrays,
                known: dict[int, tuple[np.ndarray, bytes]]) -> str:
    """SHA-256 of a compiled game: equal digests play equal games on equal streams.

    Hashes each table of ``arrays`` (its dtype, shape and bytes; of a multiplayer game,
    every slot's in slot order) and then the tables' digests in field order, so two games
    have one digest exactly when every table is equal (:meth:`CampaignArrays.pack` of one
    slot adds an axis and nothing else; a multiplayer game's tables are its slots'). A read-only
    table is hashed once: ``known`` maps its ``id`` to the table (held, so that the id is not
    reused) and its digest. The fight and hazard tables of candidates that share their
    inputs are the same read-only objects (:mod:`sim.campaign.memo`), so most candidates
    hash only their small tables.
    """
    h = hashlib.sha256()
    slots = arrays.slots if isinstance(arrays, GameArrays) else (arrays,)
    for slot, f in ((s, f) for s in slots for f in dataclasses.fields(s)):
        table = getattr(slot, f.name)
        held = known.get(id(table))
        if held is None or held[0] is not table:
            held = (table, hashlib.sha256(f"{table.dtype}{table.shape}".encode()
                                          + np.ascontiguousarray(table).tobytes()).digest())
            if not table.flags.writeable:
                known[id(table)] = held
        h.update(held[1])
    return h.hexdigest()


class Games:
    """Every candidate's games so far, and the games played (the budget's count).

    Parameters
    ----------
    rs : Ruleset
        The scenario's ruleset.
    base : dict
        The scenario's ``campaign`` setup.
    objective : Objective
        Which per-game values to keep.
    seed, first : int
        Game ``t`` of a candidate plays the streams of ``(seed, first + t)``.
    threads : int, optional
        Kernel threads; never changes a value.
    scheduler : distributed.Client, optional
        Play :meth:`fill`'s batches on this Dask cluster, one task per candidate
        (:func:`sim.workflows.sweep.map_tasks`); never changes a value.
    game : callable, optional
        The compiled game a candidate's setup plays (default: the one-stalker game,
        :func:`~sim.experiments.campaign_paired.compile_cases`); a seat of a multiplayer
        game is :func:`~sim.experiments.campaign_paired.compile_seat` (here only, no
        scheduler).
    """

    def __init__(self, rs: Ruleset, base: dict, objective: Objective, *, seed: int,
                 first: int = 0, threads: int | None = None, scheduler: Any = None,
                 game: Callable[[dict], CampaignArrays | GameArrays] | None = None) -> None:
        self.rs, self.base, self.objective = rs, base, objective
        self.seed, self.first, self.threads = seed, first, threads
        self.scheduler = scheduler
        self._game = game or (lambda setup: compile_cases([Case(rs, setup)])[0])
        self._rules_digest = "" if scheduler is None else rs.digest()
        self.played = 0
        self.ranges: list[tuple[int, int]] = []
        """Trial indices played, ``(first, count)`` per kernel run."""
        self._compiled: dict[Candidate, tuple[str, CampaignArrays | GameArrays]] = {}
        self._values: dict[str, np.ndarray] = {}
        self._tables: dict[int, tuple[np.ndarray, bytes]] = {}

    def digest(self, candidate: Candidate) -> str:
        """The digest of the candidate's compiled game (compiled on first use)."""
        if candidate not in self._compiled:
            arrays = self._game(candidate.setup(self.base))
            self._compiled[candidate] = (game_digest(arrays, self._tables), arrays)
        return self._compiled[candidate][0]

    def have(self, candidate: Candidate) -> int:
        """Games the candidate has played."""
        values = self._values.get(self.digest(candidate))
        return 0 if values is None else len(values)

    def play(self, candidate: Candidate, n: int) -> np.ndarray:
        """The candidate's per-game values of games ``0 .. n - 1`` (playing the missing ones)."""
        self.fill([candidate], n)
        return self._values[self.digest(candidate)][:n]

    def fill(self, candidates: Sequence[Candidate], n: int) -> None:
        """Play the games ``0 .. n - 1`` that each candidate lacks, in one batch.

        Here in order, or on the Dask cluster (a task per compiled game); the values and
        :attr:`ranges` are the same either way.
        """
        tasks, keys = [], []
        for c in candidates:
            key = self.digest(c)
            held = len(self._values.get(key, ()))
            if held < n and key not in keys:
                keys.append(key)
                tasks.append(PlayTask(str(self.rs.path), self._rules_digest, c.setup(self.base),
                                      self.objective.columns, self.seed, self.first + held,
                                      n - held, self.threads))
        if not tasks:
            return
        if self.scheduler is None:
            outputs = [trial_values(self._arrays[k], t.columns, seed=t.seed, first=t.first,
                                    trials=t.trials, threads=t.threads,
                                    seat=self.objective.seat)
                       for k, t in zip(keys, tasks, strict=True)]
        else:
            outputs, _ = map_tasks(play_task, tasks, scheduler=self.scheduler)
        empty = np.empty((0, len(self.objective.columns)), np.int64)
        for key, task, more in zip(keys, tasks, outputs, strict=True):
            self.ranges.append((task.first, task.trials))
            self.played += task.trials
            self._values[key] = np.concatenate([self._values.get(key, empty), more])

    @property
    def _arrays(self) -> dict[str, CampaignArrays | GameArrays]:
        return {d: arrays for d, arrays in self._compiled.values()}


@dataclass(frozen=True)
class PlayTask:
    """What a worker needs to play one candidate's games: plain data, so it pickles."""

    rules_path: str
    digest: str
    setup: dict
    columns: tuple[str, ...]
    seed: int
    first: int
    trials: int
    threads: int | None


def play_task(task: PlayTask) -> np.ndarray:
    """Per-game values of one task (the worker reloads the ruleset and checks its digest)."""
    rs = checked_ruleset(task.rules_path, task.digest)
    (arrays,) = compile_cases([Case(rs, task.setup)])
    return trial_values(arrays, task.columns, seed=task.seed, first=task.first,
                        trials=task.trials, threads=task.threads)


@dataclass
class Standing:
    """One candidate at the end of a race: its estimate on the games of its last rung.

    Also that rung (``rung``, from 0), why it left (``dropped``, None if it did not) and
    its paired difference to the race's incumbent there.
    """

    candidate: Candidate
    trials: int
    mc: float
    ci_low: float
    ci_high: float
    feasible: bool
    dropped: str | None = None
    rung: int = 0
    vs_incumbent: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RaceResult:
    """The winner of a race, every candidate's standing, and whether the budget ran out."""

    winner: Candidate
    standings: tuple[Standing, ...]
    budget_hit: bool


def _standing(games: Games, c: Candidate, n: int, objective: Objective) -> Standing:
    x = games.play(c, n)
    est = cell(objective.metric, x[:, 0])
    feasible = True
    if objective.constraint is not None:
        con = objective.constraint_cell(x)
        feasible = objective.constraint.judge(con["mc"], con["ci_low"], con["ci_high"]) != FAIL
    return Standing(c, n, est["mc"], est["ci_low"], est["ci_high"], feasible)


def clearly_worse(objective: Objective, d: dict) -> bool:
    """Whether a paired difference (challenger minus leader) is wholly on the worse side."""
    return (d["diff_ci_high"] < 0) if objective.sign > 0 else (d["diff_ci_low"] > 0)


def race(games: Games, incumbent: Candidate, challengers: Sequence[Candidate], *,
         trials: int, cap: int, budget: int) -> RaceResult:
    """Race ``challengers`` against ``incumbent`` (the module's rule); see :class:`RaceResult`.

    ``budget`` is the most games :attr:`Games.played` may reach.
    """
    objective = games.objective
    alive: list[Candidate] = [incumbent, *challengers]
    out: dict[Candidate, Standing] = {}
    n, rung, budget_hit = trials, 0, False
    while True:
        need = sum(max(0, n - games.have(c)) for c in alive)
        if games.played + need > budget:
            budget_hit = True
            break
        games.fill(alive, n)
        for c in alive:
            out[c] = _standing(games, c, n, objective)
            out[c].rung = rung
        rung += 1
        alive = _after_rung(games, alive, out, n, objective)
        if len(alive) == 1 or n * 2 > cap or games.played >= budget:
            budget_hit = games.played >= budget
            break
        if len(alive) == 2:
            d = out[alive[1]].vs_incumbent
            if d["diff_ci_low"] > 0 or d["diff_ci_high"] < 0:
                break
        n *= 2
    if not out:  # not even the first rung fits in the budget
        return RaceResult(incumbent, (), True)
    finalists = [c for c in alive if out[c].feasible] or [incumbent]
    leader = max(finalists, key=lambda c: (objective.sign * out[c].mc, c == incumbent))
    return RaceResult(leader, tuple(out.values()), budget_hit)


def _after_rung(games: Games, alive: list[Candidate], out: dict[Candidate, Standing], n: int,
                objective: Objective) -> list[Candidate]:
    """The survivors of one rung (rules 0 to 3); each leaver's standing says why."""
    incumbent = alive[0]
    values = {c: games.play(c, n)[:, 0] for c in alive}
    for c in alive:
        out[c].vs_incumbent = paired(values[c], values[incumbent])
    kept = []
    for c in _distinct(games, alive, out, n):
        if out[c].feasible:
            kept.append(c)
        else:
            out[c].dropped = DROPPED_INFEASIBLE
    feasible = [c for c in (incumbent, *kept) if out[c].feasible] or [incumbent]
    leader = max(feasible, key=lambda c: (objective.sign * out[c].mc, c == incumbent))
    survivors = []
    for c in kept:
        if c != leader and clearly_worse(objective, paired(values[c], values[leader])):
            out[c].dropped = DROPPED_WORSE
        else:
            survivors.append(c)
    survivors.sort(key=lambda c: -objective.sign * out[c].mc)  # stable: ties keep their order
    keep = math.ceil(len(survivors) / 2)  # the leader, when a challenger, comes first
    for c in survivors[keep:]:
        out[c].dropped = DROPPED_HALVED
    return [incumbent, *survivors[:keep]]


def _distinct(games: Games, alive: list[Candidate], out: dict[Candidate, Standing],
              n: int) -> list[Candidate]:
    """The challengers whose games differ from the incumbent's and every earlier one's (rule 0).

    Games are compared on every kept column (the metric and the constraint's), game by game;
    a leaver's standing says why it left.
    """
    incumbent, challengers = alive[0], alive[1:]
    held = [games.play(incumbent, n)]
    kept = []
    for c in challengers:
        x = games.play(c, n)
        if np.array_equal(x, held[0]):
            out[c].dropped = DROPPED_SAME
        elif any(np.array_equal(x, y) for y in held[1:]):
            out[c].dropped = DROPPED_TWIN
        else:
            held.append(x)
            kept.append(c)
    return kept


def standing_row(s: Standing) -> dict:
    """A race standing as a flat row."""
    return {"candidate": s.candidate.label, "trials": s.trials, "mc": s.mc,
            "ci_low": s.ci_low, "ci_high": s.ci_high, "feasible": s.feasible,
            "dropped": s.dropped, "rung": s.rung, **s.vs_incumbent}


__all__ = ["DAY_METRICS", "DROPPED_HALVED", "DROPPED_INFEASIBLE", "DROPPED_SAME", "DROPPED_TWIN",
           "DROPPED_WORSE", "QUANTILES", "Games", "Objective", "PlayTask", "RaceResult",
           "Standing", "cell", "clearly_worse", "game_digest", "paired", "play_task", "race",
           "standing_row"]
