"""Whole multiplayer games compared on common random numbers: the ``multiplayer`` experiment.

``zonesim compare campaign``, ``tune campaign`` and ``levers`` play this experiment when
their scenario is a multiplayer or cooperative one (``[[players]]``, issue 12; issue 47
item 7): every variant plays the whole game, every seat, on the same trial indices with
the same (seed, trial, purpose) streams (:func:`sim.experiments.campaign.game_blocks`), so
two variants part only where the change makes them part, as in the ``campaign``
experiment of one stalker.

Per game it counts (:func:`metrics_of`): the first-seat advantage (seat 1's win minus the
mean of the other seats' wins, P-45; :data:`FIRST_SEAT`), each seat's win
(``seat_win.K``, K from 1; the team's win counts for each seat of a cooperative game),
``p_nobody_wins`` and, in a cooperative game, the team's win (:data:`TEAM_WINS`). The sums
are exact integers (the advantage is summed times ``seats - 1``), so every number is
bit-identical for any thread count and block size, and the seat figures equal those of
``zonesim readings`` on the same games (:func:`sim.workflows.readings.run_seat_readings`).

A variant's card and rule edits (``edit=...``, ``rules=DIR``) change the shared ruleset.
Its loadout and policy keys (``rubles=5000``, ``shopping_gear=Shotgun``, ``item+=Jetpack``)
apply to every seat: the base setup is seat 1's (:func:`scenario_setup`), and each key a
variant changes there changes in every seat: a value is set in every seat, a list gains
(and loses) in every seat the cards the variant added to (removed from) seat 1's list
(:func:`seated_scenario`). New characters (P-44) keep the scenario's kit.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sim.campaign.compile import CampaignInputError
from sim.campaign.players import GameArrays, compile_game
from sim.experiments import campaign_metrics as M
from sim.experiments.base import Case, CompareInputError, Experiment, Metric, PairedSums
from sim.experiments.campaign import BLOCK
from sim.experiments.campaign_paired import (
    CAMPAIGN_KEYS,
    paired_totals,
    seat_scenario,
    seat_setup,
)
from sim.kernels import campaign as K
from sim.kernels.paired import AGGREGATE
from sim.rules import Ruleset
from sim.rules.scenario import MAX_PLAYERS, Scenario, load_scenario, ruleset_refusal

NAME = "multiplayer"
FIRST_SEAT = M.FIRST_SEAT
NOBODY_WINS = M.NOBODY_WINS
TEAM_WINS = M.TEAM_WINS


def seat_metric(seat: int) -> str:
    """The name of seat ``seat``'s win (from 1): ``seat_win.2``."""
    return f"{M.SEAT_WIN}.{seat}"


FIRST = Metric(FIRST_SEAT, "difference", None, M.LABELS[FIRST_SEAT])
SEATS = tuple(Metric(seat_metric(k), "proportion", "higher", f"seat {k} wins the game")
              for k in range(1, MAX_PLAYERS + 1))
NOBODY = Metric(NOBODY_WINS, "proportion", "lower", M.LABELS[NOBODY_WINS])
TEAM = Metric(TEAM_WINS, "proportion", "higher", M.LABELS[TEAM_WINS])
METRICS: tuple[Metric, ...] = (FIRST, *SEATS, NOBODY, TEAM)
"""Every metric the experiment declares (:data:`sim.rules.scenario.MAX_PLAYERS` seats); a
game of fewer seats, or a competitive one, gives those of :func:`metrics_of`."""


def metrics_of(setup: Mapping[str, Any]) -> tuple[Metric, ...]:
    """The metrics a game of ``setup`` gives: the first-seat advantage, each of its seats'
    wins, ``p_nobody_wins``, and in a cooperative game the team's win.
    """
    seats = int(setup["seats"])
    return (FIRST, *SEATS[:seats], NOBODY, *((TEAM,) if setup["cooperative"] else ()))


def scenario_setup(scenario: Scenario) -> dict[str, Any]:
    """The base setup of a multiplayer ``scenario``: seat 1's ``campaign`` setup
    (:func:`sim.experiments.campaign_paired.seat_setup`), its seats and variant.

    Raises
    ------
    CompareInputError
        A one-stalker scenario (the ``campaign`` experiment plays it).
    """
    if not scenario.multiplayer:
        raise CompareInputError(f"{scenario.path} is a one-stalker scenario: the campaign "
                                "experiment plays it")
    setup = seat_setup(scenario, 0)
    return {"scenario": setup.pop("scenario"), "seats": len(scenario.players),
            "cooperative": scenario.variant == "cooperative", **setup}

def _apply(own: dict, key: str, was: Any, now: Any) -> None:
    """Seat setup ``own`` changed as seat 1's ``key`` went from ``was`` to ``now``."""
    if isinstance(was, tuple) and isinstance(now, tuple) and key != "artifact_use":
        added, removed = Counter(now) - Counter(was), Counter(was) - Counter(now)
        held = list(own.get(key) or ())
        for card, n in removed.items():
            for _ in range(n):
                if card in held:
                    held.remove(card)
        own[key] = (*held, *added.elements())
    else:
        own[key] = now


