"""``zonesim optimize`` (issue 25): the search, its fresh games, ignored keys, the command."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments import campaign_paired
from sim.experiments.base import Case
from sim.experiments.campaign import simulate_trials
from sim.experiments.campaign_paired import scenario_setup
from sim.rules.scenario import load_scenario
from sim.workflows import best_characters
from sim.workflows import optimize as library
from sim.workflows import race as race_module
from sim.workflows.batches import inputs_digest
from sim.workflows.levers import NO_EFFECT
from sim.workflows.policy_space import Candidate, parse_keys, space
from sim.workflows.race import Games, paired
from tests.workflows.once import once

SMALL = {"trials": 300, "budget": 40_000, "fresh_trials": 2_000, "seed": 5}


@pytest.fixture(scope="module")
def poor(tmp_path_factory) -> Path:
    """The base scenario with a poor policy: flee at 3 Health, never pay to heal."""
    text = (Path(__file__).parents[2] / "configs/scenarios/base.toml").read_text()
    text = text.replace("flee_at = 0 ", "flee_at = 3 ").replace("pay_heal = true",
                                                                "pay_heal = false")
    path = tmp_path_factory.mktemp("optimize") / "poor.toml"
    path.write_text(text)
    return path


def _exhaustive(scenario, keys: str, games: int, seed: int) -> tuple[Candidate, float]:
    """The best of every policy of ``keys`` on the same ``games`` games, and its margin.

    The margin is the smallest lower bound of the best's paired 95 % interval to any
    other policy that plays different games.
    """
    base = scenario_setup(scenario)
    g = Games(scenario.ruleset, base, library.objective_of(), seed=seed)
    dims = space(scenario.ruleset, base, parse_keys(keys))
    values = {}
    for combo in itertools.product(*(d.values for d in dims)):
        c = Candidate()
        for dim, value in zip(dims, combo, strict=True):
            c = c.with_value(dim.key, value, base)
        values[c] = g.play(c, games)[:, 0]
    best = max(values, key=lambda c: values[c].mean())
    margin = min(paired(values[best], x)["diff_ci_low"] for c, x in values.items()
                 if c != best and not (x == values[best]).all())
    return best, margin


@pytest.mark.parametrize("seed", [1, 2])
def test_the_search_returns_the_best_of_an_exhaustive_evaluation(poor, seed):
    scenario = load_scenario(poor)
    trials = 500
    best, margin = _exhaustive(scenario, "flee_at,pay_heal", trials * 2 ** (library.RUNGS - 1),
                               seed)
    assert margin > 0  # the true best is clearly the best on these games
    assert best != Candidate()  # and not the scenario's own policy
    result = library.optimize(scenario, keys="flee_at,pay_heal", trials=trials,
                              budget=10**6, fresh_trials=2_000, seed=seed)
    assert result.winner == best
    assert result.stopped == "converged"
    assert {c["key"] for c in result.changes()} == {"flee_at", "pay_heal"}
    fresh = result.reevaluation
    assert fresh["vs_scenario"]["diff_ci_low"] > 0  # better than the poor policy, fresh games


def test_clearly_worse_values_leave_the_race_early(poor):
    result = library.optimize(load_scenario(poor), keys="flee_at", trials=400,
                              budget=10**6, fresh_trials=1_000, seed=3)
    left = [r for r in result.top if r["dropped"] == race_module.DROPPED_WORSE]
    assert any(r["trials"] == 400 for r in left)  # dropped at the first rung
    assert result.played < 7 * 400 * 2 ** (library.RUNGS - 1) / 4


def test_fresh_games_share_no_stream_with_the_selection(monkeypatch):
    calls = []
    real = race_module.trial_values

    def recording(compiled, metrics, *, seed, first, trials, threads=None, seat=0):
        calls.append((seed, first, trials))
        return real(compiled, metrics, seed=seed, first=first, trials=trials, threads=threads,
                    seat=seat)

    monkeypatch.setattr(race_module, "trial_values", recording)
    result = library.optimize(load_scenario("base"), keys="medkit_at,sneak", **SMALL)
    assert {seed for seed, _, _ in calls} == {SMALL["seed"]}
    fresh = [(f, n) for _, f, n in calls if f >= library.FRESH_FIRST]
    chosen = [(f, n) for _, f, n in calls if f < library.FRESH_FIRST]
    assert fresh == list(result.fresh_range) and chosen == list(result.selection_trials)
    assert len(fresh) == library.FRESH_POLICIES  # best, scenario's, naive, runner-up
    highest = max(f + n for f, n in chosen)
    assert highest <= library.selection_games(SMALL["trials"]) < library.FRESH_FIRST
    assert all(f == library.FRESH_FIRST and n == SMALL["fresh_trials"] for f, n in fresh)
    assert sum(n for _, n in chosen) == result.played <= SMALL["budget"]


def test_a_key_the_compile_ignores_is_reported_as_having_no_effect(monkeypatch):
    scenario = load_scenario("base")
    honest = library.optimize(scenario, keys="pay_heal", **SMALL)
    assert honest.keys[0].effect != NO_EFFECT  # paying to heal changes the game
    real = campaign_paired.scenario_of

    def ignoring_pay_heal(case):  # a seeded fault: the compiled game never reads pay_heal
        sc = real(case)
        return dataclasses.replace(sc, policy=dataclasses.replace(sc.policy, pay_heal=True))

    monkeypatch.setattr(campaign_paired, "scenario_of", ignoring_pay_heal)
    result = library.optimize(scenario, keys="pay_heal,medkit_at", **SMALL)
    logs = {k.key: k for k in result.keys}
    assert logs["pay_heal"].effect == NO_EFFECT and logs["pay_heal"].raced == 0
    assert logs["medkit_at"].effect != NO_EFFECT
    assert "pay_heal" not in dict(result.winner.overrides)


def test_same_seed_same_result_for_any_thread_count():
    scenario = load_scenario("base")
    one = library.optimize(scenario, keys="retreat_at,enter_anomalies", threads=1, **SMALL)
    two = library.optimize(scenario, keys="retreat_at,enter_anomalies", threads=2, **SMALL)
    assert one.to_dict() == two.to_dict()


def test_the_command_prints_json_and_writes_a_scenario_that_loads(tmp_path):
    out = tmp_path / "best.toml"
    result = CliRunner().invoke(main, [
        "optimize", "base", "--keys", "medkit_at,retreat_at", "--trials", "300",
        "--budget", "30000", "--fresh-trials", "2000", "--seed", "4", "--format", "json",
        "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {"scenario", "metric", "constraint", "seed", "trials", "budget", "played",
            "fresh_trials", "best", "changes", "keys", "top", "reevaluation",
            "selection_trials", "fresh_trials_range", "stopped", "out"} <= set(doc)
    fresh = doc["reevaluation"]
    assert {"winner_estimate", "scenario_estimate", "vs_scenario", "runner_up",
            "runner_up_vs_winner", "naive", "naive_estimate", "skill_gap"} <= set(fresh)
    assert {"mc", "ci_low", "ci_high"} <= set(fresh["winner_estimate"])
    assert {"diff", "diff_ci_low", "diff_ci_high"} <= set(fresh["vs_scenario"])
    written = load_scenario(out)
    for change in doc["changes"]:
        assert getattr(written.policy, change["key"]) == change["to"]
    assert written.stalker == "Strelok" and written.items == load_scenario("base").items
    assert "# optimize: was" in out.read_text() or not doc["changes"]


def test_the_table_names_the_best_and_the_fresh_games():
    result = CliRunner().invoke(main, [
        "optimize", "base", "--keys", "sneak", "--trials", "300", "--budget", "20000",
        "--fresh-trials", "1000"])
    assert result.exit_code == 0, result.output
    assert "best:" in result.output and "fresh games" in result.output
    assert "best minus the scenario's policy" in result.output


@pytest.mark.parametrize(("args", "named"), [
    (["--metric", "nope"], "--metric"),
    (["--metric", "game_days"], "--metric"),  # no better direction
    (["--keys", "flee_at,swim"], "--keys"),
    (["--constraint", "days <<= 3"], "--constraint"),
    (["--constraint", "nope <= 3"], "--constraint"),
    (["--trials", "500", "--budget", "100"], "--budget"),
    (["--trials", "0"], "--trials"),
    (["--stalker", "Phantom of the Zone"], "--stalker"),
    (["--out", "/no/such/folder/best.toml"], "--out"),
])
def test_bad_input_exits_2_naming_the_option(args, named):
    result = CliRunner().invoke(main, ["optimize", "base", *args])
    assert result.exit_code == 2, result.output
    assert named in result.output and "Traceback" not in result.output


def test_a_multiplayer_scenario_is_refused():
    result = CliRunner().invoke(main, ["optimize", "four_stalkers"])
    assert result.exit_code == 2
    assert "multiplayer" in result.output


def test_ctrl_c_keeps_the_finished_races_and_prints_the_best_so_far(monkeypatch, poor):
    real, calls = library.race, []

    def interrupted_after_one(*args, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(library, "race", interrupted_after_one)
    result = library.optimize(load_scenario(poor), keys="flee_at,pay_heal", **SMALL)
    assert result.stopped == "interrupted" and result.reevaluation is None
    assert dict(result.winner.overrides) == {"flee_at": 0}  # the finished race's winner
    assert result.played > 0 and result.fresh_range == ()
    calls.clear()
    cli = CliRunner().invoke(main, ["optimize", str(poor), "--keys", "flee_at,pay_heal",
                                    "--trials", "300", "--budget", "40000"])
    assert cli.exit_code == 130
    assert "best: flee_at=0" in cli.output and "not re-evaluated" in cli.output


def test_list_keys_take_shopping_lists_and_artefact_sets_one_card_apart():
    scenario = load_scenario("base")
    base = scenario_setup(scenario)
    shopping, keep = space(scenario.ruleset, base, ("shopping", "keep_artifacts"))
    assert () in shopping.values and ("Stimulant",) in shopping.values
    assert ("Medkit", "Medkit", "Stimulant") in shopping.values
    assert tuple(base["shopping"]) in shopping.values
    sets = keep.values_at(("Stone blood",))
    assert sets[0] == ("Stone blood",) and () in sets
    assert ("Flash", "Stone blood") in sets and len(sets) == 1 + len(scenario.ruleset.artifacts)


def test_the_route_takes_nearest_and_every_order_of_the_complexes():
    scenario = load_scenario("base")
    (route,) = space(scenario.ruleset, scenario_setup(scenario), ("route",))
    complexes = {h.name for h in scenario.ruleset.map.hexes if h.location == "complex"}
    assert route.values[0] == () and len(route.values) == 1 + math.factorial(len(complexes))
    assert all(set(r) == complexes for r in route.values[1:])


def test_a_list_key_is_written_as_a_toml_list_that_loads(tmp_path):
    out = tmp_path / "shop.toml"
    result = CliRunner().invoke(main, [
        "optimize", "base", "--keys", "route,shopping,keep_artifacts", "--trials", "200",
        "--budget", "60000", "--fresh-trials", "1000", "--seed", "2", "--passes", "1",
        "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    written = load_scenario(out).policy
    for change in doc["changes"]:
        assert list(getattr(written, change["key"])) == list(change["to"])


def test_a_days_constraint_is_judged_as_zonesim_campaign_counts_days():
    from sim.experiments.campaign import run_campaign

    scenario = load_scenario("base")
    days = run_campaign(scenario, trials=4_000, seed=3).to_dict()["days"]
    for stat in ("mean", "median", "p90"):
        objective = library.objective_of(None, f"days.{stat} <= 16")
        g = Games(scenario.ruleset, scenario_setup(scenario), objective, seed=3)
        got = objective.constraint_cell(g.play(Candidate(), 4_000))
        assert got["mc"] == pytest.approx(days[stat])
        assert got["ci_low"] <= got["mc"] <= got["ci_high"]


def test_a_constraint_no_policy_meets_leaves_the_scenario_s_policy(poor):
    result = library.optimize(load_scenario(poor), keys="flee_at", constraint="days.median <= 3",
                              **SMALL)
    assert result.winner == Candidate()  # every challenger FAILs the constraint
    assert all(r["feasible"] is False for r in result.top if r["candidate"] != "scenario's policy")
    assert result.reevaluation["constraint"]["verdict"] == "FAIL"


def test_a_dask_cluster_gives_the_local_result(monkeypatch):
    distributed = pytest.importorskip("distributed")
    scenario = load_scenario("base")
    here = library.optimize(scenario, keys="retreat_at,sneak", **SMALL)
    sent, real = [], race_module.map_tasks

    def counting(func, tasks, **kw):
        sent.extend(tasks)
        return real(func, tasks, **kw)

    monkeypatch.setattr(race_module, "map_tasks", counting)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = library.optimize(scenario, keys="retreat_at,sneak",
                                  scheduler=cluster.scheduler_address, **SMALL)
    assert remote.to_dict() == here.to_dict()
    assert sum(t.trials for t in sent) == remote.played + sum(n for _, n in remote.fresh_range)


def test_the_json_is_strict_json_when_a_key_has_no_effect(monkeypatch):
    real = campaign_paired.scenario_of
    monkeypatch.setattr(campaign_paired, "scenario_of", lambda case: dataclasses.replace(
        real(case), policy=dataclasses.replace(real(case).policy, pay_heal=True)))
    result = CliRunner().invoke(main, ["optimize", "base", "--keys", "pay_heal,sneak",
                                       "--trials", "300", "--budget", "20000",
                                       "--fresh-trials", "1000", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    keys = {k["key"]: k for k in doc["keys"]}
    assert keys["pay_heal"]["effect"] == NO_EFFECT and keys["pay_heal"]["diff"] is None


def test_the_naive_policy_never_flees_takes_no_stimulant_sneaks_and_goes_nearest(poor):
    from sim.workflows.policy_space import naive

    base = scenario_setup(load_scenario(poor))
    plain = naive(base).setup(base)
    assert (plain["flee_at"], plain["heal_at"], plain["sneak"], plain["route"]) == (
        0, 0, "always", ())
    assert plain["pay_heal"] == base["pay_heal"] and plain["medkit_at"] == base["medkit_at"]


def test_another_stalker_plays_his_own_health_and_is_written_to_the_scenario(tmp_path):
    out = tmp_path / "ghost.toml"
    result = CliRunner().invoke(main, [
        "optimize", "base", "--stalker", "Ghost", "--keys", "flee_at", "--trials", "300",
        "--budget", "20000", "--fresh-trials", "1000", "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["stalker"] == "Ghost"
    scenario = load_scenario("base")
    (flee,) = space(scenario.ruleset, {**scenario_setup(scenario), "stalker": "Ghost"},
                    ("flee_at",))
    assert flee.values == tuple(range(scenario.ruleset.stalkers["Ghost"].health + 1))
    assert {r["candidate"] for r in doc["top"]} <= {"scenario's policy",
                                                    *(f"flee_at={v}" for v in flee.values)}
    assert load_scenario(out).stalker == "Ghost"


def test_the_written_scenario_keeps_a_folder_ruleset_and_adds_a_missing_policy_table(tmp_path):
    import shutil

    from sim.paths import bundled_ruleset
    from sim.workflows.scenario_toml import changed_scenario

    shutil.copytree(bundled_ruleset(), tmp_path / "rules")
    source = tmp_path / "mine.toml"
    source.write_text('ruleset = "rules"\nstalker = "Strelok"\nstart = "Cordon"\n'
                      '[loadout]\nitems = ["Medkit"]\n')
    scenario = load_scenario(source)
    text = changed_scenario(scenario, {"medkit_at": 5, "route": ()}, ["header"], "Scar")
    elsewhere = tmp_path / "out" / "best.toml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(text)
    written = load_scenario(elsewhere)
    assert written.policy.medkit_at == 5 and written.policy.route == ()
    assert written.stalker == "Scar" and written.items == ("Medkit",)
    assert Path(written.ruleset.path).resolve() == (tmp_path / "rules").resolve()
    assert text.startswith("# header\n")


def test_every_character_under_his_own_best_play_and_the_spreads(monkeypatch):
    # the json and the table print one search (arguments equal: tests/workflows/once.py)
    search = once(best_characters.best_characters)
    monkeypatch.setattr(best_characters, "best_characters", search)
    args = ["optimize", "base", "--stalker", "all", "--keys", "medkit_at", "--trials", "200",
            "--budget", "6000", "--fresh-trials", "1000", "--seed", "3"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    stalkers = list(load_scenario("base").ruleset.stalkers)
    assert [c["stalker"] for c in doc["characters"]] == stalkers
    spreads = {s["policy"]: s for s in doc["spreads"]}
    assert set(spreads) == {"best", "scenario", "naive"}
    for s in spreads.values():
        assert s["ci_low"] <= s["spread"] <= s["ci_high"] and s["spread"] >= 0
    fresh = {c["stalker"]: c["reevaluation"] for c in doc["characters"]}
    top = spreads["best"]
    assert top["spread"] == pytest.approx(fresh[top["best_character"]]["winner_estimate"]["mc"]
                                          - fresh[top["worst_character"]]["winner_estimate"]["mc"])
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0 and "spread (best)" in table.output
    assert len(search.calls) == 2 and search.searched() == 1
    refused = CliRunner().invoke(main, [*args, "--out", "x.toml"])
    assert refused.exit_code == 2 and "--out" in refused.output


def test_on_base_the_best_found_beats_the_scenario_s_policy_on_fresh_games():
    result = library.optimize(load_scenario("base"), keys="route,enter_anomalies",
                              trials=300, budget=40_000, fresh_trials=5_000, seed=8)
    assert result.winner != Candidate()
    assert result.reevaluation["vs_scenario"]["diff_ci_low"] > 0
    assert result.reevaluation["skill_gap"]["diff_ci_low"] > 0


def test_metrics_computed_for_the_columns_asked_are_those_of_every_metric():
    scenario = load_scenario("base")
    (arrays,) = campaign_paired.compile_cases([Case(scenario.ruleset, scenario_setup(scenario))])
    rows = simulate_trials(arrays, 3, 0, 2_000)
    every = campaign_paired.trial_metrics(rows)
    names = [m.name for m in campaign_paired.CAMPAIGN_METRICS]
    asked = names[::-3]  # some of them, in another order
    got = campaign_paired.trial_metrics(rows, asked)
    assert (got == every[:, [names.index(n) for n in asked]]).all()
    assert every[:, names.index("p_sarcophagus")].sum() > 0  # the game is not all zeros
    with pytest.raises(KeyError):
        campaign_paired.trial_metrics(rows, ["no_such_metric"])


def test_the_game_digest_tells_equal_games_from_different_ones():
    scenario = load_scenario("base")
    base = scenario_setup(scenario)
    candidates = [Candidate(), Candidate().with_value("medkit_at", 5, base),
                  Candidate().with_value("route", ("Lab X-10",), base),
                  Candidate().with_value("flee_at", 2, base),
                  Candidate().with_value("armor", None, base)]
    compiled = campaign_paired.compile_cases([Case(scenario.ruleset, c.setup(base))
                                              for c in [*candidates, Candidate()]])
    known: dict = {}
    digests = [race_module.game_digest(a, known) for a in compiled]
    packed = [inputs_digest(a.pack()) for a in compiled]
    # the same partition as the digest of the packed inputs: equal exactly when equal
    assert [d == digests[0] for d in digests] == [p == packed[0] for p in packed]
    assert len(set(digests[:-1])) == len(candidates) and digests[-1] == digests[0]
    assert race_module.game_digest(compiled[0], {}) == digests[0]  # the cache changes nothing
    assert any(id(a.e_params) in known for a in compiled)  # read-only tables hashed once
    # guard: one changed value in a writable table changes the digest
    cp = compiled[0].cp.copy()
    cp[0] += 1
    changed = dataclasses.replace(compiled[0], cp=cp)
    assert race_module.game_digest(changed, known) != digests[0]
