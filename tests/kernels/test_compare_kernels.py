"""Paired kernels (sim.kernels.paired): same trials as the single kernels, threads, decks.

A paired kernel runs variant ``v`` of trial ``t`` on the streams of
(seed, t, purpose), exactly like the single-variant kernels, so each
variant's sums must equal the single kernel's counts bit for bit (integer
sums held exactly in float64). That one equality checks the re-seeding per
variant, the padding of stacked loadout tables and the metric bookkeeping.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim import runner
from sim.encounter import anomaly as hz
from sim.encounter import combat as cb
from sim.exact.event import OUTCOMES as EVENT_OUTCOMES
from sim.exact.event import event_exact
from sim.experiments import anomaly as AX
from sim.experiments import base
from sim.experiments import combat as CX
from sim.experiments import event as EX
from sim.kernels import anomaly as ka
from sim.kernels import chunks, paired
from sim.kernels import combat as kc
from sim.kernels import event as ke
from sim.rules import load_ruleset
from tests.conftest import assert_matches_exact

RS = load_ruleset(None)
TRIALS = 20_000
SEED = 4242
FRAGILE = hz.StartState(health=1, willpower=1, radiation=4)


def _case(**setup) -> base.Case:
    return base.Case(RS, setup)


COMBAT_SETUPS = [
    # No loadout vs a full one: pads stimulants, limited weapons and loadout tables (P-23, P-29).
    dict(stalker="Strelok", enemy="Bloodsucker", armor=None),
    dict(stalker="Strelok", enemy="Bloodsucker", armor="Ecolog suit",
         weapons=("AK-74", "Grenade", "Grenade"), items=("Stimulant", "Stimulant"), heal_at=3),
    dict(stalker="Scar", enemy="Controller", armor="SEVA suit", sneak="never", flee_at=2),
]


def _combat_counts(setup) -> np.ndarray:
    policy = cb.CombatPolicy(setup.get("sneak", "always"), setup.get("flee_at", 0),
                             setup.get("heal_at", 0))
    spec = cb.compile_combat(RS, setup["stalker"], setup["enemy"], setup.get("armor"),
                             setup.get("weapons", ()), setup.get("items", ()), policy)
    return CX.simulate(spec, TRIALS, SEED)


def test_paired_combat_equals_single_kernel_per_variant():
    result = CX.run_combat([_case(**s) for s in COMBAT_SETUPS], trials=TRIALS, seed=SEED,
                          exact=False)
    for v, setup in enumerate(COMBAT_SETUPS):
        counts = _combat_counts(setup)
        sums = result.sums[v, paired.SUM]
        squares = result.sums[v, paired.SUM_SQ]
        assert np.array_equal(sums[: kc.N_OUTCOMES], counts[: kc.N_OUTCOMES])
        assert sums[paired.C_WOUNDS] == counts[kc.SUM_WOUNDS]
        assert squares[paired.C_WOUNDS] == counts[kc.SUM_WOUNDS_SQ]
        assert sums[paired.C_ROUNDS] == counts[kc.SUM_ROUNDS]
        assert squares[paired.C_ROUNDS] == counts[kc.SUM_ROUNDS_SQ]
        assert sums[paired.C_DESTROYED] == counts[kc.DESTROYED]
        assert sums[paired.C_STIMULANTS] == counts[kc.SUM_STIMULANTS]
        assert sums[paired.C_SPENT] == counts[kc.SUM_SPENT]
        # Paired differences are the differences of the sums (integers, exact in float64).
        assert np.array_equal(result.sums[v, paired.DIFF],
                              result.sums[v, paired.SUM] - result.sums[0, paired.SUM])
    assert not result.sums[0, paired.DIFF:].any()


@pytest.mark.parametrize("anomaly", list(RS.anomalies))
def test_paired_anomaly_equals_single_kernel(anomaly):
    setups = [dict(stalker="Ghost", anomaly=anomaly, armor=None, enter=False),
              dict(stalker="Ghost", anomaly=anomaly, armor="SEVA suit", enter=True, health=1,
                   willpower=1, radiation=4, tokens=1)]
    result = AX.run_anomaly([_case(**s) for s in setups], trials=TRIALS, seed=SEED, exact=False)
    for v, s in enumerate(setups):
        spec = hz.compile_anomaly(RS, "Ghost", anomaly, s["armor"], enter=s["enter"],
                                  state=AX.start_state(s))
        counts = AX.simulate_anomaly(spec, TRIALS, SEED)
        sums = result.sums[v, paired.SUM]
        assert np.array_equal(sums[: ka.N_OUTCOMES], counts[: ka.N_OUTCOMES])
        assert sums[paired.A_ARTIFACT] == counts[ka.ARTIFACT]
        assert sums[paired.A_TROPHY] == counts[ka.UNHARMED] + counts[ka.DAMAGED]  # P-34
        assert sums[paired.A_DEFORMATION] == counts[ka.DEFORMATION]
        assert sums[paired.A_PERCEIVED] == counts[ka.PERCEIVED]
        assert sums[paired.A_LOSS] == counts[ka.SUM_LOSS]
        assert result.sums[v, paired.SUM_SQ, paired.A_LOSS] == counts[ka.SUM_LOSS_SQ]
        assert sums[paired.A_DESTROYED] == counts[ka.DESTROYED]


@pytest.mark.parametrize("armor", [None, "SEVA suit"])
def test_resolve_event_equals_event_kernel_on_every_card(armor):
    """resolve_event mirrors sim.kernels.event.event_kernel (Z-08..Z-10): same counts."""
    names = list(RS.events)
    items = [(), ("Bag of nuts",), ("Dosimeter",), ("Torsion scanner",)]
    cases = [_case(stalker="Ghost", event=e, armor=armor, items=i, health=1, willpower=1,
                   radiation=4) for e in names for i in items]
    result = EX.run_event(cases, trials=TRIALS, seed=SEED, exact=False)
    for v, case in enumerate(cases):
        spec = hz.compile_event(RS, "Ghost", case.setup["event"], armor, case.setup["items"],
                                state=FRAGILE)
        counts = EX.simulate_event(spec, TRIALS, SEED)
        sums, squares = result.sums[v, paired.SUM], result.sums[v, paired.SUM_SQ]
        assert np.array_equal(sums[: ke.N_OUTCOMES], counts[: ke.N_OUTCOMES])
        for col, m in ((ke.SUM_HEALTH, paired.E_HEALTH), (ke.SUM_RADIATION, paired.E_RADIATION),
                       (ke.SUM_PSI, paired.E_PSI), (ke.SUM_DAYS, paired.E_DAYS),
                       (ke.SUM_TOKENS, paired.E_TOKENS)):
            assert sums[m] == counts[col] and squares[m] == counts[col + 1]
        assert sums[paired.E_DEFORMATION] == counts[ke.DEFORMATION]
        assert sums[paired.E_DESTROYED] == counts[ke.DESTROYED]


@pytest.mark.parametrize("item", [(), ("Dosimeter",), ("Torsion scanner",)])
def test_resolve_event_matches_exact_twin(item):
    """Z-08..Z-10 against sim.exact.event, every card, SEVA suit, last Health point.

    200 000 trials per card; |z| < 4.5 with the exact standard error (conftest).
    """
    trials = 200_000
    cases = [_case(stalker="Ghost", event=e, armor="SEVA suit", items=item, health=1,
                   willpower=1, radiation=4) for e in RS.events]
    result = EX.run_event(cases, trials=trials, seed=SEED + 1, exact=False)
    for v, name in enumerate(RS.events):
        exact = event_exact(hz.compile_event(RS, "Ghost", name, "SEVA suit", item, state=FRAGILE))
        sums = result.sums[v, paired.SUM]
        assert_matches_exact(
            [*sums[: ke.N_OUTCOMES], sums[paired.E_DEFORMATION], sums[paired.E_DESTROYED]],
            trials, [*(exact.outcomes[o] for o in EVENT_OUTCOMES), exact.deformation,
                     exact.armor_destroyed], [*EVENT_OUTCOMES, "deformation", "destroyed"])


def test_bit_identical_for_one_and_two_threads():
    setups = [dict(stalker="Strelok", enemy="all", armor="Ecolog suit"),
              dict(stalker="Strelok", enemy="all", armor="SEVA suit", weapons=("AK-74",))]
    one = CX.run_combat([_case(**s) for s in setups], trials=30_000, seed=9, threads=1,
                       exact=False)
    two = CX.run_combat([_case(**s) for s in setups], trials=30_000, seed=9, threads=2,
                       exact=False)
    assert one.sums.tobytes() == two.sums.tobytes()
    ev = [_case(stalker="Strelok", event="all", armor=None, items=i)
          for i in [("Bag of nuts",), ("Dosimeter",)]]
    assert (EX.run_event(ev, trials=30_000, seed=9, threads=1, exact=False).sums.tobytes()
            == EX.run_event(ev, trials=30_000, seed=9, threads=2, exact=False).sums.tobytes())


def test_memory_does_not_grow_with_trials():
    """Aggregates are one (V, 4, M) block per chunk, and chunks are capped."""
    assert chunks.plan(10**9)[0] <= chunks.MAX_CHUNKS
    result = CX.run_combat([_case(stalker="Strelok", enemy="Bandit")] * 3, trials=50_000,
                          seed=1, exact=False)
    assert result.sums.shape == (3, paired.N_SUMS, paired.N_COMBAT_METRICS)


def test_deck_is_the_count_weighted_average_of_its_cards():
    """With 'all' every card meets the same streams, so the deck's sums are the weighted
    sums of the single-card runs on the same seed (up to float rounding of the weights)."""
    deck = CX.run_combat([_case(stalker="Strelok", enemy="all", armor="Ecolog suit")],
                        trials=TRIALS, seed=SEED)
    names = CX.deck_names(RS, "all")
    total = sum(RS.enemies[n].count for n in names)
    expected = np.zeros(kc.N_OUTCOMES)
    exact = 0.0
    for name in names:
        spec = cb.compile_combat(RS, "Strelok", name, "Ecolog suit")
        w = RS.enemies[name].count / total
        expected += w * CX.simulate(spec, TRIALS, SEED)[: kc.N_OUTCOMES]
        exact += w * CX._combat_exact(spec)[kc.KNOCKED_OUT]
    assert deck.sums[0, paired.SUM, : kc.N_OUTCOMES] == pytest.approx(expected, rel=1e-12)
    assert deck.exact[0, kc.KNOCKED_OUT] == pytest.approx(exact, rel=1e-12)
    assert not deck.indicator
    # The per-trial deck average of the outcomes sums to 1 in every trial.
    assert deck.sums[0, paired.SUM, : kc.N_OUTCOMES].sum() == pytest.approx(TRIALS)


def test_paired_kernel_direct_call_shape():
    spec = cb.compile_combat(RS, "Strelok", "Bandit")
    params, stims, uses, bonus, spend = (a[None, None] for a in spec.pack())
    out = runner.run_counts(paired.paired_combat_kernel, 1, 1000,
                            (1, paired.N_SUMS, paired.N_COMBAT_METRICS), params,
                            np.array([[len(spec.stimulants)]]), stims, uses, bonus, spend,
                            kc.NO_PLAN, np.ones((1, 1)), dtype=np.float64)
    assert out[0, paired.SUM, : kc.N_OUTCOMES].sum() == 1000
