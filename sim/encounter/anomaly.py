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

from sim.encounter.artifact import artifact_rules, compile_artifacts
from sim.encounter.damage import armor_rolls, target_of
from sim.encounter.items import best_event_item
from sim.encounter.modifier import test_terms
from sim.encounter.spec import AnomalySpec, EventSpec
from sim.errors import InputError
from sim.kernels import layout as S
from sim.kernels.layout import (
    ART_RESIST,
    EFFECT_ANOMALY,
    EFFECT_DAMAGE,
    EFFECT_EMISSION_TOKENS,
    EFFECT_ENEMY,
    EFFECT_LOST_DAY,
    EFFECT_NONE,
    MAX_ARTIFACTS,
    TARGET_HEALTH,
)
from sim.rules import Ruleset

# Item effects that act inside an anomaly: none in the rules (P-31..P-36 name no item).
ANOMALY_ITEM_EFFECTS: frozenset[str] = frozenset()
EVENT_ITEM_EFFECTS: frozenset[str] = frozenset({"event_avoid"})

_EFFECTS = {"wounds": EFFECT_DAMAGE, "radiation": EFFECT_DAMAGE, "psi": EFFECT_DAMAGE,
            "lost_day": EFFECT_LOST_DAY, "emission_tokens": EFFECT_EMISSION_TOKENS,
            "none": EFFECT_NONE, "enemy": EFFECT_ENEMY, "anomaly": EFFECT_ANOMALY}


class HazardInputError(InputError):
    """An anomaly or event the model cannot run (reported to the user, exit status 2).

    ``field`` names the input at fault (e.g. ``"stalker"``), or None.
    """


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


def _card(table: Mapping, name: str, what: str, field: str):
    if name not in table:
        raise HazardInputError(f"unknown {what} {name!r} (known: {', '.join(table)})", field)
    return table[name]


def held_items(rs: Ruleset, names: Sequence[str], allowed: frozenset[str], where: str) -> list:
    held = [_card(rs.items, n, "item", "item") for n in names]
    for item in held:
        if item.effect not in allowed:
            raise HazardInputError(
                f"item {item.name!r} (effect {item.effect}) has no effect {where}; "
                + ("no item acts inside an anomaly (P-31..P-36)" if not allowed
                   else f"only items with effect {', '.join(sorted(allowed))} do"),
                "item")
    return held


def _state(rs: Ruleset, stalker: str, armor: str | None, state: StartState) -> tuple:
    hero = _card(rs.stalkers, stalker, "stalker", "stalker")
    suit = None if armor is None else _card(rs.armor, armor, "armour", "armor")
    health = hero.health if state.health is None else state.health
    willpower = hero.willpower if state.willpower is None else state.willpower
    durability = 0 if suit is None else suit.durability
    if health < 1:
        raise HazardInputError(f"starting Health {health} is below 1", "health")
    if willpower < 1:
        raise HazardInputError(f"starting Willpower {willpower} is below 1", "willpower")
    if not 0 <= state.radiation <= hero.radiation_max:
        raise HazardInputError(f"starting radiation {state.radiation} is not in "
                               f"0..{hero.radiation_max}", "radiation")
    if not 0 <= state.tokens <= durability:
        raise HazardInputError(f"armour tokens {state.tokens} are not in 0..{durability}",
                               "tokens")
    return hero, suit, health, willpower, durability


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
                    deck: Mapping[str, int] | None = None, artifacts: Sequence[str] = (),
                    intellect: int | None = None) -> AnomalySpec:
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
    artifacts : sequence of str
        Artefacts carried (P-08..P-10); resist artefacts of the anomaly's
        damage type act on its damage.
    intellect : int, optional
        Intellect for activation tests (P-10); None = the stalker card's.

    Raises
    ------
    HazardInputError
        Unknown card names, refused items, or a starting state out of range.
    """
    card = _card(rs.anomalies, anomaly, "anomaly", "anomaly")
    hero, suit, health, willpower, durability = _state(rs, stalker, armor, state)
    held_items(rs, items, ANOMALY_ITEM_EFFECTS, "inside an anomaly")
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
        armor_absorbs=armor_rolls(rs, card.damage_type),
        health=health, radiation=state.radiation, radiation_max=hero.radiation_max,
        willpower=willpower, success_on=rs.rules.dice.success_on, enter=enter,
        bonus_dice=rs.rules.anomaly.voluntary_bonus_dice, deck=counts,
        artifact=types.index(card.artifact_type) if card.artifact_type in types else -1,
        perception_on=perception_on, agility_on=agility_on,
        find_pool=getattr(hero, rs.rules.anomaly.find_attribute), find_on=find_on,
        find_need=find_need,
        artifacts=compile_artifacts(rs, artifacts, _intellect(hero, intellect),
                                    card.damage_type),
        art_rules=artifact_rules(rs),
    )


def _intellect(hero, intellect: int | None) -> int:
    """The Intellect pool of activation tests (P-10): an override or the card's."""
    return hero.intellect if intellect is None else intellect


