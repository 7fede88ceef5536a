"""The fewest card edits that meet every balance target: the library of ``zonesim rebalance``.

A designer names targets (``p_sarcophagus in 0.40..0.50``, ``character_spread <= 0.05``,
``combat:Chimera:knocked_out <= 0.8``) and the values that may move (lever patterns such as
``stalkers.*.health``); :func:`rebalance` proposes a small set of card and rule edits (at
most ``max_edits``) that meets them, with honest intervals (issue 48).

**Targets.** Three kinds, one grammar (:mod:`sim.workflows.targets`):

- a per-game campaign metric of the scenario's stalker
  (:data:`~sim.experiments.campaign_paired.CAMPAIGN_METRICS`) or a statistic of the days to
  the Sarcophagus (``days.median``);
- a balance metric (:data:`~sim.experiments.campaign_metrics.BALANCE_METRICS`):
  ``character_spread``, every stalker card playing the scenario's loadout and policy (his
  own card's money) on the same games, the best minus the worst win rate, its interval the
  paired one of the two characters' per-game wins; of a multiplayer scenario
  ``seat_spread`` (the best minus the worst seat) and ``p_nobody_wins``;
- an encounter metric of a named card, ``combat:CARD:METRIC``: the scenario's stalker,
  loadout and fight policy against that enemy card, its exact value (the Markov chain of
  :mod:`sim.exact.combat`), no Monte Carlo.

**Ranking.** An edit set is ranked by (1) the targets it does not meet (a target is met when
its whole 95 % interval lies in the band; an exact value when it lies in the band), (2) the
total distance of its estimates outside the bands, (3) its number of edits, (4) the sum of
its edits' sizes, each relative to its lever's range (the domain of its setting,
:mod:`sim.rules.settings`): :func:`rank_key`.

**Search.** Every lever (:func:`sim.workflows.levers.find_levers`, filtered by the patterns)
is moved one step down and up, as ``zonesim levers`` moves it (*screening*): a move whose
compiled games equal the unchanged game's is inert and never played, one the rules or the
compile step refuse is skipped and listed. The one-step effects predict, linearly, the
targets of any set of moves; the best predicted sets of 1 to ``max_edits`` edits over the
most useful levers (:data:`PROPOSALS` in all, with the best screened moves) are then raced
by *successive halving* on common random numbers: every set plays games ``0 .. n - 1`` of
the same seed, ranked by :func:`rank_key` after each rung, the better half going on to
twice the games, until two are left or the budget is spent.

**Under best play.** With ``play="best"`` the last rung's :data:`FINALISTS` are judged again
with the policy and loadout searched for the edited cards (``zonesim optimize``'s search,
:func:`sim.workflows.optimize.optimize`, for each character a target needs), on games from
:data:`JUDGE_FIRST`, and ranked there.

**Honest numbers.** The chosen set, the runner-up, the Pareto alternatives (fewer edits
meeting fewer targets) and the unchanged game are played again on ``fresh_trials`` games
from :data:`FRESH_FIRST` (no trial index of the screening, the halving, the best-play
judging or of optimize's own searches), paired; only those numbers and verdicts are
reported, and a target the selection met that fails on the fresh games is named. The chosen
set and the unchanged game are also judged under the other play (under the scenario's play a
smaller best-play search, :func:`best_budget`), so a fix for the scenario's bot is seen to
hold, or not, for a good player.

Every number depends on the ruleset, the scenario, the targets, the levers, the budget and
the seed only, never on the thread count (the kernels' sums are exact integers).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sim.campaign.compile import CampaignInputError
from sim.campaign.players import compile_game
from sim.errors import InputError
from sim.experiments import campaign_metrics as M
from sim.experiments.base import Case, CompareInputError, Metric
from sim.experiments.campaign import game_blocks
from sim.experiments.campaign_paired import (
    CAMPAIGN_METRICS,
    compile_cases,
    scenario_setup,
    trial_metrics,
    trial_values,
)
from sim.experiments.combat import COMBAT_METRICS, combat_inputs
from sim.experiments.setups import base_setup
from sim.rules import Ruleset, settings
from sim.rules.scenario import Scenario
from sim.rules.tomlfile import suggest
from sim.rules.variants import VariantError, apply_edits, format_value
from sim.workflows.best_characters import search_budget
from sim.workflows.levers import Lever, find_levers
from sim.workflows.optimize import FRESH_FIRST as OPTIMIZE_FRESH
from sim.workflows.optimize import optimize
from sim.workflows.race import DAY_METRICS, Objective, cell, game_digest, paired
from sim.workflows.targets import FAIL, PASS, Target, TargetError, checked, parse_target

JUDGE_FIRST = 2**61
"""First trial index of the finalists' games under best play (selection games, above the
screening's and the halving's, below optimize's fresh games)."""
FRESH_FIRST = OPTIMIZE_FRESH + 2**61
"""First trial index of the reported games: above every index the selection plays, and
above optimize's own fresh games (:data:`sim.workflows.optimize.FRESH_FIRST`)."""
BUDGET = 2_000_000
"""Games the selection (screening and halving) may play in all, by default."""
FRESH_TRIALS = 50_000
"""Fresh games per character of each reported edit set, by default."""
MAX_EDITS = 3
"""Edits of a set at most, by default."""
SCREEN_SHARE = 0.4
"""The share of the budget the screening may spend."""
SCREEN_TRIALS = (200, 2000)
"""Games per character of a screened move: at least, at most."""
RUNGS = 5
"""Rungs of the halving at most (the last plays ``2**(RUNGS - 1)`` times the first's games)."""
PROPOSALS = 24
"""Edit sets raced by the halving (besides the unchanged game)."""
BEAM = 12
"""Sets of each number of edits kept by the beam search of the proposals."""
TARGETED = 2
"""Moves kept per coordinate of the model and direction (:meth:`_Search._targeted`)."""
STEPS = 8
"""Steps each way a lever may move in a proposed set."""
FINALISTS = 3
"""Sets judged again under best play (``play="best"``)."""
PLAYS = ("scenario", "best")
"""How the player plays: the scenario's policy and loadout, or the best found for the edited
cards (``zonesim optimize``'s search)."""
ENCOUNTERS = {"combat": COMBAT_METRICS}
"""The encounters a target may name (``combat:CARD:METRIC``) and their metrics: exact values."""
ALL_SEATS = "all seats"
"""The one "character" of a multiplayer scenario's games: every seat as the scenario has it."""
INTERRUPTED = "interrupted"
""":attr:`Rebalance.stopped` after Ctrl-C: the best so far, not re-evaluated."""


class RebalanceError(InputError):
    """Targets, levers or options ``rebalance`` cannot run with (exit status 2; ``field`` names
    the option: ``target``, ``lever``, ``max_edits``, ``budget``, ``play``).
    """


