"""The compiled scenario's tables and a game's state arrays are declared once (issue 28,
sections 1 and 2): :data:`sim.kernels.campaign.tables.TABLES` and ``STATE`` name them with
their dimensions, the compile step's ``CampaignArrays`` is generated from them, the packer
(:func:`sim.campaign.compile.pack_slots`) writes each slot's layout from them, and each
accessor of the kernel reads exactly the stretch of the flat array its declaration says."""

from __future__ import annotations

import dataclasses
import textwrap

import numba
import numpy as np
import pytest

from sim.campaign.compile import CampaignArrays, compile_campaign
from sim.campaign.players import compile_game
from sim.kernels import campaign as K
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.game import scratch
from sim.rules.scenario import load_scenario

SEATED = ("items", "trophies", "art_waiting")
"""State arrays with a row per seat: their accessor takes the seat."""


def _probe(names: tuple[str, ...], arrays: str, seated: tuple[str, ...] = ()):
    """A compiled function returning, for each accessor of ``names`` (of slot ``s``, seat ``p``
    for those in ``seated``), where its view begins in ``arrays`` (an element index) and its
    shape (padded with -1 to four dimensions)."""
    body = []
    for k, name in enumerate(names):
        args = f"{arrays}, cp, p" if name in seated else f"{arrays}, cp"
        body.append(f"v = tb.{name}({args})\n"
                    f"out[{k}, 0] = (v.ctypes.data - {arrays}.ctypes.data) // 8\n"
                    f"for d in range(v.ndim):\n    out[{k}, 1 + d] = v.shape[d]\n")
    source = (f"def probe(T, G, s, p):\n    cp = tb.slot(T, s)\n"
              f"    out = np.full(({len(names)}, 5), -1, dtype=np.int64)\n"
              + textwrap.indent("".join(body), "    ") + "    return out\n")
    scope = {"tb": tb, "np": np}
    exec(source, scope)  # noqa: S102 - a test's probe, generated from the declarations
    return numba.njit(cache=False)(scope["probe"])


def _where(base: np.ndarray, view: np.ndarray) -> list[int]:
    """Where ``view`` begins in ``base`` and its shape, as :func:`_probe` gives them."""
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 8
    return [start, *view.shape, *[-1] * (4 - view.ndim)]


def _same(got: np.ndarray, view: np.ndarray, base: np.ndarray) -> bool:
    """Whether a probed view is ``view``: the same shape, and the same start unless empty
    (numpy places an empty view anywhere)."""
    want = _where(base, view)
    return list(got[1:]) == want[1:] and (view.size == 0 or got[0] == want[0])


@pytest.fixture(scope="module")
def games():
    """The packed base scenario and four-player game, and a scratch state of each."""
    out = []
    for arrays in (compile_campaign(load_scenario("base")),
                   compile_game(load_scenario("four_stalkers"))):
        T = arrays.pack()
        out.append((arrays, T, *scratch(T)))
    return out


def test_the_compile_step_arrays_are_the_declared_tables():
    assert tuple(f.name for f in dataclasses.fields(CampaignArrays)) == ("cp", *tb.TABLES)


def test_every_packed_table_reads_back_as_each_slots_array(games):
    for arrays, T, _, _ in games:
        slots = getattr(arrays, "slots", [arrays])
        for s, slot in enumerate(slots):
            assert (tb.header(T, s)[:K.C_SIZE] == slot.cp).all()
            for name in tb.TABLES:
                mine, theirs = tb.table(T, name, s), getattr(slot, name)
                padded = mine[tuple(slice(0, n) for n in theirs.shape)]
                assert np.array_equal(padded, theirs), (s, name)


def test_a_table_the_same_in_every_slot_is_stored_once(games):
    """The four players' route tables are one copy (P-50 routes: the same map)."""
    _, T, _, _ = games[1]
    n = int(T[K.C_N_PLAYERS])
    at = {int(tb.header(T, s)[tb.LAYOUT.index["T_DAY_TABLE"]]) for s in range(n)}
    assert len(at) == 1


