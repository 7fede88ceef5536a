"""Rulesets: card tables and rule parameters, loaded, validated and typed.

A ruleset is a folder with ``rules.toml`` and one CSV per card table (see
``docs/rules.md``). Typical use::

    from sim.rules import load_ruleset
    rs = load_ruleset()                       # the bundled base set
    rs.armor["Ecolog suit"].resistance("thermal")   # 3 (P-06)
    rs.rules.dice.success_on                  # 5

Loading checks every file and raises :class:`RulesetError` listing every
:class:`Problem` (file, line, column, value, message).
"""

from sim.rules.errors import Problem, RulesetError
from sim.rules.loader import check_ruleset, load_ruleset
from sim.rules.model import (
    Anomaly,
    Armor,
    Artifact,
    Emission,
    Enemy,
    Event,
    Item,
    Rules,
    Ruleset,
    Stalker,
    Weapon,
    default_rules,
)
from sim.rules.schema import DAMAGE_TYPES, HEALTH_DAMAGE, fightable

__all__ = [
    "DAMAGE_TYPES",
    "HEALTH_DAMAGE",
    "Anomaly",
    "Armor",
    "Artifact",
    "Emission",
    "Enemy",
    "Event",
    "Item",
    "Problem",
    "Rules",
    "Ruleset",
    "RulesetError",
    "Stalker",
    "Weapon",
    "check_ruleset",
    "default_rules",
    "fightable",
    "load_ruleset",
]