# ---------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class Goal:
    """One target and how it is measured.

    Attributes
    ----------
    target : Target
        The band (its ``metric`` is the full name: ``combat:Chimera:knocked_out``).
    kind : str
        ``game`` (a per-game metric of the scenario's stalker), ``days`` (a days statistic),
        ``character_spread``, ``seat_spread``, ``p_nobody_wins`` or ``encounter``.
    metric : Metric
        The declaration of the measured metric (an encounter's own metric for ``encounter``).
    card : str or None
        The encounter's card.
    """

    target: Target
    kind: str
    metric: Metric
    card: str | None = None

    @property
    def exact(self) -> bool:
        """Whether the value is exact (an encounter's), with no interval."""
        return self.kind == "encounter"

    @property
    def name(self) -> str:
        """The metric as written in the target."""
        return self.target.metric

    def __str__(self) -> str:
        return str(self.target)


_ENCOUNTER = re.compile(r"^\s*([a-z]+):(.+?):([A-Za-z_]\w*)\s*(.*)$")
GAME_METRICS = {m.name: m for m in CAMPAIGN_METRICS}
BALANCE = {m[0]: Metric(*m) for m in M.BALANCE_METRICS}


def parse_goal(text: str, scenario: Scenario) -> Goal:
    """The :class:`Goal` a target text names (``METRIC in A..B``, ``<= X``, ``>= X``).

    Raises
    ------
    RebalanceError
        (field ``target``) A text that does not parse, an unknown metric, encounter or card,
        a bound the metric cannot take, a multiplayer metric of a one-stalker scenario.
    """
    try:
        if m := _ENCOUNTER.match(text):
            return _encounter_goal(text, m, scenario)
        target = parse_target(text)
        name = target.metric
        if name in BALANCE:
            if name == M.CHARACTER_SPREAD and scenario.multiplayer:
                raise RebalanceError(f"target {text!r}: {name} of a multiplayer scenario is "
                                     "not measured here yet (zonesim balance characters "
                                     "gives it)", "target")
            if name in M.MULTIPLAYER_ONLY and not scenario.multiplayer:
                raise RebalanceError(f"target {text!r}: {name} needs a multiplayer scenario "
                                     f"({scenario.name} has one stalker)", "target")
            return Goal(checked(target, BALANCE[name]), name, BALANCE[name])
        if name in GAME_METRICS:
            return Goal(checked(target, GAME_METRICS[name]), "game", GAME_METRICS[name])
        if name in DAY_METRICS:
            return Goal(checked(target, Metric(name)), "days", Metric(name, "mean"))
        known = [*GAME_METRICS, *DAY_METRICS, *BALANCE]
        raise RebalanceError(f"target {text!r}: unknown metric {name!r}{suggest(name, known)} "
                             "(a campaign metric, a balance metric or ENCOUNTER:CARD:METRIC, "
                             "e.g. combat:Chimera:knocked_out)", "target")
    except TargetError as error:
        raise RebalanceError(str(error), "target") from None


def _encounter_goal(text: str, m: re.Match, scenario: Scenario) -> Goal:
    kind, card, name, rest = m.groups()
    if kind not in ENCOUNTERS:
        raise RebalanceError(f"target {text!r}: unknown encounter {kind!r}"
                             f"{suggest(kind, ENCOUNTERS)} (known: {', '.join(ENCOUNTERS)})",
                             "target")
    cards = scenario.ruleset.enemies
    if card not in cards:
        raise RebalanceError(f"target {text!r}: {card!r} is not an enemy card"
                             f"{suggest(card, cards)}", "target")
    metrics = {x.name: x for x in ENCOUNTERS[kind]}
    if name not in metrics:
        raise RebalanceError(f"target {text!r}: {name!r} is not a {kind} metric"
                             f"{suggest(name, metrics)} (known: {', '.join(metrics)})", "target")
    inner = checked(parse_target(f"{name} {rest}"), metrics[name])
    full = f"{kind}:{card}:{name}"
    return Goal(replace(inner, metric=full, text=text.strip()), "encounter", metrics[name], card)


def scenario_goals(scenario: Scenario) -> list[str]:
    """The scenario's ``[targets]`` as target texts (``metric in low..high``)."""
    return [f"{metric} in {low:g}..{high:g}" for metric, (low, high) in scenario.targets.items()]


def parse_goals(texts: Iterable[str], scenario: Scenario) -> tuple[Goal, ...]:
    """Every target of ``texts`` (:func:`parse_goal`), checked against each other.

    Raises
    ------
    RebalanceError
        (field ``target``) Any target :func:`parse_goal` refuses; no target; two targets on
        one metric whose bands do not meet (``p_sarcophagus <= 0.3`` and ``>= 0.5``).
    """
    goals = tuple(parse_goal(t, scenario) for t in texts)
    if not goals:
        raise RebalanceError(f"no target: give --target, or a [targets] table in "
                             f"{scenario.path}", "target")
    by_metric: dict[str, Goal] = {}
    for goal in goals:
        other = by_metric.setdefault(goal.name, goal)
        t, u = goal.target, other.target
        if max(t.low, u.low) > min(t.high, u.high):
            raise RebalanceError(f"targets {str(u)!r} and {str(t)!r} contradict each other: no "
                                 f"value of {goal.name} meets both", "target")
    return goals


# ---------------------------------------------------------------------------- levers


def _ranges() -> dict[str, tuple[float, float]]:
    """Each lever setting's domain ``lo..hi`` (the first range its words give)."""
    out = {}
    for s in settings.of_kind():
        m = re.search(r"(-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)", str(s.domain))
        if m and not isinstance(s.lever, str):
            out[s.name] = (float(m.group(1)), float(m.group(2)))
    return out


def lever_range(lever: Lever, ranges: Mapping[str, tuple[float, float]]) -> tuple[float, float]:
    """The domain of a lever's setting (``stalkers.health``: ``1..30``)."""
    key = f"{lever.card}.{lever.column}" if lever.table == "rules" else \
        f"{lever.table}.{lever.column}"
    return ranges.get(key, (-math.inf, math.inf))


def select_levers(rs: Ruleset, patterns: Sequence[str] | None) -> list[Lever]:
    """The levers the patterns match (default: every one ``zonesim levers`` moves).

    A pattern is a shell-style pattern over ``table.card.column`` (``stalkers.*.health``,
    ``enemies.Bloodsucker.*``, ``items.*.price``, ``rules.economy.*``).

    Raises
    ------
    RebalanceError
        (field ``lever``) A pattern that matches no lever (naming its table when unknown).
    """
    levers = find_levers(rs)
    if not patterns:
        return levers
    chosen: dict[str, Lever] = {}
    for pattern in patterns:
        hits = [lv for lv in levers if fnmatch.fnmatchcase(lv.path, pattern)]
        if not hits:
            tables = sorted({lv.table for lv in levers})
            table = pattern.partition(".")[0]
            hint = (f" (unknown table {table!r}{suggest(table, tables)}; known: "
                    f"{', '.join(tables)})" if not any(fnmatch.fnmatchcase(t, table)
                                                     for t in tables) else "")
            raise RebalanceError(f"lever pattern {pattern!r} matches no numeric card value or "
                                 f"rule key{hint}", "lever")
        chosen.update((lv.path, lv) for lv in hits)
    return list(chosen.values())


