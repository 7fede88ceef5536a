"""A fight's plan in a designer's words: the few rules that say what best play does.

A plan (:mod:`sim.encounter.plan`) holds a decision for every state of a
fight; only the states the fight reaches matter
(:attr:`sim.exact.combat.CombatExact.visited`). Each kind of decision
(avoiding the fight, stimulants, fleeing, each limited-use weapon) is said as a
Health threshold where it is one ("from round 2 flee at Health <= 2"),
split by whether the armour still stands when that decides it, and as the list
of Health values otherwise. Each artefact that can act in the fight gets a line of its
own: when the plan uses it (P-08), or "never use" it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sim.encounter.plan import FLEE, CombatPlan
from sim.encounter.spec import CombatSpec
from sim.kernels.layout import (
    ART_CALM,
    ART_HEAL,
    ART_RESIST,
    ART_STEALTH,
    AVOID_STEALTH,
    PLAN_KIND_BITS,
    SPEND_ART_SHIFT,
    TARGET_HEALTH,
)

KIND_MASK = (1 << PLAN_KIND_BITS) - 1
"""One kind's doses in a plan entry's dose field."""


def describe(spec: CombatSpec, plan: CombatPlan, visited: Iterable[tuple],
             restore_visited: Iterable[tuple] = ()) -> list[str]:
    """The plan's decisions over the ``visited`` states (and, for heal and calm artefacts,
    the ``restore_visited`` ones at the start of a round), one short line per kind.
    """
    states = sorted(visited)
    sneak = ("try to avoid the fight (Stealth test, P-16)" if spec.avoid_rule == AVOID_STEALTH
             else "try to slip away (Reputation roll, Z-15)")
    stealth = [a.name for i, a in enumerate(spec.artifacts)
               if a.effect == ART_STEALTH and plan.sneak_select >> i & 1]
    if stealth and spec.avoid_rule == AVOID_STEALTH:
        sneak += " with " + ", ".join(stealth)
    lines = [sneak if plan.sneak else "fight for the trophy (P-17)"]
    n_limited = len(spec.loadout.uses)
    for j, (value, _) in enumerate(plan.shape.kinds):  # which dose, by kind (Z-12, P-24)
        doses = [(s, plan.decision(*s)[0] >> (PLAN_KIND_BITS * j) & KIND_MASK > 0)
                 for s in states if s[4][n_limited + j] > 0 and s[1] < spec.health]
        lines.append(_rule(f"a +{value} dose", doses, spec, f"no +{value} dose"))
    if spec.stimulants and not plan.shape.kinds:
        doses = [(s, plan.decision(*s)[0] > 0) for s in states
                 if s[3] < len(spec.stimulants) and s[1] < spec.health]
        lines.append(_rule("stimulant", doses, spec, "no stimulant"))
    flee = [(s, plan.decision(*s)[1] == FLEE) for s in states if s[0] >= 2]
    lines.append(_rule("from round 2 flee", flee, spec, "never flee"))
    for j, slot in enumerate(spec.loadout.limited):
        name = spec.loadout.slots[slot].name
        used = [(s, _allows(plan.decision(*s)[1], j)) for s in states
                if s[4][j] > 0 and plan.decision(*s)[1] != FLEE]
        lines.append(_rule(f"use the {name}", used, spec, f"keep the {name} (never used)",
                           always=f"use the {name} whenever it adds dice"))
    lines += _artifact_lines(spec, plan, states, sorted(restore_visited))
    return lines


def _artifact_lines(spec: CombatSpec, plan: CombatPlan, states: list, before: list) -> list[str]:
    """One line per carried artefact that can act in the fight: when the plan uses it (P-08)."""
    lines = []
    combat = {rec for rec, _, _ in spec.loadout.artifacts}
    for i, a in enumerate(spec.artifacts):
        if a.effect in (ART_HEAL, ART_CALM):
            flags = [(s, plan.restore_select(*s) >> i & 1 == 1) for s in before]
            what = "heal" if a.effect == ART_HEAL else "calm"
            when = f"{what} with {a.name}"
        elif a.effect == ART_RESIST:
            flags = [(s, plan.decision(*s)[2] >> i & 1 == 1) for s in states]
            when = f"resist with {a.name}"
        elif a.effect == ART_STEALTH:
            flags = [(s, plan.decision(*s)[2] >> i & 1 == 1) for s in states
                     if plan.decision(*s)[1] == FLEE]
            when = f"flee with {a.name}"
        elif i in combat:
            flags = [(s, _chosen(spec, plan.decision(*s)[1], s, i))
                     for s in states if plan.decision(*s)[1] != FLEE]
            when = f"fight with {a.name}"
        else:
            continue
        if flags:
            lines.append(_other_rule(when, flags, spec)
                         or _rule(when, flags, spec, f"never use {a.name}",
                                  always=f"use {a.name} whenever it can act"))
    return lines


def _other_rule(what: str, flags: list[tuple[tuple, bool]], spec: CombatSpec) -> str | None:
    """``what`` as a threshold on the other track (an artefact's side effect may knock out
    through it, P-40), where the flag is set exactly at and above one level; else None.
    """
    on = [s[5] for s, flag in flags if flag]
    off = [s[5] for s, flag in flags if not flag]
    if not on or not off or min(on) <= max(off):
        return None
    track = "Willpower" if spec.track == TARGET_HEALTH else "Health"
    return f"{what} while {track} >= {min(on)}"


def _chosen(spec: CombatSpec, action: int, state: tuple, record: int) -> bool:
    """Whether the round's loadout takes combat artefact ``record`` under ``action`` (P-23)."""
    rnd, uses = state[0], state[4][:len(spec.loadout.uses)]  # the weapons' (then doses')
    mask = sum(1 << j for j, n in enumerate(uses) if n > 0) | spec.loadout.every_artifact
    spend = spec.loadout.spend[0 if rnd == 1 else 1][mask & (action - 1)]
    return spend >> (SPEND_ART_SHIFT + record) & 1 == 1


