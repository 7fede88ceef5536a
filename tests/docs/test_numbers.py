"""docs/numbers.py: every whole-game effect docs/rules.md and docs/workflows.md quote comes
from one declared list, and the docs quote what it prints (issue 46 item 7).

The measuring tests play every declared effect at :data:`TRIALS` paired games (the docs
quote 200,000) on the default seed, one paired run per baseline, and judge each anchored
figure with the script's own tolerance (4.5 combined standard errors plus rounding).
"""

import json

import pytest

from docs import numbers

TRIALS = 20_000
"""Games per variant for the check: a tenth of the docs', enough to catch a stale figure
whose error is several of its own intervals' widths."""

STALE = ("`after_knockout` <!-- number: base.paid_healing_after_knockout -->"
         "-0.0093 (-0.0099 to -0.0086)")
"""A figure of docs/rules.md (the P-37/P-40 paid healing row); the guards make it wrong."""


@pytest.fixture(scope="module")
def fresh():
    return numbers.measure(trials=TRIALS)


def rules_text():
    return (numbers.ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_every_anchor_names_a_declared_effect_and_every_effect_is_anchored():
    declared = [e.name for e in numbers.EFFECTS]
    assert len(set(declared)) == len(declared), "an effect is declared twice"
    anchored = {q.name for q in numbers.doc_quotes()}
    assert anchored - set(declared) == set(), "anchors naming no declared effect"
    assert set(declared) - anchored == set(), "declared effects the docs do not quote"


def test_an_anchor_without_a_figure_is_named_with_its_line():
    with pytest.raises(ValueError, match=r"x.md:2: anchor 'base.win_rate' has no figure"):
        numbers.quotes("one\n<!-- number: base.win_rate --> about a third", "x.md")


def test_an_anchor_quoted_in_backticks_is_prose_not_an_anchor():
    assert numbers.quotes("marked `<!-- number: NAME -->` before it") == []


def test_figures_read_in_every_format_the_docs_write():
    text = ("<!-- number: a -->-0.0093 (-0.0099 to -0.0086), <!-- number: b -->+0.0034 +- "
            "0.0026, <!-- number: c -->+0.0006 (±0.0003), <!-- number: d -->+23.8 pp "
            "(+23.5 to +24.1), <!-- number: e -->36.2 % (36.0 to 36.5), "
            "<!-- number: f -->0.3441 under, <!-- number: g -->-0.0077 +-\n0.0020")
    got = {q.name: q for q in numbers.quotes(text)}
    z = numbers.Z95
    expected = {"a": (-0.0093, 0.0013 / (2 * z)), "b": (0.0034, 0.0026 / z),
                "c": (0.0006, 0.0003 / z), "d": (0.238, 0.006 / (2 * z)),
                "e": (0.362, 0.005 / (2 * z)), "f": (0.3441, None), "g": (-0.0077, 0.0020 / z)}
    for name, (value, se) in expected.items():
        assert got[name].value == pytest.approx(value), name
        assert (got[name].se is None) if se is None else got[name].se == pytest.approx(se)
    assert got["d"].unit == pytest.approx(0.0005) and got["a"].unit == pytest.approx(0.00005)
    assert got["g"].text == "-0.0077 +- 0.0020"


def test_the_shared_baselines_play_as_one_run_each():
    runs = numbers.groups(numbers.EFFECTS)
    assert sorted(runs) == [("base", ""), ("base", numbers.DECK), ("base", numbers.RICH),
                            (numbers.FOUR, ""), (numbers.FOUR, numbers.DECK),
                            (numbers.FOUR, numbers.RICH)]
    for vs in runs.values():  # a variant several figures read plays once in its run
        assert len(vs) == len(set(vs))
    assert sum(map(len, runs.values())) < len(numbers.EFFECTS) + len(runs)


@pytest.mark.slow
def test_the_docs_quote_what_the_script_prints(fresh):
    report = numbers.verdicts(fresh, numbers.doc_quotes(), trials=TRIALS)
    wrong = [f"{r['where']} {r['name']}: docs {r['docs']}, fresh {r['fresh']:+.4f} "
             f"(tolerance {r['tolerance']:.4f})" for r in report if not r["holds"]]
    assert wrong == []
    assert len(report) >= 50  # every anchor was judged


@pytest.mark.slow
def test_a_wrong_figure_in_the_docs_is_caught(fresh):
    text = rules_text()
    assert STALE in text
    # Issue 46 item 7 saw -0.0015 quoted for this effect: a stale figure must fail.
    for stale in ("-0.0015 (-0.0021 to -0.0008)", "-0.0193 (-0.0199 to -0.0186)"):
        found = numbers.quotes(text.replace(STALE, STALE.replace(
            "-0.0093 (-0.0099 to -0.0086)", stale)), "docs/rules.md")
        report = numbers.verdicts(fresh, found, trials=TRIALS)
        failed = [r for r in report if not r["holds"]]
        assert [r["name"] for r in failed] == ["base.paid_healing_after_knockout"], stale
        assert failed[0]["docs"] == stale


@pytest.mark.slow
def test_check_exits_1_and_names_the_wrong_figure(fresh, tmp_path, monkeypatch, capsys):
    wrong = tmp_path / "rules.md"
    wrong.write_text(rules_text().replace(STALE, STALE.replace("-0.0093", "-0.0193")),
                     encoding="utf-8")
    monkeypatch.setattr(numbers, "ROOT", tmp_path.parent)
    monkeypatch.setattr(numbers, "DOCS", (wrong,))
    monkeypatch.setattr(numbers, "measure", lambda **kw: fresh)
    assert numbers.main(["--trials", str(TRIALS), "--check"]) == 1
    out = capsys.readouterr().out
    assert "rules.md:" in out and "base.paid_healing_after_knockout quotes -0.0193" in out
    assert numbers.main(["--trials", str(TRIALS), "--check", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["trials"] == TRIALS and set(doc["effects"]) == {e.name for e in numbers.EFFECTS}
    assert [r["name"] for r in doc["check"] if not r["holds"]] == [
        "base.paid_healing_after_knockout"]