def seated_scenario(case: Case) -> Scenario:
    """The multiplayer game a case plays: its scenario on its ruleset, each setup key the
    variant changed (against seat 1's) changed in every seat.

    Raises
    ------
    CompareInputError
        A ruleset the scenario cannot be played on (a card it names is missing, a
        cooperative game needing more survivors than seats), or a card, location or
        policy value a seat's setup names that the ruleset does not know.
    """
    path = case.setup["scenario"]
    loaded = load_scenario(path)
    refused = ruleset_refusal(loaded, case.ruleset, "the variant's ruleset")
    if refused is not None:
        raise CompareInputError(refused)
    scenario = dataclasses.replace(loaded, ruleset=case.ruleset)
    first = seat_setup(loaded, 0)
    changed = [(target, first.get(target), case.setup.get(target))
               for target, _ in CAMPAIGN_KEYS.values()
               if case.setup.get(target) != first.get(target)]
    if not changed:
        return scenario
    for p in range(len(scenario.players)):
        own = seat_setup(loaded, p)
        for key, was, now in changed:
            _apply(own, key, was, now)
        scenario = seat_scenario(scenario, p, own)
    return scenario


def compile_cases(cases: Sequence[Case]) -> list[GameArrays]:
    """Each case's multiplayer game, compiled; errors become :class:`CompareInputError`."""
    out = []
    for case in cases:
        try:
            out.append(compile_game(seated_scenario(case)))
        except CampaignInputError as error:
            raise CompareInputError(str(error)) from None
    return out


def game_values(rows: np.ndarray, seats: int, cooperative: bool) -> np.ndarray:
    """Per game, the integer values of :func:`metrics_of`'s metrics: the first-seat
    advantage times ``seats - 1`` (an integer), each seat's win, nobody won, the team won.
    """
    winners = rows[:, K.G_WINNERS]
    won = (winners[:, None] >> np.arange(seats)) & 1
    first = (seats - 1) * won[:, 0] - won[:, 1:].sum(axis=1)
    nobody = (winners == 0).astype(np.int64)
    cols = [first[:, None], won, nobody[:, None]]
    if cooperative:
        cols.append(1 - nobody[:, None])
    return np.concatenate(cols, axis=1).astype(np.int64)


def run_multiplayer_compare(cases: Sequence[Case], *, trials: int, seed: int,
                            threads: int | None = None, block: int = BLOCK) -> PairedSums:
    """Whole multiplayer games of every case on common random numbers.

    Every case plays the same scenario (``setup["scenario"]``, the same seats); the
    first is the baseline. There are no exact values (NaN).
    """
    if trials < 1:
        raise CompareInputError("trials must be >= 1")
    setup = cases[0].setup
    seats, cooperative = int(setup["seats"]), bool(setup["cooperative"])
    metrics = metrics_of(setup)
    totals = paired_totals(compile_cases(cases),
                           lambda rows: game_values(rows, seats, cooperative), len(metrics),
                           trials=trials, seed=seed, threads=threads, block=block)
    scale = max(seats - 1, 1)  # the advantage was summed times seats - 1
    sums = np.asarray([[[float(v) for v in row] for row in var] for var in totals])
    for a, power in ((AGGREGATE.SUM, 1), (AGGREGATE.SUM_SQ, 2), (AGGREGATE.DIFF, 1),
                     (AGGREGATE.DIFF_SQ, 2)):
        sums[:, a, 0] /= scale ** power
    exact = np.full((len(cases), len(metrics)), np.nan)
    return PairedSums(trials, metrics, sums, exact, indicator=True)


def sweep_rows(rs: Ruleset, params: Mapping[str, Any], trials: int, seed: int):
    """Refused: ``zonesim sweep`` plays one stalker (its rows are one stalker's)."""
    raise CompareInputError("zonesim sweep plays one stalker; compare, tune and levers take "
                            "a multiplayer scenario")


def compile_inputs(cases: Sequence[Case]) -> list:
    """Each case's packed game: equal inputs play equal games on equal streams
    (:mod:`sim.workflows.batches`).
    """
    return [arrays.pack() for arrays in compile_cases(cases)]


EXPERIMENT = Experiment(NAME, METRICS, CAMPAIGN_KEYS, run_multiplayer_compare, sweep_rows,
                        (FIRST_SEAT,), default_metric=FIRST_SEAT,
                        from_scenario=scenario_setup, compile_inputs=compile_inputs,
                        metrics_of=metrics_of)
"""Whole multiplayer games on common random numbers (``zonesim compare campaign`` of a
multiplayer or cooperative scenario)."""

__all__ = ["EXPERIMENT", "FIRST_SEAT", "METRICS", "NAME", "NOBODY_WINS",
           "TEAM_WINS", "compile_cases", "game_values", "metrics_of",
           "run_multiplayer_compare", "scenario_setup", "seat_metric", "seated_scenario"]
