"""Combat from ruleset cards: compile a fight, run it, return tidy rows.

This is the library behind ``zonesim combat``. :func:`compile_combat` turns
cards (stalker, enemy, armour, weapons, items) and a :class:`CombatPolicy`
into a :class:`~sim.encounter.spec.CombatSpec`; :func:`run_combat` runs the
kernel and the exact Markov chain on it and shapes one result row;
:func:`combat_table` does that for several enemies (a deck table) on common
random numbers (the same seed for every card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from sim.encounter.artifact import artifact_rules, combat_choices, compile_artifacts
from sim.encounter.damage import armor_rolls, target_of
from sim.encounter.items import best_escape_item
from sim.encounter.loadout import CloseCombatRules, WeaponSlot, tabulate
from sim.encounter.modifier import test_terms
from sim.encounter.spec import CombatSpec
from sim.errors import InputError
from sim.kernels.layout import (
    AVOID_REPUTATION,
    AVOID_STEALTH,
    TARGET_HEALTH,
    TARGET_WILLPOWER,
)
from sim.rules import Ruleset, fightable
from sim.rules.traits import parse_traits

SNEAK_POLICIES = ("always", "never")


class CombatInputError(InputError):
    """A fight that the model cannot run (reported to the user, exit status 2)."""


@dataclass(frozen=True)
class CombatPolicy:
    """The stalker's choices in a fight.

    Attributes
    ----------
    sneak : str
        ``always``: try to avoid the fight first (P-16 or Z-15..Z-17);
        ``never``: fight for the trophy (P-17).
    flee_at : int
        From round 2, try to flee when the damaged track is at or below this
        (0 = never; P-21).
    heal_at : int
        Use stimulants when Health is at or below this (Z-12..Z-14; 0 = never).
    """

    sneak: str = "always"
    flee_at: int = 0
    heal_at: int = 0

    @classmethod
    def from_setup(cls, setup: Mapping[str, object]) -> CombatPolicy:
        """The fight choices a setup names (its ``sneak``, ``flee_at``, ``heal_at``); a key it
        lacks (or leaves None) keeps this class's default.

        ``zonesim combat``, the combat experiment and the report's enemy deck all read the
        choices through this, so the keys and their defaults are written once, as the fields.
        """
        return cls(**{f.name: type(f.default)(setup[f.name]) for f in fields(cls)
                      if setup.get(f.name) is not None})


def combat_heals(rs: Ruleset) -> tuple[str, ...]:
    """Item effects that heal during a fight (Z-12, P-24).

    Stimulants always (Z-12); medkits only under ``combat.medkits_in_combat``:
    seed 000 (Z-12, where the medkits come from) keeps them out of combat,
    seed 001 (P-24) lets hands-free "medkits and medicines" be used without
    limit.
    """
    if rs.rules.combat.medkits_in_combat:
        return ("stimulant", "medkit")
    return ("stimulant",)


def _card(table: dict, name: str, what: str):
    if name not in table:
        raise CombatInputError(f"unknown {what} {name!r} (known: {', '.join(table)})")
    return table[name]


def compile_combat(rs: Ruleset, stalker: str, enemy: str, armor: str | None = None,
                   weapons: Sequence[str] = (), items: Sequence[str] = (),
                   policy: CombatPolicy = CombatPolicy(), artifacts: Sequence[str] = (),
                   intellect: int | None = None) -> CombatSpec:
    """Resolve cards, loadout and policy into a :class:`CombatSpec`.

    Wounds of a Health type (physical, thermal, chemical, electric) hit Health
    and a knock-out is Health <= 0 (P-37); psi wounds hit Willpower and the
    knock-out is a concussion (P-40), against which stimulants do not help.
    Radiation-dealing enemies are refused: a deformation (P-39) does not end
    a fight, so the fight has no rule-given end.
    Items with no effect in combat (event and movement items; medkits, Z-12,
    unless ``combat.medkits_in_combat``, P-24) are accepted and ignored;
    healing items are used in the order given. Stealth tests (P-16, P-21)
    read the Vigilance modifier under ``dice.modifier``
    (:func:`sim.encounter.modifier.test_terms`). Artefacts (P-08..P-10) are
    carried in the order given; their Intellect tests use ``intellect`` or
    the stalker card's; combat artefacts compete with weapons for hands
    (P-23) and resist artefacts act against the enemy's wound type.
    """
    if policy.sneak not in SNEAK_POLICIES:
        raise CombatInputError(f"sneak policy {policy.sneak!r} is not one of always, never")
    hero = _card(rs.stalkers, stalker, "stalker")
    foe = _card(rs.enemies, enemy, "enemy")
    suit = None if armor is None else _card(rs.armor, armor, "armour")
    slots = [WeaponSlot(w.name, w.bonus, w.hands, w.range, w.uses)
             for w in (_card(rs.weapons, n, "weapon") for n in weapons)]
    held = [_card(rs.items, n, "item") for n in items]
    if not fightable(foe.wound_type):
        raise CombatInputError(f"enemy {foe.name!r} deals radiation: a fight against it has "
                               "no end in the rules (P-39), so it is not simulated")
    psi = target_of(foe.wound_type) == TARGET_WILLPOWER  # a psi fight (P-40)
    track = hero.willpower if psi else hero.health
    stimulants: tuple[int, ...] = ()
    if not psi:
        for item in held:
            if item.effect in combat_heals(rs):
                doses = item.uses if item.uses is not None else rs.rules.combat.max_rounds
                stimulants += (int(item.value),) * doses
    combat_rules = rs.rules.combat
    close = CloseCombatRules(
        melee_enemy=foe.melee, hands=combat_rules.hands,
        long_range_divisor=combat_rules.long_range_divisor,
        short_range_full=combat_rules.short_range_close_combat == "full",
        melee_weapons_vs_ranged=combat_rules.melee_weapons_vs_ranged)
    escape = best_escape_item(held)
    stealth_on, stealth_need = test_terms(foe.vigilance, rs.rules.dice.success_on,
                                          rs.rules.dice.modifier)
    resist = suit.resistance(foe.wound_type) if suit is not None else None
    if not armor_rolls(rs, foe.wound_type):
        resist = None
    carried = compile_artifacts(rs, artifacts,
                                hero.intellect if intellect is None else intellect,
                                foe.wound_type)
    return CombatSpec(
        health=track, start_health=track, combat=hero.combat, stealth=hero.stealth,
        vigilance=stealth_need, endurance=foe.endurance, wounds=foe.wounds,
        resist=resist or 0, durability=0 if suit is None else suit.durability, tokens=0,
        success_on=rs.rules.dice.success_on, sneak=policy.sneak == "always",
        avoid_rule=AVOID_REPUTATION if combat_rules.avoid_rule == "reputation"
        else AVOID_STEALTH,
        escape_target=hero.reputation - (0 if escape is None else int(escape.value)),
        flee_at=policy.flee_at, heal_at=policy.heal_at, stimulants=stimulants,
        loadout=tabulate(slots, close, combat_choices(carried)),
        max_rounds=combat_rules.max_rounds, stealth_on=stealth_on, artifacts=carried,
        art_rules=artifact_rules(rs), track=TARGET_WILLPOWER if psi else TARGET_HEALTH,
        other=hero.health if psi else hero.willpower,
        other_max=hero.health if psi else hero.willpower,
        traits=parse_traits(foe.traits)[0],
    )










