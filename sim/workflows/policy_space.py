"""What ``zonesim optimize`` may change in a scenario's policy: the keys and their values.

Each searched key is a ``[policy]`` key of the scenario (:class:`sim.rules.scenario.Policy`),
a setup key of the ``campaign`` experiment (:data:`sim.experiments.campaign_paired.
CAMPAIGN_KEYS`), and takes every value the rules give it a distinct meaning for:

- ``flee_at``, ``heal_at``, ``medkit_at``, ``retreat_at``: ``0 .. Health`` of the stalker
  card. Each acts "at this Health or less" (P-21, Z-11..Z-14), so 0 is never and the card's
  Health is always; a larger value acts as the card's Health does.
- ``sneak``: ``always`` or ``never`` (P-16, P-17).
- ``enter_anomalies`` (P-36), ``pay_heal`` (P-37) and ``exchange`` (anomaly trophies for
  artefacts at the Ecologists' Bunker, P-34): false or true.
- ``sell_trophies_at``: 0 (never walk to sell) and 1 to :data:`SALE_LOTS` lots of mutant
  trophies (``economy.mutant_trophy_lot``): holding that many, he walks to the Duty base,
  the one buyer (P-26, P-28), and sells them there.
- ``shopping``: every list of up to :data:`SHOPPING_LENGTH` items (repeats allowed, in
  order: each is bought once a visit while money lasts, the first is also the trophy lot's
  Gear; P-11, P-27) drawn from the items the scenario shops for or carries.
- ``route``: "nearest" and every visiting order of the map's Secret Complexes (P-50), when
  the map has at most :data:`ROUTE_ORDERS` of them (else "nearest" and the scenario's).
- ``keep_artifacts``: the held set and every set one artefact card away from it (one added
  or removed; P-11); a set beyond the artefact slots (P-07) is refused by the compile step
  and skipped. Over passes, the set moves one card at a time.
- ``artifact_use``: when each artefact is used (P-08): the table and every table one
  artefact's use away from it, the use one of always, never and each Health
  ``1 .. Health - 1`` of the stalker card (a use at his full Health is "always"); those the
  scenario carries, keeps or buys first, then the others, which a ``keep_artifacts`` or
  loadout candidate may bring: each pass moves those the incumbent may hold
  (:func:`holdable`; the use of another would play his game unchanged). Over passes, the
  table moves one artefact at a time.

The starting loadout (``[loadout]`` keys, :data:`LOADOUT`) is searched within the
stalker's starting money at the cards' prices (P-13; armour, weapon, item and artefact
cards' ``price``, :func:`sim.workflows.prices.loadout_price`):

- ``armor``: none or any armour card (P-05, P-06);
- ``weapons``, ``items``, ``artifacts`` (carried from the start, P-07, P-08): the carried
  list and every list one card away from it: one card removed, one card of the ruleset's
  table added, or one carried card replaced by another. Over passes, the loadout moves one
  card at a time; a list the compile step refuses (more artefacts than slots, P-07) is
  skipped.

The rules give no starting equipment (Gap "Character data": P-44 draws it at random), so
the scenario's loadout is read as the stalker's starting kit, and a change to it is paid
for, or refunded, at the cards' prices out of his starting money (:class:`Purse`, as
``zonesim compare --pay`` pays for a variant's cards): a candidate kit starts with
``rubles - (its price - the scenario's kit's price)``. A kit that leaves less than 0 rubles
is unaffordable and is never proposed.

A :class:`Candidate` is the scenario's policy with some of these keys set to other values.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sim.errors import InputError
from sim.experiments.base import Case
from sim.rules import Ruleset
from sim.rules.settings import settings
from sim.rules.tomlfile import suggest
from sim.workflows.prices import PRICED_KEYS, loadout_price, start_rubles

SEARCHED = tuple(s for s in settings() if s.searched is True)
"""The settings ``zonesim optimize`` searches, as :mod:`sim.rules.settings` marks them (a
``[policy]`` or ``[loadout]`` key), in the table's order."""


def _keys(test) -> tuple[str, ...]:
    """The setup keys (``flee_at``, ``armor``) of the searched settings that pass ``test``."""
    return tuple(s.name.partition(".")[2] for s in SEARCHED if test(s))


THRESHOLDS = _keys(lambda s: s.bound == "health")
"""Keys that act at a Health or less (P-21; Z-11..Z-14; bunker retreat): a threshold the
stalker card's Health bounds."""
CHOICES: dict[str, tuple] = {s.name.partition(".")[2]: s.choices for s in SEARCHED
                             if s.choices}
