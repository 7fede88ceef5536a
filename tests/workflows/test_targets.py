"""Balance targets (sim.workflows.targets): parsing, PASS / FAIL / UNDECIDED on hand-made CIs."""

from __future__ import annotations

import math

import pytest

from sim.workflows.targets import (
    FAIL,
    PASS,
    UNDECIDED,
    Target,
    TargetError,
    judge,
    judge_rows,
    load_targets,
    parse_target,
)


def test_parse_forms():
    assert parse_target("knocked_out <= 0.25") == Target("knocked_out", high=0.25,
                                                         text="knocked_out <= 0.25")
    t = parse_target("p_sarcophagus in 0.35..0.55")
    assert (t.metric, t.low, t.high) == ("p_sarcophagus", 0.35, 0.55)
    t = parse_target("days.median in 18..24")
    assert (t.metric, t.low, t.high, t.aim) == ("days.median", 18.0, 24.0, 21.0)
    t = parse_target("avoided > 0.5")
    assert (t.low, t.low_strict, t.high) == (0.5, True, math.inf)
    assert parse_target("x in [1, 2]").high == 2.0
    assert parse_target("x == 3").low == parse_target("x == 3").high == 3.0
    assert parse_target("x >= -1e-3").low == -0.001


@pytest.mark.parametrize("text", ["knocked_out", "knocked_out ~ 0.2", "in 0.1..0.2",
                                  "x in 0.3..0.2", "x <= abc"])
def test_bad_targets(text):
    with pytest.raises(TargetError):
        parse_target(text)


BAND = parse_target("knocked_out in 0.2..0.3")


@pytest.mark.parametrize(("ci", "verdict"), [
    ((0.21, 0.29), PASS),
    ((0.2, 0.3), PASS),            # closed bounds: an interval touching them is inside
    ((0.10, 0.19), FAIL),          # wholly below
    ((0.31, 0.40), FAIL),          # wholly above
    ((0.19, 0.25), UNDECIDED),     # straddles the low bound
    ((0.25, 0.31), UNDECIDED),     # straddles the high bound
    ((0.10, 0.40), UNDECIDED),     # covers the whole band
])
def test_band_verdicts(ci, verdict):
    value = (ci[0] + ci[1]) / 2
    assert BAND.judge(value, *ci) == verdict
    assert judge(BAND, value, *ci) == verdict


def test_one_sided_and_strict_bounds():
    le = parse_target("knocked_out <= 0.25")
    lt = parse_target("knocked_out < 0.25")
    assert le.judge(0.2, 0.15, 0.25) == PASS
    assert lt.judge(0.2, 0.15, 0.25) == UNDECIDED  # 0.25 itself is excluded
    assert le.judge(0.3, 0.26, 0.34) == FAIL
    assert lt.judge(0.3, 0.25, 0.34) == FAIL
    assert le.judge(0.25, 0.24, 0.26) == UNDECIDED
    ge = parse_target("avoided >= 0.5")
    assert ge.judge(0.6, 0.55, 0.65) == PASS and ge.judge(0.4, 0.3, 0.45) == FAIL


def test_point_values_without_interval():
    """An exact value (no interval) is PASS or FAIL, never UNDECIDED."""
    assert BAND.judge(0.25) == PASS
    assert BAND.judge(0.35) == FAIL
    assert BAND.judge(0.2, None, None) == PASS


def test_judge_rows_adds_a_verdict_per_row():
    rows = [{"metric": "knocked_out", "mc": 0.25, "ci_low": 0.24, "ci_high": 0.26},
            {"metric": "killed", "mc": 0.5, "ci_low": 0.4, "ci_high": 0.6}]
    out = judge_rows([BAND], rows)
    assert out[0]["target_verdict"] == PASS and out[0]["target"] == "knocked_out in 0.2..0.3"
    assert out[1]["target_verdict"] is None and "target_verdict" not in rows[0]


def test_toml_targets(tmp_path):
    path = tmp_path / "targets.toml"
    path.write_text('[targets]\nknocked_out = [0.2, 0.3]\ndays.median = [18, 24]\n'
                    'avoided = ">= 0.5"\nfled = [-inf, 0.1]\n')
    by_metric = {t.metric: t for t in load_targets(path)}
    assert set(by_metric) == {"knocked_out", "days.median", "avoided", "fled"}
    assert (by_metric["days.median"].low, by_metric["days.median"].high) == (18, 24)
    assert by_metric["avoided"].low == 0.5 and by_metric["fled"].low == -math.inf
    (tmp_path / "bad.toml").write_text("[targets]\nknocked_out = [0.3]\n")
    with pytest.raises(TargetError, match="bad.toml.*expected \\[low, high\\]"):
        load_targets(tmp_path / "bad.toml")
    (tmp_path / "none.toml").write_text("x = 1\n")
    with pytest.raises(TargetError, match="no \\[targets\\] table"):
        load_targets(tmp_path / "none.toml")
