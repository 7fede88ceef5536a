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
block)`` (:func:`sim.experiments.campaign.game_blocks`: one row of results
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
import hashlib
import threading
import tomllib
import typing
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.campaign.compile import CampaignArrays, CampaignInputError
from sim.campaign.memo import per_ruleset
from sim.campaign.players import GameArrays, compile_game, compile_scenario
from sim.errors import visible
from sim.experiments import campaign_metrics as M
from sim.experiments import policy_keys
from sim.experiments.base import Case, CompareInputError, Experiment, Metric, PairedSums
from sim.experiments.campaign import (
    BLOCK,
    COUNTERS,
    ENDS,
    FRAME_METRICS,
    METRICS,
    exact_sums,
    game_blocks,
    packed,
    run_campaign,
)
from sim.experiments.campaign_metrics import WIN_RATE
from sim.kernels import campaign as K
from sim.kernels.paired import AGGREGATE
from sim.rules import Ruleset, settings
from sim.rules.scenario import (
    SNEAK,
    Player,
    Policy,
    Scenario,
    load_scenario,
    never_acts,
    ruleset_refusal,
)
from sim.rules.tomlfile import show

NAME = "campaign"

CAMPAIGN_METRICS: tuple[Metric, ...] = tuple(Metric(*m) for m in METRICS)
"""Per-game metrics (:data:`sim.experiments.campaign.METRICS`, where each is declared with
its label), named as in ``zonesim campaign``'s JSON; ``game_days`` is the mean day a game
ended over all games (the days to the Sarcophagus among those who got there is a
conditional mean, not a per-trial quantity, and is left out)."""

SEAT_METRICS: tuple[Metric, ...] = tuple(Metric(*m) for m in M.SEAT_METRICS)
"""Per-game metrics of one seat of a multiplayer game (:data:`sim.experiments.
campaign_metrics.SEAT_METRICS`); :func:`trial_metrics` takes the seat."""

DAY_METRICS: tuple[Metric, ...] = tuple(
    Metric(name, "mean", None, label) for name, label in M.DAY_LABELS.items())
"""The days to the Sarcophagus among the games that won (:data:`sim.experiments.
campaign_metrics.DAY_LABELS`): sweep columns, numbers of days rather than shares, and no
per-game metric."""

LOADOUT_KEYS: dict[str, tuple[str, str]] = {
    "stalker": ("stalker", "str"), "start": ("start", "str"),
    "armor": ("armor", "optional"), "weapon": ("weapons", "list"),
    "item": ("items", "list"), "rubles": ("rubles", "rubles"),
    "artifacts": ("artifacts", "list"),
}
"""Variant keys of the scenario's stalker, start and ``[loadout]`` (not of its policy)."""

LEFT_OUT: Mapping[str, str] = {
    s.name.partition(".")[2]: str(s.searched) for s in settings.of_kind("policy")
    if NAME not in s.experiments}
""":class:`~sim.rules.scenario.Policy` fields that are not variant keys of whole games, each
with the reason (the table of settings, :mod:`sim.rules.settings`: the ``[policy]`` keys
whose experiments leave out ``campaign``, and why ``optimize`` does not search them): they
choose an encounter's best play, which the campaign does not play."""

def policy_kinds(policy: type = Policy,
                 left_out: Mapping[str, str] = LEFT_OUT) -> dict[str, str]:
    """Each ``[policy]`` field whole games take, in field order, and how its text is read.

    Derived from the fields of ``policy`` (:class:`sim.rules.scenario.Policy`), so a new
    policy key is a variant key, a setup key and a scenario's value of the ``campaign``
    experiment with no line here; a field ``left_out`` names (with the reason) is not. Its
    kind is :func:`sim.experiments.policy_keys.variant_kind`'s.

    Raises
    ------
    TypeError
        A field of a type no kind reads (it needs a kind here, or a reason to be left out).
    """
    hints = typing.get_type_hints(policy)
    out = {}
    for field in dataclasses.fields(policy):
        if field.name in left_out:
            continue
        kind = policy_keys.variant_kind(field.name, hints[field.name])
        if kind is None:
            raise TypeError(f"policy field {field.name!r} of type {hints[field.name]}: no "
                            "variant kind reads it; give it one in VARIANT_KINDS or a reason "
                            "in LEFT_OUT")
        out[field.name] = kind
    return out


POLICY_KINDS = policy_kinds()
"""Every ``[policy]`` key whole games take, and its kind (:func:`policy_kinds`)."""

CAMPAIGN_KEYS: dict[str, tuple[str, str]] = {
    **LOADOUT_KEYS, **{key: (key, kind) for key, kind in POLICY_KINDS.items()}}
"""Variant keys: the scenario's loadout, stalker, start and every ``[policy]`` key but
those :data:`LEFT_OUT` (each the name of its setup key)."""


def _policy_value(key: str, value: Any) -> Any:
    """A setup's value of policy key ``key`` as the :class:`Policy` field holds it."""
    kind = POLICY_KINDS[key]
    if kind == "route":
        return tuple(r for r in value if r != "nearest")
    if kind == "list":
        return tuple(value)
    if kind == "artifact_use":
        return tuple(sorted((str(name), int(use)) for name, use in value))
    return {"int": int, "bool": bool}.get(kind, str)(value)


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
            "rubles": _explicit_rubles(scenario.path), "artifacts": tuple(scenario.artifacts),
            **{key: getattr(p, key) for key in POLICY_KINDS}}


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
    for name in (*artifacts, *keep, *(n for n, _ in s.get("artifact_use", ()))):
        _known(name, rs.artifacts, "artefact")
    for name in s.get("shopping_gear", ()):  # weapons, artefacts and armours bought (P-13)
        _known(name, {**rs.weapons, **rs.artifacts, **rs.armor}, "weapon, artefact or armour")
    hexmap = getattr(rs, "map", None)
    hexes = [] if hexmap is None else hexmap.hexes
    start = str(s["start"])
    if start not in {h.name for h in hexes if h.name}:
        raise CompareInputError(f"start {start!r} is not a named location on the map")
    policy = Policy(**{key: _policy_value(key, s.get(key, getattr(Policy, key)))
                       for key in POLICY_KINDS})
    complexes = {h.name for h in hexes if h.location == "complex"}
    for name in policy.route:
        if name not in complexes:
            raise CompareInputError(f"route {name!r} is not a Secret Complex on the map "
                                    f"(known: {', '.join(sorted(complexes))})")
    if policy.sneak not in SNEAK:
        raise CompareInputError(f"sneak {policy.sneak!r} is not one of {', '.join(SNEAK)}")
    chosen = [k for k in POLICY_KINDS if getattr(policy, k) != getattr(Policy, k)]
    inert = never_acts(rs, policy, chosen)  # as the scenario loader refuses them
    if inert:
        raise CompareInputError("; ".join(f"key 'policy.{key}': {show(value)} {why}"
                                          for key, value, why in inert))
    rubles = s.get("rubles")
    if rubles is None:
        rubles = rs.stalkers[stalker].rubles
    path = Path(str(s.get("scenario", "scenario")))
    return Scenario(path=path, name=visible(path.stem, lines=False), ruleset=rs,
                    stalker=stalker, start=start, stalkers=1, armor=armor, weapons=weapons,
                    items=items, rubles=int(rubles), policy=policy, artifacts=artifacts)


