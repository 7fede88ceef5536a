"""The items and artefacts worth carrying under best play (issue 25, section 3).

Each card the best policy carries or keeps is compared with the best without one copy of it
(a carried card's price refunded), on the re-evaluation's fresh games, paired.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.report import best_play
from sim.rules.scenario import load_scenario
from sim.workflows import optimize as library
from sim.workflows.carrying import KINDS, NOT_WORTH, UNCLEAR, WORTH, without_one, worth_carrying
from sim.workflows.policy_space import RUBLES, Purse
from sim.workflows.race import Games, paired


@pytest.fixture(scope="module")
def lit(tmp_path_factory) -> Path:
    """Base with a Flashlight carried too (the cheapest item, 100 rubles)."""
    text = (Path(__file__).parents[2] / "configs/scenarios/base.toml").read_text()
    text = text.replace('"Bag of nuts"]', '"Bag of nuts", "Flashlight"]')
    path = tmp_path_factory.mktemp("carrying") / "lit.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def result(lit):
    return library.optimize(load_scenario(lit), keys="medkit_at,keep_artifacts", trials=300,
                            budget=30_000, fresh_trials=4_000, seed=6)


def _expected(result, key: str, card: str) -> dict:
    """The best minus the best without one ``card``, its price refunded, on new fresh games."""
    rs, base = load_scenario(result.scenario).ruleset, result.base
    games = Games(rs, base, result.objective, seed=result.seed, first=library.FRESH_FIRST)
    held = tuple(result.winner.value(key, base))
    other = result.winner.with_value(key, without_one(held, card), base)
    if key != "keep_artifacts":
        money = Purse.of(rs, base).left(result.winner) + int(getattr(rs, key)[card].price)
        other = other.with_value(RUBLES, money, base)
    n = result.reevaluation["trials"]
    return paired(games.play(result.winner, n)[:, 0], games.play(other, n)[:, 0])


def test_every_card_carried_or_kept_gets_its_paired_difference_on_fresh_games(result):
    rows = worth_carrying(result)
    base = result.base
    cards = [(k, c) for k in KINDS for c in dict.fromkeys(result.winner.value(k, base))]
    assert [(r["kind"], r["card"]) for r in rows] == [(KINDS[k], c) for k, c in cards]
    assert ("items", "Flashlight") in cards
    for row, (key, card) in zip(rows, cards, strict=True):
        assert row["trials"] == result.reevaluation["trials"]
        assert row["first_trial"] == library.FRESH_FIRST
        assert row["copies"] == tuple(result.winner.value(key, base)).count(card)
        assert row["diff_ci_low"] <= row["diff"] <= row["diff_ci_high"]
        assert row["verdict"] == (WORTH if row["diff_ci_low"] > 0 else NOT_WORTH
                                  if row["diff_ci_high"] < 0 else UNCLEAR)
        expected = _expected(result, key, card)
        assert {k: row[k] for k in expected} == expected


def test_the_check_catches_a_comparison_that_refunds_nothing(result, monkeypatch):
    """Guard: a comparison that keeps the money when a card is dropped fails the check."""
    monkeypatch.setattr(Purse, "settle", lambda self, candidate: candidate)
    rows = {r["card"]: r for r in worth_carrying(result)}
    for card in ("Flashlight", "Medkit"):
        got = {k: rows[card][k] for k in ("diff", "diff_ci_low", "diff_ci_high")}
        assert got != _expected(result, "items", card)


def test_without_one_drops_the_last_copy():
    assert without_one(("Medkit", "Stimulant", "Medkit"), "Medkit") == ("Medkit", "Stimulant")
    assert without_one(("Medkit",), "Medkit") == ()


def test_the_report_section_has_the_carrying_table_and_line(lit):
    section = best_play.best_play_section(load_scenario(lit), 400, 3)
    frame = section.tables["best_play_carrying"]
    assert list(frame.columns) == best_play.CARRYING_COLUMNS
    assert "Flashlight" in set(frame["card"])
    text = " ".join(t for t in section.text if isinstance(t, str))
    assert "Worth carrying under best play" in text and "Flashlight (item carried)" in text
