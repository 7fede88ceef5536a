"""Tests for the seeded faults that the suite missed (issue 23, item 10).

Four faults seeded one at a time into a copy of the project went through every
test but the golden byte-diff (or through all of them). Each now has a test of
its own, checked against an expectation that does not come from the code under
test: the rule text, a hand computation, or the plain-Python reference.

- ``artifacts.carry_limit`` (docs/rules.md "Artefacts in the campaign" 1; P-07,
  P-08, P-11): a limit above 0 keeps every set of up to ``carry_limit``
  artefacts in the compiled tables and drops only the larger ones; a loadout
  at the limit plays as without a limit; the kernel agrees with the reference
  campaign under limits 1 and 2.
- The lever finder's down and up columns (issue 15 §3): the down value lies
  below the current one and the up value above; each column holds the metric
  played at its own value (replayed by ``compare``) and moves the way its step
  does (more enemy Endurance, more knock-outs: P-19).
- The Kaplan-Meier survival curve's Greenwood interval (docs/rules.md
  "Campaign", Outputs): a hand-computed case, and the curve of real games
  against a plain recomputation from the per-game rows.
- The anomaly's Perception and Agility tests (P-31, P-32, P-36): each reads its
  own stalker attribute and its own card modifier, against the binomial
  probabilities of the rule written out here.
"""

from __future__ import annotations

import math
import re
import shutil
import statistics
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sim.campaign.artifacts import artifact_slots
from sim.campaign.compile import compile_campaign
from sim.encounter.anomaly import compile_anomaly
from sim.exact.anomaly import anomaly_exact
from sim.experiments.anomaly import simulate_anomaly
from sim.experiments.campaign import ENDS, kaplan_meier, run_campaign, simulate_trials
from sim.experiments.registry import experiment
from sim.kernels import anomaly as AK
from sim.kernels import campaign as K
from sim.kernels import layout
from sim.paths import bundled_ruleset, configs_root
from sim.rules import load_ruleset
from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits
from sim.workflows import compare as C
from sim.workflows import levers as L
from tests.conftest import Z_TOL, assert_matches_exact
from tests.kernels.campaign.test_campaign_reference import (
    KERNEL_COLUMNS,
    METRICS,
    assert_agrees,
    assert_disagrees,
    reference_sample,
    welch_z,
)

# --- artifacts.carry_limit (docs/rules.md "Artefacts in the campaign" 1) -----------------------

CARRY_BODY = ('stalker = "Strelok"\nstart = "Cordon"\n[loadout]\narmor = "Stalker suit"\n'
              'weapons = ["SVD sniper rifle", "Knife"]\nitems = ["Medkit", "Stimulant"]\n'
              'artifacts = {carried}\n[policy]\nenter_anomalies = true\n'
              'keep_artifacts = {kept}\n')
"""Strelok carrying and keeping artefacts, entering anomalies for finds: Sparkler (stealth, used
on the Stealth tests of the default ``sneak = "always"``), Fireball (resist thermal: the
Burner), Moonlight (calm)."""

LIMITS = [(1, ["Sparkler"], ["Fireball", "Moonlight"]),
          (2, ["Sparkler", "Fireball"], ["Moonlight"])]
"""(carry_limit, carried, kept): each loadout carries exactly as many as the limit allows."""


def rules_copy(tmp_path: Path, name: str, key: str, value: object) -> str:
    """A copy of the base ruleset beside the scenarios with one ``rules.toml`` key changed."""
    folder = tmp_path / f"rules_{name}"
    shutil.copytree(bundled_ruleset(), folder)
    toml = folder / "rules.toml"
    text, found = re.subn(rf"(?m)^{key} = \S+", f"{key} = {value}", toml.read_text())
    assert found == 1, key
    toml.write_text(text)
    return folder.name


def carry_scenario(tmp_path: Path, name: str, limit: int, carried, kept) -> Path:
    """A scenario on a copy of the base ruleset with ``artifacts.carry_limit = limit``."""
    quote = lambda names: "[" + ", ".join(f'"{n}"' for n in names) + "]"  # noqa: E731
    path = tmp_path / f"{name}.toml"
    path.write_text(f'ruleset = "{rules_copy(tmp_path, name, "carry_limit", limit)}"\n'
                    + CARRY_BODY.format(carried=quote(carried), kept=quote(kept)))
    return path