COMPILED_KEPT = 128
"""Compiled scenarios remembered per process (:func:`compile_cases`): the readings' games
are compiled to tell which change nothing, then again to be played; a search's incumbent
and finalists are compiled again for its fresh games. About 0.3 MB each of its own (the
fight and hazard tables are shared, :mod:`sim.campaign.memo`), 0.8 MB with its packed
tables (:func:`sim.experiments.campaign.packed`)."""

_SCENARIO_FIELDS = tuple(f.name for f in dataclasses.fields(Scenario)
                         if f.name not in ("ruleset", "targets"))
"""What a compiled scenario depends on besides its ruleset (its targets play no part)."""


@per_ruleset(COMPILED_KEPT)
def _compiled(rs: Ruleset, fields: tuple) -> CampaignArrays | GameArrays:
    """The compiled scenario of ``fields`` (:data:`_SCENARIO_FIELDS`) on ``rs``, read-only."""
    arrays = compile_scenario(Scenario(ruleset=rs, **dict(zip(_SCENARIO_FIELDS, fields,
                                                              strict=True))))
    for slot in arrays.slots if isinstance(arrays, GameArrays) else (arrays,):
        for field in dataclasses.fields(slot):
            getattr(slot, field.name).setflags(write=False)
    return arrays


def compile_cases(cases: Sequence[Case]) -> list[CampaignArrays]:
    """Compile each case's scenario; errors become :class:`CompareInputError`.

    A scenario compiled before on the same ruleset (by identity) and with the same
    stalker, loadout and policy is not compiled again: the same read-only arrays are
    handed out (:func:`sim.campaign.memo.per_ruleset`, :data:`COMPILED_KEPT`).
    """
    out = []
    for case in cases:
        try:
            scenario = scenario_of(case)
            out.append(_compiled(scenario.ruleset, tuple(getattr(scenario, name)
                                                         for name in _SCENARIO_FIELDS)))
        except CampaignInputError as error:
            raise CompareInputError(str(error)) from None
    return out


