"""Clue tokens and Zone tokens (P-39, P-40; Gap "Tokens"; issue 27, item 2.3).

P-39: a radiation mutation costs the stalker half of his clue tokens, P-40: a concussion
half of his Zone tokens, both "rounded in his favour" (with ``n`` he loses ``n // 2``).
How tokens are gained and what they are for the texts leave open; the ``[tokens]`` keys
are a reading, off by default (no number moves): ``*_start`` tokens, ``clues_per_complex``
per Secret Complex explored, ``zone_per_anomaly`` per anomaly gone through, and
``*_use`` (a token heals one point of a track at the end of his turn).

Exact checks of the kernel's own functions (:func:`.end.conditions`,
:func:`.damage.gain_tokens`, :func:`.damage.spend_tokens`) and of the plain-Python
reference, with guards that each check sees a wrong rule; the kernel against the
reference on whole games under the example reading (|z| < Z_TOL) with a guard.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign, token_keys
from sim.kernels import campaign as K
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.damage import gain_tokens, spend_tokens
from sim.kernels.campaign.end import conditions
from sim.reference import campaign as reference
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.variants import apply_edits

CASES = [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (8, 4), (9, 5)]
"""(tokens held, tokens kept): half lost, rounded in his favour (P-39, P-40)."""


def _base(edits=()):
    sc = load_scenario(scenario_path("base"))
    if edits:
        sc = dataclasses.replace(sc, ruleset=apply_edits(sc.ruleset, list(edits)))
    return sc


def _open_hex(sc) -> int:
    return next(i for i, h in enumerate(sc.ruleset.map.hexes) if h.location == "open")


def _kernel(sc, clues: int, zone_tokens: int, *, mutation: bool, concussion: bool):
    """One stalker on an Open Space hex after a damage step; returns his state row."""
    tables = tb.slot_tables(compile_campaign(sc).pack())
    cp = tables.cp
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_POS], st[K.S_END] = _open_hex(sc), -1
    st[K.S_HEALTH], st[K.S_WILLPOWER] = cp[K.C_HEALTH], cp[K.C_WILLPOWER]
    st[K.S_CLUES], st[K.S_ZONE_TOKENS] = clues, zone_tokens
    if mutation:
        st[K.S_RADIATION] = cp[K.C_RADIATION_MAX] + 1
    if concussion:
        st[K.S_WILLPOWER] = 0
    zone = np.zeros(K.Z_SIZE, dtype=np.int64)
    items = np.zeros(tables.it.shape[0], dtype=np.int64)
    conditions(st, zone, cp, tables.hexes, items, tables.lose_order)
    return st


def _reference(sc, clues: int, zone_tokens: int, *, mutation: bool, concussion: bool,
               game: type = reference.Game):
    g = game(reference.Campaign(sc), *(random.Random(s) for s in (1, 2, 3)))
    me = g.me
    me.pos, me.clues, me.zone_tokens = _open_hex(sc), clues, zone_tokens
    if mutation:
        me.radiation = g.c.hero.radiation_max + 1
    if concussion:
        me.willpower = 0
    g.conditions()
    return me


@pytest.mark.parametrize(("held", "kept"), CASES)
def test_a_radiation_mutation_halves_the_clue_tokens_in_his_favour(held, kept):
    """P-39: a mutation takes ``held // 2`` clue tokens (5 -> 3) and leaves the Zone tokens;
    kernel and reference alike, the loss counted."""
    sc = _base()
    st = _kernel(sc, held, 7, mutation=True, concussion=False)
    assert (st[K.S_CLUES], st[K.S_CLUES_LOST], st[K.S_ZONE_TOKENS]) == (kept, held - kept, 7)
    assert st[K.S_DEFORMATIONS] == 1 and st[K.S_RADIATION] == 0
    me = _reference(sc, held, 7, mutation=True, concussion=False)
    assert (me.clues, me.tally["clues_lost"], me.zone_tokens) == (kept, held - kept, 7)


@pytest.mark.parametrize(("held", "kept"), CASES)
def test_a_concussion_halves_the_zone_tokens_in_his_favour(held, kept):
    """P-40: a concussion takes ``held // 2`` Zone tokens and leaves the clue tokens."""
    sc = _base()
    st = _kernel(sc, 7, held, mutation=False, concussion=True)
    assert (st[K.S_ZONE_TOKENS], st[K.S_ZONE_LOST], st[K.S_CLUES]) == (kept, held - kept, 7)
    assert st[K.S_CONCUSSIONS] == 1
    me = _reference(sc, 7, held, mutation=False, concussion=True)
    assert (me.zone_tokens, me.tally["zone_lost"], me.clues) == (kept, held - kept, 7)


