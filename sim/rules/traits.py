"""Enemy special traits (P-22): the vocabulary of an enemies.csv ``traits`` cell.

P-22 says many enemies carry special traits that "affect both sneaking and the fight
itself", without listing them. The project reads a small vocabulary of effects on the one
fight rule (a documented reading, docs/rules.md "Enemy traits"):

``ambush``
    No attempt to avoid the fight (P-16, Z-15..Z-17): the stalker must fight. Fleeing
    from round 2 (P-21) stays possible.
``piercing``
    The enemy's wounds ignore the armour: it does not roll and takes no damage tokens
    (P-02..P-05). Resist artefacts (P-08) still act.
``relentless``
    The stalker cannot flee from the fight (P-21): no Stealth test for a flight; the fight
    goes on until one side is down (or the enemy flees, or the cap).
``flees=N``
    The enemy leaves after round N (N >= 1) if neither side has ended the fight: the fight
    ends without a kill and without a trophy, counted as ``fled`` (the enemy has no
    Health track in this model, so a round stands for its threshold).

A cell lists traits separated by ``;`` (spaces around them are ignored), each at most
once; an empty cell is a card without traits.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.rules.tomlfile import show, suggest

FLAGS = ("ambush", "piercing", "relentless")
"""Traits without a value."""
VALUED = {"flees": (1, 99)}
"""Traits with an integer value (``name=N``) and its inclusive range."""
NAMES = FLAGS + tuple(VALUED)


@dataclass(frozen=True)
class EnemyTraits:
    """An enemy card's special traits (P-22); the default is a card without any.

    Attributes
    ----------
    ambush : bool
        The fight cannot be avoided (P-16, Z-15..Z-17).
    piercing : bool
        The armour does not roll against the enemy's wounds (P-02..P-05).
    relentless : bool
        The stalker cannot flee (P-21).
    flees : int
        The enemy leaves after this round (0: never).
    """

    ambush: bool = False
    piercing: bool = False
    relentless: bool = False
    flees: int = 0


NONE = EnemyTraits()


def parse_traits(text: str) -> tuple[EnemyTraits, str | None]:
    """The traits of a ``traits`` cell, or ``(NONE, message)`` if the cell is invalid."""
    found: dict[str, object] = {}
    if text.strip() == "":
        return NONE, None
    for part in (p.strip() for p in text.split(";")):
        name, sep, value = (s.strip() for s in part.partition("="))
        if name not in NAMES:
            return NONE, (f"{show(part)} is not a trait ({', '.join(NAMES)}; "
                          "e.g. 'ambush; flees=2')" + suggest(name, NAMES))
        if name in found:
            return NONE, f"{show(text)}: trait {show(name)} appears twice"
        if name in FLAGS:
            if sep:
                return NONE, f"{show(part)}: trait {show(name)} takes no value"
            found[name] = True
            continue
        lo, hi = VALUED[name]
        if not value.isdigit() or not lo <= int(value) <= hi:
            return NONE, f"{show(part)}: trait {show(name)} needs a value {lo}..{hi} ({name}=N)"
        found[name] = int(value)
    return EnemyTraits(**found), None  # type: ignore[arg-type]
