"""Exact route planning on the hex map (Z-01 to Z-03, Z-19 to Z-26).

Movement model (docs/rules.md, "Map and movement"):

- A day has ``allowance`` steps (``movement.base_steps`` plus the best
  movement item, Z-01, Z-02, Z-19). Entering a hex costs its ``cost``
  (terrain, Z-22, Z-24; ``movement.epicentre_cost`` in the Epicentre, Z-03).
- A move that does not fit in the steps left waits for the next day; steps
  are never borrowed and unused steps are lost (Z-23). A hex whose cost
  exceeds the whole allowance cannot be entered.
- A move into an Epicentre hex must keep the day's steps, including it,
  within the *Epicentre allowance*: ``min(allowance, base_steps)`` unless
  ``movement.items_in_epicentre`` (Z-03).
- Roads (Z-25, Z-26): a road hex costs 1 (terrain 1). Leaving a road hex by
  a road segment other than the one arrived on adds
  ``movement.road_change_cost``. A move off the road, or the first move of a
  day, starts on no segment and pays no change cost.

The search runs over states ``(hex, segment arrived on)`` with the
lexicographic label ``(day, steps used on that day)``. Every move maps a
smaller label to a smaller or equal one (fewer days, or the same day with
fewer steps used, is never worse), so Dijkstra's label-setting search is
exact: it finds the fewest days, then the most steps left on the last day.

Hex indices are positions in ``map.csv`` order (:class:`HexMap`). The search
itself is a numba function on the map arrays; ``plan_route`` is the
plain-Python front end and ``day_paths`` fills the tables a campaign kernel
reads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.campaign.hexmap import HexMap
from sim.jitting.options import jit

UNREACHABLE = -1
"""``Route.days`` and ``route_costs`` days of a target that cannot be reached."""


@dataclass(frozen=True)
class Route:
    """An optimal route: fewest days, then most steps left on the last day.

    Attributes
    ----------
    days : int
        Days of movement; 0 when start is the target, -1 when unreachable.
    steps_left : int
        Steps left on the last day (the allowance when ``days == 0``; 0 when
        unreachable).
    days_path : tuple of tuple of int
        Hexes entered each day, in order; every day enters at least one hex.
    """

    days: int
    steps_left: int
    days_path: tuple[tuple[int, ...], ...]

    @property
    def reachable(self) -> bool:
        """False if the target cannot be reached."""
        return self.days != UNREACHABLE

    @property
    def hexes(self) -> tuple[int, ...]:
        """Every hex entered, in order (the start excluded)."""
        return tuple(h for day in self.days_path for h in day)


def epicentre_allowance(allowance: int, movement: Any) -> int:
    """Steps usable on a day that enters the Epicentre (Z-03).

    Parameters
    ----------
    allowance : int
        The day's allowance, items included.
    movement : object
        The ``rules.movement`` section.
    """
    if movement.items_in_epicentre:
        return int(allowance)
    return min(int(allowance), int(movement.base_steps))


def plan_route(
    hexmap: HexMap,
    start: int,
    target: int,
    allowance: int,
    movement: Any,
    *,
    epicentre_allowance: int | None = None,
) -> Route:
    """The optimal route from ``start`` to ``target`` (fewest days, then most steps left).

    Parameters
    ----------
    hexmap : HexMap
        The compiled map.
    start, target : int
        Hex indices. The route starts at the beginning of a day, off any road
        segment.
    allowance : int
        Steps per day, >= 1 (``movement.base_steps`` + the best movement item).
    movement : object
        The ``rules.movement`` section (``base_steps``, ``epicentre_cost``,
        ``road_change_cost``, ``items_in_epicentre``).
    epicentre_allowance : int, optional
        Steps usable on a day that enters the Epicentre; default
        ``min(allowance, base_steps)`` (every step above the base counts as an
        item's, Z-03), or ``allowance`` if ``movement.items_in_epicentre``.

    Returns
    -------
    Route
        ``days == -1`` if the target cannot be reached.

    Raises
    ------
    ValueError
        On an index off the map, an allowance < 1, or a ``movement`` whose
        Epicentre cost differs from the one the map was compiled with.
    """
    _check(hexmap, [start, target], movement)
    allowance, epi = _allowances(allowance, movement, epicentre_allowance)
    if start == target:
        return Route(0, allowance, ())
    S = hexmap.max_segs + 1
    best, parent = _buffers(hexmap)
    _search(
        hexmap.neighbours, hexmap.cost, hexmap.epicentre, hexmap.road_seg, S,
        start, allowance, epi, int(movement.road_change_cost), best, parent,
    )
    state = _best_state(best, target, S)
    if state < 0:
        return Route(UNREACHABLE, 0, ())
    scale = allowance + 1
    chain = []
    while parent[state] >= 0:
        chain.append(state)
        state = parent[state]
    days: list[list[int]] = []
    for s in reversed(chain):
        day = int(best[s] // scale)
        if day > len(days):
            days.append([])
        days[-1].append(int(s // S))
    last = int(best[chain[0]] % scale)
    return Route(len(days), allowance - last, tuple(tuple(d) for d in days))


def route_costs(
    hexmap: HexMap,
    starts: Any,
    targets: Any,
    allowances: Any,
    movement: Any,
    *,
    epicentre_allowances: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Days and steps left of the optimal route for every (start, target, allowance).

    Parameters
    ----------
    hexmap : HexMap
        The compiled map.
    starts, targets : array_like of int
        Hex indices, shapes (S,) and (T,).
    allowances : array_like of int
        Steps per day, shape (A,), each >= 1.
    movement : object
        The ``rules.movement`` section.
    epicentre_allowances : array_like of int, optional
        Shape (A,); default as in :func:`plan_route`.

    Returns
    -------
    days : ndarray of int32, shape (S, T, A)
        Days of the optimal route; 0 if start == target, -1 if unreachable.
    steps_left : ndarray of int32, shape (S, T, A)
        Steps left on its last day; the allowance if start == target, 0 if
        unreachable.
    """
    _, _, days, left = _all_routes(hexmap, starts, targets, allowances, movement,
                                   epicentre_allowances)
    return days, left


def day_paths(
    hexmap: HexMap,
    starts: Any,
    targets: Any,
    allowances: Any,
    movement: Any,
    *,
    epicentre_allowances: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """First day of the optimal route for every (start, target, allowance), for kernels.

    A campaign kernel moves one day at a time: each morning it looks up the
    hexes to enter today from where it stands. Because every day starts off
    any road segment, following the first day of the optimal route and
    planning again the next morning is itself optimal (the rest of an
    optimal route is an optimal route from where the day ended).

    Parameters
    ----------
    hexmap : HexMap
        The compiled map.
    starts, targets : array_like of int
        Hex indices, shapes (S,) and (T,).
    allowances : array_like of int
        Steps per day, shape (A,), each >= 1.
    movement : object
        The ``rules.movement`` section.
    epicentre_allowances : array_like of int, optional
        Shape (A,); default as in :func:`plan_route`.

    Returns
    -------
    table : ndarray of int32, shape (S, T, A, max(allowances))
        ``table[s, t, a, i]`` is the i-th hex entered on the first day of the
        optimal route from ``starts[s]`` to ``targets[t]`` with
        ``allowances[a]``; -1 past the end (a day enters at most ``allowance``
        hexes, each costing >= 1 step).
    lengths : ndarray of int32, shape (S, T, A)
        Hexes entered on that first day; 0 when start == target or the target
        is unreachable (the row of ``table`` is then all -1).
    """
    table, lengths, _, _ = _all_routes(hexmap, starts, targets, allowances, movement,
                                       epicentre_allowances)
    return table, lengths


_SEARCHES_KEPT = 16
"""Route tables remembered per process (:func:`_all_routes`), least recently used dropped."""

_searches: OrderedDict[tuple, tuple[np.ndarray, ...]] = OrderedDict()
_searches_lock = threading.Lock()


def _all_routes(hexmap: HexMap, starts: Any, targets: Any, allowances: Any, movement: Any,
                epicentre_allowances: Any) -> tuple[np.ndarray, ...]:
    """First-day paths, their lengths, days and steps left for every route (one search each).

    The tables depend only on the map arrays, the hexes, the allowances and
    ``movement.road_change_cost``, and a lever screen, sweep or tuning run
    compiles hundreds of variants that differ elsewhere (a card's value), so
    the last :data:`_SEARCHES_KEPT` results are remembered by the bytes of
    those inputs and handed out as copies.
    """
    starts, targets, allowances, epis = _arrays(
        hexmap, starts, targets, allowances, movement, epicentre_allowances
    )
    change = int(movement.road_change_cost)
    inputs = (hexmap.neighbours, hexmap.cost, hexmap.epicentre, hexmap.road_seg, starts,
              targets, allowances, epis)
    key = (hexmap.max_segs, change, *((a.dtype.str, a.shape, a.tobytes()) for a in inputs))
    with _searches_lock:
        found = _searches.get(key)
        if found is not None:
            _searches.move_to_end(key)
    if found is None:
        found = _search_all(hexmap, starts, targets, allowances, epis, change)
        with _searches_lock:
            _searches[key] = found
            while len(_searches) > _SEARCHES_KEPT:
                _searches.popitem(last=False)
    return tuple(a.copy() for a in found)


def _search_all(hexmap: HexMap, starts: np.ndarray, targets: np.ndarray,
                allowances: np.ndarray, epis: np.ndarray, change: int) -> tuple[np.ndarray, ...]:
    """Run the search for every (start, target, allowance): the four tables of _all_routes."""
    shape = (len(starts), len(targets), len(allowances))
    width = max(1, int(allowances.max(initial=1)))
    table = np.empty((*shape, width), dtype=np.int32)
    lengths = np.empty(shape, dtype=np.int32)
    days = np.empty(shape, dtype=np.int32)
    left = np.empty(shape, dtype=np.int32)
    _day_paths(
        hexmap.neighbours, hexmap.cost, hexmap.epicentre, hexmap.road_seg, hexmap.max_segs + 1,
        starts, targets, allowances, epis, change,
        table, lengths, days, left,
    )
    return table, lengths, days, left


def nearest_table(hexmap: HexMap, kind: str, movement: Any) -> np.ndarray:
    """For every hex, the nearest hex of location ``kind`` (e.g. the nearest bunker, P-37).

    "Nearest" is the optimal route with the base allowance
    (``movement.base_steps``): fewest days, then most steps left; a hex of
    that kind is its own nearest. Ties go to the lowest hex index (P-37 lets
    the player choose; the simulated player takes the first in ``map.csv``).

    Parameters
    ----------
    hexmap : HexMap
        The compiled map.
    kind : str
        A location kind, e.g. ``"bunker"``.
    movement : object
        The ``rules.movement`` section.

    Returns
    -------
    ndarray of int32, shape (n,)
        Hex index, -1 where no hex of that kind can be reached.
    """
    return _nearest(hexmap, np.arange(hexmap.n), kind, movement)


def nearest(hexmap: HexMap, start: int, kind: str, movement: Any) -> int:
    """The nearest hex of location ``kind`` from ``start``; see :func:`nearest_table`.

    Returns
    -------
    int
        Hex index, -1 if no hex of that kind can be reached.
    """
    _check(hexmap, [start], movement)
    return int(_nearest(hexmap, np.array([start]), kind, movement)[0])


def _nearest(hexmap: HexMap, starts: np.ndarray, kind: str, movement: Any) -> np.ndarray:
    goals = hexmap.of_kind(kind)
    out = np.full(len(starts), UNREACHABLE, dtype=np.int32)
    if goals.size == 0:
        return out
    base = int(movement.base_steps)
    days, left = route_costs(hexmap, starts, goals, [base], movement)
    days, left = days[:, :, 0].astype(np.int64), left[:, :, 0].astype(np.int64)
    # Rank (days, steps used, index) as one integer; unreachable ranks last.
    key = (days * (base + 1) + (base - left)) * hexmap.n + goals[None, :]
    key = np.where(days < 0, np.iinfo(np.int64).max, key)
    pick = np.argmin(key, axis=1)
    found = days[np.arange(len(starts)), pick] >= 0
    out[found] = goals[pick[found]]
    return out


# --- checks -----------------------------------------------------------------------------------


def _check(hexmap: HexMap, hexes: Any, movement: Any) -> None:
    for h in hexes:
        if not 0 <= int(h) < hexmap.n:
            raise ValueError(f"hex index {h} is not in 0..{hexmap.n - 1}")
    if int(movement.epicentre_cost) != hexmap.epicentre_cost:
        raise ValueError(
            f"movement.epicentre_cost is {movement.epicentre_cost} but the map was compiled with"
            f" {hexmap.epicentre_cost}; compile it with the same movement rules"
        )


def _allowances(allowance: int, movement: Any, epi: int | None) -> tuple[int, int]:
    allowance = int(allowance)
    if allowance < 1:
        raise ValueError(f"allowance {allowance} is not >= 1")
    epi = epicentre_allowance(allowance, movement) if epi is None else min(int(epi), allowance)
    return allowance, epi


def _arrays(
    hexmap: HexMap, starts: Any, targets: Any, allowances: Any, movement: Any, epis: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    starts = np.asarray(starts, dtype=np.int64).reshape(-1)
    targets = np.asarray(targets, dtype=np.int64).reshape(-1)
    allowances = np.asarray(allowances, dtype=np.int64).reshape(-1)
    _check(hexmap, [*starts, *targets], movement)
    if epis is None:
        pairs = [_allowances(a, movement, None) for a in allowances]
    else:
        epis = np.asarray(epis, dtype=np.int64).reshape(-1)
        if epis.shape != allowances.shape:
            raise ValueError("epicentre_allowances must have the shape of allowances")
        pairs = [_allowances(a, movement, e) for a, e in zip(allowances, epis, strict=True)]
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    e = np.array([p[1] for p in pairs], dtype=np.int64)
    return starts, targets, a, e


def _buffers(hexmap: HexMap) -> tuple[np.ndarray, np.ndarray]:
    ns = hexmap.n * (hexmap.max_segs + 1)
    return np.empty(ns, dtype=np.int64), np.empty(ns, dtype=np.int32)


# --- the search (numba) -----------------------------------------------------------------------


@jit
def _push(heap, size, key):
    i = size
    heap[i] = key
    while i > 0:
        up = (i - 1) // 2
        if heap[up] <= heap[i]:
            break
        heap[up], heap[i] = heap[i], heap[up]
        i = up
    return size + 1


@jit
def _pop(heap, size):
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    i = 0
    while True:
        small, left, right = i, 2 * i + 1, 2 * i + 2
        if left < size and heap[left] < heap[small]:
            small = left
        if right < size and heap[right] < heap[small]:
            small = right
        if small == i:
            break
        heap[small], heap[i] = heap[i], heap[small]
        i = small
    return top, size


@jit
def _search(neighbours, cost, epicentre, road_seg, S, start, allowance, epi, change, best, parent):
    """Dijkstra from ``start`` over states ``h * S + segment + 1`` (segment -1: none).

    Fills ``best[state]`` with the label ``day * (allowance + 1) + used`` (int64
    max if unreachable) and ``parent[state]`` with the previous state (-1 for
    the start and unreached states). Heap keys are ``label * n_states + state``,
    so equal labels pop in state order and the result is deterministic.
    """
    n_states = neighbours.shape[0] * S
    scale = allowance + 1
    best[:] = np.iinfo(np.int64).max
    parent[:] = -1
    heap = np.empty(n_states * 6 + 1, dtype=np.int64)  # one push per improvement
    s0 = start * S
    best[s0] = scale  # day 1, no step used
    size = _push(heap, 0, best[s0] * n_states + s0)
    while size > 0:
        key, size = _pop(heap, size)
        s = key % n_states
        label = key // n_states
        if label != best[s]:
            continue  # stale entry
        day, used = label // scale, label % scale
        h, seg = s // S, s % S - 1
        for d in range(6):
            m = neighbours[h, d]
            if m < 0:
                continue
            c = cost[m]
            limit = epi if epicentre[m] else allowance
            if c > limit:
                continue
            out = road_seg[h, d]
            extra = change if (out >= 0 and seg >= 0 and out != seg) else 0
            arrive = road_seg[m, (d + 3) % 6] if out >= 0 else -1
            if used + c + extra <= limit:
                new = day * scale + used + c + extra
            else:  # Z-23: wait for the next day, which starts off any road segment
                new = (day + 1) * scale + c
            t = m * S + arrive + 1
            if new < best[t]:
                best[t] = new
                parent[t] = s
                size = _push(heap, size, new * n_states + t)


@jit
def _best_state(best, target, S):
    """The reached state of hex ``target`` with the smallest label (-1 if none)."""
    pick = -1
    for s in range(target * S, target * S + S):
        if best[s] != np.iinfo(np.int64).max and (pick < 0 or best[s] < best[pick]):
            pick = s
    return pick


@jit
def _day_paths(
    neighbours, cost, epicentre, road_seg, S, starts, targets, allowances, epis, change,
    table, lengths, days, left,
):
    """Fill the first-day table, its lengths, and the days and steps left of every route."""
    n_states = neighbours.shape[0] * S
    best = np.empty(n_states, dtype=np.int64)
    parent = np.empty(n_states, dtype=np.int32)
    chain = np.empty(n_states, dtype=np.int64)
    table[:] = -1
    lengths[:] = 0
    for i in range(starts.shape[0]):
        for a in range(allowances.shape[0]):
            allowance = allowances[a]
            scale = allowance + 1
            _search(
                neighbours, cost, epicentre, road_seg, S, starts[i], allowance, epis[a], change,
                best, parent,
            )
            for j in range(targets.shape[0]):
                if targets[j] == starts[i]:
                    days[i, j, a] = 0
                    left[i, j, a] = allowance
                    continue
                s = _best_state(best, targets[j], S)
                if s < 0:
                    days[i, j, a] = -1
                    left[i, j, a] = 0
                    continue
                days[i, j, a] = best[s] // scale
                left[i, j, a] = allowance - best[s] % scale
                k = 0
                while parent[s] >= 0:
                    chain[k] = s
                    k += 1
                    s = parent[s]
                m = 0
                for x in range(k - 1, -1, -1):
                    if best[chain[x]] // scale != 1:
                        break
                    table[i, j, a, m] = chain[x] // S
                    m += 1
                lengths[i, j, a] = m