@pytest.mark.parametrize(("limit", "carried", "kept"), LIMITS)
def test_carry_limit_keeps_every_set_of_artefacts_up_to_the_limit(tmp_path, limit, carried,
                                                                  kept):
    """carry_limit caps the artefacts carried *at once* (docs/rules.md, Artefacts in the
    campaign 1): every set of at most ``limit`` slots is compiled exactly as without a limit
    (fights P-08..P-10, P-23; anomalies P-08; a day's use and movement: every held one), and
    only the larger sets, which the kernel never holds, stay zero."""
    limited = load_scenario(carry_scenario(tmp_path, "limited", limit, carried, kept))
    free = load_scenario(carry_scenario(tmp_path, "free", 0, carried, kept))
    slots = artifact_slots(limited)
    assert slots == (*carried, *kept) and len(slots) == 3
    a, b = compile_campaign(limited), compile_campaign(free)
    n_weapons = len(limited.weapons)
    none = len(a.art_n[0]) - 1  # the row of a day's use and movement: every held artefact
    for mask in range(1 << len(slots)):
        held = bin(mask).count("1")
        fights = [(mask << n_weapons) | w for w in range(1 << n_weapons)]
        if held <= limit:
            assert a.art_n[mask, none] == held, (mask, a.art_n[mask])
            assert np.array_equal(a.art_rec[mask], b.art_rec[mask]), mask
            assert np.array_equal(a.art_n[mask], b.art_n[mask]), mask
            assert np.array_equal(a.a_params[mask], b.a_params[mask]), mask
            for m in fights:
                assert np.array_equal(a.e_params[m], b.e_params[m]), (mask, m)
        else:
            assert not a.art_n[mask].any() and not a.art_rec[mask].any(), mask
            assert not a.a_params[mask].any(), mask
    # The carried set itself, at the limit: its artefacts act in the fights (Sparkler on the
    # Stealth tests), so the fight tables differ from those of the weapons alone.
    carried_mask = (1 << len(carried)) - 1
    assert not np.array_equal(a.e_params[carried_mask << n_weapons], a.e_params[0])


@pytest.mark.parametrize(("limit", "carried", "kept"), LIMITS)
def test_a_loadout_at_the_carry_limit_plays_as_without_a_limit(tmp_path, limit, carried, kept):
    """A limit that the loadout meets and no find can pass (nothing kept) changes no game:
    the same per-game rows, bit for bit, as with ``carry_limit = 0``; and the carried
    artefacts are used, so a limit that dropped them would change the rows."""
    games = 20_000
    rows = [simulate_trials(compile_campaign(load_scenario(carry_scenario(
        tmp_path, name, lim, carried, ()))), 5, 0, games) for name, lim in
        (("limited", limit), ("free", 0))]
    np.testing.assert_array_equal(rows[0], rows[1])
    assert rows[0][:, K.G_ART_USES].mean() > 1.0  # Sparkler on every Stealth test


REFERENCE_GAMES = {1: 6_000, 2: 12_000}
"""Reference games per limit, the guard's need (about 1 s of CPU per 1,000): at limit 1 the
guard's largest |z| is 8.3 at 6,000 games (artefacts sold; 11.4 at 12,000, the count before,
7.0 at 5,000), the agreement's 1.9; at limit 2 the guard's is 6.3 at 12,000 (artefact uses;
5.8 at 9,000 and 10,000, 4.9 at 6,000), the agreement's 2.2 (measured after issue 27's
enemy habitats and Emission armour roll, at which 3,000 games left the limit-2 guard at
3.1)."""
KERNEL_GAMES = 50_000
SEED = 17


def _kernel(path: Path) -> np.ndarray:
    """Kernel games as rows of the reference comparison's columns (ending, day, counters)."""
    rows = simulate_trials(compile_campaign(load_scenario(path)), SEED, 0, KERNEL_GAMES)
    return rows[:, KERNEL_COLUMNS]


def _z(ref: np.ndarray, ker: np.ndarray) -> dict[str, float]:
    """Welch z of every ending share and per-game mean, reference minus kernel."""
    z = {end: welch_z(ref[:, 0] == i, ker[:, 0] == i) for i, end in enumerate(ENDS)}
    z.update({m: welch_z(ref[:, j], ker[:, j]) for j, m in enumerate(METRICS, start=1)})
    return z


