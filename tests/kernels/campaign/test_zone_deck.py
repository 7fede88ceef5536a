"""The Zone deck (P-30, P-47; issue 27, item 2.4): Zone cards instead of per-day numbers.

``zone.csv`` holds the Zone cards; each says how many enemy and anomaly cards it lays,
whether the Environment changes and how many Emission tokens it adds. Under
``zone.cards = "deck"`` the Zone phase draws ``zone.cards_per_phase`` of them, without
replacement, from a stream of its own, and the deck is shuffled back in when it runs out
(Gap). ``"per_day"`` (the default) keeps the per-day keys, so no default number moves.

Exact checks of the compile step, of the kernel's :func:`.zone._zone_card` and
:func:`.zone.zone_phase` (each effect, the reshuffle) and of the reference's
:meth:`~sim.reference.campaign.Game.zone`; bad input (file, line, column, value; exit 2);
and the kernel against the reference on whole games under the deck reading, one stalker
and four (|z| < Z_TOL), with guards that a reference ignoring a card's enemies or its
Environment change is caught.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sim.campaign.compile import compile_campaign
from sim.cli import main
from sim.experiments.campaign import ENDS, TRIAL_COLUMNS, simulate_trials
from sim.experiments.campaign_players import run_players
from sim.kernels import campaign as K
from sim.kernels import rng
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.game import _new_game, scratch
from sim.kernels.campaign.zone import _zone_card, zone_phase
from sim.reference import campaign as reference
from sim.reference import campaign_players
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario, scenario_path
from sim.rules.schema import MAX_ZONE_CARDS
from sim.rules.variants import apply_edits
from tests.conftest import Z_TOL, ruleset_problems
from tests.kernels.campaign.test_campaign_reference import welch_z

DECK = ["rules.zone.cards=deck"]
HEADER = "name,count,enemies,anomalies,environment,emission_tokens,notes\n"


def _base(edits=(), name: str = "base"):
    sc = load_scenario(scenario_path(name))
    if edits:
        sc = dataclasses.replace(sc, ruleset=apply_edits(sc.ruleset, list(edits)))
    return sc


def test_the_kernel_and_the_schema_agree_on_the_deck_size():
    assert K.MAX_ZONE_CARDS == MAX_ZONE_CARDS


def test_the_deck_compiles_a_column_per_kind_in_file_order():
    """The base example deck: four kinds, their copies and effects; the default reading
    (``per_day``) compiles them but does not draw (``C_ZONE_DECK`` 0)."""
    keys = compile_campaign(_base()).cp
    assert keys[K.C_ZONE_DECK] == 0 and keys[K.C_ZONE_DRAWS] == 1
    keys = compile_campaign(_base([*DECK, "rules.zone.cards_per_phase=2"])).cp
    assert keys[K.C_ZONE_DECK] == 1 and keys[K.C_ZONE_DRAWS] == 2

    def column(slot):
        return list(keys[slot:slot + 5])

    assert column(K.C_ZONE_COUNT) == [2, 2, 4, 2, 0]
    assert column(K.C_ZONE_ENEMIES) == [2, 0, 1, 1, 0]
    assert column(K.C_ZONE_ANOMALIES) == [0, 2, 1, 1, 0]
    assert column(K.C_ZONE_ENVIRONMENT) == [0, 0, 0, 1, 0]
    assert column(K.C_ZONE_TOKENS) == [0, 0, 0, 0, 0]


def test_the_example_deck_lays_the_per_day_numbers_on_average():
    """docs/rules.md: the example cards lay 1 enemy and 1 anomaly and change the Environment
    with probability 0.2 per card, the per-day keys' values."""
    rs = _base().ruleset
    cards = [c for c in rs.zone.values() for _ in range(c.count)]
    zone = rs.rules.zone
    assert sum(c.enemies for c in cards) / len(cards) == zone.enemies_per_day
    assert sum(c.anomalies for c in cards) / len(cards) == zone.anomalies_per_day
    assert sum(c.environment for c in cards) / len(cards) == zone.environment_change_chance


# --- the kernel's draw and each card ---------------------------------------------------------


def _cp(counts) -> np.ndarray:
    cp = np.zeros(K.C_SIZE, dtype=np.int64)
    cp[K.C_ZONE_COUNT:K.C_ZONE_COUNT + len(counts)] = counts
    return cp


