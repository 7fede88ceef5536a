"""``zonesim compare campaign``, ``tune campaign`` and ``levers`` on a multiplayer or
cooperative scenario (issue 47, item 7).

Before issue 47.7 ``compare campaign four_stalkers`` was refused ("compare, tune and sweep
play one stalker"). The ``multiplayer`` experiment plays every seat of every variant on
common random numbers and gives each seat's win, ``first_seat_advantage``,
``p_nobody_wins`` (and the cooperative team's win) with the paired change to the baseline.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim.campaign.players import compile_game
from sim.cli import main
from sim.experiments import campaign_multi as MP
from sim.experiments import registry
from sim.rules.scenario import load_scenario
from sim.workflows import compare as C
from sim.workflows import readings as R
from tests.hostile import edited_scenario

GAMES = 300
SEAT1 = "edit=rules.multiplayer.first_player=seat1"
"""A rule-key variant that moves the seats (the turn-order reading, P-45)."""


def _compare(scenario, variants, trials=GAMES, seed=5, metrics=None):
    exp = registry.for_scenario("campaign", scenario)
    parsed = [C.parse_variant(v, exp, f"v{i}") for i, v in enumerate(variants)]
    return C.compare(exp, scenario.ruleset, exp.from_scenario(scenario), parsed,
                     trials=trials, seed=seed, metrics=metrics)


def _rows(result):
    return {(r["variant"], r["metric"]): r for r in result.rows}


def test_compare_campaign_takes_a_multiplayer_scenario_and_gives_every_seat():
    """Guard: the old command refused four_stalkers (exit 2); now every seat's win, the
    first-seat advantage and p_nobody_wins come with the paired change."""
    args = ["compare", "campaign", "four_stalkers", "--baseline", "", "--variant", SEAT1,
            "--trials", str(GAMES), "--seed", "5", "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["experiment"] == MP.NAME
    metrics = {r["metric"] for r in doc["rows"]}
    assert metrics == {MP.FIRST_SEAT, *(f"seat_win.{k}" for k in range(1, 5)),
                       MP.NOBODY_WINS}
    for r in doc["rows"]:
        assert {"diff", "diff_ci_low", "diff_ci_high", "verdict"} <= set(r)
    moved = [r for r in doc["rows"] if r["variant"] != doc["baseline"]]
    assert any(r["diff"] != 0 for r in moved), "the first-player reading moved nothing"


def test_table_and_csv_formats():
    for fmt in ("table", "csv"):
        args = ["compare", "campaign", "three_stalkers", "--baseline", "", "--variant", SEAT1,
                "--trials", "100", "--seed", "1", "--format", fmt]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "first_seat_advantage" in result.stdout


def test_a_no_op_edit_gives_exactly_zero():
    """An edit that sets a value to what it is moves no game: every difference is exactly
    0 with a zero interval (common random numbers, game by game)."""
    sc = load_scenario("three_stalkers")
    same = f"edit=rules.multiplayer.first_player={sc.ruleset.rules.multiplayer.first_player}"
    result = _compare(sc, ["", same, "label=again"])
    for r in result.rows:
        if r["variant"] != "v0":
            assert r["diff"] == r["diff_ci_low"] == r["diff_ci_high"] == 0.0, r


def test_the_paired_difference_agrees_with_two_unpaired_runs():
    """The paired difference equals the difference of the two variants' estimates played
    alone on the same seed (the same games); the variant played on other games (unpaired)
    differs from the baseline by the paired difference within 4.5 combined standard
    errors."""
    sc = load_scenario("three_stalkers")
    paired = _rows(_compare(sc, ["", SEAT1], trials=600))
    alone_base = _rows(_compare(sc, [""], trials=600))
    alone_var = _rows(_compare(sc, [SEAT1], trials=600))
    other_seed = _rows(_compare(sc, [SEAT1], trials=600, seed=99))
    for metric in (MP.FIRST_SEAT, "seat_win.1", MP.NOBODY_WINS):
        p = paired["v1", metric]
        a, b = alone_base["v0", metric], alone_var["v0", metric]
        assert p["diff"] == pytest.approx(b["mc"] - a["mc"], abs=1e-12)
        c = other_seed["v0", metric]  # unpaired: the variant on other games
        half = np.hypot(a["ci_high"] - a["ci_low"], c["ci_high"] - c["ci_low"]) / 2
        assert abs(p["diff"] - (c["mc"] - a["mc"])) <= 4.5 / 1.96 * half, metric


def test_seat_figures_match_the_readings_workflow():
    """The baseline's figures are those ``zonesim readings`` gives (the same games)."""
    sc = load_scenario("three_stalkers")
    rows = _rows(_compare(sc, [""], trials=200, seed=2))
    base = R._seat_values(compile_game(sc), 3, trials=200, seed=2, threads=None)
    assert rows["v0", MP.FIRST_SEAT]["mc"] == pytest.approx(base[:, 0].mean())
    for k in range(3):
        assert rows["v0", f"seat_win.{k + 1}"]["mc"] == pytest.approx(base[:, k + 1].mean())


