"""The campaign kernel against the plain-Python day loop, and invariants of the game.

The reference (sim/reference/campaign.py) rolls one die at a time with its own
random numbers, so the two agree only in distribution: each outcome share is
compared with a two-sample z-score, |z| < 4.5 (tests/conftest.py's tolerance).
"""

from __future__ import annotations

import math
import random
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.campaign.compile import compile_campaign
from sim.experiments.campaign import ENDS, run_campaign
from sim.kernels import campaign as K
from sim.paths import bundled_ruleset
from sim.reference import campaign as reference
from sim.rules.scenario import load_scenario
from tests.conftest import Z_TOL


def _two_sample_z(k1: int, n1: int, k2: int, n2: int) -> float:
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return 0.0 if se == 0 else (p1 - p2) / se


def _compare(scenario, ref_trials: int, kernel_trials: int = 100_000):
    arrays = compile_campaign(scenario)
    ref = reference.simulate(scenario, arrays, ref_trials, seed=17)
    data = run_campaign(scenario, trials=kernel_trials, seed=17).to_dict()
    for end in data["ends"]:
        k = round(end["mc"] * kernel_trials)
        z = _two_sample_z(ref[end["end"]], ref_trials, k, kernel_trials)
        assert abs(z) < Z_TOL, (end["end"], ref[end["end"]] / ref_trials, end["mc"], z)
    for key in ("knockouts", "fights", "events", "items_used", "complexes_explored"):
        # Means of counts: compare with a generous normal bound from the kernel's mean
        # (a count's variance is at most its mean times the largest count per game, ~30).
        mean = data[key]
        se = math.sqrt(max(mean, 1e-9) * 30 / ref_trials)
        assert abs(ref[key] / ref_trials - mean) < Z_TOL * se, (key, ref[key] / ref_trials, mean)
    return ref, data


def test_reference_agrees_with_kernel_on_the_base_scenario():
    ref, data = _compare(load_scenario(None), ref_trials=3000)
    assert set(ref) >= {"reached"} and set(ENDS) >= {e["end"] for e in data["ends"]}


def test_reference_agrees_on_a_harsh_tiny_scenario(tmp_path):
    # Short games with many encounters and frequent Emissions.
    rules = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), rules)
    text = (rules / "rules.toml").read_text()
    text = text.replace("environment_change_chance = 0.2", "environment_change_chance = 0.6")
    text = text.replace("enemies_per_day = 1 ", "enemies_per_day = 2 ")
    (rules / "rules.toml").write_text(text)
    path = tmp_path / "harsh.toml"
    path.write_text('ruleset = "rules"\nstalker = "Ghost"\nstart = "Cordon"\n'
                    '[loadout]\nitems = ["Stimulant", "Dosimeter"]\n'
                    '[policy]\nsneak = "never"\nflee_at = 2\nenter_anomalies = true\n')
    _compare(load_scenario(path), ref_trials=3000)


class Checker:
    """Invariants after every day of a reference game."""

    def __init__(self, game: reference.Game):
        self.enemy_cards = sum(game.enemies)
        self.anomaly_cards = sum(game.anomalies)
        self.artifact_cards = sum(game.artifact_deck)
        self.items = sum(game.me.items)
        self.trades = 0

    def __call__(self, game: reference.Game, day: int) -> None:
        me, cp = game.me, game.cp
        assert day >= 1
        # Never above the maximum (Z-14); radiation back to 0 past it (P-39).
        assert me.health <= cp[K.C_HEALTH] and me.willpower <= cp[K.C_WILLPOWER]
        assert 0 <= me.radiation <= cp[K.C_RADIATION_MAX]
        assert all(n >= 0 for n in me.items)
        if sum(me.items) > self.items:
            # Items only come from trading at a base (shopping, Freedom's Gear).
            assert me.tally["trades"] > self.trades
        self.items, self.trades = sum(me.items), me.tally["trades"]
        enemies_on_board = sum(1 for what, _ in game.board.values() if what == "enemy")
        anomalies_on_board = len(game.board) - enemies_on_board
        # Card counts are conserved: pool + board + kept as trophies = the deck (P-34, P-16).
        assert sum(game.enemies) + enemies_on_board + me.tally["kills"] == self.enemy_cards
        assert (sum(game.anomalies) + anomalies_on_board + me.tally["anomaly_trophies"]
                == self.anomaly_cards)
        assert sum(game.artifact_deck) + me.tally["artifacts_found"] == self.artifact_cards


@settings(max_examples=25, deadline=None)
@given(stalker=st.sampled_from(["Strelok", "Scar", "Degtyarev", "Ghost"]),
       sneak=st.sampled_from(["always", "never"]), flee_at=st.integers(0, 3),
       medkit_at=st.integers(0, 5), retreat_at=st.integers(0, 3),
       enter=st.booleans(), seed=st.integers(0, 10_000))
def test_invariants_over_random_policies(tmp_path_factory, stalker, sneak, flee_at, medkit_at,
                                         retreat_at, enter, seed):
    path = tmp_path_factory.mktemp("scenario") / "s.toml"
    path.write_text(
        f'ruleset = "{bundled_ruleset()}"\nstalker = "{stalker}"\nstart = "Cordon"\n'
        '[loadout]\narmor = "Stalker suit"\nweapons = ["Shotgun"]\n'
        'items = ["Medkit", "Stimulant", "Smoke bomb"]\n'
        f'[policy]\nsneak = "{sneak}"\nflee_at = {flee_at}\nmedkit_at = {medkit_at}\n'
        f'retreat_at = {retreat_at}\nenter_anomalies = {str(enter).lower()}\n'
        'shopping = ["Medkit"]\n')
    scenario = load_scenario(path)
    arrays = compile_campaign(scenario)
    fights = reference.reference_fights(scenario, arrays)
    rands = [random.Random(seed + i) for i in range(3)]
    for _ in range(5):
        game = reference.Game(scenario, arrays, fights, *rands)
        end, day = game.play(Checker(game))
        assert end in ENDS and 1 <= day <= arrays.max_days


@pytest.mark.parametrize("stalker", ["Strelok", "Ghost"])
def test_kernel_counts_are_plausible(stalker, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(f'ruleset = "{bundled_ruleset()}"\nstalker = "{stalker}"\n'
                    'start = "Cordon"\n')
    data = run_campaign(load_scenario(path), trials=20_000, seed=3).to_dict()
    total = sum(e["mc"] for e in data["ends"])
    assert total == pytest.approx(1.0)
    assert data["days"]["p10"] <= data["days"]["median"] <= data["days"]["p90"]
    curve = [p["survival"] for p in data["survival"]]
    assert all(a >= b for a, b in zip(curve, curve[1:], strict=False))