@pytest.mark.slow
@pytest.mark.parametrize(("limit", "carried", "kept"), LIMITS)
def test_carry_limit_games_agree_with_the_reference(tmp_path, limit, carried, kept):
    """Kernel against the plain-Python reference (sim/reference/campaign.py), which plays
    every held artefact and reads ``carry_limit`` only where a find would be kept
    (``sum(held) < limit``, P-07, P-11): Welch |z| < Z_TOL on every ending share and
    per-game mean (artefact uses, side effects, exchanges, finds, rubles...), as
    tests/kernels/campaign/test_campaign_reference.py does.
    Guard: the kernel without the limit disagrees
    with the same reference games (the kept finds it holds instead of selling), so the
    comparison sees the limit."""
    path = carry_scenario(tmp_path, "limited", limit, carried, kept)
    free = carry_scenario(tmp_path, "free", 0, carried, kept)
    ref, ker = reference_sample(path, games=REFERENCE_GAMES[limit]), _kernel(path)
    assert_agrees(_z(ref, ker))
    assert ker[:, 1 + METRICS.index("artifacts_used")].mean() > 1.0  # the carried ones act
    assert_disagrees(_z(ref, _kernel(free)))


# --- the lever finder's down and up columns (issue 15 §3) --------------------------------------

BASE = load_scenario("base")
LEVER_SETUP = {**L.base_setup("combat", BASE), "enemy": "Bloodsucker"}
"""Strelok against the Bloodsucker alone (P-14..P-29), so its values move the metric a lot."""
LEVER_TRIALS = 20_000
LEVER_SEED = 11


@pytest.fixture(scope="module")
def bloodsucker_levers() -> L.LeverResult:
    """The Bloodsucker's and the Blind dog's values (the dog's Endurance 1 cannot go down)."""
    return L.run_levers(BASE.ruleset, "combat", LEVER_SETUP, trials=LEVER_TRIALS,
                        seed=LEVER_SEED, tables=["enemies"], cards=["Bloodsucker", "Blind dog"])


def test_lever_down_value_is_below_the_current_one_and_up_above(bloodsucker_levers):
    """Every ranked lever: down value = current - step < current < current + step = up value;
    a side the rules refuse is empty and named in ``skipped`` by its own side."""
    rows = bloodsucker_levers.to_dict()["levers"]
    assert len(rows) == 8
    for row in rows:
        if row["down_value"] is None:
            assert row["skipped"].startswith("down: "), row
        else:
            assert row["down_value"] == row["current"] - row["step"] < row["current"], row
        assert row["up_value"] == row["current"] + row["step"] > row["current"], row
    dog = next(r for r in rows if r["path"] == "enemies.Blind dog.endurance")
    assert dog["current"] == 1 and dog["down_value"] is None and dog["up_value"] == 2
    assert dog["skipped"].startswith("down: ") and "=0" in dog["skipped"]
    frame = bloodsucker_levers.ranking()
    assert (frame["down_value"].dropna() < frame.loc[frame["down_value"].notna(), "current"]).all()
    assert (frame["up_value"] > frame["current"]).all()


@pytest.mark.parametrize("column", ["endurance", "wounds"])
def test_lever_columns_hold_the_metric_played_at_their_value(bloodsucker_levers, column):
    """Each side's columns are the metric played at that side's value: ``zonesim compare``
    replays the edit ``column=down_value`` and ``column=up_value`` on the same seed and gives
    the very numbers of the down and up columns, and the exact twin (the combat Markov chain)
    agrees with each within Z_TOL standard errors. The metric moves the way the step does:
    more Endurance (successes needed to kill, P-19) or more Wounds per failed round (P-20)
    means more knock-outs, exactly and in the paired intervals."""
    path = f"enemies.Bloodsucker.{column}"
    (row,) = [r for r in bloodsucker_levers.to_dict()["levers"] if r["path"] == path]
    variants = [C.Variant("baseline"),
                C.Variant("down", (), (f"{path}={row['down_value']}",)),
                C.Variant("up", (), (f"{path}={row['up_value']}",))]
    base, down, up = C.compare(experiment("combat"), BASE.ruleset, LEVER_SETUP, variants,
                               trials=LEVER_TRIALS, seed=LEVER_SEED,
                               metrics=["knocked_out"]).rows
    for side, replay in (("down", down), ("up", up)):
        for key in ("mc", "diff", "diff_ci_low", "diff_ci_high", "verdict"):
            assert row[f"{side}_{key}"] == replay[key], (side, key)
        se = math.sqrt(replay["exact"] * (1 - replay["exact"]) / LEVER_TRIALS)
        assert abs(row[f"{side}_mc"] - replay["exact"]) < Z_TOL * se, side
    assert down["exact"] < base["exact"] < up["exact"]
    assert row["down_diff_ci_high"] < 0 < row["up_diff_ci_low"]
    assert row["down_mc"] < bloodsucker_levers.baseline["mc"] < row["up_mc"]