def test_every_table_accessor_reads_its_declared_stretch_of_T(games):
    probe = _probe(tuple(tb.TABLES), "T")
    for arrays, T, G, _ in games:
        for s in range(len(getattr(arrays, "slots", [arrays]))):
            got = probe(T, G, s, 0)
            for k, name in enumerate(tb.TABLES):
                assert _same(got[k], tb.table(T, name, s), T), (s, name)


def test_every_state_accessor_reads_its_declared_stretch_of_G(games):
    probe = _probe(tuple(tb.STATE), "G", SEATED)
    for _, T, G, _ in games:
        views = tb.state(T, G)
        for p in range(int(T[K.C_N_PLAYERS])):
            got = probe(T, G, 0, p)
            for k, name in enumerate(tb.STATE):
                view = getattr(views, name)
                assert _same(got[k], view[p] if name in SEATED else view, G), name


def test_the_zone_and_the_seats_head_the_state(games):
    """``ZONE`` at 0, then a ``SEAT_STATE`` row per seat, then the ``STATE`` arrays in order,
    the last ending at ``GS_SIZE``, the length of ``G``."""
    _, T, G, _ = games[1]
    views = tb.state(T, G)
    n = int(T[K.C_N_PLAYERS])
    assert _where(G, views.zone)[:2] == [0, K.Z_SIZE]
    assert [_where(G, views.st[p])[:2] for p in range(n)] == [
        [K.Z_SIZE + p * K.S_SIZE, K.S_SIZE] for p in range(n)]
    ends = K.Z_SIZE + n * K.S_SIZE
    for name in tb.STATE:
        view = getattr(views, name)
        assert _where(G, view)[0] == ends, name
        ends += view.size
    assert ends == G.size == tb.header(T)[tb.LAYOUT.index["GS_SIZE"]]


def test_every_accessor_is_declared():
    """Each table and state accessor of the module is a declared name, and the reverse; the
    arrays with a row per seat are the state arrays whose first dimension is the seats."""
    helpers = {"slot", "seat", "zone", *tb.STREAMS}
    accessors = {name for name, f in vars(tb).items()
                 if isinstance(f, numba.core.extending._Intrinsic) and name not in helpers}
    assert accessors == set(tb.TABLES) | set(tb.STATE)
    assert tb.SEATED == SEATED


def test_a_wrong_stretch_is_seen(games):
    """Guard: a view one element off, or of another shape, fails the checks above."""
    _, T, _, _ = games[0]
    right = tb.table(T, "hexes")
    got = np.array(_where(T, right))
    assert not _same(got, T[1:1 + right.size].reshape(right.shape), T)
    assert not _same(got, right.reshape(-1), T)


def test_every_card_table_is_as_wide_as_its_declared_record():
    """The per-card tables have one column per slot of their record (``HEX`` ``H_*``,
    ``ITEM`` ``I_*``, ...), and ``cp`` one per campaign parameter (``PARAMETERS``)."""
    arrays = compile_campaign(load_scenario("base"))
    widths = {"hexes": K.HEX, "it": K.ITEM, "en": K.ENEMY, "ev": K.EVENT_CARD, "em": K.EMISSION,
              "art_cards": K.ARTIFACT_CARD, "lose_order": K.LOSS}
    for field, record in widths.items():
        assert getattr(arrays, field).shape[1] == record.size, (field, record.title)
        assert tb.TABLES[field][-1] == record.size, field
    assert arrays.cp.shape == (K.PARAMETERS.size,)


def test_the_layout_follows_the_parameters():
    """``LAYOUT`` (where the tables and the state arrays lie) begins where ``PARAMETERS`` ends:
    a slot's header is its parameters, then its layout."""
    assert tb.LAYOUT.start == K.PARAMETERS.size and tb.SLOT_SIZE == tb.LAYOUT.size