def test_the_deck_is_drawn_without_replacement_and_shuffled_back_when_it_runs_out():
    """Gap: every run of 4 draws of a deck of 3 + 1 cards holds each card once (a draw with
    replacement would repeat cards within a run); the deck is dealt again when empty."""
    cp = _cp([3, 1])
    zone = np.zeros(K.Z_SIZE, dtype=np.int64)
    zone[K.Z_ZONE_POOL:K.Z_ZONE_POOL + 2] = [3, 1]
    stream = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    rng.seed_stream(stream, 5, 0, rng.ZONE_CARDS)
    draws = [_zone_card(cp, zone, stream) for _ in range(40)]
    for run in range(10):
        assert sorted(draws[4 * run:4 * run + 4]) == [0, 0, 0, 1]
    assert draws[:8] != draws[4:12] or draws[:4] != draws[4:8]  # not one order cycling
    assert list(zone[K.Z_ZONE_POOL:K.Z_ZONE_POOL + 2]) == [0, 0]


def test_a_deck_without_cards_draws_nothing():
    cp, zone = _cp([0, 0]), np.zeros(K.Z_SIZE, dtype=np.int64)
    assert _zone_card(cp, zone, np.zeros(rng.STATE_SIZE, dtype=np.uint64)) == -1


def _kernel_game(sc):
    """A packed scenario and a fresh game (as ``play_games`` allocates it) after ``_new_game``."""
    T = compile_campaign(sc).pack()
    G, R = scratch(T)
    _new_game(T, G, R, 3, 0)
    return (T, G, R), tb.state(T, G)


CARDS = {
    # card (enemies, anomalies, environment, emission_tokens) -> tokens when both limits are 0
    "enemies": ((3, 0, 0, 0), 3 * 2),
    "anomalies": ((0, 2, 0, 0), 2 * 2),
    "environment": ((0, 0, 1, 0), 5),
    "emission_tokens": ((0, 0, 0, 4), 4),
    "all": ((1, 1, 1, 3), 2 + 2 + 5 + 3),
}
"""Each effect of a Zone card, exactly: with ``zone.enemy_limit`` and ``anomaly_limit`` 0
every card laid is past the limit and adds ``emission.tokens_per_limit`` (2 here); an
Environment change adds ``tokens_per_environment`` (5 here)."""


def _one_card(card, limits: int = 0, draws: int = 1):
    enemies, anomalies, environment, tokens = card
    return _base([*DECK, f"rules.zone.cards_per_phase={draws}",
                  f"rules.zone.enemy_limit={limits}", f"rules.zone.anomaly_limit={limits}",
                  "rules.emission.tokens_per_limit=2", "rules.emission.tokens_per_environment=5",
                  "zone.Stalker patrol.count=0", "zone.Anomalous field.count=0",
                  "zone.Weather turns.count=0", f"zone.Zone stirs.enemies={enemies}",
                  f"zone.Zone stirs.anomalies={anomalies}",
                  f"zone.Zone stirs.environment={environment}",
                  f"zone.Zone stirs.emission_tokens={tokens}"])


@pytest.mark.parametrize("effect", list(CARDS))
def test_each_card_effect_in_the_kernel_and_the_reference(effect):
    """P-30, P-47: the card's enemies and anomalies are drawn and (past the limit) go back
    with their tokens, its Environment change and its tokens are added; the decks are whole
    again afterwards. The reference's Zone phase does exactly the same."""
    card, tokens = CARDS[effect]
    sc = _one_card(card)
    arrays, game = _kernel_game(sc)
    enemies, anomalies = game.enemy_pool.copy(), game.anomaly_pool.copy()
    zone_phase(*arrays)
    assert game.zone[K.Z_ETOKENS] == tokens
    assert (game.enemy_pool == enemies).all() and (game.anomaly_pool == anomalies).all()
    assert game.zone[K.Z_ZONE_POOL + 2] == 3  # one Zone stirs of four drawn
    g = reference.Game(reference.Campaign(sc), *(random.Random(s) for s in (1, 2, 3)))
    g.zone()
    assert g.tokens == tokens and g.zone_pool == [0, 0, 3, 0]


