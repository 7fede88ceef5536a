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

from sim.exact.best_combat import Objective, objective
from sim.experiments import registry
from sim.experiments.base import CompareInputError
from sim.experiments.policy_keys import POLICY_FIELDS, THRESHOLDS
from sim.rules.scenario import Scenario

NONE = "none"
"""An explicit ``--armor none`` (or a lone ``--item none``, ``--weapon none``): nothing."""

def scenario_values(experiment: str, scenario: Scenario) -> dict[str, Any]:
    """What ``scenario`` says for the setup of ``experiment``.

    An encounter takes its ``scenario_keys``, its items filtered by its
    ``item_effects`` (:class:`~sim.experiments.base.Experiment`); an
    experiment that plays the scenario itself (the campaign) takes its
    ``from_scenario`` setup.

    Parameters
    ----------
    experiment : str
        A name of :data:`sim.experiments.registry.NAMES`.
    scenario : Scenario
        A loaded scenario.

    Raises
    ------
    CompareInputError
        For an unknown experiment, or one that takes nothing from a scenario.
    """
    declared = registry.experiment(experiment)
    if declared.from_scenario is not None:
        return declared.from_scenario(scenario)
    if not declared.scenario_keys:
        raise CompareInputError(f"the {experiment} experiment takes no scenario")
    effects = declared.item_effects
    items = tuple(n for n in scenario.items
                  if effects is None or scenario.ruleset.items[n].effect in effects)
    loadout = {"stalker": scenario.stalker, "armor": scenario.armor,
               "weapons": tuple(scenario.weapons), "items": items}
    return {key: loadout[key] if key in loadout
            else getattr(scenario.policy, POLICY_FIELDS.get(key, key))
            for key in declared.scenario_keys}


def base_setup(experiment: str, scenario: Scenario, card: str = "all") -> dict[str, Any]:
    """The base setup of ``experiment`` for a scenario's stalker, loadout and policy.

    An experiment that plays the scenario (the campaign) takes it whole; an
    encounter meets ``card`` (a card or ``all``, the deck weighted by ``count``)
    with what :func:`scenario_values` says for it (the stalker, armour, the
    items that act there, weapons and the fight's policy, best play included).
    """
    values = scenario_values(experiment, scenario)
    key = registry.experiment(experiment).card_key
    return values if key is None else {**values, key: card}


PLAN_CHOICES = THRESHOLDS
"""The setup keys that best play (``policy = best``) decides itself, card by card: avoid or
fight (P-16, P-17), flee (P-21), stimulants (Z-12..Z-14), enter a noticed anomaly (P-36):
the encounters' thresholds (:data:`sim.experiments.policy_keys.THRESHOLDS`). Under best
play they do nothing, as ``objective`` does under the thresholds."""


def inert_keys(setup: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys of ``setup`` that cannot change its numbers under its ``policy``.

    Best play makes the :data:`PLAN_CHOICES` itself; the thresholds never read
    ``objective`` (nor ``weights``, the ``value`` objective's costs). A setup without a
    ``policy`` key (whole games, which play by the thresholds) has none.
    """
    if "policy" not in setup:
        return ()
    if best_objective(setup) is None:
        return tuple(k for k in ("objective",) if k in setup)
    return tuple(k for k in PLAN_CHOICES if k in setup)


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
        A name of :data:`sim.experiments.registry.NAMES`.
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


__all__ = ["NONE", "PLAN_CHOICES", "base_setup", "best_objective",
           "inert_keys", "resolve_setup", "scenario_values"]
