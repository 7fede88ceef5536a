"""``zonesim campaign --trace N``: game N told day by day is trial N of the Monte Carlo (issue 47).

The traces of games ``0 .. K-1`` with seed ``S`` must count exactly the wins, reaches,
ends and days that ``simulate`` (the campaign kernel's counts, the path of
``zonesim campaign --trials K --seed S``) counts; a trace that played another trial,
another seed or a game changed by its log would disagree.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim.campaign.players import compile_game
from sim.cli import main as cli
from sim.experiments.campaign import simulate, simulate_trials
from sim.experiments.campaign_metrics import ENDS
from sim.experiments.campaign_trace import play_logged, trace_game
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario
from sim.workflows.explain import variant_games

GAMES = 40


def _games(name: str):
    """(compiled game, ruleset) of a bundled scenario, or of base under a variant."""
    if name.startswith("base;"):
        chosen = load_scenario("base")
        games, rulesets, _ = variant_games(chosen, [name.removeprefix("base;")])
        return games[0], rulesets[0]
    chosen = load_scenario(name)
    return compile_game(chosen), chosen.ruleset


@pytest.mark.parametrize(("name", "seed"), [
    ("base", 0), ("base", 11), ("base;stalker=Scar;sneak=never;item+=Jetpack", 5),
    ("three_stalkers", 2)])
def test_traces_of_games_0_to_k_count_what_the_monte_carlo_counts(name, seed):
    compiled, rs = _games(name)
    traces = [trace_game(compiled, rs, seed=seed, game=t) for t in range(GAMES)]
    counts = simulate(compiled, GAMES, seed)
    ends = [ENDS.index(t["cause"]) for t in traces]
    assert np.bincount(ends, minlength=K.N_ENDS).tolist() == counts[:K.N_ENDS].tolist()
    mp = K.mp_base(compiled.max_days)
    assert sum(t["won"] for t in traces) == counts[mp + K.MP_WINS]  # seat 1's wins
    assert sum(t["days"] for t in traces) == counts[K.SUM_DAYS]
    if name != "three_stalkers":  # one character: he won iff he survived the Sarcophagus
        assert sum(t["won"] for t in traces) == counts[K.REACHED]
        in_sarcophagus = (K.REACHED, K.DEATH_KNOCKOUT_SARCOPHAGUS,
                          K.DEATH_CONCUSSION_SARCOPHAGUS)
        assert sum(t["reached"] for t in traces) == sum(counts[e] for e in in_sarcophagus)
    rows = simulate_trials(compiled, seed, 0, GAMES)
    for t, trace in enumerate(traces):
        assert trace["game"] == t
        assert trace["days_log"][-1]["day"] <= trace["days"]
        seat1 = [e for d in trace["days_log"] for e in d["events"] if e["seat"] == 1]
        fights = sum(e["kind"] == "fight" and e["outcome"] != 0 for e in seat1)
        events = sum(e["kind"] == "event" for e in seat1)
        if name != "three_stalkers":  # one character: the counters are his
            assert fights == rows[t, K.G_FIGHTS], t
            assert events == rows[t, K.G_EVENTS], t
        states = [e for e in seat1 if e["kind"] == "state"]
        if trace["cause"] != "capped" and name != "three_stalkers":
            assert ENDS[states[-1]["end"]] == trace["cause"], t


def test_a_game_played_with_a_log_is_the_game_played_without_one():
    """The log changes no random number: the traced game's result row is the Monte Carlo's."""
    compiled, _ = _games("base")
    rows = simulate_trials(compiled, 9, 0, 12)
    for t in range(12):
        row, log = play_logged(compiled, seed=9, game=t)
        assert row.tolist() == rows[t].tolist()
        assert len(log) > 0


def test_a_log_too_small_for_the_game_is_grown_and_the_game_played_again(monkeypatch):
    from sim.experiments import campaign_trace

    compiled, _ = _games("base")
    whole = play_logged(compiled, seed=4, game=1)[1]
    monkeypatch.setattr(campaign_trace, "LOG_EVENTS", 3)
    row, log = play_logged(compiled, seed=4, game=1)
    assert log.tolist() == whole.tolist()


def test_the_trace_json_has_the_issue_keys_and_the_text_tells_the_days():
    runner = CliRunner()
    out = runner.invoke(cli, ["campaign", "base", "--trace", "2", "--seed", "3",
                              "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert {"game", "won", "reached", "days", "cause", "days_log"} <= set(data)
    assert data["game"] == 2 and data["days_log"][0]["day"] == 0
    kinds = {e["kind"] for d in data["days_log"] for e in d["events"]}
    assert {"route", "hex", "state", "zone"} <= kinds
    text = runner.invoke(cli, ["campaign", "base", "--trace", "2", "--seed", "3"])
    assert text.exit_code == 0
    assert "day 1\n" in text.output and "[policy.route]" in text.output
    assert text.stdout.rstrip().splitlines()[-1].startswith(f"end: day {data['days']}")


def test_a_variant_trace_is_the_same_game_under_the_variant():
    runner = CliRunner()
    out = runner.invoke(cli, ["campaign", "base", "--trace", "0", "--seed", "1", "--variant",
                              "item+=Jetpack", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    routes = [e for d in data["days_log"] for e in d["events"] if e["kind"] == "route"]
    assert routes[0]["bonus"] == 3  # the Jetpack's +3 (Z-03)
    bad = runner.invoke(cli, ["campaign", "base", "--trace", "0", "--variant", "item+=Nope"])
    assert bad.exit_code == 2 and "Nope" in bad.output
    alone = runner.invoke(cli, ["campaign", "base", "--variant", "item+=Jetpack"])
    assert alone.exit_code == 2 and "--trace" in alone.output