def test_cards_are_laid_on_the_board_under_the_limit():
    """Two draws of a card laying an enemy and an anomaly on an empty board: each first
    card of its kind finds a free location, so at least one of each lies there; the cards
    on the board are the cards missing from the pools."""
    sc = _one_card((1, 1, 0, 0), limits=6, draws=2)
    arrays, game = _kernel_game(sc)
    enemies, anomalies = game.enemy_pool.sum(), game.anomaly_pool.sum()
    zone_phase(*arrays)
    board = game.board
    assert game.zone[K.Z_BOARD_E] == (board > 0).sum() >= 1
    assert game.zone[K.Z_BOARD_A] == (board < 0).sum() >= 1
    assert enemies - game.enemy_pool.sum() == game.zone[K.Z_BOARD_E]
    assert anomalies - game.anomaly_pool.sum() == game.zone[K.Z_BOARD_A]
    assert game.zone[K.Z_ETOKENS] == 0 and game.zone[K.Z_ZONE_POOL + 2] == 2


def test_the_default_reading_draws_no_zone_card():
    """``per_day``: the Zone deck is neither dealt nor drawn."""
    arrays, game = _kernel_game(_base())
    zone_phase(*arrays)
    assert not game.zone[K.Z_ZONE_POOL:K.Z_ZONE_POOL + MAX_ZONE_CARDS].any()


# --- bad input ------------------------------------------------------------------------------


def _write(my: Path, text: str) -> None:
    (my / "zone.csv").write_text(HEADER + text)


@pytest.mark.parametrize(("rows", "message"), [
    ("Patrol,2,10,0,0,0,\n", "configs/my/zone.csv:2: column 'enemies': 10 is not in 0..9"),
    ("Patrol,2,1,-1,0,0,\n", "configs/my/zone.csv:2: column 'anomalies': -1 is not in 0..9"),
    ("Patrol,2,1,1,yes,0,\n", "configs/my/zone.csv:2: column 'environment': 'yes' is not 0 or 1"),
    ("Patrol,2,1,1,0,31,\n",
     "configs/my/zone.csv:2: column 'emission_tokens': 31 is not in 0..30"),
    ("".join(f"Card {i},1,1,1,0,0,\n" for i in range(9)),
     "configs/my/zone.csv:10: column 'name': 'Card 8' is card kind 9; the Zone deck holds at "
     "most 8 kinds (give a kind more copies with count)"),
])
def test_a_bad_zone_card_is_refused_naming_file_line_column_value(my, rows, message):
    _write(my, rows)
    assert ruleset_problems(my) == [message]


def test_a_missing_zone_file_is_refused(my):
    (my / "zone.csv").unlink()
    assert ruleset_problems(my) == ["configs/my/zone.csv: file not found"]


def test_an_empty_deck_is_allowed(my):
    """No card: under ``zone.cards = "deck"`` the Zone phase lays nothing."""
    _write(my, "")
    assert dict(load_ruleset(my).zone) == {}


def test_the_command_line_refuses_a_bad_card_with_exit_2(my):
    _write(my, "Patrol,2,10,0,0,0,\n")
    result = CliRunner().invoke(main, ["validate", str(my)])
    assert result.exit_code == 2
    assert "configs/my/zone.csv:2: column 'enemies': 10 is not in 0..9" in result.output
    assert "Traceback" not in result.output


def test_a_bad_reading_is_refused_naming_the_key():
    from sim.rules.variants import VariantError

    with pytest.raises(VariantError, match="zone.cards"):
        _base(["rules.zone.cards=weekly"])


# --- whole games: the kernel against the reference ------------------------------------------

REFERENCE_GAMES = 6_000
GUARD_GAMES = 250
"""Reference games per guard: the largest |z| under the strong deck is then 26.6 (events)
with no enemies laid and 9.8 (day) with no Environment change (92.6 and 36.7 at 3,000
games, the count before)."""
KERNEL_GAMES = 100_000
SEED = 31
METRICS = TRIAL_COLUMNS[1:]
STRONG = [*DECK, "rules.zone.cards_per_phase=2", "zone.Stalker patrol.enemies=3",
          "zone.Weather turns.count=4", "zone.Weather turns.emission_tokens=2"]
"""A deck that presses harder: two cards a phase, patrols of three enemies, four Weather
turns adding two more tokens: the guards' rules move the game visibly."""


