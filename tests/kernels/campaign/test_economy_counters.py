"""The economy's counters of the campaign kernel (issue 46, item 6) hold the stalker's purse.

Per game the kernel counts the trophies taken (P-19, P-34) and sold (P-26..P-28), the
artefacts sold (P-11), the rubles each sale brought and the rubles spent (P-13, P-37,
P-40). Their distribution is compared with the plain-Python reference in
``test_campaign_reference.py`` (with guards); here each game's own books must balance: a
character's rubles at the end are his start's, plus the rubles of his sales, less those he
spent, and a trophy is sold only once it was taken. A sale counted twice, or a purchase
not counted, breaks the books of the games it happens in.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.campaign.compile import compile_campaign
from sim.experiments.campaign import COUNTERS, simulate_trials
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario
from tests.kernels.campaign.test_campaign_reference import paths  # noqa: F401 - the fixture

GAMES = 20_000
SEED = 5


def books(path) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The start's rubles and the economy's columns of ``GAMES`` kernel games of ``path``,
    the games in which no new character entered (P-44: his purse starts afresh)."""
    scenario = load_scenario(path)
    rows = simulate_trials(compile_campaign(scenario), SEED, 0, GAMES)
    rows = rows[rows[:, K.G_SEATS + K.SEAT_NEW] == 0]
    return scenario.rubles, {name: rows[:, column] for name, column in COUNTERS.items()}


def unbalanced(start: int, c: dict[str, np.ndarray]) -> int:
    """Games whose purse at the end is not the start's plus the sales less the spending."""
    return int((c["rubles_at_end"] != start + c["trophy_rubles"] + c["artifact_rubles"]
                - c["rubles_spent"]).sum())


@pytest.mark.parametrize("name", ["base", "trader", "cautious", "artifacts_a"])
def test_each_games_purse_is_its_start_plus_its_sales_less_its_spending(paths, name):  # noqa: F811
    start, c = books(paths[name])
    assert len(c["rubles_at_end"]) > GAMES // 2
    assert unbalanced(start, c) == 0
    assert (c["trophies_sold"] <= c["trophies_found"]).all()
    assert (c["artifacts_sold"] <= c["artifacts_found"] + c["exchanges"]).all()
    assert c["rubles_spent"].sum() > 0


def test_the_trader_sells_what_he_finds(paths):  # noqa: F811
    """The trophy hunter (lots of 1, ``sneak = "never"``) sells mutant trophies at Duty's base:
    each lot brings ``economy.mutant_trophy_price`` (P-26, P-28)."""
    _, c = books(paths["trader"])
    assert c["trophies_sold"].mean() > 0.5
    assert c["trophy_rubles"].sum() > 0 and (c["trophy_rubles"] % 500 == 0).all()


def test_a_sale_counted_twice_breaks_the_books(paths):  # noqa: F811
    """Guard: the check above sees a sale counted twice or a purchase left out."""
    start, c = books(paths["trader"])
    twice = {**c, "trophy_rubles": 2 * c["trophy_rubles"]}
    unspent = {**c, "rubles_spent": np.zeros_like(c["rubles_spent"])}
    assert unbalanced(start, twice) > 0 and unbalanced(start, unspent) > 0
