"""Where a compiled scenario and a game's state lie in the kernel's three flat arrays.

The campaign kernel takes a compiled scenario as one ``int64`` array ``T``, a
game's scratch state as another, ``G``, and the game's random streams as a
``uint64`` array ``R``. Every part of the game passes these three (and a few
integers) to the next, so that any part may be a call of its own: numba passes an
array as seven or more arguments, and the sixty arrays of a scenario and a game
state, passed to a part, cost it about 600 cycles a call; inlined instead, the
game body became one function too large for the registers, whose loops computed
every table's address up front (issue 28, section 2).

``T`` holds, for each character slot ``s`` (:func:`slot`), a header of
``SLOT_SIZE`` values: the slot's parameters (``PARAMETERS``, ``C_*``), then the
layout (``LAYOUT``): where each of its tables begins (``T_<TABLE>``), the tables'
dimensions (``N_*``) and where each array of the game state begins in ``G``
(``GS_<ARRAY>``). The tables follow the headers; a table the same in every slot
(the map, the routes, the decks) is stored once and every header points to it.

Each table and state array is declared once, with its dimensions, in
:data:`TABLES` and :data:`STATE`: the packer
(:func:`sim.campaign.compile.pack_slots`) writes the layout from them and an
accessor generated from each declaration reads it (:func:`sim.jitting.views.accessor`;
``tests/test_campaign_tables.py`` ties every accessor to its declaration). An accessor
returns a view with the table's shape: ``hexes(T, cp)[h, H_KIND]`` is hex ``h``'s kind,
``items(G, cp, p)[i]`` the cards of item ``i`` seat ``p`` holds. Python readers (tests,
benchmarks) have the same views in numpy: :func:`table`, :func:`state`, :func:`slot_tables`.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sim.jitting.views import accessor, stretch
from sim.kernels import anomaly as A
from sim.kernels import combat as F
from sim.kernels import rng
from sim.kernels.campaign import (
    AC_SIZE,
    AR_SIZE,
    B_SIZE,
    C_N_PLAYERS,
    H_SIZE,
    I_SIZE,
    L_SIZE,
    M_SIZE,
    MR_SIZE,
    N_DTYPES,
    N_ITEM_EFFECTS,
    N_SIZE,
    PARAMETERS,
    S_SIZE,
    V_SIZE,
    Z_SIZE,
)
from sim.kernels.records import Record

LOADOUT_PHASES = 2
"""Rows of a fight's loadout tables (``e_bonus``, ``e_spend``): round 1, later rounds (P-23)."""
STIMS = 64
"""Doses a fight's stimulant buffer (``stims``) holds at most (Z-12)."""

TABLES = {
    "hexes": ("N_HEX", H_SIZE),
    "day_table": ("N_HEX", "N_TARGETS", "N_ALLOWANCES", "ROUTE_WIDTH"),
    "day_len": ("N_HEX", "N_TARGETS", "N_ALLOWANCES"),
    "target_hex": ("N_TARGETS",),
    "allowance_of_value": ("N_BONUSES",),
    "place_open": ("N_OPEN",),
    "place_secret": ("N_SECRET",),
    "place_any": ("N_PLACES",),
    "it": ("N_ITEMS", I_SIZE),
    "item_order": (N_ITEM_EFFECTS + 1, "N_ITEMS"),
    "lose_order": ("N_LOSE", L_SIZE),
    "shopping": ("N_SHOPPING",),
    "gear": ("N_GEAR", B_SIZE),
    "e_params": ("N_FIGHT_MASKS", "N_ENEMIES", "FIGHT_WIDTH"),
    "e_bonus": ("N_FIGHT_MASKS", "N_ENEMIES", LOADOUT_PHASES, "LOADOUTS"),
    "e_spend": ("N_FIGHT_MASKS", "N_ENEMIES", LOADOUT_PHASES, "LOADOUTS"),
    "e_uses0": ("N_FIGHT_MASKS", "N_ENEMIES", "N_LIMITED"),
    "en": ("N_ENEMIES", N_SIZE),
    "sarcophagus": ("N_SARCOPHAGUS",),
    "a_params": ("N_ANOMALY_MASKS", "N_ANOMALIES", "ANOMALY_WIDTH"),
    "a_count": ("N_ANOMALIES",),
    "art_deck0": ("N_TYPES",),
    "art_value": ("N_TYPES",),
    "ev": ("N_EVENTS", V_SIZE),
    "em": ("N_EMISSIONS", M_SIZE),
    "art_rec": ("N_HELD", N_DTYPES, "RECORD_WIDTH"),
    "art_n": ("N_HELD", N_DTYPES),
    "art_cards": ("N_CARDS", AC_SIZE),
    "art_identity": ("N_TYPES",),
    "armor": ("N_ARMORS", AR_SIZE),
    "ev_resist": ("N_ARMORS", "N_EVENTS"),
    "em_resist": ("N_ARMORS", "N_EMISSIONS", MR_SIZE),
}
"""The compiled scenario's tables (besides the parameters ``cp``, which head each slot), in
order, with their dimensions: a name is the header slot that holds it (``N_*``, or a
parameter such as ``C_N_PLAYERS``), an integer a fixed width. Their meanings are those of
:class:`sim.campaign.compile.CampaignArrays`, whose fields are ``cp`` and these."""