# --- the Kaplan-Meier curve and its Greenwood interval (docs/rules.md "Campaign", Outputs) -----

Z95 = statistics.NormalDist().inv_cdf(0.975)
"""The two-sided 95 % normal quantile, computed here rather than read from sim.stats."""


def greenwood_by_hand(deaths, ended, trials):
    """The textbook estimator, written out: S(t) = prod (1 - d_i / n_i) over days i <= t,
    Var S(t) = S(t)^2 * sum d_i / (n_i (n_i - d_i)) (Greenwood), and the plain interval that
    sim/experiments/campaign.py:kaplan_meier documents (S +- z * SE, clipped to [0, 1]).
    ``n_i`` counts the games still running at the start of day i (a game censored on day i
    was at risk on day i); a day that ends every game at risk leaves S = 0 and adds no term."""
    rows, s, var_sum = [], Fraction(1), Fraction(0)
    n = trials - ended[0]
    for day in range(1, len(deaths)):
        d = deaths[day]
        if d:
            s *= Fraction(n - d, n)
            if n > d:
                var_sum += Fraction(d, n * (n - d))
        se = float(s) * math.sqrt(var_sum)
        rows.append((day, float(s), max(0.0, float(s) - Z95 * se), min(1.0, float(s) + Z95 * se),
                     n))
        n -= ended[day]
    return rows


def test_greenwood_interval_of_a_hand_computed_case():
    """Eleven games: one gone before day 1; day 1: 10 at risk, 2 die, 1 censored; day 2:
    7 at risk, 1 dies; day 3: 6 at risk, 2 censored; day 4: 4 at risk, 2 die, 1 censored;
    day 5: the last one dies; day 6: nobody left."""
    deaths = [0, 2, 1, 0, 2, 1, 0]
    ended = [1, 3, 1, 2, 3, 1, 0]
    curve = kaplan_meier(np.array(deaths), np.array(ended), 11)
    # Day 2 by hand: S = 8/10 * 6/7 = 24/35; Greenwood sum 2/(10*8) + 1/(7*6) = 41/840;
    # SE = 24/35 * sqrt(41/840) = 0.151494; half-width 1.959964 * SE = 0.296923.
    day2 = curve[1]
    assert day2["survival"] == pytest.approx(24 / 35, rel=1e-12)
    se = 24 / 35 * math.sqrt(41 / 840)
    assert se == pytest.approx(0.1514940, abs=1e-7)
    assert (day2["ci_low"], day2["ci_high"]) == pytest.approx((0.3887915, 0.9826371), abs=1e-7)
    expected = greenwood_by_hand(deaths, ended, 11)
    assert [(r["day"], r["survival"], r["ci_low"], r["ci_high"], r["at_risk"]) for r in curve] \
        == [pytest.approx(e, rel=1e-12, abs=1e-15) for e in expected]
    # Day 1 clips at 1 (0.8 + 0.248), day 4 at 0 (12/35 - 0.367), day 5 has S = 0.
    assert curve[0]["ci_high"] == 1.0 and curve[3]["ci_low"] == 0.0
    assert curve[4]["survival"] == curve[4]["ci_low"] == curve[4]["ci_high"] == 0.0
    assert [r["at_risk"] for r in curve] == [10, 7, 6, 4, 1, 0]


