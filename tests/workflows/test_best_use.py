"""Artefacts valued under their best use in whole games (issue 46, item 2).

Each artefact is played under every use (always, never, at a Health or less, P-08) on the
selection's games, the best is chosen there and valued against carrying none more on fresh
games (a disjoint trial range); the verdict judges that figure, the scenario's "always"
figure only context. ``zonesim artifacts --policy best`` gives the column.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.experiments import campaign_paired
from sim.experiments.artifacts import campaign_changes
from sim.experiments.base import Case
from sim.report import verdict
from sim.report.tables import Section
from sim.rules.scenario import load_scenario, use_level
from sim.workflows import best_use
from sim.workflows.optimize import FRESH_FIRST
from sim.workflows.race import paired

GAMES = 3_000
SEED = 5


@pytest.fixture(scope="module")
def base():
    return load_scenario("base")


@pytest.fixture(scope="module")
def sparkler(base):
    return best_use.best_uses(base, ["Sparkler"], trials=GAMES, seed=SEED).iloc[0]


def test_the_uses_are_always_never_and_each_health_below_his_own():
    assert best_use.uses(6) == (None, 0, 1, 2, 3, 4, 5)
    assert [best_use.use_text(u) for u in best_use.uses(3)] == ["always", "never", "at 1",
                                                                "at 2"]
    # each is a value policy.artifact_use reads as itself (the scenario key's one reading)
    assert [use_level(w) for w in ("always", "never", 1, 2)] == list(best_use.uses(3))


def test_a_good_player_does_not_use_sparkler_always(base, sparkler):
    """Guard (issue 46.2): used whenever its rule allows, Sparkler costs the win rate many
    points (its psi side effect, P-09); under its best use it costs none of them, so the
    best use is not "always" and its fresh change lies wholly above the "always" one."""
    always = campaign_changes(base, ["Sparkler"], trials=GAMES, seed=SEED)
    m = [x.name for x in always.metrics].index("p_sarcophagus")
    d = always.sums[1]
    mean = d[2, m] / GAMES
    half = 1.96 * np.sqrt(max(d[3, m] / GAMES - mean * mean, 0) / GAMES)
    assert mean + half < -0.05
    assert sparkler[best_use.USE] != "always"
    assert sparkler[f"{best_use.STEM}_ci_low"] > mean + half


def test_the_best_use_is_valued_on_fresh_games(base, sparkler):
    """Honest selection: the change reported is the chosen use against carrying none more on
    trials from FRESH_FIRST, recomputed here by hand; the selection's own estimate is kept
    apart (``best_use_selection_p_sarcophagus``)."""
    setup = campaign_paired.scenario_setup(base)
    use = {"always": None, "never": 0}.get(sparkler[best_use.USE])
    if use is None and sparkler[best_use.USE] != "always":
        use = int(sparkler[best_use.USE].removeprefix("at "))
    table = dict(setup["artifact_use"]) | ({} if use is None else {"Sparkler": use})
    chosen = {**setup, "artifacts": (*setup["artifacts"], "Sparkler"),
              "artifact_use": tuple(sorted(table.items()))}

    def wins(s, first):
        arrays = campaign_paired.compile_cases([Case(base.ruleset, s)])[0]
        return campaign_paired.trial_values(arrays, ["p_sarcophagus"], seed=SEED, first=first,
                                            trials=GAMES)[:, 0]

    fresh = paired(wins(chosen, FRESH_FIRST), wins(setup, FRESH_FIRST))
    assert sparkler["best_use_first_trial"] == FRESH_FIRST
    assert sparkler["best_use_trials"] == GAMES
    assert sparkler[f"{best_use.STEM}_mc"] == pytest.approx(fresh["diff"], abs=1e-12)
    assert sparkler[f"{best_use.STEM}_ci_low"] == pytest.approx(fresh["diff_ci_low"], abs=1e-12)
    selection = paired(wins(chosen, 0), wins(setup, 0))["diff"]
    assert sparkler[best_use.SELECTED] == pytest.approx(selection, abs=1e-12)


def _frame(always: dict[str, float], best: dict[str, float] | None) -> pd.DataFrame:
    rows = []
    for name, change in always.items():
        row = {"artifact": name, "price": 1000}
        stems = {"campaign_p_sarcophagus": change}
        if best is not None:
            stems[best_use.STEM] = best[name]
        for stem, value in stems.items():
            row |= {f"{stem}_mc": value, f"{stem}_ci_low": value - 0.004,
                    f"{stem}_ci_high": value + 0.004, f"{stem}_per_1000_rubles": value,
                    f"{stem}_per_1000_rubles_ci_low": value - 0.004,
                    f"{stem}_per_1000_rubles_ci_high": value + 0.004}
        rows.append(row)
    return pd.DataFrame(rows)


def test_the_verdict_judges_the_best_use_not_the_scenarios():
    """Guard: Sparkler far below the rest when always used, harmless under its best use:
    the verdict names no artefact far below (before issue 46.2 it named Sparkler)."""
    always = {"Sparkler": -0.16, "Flash": -0.01, "Slug": -0.012, "Battery": -0.008,
              "Crystal": -0.011, "Slime": -0.009}
    best = {n: 0.001 for n in always}
    section = Section("artifacts", "Artefacts", data={"artifacts": _frame(always, best)})
    lines = verdict.artifacts_lines({"artifacts": section})
    assert lines == ["no artefact's help per 1,000 rubles (the win rate under its best use "
                     "(whole games)) is far from the others'"]
    older = Section("artifacts", "Artefacts", data={"artifacts": _frame(always, None)})
    assert verdict.artifacts_lines({"artifacts": older})[0].startswith(
        "far below the rest: Sparkler")


def test_zonesim_artifacts_policy_best_gives_the_whole_game_column():
    args = ["artifacts", "base", "--policy", "best", "--artifact", "Jellyfish", "--trials",
            "500", "--games", "300", "--seed", "2"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    row = doc["rows"][0]
    assert row[best_use.USE] in {best_use.use_text(u) for u in best_use.uses(6)}
    assert row["best_use_first_trial"] == FRESH_FIRST
    assert row[f"{best_use.STEM}_ci_low"] <= row[f"{best_use.STEM}_mc"]
    assert "campaign_p_sarcophagus_mc" in row  # the scenario's use beside it, as context
    assert doc["campaign"].startswith("300 whole games per artefact and use")
    table = CliRunner().invoke(main, args)
    assert table.exit_code == 0, table.output
    assert "best use" in table.output and "P(win), whole games, best use" in table.output


def test_a_card_far_from_the_rest_under_best_use_gives_the_scenarios_figure_as_context():
    """The flag is judged on the best use; the scenario's always-used figure follows only as
    context, with the use chosen (issue 46.2: the verdict quotes the scenario's figure)."""
    always = {"Stone blood": 0.22, "Flash": -0.01, "Slug": -0.012, "Battery": -0.008,
              "Crystal": -0.011, "Slime": -0.009}
    best = {n: (0.22 if n == "Stone blood" else 0.004) for n in always}
    frame = _frame(always, best).assign(best_use=["always", *["never"] * 5])
    section = Section("artifacts", "Artefacts", data={"artifacts": frame})
    (line,) = verdict.artifacts_lines({"artifacts": section})
    assert line.startswith("far above the rest: Stone blood")
    assert line.endswith("; best use: always; used as the scenario uses it: +22.0 (+21.6 to "
                         "+22.4) points (context)")
