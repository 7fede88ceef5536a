"""Where a killed enemy's card goes, and a draw that finds none (P-19, P-26..P-28; issue 27, 1.2).

P-19: a killed enemy's card is taken as a trophy; the texts do not say whether it ever
returns to the shared enemy deck, so ``campaign.killed_enemies`` reads it (docs/rules.md
"Campaign" 3): ``never`` (default), ``trophy_sold``, ``at_once``, ``reshuffle_when_empty``.
A draw that finds no suitable card draws nothing. The kernel's parts
(:mod:`sim.kernels.campaign.cards`) and the reference's methods are checked on exact small
cases, then whole four-stalker games of both agree for every reading (|z| < 4.5), and a guard
shows that the comparison notices a reference playing another reading.
"""

from __future__ import annotations

import dataclasses
import functools
import random

import numpy as np
import pytest

from sim.experiments.campaign_players import run_players
from sim.kernels import campaign as K
from sim.kernels import rng
from sim.kernels.campaign.cards import draw_enemy, enemy_killed, sold_trophies
from sim.reference.campaign import Campaign, Game
from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits

READINGS = ("never", "trophy_sold", "at_once", "reshuffle_when_empty")
CODES = {"never": K.KILLED_NEVER, "trophy_sold": K.KILLED_TROPHY_SOLD,
         "at_once": K.KILLED_AT_ONCE, "reshuffle_when_empty": K.KILLED_RESHUFFLE}