def test_survival_curve_of_real_games_against_the_per_game_rows(tmp_path):
    """``zonesim campaign``'s survival curve (CampaignResult.to_dict) against the estimator
    recomputed from the same games' per-game rows: a death is every end but the Sarcophagus
    reached and the cap (P-37..P-50; docs/rules.md "Campaign", Outputs), which are censored.
    The base scenario capped at 14 days (``campaign.max_days``): games of all three kinds."""
    text = (configs_root() / "scenarios" / "base.toml").read_text()
    folder = rules_copy(tmp_path, "capped", "max_days", 14)
    path = tmp_path / "capped.toml"
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{folder}"', 1))
    sc, trials, seed = load_scenario(path), 4000, 3
    result = run_campaign(sc, trials=trials, seed=seed)
    rows = simulate_trials(compile_campaign(sc), seed, 0, trials)
    censored = [ENDS.index("reached"), ENDS.index("capped")]
    dead = ~np.isin(rows[:, 0], censored)
    days = result.max_days + 1
    deaths = np.bincount(rows[dead, 1], minlength=days).tolist()
    ended = np.bincount(rows[:, 1], minlength=days).tolist()
    counts = np.bincount(rows[:, 0], minlength=len(ENDS))
    assert sum(deaths) > 100 and counts[censored].min() > 100
    curve = result.to_dict()["survival"]
    expected = greenwood_by_hand(deaths, ended, trials)
    assert [(r["day"], r["survival"], r["ci_low"], r["ci_high"], r["at_risk"]) for r in curve] \
        == [pytest.approx(e, rel=1e-9, abs=1e-12) for e in expected]
    assert any(0.0 < r["ci_low"] < r["survival"] < r["ci_high"] < 1.0 for r in curve)


# --- the anomaly's Perception and Agility tests (P-31, P-32, P-36; Gap "Test procedure") --------

RS = load_ruleset(None)
ANOMALY = "Electro"
"""Eye (Perception modifier) 2, skull (Agility modifier) 3, 2 electric wounds (P-31, P-32):
Strelok (Health 6) without armour takes both and is never knocked out."""
ANOMALY_TRIALS = 200_000


def pass_chance(dice: int, face: int, need: int) -> Fraction:
    """A pool test as the rules state it: ``dice`` d6, each a success on ``face`` or more,
    passed with ``need`` successes or more; ``need <= 0`` passes without rolling."""
    if need <= 0:
        return Fraction(1)
    p = Fraction(7 - face, 6)
    return sum((math.comb(dice, k) * p**k * (1 - p)**(dice - k)
                for k in range(need, dice + 1)), Fraction(0))


def by_the_rules(perception: int, agility: int, enter: bool, reading: str) -> dict:
    """The encounter's probabilities from the rule text alone (P-31..P-36, P-07).

    Perception test (P-31) on the stalker's Perception against the eye; a pass goes around,
    unless he enters anyway (P-36), with one more Agility die; the one Agility test (P-32,
    P-33) on his Agility against the skull; a failure takes the damage. Every survivor
    keeps the trophy and finds an artefact on a find test of ``anomaly.find_attribute``
    (Perception) against ``anomaly.find_need`` (1), the deck holding electro cards (P-35).
    Under ``dice.modifier = successes`` a modifier is successes needed on 5+; under ``face``
    it is the face each die needs, one success passing."""
    card = RS.anomalies[ANOMALY]

    def test(dice: int, modifier: int) -> Fraction:
        if reading == "successes":
            return pass_chance(dice, 5, modifier)
        return pass_chance(dice, modifier, 1) if modifier > 1 else Fraction(1)

    seen = test(perception, card.perception)
    hurt = (1 - seen) * (1 - test(agility, card.agility))
    if enter:
        hurt += seen * (1 - test(agility + 1, card.agility))
        avoided = Fraction(0)
    else:
        avoided = seen
    find = test(perception, RS.rules.anomaly.find_need)
    return {"avoided": avoided, "unharmed": 1 - avoided - hurt, "damaged": hurt,
            "knocked_out": Fraction(0), "perceived": seen, "artifact": (1 - avoided) * find}


def anomaly_spec(perception: int, agility: int, enter: bool, reading: str = "successes"):
    rs = apply_edits(RS, [f"stalkers.Strelok.perception={perception}",
                          f"stalkers.Strelok.agility={agility}", f"rules.dice.modifier={reading}"])
    return compile_anomaly(rs, "Strelok", ANOMALY, enter=enter)


CASES = [(1, 5), (5, 1)]
"""(Perception, Agility): far apart, so that a test on the other attribute moves every
probability by many standard errors."""


