"""Small rules and records the loader and the compile steps share have one home each (issue 28,
section 1).

"Can this enemy be fought" (P-37, P-39, P-40) is :func:`sim.rules.fightable`, read by the
loader's deck check as well as by the fight and campaign compile steps; "may he carry this
many artefacts" (``artifacts.carry_limit``, a Gap) is :meth:`sim.rules.Ruleset.may_carry`, read
by the scenario loader, the encounters' artefact specs and the campaign's artefact masks; a
fight's choices are read from a setup by :meth:`sim.encounter.combat.CombatPolicy.from_setup`.
"""

from __future__ import annotations

import pytest

from sim.campaign import artifacts as campaign_artifacts
from sim.encounter.artifact import ArtifactInputError, compile_artifacts
from sim.encounter.combat import CombatPolicy
from sim.rules import DAMAGE_TYPES, fightable, load_ruleset
from sim.rules.scenario import carry_problems
from sim.rules.validate import unplayable
from sim.rules.variants import apply_edits

RS = load_ruleset()


@pytest.mark.parametrize("wound_type", DAMAGE_TYPES)
def test_only_a_radiation_dealer_cannot_be_fought(wound_type):
    """Wounds end a fight through Health (P-37), psi through Willpower (P-40); radiation
    never (P-39)."""
    assert fightable(wound_type) == (wound_type != "radiation")


@pytest.mark.parametrize("types, refused", [
    (("radiation", "radiation"), True),
    (("radiation", "psi"), False),
    (("radiation", "physical"), False),
    (("radiation", "no such type"), False),  # a bad cell is its own error, not this one
])
def test_the_deck_check_refuses_exactly_the_decks_with_nothing_to_fight(types, refused):
    cards = [{"count": 1, "wound_type": t} for t in types]
    problem = unplayable("enemies", cards)
    assert (problem is not None and problem[0] == "wound_type") == refused


@pytest.mark.parametrize("limit, n, allowed", [
    (0, 7, True), (2, 2, True), (2, 3, False), (1, 0, True),
])
def test_every_reader_of_the_carry_limit_agrees(limit, n, allowed):
    """The loader, the encounter specs and the campaign masks give one answer per (limit, n)."""
    rs = apply_edits(RS, (f"rules.artifacts.carry_limit={limit}",))
    names = tuple(rs.artifacts)[:n]
    assert len(names) == n
    assert rs.may_carry(n) == allowed
    loader = not any(key == "loadout.artifacts" and "carry_limit" in message
                     for key, message in carry_problems(rs, (), names, ()))
    assert loader == allowed
    assert campaign_artifacts.allowed(rs, (1 << n) - 1) == allowed
    if allowed and n <= 4:
        compile_artifacts(rs, names, 4)
    elif not allowed:
        with pytest.raises(ArtifactInputError, match="carry_limit"):
            compile_artifacts(rs, names, 4)


def test_a_fight_policy_is_read_from_a_setup_by_its_own_fields():
    """``CombatPolicy.from_setup``: the keys a setup names, converted; the others the defaults."""
    assert CombatPolicy.from_setup({}) == CombatPolicy()
    assert CombatPolicy.from_setup({"sneak": "never", "flee_at": "2", "heal_at": None,
                                    "stalker": "Scar"}) == CombatPolicy("never", 2, 0)
    assert CombatPolicy.from_setup({"heal_at": 3}) != CombatPolicy()