"""Keys with a fixed set of values (the table's choices, a ``bool``'s false and true)."""
SALES = ("sell_trophies_at",)
"""Keys counted in lots of mutant trophies (``economy.mutant_trophy_lot``): whether to walk
to the Duty base to sell them, and with how many (P-26, P-28)."""
SALE_LOTS = 3
"""Most lots of trophies a stalker is tried holding before he walks to sell them."""
LISTS = _keys(lambda s: s.kind == "policy" and s.type == "cards")
"""Keys whose value is a list of cards."""
USES = _keys(lambda s: s.type == "table")
"""Keys whose value is a table of artefact uses, ``(name, Health)`` pairs (0: never)."""
LOADOUT = _keys(lambda s: s.kind == "loadout")
"""The starting loadout's keys (``[loadout]``: armour, weapons, items, artefacts), each
paid for at its cards' prices (:data:`~sim.workflows.prices.PRICED_KEYS`)."""
KEYS = (*THRESHOLDS, *CHOICES, *SALES, *LISTS, *USES, *LOADOUT)
"""Every key the search may change, in the order it searches them."""
if sorted(KEYS) != sorted(_keys(lambda s: True)):
    raise TypeError("sim.workflows.policy_space has no search domain for the settings "
                    f"{sorted(set(KEYS).symmetric_difference(_keys(lambda s: True)))} that "
                    "sim.rules.settings marks searched (or searches one it does not)")
RUBLES = "rubles"
"""The starting money a candidate is left with after paying for its loadout (:class:`Purse`)."""
ORDER = (*KEYS, RUBLES)
"""Every key a candidate may set: the searched ones, then the money its loadout leaves."""
SHOPPING_LENGTH = 3
"""Longest shopping list tried."""
ROUTE_ORDERS = 5
"""Most Secret Complexes whose every visiting order is tried (5! = 120 orders)."""


LIST_WORDS = {"route": "nearest and every order of the Secret Complexes",
              "shopping": f"lists of up to {SHOPPING_LENGTH} of the items it shops for or "
                          "carries",
              "keep_artifacts": "sets one artefact card apart"}
"""What each of :data:`LISTS` takes, in the words of ``zonesim optimize --help``."""


def in_words() -> str:
    """Every searched key and the values it takes, as ``zonesim optimize --help`` says them
    ("policy keys (...) and its starting loadout (...)"): read from :data:`KEYS`'s groups,
    so the help names every key the search changes.
    """
    by_values: dict[tuple, list[str]] = {}
    for key, values in CHOICES.items():
        by_values.setdefault(values, []).append(key)
    policy = [f"{', '.join(THRESHOLDS)}: 0..the stalker's Health",
              *(f"{', '.join(keys)}: {' or '.join(str(v).lower() for v in values)}"
                for values, keys in by_values.items()),
              *(f"{k}: 0 to {SALE_LOTS} lots of mutant trophies held before he sells them"
                for k in SALES),
              *(f"{k}: {LIST_WORDS[k]}" for k in LISTS),
              *(f"{k}: tables one artefact's use (always, never, a Health) apart"
                for k in USES)]
    cards = ", ".join(k for k in LOADOUT if k != "armor")
    return (f"policy keys ({'; '.join(policy)}) and its starting loadout (armor: none or "
            f"any card; {cards}: lists one card apart)")


class SpaceError(InputError):
    """A search space that cannot be built (an unknown key; exit status 2)."""


@dataclass(frozen=True)
class Dimension:
    """One searched key and the values it takes (the scenario's own among them).

    A key with ``toggles`` (``keep_artifacts``) takes, from a value, that value and each
    value one toggle away; a key with ``cards`` (the loadout's lists) that value and each
    list one card away: a carried card removed, a card added, a carried card replaced; a key
    with ``uses`` (``artifact_use``) that table and each table with one artefact of
    ``uses`` set to another of ``values`` (None: always) (:meth:`values_at`); other keys
    take ``values`` from any value.
    """

    key: str
    values: tuple = ()
    toggles: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()

    def values_at(self, current: Any, setup: Mapping[str, Any] | None = None) -> tuple:
        """The values raced when the incumbent holds ``current`` (itself first).

        With the incumbent's ``setup``, a ``uses`` key moves only the artefacts he may hold
        there (:func:`holdable`): the use of another plays his game unchanged.
        """
        if self.cards:
            return _one_card_away(tuple(current), self.cards)
        if self.key in USES:  # with no artefact to hold, the table alone
            names = self.uses if setup is None else tuple(
                n for n in self.uses if n in holdable(setup))
            return _one_use_away(tuple(current), names, self.values)
        if not self.toggles:
            return self.values
        held = set(current)
        return (tuple(current), *(tuple(t for t in self.toggles if (t in held) != (t == name))
                                  for name in self.toggles))