@pytest.mark.parametrize("reading", ["successes", "face"])
@pytest.mark.parametrize("enter", [False, True], ids=["around", "enter"])
@pytest.mark.parametrize(("perception", "agility"), CASES)
def test_each_anomaly_test_reads_its_own_attribute_and_modifier(perception, agility, enter,
                                                                reading):
    """P-31 reads Perception and the eye, P-32 Agility and the skull: the compiled encounter,
    its exact twin (exactly) and the kernel (|z| < Z_TOL at 200,000 trials, fixed seed)
    against the probabilities of the rule text."""
    card = RS.anomalies[ANOMALY]
    spec = anomaly_spec(perception, agility, enter, reading)
    assert (spec.perception, spec.agility) == (perception, agility)
    if reading == "successes":
        assert (spec.perception_face, spec.perception_need) == (5, card.perception)
        assert (spec.agility_face, spec.agility_need) == (5, card.agility)
    else:
        assert (spec.perception_face, spec.perception_need) == (card.perception, 1)
        assert (spec.agility_face, spec.agility_need) == (card.agility, 1)
    want = by_the_rules(perception, agility, enter, reading)
    exact = anomaly_exact(spec)
    assert {**exact.outcomes, "perceived": exact.perceived, "artifact": exact.artifact} == want
    counts = simulate_anomaly(spec, ANOMALY_TRIALS, 31)
    observed = [*counts[:AK.N_OUTCOMES], counts[AK.PERCEIVED], counts[AK.ARTIFACT]]
    assert_matches_exact(observed, ANOMALY_TRIALS, list(want.values()), list(want))


def test_only_agility_moves_the_escape_and_only_perception_the_notice():
    """The split, on common random numbers (the Perception test is rolled first on the DICE
    stream): more Agility leaves every Perception roll as it was (the very same count) and
    moves the damage (P-32); more Perception moves the notice (P-31) but leaves the damage
    among those who fell in at the Agility test's own chance (|z| < Z_TOL)."""
    base = simulate_anomaly(anomaly_spec(3, 3, False), ANOMALY_TRIALS, 7)
    agile = simulate_anomaly(anomaly_spec(3, 5, False), ANOMALY_TRIALS, 7)
    keen = simulate_anomaly(anomaly_spec(5, 3, False), ANOMALY_TRIALS, 7)
    assert agile[AK.PERCEIVED] == base[AK.PERCEIVED] == base[AK.AVOIDED]
    for run, agility in ((base, 3), (agile, 5), (keen, 3)):
        fell = ANOMALY_TRIALS - int(run[AK.AVOIDED])
        p = float(1 - pass_chance(agility, 5, RS.anomalies[ANOMALY].agility))
        z = (run[AK.DAMAGED] / fell - p) / math.sqrt(p * (1 - p) / fell)
        assert abs(z) < Z_TOL, (agility, z)
    assert agile[AK.DAMAGED] < base[AK.DAMAGED] and keen[AK.AVOIDED] > base[AK.AVOIDED]
    seen = [float(pass_chance(n, 5, RS.anomalies[ANOMALY].perception)) for n in (3, 5)]
    for run, p in zip((base, keen), seen, strict=True):
        z = (run[AK.PERCEIVED] / ANOMALY_TRIALS - p) / math.sqrt(p * (1 - p) / ANOMALY_TRIALS)
        assert abs(z) < Z_TOL, z


def test_the_campaign_packs_each_test_with_its_own_attribute(tmp_path):
    """The campaign's anomaly tables (sim/campaign/compile.py) for Degtyarev (Perception 4,
    Agility 3, the one base stalker whose two differ): every card's Perception test on his
    Perception and its eye, the Agility test on his Agility and its skull (P-31, P-32)."""
    text = (configs_root() / "scenarios" / "base.toml").read_text()
    path = tmp_path / "degtyarev.toml"
    path.write_text(text.replace('stalker = "Strelok"', 'stalker = "Degtyarev"', 1))
    arrays = compile_campaign(load_scenario(path))
    hero = RS.stalkers["Degtyarev"]
    assert (hero.perception, hero.agility) == (4, 3)
    for a, card in enumerate(RS.anomalies.values()):
        params = arrays.a_params[0, a]
        assert (params[layout.A_PERCEPTION], params[layout.A_PERCEPTION_NEED]) == (
            hero.perception, card.perception), card.name
        assert (params[layout.A_AGILITY], params[layout.A_AGILITY_NEED]) == (
            hero.agility, card.agility), card.name