STATE = {
    "items": ("C_N_PLAYERS", "N_ITEMS"),  # the item cards each seat holds
    "order": ("C_N_PLAYERS",),  # today's turn order (seats)
    "enemy_pool": ("N_ENEMIES",),  # the cards left in each shared deck
    "anomaly_pool": ("N_ANOMALIES",),
    "event_pool": ("N_EVENTS",),
    "art_deck": ("N_TYPES",),  # artefact cards left, by type (P-35)
    "art_scratch": ("N_TYPES",),  # the anomaly search's cards set aside (P-35)
    "board": ("N_HEX",),  # the card lying on each hex: enemy e as e + 1, anomaly a as -(a + 1)
    "habitats": ("N_ENEMIES",),  # each enemy card's habitat, from en (HAB_*)
    "fparams": ("FIGHT_WIDTH",),  # the fight primitive's parameters (P_*, artefact records)
    "aparams": ("ANOMALY_WIDTH",),  # the anomaly primitive's (A_*, artefact records)
    "stims": (STIMS,),  # the doses a fight may take, in order (Z-12), 0 after the last
    "uses": ("N_LIMITED",),  # the fight's limited weapons' uses left (P-24)
    "fres": (F.RESULT_SIZE,),  # the fight's result (combat R_*)
    "ares": (A.RESULT_SIZE,),  # the anomaly's result (anomaly R_*)
    # The cards each seat holds as trophies, enemy cards then anomaly cards, where a reading
    # returns them when sold (campaign.killed_enemies = "trophy_sold") or exchanged
    # (campaign.anomaly_trophies = "when_exchanged").
    "trophies": ("C_N_PLAYERS", "N_TROPHIES"),
    "enemy_discard": ("N_ENEMIES",),  # killed cards set aside ("reshuffle_when_empty", P-19)
    # The types of the artefacts each seat waits to sell (S_ART_COUNT), returned to the deck
    # when sold under campaign.sold_artifacts = "returned" (P-11).
    "art_waiting": ("C_N_PLAYERS", "N_TYPES"),
}
"""A game's state arrays in ``G`` after the Zone (``ZONE``, at 0) and the seats' rows
(``SEAT_STATE``, one per seat from ``Z_SIZE``), in order, with their dimensions (as in
:data:`TABLES`; ``N_TROPHIES`` is ``N_ENEMIES + N_ANOMALIES``); a first dimension
``C_N_PLAYERS`` is a row per seat (:data:`SEATED`). The scratch state of one game at a
time (:func:`sim.kernels.campaign.game.scratch`)."""

DIMENSIONS = tuple(dict.fromkeys(
    [d for dims in (*TABLES.values(), *STATE.values()) for d in dims
     if isinstance(d, str) and d not in PARAMETERS.index] + ["N_TROPHIES"]))
"""The header slots of the tables' and state arrays' dimensions, in order of first use."""

LAYOUT = Record("where a slot's tables and a game's state lie", "SLOT_SIZE", (
    *("T_" + name.upper() for name in TABLES),  # where each table begins in T
    *DIMENSIONS,
    *("GS_" + name.upper() for name in STATE),  # where each state array begins in G
    "GS_SIZE",  # the length of G
), start=PARAMETERS.C_SIZE)
globals().update(LAYOUT.constants)

STREAMS = ("dice", "deck", "env", "zone_deck")
"""The game's random streams in ``R``, each ``rng.STATE_SIZE`` words, in this order: DICE,
DECK, ENVIRONMENT (placements, Environment changes, lots) and ZONE_CARDS (the Zone deck's
draws) of :mod:`sim.kernels.rng`, so that a change of policy does not reshuffle the decks
(common random numbers). ``dice(R)`` .. ``zone_deck(R)`` are their views."""
R_SIZE = len(STREAMS) * rng.STATE_SIZE
globals().update({name: stretch(k * rng.STATE_SIZE, rng.STATE_SIZE, rows=False)
                  for k, name in enumerate(STREAMS)})