@dataclass(frozen=True)
class Move:
    """One lever moved ``steps`` steps (negative: down)."""

    lever: Lever
    steps: int

    @property
    def value(self) -> int | float:
        """The lever's value after the move."""
        return self.lever.value(self.steps)

    @property
    def edit(self) -> str:
        """The edit text (``table.card.column=value``)."""
        return self.lever.edit(self.steps)


@dataclass(frozen=True)
class EditSet:
    """Moves of distinct levers, in lever-path order; ``()`` is the unchanged game."""

    moves: tuple[Move, ...] = ()

    @staticmethod
    def of(moves: Iterable[Move]) -> EditSet:
        """The set of ``moves``, in lever-path order (equal sets compare equal)."""
        return EditSet(tuple(sorted(moves, key=lambda m: m.lever.path)))

    @property
    def edits(self) -> tuple[str, ...]:
        """The edit texts."""
        return tuple(m.edit for m in self.moves)

    @property
    def label(self) -> str:
        """The edits joined by ``; `` (``unchanged`` for none)."""
        return "; ".join(self.edits) or "unchanged"

    def __len__(self) -> int:
        return len(self.moves)

    def size(self, ranges: Mapping[str, tuple[float, float]]) -> float:
        """Sum of the moves' sizes, each relative to its lever's range."""
        total = 0.0
        for m in self.moves:
            lo, hi = lever_range(m.lever, ranges)
            width = hi - lo if math.isfinite(hi - lo) and hi > lo else abs(m.lever.step) * 20
            total += abs(m.value - m.lever.current) / width
        return total

    def changes(self) -> list[dict]:
        """``{"file", "card", "column", "path", "old", "new"}`` per edit."""
        out = []
        for m in self.moves:
            lv = m.lever
            out.append({"file": "rules.toml" if lv.table == "rules" else f"{lv.table}.csv",
                        "card": lv.card, "column": lv.column, "path": lv.path,
                        "old": lv.current, "new": m.value})
        return out


# ---------------------------------------------------------------------------- games


class Store:
    """Games of edit sets: each character's per-game values, on common random numbers.

    Game ``t`` of every edit set and character plays the streams of ``(seed, first + t)``;
    an edit set's ruleset and each compiled game are made once, and games that compile
    alike (:func:`~sim.workflows.race.game_digest`) share their values. :attr:`ranges`
    records every kernel call's ``(first, count)``.
    """

    def __init__(self, scenario: Scenario, columns: Sequence[str], *, seed: int, first: int,
                 threads: int | None = None) -> None:
        self.scenario, self.columns = scenario, tuple(columns)
        self.seed, self.first, self.threads = seed, first, threads
        self.base = {} if scenario.multiplayer else scenario_setup(scenario)
        self.played = 0
        self.ranges: list[tuple[int, int]] = []
        self._rules: dict[tuple[str, ...], Ruleset] = {}
        self._digests: dict[tuple, str] = {}
        self._arrays: dict[str, Any] = {}
        self._values: dict[str, np.ndarray] = {}
        self._known: dict = {}
        self._exact: dict[tuple, float] = {}

    def ruleset(self, edits: tuple[str, ...]) -> Ruleset:
        """The scenario's ruleset with ``edits`` (a :class:`VariantError` if refused)."""
        if edits not in self._rules:
            self._rules[edits] = apply_edits(self.scenario.ruleset, edits)
        return self._rules[edits]

    def exact(self, edits: tuple[str, ...], goal: Goal) -> float:
        """An encounter target's exact value with ``edits`` (:func:`encounter_value`): solved
        once per compiled fight (edits that leave the fight's inputs alike share it).
        """
        rs = self.ruleset(edits)
        case = Case(rs, base_setup("combat", replace(self.scenario, ruleset=rs), goal.card))
        args, _, _ = combat_inputs([case], exact=False)
        h = hashlib.sha256()
        for a in args:
            h.update(f"{a.dtype}{a.shape}".encode() + np.ascontiguousarray(a).tobytes())
        key = (h.hexdigest(), goal.name)
        if key not in self._exact:
            self._exact[key] = encounter_value(rs, self.scenario, goal)
        return self._exact[key]

    def setup(self, character: str, policy: tuple = ()) -> dict:
        """The ``campaign`` setup of ``character`` with the scenario's (or ``policy``'s) play."""
        return {**self.base, "stalker": character, **dict(policy)}

    def digest(self, edits: tuple[str, ...], character: str, policy: tuple = ()) -> str:
        """The digest of the compiled game (compiled on first use; a
        :class:`CompareInputError` if the game cannot be set up).
        """
        key = (edits, character, policy)
        if key not in self._digests:
            if self.scenario.multiplayer:
                arrays = _compile_game(replace(self.scenario, ruleset=self.ruleset(edits)))
            else:
                (arrays,) = compile_cases([Case(self.ruleset(edits),
                                                self.setup(character, policy))])
            d = game_digest(arrays, self._known)
            self._arrays.setdefault(d, arrays)
            self._digests[key] = d
        return self._digests[key]

    def values(self, edits: tuple[str, ...], character: str, n: int,
               policy: tuple = ()) -> np.ndarray:
        """Per-game values (columns :attr:`columns`) of games ``0 .. n - 1``."""
        d = self.digest(edits, character, policy)
        held = self._values.get(d, np.empty((0, len(self.columns)), np.int64))
        if len(held) < n:
            first = self.first + len(held)
            more = _values(self._arrays[d], self.columns, seed=self.seed, first=first,
                           trials=n - len(held), threads=self.threads)
            self.ranges.append((first, n - len(held)))
            self.played += n - len(held)
            held = np.concatenate([held, more])
            self._values[d] = held
        return held[:n]


def seat_column(seat: int) -> str:
    """The column of seat ``seat``'s (from 0) win in a multiplayer game's values."""
    return f"{M.SEAT_WIN}:{seat}"


def _values(arrays, columns: Sequence[str], **games) -> np.ndarray:
    """Per-game values of ``columns``: campaign metrics (seat 1's in a multiplayer game) and
    each seat's win (:func:`seat_column`), from one play of the games.
    """
    if not any(":" in c for c in columns):
        return trial_values(arrays, columns, **games)
    out = np.empty((games["trials"], len(columns)), dtype=np.int64)
    for lo, _, rows in game_blocks([arrays], seed=games["seed"], trials=games["trials"],
                                   first=games["first"], threads=games["threads"]):
        for i, name in enumerate(columns):
            metric, _, seat = name.partition(":")
            out[lo:lo + len(rows), i] = trial_metrics(rows, [metric], int(seat or 0))[:, 0]
    return out


def _compile_game(scenario: Scenario):
    """A multiplayer scenario's game (a :class:`CompareInputError` if it cannot be set up)."""
    try:
        return compile_game(scenario)
    except CampaignInputError as error:
        raise CompareInputError(str(error)) from None


