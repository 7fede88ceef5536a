"""Best play over whole games: the library behind ``zonesim optimize`` (issue 25).

The search changes the scenario's policy keys and starting loadout, within the starting
money (:mod:`sim.workflows.policy_space`), to maximise a metric of the ``campaign``
experiment (default ``p_sarcophagus``), optionally under a constraint (a
:class:`~sim.workflows.targets.Target` on another per-game metric).

**Proposal: coordinate-wise.** Starting from the scenario's policy (the incumbent), each key
in turn is raced over all its values with the other keys held (:func:`sim.workflows.race.
race`: successive halving on paired differences, clearly worse values dropped early); the
race's winner becomes the incumbent. Passes over the keys repeat until one changes nothing,
up to ``passes``. The space is small and discrete (a few thresholds of 0..Health, three
switches): a pass costs one race per key, each race shares its games with every other
(common random numbers), and the incumbent's games are played once for the whole search.
A final *playoff* races the best and its :data:`PLAYOFF` - 1 nearest rivals (the candidates
played longest whose games differ from the best's) from a race's last rung on, up to
``2**PLAYOFF_RUNGS`` times as many games, so that close calls between the races' finalists
are decided on more games of the selection.

**A budget spent where it matters (issue 46).** A value whose games equal the incumbent's
on every game of a race's first rung (every paired difference exactly 0) has no effect there
and plays no more games (:mod:`sim.workflows.race`, rule 0). The budget sets the first rung:
``trials`` games per candidate, or fewer (:func:`first_rung`, never below :data:`MIN_RUNG`)
so that every key's values get a first rung within the budget; and each race leaves the
first rungs of the keys after it in the pass unspent, so a race that could run on (close
values, many rungs) never takes the budget of a key not yet raced. A key the budget still
left unraced is named (:attr:`Optimization.not_searched`; the table's first line).

**Common random numbers.** Game ``t`` of every candidate plays the streams of ``(seed, t)``
(:mod:`sim.kernels.rng`), so every difference is paired game by game; sums are exact
integers, so the result depends only on the seed, never on the thread count.

**Honest numbers.** The selection's games have trial indices below :func:`selection_games`
(a candidate's games at a playoff's last rung), far below :data:`FRESH_FIRST`; the winner, the
runner-up (the best candidate whose games differ from the winner's) and the scenario's own
policy are then played again on trials ``FRESH_FIRST ..`` of the same seed: no (seed,
trial) pair, hence no random stream of any purpose, is shared with the selection. Those
fresh games give every reported number: the winner's estimate with its interval, its paired
difference to the scenario's policy, and the runner-up's to the winner.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from sim.errors import InputError
from sim.experiments.base import CompareInputError, Metric
from sim.experiments.campaign_metrics import SEAT_WIN
from sim.experiments.campaign_paired import (
    CAMPAIGN_METRICS,
    SEAT_METRICS,
    compile_seat,
    scenario_setup,
    seat_setup,
)
from sim.rules import load_ruleset
from sim.rules.scenario import Scenario
from sim.workflows.levers import DEFAULT_METRIC, NO_EFFECT
from sim.workflows.policy_space import (
    RUBLES,
    Candidate,
    Dimension,
    Purse,
    naive,
    parse_keys,
    space,
    value_text,
)
from sim.workflows.race import (
    DAY_METRICS,
    DROPPED_SAME,
    Games,
    Objective,
    Standing,
    cell,
    clearly_worse,
    paired,
    race,
    standing_row,
)
from sim.workflows.sweep import check_scheduler
from sim.workflows.targets import TargetError, checked, parse_target

FRESH_FIRST = 2**62
"""First trial index of the re-evaluation (above every trial index a selection may play)."""
TRIALS = 5_000
"""Games per candidate at a race's first rung (fewer on a small budget: :func:`first_rung`)."""
MIN_RUNG = 100
"""The smallest first rung :func:`first_rung` sets (unless ``trials`` is smaller): on fewer
games a race cannot tell even a 5-point effect on a win rate from noise."""
RUNGS = 5
"""Rungs of a race at most: a candidate plays at most ``trials * 2**(RUNGS - 1)`` games."""
BUDGET = 5_000_000
"""Games the selection may play in all."""
FRESH_TRIALS = 100_000
"""Games of each re-evaluated policy."""
PASSES = 3
"""Passes over the keys at most."""
PLAYOFF = 4
"""Candidates of the final playoff (the best and its nearest rivals)."""
PLAYOFF_RUNGS = 2
"""A playoff plays up to ``2**PLAYOFF_RUNGS`` times a coordinate race's last rung."""
METRIC = DEFAULT_METRIC["campaign"]
SEAT_METRIC = SEAT_WIN
"""The metric a seat of a multiplayer game maximises by default (``--seat``): its win."""


