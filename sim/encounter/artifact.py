"""Artefacts from ruleset cards: what each carried artefact does in one encounter.

:func:`compile_artifacts` resolves ``artifacts.csv`` cards (P-07..P-12), the
stalker's Intellect (P-10) and the ``[artifacts]`` keys into
:class:`ArtifactSpec` records; :func:`pack_records` writes them after a
params header (:mod:`sim.kernels.layout`, ``AF_*``). The same specs are read
by the exact twins and the plain-Python references.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sim.encounter.damage import side_target
from sim.encounter.modifier import test_terms
from sim.errors import InputError
from sim.kernels import layout as S
from sim.rules import Ruleset

EFFECTS = {"none": S.ART_NONE, "heal": S.ART_HEAL, "calm": S.ART_CALM,
           "purge": S.ART_PURGE, "resist": S.ART_RESIST, "movement": S.ART_MOVEMENT,
           "combat": S.ART_COMBAT, "stealth": S.ART_STEALTH}
FAIL_RULES = {"nothing": S.FAIL_NOTHING, "side_effect": S.FAIL_SIDE_EFFECT,
              "both": S.FAIL_BOTH}
RESIST_ORDERS = {"before_armor": S.RESIST_BEFORE_ARMOR, "after_armor": S.RESIST_AFTER_ARMOR}


class ArtifactInputError(InputError):
    """Artefacts that the model cannot use (reported to the user, exit status 2)."""


@dataclass(frozen=True)
class ArtifactSpec:
    """One carried artefact as an encounter uses it.

    Attributes
    ----------
    name : str
        The card's name.
    effect : int
        ``ART_*`` code; ``ART_NONE`` when it cannot act in this encounter
        (e.g. a resist artefact of another damage type).
    value : int
        Size of the effect (P-08).
    auto : bool
        Automatic use: no test, the side effect always happens (P-09).
    pool, face, need : int
        The Intellect test of an activated artefact (P-10): the stalker's
        Intellect, the die face and the successes needed (the card's
        ``intellect_need`` under ``dice.modifier``).
    side_target : int
        ``TARGET_*`` of the side effect, ``SIDE_NONE`` without one.
    side_value : int
        Its points.
    hands : int
        Hands it needs in a combat round (P-23; 0 = none, P-24).
    use_at : int
        Used only at this Health or less (``policy.artifact_use``, P-08):
        :data:`~sim.kernels.layout.USE_ALWAYS` whenever its rule allows, 0 never.
    """

    name: str
    effect: int
    value: int
    auto: bool
    pool: int
    face: int
    need: int
    side_target: int
    side_value: int
    hands: int
    use_at: int = S.USE_ALWAYS


@dataclass(frozen=True)
class ArtifactRules:
    """The ``[artifacts]`` keys an encounter reads (codes of :mod:`sim.kernels.layout`)."""

    fail_rule: int = S.FAIL_SIDE_EFFECT
    resist_order: int = S.RESIST_BEFORE_ARMOR
    restore_uses: int = 1


def artifact_rules(rs: Ruleset) -> ArtifactRules:
    """The ruleset's ``artifacts.failed_activation``, ``resist_order``, ``restore_uses``."""
    keys = rs.rules.artifacts
    return ArtifactRules(FAIL_RULES[keys.failed_activation], RESIST_ORDERS[keys.resist_order],
                         keys.restore_uses)


def compile_artifacts(rs: Ruleset, names: Sequence[str], intellect: int,
                      damage_type: str | None = None,
                      use: Mapping[str, int] | None = None) -> tuple[ArtifactSpec, ...]:
    """Resolve carried artefact cards into specs, in the order carried.

    ``use`` maps a card's name to the Health at or below which it is used
    (``policy.artifact_use``, :data:`sim.rules.scenario.Policy`; 0 = never); an
    artefact it does not name is used whenever its rule allows.

    ``artifacts.carry_limit`` refuses more cards than a stalker may carry;
    ``artifacts.use_limit`` keeps the first ones (0 = all). A resist
    artefact acts only against ``damage_type`` (its ``effect_type``); against
    other damage, or with no damage (``None``), it is kept as ``ART_NONE``.
    """
    keys = rs.rules.artifacts
    unknown = [n for n in names if n not in rs.artifacts]
    if unknown:
        raise ArtifactInputError(f"unknown artefact {unknown[0]!r} "
                                 f"(known: {', '.join(rs.artifacts)})")
    if not rs.may_carry(len(names)):
        raise ArtifactInputError(f"{len(names)} artefacts given; artifacts.carry_limit is "
                                 f"{keys.carry_limit}")
    acting = names[: keys.use_limit] if keys.use_limit else names
    if len(acting) > S.MAX_ARTIFACTS:
        raise ArtifactInputError(f"{len(acting)} artefacts given; at most {S.MAX_ARTIFACTS} "
                                 "act in one encounter")
    out = []
    for name in acting:
        card = rs.artifacts[name]
        effect = EFFECTS[card.effect]
        if card.effect == "resist" and card.effect_type != damage_type:
            effect = S.ART_NONE
        face, need = test_terms(card.intellect_need, rs.rules.dice.success_on,
                                rs.rules.dice.modifier)
        out.append(ArtifactSpec(
            name=name, effect=effect, value=card.value, auto=card.activation == "auto",
            pool=intellect, face=face, need=need, side_target=side_target(card.side_effect),
            side_value=card.side_value if card.side_effect != "none" else 0, hands=card.hands,
            use_at=(use or {}).get(name, S.USE_ALWAYS)))
    return tuple(out)


def pack_records(artifacts: Sequence[ArtifactSpec]) -> np.ndarray:
    """The ``AF_*`` records of ``artifacts``, int64 of length ``len * AF_SIZE``."""
    return np.concatenate([np.zeros(0, dtype=np.int64), *(
        S.ARTEFACT.pack(AF_EFFECT=a.effect, AF_VALUE=a.value, AF_AUTO=int(a.auto),
                        AF_POOL=a.pool, AF_FACE=a.face, AF_NEED=a.need,
                        AF_SIDE_TARGET=a.side_target, AF_SIDE_VALUE=a.side_value,
                        AF_USE_AT=a.use_at)
        for a in artifacts)])


def combat_choices(artifacts: Sequence[ArtifactSpec]) -> tuple[tuple[int, int, int], ...]:
    """``(record index, dice, hands)`` of the combat artefacts, for the loadout (P-23)."""
    return tuple((i, a.value, a.hands) for i, a in enumerate(artifacts)
                 if a.effect == S.ART_COMBAT and a.value > 0)
