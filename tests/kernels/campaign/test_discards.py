"""Exchanged anomaly trophies and sold artefacts: back to their decks or not (P-11, P-34).

The texts say nothing of discards (issue 27, item 1.8), so two keys read it, each with the
earlier behaviour as its default (docs/rules.md "Campaign" 3): ``campaign.anomaly_trophies``
(``never``, ``when_exchanged``: the anomaly cards handed in at the Ecologists' Bunker go back
into the anomaly pool, P-34) and ``campaign.sold_artifacts`` (``never``, ``returned``: a sold
artefact's card goes back into the artefact deck, P-11). The kernel's parts and the
reference's methods are checked on exact small cases; whole games of both agree under each
reading (the Welch comparison of
tests/kernels/campaign/test_campaign_reference.py), and a guard shows that
the comparison notices a reference that keeps exchanged trophies out.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sim.kernels import campaign as K
from sim.kernels.campaign.cards import handed_in, sold_artifacts
from sim.reference import campaign as reference
from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits
from tests.kernels.campaign.test_campaign_reference import (
    assert_agrees,
    assert_disagrees,
    scenario,
    z_scores,
)


def _i64(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _game(*edits: str) -> reference.Game:
    base = load_scenario("base")
    played = dataclasses.replace(base, ruleset=apply_edits(base.ruleset, list(edits)))
    streams = [random.Random(f"1:{purpose}") for purpose in ("dice", "deck", "env")]
    return reference.Game(reference.Campaign(played), *streams)


# --- exact small cases -------------------------------------------------------------------


def test_exchanged_trophies_hand_in_the_first_anomaly_cards():
    """P-34 under ``when_exchanged``: 3 trophies exchanged, holding cards 0, 2, 2, 3: cards 0, 2
    and 2 go back (first of anomalies.csv first), card 3 stays a trophy; the reference alike."""
    pool, trophies = _i64(0, 1, 0, 0), _i64(1, 0, 2, 1)
    handed_in(pool, trophies, 3)
    assert tuple(pool) == (1, 1, 2, 0) and tuple(trophies) == (0, 0, 0, 1)
    game = _game("rules.campaign.anomaly_trophies=when_exchanged")
    before = list(game.anomaly_pool)
    game.me.anomaly_cards.update({0: 1, 2: 2, 3: 1})
    game.hand_in(3)
    assert [a - b for a, b in zip(game.anomaly_pool, before, strict=True)][:4] == [1, 0, 2, 0]
    assert game.me.anomaly_cards[3] == 1
    never = _game()
    never.me.anomaly_cards.update({0: 1})
    before = list(never.anomaly_pool)
    never.hand_in(1)
    assert never.anomaly_pool == before  # the default: they never return


@pytest.mark.parametrize(("reading", "back"), [(0, (0, 0, 0)), (1, (1, 1, 0))])
def test_sold_artifacts_return_by_type_less_those_lost(reading, back):
    """P-11 under ``returned``: 3 cards waiting (types 0, 0, 1) but 2 sold (one lost on a
    knock-out, P-37, taken from the first type): types 0 and 1 go back, one each; under
    ``never`` none does. Nothing waits after the sale; the reference alike."""
    cp = np.zeros(K.C_SIZE, dtype=np.int64)
    cp[K.C_SOLD_ARTIFACTS] = reading
    deck, waiting = _i64(0, 0, 0), _i64(2, 1, 0)
    sold_artifacts(cp, deck, waiting, 2)
    assert tuple(deck) == back and tuple(waiting) == (0, 0, 0)
    game = _game(f"rules.campaign.sold_artifacts={'returned' if reading else 'never'}")
    before = list(game.artifact_deck)
    game.me.waiting_types.update({0: 2, 1: 1})
    game.me.artifacts = 2
    game.sell_artifacts()
    assert tuple(a - b for a, b in zip(game.artifact_deck, before, strict=True))[:3] == back
    assert not +game.me.waiting_types


def test_the_defaults_keep_the_earlier_behaviour():
    """The texts say nothing of discards: both keys default to ``never``."""
    rules = load_scenario("base").ruleset.rules.campaign
    assert (rules.anomaly_trophies, rules.sold_artifacts) == ("never", "never")


# --- whole games: the reference agrees with the kernel -----------------------------------

COLLECTOR_RULES = {
    "exchange_trophies = 3 ": "exchange_trophies = 1 ",
    "enemies_per_day = 1 ": "enemies_per_day = 0 ",
    "anomalies_per_day = 1 ": "anomalies_per_day = 3 ",
    'open_location_draw = "event" ': 'open_location_draw = "anomaly" ',
    'secret_location_draw = "enemy" ': 'secret_location_draw = "anomaly" ',
}
"""Anomalies everywhere and one trophy per artefact: the anomaly and artefact decks run low,
so where their discards go shows (``when_exchanged``: about 4.4 more anomalies entered a
game, kernel)."""
COLLECTOR_BODY = ('stalker = "Ghost"\nstart = "Cordon"\n'
                  '[loadout]\nitems = ["Stimulant", "Dosimeter"]\n'
                  '[policy]\nsneak = "never"\nflee_at = 2\nenter_anomalies = true\n')


@pytest.fixture(scope="module")
def collectors(tmp_path_factory):
    """One folder for the module's collector scenarios: a reading's scenario is one file, so
    the comparison and the guard share the kernel's games (``kernel_sample`` is cached by
    path)."""
    return tmp_path_factory.mktemp("collectors")


def _collector(tmp_path, anomalies: str, artifacts: str):
    rules = {**COLLECTOR_RULES,
             'anomaly_trophies = "never" ': f'anomaly_trophies = "{anomalies}" ',
             'sold_artifacts = "never" ': f'sold_artifacts = "{artifacts}" '}
    return scenario(tmp_path, f"collector_{anomalies}_{artifacts}", rules, COLLECTOR_BODY)


@pytest.mark.parametrize(("anomalies", "artifacts"), [
    ("never", "never"), ("when_exchanged", "never"), ("never", "returned"),
    ("when_exchanged", "returned")])
def test_reference_agrees_with_the_kernel_under_each_reading(collectors, anomalies, artifacts):
    """Every ending's share, the end day and every counter (anomalies entered, artefacts found,
    exchanges, ...) agree, |z| < Z_TOL (P-11, P-34)."""
    assert_agrees(z_scores(_collector(collectors, anomalies, artifacts)))


class KeepsExchangedTrophies(reference.Game):
    """A wrong rule: the anomaly cards handed in never come back, whatever the key says."""

    def hand_in(self, n: int) -> None:
        pass


def test_guard_a_reference_that_keeps_exchanged_trophies_out_is_caught(collectors):
    """Guard: under ``when_exchanged`` the broken reference enters fewer anomalies than the
    kernel, and the comparison fails: 250 reference games keep the largest |z| at 52.0
    (trophies found; 175.1 at 3,000 games, the count before)."""
    path = _collector(collectors, "when_exchanged", "never")
    assert_disagrees(z_scores(path, KeepsExchangedTrophies, 250))
