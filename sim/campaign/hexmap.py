"""The hex map compiled to arrays (Z-18 to Z-26).

:func:`compile_map` turns the plain model ``rs.map`` (:class:`sim.rules.Map`)
into a :class:`HexMap`: read-only numpy arrays indexed by hex (file order of
``map.csv``) plus a name lookup. Route planning (:mod:`sim.campaign.route`)
and the campaign kernel work on these arrays only.

Location kinds are small integer codes, ``KINDS.index(location)``; code 0 is
a hex without a location. Road segments are numbered per hex in the order the
``roads`` cell lists them: ``road_seg[h, d]`` is the segment of hex ``h``
that leaves by direction ``d`` (-1: no road on that edge).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.rules.model import Map, Ruleset, default_rules
from sim.rules.schema import DIRECTIONS, EPICENTRE_LOCATIONS, LOCATIONS

KINDS: tuple[str, ...] = ("", *LOCATIONS)
"""Location kind per code: 0 none, 1 open, 2 secret, 3 complex, 4 bunker, 5 base,
6 epicentre, 7 sarcophagus."""

NO_HEX = -1
"""Neighbour value for a missing hex, and "no road" in ``road_seg``."""


@dataclass(frozen=True, eq=False)
class HexMap:
    """The map as arrays; ``n`` hexes in ``map.csv`` order. Every array is read-only.

    Attributes
    ----------
    q, r : ndarray of int32, shape (n,)
        Axial coordinates.
    neighbours : ndarray of int32, shape (n, 6)
        Index of the neighbour in each direction (``DIRECTIONS``), -1 if off the map.
    terrain : ndarray of int8, shape (n,)
        Terrain 1..6 as written (Z-21).
    cost : ndarray of int32, shape (n,)
        Steps to enter the hex: the terrain (Z-22), or ``epicentre_cost`` in the
        Epicentre (Z-03).
    epicentre : ndarray of bool, shape (n,)
        Epicentre hexes, the Sarcophagus included (movement items do not help, Z-03).
    kind : ndarray of int8, shape (n,)
        Location kind code, ``KINDS[kind[h]]``.
    road_seg : ndarray of int8, shape (n, 6)
        Road segment (0-based, per hex) leaving by each direction, -1 for none.
    n_segs : ndarray of int8, shape (n,)
        Number of road segments of each hex (0: not a road hex).
    names, factions : tuple of str, length n
        Location name and base faction, ``""`` if none.
    epicentre_cost : int
        The ``movement.epicentre_cost`` the costs were compiled with.
    """

    q: np.ndarray
    r: np.ndarray
    neighbours: np.ndarray
    terrain: np.ndarray
    cost: np.ndarray
    epicentre: np.ndarray
    kind: np.ndarray
    road_seg: np.ndarray
    n_segs: np.ndarray
    names: tuple[str, ...]
    factions: tuple[str, ...]
    epicentre_cost: int

    def __len__(self) -> int:
        return len(self.names)

    @property
    def n(self) -> int:
        """Number of hexes."""
        return len(self.names)

    @property
    def max_segs(self) -> int:
        """Largest number of road segments in one hex."""
        return int(self.n_segs.max(initial=0))

    def index_of(self, name: str) -> int:
        """Index of the hex whose location is called ``name``.

        Raises
        ------
        KeyError
            If no location has that name (with a "did you mean" hint).
        """
        if name and name in self.names:
            return self.names.index(name)
        close = difflib.get_close_matches(name, [x for x in self.names if x], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise KeyError(f"no location named {name!r} on the map{hint}")

    def index_at(self, q: int, r: int) -> int:
        """Index of the hex at axial ``(q, r)``, -1 if it is not on the map."""
        hit = np.flatnonzero((self.q == q) & (self.r == r))
        return int(hit[0]) if hit.size else NO_HEX

    def of_kind(self, kind: str) -> np.ndarray:
        """Indices (int32, ascending) of the hexes whose location is ``kind``.

        Raises
        ------
        ValueError
            If ``kind`` is not one of :data:`KINDS`.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown location kind {kind!r}; expected one of {KINDS[1:]}")
        return np.flatnonzero(self.kind == KINDS.index(kind)).astype(np.int32)

    def location(self, h: int) -> str:
        """Location kind of hex ``h`` (``""`` if none)."""
        return KINDS[int(self.kind[h])]


def compile_map(source: Ruleset | Map, movement: Any = None) -> HexMap:
    """Compile the map model to arrays.

    Parameters
    ----------
    source : Ruleset or Map
        A loaded ruleset (its ``map``) or the map model itself.
    movement : object, optional
        The ``rules.movement`` section (needs ``epicentre_cost``); by default
        the ruleset's own, or the defaults of ``schema.PARAMS`` for a bare map.

    Returns
    -------
    HexMap

    Raises
    ------
    ValueError
        If the map is empty, or a road edge has no matching road on the other
        side (a loaded ruleset never has one: validation rejects it).
    """
    if isinstance(source, Ruleset):
        model = source.map
        movement = source.rules.movement if movement is None else movement
    else:
        model = source
        movement = default_rules().movement if movement is None else movement
    hexes = model.hexes
    n = len(hexes)
    if n == 0:
        raise ValueError("the map has no hexes")
    index = {(h.q, h.r): i for i, h in enumerate(hexes)}
    neighbours = np.full((n, 6), NO_HEX, dtype=np.int32)
    road_seg = np.full((n, 6), NO_HEX, dtype=np.int8)
    for i, h in enumerate(hexes):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            neighbours[i, d] = index.get((h.q + dq, h.r + dr), NO_HEX)
        for s, segment in enumerate(h.roads):
            road_seg[i, list(segment)] = s
    for i, h in enumerate(hexes):
        for d in np.flatnonzero(road_seg[i] >= 0):
            j = neighbours[i, d]
            if j == NO_HEX or road_seg[j, (d + 3) % 6] < 0:
                raise ValueError(f"hex ({h.q}, {h.r}): the road leaving by {d} has no other end")
    epicentre = np.array([h.location in EPICENTRE_LOCATIONS for h in hexes], dtype=bool)
    terrain = np.array([h.terrain for h in hexes], dtype=np.int8)
    cost = np.where(epicentre, int(movement.epicentre_cost), terrain).astype(np.int32)
    arrays = {
        "q": np.array([h.q for h in hexes], dtype=np.int32),
        "r": np.array([h.r for h in hexes], dtype=np.int32),
        "neighbours": neighbours,
        "terrain": terrain,
        "cost": cost,
        "epicentre": epicentre,
        "kind": np.array([KINDS.index(h.location) for h in hexes], dtype=np.int8),
        "road_seg": road_seg,
        "n_segs": np.array([len(h.roads) for h in hexes], dtype=np.int8),
    }
    for a in arrays.values():
        a.setflags(write=False)
    return HexMap(
        **arrays,
        names=tuple(h.name for h in hexes),
        factions=tuple(h.faction for h in hexes),
        epicentre_cost=int(movement.epicentre_cost),
    )
