"""``zonesim readings`` of a multiplayer scenario (issue 47, item 7).

The readings of a multiplayer game play every seat on common random numbers and give the
paired change of each seat's win, of p_nobody_wins and of the first-seat advantage; the
turn-order and first-player readings act there (before issue 47.7 the command refused a
multiplayer scenario).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import readings as R

GAMES = 400


@pytest.fixture(scope="module")
def three():
    return R.run_readings(load_scenario("three_stalkers"), trials=GAMES, seed=3)


def test_the_turn_order_and_first_player_readings_act_in_a_multiplayer_game(three):
    """Guard: the readings of three_stalkers are played (the old code refused them), and
    the turn-order and first-player readings change the games (not "no effect")."""
    assert three.metric == R.FIRST_SEAT
    rows = {r["edit"]: r for r in three.rows}
    for key in ("multiplayer.turn_order", "multiplayer.first_player"):
        played = [r for e, r in rows.items() if e.startswith(f"rules.{key}=")]
        assert played, key
        assert all(r["verdict"] != R.NO_EFFECT and r["effect"] > 0 for r in played), played
    # the one-stalker reading of P-44 does not touch a multiplayer game
    alone = rows["rules.death.one_stalker_after_death=new_character"]
    assert alone["verdict"] == R.NO_EFFECT and alone["effect"] == 0


def test_seat_wins_and_nobody_add_up_to_every_game(three):
    """A competitive game with one winner at most (same_day_win = first): the seats' wins
    and p_nobody_wins add up to 1, in the baseline and under each reading that keeps it."""
    names = R.seat_names(3)
    assert list(three.baseline) == names
    assert sum(three.baseline[n]["mc"] for n in names[1:]) == pytest.approx(1.0)
    for r in three.rows:
        if r["key"] != "multiplayer.same_day_win":
            assert sum(r[n] for n in names[1:]) == pytest.approx(1.0), r["edit"]
    first = three.baseline[names[1]]["mc"] - (three.baseline[names[2]]["mc"]
                                               + three.baseline[names[3]]["mc"]) / 2
    assert three.baseline[R.FIRST_SEAT]["mc"] == pytest.approx(first)


def test_zonesim_readings_takes_a_multiplayer_scenario():
    args = ["readings", "three_stalkers", "--trials", "200", "--seed", "2"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["metric"] == R.FIRST_SEAT
    assert "seat_win seat 1 diff" in doc["readings"][0]
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0, table.output
    assert "first-seat advantage" in table.output and "seat_win seat 2: change" in table.output