def _one_card_away(held: tuple[str, ...], cards: tuple[str, ...]) -> tuple:
    """``held``, then each list with one card removed, added or replaced (order kept).

    A card carried twice is removed or replaced at its first place only (the others give
    the same list of cards).
    """
    firsts = [held.index(card) for card in dict.fromkeys(held)]
    out = [held, *(held[:i] + held[i + 1:] for i in firsts),
           *(held + (card,) for card in cards),
           *(held[:i] + (card,) + held[i + 1:] for i in firsts for card in cards
             if card != held[i])]
    return tuple(dict.fromkeys(out))


def holdable(setup: Mapping[str, Any]) -> tuple[str, ...]:
    """The cards a ``campaign`` setup's stalker may hold as artefacts, in slot order: carried,
    kept when found or exchanged, or bought (P-07, P-11, P-13; the campaign's artefact slots;
    the weapons ``shopping_gear`` buys are among them and never match an artefact's name).
    """
    return tuple(dict.fromkeys((*setup["artifacts"], *setup["keep_artifacts"],
                                *setup["shopping_gear"])))


def _one_use_away(table: tuple, names: tuple[str, ...], levels: tuple) -> tuple:
    """``table``, then each table with one artefact of ``names`` used at another of
    ``levels`` (None: always, left out of the table), in name order.
    """
    held = dict(table)
    out = [table]
    for name in names:
        for level in levels:
            if held.get(name) != level:
                changed = {k: v for k, v in held.items() if k != name}
                if level is not None:
                    changed[name] = level
                out.append(tuple(sorted(changed.items())))
    return tuple(dict.fromkeys(out))


def parse_keys(text: str | None) -> tuple[str, ...]:
    """The keys named in ``a,b,c`` (None: every key of :data:`KEYS`), in :data:`KEYS` order.

    Raises
    ------
    SpaceError
        A key that is not one of :data:`KEYS` (field ``keys``), or none at all.
    """
    if text is None:
        return KEYS
    names = [t.strip() for t in text.split(",") if t.strip()]
    for name in names:
        if name not in KEYS:
            raise SpaceError(f"{name!r} is not a policy key the search can change"
                             f"{suggest(name, KEYS)} (known: {', '.join(KEYS)})", "keys")
    if not names:
        raise SpaceError("name at least one key", "keys")
    return tuple(k for k in KEYS if k in names)


def space(rs: Ruleset, setup: Mapping[str, Any], keys: Sequence[str]) -> tuple[Dimension, ...]:
    """The values of each key for the stalker of ``setup`` (a ``campaign`` setup)."""
    health = rs.stalkers[str(setup["stalker"])].health
    pool = tuple(dict.fromkeys((*setup["shopping"], *setup["items"])))
    shopping = tuple(lists for n in range(SHOPPING_LENGTH + 1)
                     for lists in itertools.product(pool, repeat=n))
    out = []
    for k in keys:
        if k in THRESHOLDS:
            out.append(Dimension(k, tuple(range(health + 1))))
        elif k in SALES:
            lot = max(rs.rules.economy.mutant_trophy_lot, 1)
            out.append(Dimension(k, tuple(lot * n for n in range(SALE_LOTS + 1))))
        elif k == "shopping":
            out.append(Dimension(k, shopping))
        elif k == "route":
            out.append(Dimension(k, _routes(rs, tuple(setup["route"]))))
        elif k == "keep_artifacts":
            out.append(Dimension(k, toggles=tuple(rs.artifacts)))
        elif k in USES:
            held = (n for n in holdable(setup) if n in rs.artifacts)
            out.append(Dimension(k, (None, *range(health)),
                                 uses=tuple(dict.fromkeys((*held, *rs.artifacts)))))
        elif k == "armor":
            out.append(Dimension(k, (None, *rs.armor)))
        elif k in LOADOUT:
            out.append(Dimension(k, cards=tuple(getattr(rs, PRICED_KEYS[k]))))
        else:
            out.append(Dimension(k, CHOICES[k]))
    return tuple(out)