def seat_setup(scenario: Scenario, seat: int) -> dict:
    """Seat ``seat`` (from 0) of a multiplayer scenario as a ``campaign`` setup
    (:func:`scenario_setup` of :meth:`Scenario.seat`, with the seat's own money).
    """
    return {**scenario_setup(scenario.seat(seat)), "rubles": scenario.players[seat].rubles}


def compile_seat(scenario: Scenario, seat: int, setup: Mapping[str, Any]) -> GameArrays:
    """The multiplayer game of ``scenario`` with seat ``seat`` (from 0) playing ``setup``.

    ``setup`` is a one-stalker ``campaign`` setup (:func:`seat_setup`'s keys): the seat's
    character, loadout, money and policy; every other seat, the new characters (P-44) and
    the game-wide keys stay the scenario's (:func:`sim.campaign.players.compile_game`).

    Raises
    ------
    CompareInputError
        A card, location or policy value the ruleset does not know.
    """
    try:
        return compile_game(seat_scenario(scenario, seat, setup))
    except CampaignInputError as error:
        raise CompareInputError(str(error)) from None


def seat_scenario(scenario: Scenario, seat: int, setup: Mapping[str, Any]) -> Scenario:
    """``scenario`` with seat ``seat`` (from 0) playing ``setup`` (:func:`compile_seat`)."""
    one = scenario_of(Case(scenario.ruleset, dict(setup)))
    players = list(scenario.players)
    players[seat] = Player(one.stalker, one.armor, one.weapons, one.items, one.rubles,
                           one.policy, one.artifacts)
    return dataclasses.replace(scenario, players=tuple(players), stalker=players[0].stalker)


def _metric_values(rows: np.ndarray, name: str, seat: int) -> np.ndarray:
    """One per-game metric of :data:`CAMPAIGN_METRICS` (seat 1's) or of :data:`SEAT_METRICS`
    (seat ``seat``, from 0) from per-game rows (n, G_ROW).
    """
    if name == M.SEAT_WIN:
        return rows[:, K.G_WINNERS] >> seat & 1
    if name == M.SEAT_DEATHS:
        return rows[:, K.G_SEATS + K.SEAT_COLS * seat + K.SEAT_DEATHS]
    end = rows[:, K.G_END]
    if name in COUNTERS:
        return rows[:, COUNTERS[name]]
    if name.startswith("causes."):
        return end == ENDS.index(name.removeprefix("causes."))
    return {M.WIN_RATE: lambda: end == K.REACHED,
            M.REACH: lambda: rows[:, K.G_SARCOPHAGUS] > 0,
            M.SURVIVE: lambda: (end == K.REACHED) | (end == K.CAPPED),
            M.FINAL_EMISSION: lambda: end == K.DEATH_FINAL_EMISSION,
            M.CAPPED: lambda: end == K.CAPPED,
            M.GAME_DAYS: lambda: rows[:, K.G_DAY]}[name]()


