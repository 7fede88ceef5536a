"""Artefacts valued under their best use, in whole games (issue 46, item 2).

The artefact comparison (:func:`sim.experiments.artifacts.artifacts_compared`) plays whole
games with each artefact carried besides the scenario's loadout and used as the scenario's
``policy.artifact_use`` says, by default whenever its rule allows ("always"). A player
who plays well uses an artefact only where a use pays (P-08): never, or at a Health
threshold. :func:`best_uses` values each artefact under its best use:

1. **Selection.** The artefact is carried and played under each use of :func:`uses`
   (always, never, and each Health ``1 .. Health - 1`` of the stalker card: "at this
   Health or less", P-21; at his full Health it is "always") on games ``0 .. trials - 1``
   of ``seed`` (common random numbers); the use with the highest win rate
   (``p_sarcophagus``: reach and survive the Sarcophagus, P-50) is chosen, the first of
   :func:`uses` on a tie. Uses that compile to the same game (equal tables,
   :func:`sim.workflows.race.game_digest`) play it once.
2. **Fresh games.** The chosen use and carrying nothing more are played again on games
   ``FRESH_FIRST ..`` of the same seed (:data:`sim.workflows.optimize.FRESH_FIRST`, none of
   the selection's), and their paired difference is reported: the artefact's value under
   its best use, free of the winner's curse.

Columns follow :func:`~sim.experiments.artifacts.artifacts_compared`'s cells (stem
:data:`STEM`), so the report's tables and the verdict read them as the other changes.

The same for the items whose use a ``[policy]`` key decides (:data:`USE_KEYS`: medkits,
stimulants, the Helicopter call): :func:`item_best_uses` values one more card of each under
the Health thresholds that play it best, on fresh games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from sim.experiments import campaign_paired
from sim.experiments.base import Case
from sim.experiments.campaign_metrics import WIN_RATE
from sim.rules.scenario import Scenario
from sim.workflows.optimize import FRESH_FIRST
from sim.workflows.race import game_digest, paired

STEM = f"best_use_{WIN_RATE}"
"""Column stem of the change in the win rate under each artefact's best use, fresh games."""
USE = "best_use"
"""Column of the chosen use in words: ``always``, ``never`` or ``at N`` (Health N or less)."""
SELECTED = f"best_use_selection_{WIN_RATE}"
"""Column of the chosen use's change on the selection's games (optimistic: it was picked there)."""


def uses(health: int) -> tuple[int | None, ...]:
    """The uses searched, as ``policy.artifact_use`` holds them (P-08): None (always), 0
    (never), then each Health ``1 .. health - 1``.
    """
    return (None, 0, *range(1, health))


def use_text(use: int | None) -> str:
    """A use in words: ``always``, ``never``, ``at 3``."""
    return "always" if use is None else "never" if use == 0 else f"at {use}"


def _with_use(setup: dict[str, Any], name: str, use: int | None) -> dict[str, Any]:
    """``setup`` carrying ``name`` besides its artefacts, used as ``use`` says."""
    table = {n: u for n, u in setup["artifact_use"] if n != name}
    if use is not None:
        table[name] = use
    return {**setup, "artifacts": tuple(setup["artifacts"]) + (name,),
            "artifact_use": tuple(sorted(table.items()))}


def _wins(arrays, *, seed: int, first: int, trials: int, threads: int | None) -> np.ndarray:
    """Per-game win (0 or 1) of trials ``first .. first + trials - 1``.

    Each game once per process (:func:`~sim.experiments.campaign_paired.played_values`):
    the games of an artefact used always are those the artefact comparison played, and
    the scenario's own fresh games are those every artefact and item is compared with.
    """
    return campaign_paired.played_values(arrays, [WIN_RATE], seed=seed, first=first,
                                         trials=trials, threads=threads)[:, 0]


