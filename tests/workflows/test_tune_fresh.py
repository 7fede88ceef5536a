"""``zonesim tune`` judges its chosen value on fresh games (honest selection).

The search picks a value on one set of dice; a value picked there is favoured by that
set's noise (the winner's curse). The answer shown is the chosen value played again,
beside the current one, on a seed no candidate used (:func:`sim.workflows.fresh.fresh_seed`).
The exact twin (:mod:`sim.exact.combat`, P-14..P-29) says what both should find.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from sim.cli import main
from sim.encounter.combat import compile_combat
from sim.exact.combat import combat_exact
from sim.rules import load_ruleset
from sim.rules.variants import apply_edits
from sim.workflows import tune as T
from sim.workflows.fresh import fresh_seed
from sim.workflows.targets import parse_target

RS = load_ruleset(None)
BASE = {"stalker": "Strelok", "enemy": "Bloodsucker", "armor": "Ecolog suit",
        "weapons": ("AK-74",)}
ARGS = ["tune", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--armor", "Ecolog suit",
        "--weapon", "AK-74", "--vary", "enemies.Bloodsucker.endurance=1..8",
        "--target", "knocked_out in 0.35..0.45", "--trials", "20000", "--seed", "11"]


def _exact(endurance: int) -> float:
    rs = apply_edits(RS, [f"enemies.Bloodsucker.endurance={endurance}"])
    return combat_exact(compile_combat(rs, "Strelok", "Bloodsucker", "Ecolog suit",
                                       ("AK-74",))).outcomes["knocked_out"]


def test_the_chosen_value_is_played_again_on_dice_the_search_did_not_use():
    result = T.tune("combat", RS, BASE, "enemies.Bloodsucker.endurance=1..8",
                    parse_target("knocked_out in 0.35..0.45"), trials=20_000, seed=11)
    fresh = result.fresh
    assert result.chosen == 3 and fresh["chosen"]["value"] == 3 and fresh["current"]["value"] == 4
    assert fresh["seed"] == fresh_seed(11) != 11
    [picked] = [r for r in result.evidence if r["chosen"]]
    assert fresh["chosen"]["mc"] != picked["mc"]  # other dice, not the search's estimate again
    for side in ("current", "chosen"):
        s = fresh[side]
        half = (s["ci_high"] - s["ci_low"]) / 2
        assert abs(s["mc"] - _exact(s["value"])) < 4.5 * half / 1.96
    d = fresh["difference"]
    assert d["ci_low"] <= _exact(3) - _exact(4) <= d["ci_high"]


def test_a_kept_current_value_differs_from_itself_by_exactly_zero():
    result = T.tune("combat", RS, BASE, "enemies.Bloodsucker.endurance=3..5",
                    parse_target("knocked_out in 0.7..0.9"), trials=5_000, seed=2,
                    method="scan")
    assert result.chosen == result.current == 4
    assert result.fresh["difference"] == {"mc": 0.0, "ci_low": 0.0, "ci_high": 0.0}


def test_fresh_seeds_are_one_to_one_and_stay_seeds():
    seeds = [0, 1, 2**62 - 1, 2**62, 2**63 - 1]
    fresh = [fresh_seed(s) for s in seeds]
    assert len(set(fresh)) == len(seeds) and all(0 <= f < 2**63 for f in fresh)
    assert all(f != s for f, s in zip(fresh, seeds, strict=True))


def test_the_command_shows_the_fresh_answer_in_every_format():
    table = CliRunner().invoke(main, ARGS)
    assert table.exit_code == 0, table.output
    line = next(x for x in table.stdout.splitlines() if x.startswith("on 20,000 fresh games"))
    assert "enemies.Bloodsucker.endurance=3: knocked_out" in line and "paired" in line
    doc = json.loads(CliRunner().invoke(main, [*ARGS, "--format", "json"]).stdout)
    assert doc["fresh"]["seed"] == fresh_seed(11)
    assert set(doc["fresh"]) == {"seed", "trials", "current", "chosen", "difference"}


def test_the_note_says_when_the_fresh_games_disagree(monkeypatch):
    """A guard: a chosen value the fresh games judge otherwise is named in the note."""
    real = T.fresh_check

    def flipped(*args, **kwargs):
        out = real(*args, **kwargs)
        out["chosen"] = {**out["chosen"], "verdict": "FAIL"}
        return out

    monkeypatch.setattr(T, "fresh_check", flipped)
    result = T.tune("combat", RS, BASE, "enemies.Bloodsucker.endurance=1..8",
                    parse_target("knocked_out in 0.35..0.45"), trials=20_000, seed=11)
    assert "on fresh games it is FAIL, not PASS" in result.note