def test_a_cooperative_scenario_gives_the_team_win(tmp_path):
    path = edited_scenario(tmp_path, 'variant = "competitive"', 'variant = "cooperative"',
                           "four_stalkers.toml")
    sc = load_scenario(path)
    rows = _rows(_compare(sc, ["", "edit=rules.multiplayer.cooperative_needed=1"],
                          trials=200))
    team, nobody = rows["v0", MP.TEAM_WINS], rows["v0", MP.NOBODY_WINS]
    assert team["mc"] == pytest.approx(1 - nobody["mc"])
    for k in range(1, 5):  # a seat out of the game shares no win (cooperative_dead)
        assert rows["v0", f"seat_win.{k}"]["mc"] <= team["mc"]
    assert rows["v1", MP.TEAM_WINS]["diff"] > 0


def test_every_seat_takes_a_loadout_key():
    """A loadout or policy key applies to every seat: ``rubles=5000`` gives each seat 5,000
    rubles; a list edit adds the card to each seat's own list."""
    sc = load_scenario("four_stalkers")
    exp = registry.for_scenario("campaign", sc)
    base = exp.from_scenario(sc)
    for text in ("rubles=5000", "shopping_gear=Shotgun", "item+=Jetpack"):
        case, = C.cases(sc.ruleset, base, [C.parse_variant(text, exp)])
        seated = MP.seated_scenario(case)
        for p, player in enumerate(seated.players):
            if text.startswith("rubles"):
                assert player.rubles == 5000
            elif text.startswith("shopping"):
                assert player.policy.shopping_gear == ("Shotgun",)
            else:
                assert player.items == (*sc.players[p].items, "Jetpack")


def test_a_metric_of_a_seat_the_game_lacks_is_refused():
    sc = load_scenario("three_stalkers")
    with pytest.raises(C.CompareInputError, match="seat_win.4"):
        _compare(sc, ["", SEAT1], metrics=["seat_win.4"])


def test_pay_is_refused_for_a_multiplayer_scenario():
    args = ["compare", "campaign", "four_stalkers", "--baseline", "", "--variant",
            "item+=Jetpack", "--pay", "--trials", "10"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "--pay" in result.output and "Traceback" not in result.output


def test_tune_campaign_takes_a_multiplayer_scenario():
    """Guard: tune campaign four_stalkers was refused; now a target on a seat metric is
    searched and the chosen value re-evaluated on fresh games."""
    args = ["tune", "campaign", "three_stalkers", "--vary",
            "enemies.Bloodsucker.endurance=3,5", "--target",
            "first_seat_advantage in -0.5..0.5", "--trials", "100", "--seed", "1",
            "--method", "scan", "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["experiment"] == MP.NAME


def test_levers_takes_a_multiplayer_scenario(tmp_path):
    args = ["levers", "three_stalkers", "--tables", "rules", "--cards", "multiplayer",
            "--trials", "100", "--seed", "1", "--workers", "1", "--out",
            str(tmp_path / "out"), "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["metric"] == MP.FIRST_SEAT


def test_the_sums_do_not_depend_on_the_block_size():
    sc = load_scenario("three_stalkers")
    exp = registry.for_scenario("campaign", sc)
    base = exp.from_scenario(sc)
    runs = C.cases(sc.ruleset, base, [C.parse_variant(v, exp) for v in ("", SEAT1)])
    one = MP.run_multiplayer_compare(runs, trials=150, seed=4)
    other = MP.run_multiplayer_compare(runs, trials=150, seed=4, block=37)
    assert np.array_equal(one.sums, other.sums)


def test_levers_refuse_a_metric_of_a_seat_the_game_lacks(tmp_path):
    """Guard: levers on three_stalkers with --metric seat_win.4 ended in a traceback."""
    args = ["levers", "three_stalkers", "--tables", "rules", "--cards", "multiplayer",
            "--metric", "seat_win.4", "--trials", "10", "--workers", "1", "--out",
            str(tmp_path / "out")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "seat_win.4" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()