def compile_event(rs: Ruleset, stalker: str, event: str, armor: str | None = None,
                  items: Sequence[str] = (), *, state: StartState = StartState(),
                  artifacts: Sequence[str] = (), intellect: int | None = None) -> EventSpec:
    """Resolve cards and starting state into an :class:`EventSpec` (Z-08..Z-10).

    Only ``event_avoid`` items are accepted; the best one shifts the avoid
    roll (Bag of nuts +1, Dosimeter +2) or avoids without a roll (Torsion
    scanner, ``auto``); they never add up (Z-10). ``wounds`` hit Health with
    the card's ``damage_type``; ``radiation`` and ``psi`` go through the
    armour only under ``armor.absorbs_radiation`` / ``armor.absorbs_psi``.
    Resist artefacts of the damage's type act on it (P-08); ``artifacts``
    and ``intellect`` are as in :func:`compile_anomaly`.

    Raises
    ------
    HazardInputError
        Unknown card names, refused items, or a starting state out of range.
    """
    card = _card(rs.events, event, "event", "event")
    _, suit, health, willpower, durability = _state(rs, stalker, armor, state)
    hero = rs.stalkers[stalker]
    best = best_event_item(held_items(rs, items, EVENT_ITEM_EFFECTS, "on an event"))
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
        armor_absorbs=bool(damage_type) and armor_rolls(rs, damage_type),
        health=health, radiation=state.radiation, radiation_max=hero.radiation_max,
        willpower=willpower, shift=shift,
        artifacts=compile_artifacts(rs, artifacts, _intellect(hero, intellect),
                                    damage_type or None),
        art_rules=artifact_rules(rs),
    )


ALL = -1
"""The artefact mask "every record used" (today's rule: every resist artefact of the
damage's type acts, P-08)."""


@dataclass(frozen=True)
class HazardPlay:
    """The player's decisions in an anomaly or on an event (P-36, P-08), as the kernels
    and the exact twins read them in place of the policy.

    Attributes
    ----------
    enter : bool
        After noticing the anomaly (a passed Perception test, P-31), enter it on
        purpose (P-36) rather than go around; ignored on an event.
    used : int
        Bit mask of the artefact records (in the order carried) used against the
        damage (P-08: the player may leave an artefact unused); :data:`ALL` = every one.
    value : float
        The objective's expected value under these decisions (the solver's figure).
    objective : str
        The objective they were solved for ("" for a fixed policy).
    """

    enter: bool = False
    used: int = ALL
    value: float = float("nan")
    objective: str = ""

    def uses(self, index: int) -> bool:
        """Whether the artefact record ``index`` is used against the damage."""
        return bool(self.used >> index & 1)

    def chosen(self, artifacts: Sequence) -> tuple:
        """The artefacts of ``artifacts`` (specs in the order carried) that are used."""
        return tuple(a for i, a in enumerate(artifacts) if self.uses(i))

    def pack_anomaly(self, params: np.ndarray) -> np.ndarray:
        """A copy of an anomaly's packed params (:meth:`AnomalySpec.pack`) played by these
        decisions: ``A_ENTER`` and ``A_ART_UNUSED`` (the records left unused).
        """
        return S.ANOMALY_PARAMS.pack(params, A_ENTER=int(self.enter), A_ART_UNUSED=self.unused)

    def pack_event(self, params: np.ndarray) -> np.ndarray:
        """A copy of an event's packed params (:meth:`EventSpec.pack`) played by these
        decisions: ``E_ART_UNUSED``.
        """
        return S.EVENT_PARAMS.pack(params, E_ART_UNUSED=self.unused)

    @property
    def unused(self) -> int:
        """Bit mask of the records left unused (what the kernels read; 0 = all used)."""
        return 0 if self.used == ALL else ~self.used & ((1 << MAX_ARTIFACTS) - 1)

    def words(self, artifacts: Sequence, anomaly: bool) -> list[str]:
        """The decisions in a designer's words, e.g. ``["go around when noticed",
        "use Fireball against the damage"]``; only resist artefacts are named.
        """
        out = []
        if anomaly:
            out.append("enter on purpose when noticed (P-36)" if self.enter
                       else "go around when noticed")
        resist = [(i, a.name) for i, a in enumerate(artifacts) if a.effect == ART_RESIST]
        used = [name for i, name in resist if self.uses(i)]
        unused = [name for i, name in resist if not self.uses(i)]
        if used:
            out.append(f"use {', '.join(used)} against the damage")
        if unused:
            out.append(f"leave {', '.join(unused)} unused (P-08)")
        return out


__all__ = [
    "ALL", "ANOMALY_ITEM_EFFECTS", "EVENT_ITEM_EFFECTS", "HazardInputError", "HazardPlay",
    "StartState", "artifact_deck", "compile_anomaly", "compile_event",
]