def test_a_knockout_takes_no_token():
    """P-37 names belongings, not tokens: a knock-out leaves both kinds."""
    sc = _base()
    tables = tb.slot_tables(compile_campaign(sc).pack())
    cp = tables.cp
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_POS], st[K.S_END], st[K.S_WILLPOWER] = _open_hex(sc), -1, cp[K.C_WILLPOWER]
    st[K.S_CLUES], st[K.S_ZONE_TOKENS] = 5, 5
    conditions(st, np.zeros(K.Z_SIZE, dtype=np.int64), cp, tables.hexes,
                np.zeros(tables.it.shape[0], dtype=np.int64), tables.lose_order)
    assert st[K.S_KNOCKOUTS] == 1 and (st[K.S_CLUES], st[K.S_ZONE_TOKENS]) == (5, 5)


class RoundsAgainstHim(reference.Game):
    """A wrong P-40: half the Zone tokens lost rounded against him (5 -> 2)."""

    def conditions(self):
        held = self.me.zone_tokens
        super().conditions()
        if self.me.tally["concussions"] and self.me.zone_tokens == held - held // 2:
            self.me.zone_tokens = held // 2


def test_the_halving_check_sees_rounding_against_him():
    """Guard: the exact check fails on a reference that rounds against the stalker."""
    me = _reference(_base(), 0, 5, mutation=False, concussion=True, game=RoundsAgainstHim)
    assert me.zone_tokens == 2 != dict(CASES)[5]


# --- gained and spent (the reading's keys) --------------------------------------------------


def test_the_default_tokens_do_nothing():
    """Gap "Tokens": by default no token is held, gained or spent, and the Deformation deck
    (every base card does nothing) is not drawn: today's numbers stay."""
    keys = K.PARAMETERS.pack(**token_keys(_base().ruleset))
    assert set(keys) == {0}


def test_tokens_are_gained_per_complex_and_per_anomaly():
    """``tokens.clues_per_complex`` per Secret Complex explored (P-50), ``zone_per_anomaly``
    per anomaly he went through (P-32)."""
    sc = _base(["rules.tokens.clues_per_complex=2", "rules.tokens.zone_per_anomaly=3"])
    cp = tb.header(compile_campaign(sc).pack())
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_CLUES] = 1
    gain_tokens(st, cp, 1, 2)
    assert (st[K.S_CLUES], st[K.S_ZONE_TOKENS]) == (3, 6)
    g = reference.Game(reference.Campaign(sc), *(random.Random(s) for s in (1, 2, 3)))
    g.me.clues = 1
    g.gain_tokens(1, 2)
    assert (g.me.clues, g.me.zone_tokens) == (3, 6)


@pytest.mark.parametrize(("use", "health", "willpower", "radiation", "want"), [
    ("health", -2, 0, 0, (2, 0, 0, 0)),  # two wounds healed, two tokens left
    ("health", 0, -3, 2, (4, 0, 3, 2)),  # no wound: nothing spent
    ("willpower", 0, -3, 0, (1, 0, 0, 0)),
    ("radiation", 0, 0, 5, (0, 0, 0, 1)),  # four doses removed, one left
    ("none", -2, -3, 5, (4, 2, 3, 5)),
])
def test_tokens_heal_one_point_each_while_it_helps(use, health, willpower, radiation, want):
    """``tokens.clue_use``: each clue token heals one point of its track at the end of his
    turn, up to the card's Health/Willpower or down to no dose (``want``: tokens left,
    wounds, disturbances and doses left); kernel and reference alike."""
    sc = _base(["rules.tokens.clues_start=4", f"rules.tokens.clue_use={use}"])
    cp = tb.header(compile_campaign(sc).pack())
    st = np.zeros(K.S_SIZE, dtype=np.int64)
    st[K.S_CLUES] = 4
    st[K.S_HEALTH] = cp[K.C_HEALTH] + health
    st[K.S_WILLPOWER] = cp[K.C_WILLPOWER] + willpower
    st[K.S_RADIATION] = radiation
    spend_tokens(st, cp)
    got = (st[K.S_CLUES], cp[K.C_HEALTH] - st[K.S_HEALTH], cp[K.C_WILLPOWER] - st[K.S_WILLPOWER],
           st[K.S_RADIATION])
    assert got == want
    g = reference.Game(reference.Campaign(sc), *(random.Random(s) for s in (1, 2, 3)))
    me, hero = g.me, g.c.hero
    assert me.clues == 4  # tokens.clues_start
    me.health, me.willpower = hero.health + health, hero.willpower + willpower
    me.radiation = radiation
    g.spend_tokens()
    assert (me.clues, hero.health - me.health, hero.willpower - me.willpower,
            me.radiation) == want
