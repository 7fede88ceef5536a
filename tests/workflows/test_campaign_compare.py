"""Whole campaigns compared on common random numbers (the ``campaign`` experiment).

- The block runs are the campaign kernel's games: per-game rows of
  ``simulate_trials`` add up to ``simulate``'s counts, and the experiment's
  per-variant sums equal ``run_campaign``'s counts for the same seed, bit for
  bit, for any block size and thread count.
- Common random numbers shrink the variance of a campaign difference
  (measured below, as tests/workflows/test_compare_crn.py does for one fight).
- The CLI: ``zonesim compare campaign`` and ``zonesim tune campaign``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from sim import runner
from sim.campaign.compile import compile_campaign
from sim.cli import main as cli
from sim.experiments import base, registry
from sim.experiments import campaign_paired as CC
from sim.experiments.campaign import game_blocks, run_campaign, simulate, simulate_trials
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario
from sim.workflows import compare as C
from sim.workflows.prices import PRICE_KEYS

SCENARIO = load_scenario(None)
RS = SCENARIO.ruleset
BASE = CC.scenario_setup(SCENARIO)
EXP = registry.experiment("campaign")


def _cases(*specs: str) -> list[base.Case]:
    return C.cases(RS, BASE, [C.parse_variant(s, EXP) for s in specs])


def test_setup_round_trip_compiles_the_same_arrays():
    again = compile_campaign(CC.scenario_of(base.Case(RS, BASE)))
    for mine, theirs in zip(again.pack(), compile_campaign(SCENARIO).pack(), strict=True):
        assert np.array_equal(mine, theirs)


def test_trial_rows_add_up_to_the_kernel_counts():
    arrays = compile_campaign(SCENARIO)
    n, seed = 3000, 5
    rows = simulate_trials(arrays, seed, 0, n, threads=2)
    counts = np.zeros_like(simulate(arrays, n, seed, threads=1))
    days = arrays.max_days + 1
    np.add.at(counts, rows[:, K.G_END], 1)
    np.add.at(counts, K.HIST + rows[:, K.G_END] * days + rows[:, K.G_DAY], 1)
    counts[K.SUM_DAYS] = rows[:, K.G_DAY].sum()
    counts[K.SUM_DAYS_SQ] = (rows[:, K.G_DAY] ** 2).sum()
    for name in K.COUNTERS:  # every summed counter, read from its declaration
        if hasattr(K, f"SUM_{name}"):
            counts[getattr(K, f"SUM_{name}")] = rows[:, getattr(K, f"G_{name}")].sum()
    seat = int(K.mp_base(arrays.max_days))  # the one-stalker columns (multiplayer ones follow)
    assert np.array_equal(counts[:seat], simulate(arrays, n, seed, threads=2)[:seat])
    # A later block is the same games as the tail of a longer run.
    tail = simulate_trials(arrays, seed, 1000, 2000, threads=1)
    assert np.array_equal(tail, rows[1000:])


def test_game_blocks_play_every_variant_on_the_same_trials():
    """One block loop for every per-game caller (issue 28, section 1, 'Small rules'): each
    variant's rows over the blocks are its games ``first ..``, on the same streams (P-46:
    common random numbers), and the progress hears of every game of every variant."""
    arrays = CC.compile_cases(_cases("", "item=Dosimeter"))
    heard = []

    class Heard:
        def started(self, trials):
            heard.append(("started", trials))

        def advanced(self, trials):
            heard.append(("advanced", trials))

    played = {0: [], 1: []}
    with runner.reporting(Heard()):
        for lo, v, rows in game_blocks(arrays, seed=5, trials=1500, first=3, block=700,
                                       threads=1):
            assert lo == 700 * (sum(map(len, played[v])) // 700)
            played[v].append(rows.copy())
    for v, compiled in enumerate(arrays):
        whole = simulate_trials(compiled, 5, 3, 1500, threads=2)
        assert np.array_equal(np.concatenate(played[v]), whole)
        # Guard: rows one trial off (an unpaired loop) are other games.
        assert not np.array_equal(np.concatenate(played[v]),
                                  simulate_trials(compiled, 5, 4, 1500, threads=2))
    assert heard == [("started", 3000), *[("advanced", n) for n in (700, 700, 700, 700,
                                                                     100, 100)]]


def test_result_columns_and_counters_are_read_from_the_kernel_records():
    """Issue 28, section 1: the per-game columns are the kernel's ONE_STALKER slots by name,
    and each counter pairs its result column G_X with its sum SUM_X (P-37..P-50 counters)."""
    from sim.experiments import campaign as CM
    from sim.kernels.records import Record

    assert CM.TRIAL_COLUMNS == (
        "end", "day", "knockouts", "concussions", "deformations", "emissions_suffered",
        "emissions", "items_used", "fights", "kills", "anomalies_entered", "artifacts_found",
        "events", "complexes_explored", "rubles_at_end")
    assert CM.COUNTERS["emissions_suffered"] == K.G_EMISSIONS_HIT
    assert CM.MEANS["emissions_suffered"] == K.SUM_EMISSIONS_HIT
    assert CM.COUNTERS["artifacts_used"] == K.G_ART_USES
    assert CM.MEANS["exchanges"] == K.SUM_EXCHANGES
    assert tuple(CM.MEANS) == CM.MEAN_NAMES
    # A column the counts sum is a counter; one they do not (G_END, G_WINNERS) is not.
    rows = Record("rows", "G_SIZE", ("G_END", "G_FOO", "G_KILLS"))
    sums = Record("sums", "HIST", ("SUM_KILLS", "SUM_FOO"), start=3)
    assert CM.counted([rows], sums) == {"foo": (1, 4), "kills": (2, 3)}


def test_block_sums_equal_run_campaign_counts():
    n, seed = 5000, 11
    cases = _cases("", "item=Dosimeter")
    sums = CC.paired_block_sums(CC.compile_cases(cases), trials=n, seed=seed, block=1536,
                                threads=2)
    counts = run_campaign(SCENARIO, trials=n, seed=seed).counts
    names = [m.name for m in CC.CAMPAIGN_METRICS]
    col = {name: names.index(name) for name in names}
    s = sums[0, 0]
    assert s[col["p_sarcophagus"]] == counts[K.REACHED]
    assert s[col["p_survive"]] == counts[K.REACHED] + counts[K.CAPPED]
    assert s[col["p_final_emission"]] == counts[K.DEATH_FINAL_EMISSION]
    assert s[col["p_capped"]] == counts[K.CAPPED]
    assert s[col["game_days"]] == counts[K.SUM_DAYS]
    assert sums[0, 1, col["game_days"]] == counts[K.SUM_DAYS_SQ]
    for name, column in (("knockouts", K.SUM_KNOCKOUTS), ("fights", K.SUM_FIGHTS),
                         ("emissions_suffered", K.SUM_EMISSIONS_HIT),
                         ("complexes_explored", K.SUM_COMPLEXES),
                         ("rubles_at_end", K.SUM_RUBLES)):
        assert s[col[name]] == counts[column], name
    # Baseline differences are zero; the variant's difference sums are its sums minus
    # the baseline's (integers, exactly).
    assert not sums[0, 2:].any()
    assert np.array_equal(sums[1, 2], sums[1, 0] - sums[0, 0])
    # Block size and threads change nothing.
    again = CC.paired_block_sums(CC.compile_cases(cases), trials=n, seed=seed, block=4999,
                                 threads=1)
    assert np.array_equal(sums, again)


def test_identical_variants_have_no_difference():
    result = C.compare(registry.experiment("campaign"), RS, BASE, [C.Variant("a"), C.Variant("b")],
                       trials=2000,
                       seed=3, metrics=["p_sarcophagus", "knockouts"])
    for row in result.rows[2:]:
        assert row["diff"] == 0.0 and row["diff_ci_low"] == 0.0 == row["diff_ci_high"]
        assert row["verdict"] == C.NO_DIFFERENCE


def _var(total, total_sq, n):
    mean = total / n
    return (total_sq / n - mean * mean) * n / (n - 1)


# Measured when written (deterministic, seeds 21/22/23, 60 000 games): with a tougher
# Bloodsucker (endurance 6), Var(paired difference) / (Var(x0) + Var(x1)) is 0.135 for
# p_sarcophagus, 0.128 for game_days, 0.146 for knockouts: CRN needs ~7 times fewer games
# for the same interval. (Less than a fight's ~0.07: once the change matters, the two
# games consume their streams in different orders.) Other variants: SEVA suit 0.41 /
# 0.27 / 0.23; a loadout of only a Dosimeter 0.44 / 0.33 / 0.32. The bound leaves room.
CRN_METRICS = ("p_sarcophagus", "game_days", "knockouts")
RATIO_BOUND = 0.3


def test_crn_shrinks_the_variance_of_a_campaign_difference():
    n = 60_000
    cases = _cases("", "edit=enemies.Bloodsucker.endurance=6")
    both = CC.run_campaign_compare(cases, trials=n, seed=21).sums
    alone0 = CC.run_campaign_compare(cases[:1], trials=n, seed=22).sums[0]
    alone1 = CC.run_campaign_compare(cases[1:], trials=n, seed=23).sums[0]
    names = [m.name for m in CC.CAMPAIGN_METRICS]
    for name in CRN_METRICS:
        m = names.index(name)
        var_paired = _var(both[1, 2, m], both[1, 3, m], n)
        var_indep = _var(alone0[0, m], alone0[1, m], n) + _var(alone1[0, m], alone1[1, m], n)
        ratio = var_paired / var_indep
        assert 0.0 < ratio < RATIO_BOUND, (name, ratio)
        # Both estimators of the difference agree within 4.5 standard errors.
        paired_diff = both[1, 2, m] / n
        indep_diff = (alone1[0, m] - alone0[0, m]) / n
        assert abs(paired_diff - indep_diff) < 4.5 * np.sqrt((var_paired + var_indep) / n)


def test_bad_variants_are_refused():
    with pytest.raises(base.CompareInputError, match="item 'Nope'"):
        CC.run_campaign_compare(_cases("item=Nope"), trials=10, seed=1)
    with pytest.raises(base.CompareInputError, match="start"):
        CC.run_campaign_compare(_cases("start=Atlantis"), trials=10, seed=1)
    with pytest.raises(base.CompareInputError, match="unknown key"):
        C.parse_variant("enemy=Boar", EXP)


def _invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_compare_campaign_json():
    result = _invoke("compare", "campaign", "--trials", "2000", "--baseline", "",
                     "--variant", "item=Dosimeter", "--variant", "armor=SEVA suit",
                     "--target", "p_sarcophagus in 0.0..1.0", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["experiment"] == "campaign" and data["trials"] == 2000
    assert data["baseline"] == "base" and len(data["variants"]) == 3
    assert data["setup"]["stalker"] == SCENARIO.stalker
    rows = data["rows"]
    assert len(rows) == 3 * len(CC.CAMPAIGN_METRICS)
    assert set(C.ROW_KEYS) | set(PRICE_KEYS) | {"target", "target_verdict"} == set(rows[0])
    row = next(r for r in rows if r["metric"] == "p_sarcophagus" and r["variant"] != "base")
    assert row["ci_low"] <= row["mc"] <= row["ci_high"]
    assert row["target_verdict"] == "PASS"


def test_cli_compare_campaign_table_and_errors():
    ok = _invoke("compare", "campaign", "base", "--trials", "1000", "--baseline", "",
                 "--variant", "edit=enemies.Bloodsucker.endurance=6",
                 "--metric", "p_sarcophagus")
    assert ok.exit_code == 0, ok.output
    assert "p_sarcophagus" in ok.output and "knockouts" not in ok.output
    for args in (["--variant", "item=Nope"], ["--variant", "enemy=Boar"],
                 ["--variant", "edit=enemies.Bloodsucker.endurance=0"],
                 ["--variant", "item=Dosimeter", "--metric", "nope"]):
        bad = _invoke("compare", "campaign", "--trials", "100", "--baseline", "", *args)
        assert bad.exit_code == 2, (args, bad.output)
    missing = _invoke("compare", "campaign", "no-such-scenario", "--baseline", "",
                      "--variant", "item=Dosimeter")
    assert missing.exit_code == 2


def test_cli_tune_campaign():
    result = _invoke("tune", "campaign", "--vary", "enemies.Bloodsucker.endurance=2..6",
                     "--target", "p_sarcophagus in 0.35..0.55", "--trials", "1000",
                     "--method", "scan", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["experiment"] == "campaign" and data["metric"] == "p_sarcophagus"
    assert [e["value"] for e in data["evidence"]] == [2, 3, 4, 5, 6]
    assert data["chosen"] in (2, 3, 4, 5, 6)
    assert {"value", "mc", "ci_low", "ci_high", "exact", "verdict", "chosen"} <= set(
        data["evidence"][0])
    for args in (["campaign", "--enemy", "Boar"], ["battle"], []):
        bad = _invoke("tune", *args, "--vary", "enemies.Bloodsucker.endurance=2..3",
                      "--target", "p_sarcophagus >= 0.1", "--trials", "100")
        assert bad.exit_code == 2, (args, bad.output)
