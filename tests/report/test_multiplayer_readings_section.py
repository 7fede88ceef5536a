"""The readings section of a multiplayer report (issue 47, item 7).

Before issue 47.7 the multiplayer battery (:func:`sim.report.build.steps`) had no readings
section; it now plays every reading of the rules over every seat
(:func:`sim.workflows.readings.run_seat_readings`) and the first screen names those that
move a seat's win most.
"""

from __future__ import annotations

import pytest

from sim.report import build, questions
from sim.report import readings as section
from sim.rules.scenario import load_scenario
from sim.workflows import readings as R


def test_the_multiplayer_battery_has_a_readings_section():
    """Guard: the old battery of a multiplayer scenario had no readings step."""
    names = [name for name, _, _ in build.steps(1000, 1000, multiplayer=True)]
    assert "readings" in names


@pytest.fixture(scope="module")
def made():
    return section.readings_section(load_scenario("three_stalkers"), 200, 3)


def test_the_section_gives_every_seat_and_the_first_seat_advantage(made):
    result = made.data["readings"]
    assert result.metric == R.FIRST_SEAT
    (shown,) = made.shown.values()
    assert "first-seat advantage" in shown.columns
    assert {f"seat_win seat {k}: change" for k in (1, 2, 3)} <= set(shown.columns)
    assert "seat 3" in made.text[0] and "nobody wins" in made.text[0]
    keys = {r["key"] for r in result.rows}
    assert {"multiplayer.turn_order", "multiplayer.first_player"} <= keys


def test_the_first_screen_speaks_of_the_seats(made):
    lines = section.verdict_lines({"readings": made})
    assert "a seat's win" in lines[0]
    assert all("first-seat advantage" in line for line in lines[1])
    answer = questions._reading({"readings": made})
    assert answer is not None and "first-seat advantage" in answer.answer
    assert questions._sarcophagus({"readings": made}) is None  # no win rate of one stalker
