"""Several stalkers in one Zone (P-44..P-50; issue 12): scenario format, races, one track.

The race tests play on ``tests/data/corridor``: the base cards on a corridor of 19 hexes
(West Lab at 0, the Camp bunker and start at 6, East Lab at 12, the Sarcophagus at 18),
with encounters, the Zone phase and Emissions switched off and an empty Sarcophagus deck,
so that a game is decided by the route alone (6 steps a day; the Sarcophagus hex costs
5, Z-03). West Lab first: day 1 West Lab, day 3 East Lab, day 4 at 17, day 5 in the
Sarcophagus. East Lab first: day 1 East Lab, day 3 West Lab, day 6 at 17, day 7 in.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from sim import stats
from sim.experiments.campaign_players import run_players
from sim.kernels import campaign as K
from sim.kernels.campaign import end
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario

CORRIDOR = Path(__file__).parents[2] / "data" / "corridor"
WEST = 'route = ["West Lab"]'  # 5 days to the Sarcophagus
EAST = 'route = ["East Lab"]'  # 7 days


def _scenario(tmp_path: Path, body: str, rules: str = "") -> Path:
    """A scenario file on a copy of the corridor ruleset with extra ``rules`` lines."""
    folder = tmp_path / "corridor"
    if not folder.exists():
        shutil.copytree(CORRIDOR, folder)
    with (folder / "rules.toml").open("a", encoding="utf-8") as f:
        f.write("\n" + rules)
    path = tmp_path / "race.toml"
    path.write_text(f'ruleset = "corridor"\nstart = "Camp"\n{body}', encoding="utf-8")
    return path


def _seat(character: str, route: str) -> str:
    return f'[[players]]\ncharacter = "{character}"\n[players.policy]\n{route}\n'


def _wins(result) -> list[float]:
    return [seat["win"]["mc"] for seat in result.to_dict()["seats"]]


# --- scenario format ---------------------------------------------------------------------


def test_players_take_the_top_level_loadout_policy_and_their_card_money():
    scenario = load_scenario("four_stalkers")
    assert scenario.multiplayer and scenario.stalkers == 4
    assert [p.stalker for p in scenario.players] == ["Strelok", "Scar", "Degtyarev", "Ghost"]
    rs = scenario.ruleset
    assert [p.rubles for p in scenario.players] == [
        rs.stalkers[p.stalker].rubles for p in scenario.players]
    assert [p.policy.sneak for p in scenario.players] == ["always", "never", "always", "always"]
    assert [p.armor for p in scenario.players] == ["Stalker suit"] * 3 + ["Ecolog suit"]
    assert all(p.weapons == ("SVD sniper rifle", "Knife") for p in scenario.players)
    assert scenario.variant == "competitive"


def test_the_one_stalker_scenario_is_one_seat():
    scenario = load_scenario("base")
    assert not scenario.multiplayer and len(scenario.players) == 1
    assert scenario.players[0].stalker == scenario.stalker == "Strelok"


@pytest.mark.parametrize(("body", "message"), [
    ('[[players]]\ncharacter = "Phantom"\n', "P-46"),
    ('stalker = "Phantom"\n', "P-46"),
    ('stalker = "Strelok"\nstalkers = 5\n', "1..4"),
    ('stalker = "Strelok"\nvariant = "solo"\n', "competitive, cooperative"),
    ('[[players]]\ncharacter = "Strelock"\n', "did you mean 'Strelok'"),
    ('stalkers = 3\n' + _seat("Strelok", WEST), "does not match the 1 [[players]]"),
])
def test_bad_multiplayer_scenarios_are_refused(tmp_path, body, message):
    with pytest.raises(RulesetError) as error:
        load_scenario(_scenario(tmp_path, body))
    assert message in str(error.value)


def test_a_cooperative_game_cannot_need_more_stalkers_than_it_has(tmp_path):
    body = 'variant = "cooperative"\n' + _seat("Strelok", WEST)
    path = _scenario(tmp_path, body, "[multiplayer]\ncooperative_needed = 2\n")
    with pytest.raises(RulesetError, match="cooperative_needed"):
        load_scenario(path)


def test_the_phantom_option_is_refused(tmp_path):
    path = _scenario(tmp_path, _seat("Strelok", WEST), '[multiplayer]\nafter_death = "phantom"\n')
    with pytest.raises(RulesetError, match="Phantom"):
        load_scenario(path)


# --- races on the corridor (no encounters, no Emissions) ---------------------------------


def test_the_shorter_route_wins_the_race(tmp_path):
    path = _scenario(tmp_path, _seat("Strelok", EAST) + _seat("Scar", WEST))
    result = run_players(load_scenario(path), trials=200, seed=3)
    data = result.to_dict()
    assert _wins(result) == [0.0, 1.0]
    assert data["game_days"]["mc"] == 5 and data["game_days"]["median"] == 5
    assert data["game_days"]["histogram"][5] == 200
    wins = {c["character"]: c["win"]["mc"] for c in data["characters"]}
    assert wins["Scar"] == 1.0 and wins["Strelok"] == 0.0
    assert data["p_nobody_wins"]["mc"] == 0.0 and data["emissions_drawn"]["mc"] == 0.0


@pytest.mark.parametrize(("rules", "wins"), [
    ('turn_order = "seat"\nfirst_player = "seat1"\n', [1.0, 0.0, 0.0]),
    # day 5: seat (5 - 1) % 3 + 1 = 2 moves first
    ('turn_order = "rotating"\nfirst_player = "seat1"\n', [0.0, 1.0, 0.0]),
    ('turn_order = "seat"\nsame_day_win = "shared"\n', [1.0, 1.0, 1.0]),
])
def test_same_day_ties_follow_the_documented_rule(tmp_path, rules, wins):
    body = "".join(_seat(c, WEST) for c in ("Strelok", "Scar", "Ghost"))
    path = _scenario(tmp_path, body, "[multiplayer]\n" + rules)
    result = run_players(load_scenario(path), trials=100, seed=1)
    assert _wins(result) == wins
    assert result.to_dict()["game_days"]["mc"] == 5


def test_simultaneous_order_is_a_fair_lottery(tmp_path):
    body = "".join(_seat(c, WEST) for c in ("Strelok", "Scar"))
    path = _scenario(tmp_path, body, '[multiplayer]\nturn_order = "simultaneous"\n')
    n = 4000
    result = run_players(load_scenario(path), trials=n, seed=2)
    first, second = _wins(result)
    assert first + second == 1.0
    assert abs(first - 0.5) < 4.5 * (0.25 / n) ** 0.5


def test_a_first_player_drawn_by_lot_makes_ties_fair(tmp_path):
    body = "".join(_seat(c, WEST) for c in ("Strelok", "Scar"))
    path = _scenario(tmp_path, body, '[multiplayer]\nturn_order = "seat"\n')
    n = 4000
    first, second = _wins(run_players(load_scenario(path), trials=n, seed=6))
    assert first + second == 1.0
    assert abs(first - 0.5) < 4.5 * (0.25 / n) ** 0.5


def test_play_on_lets_the_others_finish(tmp_path):
    path = _scenario(tmp_path, _seat("Strelok", EAST) + _seat("Scar", WEST),
                     '[multiplayer]\nafter_win = "play_on"\n')
    result = run_players(load_scenario(path), trials=50, seed=4)
    assert _wins(result) == [0.0, 1.0]
    assert result.to_dict()["game_days"]["mc"] == 7


def test_cooperative_team_wins_when_all_survived_the_sarcophagus(tmp_path):
    body = 'variant = "cooperative"\n' + _seat("Strelok", EAST) + _seat("Scar", WEST)
    result = run_players(load_scenario(_scenario(tmp_path, body)), trials=50, seed=5)
    assert _wins(result) == [1.0, 1.0]
    assert result.to_dict()["game_days"]["mc"] == 7


def test_cooperative_needs_only_the_key_count(tmp_path):
    body = 'variant = "cooperative"\n' + _seat("Strelok", EAST) + _seat("Scar", WEST)
    path = _scenario(tmp_path, body, "[multiplayer]\ncooperative_needed = 1\n")
    result = run_players(load_scenario(path), trials=50, seed=5)
    assert _wins(result) == [1.0, 1.0]
    assert result.to_dict()["game_days"]["mc"] == 5


# --- one Emission Track (P-47) -----------------------------------------------------------


def test_knockouts_of_two_stalkers_both_feed_the_one_track():
    from sim.campaign.compile import compile_campaign

    arrays = compile_campaign(load_scenario("base"))
    cp = arrays.cp.copy()
    cp[K.C_TOKENS_KNOCKOUT] = 2
    zone = np.zeros(K.Z_SIZE, dtype=np.int64)
    open_hex = int(np.flatnonzero(arrays.loc_kind == K.LOC_OPEN)[0])
    for _ in range(2):  # two seats, each knocked out once in the Open Space
        st = np.zeros(K.S_SIZE, dtype=np.int64)
        st[K.S_POS] = open_hex
        st[K.S_WILLPOWER] = 3
        items = arrays.item_start.copy()
        end.conditions(st, zone, cp, arrays.hexes, items, arrays.lose_order)
        assert st[K.S_KNOCKOUTS] == 1
    assert zone[K.Z_ETOKENS] == 4


# --- symmetry and threads on the base rules -----------------------------------------------


def test_identical_stalkers_in_rotating_order_win_equally_and_threads_do_not_matter(tmp_path):
    path = tmp_path / "pair.toml"
    base = Path(load_scenario("base").path).read_text(encoding="utf-8")
    path.write_text(base.replace("stalkers = 1 ", "stalkers = 2 "), encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario.stalkers == 2
    n = 20_000
    one = run_players(scenario, trials=n, seed=8, threads=1)
    two = run_players(scenario, trials=n, seed=8, threads=2, chunk_size=777)
    assert np.array_equal(one.counts, two.counts)
    a, b = (seat["win"]["mc"] for seat in one.to_dict()["seats"])
    se = ((a * (1 - a) + b * (1 - b)) / n) ** 0.5
    assert abs(a - b) < 4.5 * se
    low, high = stats.wilson(int(round((a + b) * n)), n)
    assert low > 0.0  # somebody wins now and then


# --- the plain-Python reference agrees with the kernel ------------------------------------


def _two_sample_z(k1: int, n1: int, k2: int, n2: int) -> float:
    p1, p2 = k1 / n1, k2 / n2
    se = (p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2) ** 0.5
    return 0.0 if se == 0 else (p1 - p2) / se


def _mean_z(ref, key: str, n_ref: int, cell: dict) -> float:
    """Two-sample z of a reference mean against the kernel's mean and interval."""
    mean = ref[key] / n_ref
    var = max(ref[f"{key}_sq"] / n_ref - mean * mean, 0.0) * n_ref / (n_ref - 1)
    se_mc = (cell["ci_high"] - cell["ci_low"]) / 2 / stats.Z95
    se = (var / n_ref + se_mc * se_mc) ** 0.5
    return 0.0 if se == 0 else (mean - cell["mc"]) / se