FRESH_POLICIES = 4
"""Policies played on the fresh games: the best, the scenario's, the naive one, the runner-up."""
MAX_BUDGET = 5 * 10**7
"""Most games of selection: every game's values are kept (8 bytes a column, one to three
columns) for the paired differences, so the selection holds up to 1.2 GB at this limit."""
MAX_FRESH_TRIALS = 10**7
"""Most fresh games per re-evaluated policy: the :data:`FRESH_POLICIES` policies' values
are held together (up to 1 GB at this limit)."""


def most_games(budget: int, fresh_trials: int, replicate: bool = False) -> int:
    """The most games a search plays: its budget and the fresh games (a progress bar's total).

    ``replicate``: a second search's budget and its best's fresh games too.
    """
    return (1 + replicate) * (budget + fresh_trials) + (FRESH_POLICIES - 1) * fresh_trials


def check_games(budget: int, fresh_trials: int) -> None:
    """Refuse, before any game, a search whose games' values would not fit in memory.

    Raises
    ------
    OptimizeError
        ``budget`` above :data:`MAX_BUDGET` (field ``budget``) or ``fresh_trials`` above
        :data:`MAX_FRESH_TRIALS` (field ``fresh_trials``), the value and the limit named.
    """
    for value, limit, field_name, what in (
            (budget, MAX_BUDGET, "budget", "games of selection"),
            (fresh_trials, MAX_FRESH_TRIALS, "fresh_trials", "fresh games per policy")):
        if value > limit:
            raise OptimizeError(f"{value} {what} is above the limit of {limit}: every game's "
                                "values are kept in memory for the paired differences",
                                field_name)