def best_uses(scenario: Scenario, names: Sequence[str], *, trials: int, seed: int,
              fresh_trials: int | None = None, threads: int | None = None) -> pd.DataFrame:
    """One row per artefact: its best use, chosen on ``trials`` games, valued on fresh ones.

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario; each artefact is carried besides its loadout's.
    names : sequence of str
        Artefact cards.
    trials : int
        Selection games per use (trials ``0 .. trials - 1`` of ``seed``).
    seed : int
        The seed of both the selection and the fresh games.
    fresh_trials : int, optional
        Fresh games (trials from :data:`~sim.workflows.optimize.FRESH_FIRST`); default
        ``trials``.
    threads : int, optional
        Kernel threads; never changes a number.

    Returns
    -------
    DataFrame
        ``artifact``, :data:`USE`, ``best_use_trials``, ``best_use_first_trial``,
        :data:`SELECTED` and the cells of :data:`STEM` (``_mc``, ``_ci_low``, ``_ci_high``,
        ``_exact`` (NaN: whole games have no exact twin)): the win rate carrying the
        artefact under its best use minus carrying nothing more, paired on the fresh games.
    """
    fresh_trials = fresh_trials or trials
    base = campaign_paired.scenario_setup(scenario)
    health = scenario.ruleset.stalkers[scenario.stalker].health

    def compiled(setup):
        return campaign_paired.compile_cases([Case(scenario.ruleset, setup)])[0]

    def play(arrays, first, n):
        return _wins(arrays, seed=seed, first=first, trials=n, threads=threads)

    without = compiled(base)
    selection_none = play(without, 0, trials)
    fresh_none = play(without, FRESH_FIRST, fresh_trials)
    rows = []
    for name in names:
        known: dict = {}
        seen: dict[str, float] = {}
        best, best_mean, best_games = None, -np.inf, None
        for use in uses(health):
            arrays = compiled(_with_use(base, name, use))
            digest = game_digest(arrays, known)
            if digest in seen:
                continue  # the same game as an earlier use: the same mean, never better
            games = play(arrays, 0, trials)
            seen[digest] = mean = float(games.mean())
            if mean > best_mean:
                best, best_mean, best_games = (use, arrays), mean, games
        use, arrays = best
        selected = paired(best_games, selection_none)["diff"]
        change = paired(play(arrays, FRESH_FIRST, fresh_trials), fresh_none)
        rows.append({"artifact": name, USE: use_text(use), "best_use_trials": fresh_trials,
                     "best_use_first_trial": FRESH_FIRST, SELECTED: selected,
                     f"{STEM}_mc": change["diff"], f"{STEM}_ci_low": change["diff_ci_low"],
                     f"{STEM}_ci_high": change["diff_ci_high"], f"{STEM}_exact": float("nan")})
    return pd.DataFrame(rows)


def with_best_uses(frame: pd.DataFrame, scenario: Scenario, *, trials: int, seed: int,
                   threads: int | None = None) -> pd.DataFrame:
    """``frame`` (:func:`~sim.experiments.artifacts.artifacts_compared`'s rows) with the
    columns of :func:`best_uses` and the change per 1,000 rubles of price, as its others.
    """
    best = best_uses(scenario, list(frame["artifact"]), trials=trials, seed=seed,
                     threads=threads)
    out = frame.merge(best, on="artifact", how="left", sort=False)
    scale = [1000 / p if p else float("nan") for p in out["price"]]
    for end in ("", "_ci_low", "_ci_high"):
        part = "mc" if end == "" else end[1:]
        out[f"{STEM}_per_1000_rubles{end}"] = out[f"{STEM}_{part}"] * scale
    return out


USE_KEYS: dict[str, tuple[str, ...]] = {
    "medkit": ("medkit_at",),
    "stimulant": ("heal_at", "stimulant_at"),
    "helicopter": ("helicopter_at",),
}
"""The item effects whose use a ``[policy]`` key decides, and those keys, each a Health
threshold ("at this Health or less"): medkits outside fights (``medkit_at``, Z-11..Z-14) and,
under ``combat.medkits_in_combat``, in them (``heal_at``, P-24); stimulants in fights
(``heal_at``) and outside them (``stimulant_at``, Z-12); the Helicopter call
(``helicopter_at``, Z-04, Z-05). Every other item is used whenever its rule allows (the best
event item held, Z-10; an escape item when the fight is avoided, Z-15; the best movement
item, Z-01), so no use of it is a choice to search."""
ITEM_STEM = f"item_best_use_{WIN_RATE}"
"""Column stem of one more item card's change in the win rate under its best use, fresh games."""
ITEM_SCENARIO = f"item_scenario_{WIN_RATE}"
"""Column stem of the same card's change under the scenario's thresholds, the same fresh games."""


def use_keys(rs, effect: str) -> tuple[str, ...]:
    """The ``[policy]`` keys that decide when an item of ``effect`` is used (:data:`USE_KEYS`)."""
    keys = USE_KEYS.get(effect, ())
    if effect == "medkit" and rs.rules.combat.medkits_in_combat:
        keys = ("heal_at", *keys)
    return keys


