"""Anomalies (P-30..P-36) and events (Z-08..Z-10) from ruleset cards: tidy result rows.

The library behind ``zonesim anomaly`` and ``zonesim event``.
:func:`compile_anomaly` and :func:`compile_event` turn cards (stalker,
anomaly or event, armour, items), a policy and a starting state into an
:class:`~sim.encounter.spec.AnomalySpec` or :class:`~sim.encounter.spec.EventSpec`;
:func:`anomaly_table` and :func:`event_table` run the kernel and the exact
twin on each card and return one row per card, most dangerous first. Every
card is run on the same seed (common random numbers), so differences between
cards are not blurred by independent noise.

Modelling choices (ruleset keys in brackets; see docs/rules.md, "Anomalies"
and "Events"):

- A test's modifier is read under ``dice.modifier``
  (:mod:`sim.encounter.modifier`): by default it is the number of successes
  needed, a die succeeding on ``dice.success_on`` or more; ``need <= 0``
  passes without rolling.
- Voluntary entry after a passed Perception test adds
  ``anomaly.voluntary_bonus_dice`` Agility dice (P-36); a failed Perception
  test falls in without a bonus.
- Radiation and psi damage go through the armour only if
  ``armor.absorbs_radiation`` / ``armor.absorbs_psi`` and the armour has a
  resistance to them.
- Health <= 0 (P-37) and Willpower <= 0 (a concussion, P-40) both count as
  knocked out; radiation above ``radiation_max`` is a deformation (P-39),
  reported as its own cell, not a knock-out. The trophy (P-34) and the
  artefact search (P-35) are kept after a deformation.
- A survivor finds an artefact only by passing the find test (P-07
  "passing the appropriate test", P-35 "has a chance to find"): pool =
  ``anomaly.find_attribute``, modifier = the card's ``find`` column or
  ``anomaly.find_need`` (0 = certain).
- No item acts inside an anomaly (medkits and stimulants are not used there;
  event items act on events only), so items are refused for anomalies. For
  events only ``event_avoid`` items are accepted and the best one counts
  (Z-10); whether it is used up (``events.items_consumed``) does not change a
  single draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import runner
from sim.encounter import tables
from sim.encounter.modifier import test_terms
from sim.encounter.spec import (
    EFFECT_DAMAGE,
    EFFECT_EMISSION_TOKENS,
    EFFECT_LOST_DAY,
    EFFECT_NONE,
    TARGET_HEALTH,
    AnomalySpec,
    EventSpec,
    target_of,
)
from sim.exact.anomaly import OUTCOMES as ANOMALY_OUTCOMES
from sim.exact.anomaly import anomaly_exact
from sim.exact.event import OUTCOMES as EVENT_OUTCOMES
from sim.exact.event import event_exact
from sim.kernels import anomaly as anomaly_kernel
from sim.kernels import event as event_kernel
from sim.prob import best_event_item
from sim.rules import Ruleset

# Item effects that act inside an anomaly: none in the rules (P-31..P-36 name no item).
ANOMALY_ITEM_EFFECTS: frozenset[str] = frozenset()
EVENT_ITEM_EFFECTS: frozenset[str] = frozenset({"event_avoid"})

_EFFECTS = {"wounds": EFFECT_DAMAGE, "radiation": EFFECT_DAMAGE, "psi": EFFECT_DAMAGE,
            "lost_day": EFFECT_LOST_DAY, "emission_tokens": EFFECT_EMISSION_TOKENS,
            "none": EFFECT_NONE}


class HazardInputError(ValueError):
    """An anomaly or event the model cannot run (reported to the user, exit status 2).

    ``param`` names the command-line option at fault (e.g. ``"--stalker"``), or None.
    """

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class StartState:
    """The stalker's state when he meets the hazard.

    Attributes
    ----------
    health, willpower : int or None
        Current Health and Willpower (>= 1); None = the stalker's maximum.
    radiation : int
        Radiation doses already taken (0 .. the stalker's ``radiation_max``).
    tokens : int
        Damage tokens already on the armour (0 .. its durability).
    """

    health: int | None = None
    willpower: int | None = None
    radiation: int = 0
    tokens: int = 0


def _card(table: Mapping, name: str, what: str, option: str):
    if name not in table:
        raise HazardInputError(f"unknown {what} {name!r} (known: {', '.join(table)})", option)
    return table[name]


def _items(rs: Ruleset, names: Sequence[str], allowed: frozenset[str], where: str) -> list:
    held = [_card(rs.items, n, "item", "--item") for n in names]
    for item in held:
        if item.effect not in allowed:
            raise HazardInputError(
                f"item {item.name!r} (effect {item.effect}) has no effect {where}; "
                + ("no item acts inside an anomaly (P-31..P-36)" if not allowed
                   else f"only items with effect {', '.join(sorted(allowed))} do"),
                "--item")
    return held


def _state(rs: Ruleset, stalker: str, armor: str | None, state: StartState) -> tuple:
    hero = _card(rs.stalkers, stalker, "stalker", "--stalker")
    suit = None if armor is None else _card(rs.armor, armor, "armour", "--armor")
    health = hero.health if state.health is None else state.health
    willpower = hero.willpower if state.willpower is None else state.willpower
    durability = 0 if suit is None else suit.durability
    if health < 1:
        raise HazardInputError(f"starting Health {health} is below 1", "--health")
    if willpower < 1:
        raise HazardInputError(f"starting Willpower {willpower} is below 1", "--willpower")
    if not 0 <= state.radiation <= hero.radiation_max:
        raise HazardInputError(f"starting radiation {state.radiation} is not in "
                               f"0..{hero.radiation_max}", "--radiation")
    if not 0 <= state.tokens <= durability:
        raise HazardInputError(f"armour tokens {state.tokens} are not in 0..{durability}",
                               "--tokens")
    return hero, suit, health, willpower, durability


def _armor_rolls(rs: Ruleset, damage_type: str) -> bool:
    if damage_type == "radiation":
        return bool(rs.rules.armor.absorbs_radiation)
    if damage_type == "psi":
        return bool(rs.rules.armor.absorbs_psi)
    return True


def artifact_deck(rs: Ruleset, counts: Mapping[str, int] | None = None
                  ) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The artefact deck (P-35) as ``(types, cards per type)``.

    Types are in order of first appearance in ``artifacts.csv``; ``counts``
    overrides the number of cards of some types (a depleted deck).
    """
    per_type: dict[str, int] = {}
    for card in rs.artifacts.values():
        per_type[card.type] = per_type.get(card.type, 0) + card.count
    for name, n in (counts or {}).items():
        if n < 0:
            raise HazardInputError(f"artefact deck: {n} cards of {name!r}")
        per_type[name] = n
    return tuple(per_type), tuple(per_type.values())


def compile_anomaly(rs: Ruleset, stalker: str, anomaly: str, armor: str | None = None,
                    items: Sequence[str] = (), *, enter: bool = False,
                    state: StartState = StartState(),
                    deck: Mapping[str, int] | None = None) -> AnomalySpec:
    """Resolve cards, policy and starting state into an :class:`AnomalySpec` (P-30..P-36).

    Parameters
    ----------
    rs : Ruleset
        The loaded ruleset.
    stalker, anomaly, armor : str
        Card names; ``armor`` None = none worn.
    items : sequence of str
        Item names; every item is refused (none acts inside an anomaly).
    enter : bool
        Enter voluntarily after a passed Perception test (P-36).
    state : StartState
        Starting Health, Willpower, radiation and armour tokens.
    deck : mapping of str to int, optional
        Cards per artefact type, overriding ``artifacts.csv`` counts.

    Raises
    ------
    HazardInputError
        Unknown card names, refused items, or a starting state out of range.
    """
    card = _card(rs.anomalies, anomaly, "anomaly", "--anomaly")
    hero, suit, health, willpower, durability = _state(rs, stalker, armor, state)
    _items(rs, items, ANOMALY_ITEM_EFFECTS, "inside an anomaly")
    types, counts = artifact_deck(rs, deck)
    resist = suit.resistance(card.damage_type) if suit is not None else None
    dice = rs.rules.dice
    perception_on, perception_need = test_terms(card.perception, dice.success_on, dice.modifier)
    agility_on, agility_need = test_terms(card.agility, dice.success_on, dice.modifier)
    find = rs.rules.anomaly.find_need if card.find is None else card.find
    find_on, find_need = test_terms(find, dice.success_on, dice.modifier)
    return AnomalySpec(
        perception=hero.perception, agility=hero.agility,
        perception_need=perception_need, agility_need=agility_need,
        damage=card.damage, target=target_of(card.damage_type),
        resist=resist or 0, durability=durability, tokens=state.tokens,
        armor_absorbs=_armor_rolls(rs, card.damage_type),
        health=health, radiation=state.radiation, radiation_max=hero.radiation_max,
        willpower=willpower, success_on=rs.rules.dice.success_on, enter=enter,
        bonus_dice=rs.rules.anomaly.voluntary_bonus_dice, deck=counts,
        artifact=types.index(card.artifact_type) if card.artifact_type in types else -1,
        perception_on=perception_on, agility_on=agility_on,
        find_pool=getattr(hero, rs.rules.anomaly.find_attribute), find_on=find_on,
        find_need=find_need,
    )


def simulate_anomaly(spec: AnomalySpec, trials: int, seed: int,
                     threads: int | None = None) -> np.ndarray:
    """Kernel aggregates of ``trials`` encounters (columns of :mod:`sim.kernels.anomaly`)."""
    return runner.run_counts(anomaly_kernel.anomaly_kernel, seed, trials,
                             (anomaly_kernel.WIDTH,), *spec.pack(), threads=threads)


def summarize_anomaly(spec: AnomalySpec, counts: np.ndarray, trials: int) -> dict:
    """Result cells from kernel counts and the exact twin.

    Outcomes ``avoided``, ``unharmed``, ``damaged``, ``knocked_out`` (they sum
    to 1), then ``artifact`` (P-35), ``trophy`` (P-34), ``deformation``
    (P-39), ``perceived`` (P-31), ``mean_loss`` (points lost after the armour,
    a mean over all encounters), ``armor_destroyed`` (P-05) and, when anyone
    searched, ``draws_per_search`` (cards drawn per search, P-35).
    """
    k = anomaly_kernel
    exact = anomaly_exact(spec)
    row = {
        "outcomes": {name: tables.proportion(counts[i], trials, exact.outcomes[name])
                     for i, name in enumerate(ANOMALY_OUTCOMES)},
        "artifact": tables.proportion(counts[k.ARTIFACT], trials, exact.artifact),
        "trophy": tables.proportion(counts[k.UNHARMED] + counts[k.DAMAGED], trials,
                                    exact.trophy),
        "deformation": tables.proportion(counts[k.DEFORMATION], trials, exact.deformation),
        "perceived": tables.proportion(counts[k.PERCEIVED], trials, exact.perceived),
        "mean_loss": tables.mean(counts[k.SUM_LOSS], counts[k.SUM_LOSS_SQ], trials,
                                 exact.mean_loss),
        "armor_destroyed": tables.proportion(counts[k.DESTROYED], trials,
                                             exact.armor_destroyed),
    }
    if counts[k.SEARCHES] > 0:
        row["draws_per_search"] = tables.mean(counts[k.SUM_DRAWS], counts[k.SUM_DRAWS_SQ],
                                              int(counts[k.SEARCHES]), exact.draws_per_search)
    return row


@dataclass(frozen=True)
class HazardTable:
    """Rows of ``zonesim anomaly`` or ``zonesim event``: one per card, most dangerous first.

    ``card`` is the row key naming the card (``"anomaly"`` or ``"event"``).
    """

    trials: int
    seed: int
    card: str
    rows: tuple[dict, ...]

    def to_dict(self) -> dict:
        """The issue's JSON: ``{"trials", "seed", "rows": [...]}``."""
        return {"trials": self.trials, "seed": self.seed, "rows": list(self.rows)}

    def to_frame(self) -> pd.DataFrame:
        """One flat row per card: each cell as estimate, interval bounds and exact value."""
        keys = tuple(k for k in self.rows[0] if not isinstance(self.rows[0][k], dict))
        return pd.DataFrame([tables.flatten(r, keys) for r in self.rows])

    def to_table(self) -> pd.DataFrame:
        """Readable rows: each cell as ``estimate ±half-width (exact)``."""
        return pd.DataFrame([tables.compact(r, (self.card,)) for r in self.rows])


def _danger(row: dict) -> tuple:
    """Sort key, most dangerous first: exact P(knocked out), P(deformation), mean
    points lost after the armour, then P(not avoided).
    """
    out = row["outcomes"]
    lost = sum(row[k]["exact"] for k in ("mean_loss", "health_lost", "radiation", "psi")
               if k in row)
    return (-out["knocked_out"]["exact"], -row["deformation"]["exact"], -lost,
            -(1.0 - out["avoided"]["exact"]))


def anomaly_table(rs: Ruleset, stalker: str, anomalies: Sequence[str], armor: str | None = None,
                  items: Sequence[str] = (), *, enter: bool = False,
                  state: StartState = StartState(), trials: int, seed: int,
                  threads: int | None = None) -> HazardTable:
    """Meet each anomaly in turn; rows sorted by danger (exact P(knocked out) first).

    Each row holds ``stalker``, ``anomaly``, ``armor``, ``enter`` and the
    cells of :func:`summarize_anomaly`.
    """
    rows = []
    for name in anomalies:
        spec = compile_anomaly(rs, stalker, name, armor, items, enter=enter, state=state)
        row = {"stalker": stalker, "anomaly": name, "armor": armor, "enter": enter}
        row.update(summarize_anomaly(spec, simulate_anomaly(spec, trials, seed, threads),
                                     trials))
        rows.append(row)
    rows.sort(key=_danger)
    return HazardTable(trials, seed, "anomaly", tuple(rows))


def anomaly_names(rs: Ruleset, which: str) -> list[str]:
    """``all`` -> every anomaly card; else ``[which]`` (checked later)."""
    return list(rs.anomalies) if which == "all" else [which]


def compile_event(rs: Ruleset, stalker: str, event: str, armor: str | None = None,
                  items: Sequence[str] = (), *, state: StartState = StartState()) -> EventSpec:
    """Resolve cards and starting state into an :class:`EventSpec` (Z-08..Z-10).

    Only ``event_avoid`` items are accepted; the best one shifts the avoid
    roll (Bag of nuts +1, Dosimeter +2) or avoids without a roll (Torsion
    scanner, ``auto``); they never add up (Z-10). ``wounds`` hit Health with
    the card's ``damage_type``; ``radiation`` and ``psi`` go through the
    armour only under ``armor.absorbs_radiation`` / ``armor.absorbs_psi``.

    Raises
    ------
    HazardInputError
        Unknown card names, refused items, or a starting state out of range.
    """
    card = _card(rs.events, event, "event", "--event")
    _, suit, health, willpower, durability = _state(rs, stalker, armor, state)
    hero = rs.stalkers[stalker]
    best = best_event_item(_items(rs, items, EVENT_ITEM_EFFECTS, "on an event"))
    shift = 0 if best is None or best.auto else int(best.value)
    damage_type = {"wounds": card.damage_type or "physical", "radiation": "radiation",
                   "psi": "psi"}.get(card.effect, "")
    resist = suit.resistance(damage_type) if suit is not None and damage_type else None
    return EventSpec(
        rolls=card.avoid_on is not None,
        automatic=best is not None and best.auto,
        avoid_target=(card.avoid_on or 0) - shift,
        effect=_EFFECTS[card.effect], value=card.value,
        target=target_of(damage_type) if damage_type else TARGET_HEALTH,
        resist=resist or 0, durability=durability, tokens=state.tokens,
        armor_absorbs=bool(damage_type) and _armor_rolls(rs, damage_type),
        health=health, radiation=state.radiation, radiation_max=hero.radiation_max,
        willpower=willpower, shift=shift,
    )


def simulate_event(spec: EventSpec, trials: int, seed: int,
                   threads: int | None = None) -> np.ndarray:
    """Kernel aggregates of ``trials`` draws of one event (see :mod:`sim.kernels.event`)."""
    return runner.run_counts(event_kernel.event_kernel, seed, trials, (event_kernel.WIDTH,),
                             spec.pack(), threads=threads)


def summarize_event(spec: EventSpec, counts: np.ndarray, trials: int) -> dict:
    """Result cells from kernel counts and the exact twin.

    Outcomes ``avoided``, ``happened`` (took place, stalker still conscious)
    and ``knocked_out`` (took place, Health or Willpower <= 0) sum to 1, so
    P(the event took place) = 1 - avoided. Then ``deformation`` (P-39),
    ``health_lost``, ``radiation``, ``psi`` (means after the armour),
    ``days_lost``, ``emission_tokens`` (means) and ``armor_destroyed``.
    """
    k = event_kernel
    exact = event_exact(spec)

    def mean(col: int, value) -> dict:
        return tables.mean(counts[col], counts[col + 1], trials, value)

    return {
        "outcomes": {name: tables.proportion(counts[i], trials, exact.outcomes[name])
                     for i, name in enumerate(EVENT_OUTCOMES)},
        "deformation": tables.proportion(counts[k.DEFORMATION], trials, exact.deformation),
        "health_lost": mean(k.SUM_HEALTH, exact.health_lost),
        "radiation": mean(k.SUM_RADIATION, exact.radiation),
        "psi": mean(k.SUM_PSI, exact.psi),
        "days_lost": mean(k.SUM_DAYS, exact.days_lost),
        "emission_tokens": mean(k.SUM_TOKENS, exact.emission_tokens),
        "armor_destroyed": tables.proportion(counts[k.DESTROYED], trials,
                                             exact.armor_destroyed),
    }


def event_table(rs: Ruleset, stalker: str, events: Sequence[str], armor: str | None = None,
                items: Sequence[str] = (), *, state: StartState = StartState(), trials: int,
                seed: int, threads: int | None = None) -> HazardTable:
    """Draw each event in turn; rows sorted by danger (exact P(knocked out) first).

    Each row holds ``stalker``, ``event``, ``item`` (the best event item used,
    or None), ``armor`` and the cells of :func:`summarize_event`.
    """
    best = best_event_item(_items(rs, items, EVENT_ITEM_EFFECTS, "on an event"))
    rows = []
    for name in events:
        spec = compile_event(rs, stalker, name, armor, items, state=state)
        row = {"stalker": stalker, "event": name, "item": None if best is None else best.name,
               "armor": armor}
        row.update(summarize_event(spec, simulate_event(spec, trials, seed, threads), trials))
        rows.append(row)
    rows.sort(key=_danger)
    return HazardTable(trials, seed, "event", tuple(rows))


def event_names(rs: Ruleset, which: str) -> list[str]:
    """``all`` -> every event card; else ``[which]`` (checked later)."""
    return list(rs.events) if which == "all" else [which]


__all__ = [
    "ANOMALY_ITEM_EFFECTS", "EVENT_ITEM_EFFECTS", "HazardInputError", "HazardTable",
    "StartState", "anomaly_names",
    "anomaly_table", "artifact_deck", "compile_anomaly", "compile_event", "event_names",
    "event_table", "simulate_anomaly", "simulate_event", "summarize_anomaly", "summarize_event",
]