def _routes(rs: Ruleset, current: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """"Nearest" (empty), the scenario's route and, on a small map, every visiting order."""
    complexes = [h.name for h in rs.map.hexes if h.location == "complex"]
    orders = (itertools.permutations(complexes) if len(complexes) <= ROUTE_ORDERS else ())
    return tuple(dict.fromkeys(((), current, *orders)))


@dataclass(frozen=True)
class Candidate:
    """A policy and loadout: the scenario's, with ``overrides`` (key, value).

    Only values that differ from the scenario's are held, so two candidates that
    play the same policy are equal.
    """

    overrides: tuple[tuple[str, Any], ...] = ()
    """(key, value) pairs in :data:`ORDER`."""

    def with_value(self, key: str, value: Any, base: Mapping[str, Any]) -> Candidate:
        """The policy with ``key`` set to ``value`` (dropped when it is the scenario's)."""
        held = {k: v for k, v in self.overrides if k != key}
        if base[key] != value:
            held[key] = value
        return Candidate(tuple((k, held[k]) for k in ORDER if k in held))

    def value(self, key: str, base: Mapping[str, Any]) -> Any:
        """The value this policy gives ``key``."""
        return dict(self.overrides).get(key, base[key])

    def setup(self, base: Mapping[str, Any]) -> dict:
        """The ``campaign`` setup this policy plays."""
        return {**base, **dict(self.overrides)}

    @property
    def label(self) -> str:
        """``flee_at=2, sneak=never``, or ``scenario's policy`` when nothing is changed."""
        return (", ".join(f"{k}={value_text(v, k)}" for k, v in self.overrides)
                or SCENARIO_POLICY)


@dataclass(frozen=True)
class Purse:
    """The starting money a candidate's loadout is paid from (module notes; P-13).

    Attributes
    ----------
    base : dict
        The scenario's ``campaign`` setup.
    money : int
        The starting rubles with the scenario's loadout (its ``loadout.rubles``, else the
        stalker card's).
    kit : int
        The scenario's loadout's price.
    """

    rs: Ruleset
    base: Mapping[str, Any]
    money: int
    kit: int

    @classmethod
    def of(cls, rs: Ruleset, base: Mapping[str, Any]) -> Purse:
        """The purse of the scenario whose ``campaign`` setup is ``base``."""
        return cls(rs, base, start_rubles(Case(rs, dict(base))), int(loadout_price(rs, base)))

    def left(self, candidate: Candidate) -> int:
        """Rubles the candidate starts with: the money less its kit's extra price."""
        return self.money - (int(loadout_price(self.rs, candidate.setup(self.base))) - self.kit)

    def settle(self, candidate: Candidate) -> Candidate | None:
        """The candidate with the money its loadout leaves (:data:`RUBLES`); None if below 0.

        The money is set only where it differs from the scenario's.
        """
        left = self.left(candidate)
        if left < 0:
            return None
        return candidate.with_value(RUBLES, self.base[RUBLES] if left == self.money else left,
                                    self.base)


NAIVE = (("flee_at", 0), ("heal_at", 0), ("sneak", "always"), ("route", ()))
"""The naive policy (issue 25, "the skill gap"): never flee (P-21), no stimulants in fights
(Z-12), always sneak (P-16), the nearest Secret Complex first (P-50); every other key as
the scenario has it."""


def naive(base: Mapping[str, Any]) -> Candidate:
    """The :data:`NAIVE` policy on the scenario whose ``campaign`` setup is ``base``."""
    c = Candidate()
    for key, value in NAIVE:
        c = c.with_value(key, value, base)
    return c


SCENARIO_POLICY = "scenario's policy"
"""Label of the candidate that changes nothing."""


def value_text(value: Any, key: str = "") -> str:
    """A policy value in words: ``true``, ``3``, ``Medkit/Stimulant``, ``none``.

    An empty ``route`` reads ``nearest``; no armour (None) reads ``none``.
    """
    if value is None:
        return "none"
    if key == "artifact_use":  # (name, Health) pairs, 0 never
        return "/".join(f"{name} {'never' if use == 0 else f'at {use}'}"
                        for name, use in value) or "always"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple | list):
        return "/".join(map(str, value)) or ("nearest" if key == "route" else "none")
    return str(value)


__all__ = ["CHOICES", "KEYS", "LISTS", "LIST_WORDS", "LOADOUT", "NAIVE", "ORDER",
           "ROUTE_ORDERS", "RUBLES", "SCENARIO_POLICY", "SHOPPING_LENGTH", "THRESHOLDS", "USES",
           "Candidate", "Dimension", "Purse", "SpaceError", "in_words", "naive", "parse_keys",
           "space", "value_text"]
