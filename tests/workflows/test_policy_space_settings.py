"""``zonesim optimize`` searches what the table of settings marks searched, with the domain
the table gives (issue 44: ``policy_space`` kept its own list of keys and choices).

A ``[policy]`` key marked searched in :mod:`sim.rules.settings` is raced by the search with
no line of its own in :mod:`sim.workflows.policy_space`: a Health threshold (P-21,
Z-11..Z-14) over ``0 .. Health`` of the stalker card, a ``bool`` over false and true; one
it has no domain for is refused when the search is imported, by name. Each check runs in a
fresh interpreter, where the ``Policy`` field's declaration (its metadata, which the
table reads) is edited before the search space is built from it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sim.rules import settings
from sim.workflows import policy_space

MARK = """
import json
import types
from sim.rules.scenario import Policy
for key in {keys!r}:
    field = Policy.__dataclass_fields__[key]
    field.metadata = types.MappingProxyType({{**field.metadata, "searched": True}})
from sim.experiments import registry
from sim.rules.scenario import load_scenario
from sim.workflows import policy_space as P
sc = load_scenario("base")
setup = registry.experiment("campaign").from_scenario(sc)
dims = P.space(sc.ruleset, setup, P.parse_keys({joined!r}))
print(json.dumps({{"keys": P.KEYS, "values": {{d.key: list(d.values) for d in dims}}}}))
"""


def _marked(*keys: str) -> subprocess.CompletedProcess:
    code = MARK.format(keys=keys, joined=",".join(keys))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


@pytest.mark.subprocess
def test_a_threshold_marked_searched_is_raced_over_the_stalkers_health():
    out = _marked("stimulant_at", "use_movement_artifacts")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert {"stimulant_at", "use_movement_artifacts"} <= set(got["keys"])
    health = got["values"]["stimulant_at"]
    assert health == list(range(len(health))) and len(health) > 2
    assert got["values"]["use_movement_artifacts"] == [False, True]


@pytest.mark.subprocess
def test_a_searched_setting_with_no_search_domain_is_refused_by_name():
    """``calm_at`` counts Willpower, not Health: the search has no domain for it."""
    out = _marked("calm_at")
    assert out.returncode != 0
    assert "no search domain for the settings ['calm_at']" in out.stderr


def test_the_searched_keys_are_the_tables_in_its_order():
    names = [s.name.partition(".")[2] for s in settings.settings() if s.searched is True]
    assert sorted(policy_space.KEYS) == sorted(names)
    assert policy_space.CHOICES["sneak"] == settings.by_name()["policy.sneak"].choices