# ---------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class Judge:
    """What the targets need: the per-game columns, the characters, the encounters' setups."""

    goals: tuple[Goal, ...]
    scenario: Scenario

    @property
    def columns(self) -> tuple[str, ...]:
        """The per-game values kept: the win, then each target's."""
        names = [M.WIN_RATE]
        for g in self.goals:
            if g.kind in M.MULTIPLAYER_ONLY:
                names += [seat_column(i) for i in range(len(self.scenario.players))]
            elif g.kind == "game":
                names.append(g.name)
            elif g.kind == "days":
                names += [M.GAME_DAYS, M.WIN_RATE]
        return tuple(dict.fromkeys(names))

    @property
    def characters(self) -> tuple[str, ...]:
        """The scenario's stalker first, then every other card when a spread is a target."""
        first = self.scenario.stalker
        if self.scenario.multiplayer:
            return (ALL_SEATS,) if self.monte_carlo else ()
        if not any(g.kind == M.CHARACTER_SPREAD for g in self.goals):
            return (first,) if self.monte_carlo else ()
        return (first, *(c for c in self.scenario.ruleset.stalkers if c != first))

    @property
    def monte_carlo(self) -> bool:
        """Whether any target needs games (an encounter's is exact)."""
        return any(not g.exact for g in self.goals)

    def measure(self, store: Store, edit_set: EditSet, n: int,
                policies: Mapping[str, tuple] | None = None) -> dict:
        """Each target's estimate on games ``0 .. n - 1`` of ``store``: ``{"cells": [...],
        "games": {goal name: per-game values or None}}``; each cell has ``mc``, ``ci_low``,
        ``ci_high``, ``verdict``, ``distance`` and ``exact``.
        """
        policies = policies or {}
        edits = edit_set.edits
        x = {c: store.values(edits, c, n, policies.get(c, ())) for c in self.characters}
        col = {name: i for i, name in enumerate(self.columns)}
        cells, games = [], {}
        for g in self.goals:
            per_game = None
            if g.kind == "encounter":
                value = store.exact(edits, g)
                c = {"mc": value, "ci_low": value, "ci_high": value}
            elif g.kind == "game":
                per_game = x[self.characters[0]][:, col[g.name]]
                c = cell(g.metric, per_game)
            elif g.kind == "days":
                c = days_cell(x[self.characters[0]], col, g)
            elif g.kind == M.NOBODY_WINS:
                seats = x[ALL_SEATS][:, [col[seat_column(i)] for i in
                                         range(len(self.scenario.players))]]
                per_game = (seats.sum(axis=1) == 0).astype(np.int64)
                c = cell(g.metric, per_game)
            elif g.kind == M.SEAT_SPREAD:
                n_seats = len(self.scenario.players)
                wins = {f"seat {i + 1}": x[ALL_SEATS][:, col[seat_column(i)]]
                        for i in range(n_seats)}
                per_game, c = _spread(wins)
            else:  # character_spread
                wins = {ch: x[ch][:, col[M.WIN_RATE]] for ch in self.characters}
                per_game, c = _spread(wins)
            cells.append(finish_cell(g, c))
            games[g.name] = per_game
        return {"cells": cells, "games": games}


def _spread(wins: Mapping[str, np.ndarray]) -> tuple[np.ndarray, dict]:
    """The best minus the worst of per-game wins: per game, and its paired cell."""
    top = max(wins, key=lambda k: (wins[k].mean(), k))
    low = min(wins, key=lambda k: (wins[k].mean(), k))
    d = paired(wins[top], wins[low])
    return wins[top] - wins[low], {"mc": d["diff"], "ci_low": d["diff_ci_low"],
                                   "ci_high": d["diff_ci_high"], "best": top, "worst": low}


def finish_cell(goal: Goal, c: dict) -> dict:
    """A target's cell with its verdict, its distance outside the band and ``exact``."""
    t = goal.target
    low, high = (c["mc"], c["mc"]) if goal.exact else (c["ci_low"], c["ci_high"])
    verdict = t.judge(c["mc"], low, high)
    distance = max(0.0, t.low - c["mc"], c["mc"] - t.high)
    return {"target": str(t), **c, "verdict": verdict, "distance": distance,
            "exact": goal.exact}


def days_cell(x: np.ndarray, col: Mapping[str, int], goal: Goal) -> dict:
    """A days statistic over the games that won, as ``zonesim optimize``'s constraints take it
    (:meth:`sim.workflows.race.Objective.constraint_cell`).
    """
    objective = Objective(GAME_METRICS[M.WIN_RATE], goal.target)
    return objective.constraint_cell(x[:, [col[c] for c in objective.columns]])


def encounter_value(rs: Ruleset, scenario: Scenario, goal: Goal) -> float:
    """The exact value of an encounter target: the scenario's stalker, loadout and fight
    policy against the card (:func:`sim.experiments.combat.combat_inputs`' exact twin).
    """
    setup = base_setup("combat", replace(scenario, ruleset=rs), goal.card)
    _, exact, _ = combat_inputs([Case(rs, setup)])
    names = [m.name for m in COMBAT_METRICS]
    return float(exact[0, names.index(goal.metric.name)])


def met(cells: Sequence[dict]) -> int:
    """Targets met (``PASS``)."""
    return sum(c["verdict"] == PASS for c in cells)


def rank_key(cells: Sequence[dict], edit_set: EditSet,
             ranges: Mapping[str, tuple[float, float]]) -> tuple:
    """The issue's order: targets not met, total distance outside the bands, edits, size."""
    missed = len(cells) - met(cells)
    distance = sum(0.0 if math.isnan(c["distance"]) else c["distance"] for c in cells)
    return (missed, round(distance, 12), len(edit_set), round(edit_set.size(ranges), 12),
            edit_set.label)


# ---------------------------------------------------------------------------- search


@dataclass
class Standing:
    """An edit set's measure on its last rung."""

    edit_set: EditSet
    trials: int
    cells: list[dict]
    key: tuple
    dropped: str | None = None


