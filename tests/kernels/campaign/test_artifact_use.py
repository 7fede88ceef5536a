"""When an artefact is used: ``policy.artifact_use`` (P-08, issue 25 "a per-artefact use policy").

Using a carried artefact is the player's choice (P-08), so each artefact may be used always
(every time its rule allows, the default), never, or only at a Health threshold. The kernels
read it from the artefact record (``AF_USE_AT``, :func:`sim.kernels.artifact.usable`); the
exact twins (:mod:`sim.exact.combat`, ``anomaly``, ``event``) and the plain-Python references
(:mod:`sim.reference.combat`, ``anomaly``, ``campaign``) each state it on their own. The
Monte Carlo estimates agree with the exact values within |z| < 4.5 at a fixed seed, and the
guards show that ignoring the threshold is caught.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sim import stats
from sim.encounter.anomaly import StartState, compile_anomaly, compile_event
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.exact import anomaly as anomaly_twin
from sim.exact import combat as combat_twin
from sim.exact import event as event_twin
from sim.experiments import anomaly as anomaly_run
from sim.experiments import combat as combat_run
from sim.experiments import event as event_run
from sim.experiments.campaign_paired import EXPERIMENT as CAMPAIGN
from sim.experiments.campaign_paired import scenario_setup
from sim.kernels import anomaly as ka
from sim.kernels import combat as kc
from sim.kernels import event as ke
from sim.kernels import layout as S
from sim.reference import combat as combat_reference
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import load_scenario
from sim.rules.variants import apply_edits
from sim.workflows.compare import CompareInputError, parse_variant
from sim.workflows.policy_space import Dimension, space, value_text
from sim.workflows.scenario_toml import changed_scenario
from tests.conftest import Z_TOL, assert_matches_exact
from tests.kernels.campaign.test_campaign_reference import (
    DATA,
    ENDS,
    METRICS,
    kernel_sample,
    reference_sample,
    welch_z,
)

RS = load_ruleset(None)
TRIALS = 400_000
SEED = 2525
ONE_HAND = ("artifacts.Stone flower.hands=1",)


def _used_at(spec, **use):
    """``spec`` with its artefacts' ``use_at`` set by name (the policy's table)."""
    return replace(spec, artifacts=tuple(replace(a, use_at=use.get(a.name, a.use_at))
                                         for a in spec.artifacts))


def _fight(stalker, enemy, armor, weapons, artifacts, policy=None, edits=(), **use):
    rs = apply_edits(RS, edits)
    spec = compile_combat(rs, stalker, enemy, armor, weapons, (), CombatPolicy(**(policy or {})),
                          artifacts)
    return _used_at(spec, **use)


# (label, fight arguments, use): a resist artefact kept for low Health, a combat artefact at a
# threshold beside a weapon (the loadout chooses again without it, P-23), a heal artefact at a
# threshold under heal_at, a stealth artefact never used on a flight, a psi fight (the
# threshold reads the fight's track, Willpower, P-40).
FIGHTS = [
    ("resist-at-2", ("Degtyarev", "Pseudodog", "Stalker suit", ("AK-74",), ("Stone blood",)),
     {"Stone blood": 2}),
    ("combat-at-3", ("Scar", "Boar", None, ("SVD sniper rifle", "Machete"), ("Stone flower",),
                     None, (*ONE_HAND, "artifacts.Stone flower.value=2")), {"Stone flower": 3}),
    ("combat-at-2", ("Strelok", "Bloodsucker", "Stalker suit", ("AK-74",), ("Stone flower",)),
     {"Stone flower": 2}),
    ("heal-at-2", ("Strelok", "Bloodsucker", None, ("AK-74",), ("Crystal",), {"heal_at": 5}),
     {"Crystal": 2}),
    ("stealth-never", ("Ghost", "Pseudodog", None, ("PM pistol",), ("Sparkler",),
                       {"sneak": "never", "flee_at": 4}), {"Sparkler": 0}),
    ("psi-calm-at-3", ("Ghost", "Burer", "SEVA suit", ("Shotgun",), ("Moonlight", "Sparkler"),
                       {"heal_at": 4, "flee_at": 2}), {"Moonlight": 3, "Sparkler": 2}),
]


@pytest.mark.parametrize(("label", "args", "use"), FIGHTS, ids=[f[0] for f in FIGHTS])
def test_a_fight_with_a_use_policy_matches_its_exact_twin(label, args, use):
    spec = _fight(*args, **use)
    counts = combat_run.simulate(spec, TRIALS, SEED)
    exact = combat_twin.combat_exact(spec)
    assert_matches_exact(counts[: kc.N_OUTCOMES], TRIALS,
                         [exact.outcomes[o] for o in combat_twin.OUTCOMES], combat_twin.OUTCOMES)
    for total, square, mean in ((kc.SUM_WOUNDS, kc.SUM_WOUNDS_SQ, exact.mean_wounds),):
        z = stats.mean_z_score(counts[total], counts[square], TRIALS, mean)
        assert abs(z) < Z_TOL, f"mean wounds z={z:.2f}"


@pytest.mark.parametrize(("label", "args", "use"), FIGHTS[:3], ids=[f[0] for f in FIGHTS[:3]])
def test_the_reference_fight_follows_the_use_policy(label, args, use):
    spec = _fight(*args, **use)
    counts = combat_reference.simulate(spec, 20_000, SEED)
    exact = combat_twin.combat_exact(spec)
    assert_matches_exact([counts[o] for o in combat_twin.OUTCOMES], 20_000,
                         [exact.outcomes[o] for o in combat_twin.OUTCOMES], combat_twin.OUTCOMES)


@pytest.mark.parametrize(("label", "args", "use"), FIGHTS, ids=[f[0] for f in FIGHTS])
def test_a_fight_that_ignored_the_threshold_would_be_caught(label, args, use):
    # Guard: the kernel's fights under the threshold disagree with the exact values of the
    # same fight using every artefact always.
    spec = _fight(*args, **use)
    counts = combat_run.simulate(spec, TRIALS, SEED)
    always = combat_twin.combat_exact(_fight(*args))
    z = stats.z_scores(counts[: kc.N_OUTCOMES], TRIALS,
                       np.asarray([always.outcomes[o] for o in combat_twin.OUTCOMES]))
    z_art = stats.mean_z_score(counts[kc.SUM_WOUNDS], counts[kc.SUM_WOUNDS_SQ], TRIALS,
                               always.mean_wounds)
    assert max(np.nanmax(np.abs(z)), abs(z_art)) > Z_TOL


def test_never_used_is_as_if_not_carried():
    # P-08: an artefact never used changes nothing in the fight (no side effect, no dice).
    args = ("Degtyarev", "Pseudodog", "Stalker suit", ("AK-74",))
    never = combat_twin.combat_exact(_fight(*args, ("Stone blood",), **{"Stone blood": 0}))
    bare = combat_twin.combat_exact(_fight(*args, ()))
    for o in combat_twin.OUTCOMES:
        assert never.outcomes[o] == pytest.approx(bare.outcomes[o], abs=1e-12)
    assert never.mean_artifact_uses == 0


@pytest.mark.parametrize(("health", "use_at", "used"), [(2, 1, False), (2, 2, True),
                                                         (5, 3, False), (3, 3, True)])
def test_an_anomaly_uses_the_artefact_by_the_health_it_starts_with(health, use_at, used):
    spec = compile_anomaly(RS, "Strelok", "Fruit Punch", None, enter=True,
                           state=StartState(health=health), artifacts=("Slime",))
    spec = _used_at(spec, Slime=use_at)
    counts = anomaly_run.simulate_anomaly(spec, TRIALS, SEED)
    exact = anomaly_twin.anomaly_exact(spec)
    assert_matches_exact(counts[: ka.N_OUTCOMES], TRIALS,
                         [exact.outcomes[o] for o in anomaly_twin.OUTCOMES],
                         anomaly_twin.OUTCOMES)
    z = stats.mean_z_score(counts[ka.SUM_LOSS], counts[ka.SUM_LOSS_SQ], TRIALS,
                           float(exact.mean_loss))
    assert abs(z) < Z_TOL, f"mean loss z={z:.2f}"
    assert (exact.mean_artifact_uses > 0) is used


@pytest.mark.parametrize(("health", "use_at"), [(2, 1), (2, 2)])
def test_an_event_uses_the_artefact_by_the_health_it_starts_with(health, use_at):
    spec = _used_at(compile_event(RS, "Strelok", "Wildfire", None,
                                  state=StartState(health=health), artifacts=("Fireball",)),
                    Fireball=use_at)
    counts = event_run.simulate_event(spec, TRIALS, SEED)
    exact = event_twin.event_exact(spec)
    assert_matches_exact([*counts[: ke.N_OUTCOMES], counts[ke.DEFORMATION]], TRIALS,
                         [*(exact.outcomes[o] for o in event_twin.OUTCOMES), exact.deformation],
                         [*event_twin.OUTCOMES, "deformation"])
    assert (exact.mean_artifact_uses > 0) is (health <= use_at)


def test_the_records_carry_the_use_and_default_to_always():
    spec = _fight("Strelok", "Bandit", None, ("AK-74",), ("Stone flower", "Crystal"),
                  **{"Crystal": 2})
    params = spec.pack()[0]
    at = [params[S.P_SIZE + i * S.AF_SIZE + S.AF_USE_AT] for i in range(2)]
    assert at == [S.USE_ALWAYS, 2]


# --- the scenario key, the variant key, the search and the written scenario -------------------


def _scenario(tmp_path, table: str):
    path = tmp_path / "s.toml"
    path.write_text('ruleset = "base"\nstalker = "Strelok"\nstart = "Cordon"\n'
                    '[loadout]\nartifacts = ["Flash"]\n[policy]\n' + table)
    return path


def test_the_scenario_reads_the_table(tmp_path):
    s = load_scenario(_scenario(tmp_path, 'artifact_use = { Flash = 3, Slime = "never", '
                                          'Crystal = "always" }\n'))
    assert s.policy.artifact_use == (("Flash", 3), ("Slime", 0))


def test_every_bad_entry_is_reported_at_once(tmp_path):
    path = _scenario(tmp_path, 'artifact_use = { Flsh = 3, Slime = "sometimes", Flash = 0, '
                               'Crystal = true }\n')
    with pytest.raises(RulesetError) as error:
        load_scenario(path)
    text = str(error.value)
    for key in ("policy.artifact_use.Flsh", "policy.artifact_use.Slime",
                "policy.artifact_use.Flash", "policy.artifact_use.Crystal"):
        assert key in text


def test_a_variant_sets_uses_one_artefact_at_a_time():
    v = parse_variant("artifact_use=Flash:never;artifact_use=Slime:3;artifact_use=Flash:2",
                      CAMPAIGN)
    assert dict(v.overrides)["artifact_use"] == (("Flash", 2), ("Slime", 3))
    v = parse_variant("artifact_use=Flash:never;artifact_use=Flash:always", CAMPAIGN)
    assert dict(v.overrides)["artifact_use"] == ()
    for bad in ("artifact_use=Flash", "artifact_use=Flash:0", "artifact_use=Flash:soon"):
        with pytest.raises(CompareInputError, match="artifact_use"):
            parse_variant(bad, CAMPAIGN)


def test_the_search_moves_one_artefact_use_at_a_time():
    base = load_scenario("base")
    setup = {**scenario_setup(base), "artifacts": ("Flash",), "keep_artifacts": ("Slime",)}
    (dim,) = space(RS, setup, ("artifact_use",))
    assert isinstance(dim, Dimension) and dim.uses[:2] == ("Flash", "Slime")
    assert sorted(dim.uses) == sorted(RS.artifacts)  # the others may be kept or bought
    health = RS.stalkers[setup["stalker"]].health
    values = dim.values_at(())
    assert values[0] == () and len(values) == 1 + len(RS.artifacts) * health  # never, 1..
    assert (("Flash", 0),) in values and (("Slime", health - 1),) in values
    assert (("Flash", 0),) in dim.values_at((("Flash", 2),))
    assert () in dim.values_at((("Flash", 2),))  # back to always
    assert value_text((("Flash", 0), ("Slime", 2)), "artifact_use") == "Flash never/Slime at 2"
    # With the incumbent's setup, only the artefacts he may hold move (P-07, P-11, P-13).
    assert len(dim.values_at((), setup)) == 1 + 2 * health
    assert dim.values_at((), {**setup, "artifacts": (), "keep_artifacts": ()}) == ((),)
    # Without an artefact card in the ruleset the table alone is raced: nothing to search.
    assert Dimension("artifact_use", (None, 0)).values_at(()) == ((),)


def test_the_written_scenario_loads_back(tmp_path):
    path = _scenario(tmp_path, "flee_at = 0\n")
    text = changed_scenario(load_scenario(path), {"artifact_use": (("Flash", 0), ("Slime", 2))})
    out = tmp_path / "best.toml"
    out.write_text(text)
    assert load_scenario(out).policy.artifact_use == (("Flash", 0), ("Slime", 2))


def test_whole_games_that_ignored_the_use_policy_would_be_caught():
    # Guard of test_campaign_reference's "artifacts_use" comparison: the reference's games
    # with every artefact used always (artifacts_a, the same scenario without the table)
    # disagree with the kernel's games under the table: 250 reference games keep the
    # largest |z| at 53.3 (side effects; 180.6 at 3,000 games, the count before), and they
    # are the head of the comparison's sample where one process runs both.
    ref = reference_sample(DATA / "artifacts_a.toml", games=250)
    ker = kernel_sample(DATA / "artifacts_use.toml")
    z = {end: welch_z(ref[:, 0] == i, ker[:, 0] == i) for i, end in enumerate(ENDS)}
    z.update({m: welch_z(ref[:, j], ker[:, j]) for j, m in enumerate(METRICS, start=1)})
    assert max(abs(v) for v in z.values()) > Z_TOL, z
