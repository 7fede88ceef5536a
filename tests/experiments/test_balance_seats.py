"""Seats apart from characters (issue 26, section 3): ``zonesim balance seats``.

- Every seat is a copy of seat 1 played by one character, so the seats differ
  only in their place in the turn order (P-45).
- P(seat k wins) is the multiplayer campaign's own count on the same seed,
  and every paired difference is the mean of the per-game differences,
  computed here from the per-game rows, with its normal 95 % interval.
- With the first player drawn by lot the seats are exchangeable: no seat
  differs from another (|z| < Z_TOL); with seat 1 first and the first player
  rotating, the seats differ (the parity effect of docs/rules.md), and a
  warning says when the order is a lottery.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim import stats
from sim.campaign.players import compile_game
from sim.cli import main
from sim.experiments.campaign import simulate_trials
from sim.experiments.campaign_players import run_players
from sim.experiments.campaign_seats import (
    SeatsInputError,
    balance_seats,
    order_warnings,
    same_character,
)
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits
from tests.conftest import Z_TOL

FOUR = load_scenario("four_stalkers")
SEAT1 = dataclasses.replace(
    FOUR, ruleset=apply_edits(FOUR.ruleset, ["rules.multiplayer.first_player=seat1"]))
TRIALS, SEED = 6000, 7


def _z(cell: dict) -> float:
    se = (cell["ci_high"] - cell["ci_low"]) / (2 * stats.Z95)
    return cell["mc"] / se if se else 0.0


def test_every_seat_is_seat_one_with_one_character():
    seated = same_character(FOUR, "Ghost")
    money = FOUR.ruleset.stalkers["Ghost"].rubles
    first = dataclasses.replace(FOUR.players[0], stalker="Ghost", rubles=money)
    assert seated.players == (first,) * len(FOUR.players)
    assert same_character(FOUR).players[0].stalker == FOUR.players[0].stalker
    with pytest.raises(SeatsInputError, match="'Nobody' is not a stalker card"):
        same_character(FOUR, "Nobody")
    with pytest.raises(SeatsInputError, match="one-stalker scenario"):
        same_character(load_scenario("base"))


@pytest.fixture(scope="module")
def seat1() -> dict:
    return balance_seats(SEAT1, trials=TRIALS, seed=SEED)


def test_seat_wins_are_the_campaign_counts_and_differences_are_paired(seat1):
    seated = same_character(SEAT1)
    players = run_players(seated, trials=TRIALS, seed=SEED).to_dict()
    rows = simulate_trials(compile_game(seated), SEED, 0, TRIALS)
    won = (rows[:, K.G_WINNERS][:, None] >> np.arange(4)) & 1
    for s in seat1["seats"]:
        k = s["seat"] - 1
        assert s["win"]["mc"] == won[:, k].mean()
        assert s["win"]["mc"] == players["seats"][k]["win"]["mc"]
        d = won[:, k] - won.sum(axis=1) / 4
        mean, low, high = stats.mean_interval(d.sum(), (d * d).sum(), TRIALS)
        assert s["vs_average"]["mc"] == pytest.approx(mean, abs=1e-15)
        assert s["vs_average"]["ci_low"] == pytest.approx(low, abs=1e-12)
        assert s["vs_average"]["ci_high"] == pytest.approx(high, abs=1e-12)
    assert len(seat1["pairs"]) == 6
    for p in seat1["pairs"]:
        d = (won[:, p["seat"] - 1] - won[:, p["against"] - 1]).astype(float)
        mean, low, high = stats.mean_interval(d.sum(), (d * d).sum(), TRIALS)
        assert p["diff"] == {"mc": mean, "ci_low": low, "ci_high": high}
    assert seat1["nobody"]["mc"] == (rows[:, K.G_WINNERS] == 0).mean()
    assert sum(s["vs_average"]["mc"] for s in seat1["seats"]) == pytest.approx(0, abs=1e-12)


def test_seat_one_first_and_rotating_makes_the_seats_differ(seat1):
    assert seat1["warnings"] == [] and seat1["first_player"] == "seat1"
    assert max(abs(_z(p["diff"])) for p in seat1["pairs"]) > 2 * Z_TOL


def test_a_random_first_player_makes_the_seats_exchangeable():
    data = balance_seats(FOUR, trials=TRIALS, seed=SEED)
    assert data["first_player"] == "random"
    for p in data["pairs"]:
        assert abs(_z(p["diff"])) < Z_TOL, p
    for s in data["seats"]:
        assert abs(_z(s["vs_average"])) < Z_TOL, s
    (warning,) = data["warnings"]
    assert "multiplayer.first_player is 'random'" in warning
    assert order_warnings(SEAT1) == []


def test_cli_json_table_and_bad_input(tmp_path):
    args = ["balance", "seats", "four_stalkers", "--trials", "2000", "--seed", "3"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [s["seat"] for s in doc["seats"]] == [1, 2, 3, 4]
    assert doc["character"] == FOUR.players[0].stalker and doc["warnings"]
    assert "warning: multiplayer.first_player is 'random'" in result.stderr
    table = CliRunner().invoke(main, [*args, "--edit", "rules.multiplayer.first_player=seat1"])
    assert table.exit_code == 0, table.output
    assert "seat 1 - seat 2" in table.stdout and "warning" not in table.stderr
    for bad, words in ((["--character", "Nobody"], "'Nobody' is not a stalker card"),
                       (["--edit", "rules.multiplayer.first_player=third"], "first_player")):
        result = CliRunner().invoke(main, [*args, *bad])
        assert result.exit_code == 2 and words in result.output, result.output
        assert "Traceback" not in result.output
    one = CliRunner().invoke(main, ["balance", "seats", "base", "--trials", "10"])
    assert one.exit_code == 2 and "one-stalker scenario" in one.output