def trial_metrics(rows: np.ndarray, metrics: Sequence[str] | None = None,
                  seat: int = 0) -> np.ndarray:
    """Per-trial metric values (int64, shape (n, M)) from per-game rows (n, G_ROW).

    ``metrics`` names the columns, in order (default: every one of
    :data:`CAMPAIGN_METRICS`); only those are computed, so a caller keeping one metric
    of each game (``zonesim optimize``'s races) does not pay for the others. ``seat``
    (from 0) is the seat of the :data:`SEAT_METRICS`.
    """
    names = [m.name for m in CAMPAIGN_METRICS] if metrics is None else metrics
    out = np.empty((rows.shape[0], len(names)), dtype=np.int64)
    for i, name in enumerate(names):
        out[:, i] = _metric_values(rows, name, seat)
    return out


def trial_values(compiled: CampaignArrays | GameArrays, metrics: Sequence[str], *, seed: int,
                 first: int, trials: int, threads: int | None = None, block: int = BLOCK,
                 seat: int = 0) -> np.ndarray:
    """Per-game values of some :data:`CAMPAIGN_METRICS` over trials ``first .. first + trials - 1``.

    Game ``t`` plays the streams of ``(seed, t)`` (:func:`~sim.experiments.campaign.
    simulate_trials`), so two scenarios given the same ``first`` and ``trials`` are paired
    game by game, and values of consecutive ranges join into those of the whole range.
    A multiplayer game (:class:`~sim.campaign.players.GameArrays`) gives the
    :data:`SEAT_METRICS` of seat ``seat`` (from 0) too.

    Returns
    -------
    ndarray of int64, shape (trials, len(metrics))
    """
    out = np.empty((trials, len(metrics)), dtype=np.int64)
    for lo, _, rows in game_blocks([compiled], seed=seed, trials=trials, first=first,
                                   threads=threads, block=block):
        out[lo:lo + len(rows)] = trial_metrics(rows, metrics, seat)
    return out


PLAYED_BYTES = 64 * 2**20
"""Most bytes of per-game values :func:`played_values` keeps (least recently used go first):
50,000 games of a win (0 or 1) are 50 kB."""
_played: OrderedDict[tuple, np.ndarray] = OrderedDict()
_played_lock = threading.Lock()


def played_values(compiled: CampaignArrays | GameArrays, metrics: Sequence[str], *,
                  seed: int, first: int, trials: int, threads: int | None = None,
                  seat: int = 0) -> np.ndarray:
    """:func:`trial_values`, each game played once per process (issue 45, item 4).

    The same compiled game (equal packed tables, :func:`~sim.experiments.campaign.packed`)
    on the same trials of the same seed plays the same games, so a run asked for again is
    read back: the report compares every artefact carried (:mod:`sim.experiments.artifacts`)
    on the games its best use is then chosen on (:mod:`sim.workflows.best_use`), and every
    artefact and item with the scenario's own games on the same fresh trials. Values are
    kept compactly (:data:`PLAYED_BYTES` in all); each call gets an int64 copy of its own.
    """
    key = (hashlib.sha256(packed(compiled)).digest(), tuple(metrics), seed, first, trials, seat)
    with _played_lock:
        held = _played.get(key)
        if held is not None:
            _played.move_to_end(key)
            return held.astype(np.int64)
    values = trial_values(compiled, metrics, seed=seed, first=first, trials=trials,
                          threads=threads, seat=seat)
    small = values.size == 0 or (values.min() >= -128 and values.max() <= 127)
    kept = values.astype(np.int8) if small else values.copy()
    with _played_lock:
        _played[key] = kept
        while sum(v.nbytes for v in _played.values()) > PLAYED_BYTES and len(_played) > 1:
            _played.popitem(last=False)
    return values


