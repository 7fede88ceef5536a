"""The cooperative victory and what a teammate out of the game means (P-44, P-45; issue 27, 1.3).

The seeds leave the victory conditions open (Gap "The Sarcophagus"): the team wins once
``multiplayer.cooperative_needed`` stalkers (0: every seat still in the game) survived the
Sarcophagus, and a seat out of the game (its character dead, no stalker card left for it)
is left out of the team (``multiplayer.cooperative_dead = "ignored"``) or loses the game
for it (``"team_loses"``). A dead character whose seat draws a new one (P-44) is no lost
teammate under either reading.

Hand cases on a copy of ``tests/data/corridor`` (19 hexes in a row: West Lab at 0, the
Camp bunker and start at 6, East Lab at 12, the Sarcophagus at 18; no encounters, Zone
phase or Emissions) with two stalker cards only (Strelok, Scar: a death puts the seat out,
P-44) and a "Killer" in the Sarcophagus deck: Vigilance 0, so a stalker who sneaks
(``sneak = "always"``) passes the Stealth test without a roll (P-16: no success needed) and
survives the Sarcophagus, while one who fights (``"never"``, P-17) meets endurance and
wounds 10 (the largest pool): no Combat pool reaches 10 successes (P-19), 10 wounds without
armour end his Health in the first round (P-20, P-37), and a knock-out in the Sarcophagus
is death (P-43). Route by hand (6 steps a day, the Sarcophagus hex costs 5, Z-03; an
objective reached ends the day's movement): West Lab first reaches the Sarcophagus on day 5
(days 1 to 5: West Lab, Camp, East Lab, 17, in), East Lab first on day 7 (day 1 East Lab,
day 3 West Lab, day 5 East Lab again, day 6 at 17, day 7 in). A new character
starts at Camp the day after a death and plays the top-level policy (West Lab first,
sneaking): in on his day 5.
"""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments.campaign_players import run_players, victory_reading
from sim.reference import campaign_players as reference
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario
from tests.kernels.campaign.test_game_length import killer_corridor
from tests.kernels.campaign.test_multiplayer import _mean_z, _two_sample_z

WEST = 'route = ["West Lab"]'  # in the Sarcophagus on day 5
EAST = 'route = ["East Lab"]'  # on day 7


def _corridor(tmp_path: Path, seats: list[tuple[str, str, str]], rules: str,
              spare: bool = False) -> Path:
    """The corridor with two stalker cards (and a spare one), a Killer in the Sarcophagus."""
    folder = killer_corridor(tmp_path, 0, ("Strelok", "Scar"), spare)
    with (folder / "rules.toml").open("a", encoding="utf-8") as f:
        f.write("\n[multiplayer]\n" + rules)
    body = "".join(f'[[players]]\ncharacter = "{c}"\n[players.policy]\n{route}\n'
                   f'sneak = "{sneak}"\n' for c, route, sneak in seats)
    path = tmp_path / "team.toml"
    path.write_text('ruleset = "corridor"\nstart = "Camp"\nvariant = "cooperative"\n'
                    f'[policy]\n{WEST}\nsneak = "always"\n{body}', encoding="utf-8")
    return path


DIES_FIRST = [("Strelok", WEST, "never"), ("Scar", EAST, "always")]
"""Strelok dies in the Sarcophagus on day 5, Scar survives it on day 7."""
DIES_LAST = [("Strelok", WEST, "always"), ("Scar", EAST, "never")]
"""Strelok survives the Sarcophagus on day 5, Scar dies in it on day 7."""

