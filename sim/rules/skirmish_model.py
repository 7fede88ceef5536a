"""Typed, immutable model of a skirmish ruleset and scenario (seed 003).

No numpy here: :mod:`sim.skirmish.compile` turns these objects into arrays.
Every field that fills a Gap of the seed is documented in docs/skirmish.md
with its key in ``configs/skirmish/rules.toml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Weapon:
    """A weapon (Gap: weapon data): rate of fire in dice (S-29), range, suppression (S-32).

    ``spread`` (S-25, a Gap): on a battlefield, further targets of one volley must
    stand within this many inches of the first target.
    """

    name: str
    dice: int
    range: int
    suppression: int
    two_weapons: bool = False
    spread: int = 4


@dataclass(frozen=True)
class SkirmishRules:
    """Rule options of ``configs/skirmish/rules.toml``; one attribute per key.

    Attributes are named ``section_key`` after the TOML key ``section.key``.
    """

    path: Path
    hit_need: tuple[int, int, int]
    damage_faces: tuple[str, ...]
    activation_order: str
    activation_max_rounds: int
    movement_slow_skill_max: int
    movement_slow_inches: int
    movement_normal_inches: int
    fast_move_attempt: bool
    fast_move_inches_per_pass: int
    reaction_partial_cover_is: str
    covering_when: str
    covering_extra_dice: int
    in_sight_open_one_pass: str
    in_sight_leader_choice: str
    received_fire_trigger: str
    received_fire_precedence: str
    received_fire_max_chain: int
    suppression_compare: str
    shooting_targets_per_shooter: int
    recover_attempt: bool
    recover_skill: str
    end_of_fight_cowering: str
    visibility_night_inches: int
    visibility_reduced_day_inches: int
    visibility_reduced_night_inches: int
    visibility_exceptions_lift: str
    surrender_inches: int
    surrender_when: str
    battlefield_units_block: int
    battlefield_door_inches: int
    battlefield_entering: str
    battlefield_shooter_cover: str
    battlefield_contact_inches: int
    battlefield_height_clears_cover: bool
    battlefield_recover_inches: int
    flee_surrounded: str
    flee_surrounded_inches: int
    weapons: Mapping[str, Weapon]

    def speed(self, skill: int) -> int:
        """Inches per move for a Skill (S-09: Skill 2 or less moves 6, others 8)."""
        if skill <= self.movement_slow_skill_max:
            return self.movement_slow_inches
        return self.movement_normal_inches


@dataclass(frozen=True)
class Figure:
    """One figure: Skill (S-09, S-11, S-29), weapon, cover, posture (S-31), night vision (S-20)."""

    skill: int
    weapon: Weapon
    cover: str
    prone: bool = False
    night_vision: bool = False


@dataclass(frozen=True)
class Group:
    """A group that takes reaction tests together (S-10) and the side it forms.

    ``terrain`` is where it stands for sight (S-21): ``open``, ``woods`` or
    ``wood_edge``; ``lit``: it stands in a well-lit area (S-20). ``carriers``
    (a policy): 0 leaves comrades out of the fight where they fell, 1 or 2
    figures pick up and carry each one (S-04, S-05). On a battlefield,
    ``positions`` holds each figure's start ``(x, y, floor)`` in inches, and
    ``movement`` is the group's movement policy (``advance`` or ``hold``).
    """

    key: str
    name: str
    figures: tuple[Figure, ...]
    leader: bool = False
    hidden: bool = False
    flanked: bool = False
    withdraw_at: int = 0
    terrain: str = "open"
    lit: bool = False
    carriers: int = 0
    positions: tuple[tuple[float, float, int], ...] = ()
    movement: str = "advance"


@dataclass(frozen=True)
class Opening:
    """A door or window in a building's wall (S-03), centred at ``(x, y)`` on the wall.

    ``floor`` is the storey it opens on (0 = ground floor; a door is always on 0).
    """

    kind: str
    x: float
    y: float
    floor: int = 0


@dataclass(frozen=True)
class Building:
    """A building (S-01..S-03, S-19): an axis-aligned footprint ``x..x+width, y..y+depth``.

    Its walls block sight except through its openings; ``floors`` storeys
    (1 = ground floor only); ``stairs``: figures may change floor (S-02).
    """

    name: str
    x: float
    y: float
    width: float
    depth: float
    floors: int = 1
    stairs: bool = True
    openings: tuple[Opening, ...] = ()


@dataclass(frozen=True)
class CoverObject:
    """A cover object (S-23, S-31): a segment ``(x0, y0)..(x1, y1)`` with its units of cover.

    ``kind`` is ``cover`` (stops bullets) or ``partial`` (hides, does not stop
    bullets, e.g. bushes); a line of fire across it crosses ``units`` units.
    """

    name: str
    x0: float
    y0: float
    x1: float
    y1: float
    units: int = 1
    kind: str = "cover"


@dataclass(frozen=True)
class Area:
    """A rectangle ``x..x+width, y..y+depth`` (a well-lit area, S-20)."""

    x: float
    y: float
    width: float
    depth: float


@dataclass(frozen=True)
class Battlefield:
    """The table (inches, origin at a corner): buildings, cover objects, well-lit areas.

    ``opening_width``: how wide every door and window is (inches). ``walls``: the
    movement policy's reading of a straight move that meets a wall with no opening:
    ``round`` (go round the building by its corners) or ``stop`` (stay at the wall).
    """

    width: float
    depth: float
    buildings: tuple[Building, ...] = ()
    cover: tuple[CoverObject, ...] = ()
    lit: tuple[Area, ...] = ()
    opening_width: float = 2.0
    walls: str = "round"


@dataclass(frozen=True)
class Scenario:
    """Two groups facing each other: at a distance on an abstract battlefield, or placed
    on a ``battlefield`` (then ``distance`` is unused and every figure has a position).

    ``light`` (``day`` or ``night``, S-20) and ``weather`` (``clear`` or
    ``bad``, S-22) are the conditions the players agreed on (S-24).
    """

    path: Path
    name: str
    distance: int
    groups: tuple[Group, Group]
    rules: SkirmishRules
    light: str = "day"
    weather: str = "clear"
    battlefield: Battlefield | None = None