PAIR = """ruleset = "base"
start = "Cordon"
variant = "competitive"
[loadout]
armor = "Stalker suit"
weapons = ["SVD sniper rifle", "Knife"]
items = ["Medkit", "Stimulant"]
[[players]]
character = "Ghost"
[[players]]
character = "Scar"
[players.policy]
sneak = "never"
"""


BUNDLED = {"four": "four_stalkers", "three": "three_stalkers"}
"""The bundled multiplayer examples; three_stalkers leaves Ghost's card free (P-44)."""


@pytest.mark.parametrize(("name", "variant"), [
    ("four", "competitive"), ("four", "cooperative"), ("pair", "competitive"),
    ("three", "competitive")])
def test_reference_day_loop_agrees_with_the_kernel(tmp_path, name, variant):
    from sim.reference.campaign_players import play, summarise

    path = tmp_path / f"{name}.toml"
    text = (Path(load_scenario(BUNDLED[name]).path).read_text(encoding="utf-8")
            if name in BUNDLED else PAIR)
    path.write_text(text.replace('variant = "competitive"', f'variant = "{variant}"'),
                    encoding="utf-8")
    scenario = load_scenario(path)
    seats = len(scenario.players)
    n_ref, n_mc = 1500, 100_000
    ref = summarise(play(scenario, n_ref, seed=11), seats)
    data = run_players(scenario, trials=n_mc, seed=11).to_dict()
    mc = {f"seat{s['seat']}": s["win"]["mc"] for s in data["seats"]}
    mc.update({c["character"]: c["win"]["mc"] for c in data["characters"]})
    mc.update(nobody=data["p_nobody_wins"]["mc"], final=data["p_final_emission"]["mc"],
              capped=data["p_capped"]["mc"])
    z = {key: _two_sample_z(ref[key], n_ref, round(p * n_mc), n_mc) for key, p in mc.items()}
    means = {"days": data["game_days"], "drawn": data["emissions_drawn"]}
    for s in data["seats"]:
        means[f"deaths{s['seat']}"] = s["deaths"]
        means[f"new{s['seat']}"] = s["new_characters"]
    z.update({key: _mean_z(ref, key, n_ref, cell) for key, cell in means.items()})
    assert all(abs(v) < 4.5 for v in z.values()), z
    if name in ("pair", "three"):
        assert ref["new1"] > 0 and data["seats"][0]["new_characters"]["mc"] > 0