HAND = [
    # seats, spare card, cooperative_needed, cooperative_dead, wins per seat, days
    (DIES_FIRST, False, 0, "ignored", [0, 1], 7),  # Strelok out: Scar alone is the team
    (DIES_FIRST, False, 1, "ignored", [0, 1], 7),
    (DIES_FIRST, False, 2, "ignored", [0, 0], 5),  # two needed, one seat left: lost
    (DIES_FIRST, False, 0, "team_loses", [0, 0], 5),  # a teammate out: lost at once
    (DIES_FIRST, False, 1, "team_loses", [0, 0], 5),
    (DIES_LAST, False, 0, "ignored", [1, 0], 7),  # Scar out on day 7: Strelok's win
    (DIES_LAST, False, 1, "ignored", [1, 1], 5),  # one needed: both in the game win
    (DIES_LAST, False, 2, "ignored", [0, 0], 7),
    (DIES_LAST, False, 0, "team_loses", [0, 0], 7),
    (DIES_LAST, False, 1, "team_loses", [1, 1], 5),
    # A spare card: seat 1 draws Spare on day 6 (P-44), who survives on day 10.
    (DIES_FIRST, True, 0, "ignored", [1, 1], 10),
    (DIES_FIRST, True, 0, "team_loses", [1, 1], 10),  # replaced: not out of the game
    (DIES_FIRST, True, 1, "team_loses", [1, 1], 7),
]


@pytest.mark.parametrize(("seats", "spare", "needed", "dead", "wins", "days"), HAND)
def test_cooperative_hand_cases_in_the_kernel(tmp_path, seats, spare, needed, dead, wins,
                                              days):
    """P-44, P-45: who wins and when, exactly, in every kernel game."""
    path = _corridor(tmp_path, seats, f"cooperative_needed = {needed}\n"
                     f'cooperative_dead = "{dead}"\n', spare)
    data = run_players(load_scenario(path), trials=30, seed=2).to_dict()
    assert [s["win"]["mc"] for s in data["seats"]] == wins
    assert data["game_days"]["histogram"][days] == 30
    assert data["victory"]["cooperative_needed"] == needed
    assert data["victory"]["cooperative_dead"] == dead


@pytest.mark.parametrize(("seats", "spare", "needed", "dead", "wins", "days"), HAND)
def test_cooperative_hand_cases_in_the_reference(tmp_path, seats, spare, needed, dead, wins,
                                                 days):
    """P-44, P-45: the plain-Python reference gives the same exact outcomes."""
    path = _corridor(tmp_path, seats, f"cooperative_needed = {needed}\n"
                     f'cooperative_dead = "{dead}"\n', spare)
    rows = reference.play(load_scenario(path), 10, 2)
    assert {tuple(row["winners"]) for row in rows} == {
        tuple(p for p, w in enumerate(wins) if w)}
    assert {row["days"] for row in rows} == {days}


def test_guard_the_hand_cases_tell_the_readings_apart(tmp_path):
    """Guard: a reference that ignores ``cooperative_dead`` (always "ignored") fails the
    "team_loses" hand case: Scar's lone win on day 7 instead of the team's loss on day 5."""
    path = _corridor(tmp_path, DIES_FIRST, 'cooperative_dead = "team_loses"\n')
    scenario = load_scenario(path)
    keys = scenario.ruleset.rules.multiplayer
    assert keys.cooperative_dead == "team_loses"
    table = reference.Table(scenario, reference.campaigns(scenario),
                            [random.Random(k) for k in range(3)])
    table.keys = dataclasses.replace(keys, cooperative_dead="ignored")
    row = table.play()
    assert (row["winners"], row["days"]) == ([1], 7) != ([], 5)


def _four_cooperative(tmp_path: Path, rules: str) -> Path:
    """``four_stalkers`` as a cooperative game on a copy of the base ruleset with ``rules``."""
    from sim.paths import bundled_ruleset

    folder = tmp_path / "base"
    shutil.copytree(bundled_ruleset("base"), folder)
    with (folder / "rules.toml").open("a", encoding="utf-8") as f:
        f.write("\n[multiplayer]\n" + rules)
    text = Path(load_scenario("four_stalkers").path).read_text(encoding="utf-8")
    path = tmp_path / "four.toml"
    path.write_text(text.replace('variant = "competitive"', 'variant = "cooperative"')
                    .replace('ruleset = "base"', f'ruleset = "{folder}"'), encoding="utf-8")
    return path