slot = stretch(0, LAYOUT.SLOT_SIZE)
"""``slot(T, s)``: slot ``s``'s header: parameters (``C_*``) and layout (``T_*``, ``N_*``,
``GS_*``)."""
seat = stretch(Z_SIZE, S_SIZE)
"""``seat(G, p)``: seat ``p``'s state row (``SEAT_STATE``, ``S_*``)."""
zone = stretch(0, Z_SIZE, rows=False)
"""``zone(G)``: the shared Zone (``ZONE``, ``Z_*``): one Emission Track, the board, winners."""


_HEADER = {**PARAMETERS.index, **LAYOUT.index}
"""Every slot of a header by name: the parameters (``C_*``), then the layout."""


def _slots(dims) -> tuple:
    """A declared shape as :func:`sim.jitting.views.accessor` reads it: the header slot of
    each named dimension, a ``(w,)`` for each fixed width.
    """
    return tuple((d,) if isinstance(d, int) else _HEADER[d] for d in dims)


def _accessor(name: str):
    """The accessor of a table (``T``, its slot's header) or state array (``G``, the header,
    and the seat for those with a row per seat: :data:`SEATED`).
    """
    if name in TABLES:
        return accessor(LAYOUT.index["T_" + name.upper()], _slots(TABLES[name]))
    dims = STATE[name]
    if name in SEATED:
        return accessor(LAYOUT.index["GS_" + name.upper()], _slots(dims[1:]),
                        row=_slots(dims[1:2])[0])
    return accessor(LAYOUT.index["GS_" + name.upper()], _slots(dims))


SEATED = tuple(name for name, dims in STATE.items() if dims[0] == "C_N_PLAYERS" and len(dims) > 1)
"""State arrays with a row per seat (``items``, ``trophies``, ``art_waiting``): their
accessor takes the seat, ``items(G, cp, p)``."""

globals().update({name: _accessor(name) for name in (*TABLES, *STATE)})
"""Every table and state array has its accessor, under its name: ``hexes(T, cp)`` is slot
``cp``'s ``hexes`` table, ``board(G, cp)`` the game's board, ``items(G, cp, p)`` seat
``p``'s item cards, each a view with the declared shape (:func:`sim.jitting.views.accessor`)."""


# For Python readers (tests, benchmarks): the same views, in numpy.

def header(T, s: int = 0):
    """Slot ``s``'s header in ``T`` (numpy; :func:`slot`)."""
    return T[s * LAYOUT.SLOT_SIZE:(s + 1) * LAYOUT.SLOT_SIZE]


def shape(dims, cp) -> tuple[int, ...]:
    """A declared shape (:data:`TABLES`, :data:`STATE`) read from a slot's header ``cp``."""
    return tuple(d if isinstance(d, int) else int(cp[_HEADER[d]]) for d in dims)


def _view(flat, cp, where: str, dims):
    """The numpy view of ``flat`` from the offset in header slot ``where``, of shape ``dims``."""
    size = shape(dims, cp)
    at = int(cp[_HEADER[where]])
    return flat[at:at + int(np.prod(size))].reshape(size)


def table(T, name: str, s: int = 0):
    """Slot ``s``'s table ``name`` (:data:`TABLES`), a numpy view of ``T`` with its shape."""
    return _view(T, header(T, s), "T_" + name.upper(), TABLES[name])


def state(T, G) -> SimpleNamespace:
    """A game's state arrays, numpy views of ``G`` by name: ``zone``, ``st`` (a row per seat)
    and those of :data:`STATE` (``items``, ``trophies`` and ``art_waiting`` a row per seat).
    """
    cp = header(T)
    n = int(cp[C_N_PLAYERS])
    views = {"zone": G[:Z_SIZE], "st": G[Z_SIZE:Z_SIZE + n * S_SIZE].reshape(n, S_SIZE)}
    for name, dims in STATE.items():
        views[name] = _view(G, cp, "GS_" + name.upper(), dims)
    return SimpleNamespace(**views)


def slot_tables(T, s: int = 0) -> SimpleNamespace:
    """Slot ``s``'s header (``cp``) and tables (:data:`TABLES`), numpy views of ``T`` by name."""
    return SimpleNamespace(cp=header(T, s), **{name: table(T, name, s) for name in TABLES})