@dataclass(frozen=True)
class Rebalance:
    """Result of :func:`rebalance`.

    Attributes
    ----------
    scenario : str
        The scenario file.
    goals : tuple of Goal
    play : str
        ``scenario`` or ``best``.
    seed, budget, fresh_trials, max_edits : int
    levers : int
        Levers searched.
    screened, inert : int
        Moves played in the screening; moves whose games equal the unchanged game's.
    skipped : tuple of dict
        Moves and sets the rules or the compile step refuse: ``edit``, ``reason``,
        ``refused_by``.
    standings : tuple of Standing
        Every set the halving raced, best first (selection numbers).
    chosen, runner_up : EditSet or None
    fresh : dict or None
        The reported numbers (:func:`_fresh`); None when interrupted.
    played : int
        Games of the selection.
    selection_ranges, fresh_ranges : tuple of (int, int)
        Every kernel call's trial range.
    stopped : str
        ``done``, ``budget`` or :data:`INTERRUPTED`.
    wall_s : float
    """

    scenario: str
    goals: tuple[Goal, ...]
    play: str
    seed: int
    budget: int
    fresh_trials: int
    max_edits: int
    levers: int
    screened: int
    inert: int
    skipped: tuple[dict, ...]
    standings: tuple[Standing, ...]
    chosen: EditSet | None
    runner_up: EditSet | None
    pareto: tuple[EditSet, ...]
    fresh: dict | None
    played: int
    selection_ranges: tuple[tuple[int, int], ...]
    fresh_ranges: tuple[tuple[int, int], ...]
    stopped: str
    wall_s: float = 0.0
    best_play: dict = field(default_factory=dict)

    @property
    def all_met(self) -> bool:
        """Whether the chosen set meets every target on the fresh games (on the selection's
        when interrupted).
        """
        if self.fresh is not None:
            return all(c["verdict"] == PASS for c in self.fresh["chosen"][self.play])
        return bool(self.standings) and all(c["verdict"] == PASS
                                            for c in self.standings[0].cells)

    def to_dict(self) -> dict:
        """JSON document: provenance, the chosen edits, the fresh numbers, every finalist."""
        return {
            "scenario": self.scenario, "targets": [str(g) for g in self.goals],
            "play": self.play, "seed": self.seed, "budget": self.budget,
            "fresh_trials": self.fresh_trials, "max_edits": self.max_edits,
            "levers": self.levers, "screened": self.screened, "inert": self.inert,
            "played": self.played, "stopped": self.stopped, "wall_s": self.wall_s,
            "all_met": self.all_met,
            "chosen": None if self.chosen is None else self.chosen.changes(),
            "runner_up": None if self.runner_up is None else self.runner_up.changes(),
            "pareto": [s.changes() for s in self.pareto],
            "fresh": self.fresh, "finalists": self.rows(),
            "skipped": list(self.skipped),
            "selection_ranges": [list(r) for r in self.selection_ranges],
            "fresh_ranges": [list(r) for r in self.fresh_ranges],
        }

    def lines(self) -> list[str]:
        """The first screen: the edits, each target before -> after under both plays (fresh
        games), the runner-up, the Pareto alternatives, what was skipped.
        """
        if self.chosen is None:
            return ["no edit set was measured"]
        head = "chosen edits" if self.all_met else "closest edits (not every target is met)"
        out = [f"{head}:", *change_lines(self.chosen)]
        if self.fresh is None:
            top = self.standings[0]
            out.append(f"interrupted: the best so far on {top.trials:,} games of the "
                       "selection; NOT re-evaluated on fresh games")
            out += [f"  {c['target']}: {cell_text(c)}" for c in top.cells]
            return out
        f = self.fresh
        out.append("targets, before -> after, exact values (no game played):"
                   if all(g.exact for g in self.goals) else
                   f"targets, before -> after, on {f['trials']:,} fresh games per character "
                   f"(trials from {f['first_trial']}, none of the selection's); 95 % "
                   "intervals; change paired:")
        for play, cells in f["plays"].items():
            out.append(f"  under {PLAY_WORDS[play]}:")
            for b, a in zip(cells["before"], cells["after"], strict=True):
                out.append(f"    {a['target']}: {cell_text(b)} -> {cell_text(a)}; change "
                           f"{diff_text(a)}")
        out += [f"  note: {w}" for w in f["warnings"]]
        where = "(exact)" if all(g.exact for g in self.goals) else "on fresh games"
        for s in f["sets"]:
            if s["role"] in ("unchanged", "chosen"):
                continue
            n = sum(c["verdict"] == PASS for c in s["cells"])
            role = "Pareto alternative" if s["role"].startswith("pareto") else s["role"]
            out.append(f"{role} ({len(s['changes'])} edit"
                       f"{'s' if len(s['changes']) != 1 else ''}, {n} of {len(s['cells'])} "
                       f"targets met {where}): {s['label']}")
            out += [f"    {c['target']}: {cell_text(c)}" for c in s["cells"]]
        if not self.pareto:
            out.append("Pareto alternatives (fewer edits, fewer targets met): none")
        if self.skipped:
            out.append(f"skipped ({len(self.skipped)} moves or sets the rules or the compile "
                       f"step refuse), e.g. {self.skipped[0]['reason']}")
        return out

    def frame(self):
        """:meth:`rows` as a frame (``rebalance.csv``)."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(ROW_COLUMNS))

    def rows(self) -> list[dict]:
        """One row per raced set and target (``rebalance.csv``): its selection estimate, and
        the fresh one where the set was played again.
        """
        fresh = {} if self.fresh is None else {
            s["label"]: s for s in self.fresh["sets"]}
        out = []
        for rank, st in enumerate(self.standings, 1):
            again = fresh.get(st.edit_set.label)
            for i, c in enumerate(st.cells):
                f = None if again is None else again["cells"][i]
                out.append({"rank": rank, "edits": st.edit_set.label, "n_edits": len(st.edit_set),
                            "target": c["target"], "selection_trials": st.trials,
                            "selection_mc": c["mc"], "selection_ci_low": c["ci_low"],
                            "selection_ci_high": c["ci_high"],
                            "selection_verdict": c["verdict"],
                            "fresh_mc": None if f is None else f["mc"],
                            "fresh_ci_low": None if f is None else f["ci_low"],
                            "fresh_ci_high": None if f is None else f["ci_high"],
                            "fresh_verdict": None if f is None else f["verdict"],
                            "role": None if again is None else again["role"],
                            "dropped": st.dropped})
        return out


ROW_COLUMNS = ("rank", "edits", "n_edits", "target", "selection_trials", "selection_mc",
               "selection_ci_low", "selection_ci_high", "selection_verdict", "fresh_mc",
               "fresh_ci_low", "fresh_ci_high", "fresh_verdict", "role", "dropped")
"""Columns of ``rebalance.csv``: every raced set and target, its selection estimate (biased
for the sets chosen), and the fresh one of the sets played again (``role``)."""
PLAY_WORDS = {"scenario": "scenario's play", "best": "best play"}
"""How each play is named in the output."""


def cell_text(c: dict) -> str:
    """A target's cell in words: ``41.8 % (41.1 to 42.5) PASS``, an exact value ``(exact)``."""
    if c["mc"] is None or c["mc"] != c["mc"]:
        return f"- {c['verdict']}"
    if c.get("exact"):
        return f"{c['mc']:.4f} (exact) {c['verdict']}"
    return f"{c['mc']:.4f} ({c['ci_low']:.4f} to {c['ci_high']:.4f}) {c['verdict']}"


def diff_text(c: dict) -> str:
    """A paired change in words: ``+0.0576 (+0.0501 to +0.0651)`` (no interval: unpaired)."""
    if c.get("diff") is None or c["diff"] != c["diff"]:
        return "-"
    if c.get("diff_ci_low") is None:
        return f"{c['diff']:+.4f}"
    return f"{c['diff']:+.4f} ({c['diff_ci_low']:+.4f} to {c['diff_ci_high']:+.4f})"


def change_lines(edit_set: EditSet) -> list[str]:
    """Each edit as ``file, card, column: old -> new``."""
    return [f"  {c['file']}, {c['card']}, {c['column']}: {format_value(c['old'])} -> "
            f"{format_value(c['new'])}" for c in edit_set.changes()] or ["  (no edit)"]