def _z_scores(ref, n_ref: int, data: dict) -> dict[str, float]:
    """Two-sample z of every reported probability and mean: reference against kernel."""
    n_mc = data["trials"]
    mc = {f"seat{s['seat']}": s["win"]["mc"] for s in data["seats"]}
    mc.update(nobody=data["p_nobody_wins"]["mc"], final=data["p_final_emission"]["mc"])
    z = {key: _two_sample_z(ref[key], n_ref, round(p * n_mc), n_mc) for key, p in mc.items()}
    z["days"] = _mean_z(ref, "days", n_ref, data["game_days"])
    return z


def test_team_loses_agrees_with_the_reference_on_four_stalkers(tmp_path):
    """P-45 ``cooperative_dead = "team_loses"`` with one stalker needed, four seats and every
    card in play (each death puts a seat out): kernel and reference agree in distribution
    (|z| < 4.5); guard: the reference under "ignored" is told apart (P(nobody wins) moves by
    about 0.17, the comparison's standard error is about 0.013): 250 games of it keep |z| at
    8.0 (16.0 at 1,500 games, the count before)."""
    path = _four_cooperative(tmp_path, 'cooperative_needed = 1\ncooperative_dead = "team_loses"\n')
    scenario = load_scenario(path)
    n_ref = 1500
    data = run_players(scenario, trials=100_000, seed=11).to_dict()
    ref = reference.summarise(reference.play(scenario, n_ref, seed=11), 4)
    z = _z_scores(ref, n_ref, data)
    assert all(abs(v) < 4.5 for v in z.values()), z
    other = load_scenario(_four_cooperative(tmp_path / "ignored", "cooperative_needed = 1\n"))
    wrong = reference.summarise(reference.play(other, 250, seed=11), 4)
    assert abs(_z_scores(wrong, 250, data)["nobody"]) > 4.5


def test_the_reading_is_reported_in_json_table_and_report(tmp_path):
    """P-45: every multiplayer result says which reading of the victory it used."""
    from sim.report.players import seats_section

    path = _corridor(tmp_path, DIES_FIRST, 'cooperative_dead = "team_loses"\n')
    out = CliRunner().invoke(main, ["campaign", str(path), "--trials", "20", "--format", "json",
                                    "-q"])
    assert out.exit_code == 0, out.output
    victory = json.loads(out.stdout)["victory"]
    assert victory["variant"] == "cooperative"
    assert (victory["cooperative_needed"], victory["cooperative_dead"]) == (0, "team_loses")
    assert "every seat still in the game" in victory["text"]
    assert "loses the game for the team" in victory["text"]
    table = CliRunner().invoke(main, ["campaign", str(path), "--trials", "20", "-q"])
    assert 'multiplayer.cooperative_dead = "team_loses"' in table.output
    section = seats_section(load_scenario(path), trials=20, seed=1)
    assert any(victory["text"] in paragraph for paragraph in section.text)
    assert dict(zip(*section.tables["victory"].to_dict("list").values(), strict=True))[
        "cooperative_dead"] == "team_loses"
    competitive = victory_reading(load_scenario("four_stalkers"))
    assert (competitive["same_day_win"], competitive["after_win"]) == ("first", "end")


def test_a_bad_reading_is_refused_with_file_and_key(tmp_path):
    """A value outside the choices is refused, naming rules.toml, the key and the value."""
    path = _corridor(tmp_path, DIES_FIRST, 'cooperative_dead = "forgiven"\n')
    with pytest.raises(RulesetError, match="cooperative_dead") as error:
        load_scenario(path)
    assert "rules.toml" in str(error.value) and "forgiven" in str(error.value)