def _allows(action: int, j: int) -> bool:
    return action != FLEE and (action - 1) >> j & 1 == 1


def _rule(what: str, flags: list[tuple[tuple, bool]], spec: CombatSpec, never: str,
          always: str | None = None) -> str:
    """``what`` as a Health threshold over the states in ``flags``, split if it must be."""
    if not any(flag for _, flag in flags):
        return never
    if all(flag for _, flag in flags):
        return always or f"{what} always"
    whole = _threshold(flags)
    if whole is not None:
        return f"{what} at Health <= {whole}"
    parts = []
    for label, keep in _splits(spec):
        part = [(s, flag) for s, flag in flags if keep(s)]
        if not part:
            continue
        if not any(flag for _, flag in part):
            parts.append(f"never {label}")
            continue
        limit = _threshold(part)
        healths = sorted({s[1] for s, flag in part if flag})
        parts.append((f"at Health <= {limit} {label}" if limit is not None
                      else f"at Health {', '.join(map(str, healths))} {label}").rstrip())
    return f"{what} " + "; ".join(parts)


def _splits(spec: CombatSpec) -> list[tuple[str, Callable[[tuple], bool]]]:
    """Groups of states a decision may differ between: the armour standing or gone."""
    if spec.durability <= 0:
        return [("", lambda s: True)]
    return [("while the armour stands", lambda s: s[2] < spec.durability),
            ("once the armour is gone", lambda s: s[2] >= spec.durability)]


def _threshold(flags: list[tuple[tuple, bool]]) -> int | None:
    """X such that the flag is set exactly in the states with Health <= X, or None."""
    on = [s[1] for s, flag in flags if flag]
    off = [s[1] for s, flag in flags if not flag]
    limit = max(on)
    return limit if not off or min(off) > limit else None
