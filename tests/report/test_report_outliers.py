"""Outliers in the verdict (issue 26): help per 1,000 rubles far above or below the rest,
and the spread between characters (sim/report/outliers.py, sim/report/verdict.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from sim.report import outliers, verdict
from sim.report.tables import Section
from sim.rules.scenario import load_scenario


def card(name, per, half=0.1, price=1000):
    return {"name": name, "variant": name, "price": price, "help": "fights avoided",
            "value": per * price / 1000, "value_ci_low": (per - half) * price / 1000,
            "value_ci_high": (per + half) * price / 1000, "per_1000": per,
            "per_1000_ci_low": per - half, "per_1000_ci_high": per + half}


def test_band_is_the_median_and_three_scaled_mads():
    median, low, high = outliers.band([1.0, 2.0, 3.0, 4.0, 100.0])
    assert median == 3.0
    assert high - median == pytest.approx(3 * 1.4826 * 1.0)
    assert median - low == pytest.approx(3 * 1.4826 * 1.0)


def test_a_card_far_above_and_one_far_below_are_flagged():
    rows = [card("a", 1.0), card("b", 1.2), card("c", 0.9), card("d", 1.1),
            card("high", 8.0), card("low", -5.0)]
    found = {f["name"]: f["side"] for f in outliers.far(rows)}
    assert found == {"high": "above", "low": "below"}


def test_noise_alone_flags_nothing():
    # Every estimate inside the others' band, or an interval reaching into it.
    rows = [card("a", 1.0), card("b", 1.0), card("c", 1.0), card("d", 1.05, half=0.2)]
    assert outliers.far(rows) == []  # MAD 0: d's interval still reaches the band


def test_too_few_others_and_missing_values_call_nothing_far():
    assert outliers.far([card("a", 1.0), card("b", 1.0), card("c", 50.0)]) == []
    rows = [card("a", 1.0), card("b", 1.1), card("c", 0.9), card("x", math.nan),
            card("high", 9.0)]
    assert [f["name"] for f in outliers.far(rows)] == ["high"]


def test_spread_of_the_characters():
    rows = [{"variant": "Strelok (scenario)", "mc": 0.40, "diff": 0.0, "diff_ci_low": 0.0,
             "diff_ci_high": 0.0},
            {"variant": "Scar", "mc": 0.58, "diff": 0.18, "diff_ci_low": 0.17,
             "diff_ci_high": 0.19},
            {"variant": "Ghost", "mc": 0.20, "diff": -0.20, "diff_ci_low": -0.21,
             "diff_ci_high": -0.19}]
    found = outliers.spread(rows)
    assert found["best"]["variant"] == "Scar" and found["worst"]["variant"] == "Ghost"
    assert found["spread"] == pytest.approx(0.38)
    assert (found["low"], found["high"]) == pytest.approx((0.36, 0.40))
    assert found["wide"]
    section = Section("characters", "Characters", data={"characters": pd.DataFrame(rows)})
    line = verdict.spread_line({"characters": section})
    assert line.startswith("Spread between characters: Scar 58.0 % against Ghost 20.0 %, "
                           "38.0 pp (36.0 to 40.0")
    assert "wide, more than 10 points" in line
    close = [rows[0], {**rows[1], "mc": 0.42, "diff": 0.02, "diff_ci_low": 0.01,
                       "diff_ci_high": 0.03}]
    assert not outliers.spread(close)["wide"]
    assert outliers.spread(rows[:1]) is None


def _artifacts_frame(values: dict[str, tuple[float, int]]) -> pd.DataFrame:
    rows = []
    for name, (change, price) in values.items():
        per = change * 1000 / price
        rows.append({"artifact": name, "price": price,
                     "campaign_p_sarcophagus_mc": change,
                     "campaign_p_sarcophagus_ci_low": change - 0.004,
                     "campaign_p_sarcophagus_ci_high": change + 0.004,
                     "campaign_p_sarcophagus_per_1000_rubles": per,
                     "campaign_p_sarcophagus_per_1000_rubles_ci_low": per - 0.004e3 / price,
                     "campaign_p_sarcophagus_per_1000_rubles_ci_high": per + 0.004e3 / price})
    return pd.DataFrame(rows)


def test_the_verdict_names_an_artefact_far_above_the_rest():
    frame = _artifacts_frame({"Stone blood": (0.237, 3000), "Flash": (-0.008, 1000),
                              "Battery": (-0.008, 2500), "Moonlight": (-0.014, 3000),
                              "Slug": (-0.025, 2000), "Night star": (-0.02, 4000)})
    section = Section("artifacts", "Artefacts compared", data={"artifacts": frame})
    lines = verdict.artifacts_lines({"artifacts": section})
    assert len(lines) == 1
    assert lines[0].startswith("far above the rest: Stone blood (3,000 rubles, artefact): "
                               "+7.9 (+7.8 to +8.0) percentage points of the win rate")
    page = verdict.verdict_section(load_scenario("base"), [section])
    assert any(isinstance(t, list) and t == lines for t in page.text)


def test_no_outlier_says_so():
    frame = _artifacts_frame({n: (-0.01, 1000) for n in ("a", "b", "c", "d")})
    section = Section("artifacts", "Artefacts compared", data={"artifacts": frame})
    assert verdict.artifacts_lines({"artifacts": section}) == [
        "no artefact's help per 1,000 rubles (the win rate (whole games)) is far from the "
        "others'"]


def test_items_far_from_their_kind_are_named():
    value = pd.DataFrame([{**card("none", math.nan), "price": math.nan},
                          *(card(n, p) for n, p in (("a", 1.0), ("b", 1.1), ("c", 0.9),
                                                   ("d", 1.0), ("cheap", 6.0)))])
    section = Section("items", "Items compared", data={"item_values": {"Escape items": value}})
    lines = verdict.items_lines({"items": section})
    assert any(line.startswith("far above the rest: cheap (1,000 rubles, escape items): "
                               "+6.0 (+5.9 to +6.1) percentage points of fights avoided")
               for line in lines)



def test_a_flipped_outlier_and_new_leading_readings_are_flipped_verdicts():
    from sim.report import before_after
    from sim.workflows.readings import ReadingsResult

    def sections(stone: float, top: list[tuple[str, str]]) -> list[Section]:
        frame = _artifacts_frame({"Stone blood": (stone, 3000), "Flash": (-0.008, 1000),
                                  "Battery": (-0.008, 2500), "Moonlight": (-0.014, 3000),
                                  "Slug": (-0.025, 2000)})
        rows = tuple({"key": k, "value": v, "kind": "rule"} for k, v in top)
        result = ReadingsResult("base", 100, 1, {}, rows)
        return [Section("artifacts", "Artefacts compared", data={"artifacts": frame}),
                Section("readings", "Readings of the rules", data={"readings": result})]

    top = [("dice.modifier", "face"), ("combat.avoid_rule", "reputation"),
           ("combat.medkits_in_combat", "true")]
    lines = before_after.flipped(sections(-0.01, top), sections(0.237, top[1:]))
    assert "Stone blood (artefact) for the money: with the rest -> far above" in lines
    assert ("readings of the rules that matter most: dice.modifier = face, combat.avoid_rule "
            "= reputation, combat.medkits_in_combat = true -> combat.avoid_rule = reputation, "
            "combat.medkits_in_combat = true") in lines
    assert before_after.flipped(sections(0.237, top), sections(0.237, top)) == []
