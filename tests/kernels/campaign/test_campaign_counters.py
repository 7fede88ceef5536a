"""Seat 1's counters reach the result row and the counts from one declaration (issue 28,
section 1, "Records").

``sim/kernels/campaign/__init__.py`` declares the counters once (``COUNTERS``): each is a
state slot ``S_<name>``, seat 1's result column ``G_<name>`` and, but those in
``UNSUMMED``, a count column ``SUM_<name>``; :func:`sim.kernels.campaign.end.write_result`
copies them through ``COUNTER_SLOTS`` and :func:`sim.kernels.campaign.game._count_game`
adds them through ``SUMMED_SLOTS``. Here both are run on a state whose every slot holds a
different value, and the records are checked for a column that no declaration feeds.
"""

from __future__ import annotations

import numpy as np

from sim.campaign.compile import compile_campaign
from sim.kernels import campaign as K
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.end import write_result
from sim.kernels.campaign.game import _count_game, scratch
from sim.kernels.records import Record
from sim.rules.scenario import load_scenario

GAME_COLUMNS = {"G_END", "G_DAY", "G_WINNERS", "G_DRAWN", "G_FINAL", "G_CAPPED", "G_SEATS"}
"""Result columns that are no counter: the game's own, written from the day and the Zone."""
DAY_SUMS = {"SUM_DAYS", "SUM_DAYS_SQ"}
"""Count columns that are no counter's sum: the end day's."""
UNSET = -777


def undeclared(results: tuple[Record, ...], sums: Record, state: Record) -> list[str]:
    """Result and count columns that are neither the game's own nor a declared counter's, and
    declared counters without a state slot."""
    counters = set(K.COUNTERS)
    left = [name for rec in results for name in rec.slots
            if name not in GAME_COLUMNS and name.removeprefix("G_") not in counters]
    left += [name for name in sums.slots
             if name not in DAY_SUMS and name.removeprefix("SUM_") not in counters]
    left += [f"S_{name}" for name in K.COUNTERS if f"S_{name}" not in state.slots]
    return left


def played(seats: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Seat 1's state (every slot a different value), and the result row written from it."""
    T = compile_campaign(load_scenario(None)).pack()
    G, _ = scratch(T)
    game = tb.state(T, G)
    game.st[:] = 1000 + np.arange(K.S_SIZE)
    game.st[:, K.S_END] = -1  # still in the Zone: CAPPED
    game.st[:, K.S_SLOT] = 0
    res = np.full(K.G_ROW, UNSET, dtype=np.int64)
    write_result(T, G, 9, True, res)
    return game.st[0], res


def test_every_counter_reaches_its_result_column_and_its_sum():
    st, res = played()
    assert len(K.COUNTERS) >= 20 and set(K.UNSUMMED) <= set(K.COUNTERS)
    for name in K.COUNTERS:
        assert res[getattr(K, f"G_{name}")] == st[getattr(K, f"S_{name}")], name
    assert UNSET not in res, "a result column that write_result leaves unwritten"
    max_days, n_characters = 30, 4
    row = np.zeros(K.count_width(max_days, n_characters), dtype=np.int64)
    _count_game(res, row, max_days, n_characters)
    for name in K.COUNTERS:
        if name in K.UNSUMMED:
            assert f"SUM_{name}" not in K.SUMS.slots
        else:
            assert row[getattr(K, f"SUM_{name}")] == res[getattr(K, f"G_{name}")], name
    assert (row[K.SUM_DAYS], row[K.SUM_DAYS_SQ]) == (9, 81)
    assert row[K.CAPPED] == 1 and row[K.HIST + K.CAPPED * (max_days + 1) + 9] == 1


def test_every_result_and_count_column_is_a_counter_or_the_games_own():
    assert undeclared((K.ONE_STALKER, K.GAME), K.SUMS, K.SEAT_STATE) == []
    assert len(K.COUNTER_SLOTS) == len(K.COUNTERS)
    assert len(K.SUMMED_SLOTS) == len(K.COUNTERS) - len(K.UNSUMMED)


def test_a_counter_missing_from_the_declaration_would_be_caught():
    """Guard: a result column, a sum or a state slot added by hand beside the records, not
    through ``COUNTERS``, is named by the check, and only it."""
    grown = Record("game result columns", "G_ROW", (*K.GAME.slots, "G_BRIBES"),
                   start=K.ONE_STALKER.G_SIZE)
    sums = Record("count columns after the ends", "HIST", (*K.SUMS.slots, "SUM_BRIBES"),
                  start=K.ENDS.N_ENDS)
    state = Record("seat state", "S_SIZE", tuple(s for s in K.SEAT_STATE.slots if s != "S_KILLS"))
    assert undeclared((K.ONE_STALKER, grown), sums, state) == ["G_BRIBES", "SUM_BRIBES",
                                                               "S_KILLS"]