def best_budget(budget: int, play: str) -> int:
    """Games of selection of each best-play search (per character and edit set): a tenth of
    the budget under best play, a fiftieth under the scenario's (a check, not the choice),
    at least 20,000.
    """
    return max(20_000, budget // (10 if play == "best" else 50))


def rebalance(scenario: Scenario, targets: Sequence[str] | None = None,
              levers: Sequence[str] | None = None, *, max_edits: int = MAX_EDITS,
              play: str = "scenario", budget: int = BUDGET, fresh_trials: int = FRESH_TRIALS,
              seed: int = 0, threads: int | None = None, scheduler: Any = None,
              progress: Callable[[str], None] | None = None,
              best_search: Callable[..., Any] | None = None) -> Rebalance:
    """Search the fewest edits that meet every target (the module docstring).

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario.
    targets : sequence of str, optional
        Target texts (default: the scenario's ``[targets]``).
    levers : sequence of str, optional
        Lever patterns (default: every lever).
    max_edits, play, budget, fresh_trials, seed, threads :
        Edits of a set at most; ``scenario`` or ``best``; games of the selection; fresh
        games per character of each reported set; the seed; kernel threads.
    progress : callable, optional
        Called with a line at each stage (the best set so far).
    scheduler : str, optional
        A Dask scheduler's address: the best-play searches play their rungs there
        (``zonesim optimize --scheduler``); the result is the same.
    best_search : callable, optional
        The best-play search (default :func:`sim.workflows.optimize.optimize`).

    Raises
    ------
    RebalanceError
        Bad targets, lever patterns or options (the ``field`` names the option).
    """
    start = time.perf_counter()
    if play not in PLAYS:
        raise RebalanceError(f"--play {play!r}: one of {', '.join(PLAYS)}", "play")
    if not 1 <= max_edits <= 5:
        raise RebalanceError(f"--max-edits {max_edits}: 1..5", "max_edits")
    if scenario.multiplayer and play == "best":
        raise RebalanceError(f"{scenario.path} is a multiplayer scenario: --play best "
                             "searches one stalker's policy (give --play scenario)", "play")
    goals = parse_goals(targets if targets else scenario_goals(scenario), scenario)
    chosen_levers = select_levers(scenario.ruleset, levers)
    if budget < 1 or fresh_trials < 1:
        raise RebalanceError("--budget and --trials must be >= 1", "budget")
    judge = Judge(goals, scenario)
    ranges = _ranges()
    if best_search is None:
        best_search = functools.partial(optimize, scheduler=scheduler)
    store = Store(scenario, judge.columns, seed=seed, first=0, threads=threads)
    search = _Search(judge, store, ranges, chosen_levers, max_edits, budget, progress)
    stopped = "done"
    try:
        search.screen()
        search.propose()
        search.halve()
        if play == "best":
            search.judge_best(best_search, seed, threads)
    except KeyboardInterrupt:
        stopped = INTERRUPTED
    if search.budget_hit and stopped == "done":
        stopped = "budget"
    standings = search.ranked()
    chosen = standings[0].edit_set if standings else EditSet()
    runner_up = standings[1].edit_set if len(standings) > 1 else None
    pareto = pareto_front(standings, chosen)
    fresh, fresh_ranges, best_play = None, (), {}
    if stopped != INTERRUPTED:
        fstore = Store(scenario, judge.columns, seed=seed, first=FRESH_FIRST, threads=threads)
        try:
            fresh, best_play = _fresh(judge, fstore, search, chosen, runner_up, pareto, play,
                                      fresh_trials, best_search, seed, threads,
                                      progress)
            fresh_ranges = tuple(fstore.ranges)
        except KeyboardInterrupt:
            stopped, fresh = INTERRUPTED, None
    return Rebalance(str(scenario.path), goals, play, seed, budget, fresh_trials, max_edits,
                     len(chosen_levers), search.screened, search.inert,
                     tuple(search.skipped), tuple(standings), chosen, runner_up, tuple(pareto),
                     fresh, store.played + search.best_played,
                     tuple(store.ranges) + tuple(search.judge_ranges), fresh_ranges, stopped,
                     round(time.perf_counter() - start, 3), best_play)


def pareto_front(standings: Sequence[Standing], chosen: EditSet) -> list[EditSet]:
    """The sets with fewer edits than the chosen one that meet fewer targets, each the best
    of its number of edits, and better than every set with fewer edits (the unchanged game
    left out).
    """
    out, best_missed = [], None
    unchanged = next((s for s in standings if len(s.edit_set) == 0), None)
    if unchanged is not None:
        best_missed = unchanged.key[0]
    for k in range(1, len(chosen)):
        of_k = [s for s in standings if len(s.edit_set) == k]
        if not of_k:
            continue
        top = min(of_k, key=lambda s: s.key)
        if best_missed is None or top.key[0] < best_missed:
            out.append(top.edit_set)
            best_missed = top.key[0]
    return out


class _Search:
    """One search's state: the screening's effects, the proposals, the halving's standings."""

    def __init__(self, judge: Judge, store: Store, ranges, levers: list[Lever],
                 max_edits: int, budget: int, progress) -> None:
        self.judge, self.store, self.ranges = judge, store, ranges
        self.levers, self.max_edits, self.budget = levers, max_edits, budget
        self.progress = progress
        self.skipped: list[dict] = []
        self.screened = self.inert = self.best_played = 0
        self.effects: dict[Move, dict[str, np.ndarray]] = {}
        self.base_q: dict[str, np.ndarray] = {}
        self.proposals: list[EditSet] = []
        self.standings: dict[EditSet, Standing] = {}
        self.judge_ranges: list[tuple[int, int]] = []
        self.budget_hit = False
        self.n0 = 0

    def _say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)

    # -- quantities the targets are functions of (the linear model's coordinates)

    def quantities(self, edit_set: EditSet, n: int) -> dict[str, np.ndarray]:
        """Per target: the estimates its value is a function of (per-character win rates
        of a spread, else its value).
        """
        m = self.judge.measure(self.store, edit_set, n)
        out = {}
        col = {name: i for i, name in enumerate(self.judge.columns)}
        for g, c in zip(self.judge.goals, m["cells"], strict=True):
            if g.kind == M.CHARACTER_SPREAD:
                out[g.name] = np.array([
                    self.store.values(edit_set.edits, ch, n)[:, col[M.WIN_RATE]].mean()
                    for ch in self.judge.characters])
            elif g.kind == M.SEAT_SPREAD:
                x = self.store.values(edit_set.edits, ALL_SEATS, n)
                out[g.name] = np.array([x[:, col[seat_column(i)]].mean()
                                        for i in range(len(self.judge.scenario.players))])
            else:
                out[g.name] = np.array([c["mc"]])
        self._record(edit_set, n, m["cells"])
        return out

    def _record(self, edit_set: EditSet, n: int, cells: list[dict]) -> None:
        key = rank_key(cells, edit_set, self.ranges)
        held = self.standings.get(edit_set)
        if held is None or held.trials <= n:
            self.standings[edit_set] = Standing(edit_set, n, cells, key)

    def _live(self, edit_set: EditSet) -> bool | None:
        """Whether a set changes some game or encounter the targets see (None: refused)."""
        edits = edit_set.edits
        try:
            self.store.ruleset(edits)
        except VariantError as error:
            self.skipped.append({"edit": edit_set.label, "reason": str(error),
                                 "refused_by": "rules"})
            return None
        touched = {m.lever.card for m in edit_set.moves if m.lever.table == "stalkers"}
        only = not self.judge.scenario.multiplayer and all(
            m.lever.table == "stalkers" for m in edit_set.moves)
        changed = False
        try:
            for ch in self.judge.characters:
                if only and ch not in touched:
                    continue
                if self.store.digest(edits, ch) != self.store.digest((), ch):
                    changed = True
        except CompareInputError as error:
            self.skipped.append({"edit": edit_set.label, "reason": str(error),
                                 "refused_by": "compile"})
            return None
        if not changed:
            changed = any(self.store.exact(edits, g) != self.store.exact((), g)
                          for g in self.judge.goals if g.exact)
        return changed

    def screen(self) -> None:
        """Every lever one step each way, against the unchanged game (common random numbers)."""
        moves = [Move(lv, s) for lv in self.levers for s in (-1, 1)]
        live = []
        self._say(f"screening {len(moves)} moves of {len(self.levers)} levers")
        for mv in moves:
            state = self._live(EditSet((mv,)))
            if state is None:
                continue
            if not state:
                self.inert += 1
                continue
            live.append(mv)
        chars = max(1, len(self.judge.characters))
        if self.judge.monte_carlo:
            n = int(SCREEN_SHARE * self.budget / max(1, (len(live) + 1) * chars))
            self.n0 = max(SCREEN_TRIALS[0], min(SCREEN_TRIALS[1], n))
        else:
            self.n0 = 1
        self.base_q = self.quantities(EditSet(), self.n0)
        for i, mv in enumerate(live):
            q = self.quantities(EditSet((mv,)), self.n0)
            self.effects[mv] = {k: q[k] - self.base_q[k] for k in q}
            self.screened += 1
            if i % 25 == 24:
                self._say(f"screened {i + 1} of {len(live)} moves; best so far: "
                          f"{self._best_label()}")

    def _best_label(self) -> str:
        top = min(self.standings.values(), key=lambda s: s.key, default=None)
        return "none" if top is None else f"{top.edit_set.label} ({_met_text(top.cells)})"

    # -- proposals by the linear model

    def _predict(self, moves: Sequence[Move]) -> tuple:
        q = {k: v.copy() for k, v in self.base_q.items()}
        for mv in moves:
            unit = self.effects.get(Move(mv.lever, 1 if mv.steps > 0 else -1))
            if unit is None:
                continue
            for k in q:
                q[k] = q[k] + abs(mv.steps) * unit[k]
        base = self.standings[EditSet()].cells
        missed, distance = 0, 0.0
        for g, c in zip(self.judge.goals, base, strict=True):
            v = q[g.name]
            spread = g.kind in (M.CHARACTER_SPREAD, M.SEAT_SPREAD)
            value = float(v.max() - v.min()) if spread else float(v[0])
            # the interval's half-width at the last rung (2**(RUNGS-1) times the games)
            half = 0.0 if g.exact else (c["ci_high"] - c["ci_low"]) / 2 / 2 ** ((RUNGS - 1) / 2)
            t = g.target
            inside = t.low + half <= value <= t.high - half
            missed += not inside
            distance += max(0.0, t.low - value, value - t.high)
        s = EditSet.of(moves)
        return (missed, round(distance, 12), len(s), round(s.size(self.ranges), 12), s.label)

    def _steps(self, lever: Lever) -> list[int]:
        lo, hi = lever_range(lever, self.ranges)
        out = []
        for sign in (-1, 1):
            if Move(lever, sign) not in self.effects:
                continue
            for k in range(1, STEPS + 1):
                v = lever.value(sign * k)
                if not lo <= v <= hi:
                    break
                out.append(sign * k)
        return out

    def _targeted(self, moves: Sequence[Move]) -> list[Move]:
        """The moves that move one coordinate of the model most on their own: per target's
        coordinate (each character's win rate of a spread, else the target's value), the
        :data:`TARGETED` moves whose effect on it, less their mean effect on the others,
        is largest in each direction (a spread is closed by raising the worst character
        and lowering the best, not by moves that shift every character alike).
        """
        out: list[Move] = []
        for name, base in self.base_q.items():
            for i in range(len(base)):
                for sign in (-1, 1):
                    def score(mv: Move, i=i, name=name, sign=sign) -> float:
                        e = self.effects[Move(mv.lever, 1 if mv.steps > 0 else -1)][name]
                        e = e * abs(mv.steps)
                        rest = np.delete(e, i).mean() if len(e) > 1 else 0.0
                        return sign * (e[i] - rest)
                    out += sorted(moves, key=lambda mv: -score(mv))[:TARGETED]
        return list(dict.fromkeys(out))

    def propose(self) -> None:
        """The best predicted sets of 1 to ``max_edits`` edits, by a beam search over moves.

        Sets of ``k`` edits are the best of ``k - 1`` (:data:`BEAM` of them) with one move
        added, of a pool of moves: the best single moves and the :meth:`_targeted` ones.
        The halving races the screening's best moves and, per number of edits, the best
        predicted sets (:data:`PROPOSALS` in all).
        """
        singles = sorted(((self._predict([Move(lv, k)]), Move(lv, k))
                          for lv in self.levers for k in self._steps(lv)), key=lambda t: t[0])
        if not singles:
            self.proposals = []
            return
        moves = [mv for _, mv in singles]
        pool = list(dict.fromkeys([*moves[:BEAM], *self._targeted(moves)]))
        beams = [[(key, EditSet((mv,))) for key, mv in singles[:BEAM]]]
        start = [EditSet((mv,)) for mv in pool if EditSet((mv,)) not in
                 {s for _, s in beams[0]}]
        beams[0] += [(self._predict(s.moves), s) for s in start]
        for _ in range(2, self.max_edits + 1):
            found: dict[EditSet, tuple] = {}
            for _, base in beams[-1]:
                used = {m.lever.path for m in base.moves}
                for mv in pool:
                    if mv.lever.path in used:
                        continue
                    s = EditSet.of((*base.moves, mv))
                    if s not in found:
                        found[s] = self._predict(s.moves)
            beams.append(sorted(((k, s) for s, k in found.items()), key=lambda t: t[0])[:BEAM])
        screened_best = sorted((s for s in self.standings.values() if len(s.edit_set)),
                               key=lambda s: s.key)[:4]
        chosen = [s.edit_set for s in screened_best]
        share = max(1, (PROPOSALS - len(chosen)) // len(beams))
        for beam in beams:
            taken = 0
            for _, s in sorted(beam, key=lambda t: t[0]):
                if taken >= share:
                    break
                if s not in chosen:
                    chosen.append(s)
                    taken += 1
        self.proposals = chosen

    # -- successive halving

    def halve(self) -> None:
        """Race the proposals and the unchanged game by successive halving (common games)."""
        alive = [EditSet()]
        for s in self.proposals:
            if s in alive:
                continue
            if len(s) > 1 and self._live(s) is None:  # refused as a whole
                continue
            alive.append(s)
        n = self.n0
        if self.judge.monte_carlo:  # the budget left: each later rung plays only the new
            chars = max(1, len(self.judge.characters))  # games of half the sets, so the
            left = self.budget - self.store.played  # whole race costs about 3 first rungs
            n = max(n, int(left / (3 * len(alive) * chars)))
        for rung in range(RUNGS):
            need = sum(max(0, n - self.standings[s].trials if s in self.standings else n)
                       for s in alive) * max(1, len(self.judge.characters))
            if self.judge.monte_carlo and self.store.played + need > self.budget and rung:
                self.budget_hit = True
                break
            for s in alive:
                self.quantities(s, n)
            alive.sort(key=lambda s: self.standings[s].key)
            self._say(f"rung {rung + 1}: {len(alive)} sets on {n:,} games; best so far: "
                      f"{self._best_label()}")
            if not self.judge.monte_carlo or len(alive) <= 2:
                break
            keep = max(2, math.ceil(len(alive) / 2))
            for s in alive[keep:]:
                self.standings[s].dropped = "halved"
            alive = alive[:keep]
            n *= 2
        self.alive = alive

    def ranked(self) -> list[Standing]:
        """Every raced set, best first: those of the last rung before the others."""
        finals = getattr(self, "best_standings", None)
        if finals:
            rest = [s for s in self.standings.values() if s.edit_set not in finals]
            return [*sorted(finals.values(), key=lambda s: s.key),
                    *sorted(rest, key=lambda s: (s.dropped is None, -s.trials, s.key))]
        return sorted(self.standings.values(), key=lambda s: (-s.trials, s.key))

    # -- best play

    def judge_best(self, search, seed: int, threads) -> None:
        """The last rung's :data:`FINALISTS` and the unchanged game, each under the policy
        searched for its cards, on games from :data:`JUDGE_FIRST`.
        """
        finals = [s for s in getattr(self, "alive", [])][:FINALISTS]
        if EditSet() not in finals:
            finals.append(EditSet())
        store = Store(self.judge.scenario, self.judge.columns, seed=seed, first=JUDGE_FIRST,
                      threads=threads)
        n = max(self.n0 * 2 ** (RUNGS - 1), 2000)
        budget = best_budget(self.budget, "best")
        out = {}
        for s in finals:
            self._say(f"best play for {s.label}")
            policies, played = best_policies(self.judge, store, s, search, budget, seed, threads)
            self.best_played += played
            m = self.judge.measure(store, s, n, policies)
            out[s] = Standing(s, n, m["cells"], rank_key(m["cells"], s, self.ranges))
        self.best_played += store.played
        self.judge_ranges.extend(store.ranges)
        self.best_standings = out


def best_policies(judge: Judge, store: Store, edit_set: EditSet, search, budget: int,
                  seed: int, threads) -> tuple[dict[str, tuple], int]:
    """Each character's best policy and loadout for the edited cards (``search``: optimize)
    and the games the searches played.
    """
    scenario = replace(judge.scenario, ruleset=store.ruleset(edit_set.edits))
    out, played = {}, 0
    for ch in judge.characters:
        result = search(scenario, stalker=ch, seed=seed, threads=threads,
                        **search_budget(budget, 1))  # its own fresh games unused: one
        out[ch] = tuple(result.winner.overrides)
        played += result.played
    return out, played


def _fresh(judge: Judge, store: Store, search: _Search, chosen: EditSet,
           runner_up: EditSet | None, pareto: Sequence[EditSet], play: str, trials: int,
           best, seed: int, threads, progress) -> tuple[dict, dict]:
    """The reported numbers: every set of the report on fresh games, paired with the
    unchanged game, under ``play``; the chosen set and the unchanged game under the other.
    """
    roles = [("unchanged", EditSet()), ("chosen", chosen)]
    if runner_up is not None:
        roles.append(("runner-up", runner_up))
    roles += [(f"pareto {len(s)}", s) for s in pareto if s not in (chosen, runner_up)]
    other = "best" if play == "scenario" else "scenario"
    shown = (play, other) if judge.monte_carlo and not judge.scenario.multiplayer else (play,)
    budget = best_budget(search.budget, play)
    policies: dict[tuple[str, EditSet], dict] = {}
    best_info = {}
    if other in shown:
        for s in (EditSet(), chosen):
            if progress is not None:
                progress(f"best play for {s.label} (fresh check)")
            pol, played = best_policies(judge, store, s, best, budget, seed, threads)
            policies[("best", s)] = pol
            best_info[s.label] = {"games": played,
                                  "policies": {ch: dict(p) for ch, p in pol.items()}}
    measured = {}
    for p in shown:
        for role, s in roles:
            if p == other and role not in ("unchanged", "chosen"):
                continue
            pol = policies.get((p, s)) if p == "best" else None
            measured[(p, s)] = judge.measure(store, s, trials, pol)
    sets = []
    for role, s in roles:
        m = measured[(play, s)]
        sets.append({"role": role, "label": s.label, "changes": s.changes(),
                     "cells": _paired(m, measured[(play, EditSet())], judge)})
    selection = {st.edit_set: st for st in search.ranked()}
    warnings = []
    chosen_sel = selection.get(chosen)
    if chosen_sel is not None:
        for c_sel, c_new in zip(chosen_sel.cells, measured[(play, chosen)]["cells"],
                                strict=True):
            if c_sel["verdict"] == PASS and c_new["verdict"] != PASS:
                warnings.append(f"{c_sel['target']}: met on the selection's games, "
                                f"{c_new['verdict']} on fresh games")
    plays = {p: {"before": measured[(p, EditSet())]["cells"],
                 "after": _paired(measured[(p, chosen)], measured[(p, EditSet())], judge)}
             for p in shown}
    return ({"trials": trials, "first_trial": FRESH_FIRST, "sets": sets, "plays": plays,
             "chosen": {p: measured[(p, chosen)]["cells"] for p in shown},
             "warnings": warnings}, best_info)


def _paired(after: dict, before: dict, judge: Judge) -> list[dict]:
    """``after``'s cells with the paired difference to ``before`` (per-game targets)."""
    out = []
    for g, a, b in zip(judge.goals, after["cells"], before["cells"], strict=True):
        x, y = after["games"][g.name], before["games"][g.name]
        if x is not None and y is not None:
            d = paired(x.astype(float), y.astype(float))
        elif g.exact:
            d = {"diff": a["mc"] - b["mc"], "diff_ci_low": None, "diff_ci_high": None}
        else:
            d = {"diff": a["mc"] - b["mc"], "diff_ci_low": None, "diff_ci_high": None}
        out.append({**a, **d})
    return out


def _met_text(cells: Sequence[dict]) -> str:
    return f"{met(cells)} of {len(cells)} targets met"


def verdicts_missed(cells: Sequence[dict]) -> list[str]:
    """The targets a set does not meet, with their verdicts."""
    return [f"{c['target']} ({c['verdict']})" for c in cells if c["verdict"] != PASS]


__all__ = ["BUDGET", "FAIL", "FRESH_FIRST", "FRESH_TRIALS", "INTERRUPTED", "JUDGE_FIRST",
           "MAX_EDITS", "PASS", "PLAYS", "EditSet", "Goal", "Judge", "Move", "Rebalance",
           "RebalanceError", "Store", "best_budget", "encounter_value", "pareto_front",
           "parse_goal", "parse_goals", "rank_key", "rebalance", "scenario_goals",
           "select_levers", "verdicts_missed"]
