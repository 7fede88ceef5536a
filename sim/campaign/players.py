"""Compile a multiplayer scenario: one slot of campaign arrays per character (P-44, P-45).

A slot is one character with his loadout and policy, compiled exactly like a
one-stalker scenario (:func:`sim.campaign.compile.compile_campaign`). Slots
``0 .. n - 1`` are the seats' characters (``[[players]]``); when a dead
character is replaced (``multiplayer.after_death = "new_character"``, P-44),
slots ``n .. n + c - 1`` are the ruleset's ``c`` stalker cards with the
new-character kit: the scenario's top-level armour, weapons and policy, the
card's money and no items (the kernel draws ``multiplayer.new_character_items``
random item cards). The kernels take the slots stacked
(:func:`sim.campaign.compile.pack_slots`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.campaign.compile import (
    CampaignArrays,
    CampaignInputError,
    compile_campaign,
    game_keys,
    pack_slots,
    renews,
)
from sim.kernels import campaign as K
from sim.rules.scenario import Scenario

MAX_CHARACTERS = 62
"""Stalker cards a multiplayer game can track: the kernel keeps the discarded (P-44) and
those in play as bits of one int64."""


@dataclass(frozen=True, eq=False)
class GameArrays:
    """A compiled multiplayer scenario: its slots and what the summary needs to name them.

    Attributes
    ----------
    slots : tuple of CampaignArrays
        Seats' characters first, then the new characters (if any).
    seats : tuple of str
        The seats' starting characters, in seat order.
    characters : tuple of str
        The ruleset's stalker cards, in ``stalkers.csv`` order (kernel character indices).
    """

    slots: tuple[CampaignArrays, ...]
    seats: tuple[str, ...]
    characters: tuple[str, ...]

    def pack(self):
        """The kernels' tables: every slot stacked (:func:`pack_slots`)."""
        return pack_slots(self.slots)

    @property
    def max_days(self) -> int:
        """Days simulated at most."""
        return self.slots[0].max_days

    @property
    def n_characters(self) -> int:
        """Stalker cards of the ruleset."""
        return len(self.characters)


def compile_scenario(scenario: Scenario) -> CampaignArrays | GameArrays:
    """A one-stalker scenario's arrays: its one slot (:func:`~sim.campaign.compile.
    compile_campaign`), or, when a death brings a new character (``death.
    one_stalker_after_death = "new_character"``, P-44), every slot (:func:`compile_game`).
    """
    if not scenario.multiplayer and renews(scenario):
        return compile_game(scenario)
    return compile_campaign(scenario)


def compile_game(scenario: Scenario) -> GameArrays:
    """Compile every slot of ``scenario`` and set the game-wide keys in each (P-44, P-45).

    A one-stalker scenario is one slot, or, under ``death.one_stalker_after_death =
    "new_character"``, one seat and the new characters' slots (P-44).
    """
    characters = tuple(scenario.ruleset.stalkers)
    renew = renews(scenario)
    if not scenario.multiplayer and not renew:
        return GameArrays((compile_campaign(scenario),), (scenario.stalker,), characters)
    if len(characters) > MAX_CHARACTERS:
        raise CampaignInputError(f"{len(characters)} stalker cards: a game with new "
                                 f"characters tracks at most {MAX_CHARACTERS} (one bit each)")
    seats = ([scenario.seat(p) for p in range(len(scenario.players))] if scenario.multiplayer
             else [scenario])
    names = tuple(seat.stalker for seat in seats)
    keys = game_keys(scenario)
    if renew:
        seats += [scenario.new_character(c) for c in characters]
    slots = []
    for seat in seats:
        arrays = compile_campaign(seat)
        arrays.cp[:] = K.PARAMETERS.pack(arrays.cp, **keys)
        slots.append(arrays)
    # A find draws its card when any stalker keeps a name of its type (docs/rules.md
    # "Artefacts in the campaign" 7): the same rule for every seat.
    identity = np.maximum.reduce([slot.art_identity for slot in slots])
    for slot in slots:
        slot.art_identity[:] = identity
    return GameArrays(tuple(slots), names, characters)