@functools.cache
def kernel_sample(edits: tuple[str, ...], seed: int) -> np.ndarray:
    """KERNEL_GAMES kernel games of the base scenario under ``edits``, played once per
    process for the comparison and its guards."""
    return simulate_trials(compile_campaign(_base(edits)), seed, 0,
                           KERNEL_GAMES)[:, :len(TRIAL_COLUMNS)]


def z_scores(edits, game: type = reference.Game, games: int = REFERENCE_GAMES,
             seed: int = SEED) -> dict:
    """Welch z of every ending share, the end day and every counter: ``games`` base games
    of ``game`` (the reference, or a broken one) against KERNEL_GAMES of the kernel."""
    rows = reference.play(_base(edits), games, seed, game)
    ref = np.array([[ENDS.index(r["end"]), *(r[k] for k in METRICS)] for r in rows])
    ker = kernel_sample(tuple(edits), seed)
    z = {end: welch_z(ref[:, 0] == i, ker[:, 0] == i) for i, end in enumerate(ENDS)}
    z.update({m: welch_z(ref[:, j], ker[:, j]) for j, m in enumerate(METRICS, start=1)})
    return z


@pytest.mark.parametrize("edits", [DECK, STRONG], ids=["example", "strong"])
def test_reference_agrees_with_kernel_under_the_deck_reading(edits):
    """P-30, P-47: whole base games under the example deck and a strong one; every ending,
    the end day and every counter."""
    z = z_scores(edits)
    bad = {k: round(v, 2) for k, v in z.items() if not abs(v) < Z_TOL}
    assert not bad, f"reference and kernel disagree (|z| >= {Z_TOL}): {bad}"


class IgnoresTheEnemies(reference.Game):
    """A wrong P-47: a Zone card's enemies are not laid."""

    def lay_cards(self, enemies, anomalies):
        super().lay_cards(0 if self.c.rules.zone.cards == "deck" else enemies, anomalies)


class IgnoresTheEnvironment(reference.Game):
    """A wrong P-47: a Zone card's Environment change adds no token."""

    def zone_card(self):
        card = super().zone_card()
        return card if card is None else dataclasses.replace(card, environment=False)


@pytest.mark.parametrize("game", [IgnoresTheEnemies, IgnoresTheEnvironment])
def test_a_reference_with_a_wrong_rule_is_caught(game):
    """Guards: a reference whose Zone cards lay no enemy, or change no Environment, fails
    the comparison under the strong deck (largest |z| >= Z_TOL)."""
    z = z_scores(STRONG, game, GUARD_GAMES)
    worst = max(z, key=lambda k: abs(z[k]))
    assert abs(z[worst]) >= Z_TOL, f"a broken rule went unnoticed: |z| {z[worst]:.2f} ({worst})"


N_REF, N_MC = 1500, 50_000


def _two_sample_z(k1: int, n1: int, k2: int, n2: int) -> float:
    p1, p2 = k1 / n1, k2 / n2
    se = (p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2) ** 0.5
    return 0.0 if se == 0 else (p1 - p2) / se


def four_stalker_z(four, seed: int = 13) -> dict[str, float]:
    """Reference (``N_REF`` games) against kernel (``N_MC``) on a multiplayer scenario: the
    two-sample z of each seat's win rate, of nobody winning and of the Final Emission."""
    ref = campaign_players.summarise(campaign_players.play(four, N_REF, seed=seed),
                                     len(four.players))
    data = run_players(four, trials=N_MC, seed=seed).to_dict()
    mc = {f"seat{s['seat']}": s["win"]["mc"] for s in data["seats"]}
    mc.update(nobody=data["p_nobody_wins"]["mc"], final=data["p_final_emission"]["mc"])
    return {key: _two_sample_z(ref[key], N_REF, round(p * N_MC), N_MC) for key, p in mc.items()}


def test_four_stalkers_share_one_zone_deck():
    """Four stalkers, one Zone deck drawn once a day (P-47): the reference and the kernel
    give the same win and no-winner rates under the strong deck (two-sample |z| < 4.5)."""
    z = four_stalker_z(_base(STRONG, "four_stalkers"))
    assert all(abs(v) < Z_TOL for v in z.values()), z