def test_the_three_stalker_example_brings_in_new_characters():
    """P-44 in a bundled example: with Ghost's card outside the Zone, a dead seat draws him,
    so he wins some games although no seat starts with him; in four_stalkers every card is
    in play and nobody new ever comes (a death ends the seat)."""
    three = run_players(load_scenario("three_stalkers"), trials=20_000, seed=5).to_dict()
    four = run_players(load_scenario("four_stalkers"), trials=20_000, seed=5).to_dict()
    assert all(s["new_characters"]["mc"] > 0 for s in three["seats"])
    ghost = next(c for c in three["characters"] if c["character"] == "Ghost")
    assert ghost["win"]["ci_low"] > 0
    assert all(s["new_characters"]["mc"] == 0 for s in four["seats"])


# --- commands ----------------------------------------------------------------------------


def test_campaign_command_prints_seats_as_json_and_csv(tmp_path):
    import json

    from click.testing import CliRunner

    from sim.cli import main

    path = _scenario(tmp_path, _seat("Strelok", EAST) + _seat("Scar", WEST))
    argv = ["campaign", str(path), "--trials", "100", "--seed", "1", "--quiet"]
    data = json.loads(CliRunner().invoke(main, [*argv, "--format", "json"]).stdout)
    assert [s["win"]["mc"] for s in data["seats"]] == [0.0, 1.0]
    assert data["game_days"]["p10"] == data["game_days"]["p90"] == 5
    csv = CliRunner().invoke(main, [*argv, "--format", "csv"]).stdout
    assert csv.splitlines()[0] == "metric,mc,ci_low,ci_high"
    assert "win: seat 2 (Scar),1,0.96" in csv


