"""The campaign experiment's policy keys come from the Policy model (issue 28, section 1).

The variant keys, the base setup and the scenario a setup plays of ``compare campaign``
(:mod:`sim.experiments.campaign_paired`) list the ``[policy]`` keys of
:class:`sim.rules.scenario.Policy` by reading its fields, not by three hand-written lists:
a new policy key (P-16, P-21, P-36, P-37, P-50, Z-11..Z-14, Z-20: every standing choice of
the stalker) is a variant key, a setup key and a value of the scenario played with no line
in the experiment, and a field left out says why.
"""

from __future__ import annotations

import dataclasses

import pytest

from sim.experiments import base, registry
from sim.experiments import campaign_paired as CC
from sim.rules.scenario import Policy, load_scenario
from sim.workflows import compare as C

SCENARIO = load_scenario("base")
FIELDS = [f.name for f in dataclasses.fields(Policy)]


def test_every_policy_field_is_a_campaign_key_or_left_out_with_a_reason():
    keys = registry.experiment("campaign").keys
    for name in FIELDS:
        if name in CC.LEFT_OUT:
            assert CC.LEFT_OUT[name].strip() and name not in keys
        else:
            assert keys[name][0] == name  # the variant key sets the setup key of its name
    assert set(CC.LEFT_OUT) <= set(FIELDS)  # no reason for a field that is gone
    assert list(CC.POLICY_KINDS) == [n for n in FIELDS if n not in CC.LEFT_OUT]
    assert CC.POLICY_KINDS["route"] == "route" and CC.POLICY_KINDS["sneak"] == "sneak"
    for key, kind in CC.POLICY_KINDS.items():  # a str field's variant values are checked
        assert kind in ("route", "list", "int", "bool", "artifact_use") or kind in C.CHOICES, key


def test_a_new_policy_field_shows_up_without_a_line_in_the_experiment():
    @dataclasses.dataclass(frozen=True)
    class Wider(Policy):
        ambush_at: int = 4
        stash: tuple[str, ...] = ()
        greedy: bool = False

    kinds = CC.policy_kinds(Wider)
    assert {k: kinds[k] for k in ("ambush_at", "stash", "greedy")} == {
        "ambush_at": "int", "stash": "list", "greedy": "bool"}

    @dataclasses.dataclass(frozen=True)
    class Odd(Policy):
        ratio: float = 0.5

    with pytest.raises(TypeError, match="ratio"):  # a type no variant kind reads
        CC.policy_kinds(Odd)
    assert "ratio" not in CC.policy_kinds(Odd, {**CC.LEFT_OUT, "ratio": "not played"})


MOVED = {"route": ("Lab X-18", "Lab X-10"), "shopping": ("Medkit",),
         "keep_artifacts": ("Fireball",), "shopping_gear": ("AK-74", "Flash"),
         "artifact_use": (("Fireball", 0), ("Flash", 2))}
"""Lists moved to values the base ruleset knows; every other field moves by its kind."""


def _changed_policy() -> Policy:
    """The base scenario's policy with every field the campaign takes moved off its value:
    a list to :data:`MOVED`, an int up by one, a bool negated, a choice to another of its
    values (:data:`sim.workflows.compare.CHOICES`)."""
    p, changes = SCENARIO.policy, {}
    for key, kind in CC.POLICY_KINDS.items():
        value = getattr(p, key)
        if key in MOVED:
            changes[key] = MOVED[key]
        elif kind == "int":
            changes[key] = value + 1
        elif kind == "bool":
            changes[key] = not value
        else:  # a choice: every str field's values are declared for variants
            changes[key] = next(v for v in C.CHOICES[kind] if v != value)
    return dataclasses.replace(p, **changes)


def test_a_policy_goes_through_the_setup_and_back_field_by_field():
    policy = _changed_policy()
    moved = {f for f in CC.POLICY_KINDS if getattr(policy, f) != getattr(SCENARIO.policy, f)}
    assert moved == set(CC.POLICY_KINDS)  # every field the campaign takes is moved
    scenario = dataclasses.replace(SCENARIO, policy=policy)
    setup = CC.scenario_setup(scenario)
    assert {k: setup[k] for k in CC.POLICY_KINDS} == {
        k: getattr(policy, k) for k in CC.POLICY_KINDS}
    again = CC.scenario_of(base.Case(SCENARIO.ruleset, setup))
    assert again.policy == policy


def test_guard_a_field_left_out_by_mistake_would_not_come_back():
    """The round trip above fails when a policy key is dropped (here ``calm_at``)."""
    policy = _changed_policy()
    setup = CC.scenario_setup(dataclasses.replace(SCENARIO, policy=policy))
    del setup["calm_at"]
    again = CC.scenario_of(base.Case(SCENARIO.ruleset, setup))
    assert again.policy != policy and again.policy.calm_at == Policy.calm_at
