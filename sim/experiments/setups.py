"""A command's setup from a scenario and the options given: one resolution for every command.

``zonesim combat|anomaly|event|compare|sweep|tune --scenario FILE|NAME`` take
the stalker, the loadout (armour, weapons, items) and the policy (``sneak``,
``flee_at``, ``heal_at``, ``enter_anomalies``) from a scenario
(:mod:`sim.rules.scenario`); an option given on the command line overrides
the scenario's value, and a key neither gives keeps the command's default.
:func:`resolve_setup` is that precedence, written once:

    explicit option  >  scenario  >  command default

Only what acts in the experiment is taken from the scenario: a fight uses
every item carried (stimulants, escape items; others are ignored, Z-12,
Z-17), an event only its ``event_avoid`` items (Z-10), an anomaly none
(P-31..P-36 name no item), so a scenario's medkits never make ``zonesim
event`` refuse its loadout. A campaign takes the whole scenario
(:func:`sim.experiments.campaign_paired.scenario_setup`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.encounter.anomaly import ANOMALY_ITEM_EFFECTS, EVENT_ITEM_EFFECTS
from sim.exact.best_combat import Objective, objective
from sim.experiments.base import CompareInputError
from sim.rules.scenario import Scenario

NONE = "none"
"""An explicit ``--armor none`` (or a lone ``--item none``, ``--weapon none``): nothing."""

SCENARIO_KEYS: dict[str, tuple[str, ...]] = {
    "combat": ("stalker", "armor", "weapons", "items", "sneak", "flee_at", "heal_at", "policy",
               "objective", "weights"),
    "anomaly": ("stalker", "armor", "items", "enter", "policy", "objective", "weights"),
    "event": ("stalker", "armor", "items", "policy", "objective", "weights"),
}
"""Setup keys each encounter experiment takes from a scenario."""

CARD_KEYS = {"combat": "enemy", "anomaly": "anomaly", "event": "event"}
"""The setup key naming the card each encounter experiment meets (a card or ``all``)."""

_ITEM_EFFECTS: dict[str, frozenset[str] | None] = {
    "combat": None, "anomaly": ANOMALY_ITEM_EFFECTS, "event": EVENT_ITEM_EFFECTS}
"""Item effects an experiment accepts (None: every item; the fight ignores the rest)."""


def scenario_values(experiment: str, scenario: Scenario) -> dict[str, Any]:
    """What ``scenario`` says for the setup keys of ``experiment``.

    Parameters
    ----------
    experiment : str
        ``combat``, ``anomaly``, ``event`` or ``campaign``.
    scenario : Scenario
        A loaded scenario.

    Raises
    ------
    CompareInputError
        For an experiment that takes nothing from a scenario.
    """
    if experiment == "campaign":  # imported here: the campaign compile step is not an encounter's
        from sim.experiments.campaign_paired import scenario_setup

        return scenario_setup(scenario)
    if experiment not in SCENARIO_KEYS:
        raise CompareInputError(f"the {experiment} experiment takes no scenario")
    effects = _ITEM_EFFECTS[experiment]
    items = tuple(n for n in scenario.items
                  if effects is None or scenario.ruleset.items[n].effect in effects)
    p = scenario.policy
    values = {"stalker": scenario.stalker, "armor": scenario.armor,
              "weapons": tuple(scenario.weapons), "items": items, "sneak": p.sneak,
              "flee_at": p.flee_at, "heal_at": p.heal_at, "enter": p.enter_anomalies,
              "policy": p.encounters, "objective": p.objective, "weights": p.weights}
    return {key: values[key] for key in SCENARIO_KEYS[experiment]}


def best_objective(setup: Mapping[str, Any]) -> Objective | None:
    """The objective of a setup played by best play (``policy = best``: ``objective`` and,
    for ``value``, ``weights``), or None where the thresholds decide.
    """
    if str(setup.get("policy", "thresholds")) == "thresholds":
        return None
    return objective(str(setup.get("objective", "survive")), setup.get("weights", ()))


def _explicit(key: str, value: Any) -> Any:
    """An option's value as the setup holds it: ``none`` means no armour / an empty list."""
    if key == "armor" and isinstance(value, str) and value.lower() == NONE:
        return None
    if isinstance(value, list | tuple):
        return () if [str(v).lower() for v in value] == [NONE] else tuple(value)
    return value


def resolve_setup(experiment: str, scenario: Scenario | None, given: Mapping[str, Any],
                  defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The setup of a command: explicit options over the scenario over the defaults.

    Parameters
    ----------
    experiment : str
        ``combat``, ``anomaly``, ``event`` or ``campaign``.
    scenario : Scenario or None
        The ``--scenario``, if any.
    given : mapping
        Setup keys set by options given on the command line, and their values.
    defaults : mapping
        The command's defaults for the other setup keys.

    Raises
    ------
    CompareInputError
        No stalker (neither ``--stalker`` nor a scenario names one); the field
        is ``stalker``, so the message names the option.
    """
    setup = dict(defaults)
    if scenario is not None:
        setup.update(scenario_values(experiment, scenario))
    setup.update({key: _explicit(key, value) for key, value in given.items()})
    if setup.get("stalker") is None:
        raise CompareInputError("give a stalker card (--stalker NAME) or a scenario "
                                "(--scenario FILE|NAME) that names one", "stalker")
    return setup


__all__ = ["NONE", "SCENARIO_KEYS", "best_objective", "resolve_setup", "scenario_values"]