def policy_items(rs) -> list[str]:
    """The item cards of ruleset ``rs`` whose use a ``[policy]`` key decides, in card order."""
    return [name for name, item in rs.items.items() if use_keys(rs, item.effect)]


def item_best_uses(scenario: Scenario, names: Sequence[str] | None = None, *, trials: int,
                   seed: int, fresh_trials: int | None = None,
                   threads: int | None = None) -> pd.DataFrame:
    """One row per item under a use policy: one more card of it valued under its best use.

    The items of :func:`policy_items` (default) are carried one card more than the
    scenario's loadout (issue 46, item 2: "the same for items where a use policy exists").
    Their use is a Health threshold of ``[policy]`` (:func:`use_keys`), the same key for
    every card of an effect, so the search sets the keys, not one card's use as
    ``policy.artifact_use`` does for an artefact:

    1. **Selection.** With the card carried, each key in turn (:func:`use_keys`'s order)
       takes each Health ``0 .. Health`` of the stalker card (0: never) with the others at
       their best so far (from the scenario's), on games ``0 .. trials - 1`` of ``seed``;
       the value with the highest win rate is kept (the first on a tie, the scenario's
       before any other). Values that compile to the same game play it once.
    2. **Fresh games.** On games ``FRESH_FIRST ..`` (none of the selection's), the card
       carried under those keys minus the same keys without it: what one more card is
       worth to a player who sets its use well, his own cards' use changed alike, so the
       search's gain on the loadout's cards is not counted as the card's. Beside it, the
       same difference under the scenario's keys.

    Returns
    -------
    DataFrame
        ``item``, ``effect``, ``price``, ``best_use`` (``medkit_at=3``, the keys chosen in
        words), ``best_use_trials``, ``best_use_first_trial``, the cells (``_mc``,
        ``_ci_low``, ``_ci_high``) of :data:`ITEM_SCENARIO` and :data:`ITEM_STEM` and
        :data:`ITEM_STEM` per 1,000 rubles of price (``_per_1000_rubles``, ``.._ci_low``,
        ``.._ci_high``), as :func:`with_best_uses` gives the artefacts'.
    """
    rs = scenario.ruleset
    fresh_trials = fresh_trials or trials
    base = campaign_paired.scenario_setup(scenario)
    health = rs.stalkers[scenario.stalker].health
    known: dict = {}

    def compiled(setup):
        return campaign_paired.compile_cases([Case(rs, setup)])[0]

    def play(setup, first, n):
        return _wins(compiled(setup), seed=seed, first=first, trials=n, threads=threads)

    rows = []
    for name in names if names is not None else policy_items(rs):
        item = rs.items[name]
        keys = use_keys(rs, item.effect)
        carried = {**base, "items": (*base["items"], name)}
        best = {key: base[key] for key in keys}
        seen: dict[str, float] = {}
        for key in keys:
            top = -np.inf
            for value in dict.fromkeys((best[key], *range(health + 1))):
                arrays = compiled({**carried, **best, key: value})
                digest = game_digest(arrays, known)
                if digest not in seen:
                    seen[digest] = float(_wins(arrays, seed=seed, first=0, trials=trials,
                                               threads=threads).mean())
                if seen[digest] > top:
                    top, chosen = seen[digest], value
            best[key] = chosen
        row = {"item": name, "effect": item.effect, "price": float(item.price),
               USE: ", ".join(f"{key}={value}" for key, value in best.items()),
               "best_use_trials": fresh_trials, "best_use_first_trial": FRESH_FIRST}
        for stem, keys_set in ((ITEM_SCENARIO, {}), (ITEM_STEM, best)):
            change = paired(play({**carried, **keys_set}, FRESH_FIRST, fresh_trials),
                            play({**base, **keys_set}, FRESH_FIRST, fresh_trials))
            row.update({f"{stem}_mc": change["diff"], f"{stem}_ci_low": change["diff_ci_low"],
                        f"{stem}_ci_high": change["diff_ci_high"]})
        scale = 1000 / item.price if item.price else float("nan")
        for end in ("", "_ci_low", "_ci_high"):
            row[f"{ITEM_STEM}_per_1000_rubles{end}"] = row[f"{ITEM_STEM}_{end[1:] or 'mc'}"] * scale
        rows.append(row)
    return pd.DataFrame(rows)


__all__ = ["ITEM_SCENARIO", "ITEM_STEM", "SELECTED", "STEM", "USE", "USE_KEYS", "best_uses",
           "item_best_uses", "policy_items", "use_keys", "use_text", "uses", "with_best_uses"]
