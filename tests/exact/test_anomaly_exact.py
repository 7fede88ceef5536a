"""The exact anomaly and event twins (P-30..P-40, Z-08..Z-10): hand values, brute force, properties.

The twins are the ground truth of the Monte Carlo tests, so they are checked
here against enumeration of every die face on tiny cases, against values
worked out by hand from the rule texts, and against properties that must
hold for every spec (hypothesis).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import permutations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.encounter.anomaly import StartState, compile_anomaly, compile_event
from sim.encounter.spec import AnomalySpec
from sim.exact.anomaly import anomaly_exact, consequence, expected_draws
from sim.exact.event import event_exact
from sim.kernels.layout import TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER
from sim.rules import load_ruleset

RS = load_ruleset(None)


def _spec(**kw) -> AnomalySpec:
    base = dict(perception=1, agility=1, perception_need=1, agility_need=1, damage=2,
                target=TARGET_HEALTH, resist=4, durability=3, tokens=1, armor_absorbs=True,
                health=2, radiation=0, radiation_max=3, willpower=2, success_on=5, enter=False,
                bonus_dice=1, deck=(2, 1), artifact=1)
    base.update(kw)
    return AnomalySpec(**base)


def _brute_force(spec: AnomalySpec) -> dict:
    """Every face of every die, full pools rolled (no early stop): P of each outcome.

    Dice: Perception (P-31), Agility with the bonus die (P-32, P-36), the armour
    (P-02), then the find test (P-07, P-35), each die face compared with its own
    test's face. Every roll is equally likely: each outcome's rolls are counted as integers
    and divided by the number of rolls once at the end.
    """
    n_p, n_a = spec.perception, spec.agility + spec.bonus_dice
    n_d, n_f = spec.damage, spec.find_pool
    totals = dict.fromkeys(("avoided", "unharmed", "damaged", "knocked_out", "deformation",
                            "loss", "searched"), 0)
    for faces in product(range(1, 7), repeat=n_p + n_a + n_d + n_f):
        per, agi = faces[:n_p], faces[n_p:n_p + n_a]
        arm, find = faces[n_p + n_a:n_p + n_a + n_d], faces[n_p + n_a + n_d:]
        seen = (spec.perception_need <= 0
                or sum(f >= spec.perception_face for f in per) >= spec.perception_need)
        if seen and not spec.enter:
            totals["avoided"] += 1
            continue
        pool = agi if seen else agi[:spec.agility]
        through = 0
        if (spec.agility_need > 0
                and sum(f >= spec.agility_face for f in pool) < spec.agility_need):
            resist = spec.effective_resist
            hits = sum(f >= resist for f in arm) if resist else 0
            through = spec.damage - min(hits, max(spec.durability - spec.tokens, 0))
        out, deformed = consequence(spec.target, through, spec.health, spec.willpower,
                                    spec.radiation, spec.radiation_max)
        key = "knocked_out" if out else "damaged" if through else "unharmed"
        totals[key] += 1
        totals["deformation"] += deformed
        totals["loss"] += through
        found = spec.find_need <= 0 or sum(f >= spec.find_face for f in find) >= spec.find_need
        totals["searched"] += not out and spec.artifact >= 0 and found
    rolls = 6 ** (n_p + n_a + n_d + n_f)
    return {name: Fraction(int(count), rolls) for name, count in totals.items()}


@pytest.mark.parametrize("changes", [
    {}, {"enter": True}, {"target": TARGET_RADIATION, "radiation": 2},
    {"target": TARGET_WILLPOWER, "willpower": 1, "enter": True},
    {"resist": 0}, {"tokens": 3}, {"perception_need": 0, "enter": True, "agility_need": 2},
    {"success_on": 3, "resist": 6, "durability": 1, "tokens": 0, "health": 1},
    # two find dice with one armour die (six dice, not seven: 6**6 rolls) and Health 1, so
    # a knock-out (no search) and a search both happen
    {"find_pool": 2, "find_need": 1, "damage": 1, "health": 1},
    {"find_pool": 2, "find_need": 2, "find_on": 3, "damage": 1, "health": 1},
    {"perception_on": 3, "agility_on": 6, "find_pool": 1, "find_need": 1, "find_on": 4},
])
def test_exact_matches_brute_force(changes):
    # P-31..P-33, P-36, P-02..P-06, P-37, P-39, P-40, P-07/P-35 by enumeration of every
    # die face.
    spec = _spec(**changes)
    exact, brute = anomaly_exact(spec), _brute_force(spec)
    for name in ("avoided", "unharmed", "damaged", "knocked_out"):
        assert exact.outcomes[name] == brute[name], name
    assert exact.deformation == brute["deformation"]
    assert exact.mean_loss == brute["loss"]
    assert exact.searched == brute["searched"]


def test_burner_with_ecolog_suit_p06():
    # P-06: Ecolog suit (thermal 3+, durability 4, 3 tokens) against a Burner's 3 wounds.
    # Strelok (Perception 3, need 2; Agility 3, need 2; success on 5): P(pass) = 7/27.
    spec = compile_anomaly(RS, "Strelok", "Burner", "Ecolog suit", state=StartState(tokens=3))
    exact = anomaly_exact(spec)
    p_pass = Fraction(7, 27)
    p_hit = (1 - p_pass) * (1 - p_pass)
    all_fail = Fraction(2, 6) ** 3        # no die shows 3+: all 3 wounds go through
    assert exact.outcomes["avoided"] == p_pass
    assert exact.mean_loss == p_hit * (3 * all_fail + 2 * (1 - all_fail))
    assert exact.armor_destroyed == p_hit * (1 - all_fail)
    assert exact.outcomes["knocked_out"] == 0      # 6 Health, at most 3 wounds


def test_voluntary_entry_bonus_die_p36():
    spec = compile_anomaly(RS, "Strelok", "Burner", enter=True)
    exact = anomaly_exact(spec)
    p_seen = Fraction(7, 27)
    p_escape_bonus = 1 - (Fraction(2, 3) ** 4 + 4 * Fraction(1, 3) * Fraction(2, 3) ** 3)
    assert exact.outcomes["avoided"] == 0
    assert exact.outcomes["unharmed"] == p_seen * p_escape_bonus + (1 - p_seen) * p_seen
    # With no bonus dice (rules.toml anomaly.voluntary_bonus_dice = 0) entering is worse.
    plain = anomaly_exact(replace(spec, bonus_dice=0))
    assert plain.outcomes["unharmed"] < exact.outcomes["unharmed"]


def test_artifact_p35_found_iff_type_in_deck_and_find_test_passed():
    # P-35: with a full deck, found iff the find test passes (P-07; Scar: Perception 3,
    # one success needed) and a card of the type exists; blank type yields nothing.
    electro = anomaly_exact(compile_anomaly(RS, "Scar", "Electro"))
    assert electro.artifact == electro.searched == electro.trophy * (1 - Fraction(2, 3) ** 3)
    n_cards = sum(a.count for a in RS.artifacts.values())
    n_electro = sum(a.count for a in RS.artifacts.values() if a.type == "electro")
    assert electro.draws_per_search == Fraction(n_cards + 1, n_electro + 1)
    hotspot = anomaly_exact(compile_anomaly(RS, "Scar", "Radiation hotspot"))
    assert hotspot.artifact == 0 and hotspot.trophy > 0 and hotspot.searched == 0
    empty = anomaly_exact(compile_anomaly(RS, "Scar", "Electro", deck={"electro": 0}))
    assert empty.artifact == 0 and empty.searched > 0
    assert empty.draws_per_search == n_cards - n_electro  # the whole depleted deck is drawn


@pytest.mark.parametrize(("deck", "want"), [((3, 1), 1), ((2, 2), 0), ((1, 0, 2), 2), ((0, 3), 1),
                                            ((2, 0), 1)])
def test_expected_draws_by_enumeration(deck, want):
    cards = [t for t, n in enumerate(deck) for _ in range(n)]
    orders = list(permutations(cards))
    total = Fraction(0)
    for order in orders:
        draws = next((i + 1 for i, c in enumerate(order) if c == want), len(order))
        total += Fraction(draws, len(orders))
    assert expected_draws(sum(deck), deck[want]) == total


def test_consequences_p37_p39_p40():
    assert consequence(TARGET_HEALTH, 3, 3, 5, 0, 5) == (True, False)      # P-37: <= 0
    assert consequence(TARGET_WILLPOWER, 2, 6, 2, 0, 5) == (True, False)   # P-40
    assert consequence(TARGET_RADIATION, 2, 1, 1, 3, 5) == (False, False)  # 5 does not exceed 5
    assert consequence(TARGET_RADIATION, 3, 1, 1, 3, 5) == (False, True)   # P-39: exceeds


@pytest.mark.parametrize(("items", "expected"), [
    ((), Fraction(3, 6)), (("Bag of nuts",), Fraction(4, 6)), (("Dosimeter",), Fraction(5, 6)),
    (("Torsion scanner",), Fraction(1)), (("Bag of nuts", "Dosimeter"), Fraction(5, 6)),
])
def test_event_avoid_z09_z10(items, expected):
    # Radiation spike: "avoid on 4 or more" (Z-09); items never add up (Z-10).
    exact = event_exact(compile_event(RS, "Strelok", "Radiation spike", items=items))
    assert exact.outcomes["avoided"] == expected
    assert exact.radiation == (1 - expected) * 1


def test_event_without_roll_always_happens():
    exact = event_exact(compile_event(RS, "Strelok", "Zone stirs", items=["Torsion scanner"]))
    assert exact.outcomes == {"avoided": 0, "happened": 1, "knocked_out": 0}
    assert exact.emission_tokens == 1


def test_event_radiation_through_armor_only_if_absorbs_radiation():
    rules = RS.rules
    no_absorb = replace(RS, rules=replace(rules, armor=replace(rules.armor,
                                                              absorbs_radiation=False)))
    with_suit = event_exact(compile_event(RS, "Strelok", "Radioactive dust", "SEVA suit"))
    without = event_exact(compile_event(no_absorb, "Strelok", "Radioactive dust", "SEVA suit"))
    assert with_suit.radiation < without.radiation == Fraction(2, 6) * 2  # avoid on 3+


# --- properties (hypothesis) ------------------------------------------------------------

@st.composite
def specs(draw) -> AnomalySpec:
    durability = draw(st.integers(0, 5))
    radiation_max = draw(st.integers(1, 6))
    n_types = draw(st.integers(1, 3))
    deck = tuple(draw(st.lists(st.integers(0, 4), min_size=n_types, max_size=n_types)))
    return AnomalySpec(
        perception=draw(st.integers(0, 5)), agility=draw(st.integers(0, 5)),
        perception_need=draw(st.integers(-1, 4)), agility_need=draw(st.integers(-1, 4)),
        damage=draw(st.integers(0, 5)),
        target=draw(st.sampled_from((TARGET_HEALTH, TARGET_RADIATION, TARGET_WILLPOWER))),
        resist=draw(st.sampled_from((0, 2, 3, 4, 5, 6))), durability=durability,
        tokens=draw(st.integers(0, durability)), armor_absorbs=draw(st.booleans()),
        health=draw(st.integers(1, 6)), radiation=draw(st.integers(0, radiation_max)),
        radiation_max=radiation_max, willpower=draw(st.integers(1, 6)),
        success_on=draw(st.integers(2, 6)), enter=draw(st.booleans()),
        bonus_dice=draw(st.integers(0, 2)), deck=deck,
        artifact=draw(st.integers(-1, n_types - 1)),
        find_pool=draw(st.integers(0, 4)), find_need=draw(st.integers(0, 2)),
    )


def _safe(spec: AnomalySpec) -> Fraction:
    return 1 - anomaly_exact(spec).outcomes["knocked_out"]


@settings(max_examples=200, deadline=None)
@given(specs())
def test_outcomes_sum_to_one(spec):
    exact = anomaly_exact(spec)
    assert sum(exact.outcomes.values()) == 1
    assert all(0 <= p <= 1 for p in exact.outcomes.values())
    assert exact.trophy == exact.outcomes["unharmed"] + exact.outcomes["damaged"]  # P-34
    assert 0 <= exact.artifact <= exact.searched <= exact.trophy                  # P-35
    assert exact.deformation <= exact.outcomes["damaged"]                         # P-39


@settings(max_examples=200, deadline=None)
@given(specs(), st.integers(2, 6), st.integers(2, 6))
def test_better_resistance_never_lowers_safety(spec, a, b):
    # P-02: a lower absorbing face absorbs at least as often.
    better, worse = min(a, b), max(a, b)
    assert _safe(replace(spec, resist=better)) >= _safe(replace(spec, resist=worse))


@settings(max_examples=200, deadline=None)
@given(specs(), st.integers(0, 3))
def test_more_durability_never_lowers_safety(spec, extra):
    # P-03: more room for tokens absorbs at least as much.
    assert _safe(replace(spec, durability=spec.durability + extra)) >= _safe(spec)


@settings(max_examples=200, deadline=None)
@given(specs(), st.integers(0, 3))
def test_more_health_or_willpower_never_lowers_safety(spec, extra):
    # P-37, P-40: a longer track is knocked out no more often.
    assert _safe(replace(spec, health=spec.health + extra)) >= _safe(spec)
    assert _safe(replace(spec, willpower=spec.willpower + extra)) >= _safe(spec)