def test_balance_characters_on_the_corridor(tmp_path):
    from sim.experiments.campaign_balance import balance_characters

    path = _scenario(tmp_path, _seat("Strelok", EAST) + _seat("Scar", WEST))
    data = balance_characters(load_scenario(path), trials=300, seed=2)
    assert [c["win"]["mc"] for c in data["field"]] == [0.0, 1.0]
    assert data["first_seat_advantage"]["mc"] == -0.5
    for entry in data["characters"]:  # no encounters: the route decides, not the character
        assert [s["win"]["mc"] for s in entry["seats"]] == [0.0, 1.0]
        assert [s["vs_field"]["mc"] for s in entry["seats"]] == [-0.5, 0.5]
        assert entry["vs_field"]["mc"] == 0.0


def test_report_on_a_multiplayer_scenario_has_seats_characters_and_seat_targets(tmp_path):
    from sim.report import build

    path = tmp_path / "four.toml"
    text = Path(load_scenario("four_stalkers").path).read_text(encoding="utf-8")
    path.write_text(text + '\n[targets]\n"win.seat2" = [0.2, 0.5]\n"win.Ghost" = [0.5, 0.9]\n'
                    '"game_days.median" = [5, 40]\n', encoding="utf-8")
    report = build.run_report(path, trials=300, campaign_trials=3000, seed=3,
                              out=tmp_path / "out", command=["zonesim", "report"])
    keys = [s.key for s in report.sections]
    assert "seats" in keys and "characters" in keys and "campaign" not in keys
    assert (report.folder / "seats.csv").is_file()
    assert (report.folder / "characters_win.png").is_file()
    assert report.metadata["targets"] == {"win.seat2 in 0.2..0.5": "PASS",
                                      "win.Ghost in 0.5..0.9": "FAIL",
                                      "game_days.median in 5..40": "PASS"}
    assert "Win rate by seat: seat 1 (Strelok)" in (report.folder / "report.md").read_text()


def test_report_refuses_an_unknown_seat_target(tmp_path):
    from sim.report import build

    path = tmp_path / "four.toml"
    text = Path(load_scenario("four_stalkers").path).read_text(encoding="utf-8")
    path.write_text(text + '\n[targets]\n"win.seat9" = [0.2, 0.5]\n', encoding="utf-8")
    with pytest.raises(RulesetError, match="unknown metric 'win.seat9'"):
        build.run_report(path, trials=300, campaign_trials=300, seed=3, out=tmp_path / "out")


def test_one_stalker_experiments_refuse_a_multiplayer_scenario():
    from sim.campaign.compile import CampaignInputError, compile_campaign
    from sim.experiments.base import CompareInputError
    from sim.experiments.campaign_paired import scenario_setup

    scenario = load_scenario("four_stalkers")
    with pytest.raises(CompareInputError, match="multiplayer"):
        scenario_setup(scenario)
    with pytest.raises(CampaignInputError, match="multiplayer"):
        compile_campaign(scenario)
