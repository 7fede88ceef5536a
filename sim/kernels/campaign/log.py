"""The trace log: one game's events written into a flat array, for ``zonesim campaign --trace``.

A traced game (:func:`sim.experiments.campaign_trace.trace_game`) passes a
log array ``L`` to :func:`.game.play_run`; every part that makes a choice or
resolves an encounter writes one event (``LOGGED`` words: day, seat, kind,
values; the kinds are ``LOG_KINDS``) through :func:`note`, and a seat's tracks
through :func:`snapshot`. The Monte Carlo passes an empty log: each call
then returns at its first test, so the games and their random streams are the
same whether they are logged or not (a traced game ``t`` is trial ``t``).
Kernels do no I/O: the log is read and told in words in Python.
"""

from __future__ import annotations

from sim.kernels.campaign import (
    LG_STATE,
    LOG_DAY,
    LOG_EVENTS,
    LOG_HEAD,
    LOG_KIND,
    LOG_SEAT,
    LOG_VALUES,
    LOG_WHEN,
    LOG_WIDTH,
    S_ARMOR,
    S_CONCUSSIONS,
    S_DEFORMATIONS,
    S_EMISSIONS_HIT,
    S_END,
    S_HEALTH,
    S_ITEMS_USED,
    S_KNOCKOUTS,
    S_POS,
    S_RADIATION,
    S_RUBLES,
    S_WEAPONS,
    S_WILLPOWER,
    part,
)

SNAPSHOT = (S_POS, S_HEALTH, S_WILLPOWER, S_RADIATION, S_ARMOR, S_RUBLES, S_ITEMS_USED,
            S_KNOCKOUTS, S_CONCUSSIONS, S_DEFORMATIONS, S_EMISSIONS_HIT, S_END)
"""The seat state slots an ``LG_STATE`` event holds, in order (``LOG_VALUES`` wide)."""


@part
def day(L, d):
    """Today is day ``d`` for the events that follow (nothing without a log)."""
    if L.shape[0] != 0:
        L[LOG_DAY] = d


@part
def note(L, p, kind, a, b, c, d, e, f):
    """Write one event of ``kind`` about seat ``p`` with values ``a .. f`` (unused: 0).

    Nothing without a log; an event past the log's end is counted, not kept.
    """
    if L.shape[0] == 0:
        return
    n = L[LOG_EVENTS]
    L[LOG_EVENTS] = n + 1
    at = LOG_HEAD + n * LOG_WIDTH
    if at + LOG_WIDTH > L.shape[0]:
        return
    L[at + LOG_WHEN] = L[LOG_DAY]
    L[at + LOG_SEAT] = p
    L[at + LOG_KIND] = kind
    v = at + LOG_VALUES
    L[v] = a
    L[v + 1] = b
    L[v + 2] = c
    L[v + 3] = d
    L[v + 4] = e
    L[v + 5] = f


@part
def snapshot(L, p, st, items):
    """Write seat ``p``'s tracks and counters (``SNAPSHOT``), then the item cards he holds
    (``items``: his counts) and his weapons and artefact slots (``S_WEAPONS``' bits), as an
    ``LG_STATE`` event.
    """
    if L.shape[0] == 0:
        return
    note(L, p, LG_STATE, 0, 0, 0, 0, 0, 0)
    at = LOG_HEAD + (L[LOG_EVENTS] - 1) * LOG_WIDTH + LOG_VALUES
    if at + len(SNAPSHOT) + 2 > L.shape[0]:
        return
    for k in range(len(SNAPSHOT)):
        L[at + k] = st[SNAPSHOT[k]]
    held = 0
    for i in range(items.shape[0]):
        held += items[i]
    L[at + len(SNAPSHOT)] = held
    L[at + len(SNAPSHOT) + 1] = st[S_WEAPONS]
