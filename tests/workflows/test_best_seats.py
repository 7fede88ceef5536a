"""Seats under everyone's best play (issue 46 item 9): ``balance seats SCENARIO --best-play``.

Before this item the command had no ``--best-play`` (exit 2), and ``balance characters
--best-play`` refused a multiplayer scenario: a seat's balance was measured only under the
scenario's policies.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

from click.testing import CliRunner

from sim.cli import main
from sim.rules.scenario import load_scenario
from sim.workflows import best_seats as workflow
from sim.workflows.optimize import FRESH_FIRST
from sim.workflows.policy_space import Candidate
from tests.workflows.once import once


def _fake_search(gains: dict):
    """An ``optimize`` stand-in: seat N's best is ``flee_at=1``, ahead by ``gains[(round,
    seat)]`` (its interval +-0.01), so the loop's rule is checked without a search."""
    calls = []

    def search(scenario, *, seat, **_):
        n = 1 + sum(1 for s in calls if s == seat)
        calls.append(seat)
        gain = gains.get((n, seat), 0.0)
        return SimpleNamespace(winner=Candidate((("flee_at", 1),)), played=0,
                               reevaluation={"vs_scenario": {"diff": gain,
                                                             "diff_ci_low": gain - 0.01,
                                                             "diff_ci_high": gain + 0.01}})
    return search, calls


def test_a_seat_changes_only_for_a_gain_beyond_noise_and_rounds_stop_when_none_does(
        monkeypatch):
    search, calls = _fake_search({(1, 2): 0.05})  # only seat 2, round 1, gains beyond noise
    monkeypatch.setattr(workflow, "optimize", search)
    sc = load_scenario("three_stalkers")
    result = workflow.best_seats(sc, rounds=5, games=300, seed=1)
    assert calls == [1, 2, 3, 1, 2, 3]  # round 2 changed nothing: converged
    assert result.stopped == "converged" and result.rounds == 2
    assert [changed for *_, changed in result.searches] == [False, True, False] + [False] * 3
    assert result.best.players[1].policy.flee_at == 1
    assert result.best.players[0].policy == sc.players[0].policy
    policies = {r["seat"]: r["policy"] for r in result.seats}
    assert policies[2] == "flee_at=1" and policies[1] == policies[3] == "scenario's policy"


def test_the_command_gives_every_seat_under_everyones_best_play_on_fresh_games(monkeypatch):
    # Both commands search each seat with the same options from the same start: the second
    # reuses the first's round-1 searches (arguments equal: tests/workflows/once.py) and
    # searches only what differs.
    monkeypatch.setattr(workflow, "optimize", once(workflow.optimize))
    result = CliRunner().invoke(main, [
        "balance", "seats", "three_stalkers", "--best-play", "--budget", "2000", "--rounds",
        "1", "--trials", "1000", "--seed", "4", "--format", "json"])
    assert result.exit_code == 0, result.output  # before: no such option, exit 2
    doc = json.loads(result.stdout)
    assert [r["seat"] for r in doc["seats"]] == [1, 2, 3]
    assert [r["character"] for r in doc["seats"]] == [
        p.stalker for p in load_scenario("three_stalkers").players]
    assert doc["first_trial"] == workflow.FINAL_FIRST > FRESH_FIRST + 1000
    for r in doc["seats"]:
        assert r["best_ci_low"] <= r["best_mc"] <= r["best_ci_high"]
        assert r["diff_ci_low"] <= r["diff"] <= r["diff_ci_high"]
    assert len(doc["searches"]) == 3 and {s["policy"] for s in doc["spreads"]} == {
        "scenario", "best"}
    table = CliRunner().invoke(main, [
        "balance", "characters", "three_stalkers", "--best-play", "--budget", "2000",
        "--trials", "1000", "--seed", "4"])
    assert table.exit_code == 0, table.output  # before: refused, a multiplayer scenario
    assert "everyone's best play" in table.output and "seat spread" in table.output