def value_totals(values: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`paired_totals` of per-game values already played: V arrays (trials, M) on
    the same games, the baseline first; the same exact sums (Python ints), shape (V, 4, M).
    """
    totals = np.zeros((len(values), AGGREGATE.N_SUMS, values[0].shape[1]), dtype=object)
    for v, x in enumerate(values):
        _add_paired(totals, v, x, values[0])
    return totals


def _add_paired(totals: np.ndarray, v: int, x: np.ndarray, base: np.ndarray) -> None:
    """Add variant ``v``'s per-game values ``x`` to ``totals`` (V, 4, M): their sums and,
    after the baseline (``v`` > 0), the sums of their differences to ``base``'s games.
    """
    s, s2 = exact_sums(x)
    totals[v, AGGREGATE.SUM] += s
    totals[v, AGGREGATE.SUM_SQ] += s2
    if v:
        d, d2 = exact_sums(x - base)
        totals[v, AGGREGATE.DIFF] += d
        totals[v, AGGREGATE.DIFF_SQ] += d2


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
    return paired_totals(arrays, trial_metrics, len(CAMPAIGN_METRICS), trials=trials,
                         seed=seed, threads=threads, block=block)


def paired_totals(arrays: Sequence[CampaignArrays | GameArrays],
                  values: Callable[[np.ndarray], np.ndarray], n_metrics: int, *, trials: int,
                  seed: int, threads: int | None = None, block: int = BLOCK) -> np.ndarray:
    """Exact paired sums of V compiled games over trials ``0 .. trials - 1``, of the
    ``n_metrics`` integer per-game values ``values(rows)`` gives (rows: (n, G_ROW)).

    Returns
    -------
    ndarray of object (Python int), shape (V, 4, n_metrics)
        As :func:`paired_block_sums`.
    """
    if trials < 1:
        raise CompareInputError("trials must be >= 1")
    if seed < 0:
        raise CompareInputError("seed must be >= 0")
    totals = np.zeros((len(arrays), AGGREGATE.N_SUMS, n_metrics), dtype=object)
    base = None
    for _, v, rows in game_blocks(arrays, seed=seed, trials=trials, threads=threads,
                                  block=block):
        x = values(rows)
        if v == 0:
            base = x
        _add_paired(totals, v, x, base)
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



__all__ = ["BLOCK", "CAMPAIGN_KEYS", "CAMPAIGN_METRICS", "LEFT_OUT", "LOADOUT_KEYS", "NAME",
           "POLICY_KINDS", "SEAT_METRICS", "compile_cases", "compile_seat", "policy_kinds",
           "seat_scenario", "seat_setup",
           "paired_block_sums", "paired_totals", "played_values", "run_campaign_compare",
           "scenario_of", "value_totals",
           "scenario_setup",
           "trial_metrics", "trial_values"]


def sweep_rows(rs: Ruleset, params: Mapping[str, Any], trials: int,
                        seed: int) -> pd.DataFrame:
    """Whole games of ``scenario`` (default ``base``) played on the edited ruleset.

    One row: :meth:`CampaignResult.to_frame` of :func:`sim.experiments.campaign.run_campaign`.
    A point whose edits make a game the scenario loader refuses (a cooperative game
    needing more survivors than seats, a carry limit below the loadout:
    :func:`~sim.rules.scenario.ruleset_problems`) raises :class:`CompareInputError`, so the
    sweep skips it with the reason.
    """
    scenario = load_scenario(params.get("scenario"))
    refused = ruleset_refusal(scenario, rs, "the edited ruleset")
    if refused is not None:
        raise CompareInputError(refused)
    scenario = dataclasses.replace(scenario, ruleset=rs)
    return run_campaign(scenario, trials=trials, seed=seed).to_frame()


def compile_inputs(cases: Sequence[Case]) -> list:
    """Each case's packed campaign arrays: equal arrays play equal games on equal streams
    (:mod:`sim.workflows.batches`).
    """
    return [packed(arrays) for arrays in compile_cases(cases)]


EXPERIMENT = Experiment(NAME, CAMPAIGN_METRICS, CAMPAIGN_KEYS, run_campaign_compare, sweep_rows,
                        FRAME_METRICS, default_metric=WIN_RATE,
                        # the fight's threshold options (--sneak, --flee-at, --heal-at)
                        option_keys=("stalker", "armor", "weapons", "items",
                                     *policy_keys.option_keys("combat")),
                        from_scenario=scenario_setup, compile_inputs=compile_inputs,
                        sweep_only=DAY_METRICS)
"""Whole campaigns compared on common random numbers (``zonesim compare campaign``)."""