def first_rung(budget: int, trials: int, challengers: int) -> int:
    """Games per candidate at every race's first rung, for ``challengers`` values in a pass.

    ``trials``, or fewer so that the incumbent and every other value of every key (one
    pass's first rungs) fit in ``budget``; never below :data:`MIN_RUNG` (or ``trials``
    where that is smaller): keys that still do not fit are left unraced and named.
    """
    return max(min(trials, MIN_RUNG), min(trials, budget // (1 + challengers)))


def selection_games(trials: int) -> int:
    """The most games a candidate plays in the selection (its trial indices lie below)."""
    return trials * 2 ** (RUNGS - 1 + PLAYOFF_RUNGS)


class OptimizeError(InputError):
    """A search that cannot run (unknown metric, bad constraint; exit status 2)."""


def objective_of(metric: str | None = None, constraint: str | None = None,
                 seat: int | None = None) -> Objective:
    """The :class:`~sim.workflows.race.Objective` named by ``metric`` and ``constraint`` text.

    ``seat`` (from 0): a seat of a multiplayer game, whose metrics are the
    :data:`~sim.experiments.campaign_paired.SEAT_METRICS` (default :data:`SEAT_METRIC`).

    Raises
    ------
    OptimizeError
        A metric that is not a per-game metric of the ``campaign`` experiment (of a seat)
        or has no better direction (field ``metric``), or a constraint that does not parse
        or names such a metric (field ``constraint``).
    """
    metrics = CAMPAIGN_METRICS if seat is None else SEAT_METRICS
    names = {m.name: m for m in metrics}
    chosen = names.get(metric or (METRIC if seat is None else SEAT_METRIC))
    ranked = ", ".join(m.name for m in metrics if m.better is not None)
    if chosen is None or chosen.better is None:
        raise OptimizeError(f"{metric!r} is not a per-game campaign metric with a better "
                            f"direction (known: {ranked})", "metric")
    target = None
    if constraint is not None:
        try:
            target = parse_target(constraint)
        except TargetError as error:
            raise OptimizeError(str(error), "constraint") from None
        days = DAY_METRICS if seat is None else {}  # a seat's games have no seat-1 days
        if target.metric not in names and target.metric not in days:
            raise OptimizeError(f"constraint {constraint!r}: {target.metric!r} is not a "
                                "per-game campaign metric or a days statistic (known: "
                                f"{', '.join((*names, *days))})", "constraint")
        try:  # a count of days is a mean, never below 0
            checked(target, names.get(target.metric, Metric(target.metric)))
        except TargetError as error:
            raise OptimizeError(str(error), "constraint") from None
    return Objective(chosen, target, 0 if seat is None else seat)


NOT_SEARCHED = "not searched"
"""A key no value of which was raced (none to race, or the budget ran out first)."""
SAME_GAMES = "no effect (the same games)"
"""A key every raced value of which played the incumbent's games, game by game."""
EVIDENCE = ("other", "trials", "diff", "diff_ci_low", "diff_ci_high")
"""A key's evidence: its best other value, the games compared, the paired difference."""


@dataclass
class KeyLog:
    """What the search saw of one key: its value in the scenario, the best, the evidence.

    ``raced``, ``unchanged``, ``refused`` and ``unaffordable`` count the other values met:
    raced, compiled to the incumbent's very game, refused by the compile step, or a loadout
    beyond the starting money (:class:`~sim.workflows.policy_space.Purse`), never proposed;
    ``same`` counts the raced values that played the incumbent's games on the first rung
    (:data:`~sim.workflows.race.DROPPED_SAME`).
    """

    key: str
    current: Any
    best: Any = None
    raced: int = 0
    unchanged: int = 0
    refused: int = 0
    unaffordable: int = 0
    evidence: dict = field(default_factory=dict)
    same: int = 0

    @property
    def effect(self) -> str:
        """``no effect`` (every other value compiles to the same game), :data:`SAME_GAMES`
        (every raced value played the incumbent's games), ``changed``, ``kept``, or ``not
        searched``.
        """
        if self.raced == 0 and self.unchanged:
            return NO_EFFECT
        if self.raced == 0:
            return NOT_SEARCHED
        if self.same == self.raced and self.best == self.current:
            return SAME_GAMES
        return "changed" if self.best != self.current else "kept"


@dataclass(frozen=True)
class Optimization:
    """Result of :func:`optimize`.

    Attributes
    ----------
    scenario, stalker : str
        The scenario file and the stalker card played.
    objective : Objective
        Metric and constraint.
    seed, trials, budget, fresh_trials : int
        The seed, the games of a first rung, the selection's budget, the re-evaluation's games.
    played : int
        Games the selection played.
    winner : Candidate
        The best policy found (``Candidate()``: the scenario's own).
    base : dict
        The scenario's ``campaign`` setup.
    keys : tuple of KeyLog
        Per searched key.
    top : tuple of dict
        The best candidates of the selection (their own games), best first.
    reevaluation : dict or None
        The fresh games' numbers (None when interrupted).
    selection_trials, fresh_range : tuple of (int, int)
        The trial indices played, ``(first, count)`` per kernel run, of the selection and
        of the re-evaluation.
    passes, races : int
        Passes over the keys and races run.
    stopped : str
        Why the search stopped: ``converged``, ``passes``, ``budget`` or ``interrupted``.
    money : int or None
        The starting rubles with the scenario's loadout (what a loadout is paid from).
    fresh_games : Games or None
        The re-evaluation's games (trials from :data:`FRESH_FIRST`), for more comparisons
        on the same fresh games (:mod:`sim.workflows.carrying`); not in :meth:`to_dict`.
    seat : int or None
        The seat searched (from 1) of a multiplayer scenario; None for one stalker.
    first_rung : int or None
        Games per candidate at every race's first rung (:func:`first_rung`).
    not_searched : tuple of str
        The keys no value of which was raced because the budget ran out first.
    """

    scenario: str
    stalker: str
    objective: Objective
    seed: int
    trials: int
    budget: int
    fresh_trials: int
    played: int
    winner: Candidate
    base: dict
    keys: tuple[KeyLog, ...]
    top: tuple[dict, ...]
    reevaluation: dict | None
    selection_trials: tuple[tuple[int, int], ...]
    fresh_range: tuple[tuple[int, int], ...]
    passes: int
    races: int
    stopped: str
    money: int | None = None
    fresh_games: Games | None = field(default=None, repr=False, compare=False)
    seat: int | None = None
    first_rung: int | None = None
    not_searched: tuple[str, ...] = ()

    def changes(self) -> list[dict]:
        """``{"key", "from", "to"}`` per key the winner changes (``rubles``: the money left)."""
        return [{"key": k, "from": self.money if k == RUBLES and self.base[k] is None
                 else self.base[k], "to": v} for k, v in self.winner.overrides]

    def key_rows(self) -> list[dict]:
        """One row per key: its value in the scenario, the best found and the effect.

        Then the best other value with its paired difference to the best (None where no
        other value raced).
        """
        rows = []
        for k in self.keys:
            evidence = dict.fromkeys(EVIDENCE) | k.evidence
            if k.evidence:
                evidence["other"] = value_text(evidence["other"], k.key)
            rows.append({"key": k.key, "current": value_text(k.current, k.key),
                         "best": value_text(k.best, k.key), "effect": k.effect,
                         "same_games": k.same, "refused": k.refused,
                         "unaffordable": k.unaffordable, **evidence})
        return rows

    def keys_frame(self) -> pd.DataFrame:
        """:meth:`key_rows` as a frame."""
        return pd.DataFrame(self.key_rows())

    def to_frame(self) -> pd.DataFrame:
        """The top candidates (selection numbers), best first."""
        return pd.DataFrame(list(self.top))

    def budget_line(self) -> str | None:
        """The keys the budget left unraced, in words (None when every key was raced)."""
        if not self.not_searched:
            return None
        return (f"not searched: {', '.join(self.not_searched)} (the budget of "
                f"{self.budget:,} games ran out before any of their values was raced; a "
                "larger --budget or fewer --keys searches them)")

    def lines(self) -> list[str]:
        """The result in words: the best policy, then the fresh games' numbers."""
        out = [f"best: {self.winner.label}"
               + "".join(f"\n  {c['key']}: {value_text(c['from'], c['key'])} -> "
                         f"{value_text(c['to'], c['key'])}"
                         for c in self.changes())]
        if self.stopped == "interrupted":
            return [*out, "interrupted: the best so far, on the selection's games; "
                          "not re-evaluated"]
        r = self.reevaluation
        name = self.objective.metric.name
        out.append(f"on {r['trials']:,} fresh games (trials from {r['first_trial']}, none of "
                   f"the selection's), paired, 95 % intervals:")
        out.append(f"  {name} of the best: {_cell(r['winner_estimate'])}; of the scenario's "
                   f"policy: {_cell(r['scenario_estimate'])}")
        out.append(f"  best minus the scenario's policy: {_diff(r['vs_scenario'])}")
        out.append(f"  naive policy ({r['naive']}): {_cell(r['naive_estimate'])}; the best "
                   f"minus it (the skill gap): {_diff(r['skill_gap'])}")
        if r["runner_up"] is not None:
            out.append(f"  runner-up {r['runner_up']}: {_cell(r['runner_up_estimate'])}; "
                       f"minus the best: {_diff(r['runner_up_vs_winner'])}")
        if convergence(r) is not None:
            out.append(f"  {convergence(r)}")
        if "constraint" in r:
            c = r["constraint"]
            out.append(f"  constraint {c['target']}: {_cell(c)} {c['verdict']}")
        return out

    def toml_header(self) -> list[str]:
        """Comment lines of the written scenario: where it comes from and what it scores."""
        head = [f"Best policy of {self.stalker} found by zonesim optimize from {self.scenario} "
                f"(seed {self.seed}, {self.played:,} games of selection).", *self.lines()]
        return [line for text in head for line in text.splitlines()]

    def top_table(self) -> pd.DataFrame:
        """The top candidates in words (selection numbers)."""
        return pd.DataFrame([{"candidate": r["candidate"], "games": r["trials"],
                              self.objective.metric.name: _cell(r),
                              "minus the best": "same games" if r["same_games"] else _diff(r),
                              "left": r["dropped"] or ""} for r in self.top])

    def to_dict(self) -> dict:
        """JSON document."""
        c = self.objective.constraint
        return {"scenario": self.scenario, "stalker": self.stalker, "seat": self.seat,
                "metric": self.objective.metric.name,
                "constraint": None if c is None else str(c), "seed": self.seed,
                "trials": self.trials, "first_rung": self.first_rung, "budget": self.budget,
                "played": self.played, "not_searched": list(self.not_searched),
                "fresh_trials": self.fresh_trials, "passes": self.passes,
                "races": self.races, "stopped": self.stopped,
                "best": {"label": self.winner.label, "policy": dict(self.winner.overrides)},
                "changes": self.changes(),
                "keys": self.key_rows(),
                "top": list(self.top), "reevaluation": self.reevaluation,
                "selection_trials": [list(r) for r in self.selection_trials],
                "fresh_trials_range": [list(r) for r in self.fresh_range]}


def optimize(scenario: Scenario, *, metric: str | None = None, constraint: str | None = None,
             keys: str | None = None, trials: int = TRIALS, budget: int = BUDGET,
             fresh_trials: int = FRESH_TRIALS, passes: int = PASSES, seed: int = 0,
             threads: int | None = None, top: int = 10, scheduler: Any = None,
             stalker: str | None = None, seat: int | None = None,
             progress: Callable[[str], None] | None = None,
             replicate: bool = False) -> Optimization:
    """Search the scenario's policy keys for the best value of a metric (module docstring).

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario, or a multiplayer one with ``seat``.
    metric, constraint : str, optional
        The metric maximised (or minimised, by its direction) and a target text
        (``"days.median <= 16"``) a winner must not fail (:func:`objective_of`).
    keys : str, optional
        ``a,b,c`` of :data:`~sim.workflows.policy_space.KEYS` (default all).
    trials, budget, fresh_trials, passes, seed, threads :
        Games per candidate at a first rung, games of the selection in all, games of the
        re-evaluation, passes over the keys at most, the seed, kernel threads.
    top : int
        Candidates kept in :attr:`Optimization.top`.
    stalker : str, optional
        Play this stalker card instead of the scenario's (his card's Health bounds the
        thresholds; his card's money unless the scenario sets ``loadout.rubles``).
    seat : int, optional
        A multiplayer scenario's seat (from 1) whose policy and loadout are searched, every
        other seat playing as the scenario has it, to maximise a metric of that seat
        (:data:`~sim.experiments.campaign_paired.SEAT_METRICS`, default its win, P-45).
    scheduler : str or distributed.Client, optional
        Play each rung's candidates on this Dask cluster (an address such as
        ``tcp://host:8786``, or a client); the result is the same.
    progress : callable, optional
        Called with a line before each race.
    replicate : bool
        Search again, with the same budget, on selection games of its own (trials from
        :func:`selection_games`, none of the first search's or the fresh games'), and play
        its best on the same fresh games: how far the search is from converged
        (:func:`convergence`; ``reevaluation["replicate"]``). The reported best stays the
        first search's, so the fresh numbers remain honest.

    Ctrl-C during the selection stops it: the games already played are kept, the best
    so far is returned (``stopped="interrupted"``) without a re-evaluation.

    Raises
    ------
    OptimizeError, SpaceError, CompareInputError
        A bad metric, constraint, key or seat; a budget below one rung; more games than
        fit in memory (:func:`check_games`).
    """
    check_games(budget, fresh_trials)
    p = _seat_index(scenario, seat, scheduler)
    objective = objective_of(metric, constraint, p)
    if stalker is not None:
        if stalker not in scenario.ruleset.stalkers:
            raise OptimizeError(f"{stalker!r} is not a stalker card of the ruleset (known: "
                                f"{', '.join(scenario.ruleset.stalkers)})", "stalker")
        if p is None:
            scenario = dataclasses.replace(scenario, stalker=stalker)
    if p is None:
        base, game = scenario_setup(scenario), None
    else:
        base = seat_setup(scenario, p)
        if stalker is not None:
            base["stalker"] = stalker
        game = functools.partial(compile_seat, scenario, p)
    dims = space(scenario.ruleset, base, parse_keys(keys))
    if 2 * selection_games(trials) >= FRESH_FIRST:
        raise OptimizeError(f"{trials} games per first rung reach the fresh games' trials",
                            "trials")
    if budget < trials:
        raise OptimizeError(f"the budget of {budget} games is below one candidate's first "
                            f"rung ({trials} games)", "budget")
    with _cluster(scheduler, scenario) as client:
        result = _optimize(scenario, objective, base, dims, trials, budget, fresh_trials,
                           passes, seed, threads, top, client, progress, game, replicate)
    return result if p is None else dataclasses.replace(result, seat=p + 1,
                                                        stalker=base["stalker"])


def _seat_index(scenario: Scenario, seat: int | None, scheduler: Any) -> int | None:
    """The searched seat from 0 (None: a one-stalker scenario), or an OptimizeError."""
    n = len(scenario.players)
    if not scenario.multiplayer:
        if seat not in (None, 1):
            raise OptimizeError(f"{scenario.path} is a one-stalker scenario: it has seat 1 "
                                f"only, not {seat}", "seat")
        return None
    if seat is None:
        raise OptimizeError(f"{scenario.path} is a multiplayer scenario: name the seat whose "
                            f"policy is searched (--seat 1..{n}; the others play theirs)",
                            "seat")
    if not 1 <= seat <= n:
        raise OptimizeError(f"seat {seat}: {scenario.path} has seats 1..{n}", "seat")
    if scheduler is not None:
        raise OptimizeError("a seat of a multiplayer game is searched on this machine only "
                            "(no --scheduler)", "scheduler")
    return seat - 1


@contextlib.contextmanager
def _cluster(scheduler: Any, scenario: Scenario):
    """A Dask client for ``scheduler`` (an address, opened and closed here), or None."""
    if scheduler is None or not isinstance(scheduler, str):
        yield scheduler
        return
    try:
        from distributed import Client
    except ImportError:
        raise OptimizeError("a scheduler needs dask.distributed: pip install 'zonesim[dask]'",
                            "scheduler") from None
    if load_ruleset(scenario.ruleset.path).digest() != scenario.ruleset.digest():
        raise OptimizeError(f"the ruleset was changed in memory, so workers cannot reload it "
                            f"from {scenario.ruleset.path}", "scheduler")
    check_scheduler(scheduler)
    client = Client(scheduler)
    try:
        yield client
    finally:
        client.close()


def _search(games: Games, purse: Purse, base: dict, dims, trials: int, budget: int,
            passes: int, progress) -> tuple[_Search, int]:
    """One search on ``games``' selection games, and its first rung (module docstring)."""
    search = _Search(games, purse,
                     {d.key: KeyLog(d.key, base[d.key], base[d.key]) for d in dims})
    rung = first_rung(budget, trials, sum(search.others(d) for d in dims))
    try:
        search.run(dims, rung, budget, passes, progress)
        if search.stopped != "budget":
            search.playoff(rung, budget)
    except KeyboardInterrupt:
        search.stopped = "interrupted"
    return search, rung


def _optimize(scenario: Scenario, objective: Objective, base: dict, dims, trials: int,
              budget: int, fresh_trials: int, passes: int, seed: int, threads: int | None,
              top: int, client: Any, progress, game=None,
              replicate: bool = False) -> Optimization:
    games = Games(scenario.ruleset, base, objective, seed=seed, threads=threads,
                  scheduler=client, game=game)
    purse = Purse.of(scenario.ruleset, base)
    search, rung = _search(games, purse, base, dims, trials, budget, passes, progress)
    again = None
    if replicate and search.stopped != "interrupted":
        again = _search(Games(scenario.ruleset, base, objective, seed=seed,
                              first=selection_games(trials), threads=threads, scheduler=client,
                              game=game), purse, base, dims, trials, budget, passes, None)[0]
        if again.stopped == "interrupted":
            search.stopped = "interrupted"
    winner = search.winner
    fresh = None if search.stopped == "interrupted" else Games(
        scenario.ruleset, base, objective, seed=seed, first=FRESH_FIRST, threads=threads,
        scheduler=client, game=game)
    ranked = _ranked(games, search.seen, winner, objective)
    runner_up = next((r.candidate for r in ranked if not _same_games(games, r.candidate, winner)),
                     None)
    for log in search.logs.values():
        log.best = winner.value(log.key, base)
    return Optimization(
        str(scenario.path), scenario.stalker, objective, seed, trials, budget, fresh_trials,
        games.played,
        winner, base, tuple(search.logs.values()),
        tuple(_top_row(games, r, winner, objective) for r in ranked[:top]),
        None if fresh is None else reevaluate(fresh, winner, runner_up, fresh_trials,
                                              again and (again.winner, again.games)),
        tuple(games.ranges), () if fresh is None else tuple(fresh.ranges), search.passes,
        search.races, search.stopped, purse.money, fresh, first_rung=rung,
        not_searched=tuple(k for k in search.skipped if search.logs[k].raced == 0))


class _Search:
    """The state of one search: the incumbent, every standing seen, the per-key logs."""

    def __init__(self, games: Games, purse: Purse, logs: dict[str, KeyLog]) -> None:
        self.games, self.purse, self.logs = games, purse, logs
        self.winner = Candidate()
        self.seen: dict[Candidate, Standing] = {}
        self.passes = self.races = 0
        self.stopped = "passes"
        self.skipped: list[str] = []
        """Keys whose race the budget left out (in any pass), in order."""

    def _record(self, result) -> None:
        self.races += 1
        for s in result.standings:
            if s.candidate not in self.seen or self.seen[s.candidate].trials <= s.trials:
                self.seen[s.candidate] = s
        self.winner = result.winner
        if result.budget_hit:
            self.stopped = "budget"

    def others(self, dim: Dimension) -> int:
        """The other values of a key at the incumbent: its challengers at most."""
        base = self.games.base
        return len(dim.values_at(self.winner.value(dim.key, base), self.winner.setup(base))) - 1

    def run(self, dims: Sequence[Dimension], trials: int, budget: int, passes: int,
            progress: Callable[[str], None] | None) -> None:
        """Coordinate passes until one changes nothing, ``passes`` are done or the budget is.

        Each race may spend the budget but the first rungs (``trials`` games per other
        value) of the keys after it in the pass; a key whose first rung does not fit is
        skipped, and the pass goes on to the others, then comes back to the skipped keys
        with what the keys after them left (the first rungs set aside are an upper bound:
        some values are unaffordable or play the incumbent's game). A pass in which a race
        was cut short or a key skipped is the last (``stopped="budget"``).
        """
        for self.passes in range(1, passes + 1):
            before = self.winner
            skipped = self._pass(dims, trials, budget, progress)
            skipped = self._pass(skipped, trials, budget, progress) if skipped else []
            self.skipped += [d.key for d in skipped if d.key not in self.skipped]
            if skipped:
                self.stopped = "budget"
            if self.stopped == "budget":
                return
            if self.winner == before:
                self.stopped = "converged"
                return

    def _pass(self, dims: Sequence[Dimension], trials: int, budget: int,
              progress: Callable[[str], None] | None) -> list[Dimension]:
        """Race each key in turn (:meth:`run`); the keys whose first rung did not fit."""
        skipped = []
        for i, dim in enumerate(dims):
            if progress is not None:
                progress(f"pass {self.passes}, {dim.key}: {self.winner.label}")
            reserve = trials * sum(self.others(d) for d in dims[i + 1:])
            result = _race_key(self.games, self.purse, self.winner, dim, self.logs[dim.key],
                               trials, budget - reserve)
            if result is not None and not result.standings:
                skipped.append(dim)
            elif result is not None:
                self._record(result)
        return skipped

    def playoff(self, trials: int, budget: int) -> None:
        """Race the :data:`PLAYOFF` best again, from a coordinate race's last rung on.

        Up to ``2**PLAYOFF_RUNGS`` times as many games, all of the selection's.
        """
        games = self.games
        ranked = _ranked(games, self.seen, self.winner, games.objective)
        rivals = [r.candidate for r in ranked[1:] if not _same_games(games, r.candidate,
                                                                     self.winner)
                  and not clearly_worse(games.objective, _versus(games, r.candidate,
                                                                 self.winner))][:PLAYOFF - 1]
        if not rivals:
            return
        cap = trials * 2 ** (RUNGS - 1)
        result = race(games, self.winner, rivals, trials=cap,
                      cap=cap * 2 ** PLAYOFF_RUNGS, budget=budget)
        if result.standings:
            self._record(result)


def convergence(fresh: Mapping) -> str | None:
    """How far the search is from converged, in words, from a reevaluation's ``replicate``.

    The second search's best (other selection games, the same budget) on the same fresh
    games: the same policy, or its win rate minus the best's, paired, with its interval
    (a difference beyond noise: the budget is too small for the best to be trusted to
    within it). None without a replicate.
    """
    r = fresh.get("replicate")
    if r is None:
        return None
    if r["same_policy"]:
        return (f"converged: a second search on other selection games ({r['played']:,} games) "
                "found the same policy")
    d = r["vs_winner"]
    beyond = d["diff_ci_low"] > 0 or d["diff_ci_high"] < 0
    return (f"{'not converged' if beyond else 'converged within noise'}: a second search on "
            f"other selection games ({r['played']:,} games) found {r['winner']}, "
            f"{_cell(r['estimate'])}; minus the best: {_diff(d)}")


def _cell(c: dict) -> str:
    return f"{c['mc']:.4f} ({c['ci_low']:.4f} to {c['ci_high']:.4f})"


def _diff(d: dict) -> str:
    return f"{d['diff']:+.4f} ({d['diff_ci_low']:+.4f} to {d['diff_ci_high']:+.4f})"


def _race_key(games: Games, purse: Purse, incumbent: Candidate, dim: Dimension, log: KeyLog,
              trials: int, budget: int):
    """Race every other value of one key against the incumbent (None: nothing to race).

    A value whose loadout the starting money cannot pay for is never proposed.
    """
    challengers = []
    for value in dim.values_at(incumbent.value(dim.key, games.base),
                               incumbent.setup(games.base)):
        c = purse.settle(incumbent.with_value(dim.key, value, games.base))
        if c is None:
            log.unaffordable += 1
            continue
        if c == incumbent:
            continue
        try:
            digest = games.digest(c)
        except CompareInputError:  # e.g. more artefacts than slots (P-07)
            log.refused += 1
            continue
        if digest == games.digest(incumbent):
            log.unchanged += 1
            continue
        challengers.append(c)
    if not challengers:
        return None
    result = race(games, incumbent, challengers, trials=trials, cap=trials * 2 ** (RUNGS - 1),
                  budget=budget)
    if not result.standings:  # not even the first rung fits in the budget
        return result
    log.raced += len(challengers)
    log.same += sum(st.dropped == DROPPED_SAME for st in result.standings)
    chosen = result.winner.value(dim.key, games.base)
    others = [st for st in result.standings if st.candidate.value(dim.key, games.base) != chosen]
    if others:  # the best other value: longest played, then by estimate
        sign = games.objective.sign
        other = max(others, key=lambda st: (st.trials, sign * st.mc))
        n = other.trials
        log.evidence = {"other": other.candidate.value(dim.key, games.base), "trials": n,
                        **paired(games.play(other.candidate, n)[:, 0],
                                 games.play(result.winner, n)[:, 0])}
    return result


def _ranked(games: Games, seen: dict[Candidate, Standing], winner: Candidate,
            objective: Objective) -> list[Standing]:
    """The candidates seen, one per compiled game: longest played first, then by estimate."""
    out, digests = [], set()
    order = sorted(seen.values(), key=lambda s: (s.candidate != winner, -s.trials,
                                                 -objective.sign * s.mc))
    for s in order:
        d = games.digest(s.candidate)
        if d not in digests:
            digests.add(d)
            out.append(s)
    return out


def _same_games(games: Games, a: Candidate, b: Candidate) -> bool:
    """Whether two candidates' selection games gave equal values wherever both played."""
    n = min(games.have(a), games.have(b))
    return bool((games.play(a, n) == games.play(b, n)).all())


def _versus(games: Games, a: Candidate, b: Candidate) -> dict:
    """The paired difference ``a - b`` of the metric on the games both have played."""
    n = min(games.have(a), games.have(b))
    return {**paired(games.play(a, n)[:, 0], games.play(b, n)[:, 0]), "diff_trials": n}


def _top_row(games: Games, s: Standing, winner: Candidate, objective: Objective) -> dict:
    """A candidate's row: its own estimate, and its paired difference to the winner."""
    row = {**standing_row(s), **_versus(games, s.candidate, winner)}
    row["same_games"] = _same_games(games, s.candidate, winner)
    return row


def reevaluate(fresh: Games, winner: Candidate, runner_up: Candidate | None,
               trials: int, replicate: tuple[Candidate, Games] | None = None) -> dict:
    """The winner, the scenario's policy, the naive one and the runner-up, paired.

    All on ``fresh``'s games; the naive policy is :data:`~sim.workflows.policy_space.NAIVE`.
    ``replicate``: the winner of a second search on other selection games, and those games;
    ``replicate`` in the result gives its fresh estimate and its paired difference to the
    winner (:func:`convergence`).
    """
    objective = fresh.objective
    x_win = fresh.play(winner, trials)
    x_base = fresh.play(Candidate(), trials)
    plain = naive(fresh.base)
    x_naive = fresh.play(plain, trials)
    out = {"trials": trials, "first_trial": fresh.first, "winner": winner.label,
           "winner_estimate": cell(objective.metric, x_win[:, 0]),
           "scenario_estimate": cell(objective.metric, x_base[:, 0]),
           "vs_scenario": paired(x_win[:, 0], x_base[:, 0]),
           "naive": plain.label, "naive_estimate": cell(objective.metric, x_naive[:, 0]),
           "skill_gap": paired(x_win[:, 0], x_naive[:, 0]),
           "runner_up": None, "runner_up_estimate": None, "runner_up_vs_winner": None}
    if runner_up is not None:
        x_up = fresh.play(runner_up, trials)
        out.update(runner_up=runner_up.label,
                   runner_up_estimate=cell(objective.metric, x_up[:, 0]),
                   runner_up_vs_winner=paired(x_up[:, 0], x_win[:, 0]))
    if replicate is not None:
        other, games = replicate
        x_other = fresh.play(other, trials)
        out["replicate"] = {"winner": other.label, "same_policy": other == winner,
                            "estimate": cell(objective.metric, x_other[:, 0]),
                            "vs_winner": paired(x_other[:, 0], x_win[:, 0]),
                            "played": games.played,
                            "selection_trials": [list(r) for r in games.ranges]}
    c = objective.constraint
    if c is not None:
        con = objective.constraint_cell(x_win)
        out["constraint"] = {"target": str(c), **con,
                             "verdict": c.judge(con["mc"], con["ci_low"], con["ci_high"])}
    return out


__all__ = ["BUDGET", "FRESH_FIRST", "FRESH_POLICIES", "FRESH_TRIALS", "MAX_BUDGET",
           "MAX_FRESH_TRIALS", "METRIC", "MIN_RUNG", "NOT_SEARCHED", "PASSES", "PLAYOFF",
           "PLAYOFF_RUNGS", "RUNGS", "SAME_GAMES", "SEAT_METRIC", "TRIALS", "KeyLog",
           "OptimizeError", "Optimization", "check_games", "convergence", "first_rung",
           "most_games",
           "objective_of", "optimize", "reevaluate", "selection_games"]
