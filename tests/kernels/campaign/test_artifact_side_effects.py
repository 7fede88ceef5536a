"""A side effect of "none" is not suffered (issue 26, section 3; P-09, P-10).

Moonlight, Flame and Jellyfish have ``side_effect = none`` in ``artifacts.csv``.
Every use of an automatic artefact, and every failed activation under
``artifacts.failed_activation = "side_effect"``, used to count as a side effect
suffered, so ``side_effects`` equalled ``artifacts_used`` for them (Strelok's
Intellect fails Moonlight's and Flame's tests). The one rule
(:func:`sim.kernels.artifact.activate`), its exact twin and its plain-Python
statement now say that an artefact without a side effect brings none; the
count of an artefact with one (Stone blood: automatic, 1 radiation dose) is
what it was.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sim.encounter.artifact import ArtifactSpec, pack_records
from sim.exact import artifact as exact
from sim.experiments import campaign_paired as CP
from sim.experiments.base import Case
from sim.kernels import artifact as kernel
from sim.kernels import layout as S
from sim.kernels import rng
from sim.reference.artifact import Harm, use
from sim.rules.scenario import load_scenario

NONE = ArtifactSpec(name="none", effect=S.ART_HEAL, value=1, auto=True, pool=0, face=5,
                    need=1, side_target=S.SIDE_NONE, side_value=0, hands=0)
DOSE = dataclasses.replace(NONE, name="dose", side_target=S.TARGET_RADIATION, side_value=1)
FAILS = {"auto": {}, "test": {"auto": False}}  # pool 0: the Intellect test always fails


@pytest.mark.parametrize("fail_rule", [S.FAIL_NOTHING, S.FAIL_SIDE_EFFECT, S.FAIL_BOTH])
@pytest.mark.parametrize("how", list(FAILS))
def test_the_rule_its_twin_and_its_statement_agree(how, fail_rule):
    for spec in (NONE, DOSE):
        a = dataclasses.replace(spec, **FAILS[how])
        state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
        works, side = kernel.activate(state, pack_records([a]), 0, fail_rule)
        harmful = a.side_target != S.SIDE_NONE
        if a.auto:
            assert (works, side) == (True, harmful)
        else:
            assert works == (fail_rule == S.FAIL_BOTH)
            assert side == (harmful and fail_rule != S.FAIL_NOTHING)
        assert exact.activation(a, fail_rule)[-1][:2] == (works, side)
        harm = Harm()
        assert use(a, fail_rule, random.Random(1), harm) == works
        assert harm.side_effects == int(side) and harm.uses == 1


def test_artefacts_without_a_side_effect_suffer_none_in_whole_games():
    scenario = load_scenario("base")
    base = CP.scenario_setup(scenario)
    names = ("Jellyfish", "Moonlight", "Flame", "Stone blood")
    assert [scenario.ruleset.artifacts[n].side_effect for n in names] == [
        "none", "none", "none", "radiation"]
    cases = [Case(scenario.ruleset, {**base, "artifacts": (n,)}) for n in names]
    sums = CP.run_campaign_compare(cases, trials=3000, seed=4)
    column = {m.name: i for i, m in enumerate(sums.metrics)}
    used, suffered = column["artifacts_used"], column["side_effects"]
    for v, name in enumerate(names):
        uses, side = sums.sums[v, 0, used], sums.sums[v, 0, suffered]
        assert uses > 1000, name  # the artefact is used
        if name == "Stone blood":  # automatic: every use brings its dose (P-09)
            assert side == uses and sums.sums[v, 1, suffered] == sums.sums[v, 1, used]
        else:
            assert side == 0 and sums.sums[v, 1, suffered] == 0, name