def _i64(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _cp(reading: str) -> np.ndarray:
    cp = np.zeros(K.C_SIZE, dtype=np.int64)
    cp[K.C_KILLED_ENEMIES] = CODES[reading]
    return cp


def _with(scenario, *edits: str):
    return dataclasses.replace(scenario, ruleset=apply_edits(scenario.ruleset, list(edits)))


def _reference_game(reading: str) -> Game:
    scenario = _with(load_scenario("base"), f"rules.campaign.killed_enemies={reading}")
    streams = [random.Random(f"1:{purpose}") for purpose in ("dice", "deck", "env")]
    return Game(Campaign(scenario), *streams)


# --- exact small cases -------------------------------------------------------------------


@pytest.mark.parametrize(("reading", "pool", "discard", "trophies"), [
    ("never", (0, 0, 0), (0, 0, 0), (0, 0, 0)),
    ("at_once", (0, 1, 0), (0, 0, 0), (0, 0, 0)),
    ("reshuffle_when_empty", (0, 0, 0), (0, 1, 0), (0, 0, 0)),
    ("trophy_sold", (0, 0, 0), (0, 0, 0), (0, 1, 0)),
])
def test_a_killed_card_goes_where_the_reading_says(reading, pool, discard, trophies):
    """P-19: card 1 killed from an empty deck: gone, back at once, set aside, or a trophy card;
    the kernel's part and the reference's method agree."""
    got = (_i64(0, 0, 0), _i64(0, 0, 0), _i64(0, 0, 0))
    enemy_killed(_cp(reading), *got, 1)
    assert [tuple(a) for a in got] == [pool, discard, trophies]
    game = _reference_game(reading)
    game.enemy_pool, game.enemy_discard = [0] * len(game.c.enemies), [0] * len(game.c.enemies)
    game.killed(1)
    assert game.enemy_pool[:3] == list(pool) and game.enemy_discard[:3] == list(discard)
    assert game.me.trophy_cards[1] == trophies[1]


def test_an_empty_draw_reshuffles_the_discards_only_under_that_reading():
    """A draw finding no suitable card (habitat 1 wanted; card 0 has habitat 0) draws nothing
    unless ``reshuffle_when_empty`` shuffles the killed cards back: then the one suitable
    card is drawn for sure, and every discard is back in the pool."""
    habitat = _i64(K.HAB_OPEN, K.HAB_SECRET, K.HAB_SECRET)
    deck = rng.new_state()
    rng.seed_stream(deck, 1, 0, rng.DECK)
    for reading in READINGS:
        pool, discard = _i64(2, 0, 0), _i64(1, 0, 1)
        e = draw_enemy(_cp(reading), deck, pool, discard, habitat, K.HAB_SECRET)
        if reading == "reshuffle_when_empty":
            assert e == 2 and tuple(pool) == (3, 0, 0) and tuple(discard) == (0, 0, 0)
        else:
            assert e == -1 and tuple(pool) == (2, 0, 0) and tuple(discard) == (1, 0, 1)
    pool, discard = _i64(0, 0, 0), _i64(0, 0, 0)
    assert draw_enemy(_cp("reshuffle_when_empty"), deck, pool, discard, habitat, -1) == -1


def test_the_reference_reshuffles_an_empty_deck_the_same_way():
    """The reference's draw (docs/rules.md "Campaign" 3): nothing suitable left and one
    suitable card set aside: it comes back and is drawn; under ``never`` nothing is drawn."""
    for reading, expected in (("reshuffle_when_empty", 1), ("never", -1)):
        game = _reference_game(reading)
        n = len(game.c.enemies)
        game.enemy_pool, game.enemy_discard = [0] * n, [0] * n
        game.enemy_discard[1] = 1
        assert game.draw_enemy(lambda i: i == 1) == expected
        assert game.enemy_discard[1] == (0 if expected >= 0 else 1)


def test_sold_trophies_return_the_first_cards_of_their_kind():
    """``trophy_sold`` (P-26..P-28): 2 mutant/animal trophies and 1 stalker trophy sold hand in
    the first trophy cards of those kinds in card order; the rest stay with the stalker."""
    en = np.zeros((4, K.N_SIZE), dtype=np.int64)
    en[:, K.N_KIND] = (K.KIND_MUTANT, K.KIND_STALKER, K.KIND_ANIMAL, K.KIND_STALKER)
    pool, trophies = _i64(0, 0, 0, 0), _i64(1, 1, 3, 2)
    sold_trophies(pool, trophies, en, 2, 1)
    assert tuple(pool) == (1, 1, 1, 0) and tuple(trophies) == (0, 0, 2, 2)
    game = _reference_game("trophy_sold")
    kinds = [e.kind for e in game.c.enemies]
    first_stalker = kinds.index("stalker")
    first_other = next(i for i, k in enumerate(kinds) if k != "stalker")
    game.me.trophy_cards.update({first_stalker: 2, first_other: 1})
    before = list(game.enemy_pool)
    game.sell_trophies(True, 1)
    assert game.me.trophy_cards[first_stalker] == 1
    assert game.enemy_pool[first_stalker] == before[first_stalker] + 1
    assert game.enemy_pool[first_other] == before[first_other]


def test_the_default_is_never_and_a_bad_reading_is_refused():
    """The default keeps the earlier behaviour (the texts say nothing of discards); an unknown
    reading is refused naming the key and the allowed values."""
    from sim.rules.variants import VariantError

    assert load_scenario("base").ruleset.rules.campaign.killed_enemies == "never"
    with pytest.raises(VariantError, match="killed_enemies") as info:
        apply_edits(load_scenario("base").ruleset, ["rules.campaign.killed_enemies=sometimes"])
    assert "reshuffle_when_empty" in str(info.value)


# --- whole games: the reference agrees with the kernel ---------------------------------------


def _two_sample_z(k1: int, n1: int, k2: int, n2: int) -> float:
    p1, p2 = k1 / n1, k2 / n2
    se = (p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2) ** 0.5
    return 0.0 if se == 0 else (p1 - p2) / se


N_REF, N_MC = 1500, 50_000


@functools.cache
def _reference(reading: str) -> dict:
    """``N_REF`` reference games of ``four_stalkers`` under ``reading``, summarised; played
    once per process for the comparison and the guard."""
    from sim.reference.campaign_players import play, summarise

    four = load_scenario("four_stalkers")
    reference = _with(four, f"rules.campaign.killed_enemies={reading}")
    return summarise(play(reference, N_REF, seed=13), len(four.players))


@functools.cache
def _kernel(reading: str) -> dict:
    """``N_MC`` kernel games of ``four_stalkers`` under ``reading``, as a dict."""
    four = load_scenario("four_stalkers")
    kernel = _with(four, f"rules.campaign.killed_enemies={reading}")
    return run_players(kernel, trials=N_MC, seed=13).to_dict()


def _z(kernel_reading: str, reference_reading: str) -> dict:
    """z of the reference's P(nobody wins), P(Final Emission) and seats' wins against the
    kernel's on ``four_stalkers`` (where the default empties the enemy deck). The guard's
    two samples are the ``never`` and ``at_once`` comparisons' own."""
    ref, data = _reference(reference_reading), _kernel(kernel_reading)
    mc = {f"seat{s['seat']}": s["win"]["mc"] for s in data["seats"]}
    mc.update(nobody=data["p_nobody_wins"]["mc"], final=data["p_final_emission"]["mc"])
    return {key: _two_sample_z(ref[key], N_REF, round(p * N_MC), N_MC) for key, p in mc.items()}


@pytest.mark.parametrize("reading", READINGS)
def test_reference_agrees_with_the_kernel_for_every_reading(reading):
    """Four stalkers share one enemy deck (P-19, P-26..P-28): both implementations give the
    same win and no-winner rates under each reading (two-sample |z| < 4.5)."""
    z = _z(reading, reading)
    assert all(abs(v) < 4.5 for v in z.values()), z


def test_guard_the_comparison_notices_a_reference_that_never_returns_cards():
    """Guard: a reference that keeps killed cards out (``never``) against a kernel that
    returns them at once disagrees on P(nobody wins) (about -0.10, z > 4.5)."""
    z = _z("at_once", "never")
    assert abs(z["nobody"]) > 4.5, z
