"""The ``[policy]`` keys an experiment takes, read from the table of settings.

Which experiments take a policy key is declared once, with its
:class:`~sim.rules.scenario.Policy` field (``experiments``,
:func:`sim.rules.scenario.policy_key`), and listed by :mod:`sim.rules.settings`. An
encounter's descriptor (:class:`~sim.experiments.base.Experiment`) takes its policy
variant keys and scenario keys from here, so a new fight, anomaly or event policy key is
a variant key and a scenario key of the experiments it names with no line in their
modules; whole games read the same column (:data:`sim.experiments.campaign_paired.LEFT_OUT`).
"""

from __future__ import annotations

import typing

from sim.rules.scenario import Policy
from sim.rules.settings import CAMPAIGN, ENCOUNTERS, Setting, of_kind

POLICY_FIELDS = {"enter": "enter_anomalies", "policy": "encounters"}
"""Setup keys of an encounter whose :class:`~sim.rules.scenario.Policy` field has another
name; every other policy setup key is the name of its field."""

VARIANT_KINDS: dict[object, str] = {int: "int", bool: "bool", tuple[str, ...]: "list",
                                    tuple[tuple[str, int], ...]: "artifact_use"}
"""How a variant text is read (:class:`~sim.experiments.base.Experiment` ``keys``), by the
type of the policy field; a ``str`` field is a choice kind named as its setup key
(:data:`CHOICES`); ``artifact_use`` reads ``NAME:USE`` (:func:`sim.workflows.compare._read`)."""


CHOICES: dict[str, tuple[str, ...]] = {
    {f: k for k, f in POLICY_FIELDS.items()}.get(field, field): s.choices
    for s in of_kind("policy") if s.type == "choice"
    for field in [s.name.partition(".")[2]]}
"""The values of each choice kind of variant value (a ``str`` policy field's kind, named as
its setup key, :func:`variant_kind`), as its field declares them: a variant names the same
values as the field's option (``--policy``) and the scenario's key (``policy.encounters``)."""


def variant_kind(field: str, hint: object, key: str | None = None) -> str | None:
    """How the variant text of policy field ``field`` (of type ``hint``, setup key ``key``:
    the field's name when None) is read; None where no variant reads its type.

    ``route`` is a list that names each Secret Complex once (P-50).
    """
    if field == "route":
        return "route"
    return (key or field) if hint is str else VARIANT_KINDS.get(hint)


def _taken(experiment: str) -> dict[str, tuple[str | None, Setting]]:
    """Each policy key ``experiment`` takes, as its setup key, with its variant kind and its
    setting, in the order of the :class:`~sim.rules.scenario.Policy` fields (the table's).
    """
    hints = typing.get_type_hints(Policy)
    setup = {field: key for key, field in POLICY_FIELDS.items()}
    out = {}
    for s in of_kind("policy"):
        field = s.name.partition(".")[2]
        key = setup.get(field, field)
        if experiment in s.experiments:
            out[key] = (variant_kind(field, hints[field], key), s)
    return out


def setup_keys(experiment: str) -> tuple[str, ...]:
    """The setup keys of the policy keys ``experiment`` takes from a scenario, in field
    order.
    """
    return tuple(_taken(experiment))


def variant_keys(experiment: str) -> dict[str, tuple[str, str]]:
    """The variant keys of the policy keys ``experiment`` takes, each with its setup key and
    kind (:class:`~sim.experiments.base.Experiment` ``keys``), in field order. A key whose
    type no variant text reads (``weights``, a table of numbers) is set by a scenario only.
    """
    return {key: (key, kind) for key, (kind, _) in _taken(experiment).items()
            if kind is not None}


def option_keys(experiment: str) -> tuple[str, ...]:
    """The setup keys of the policy keys with a command-line option that ``experiment``
    takes and whole games play too, in field order: the thresholds a command's options set
    over a scenario's (:class:`~sim.experiments.base.Experiment` ``option_keys``). Best
    play's ``--policy`` and ``--objective``, which whole games do not play, are options of
    their own.
    """
    return tuple(key for key, (_, s) in _taken(experiment).items()
                 if s.option and CAMPAIGN[0] in s.experiments)


THRESHOLDS: tuple[str, ...] = tuple(dict.fromkeys(
    key for experiment in ENCOUNTERS for key in option_keys(experiment)))
"""The encounters' thresholds (``sneak``, ``flee_at``, ``heal_at``, ``enter``), in field
order: the choices a command's options set for the thresholds to make, and that best play
(``policy = best``) makes itself, card by card (P-16, P-17, P-21, Z-12..Z-14, P-36)."""


__all__ = ["CHOICES", "POLICY_FIELDS", "THRESHOLDS", "VARIANT_KINDS", "option_keys", "setup_keys",
           "variant_keys", "variant_kind"]
