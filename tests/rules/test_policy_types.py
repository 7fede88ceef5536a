"""A scenario's ``[policy]`` keys and their TOML types come from the Policy model (issue 28,
section 1, "Parallel declarations": each list declared once).

:data:`sim.rules.scenario.POLICY_TYPES`, which the scenario loader checks every ``[policy]``
key against (an unknown key, a value of the wrong type: file, key and value named, exit 2),
is derived from :class:`sim.rules.scenario.Policy`'s fields, so a new policy field is a
scenario key with no second list to keep in step.
"""

from __future__ import annotations

import dataclasses

import pytest

from sim.rules import RulesetError
from sim.rules.scenario import POLICY_TYPES, Policy, load_scenario, policy_types


def test_every_policy_field_is_a_scenario_key_of_its_type():
    assert list(POLICY_TYPES) == [f.name for f in dataclasses.fields(Policy)]
    assert POLICY_TYPES["route"] == (str, list)  # "nearest" or a list of complexes (P-50)
    assert POLICY_TYPES["flee_at"] is int and POLICY_TYPES["sneak"] is str
    assert POLICY_TYPES["enter_anomalies"] is bool and POLICY_TYPES["shopping"] is list
    assert POLICY_TYPES["weights"] is dict and POLICY_TYPES["artifact_use"] is dict


def test_a_new_policy_field_is_a_key_without_a_line_and_an_unknown_type_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Wider(Policy):
        ambush_at: int = 4
        stash: tuple[str, ...] = ()

    types = policy_types(Wider)
    assert types["ambush_at"] is int and types["stash"] is list

    @dataclasses.dataclass(frozen=True)
    class Odd(Policy):
        ratio: float = 0.5

    with pytest.raises(TypeError, match="ratio"):
        policy_types(Odd)


def test_the_loader_checks_keys_and_types_from_the_model(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('ruleset = "base"\nstalker = "Strelok"\nstart = "Cordon"\n[policy]\n'
                    'flee_at = "two"\nfle_at = 2\nartifact_use = ["Flash"]\n')
    with pytest.raises(RulesetError) as error:
        load_scenario(path)
    text = str(error.value)
    assert "policy.flee_at" in text and "policy.fle_at" in text
    assert "policy.artifact_use" in text
