"""Compile a validated scenario into the integer arrays of :mod:`sim.kernels.skirmish`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.kernels import skirmish as k
from sim.kernels import skirmish_geometry as geo
from sim.kernels import skirmish_layout as layout
from sim.rules.skirmish_model import Battlefield, Scenario, SkirmishRules

CELL_INCHES = 2.0
"""Side of a cell of the battlefield's position grids (where figures fall and fire from)."""

# The In Sight, Received Fire and Recover tables have rows for 0, 1 and 2 dice
# passed (S-15, S-36, S-42): with the Covering die a third pass reads as 2.
RESULT_CAP = 2

_POS = {"open": k.OPEN, "partial": k.PARTIAL, "cover": k.COVER}
_TERRAIN = {"open": k.TERRAIN_OPEN, "woods": k.TERRAIN_WOODS, "wood_edge": k.TERRAIN_EDGE}
_OPTIONS = {
    "activation_order": {"random": k.ORDER_RANDOM, "alternate": k.ORDER_ALTERNATE,
                         "fixed": k.ORDER_FIXED},
    "received_fire_trigger": {"no_damage": k.TRIGGER_NO_DAMAGE, "not_hit": k.TRIGGER_NOT_HIT},
    "received_fire_precedence": {"text_order": k.PREC_TEXT, "suppressed_first": k.PREC_SUPPRESSED,
                                 "flank_first": k.PREC_FLANK},
    "covering_when": {"never": k.COVER_NEVER, "stationary": k.COVER_STATIONARY,
                      "always": k.COVER_ALWAYS},
    "in_sight_open_one_pass": {"prone": k.OPEN_ONE_PRONE, "cover": k.OPEN_ONE_COVER},
    "in_sight_leader_choice": {"fire": k.LEADER_FIRE, "hold": k.LEADER_HOLD},
    "suppression_compare": {"greater": k.SUPP_GREATER, "greater_or_equal": k.SUPP_GREATER_EQUAL},
    "recover_skill": {"own": k.RECOVER_OWN, "best_in_group": k.RECOVER_BEST},
    "end_of_fight_cowering": {"surrender": k.COWER_END_SURRENDER, "kept": k.COWER_END_KEPT},
}


@dataclass(frozen=True)
class CompiledFight:
    """Arrays of one scenario, as the firefight kernel takes them (layouts: module docs).

    Attributes
    ----------
    fig : ndarray of int64, shape (n_figures, N_FIG)
    grp : ndarray of int64, shape (2, N_GRP)
    distance : int
    need : ndarray of int64, shape (3,)
    damage : ndarray of int64, shape (7,)
    params : ndarray of int64, shape (N_PARAMS,)
    xy0 : ndarray of float64, shape (n_figures, 2)
        Start positions on a battlefield (none on the abstract battlefield).
    field : CompiledField, optional
        The battlefield, if the scenario has one.
    """

    fig: np.ndarray
    grp: np.ndarray
    distance: int
    need: np.ndarray
    damage: np.ndarray
    params: np.ndarray
    xy0: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    field: CompiledField | None = None

    @property
    def sizes(self) -> tuple[int, int]:
        """Figures in each group."""
        return tuple(int(n) for n in self.grp[:, k.G_STOP] - self.grp[:, k.G_START])

    @property
    def width(self) -> int:
        """Width of the kernel's output row (with the position grids on a battlefield)."""
        n0, n1 = self.sizes
        width = int(k.row_layout(n0, n1, int(self.params[k.P_MAX_ROUNDS]))[-1])
        if self.field is None:
            return width
        return int(k.grid_layout(width, *self.grid)[-1])

    @property
    def grid(self) -> tuple[int, int]:
        """Cells of the position grids across and deep (battlefield only)."""
        return int(self.params[layout.P_GRID_NX]), int(self.params[layout.P_GRID_NY])

    def kernel_args(self) -> tuple:
        """The arguments of :func:`sim.kernels.skirmish.firefight_kernel` after the trials."""
        f = self.field or _NO_FIELD
        fp = np.zeros(layout.N_FPAR)
        fp[layout.FP_HALF] = f.half
        fp[layout.FP_WIDTH] = f.width
        fp[layout.FP_DEPTH] = f.depth
        fp[layout.FP_CONTACT] = f.contact
        fp[layout.FP_RECOVER] = f.recover
        fp[layout.FP_SURROUND] = f.surround
        fp[layout.FP_CELL] = f.cell
        return (self.fig, self.grp, self.distance, self.need, self.damage, self.params, self.xy0,
                f.bld, f.opn, f.cov, f.lit, fp)


@dataclass(frozen=True)
class CompiledField:
    """A battlefield as :mod:`sim.kernels.skirmish_geometry` takes it (layouts: module docs).

    Attributes
    ----------
    bld, opn, cov, lit : ndarray of float64
        Buildings, openings, cover objects and well-lit areas (``x0, y0, x1, y1``).
    half : float
        Half the width of a door or window.
    width, depth : float
        The table.
    contact, recover, surround : float
        ``battlefield.contact_inches``, ``battlefield.recover_inches`` and
        ``flee.surrounded_inches`` of the ruleset.
    cell : float
        Side of a cell of the position grids (inches).
    """

    bld: np.ndarray
    opn: np.ndarray
    cov: np.ndarray
    lit: np.ndarray
    half: float
    width: float
    depth: float
    contact: float = 1.0
    recover: float = 2.0
    surround: float = 6.0
    cell: float = CELL_INCHES


def compile_field(field: Battlefield, rules: SkirmishRules | None = None) -> CompiledField:
    """The arrays of a validated battlefield (with the ruleset's measures, if given)."""
    bld = np.zeros((len(field.buildings), geo.B_COLS))
    opn = []
    for i, b in enumerate(field.buildings):
        bld[i] = (b.x, b.y, b.x + b.width, b.y + b.depth, b.floors, b.stairs)
        opn += [(i, geo.DOOR if o.kind == "door" else geo.WINDOW, o.x, o.y, o.floor)
                for o in b.openings]
    cov = np.array([(c.x0, c.y0, c.x1, c.y1, c.units, geo.HARD if c.kind == "cover" else geo.SOFT)
                    for c in field.cover], dtype=np.float64).reshape(-1, geo.V_COLS)
    lit = np.array([(a.x, a.y, a.x + a.width, a.y + a.depth) for a in field.lit],
                   dtype=np.float64).reshape(-1, 4)
    measures = {}
    if rules is not None:
        measures = {"contact": rules.battlefield_contact_inches,
                    "recover": rules.battlefield_recover_inches,
                    "surround": rules.flee_surrounded_inches}
    return CompiledField(bld=bld, opn=np.array(opn, dtype=np.float64).reshape(-1, geo.O_COLS),
                         cov=cov, lit=lit, half=field.opening_width / 2, width=field.width,
                         depth=field.depth, **measures)


def compile_rules(rules: SkirmishRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(need, damage, params)`` arrays of a ruleset."""
    need = np.array(rules.hit_need, dtype=np.int64)
    damage = np.array([k.DMG_NONE] + [k.DMG_OUT if f == "out" else k.DMG_NONE
                                      for f in rules.damage_faces], dtype=np.int64)
    p = layout.PARAMS.pack(
        P_ORDER=_OPTIONS["activation_order"][rules.activation_order],
        P_MAX_ROUNDS=rules.activation_max_rounds,
        P_MAX_CHAIN=rules.received_fire_max_chain,
        P_TRIGGER=_OPTIONS["received_fire_trigger"][rules.received_fire_trigger],
        P_PRECEDENCE=_OPTIONS["received_fire_precedence"][rules.received_fire_precedence],
        P_PARTIAL_IS_COVER=rules.reaction_partial_cover_is == "cover",
        P_COVER_WHEN=_OPTIONS["covering_when"][rules.covering_when],
        P_COVER_EXTRA=rules.covering_extra_dice,
        P_CAP=RESULT_CAP,
        P_FAST_ATTEMPT=rules.fast_move_attempt,
        P_FAST_INCHES=rules.fast_move_inches_per_pass,
        P_OPEN_ONE=_OPTIONS["in_sight_open_one_pass"][rules.in_sight_open_one_pass],
        P_LEADER_CHOICE=_OPTIONS["in_sight_leader_choice"][rules.in_sight_leader_choice],
        P_SUPP_CMP=_OPTIONS["suppression_compare"][rules.suppression_compare],
        P_TARGETS=rules.shooting_targets_per_shooter,
        P_RECOVER_ATTEMPT=rules.recover_attempt,
        P_RECOVER_SKILL=_OPTIONS["recover_skill"][rules.recover_skill],
        P_COWER_END=_OPTIONS["end_of_fight_cowering"][rules.end_of_fight_cowering],
        P_NIGHT_INCHES=rules.visibility_night_inches,
        P_REDUCED_DAY=rules.visibility_reduced_day_inches,
        P_REDUCED_NIGHT=rules.visibility_reduced_night_inches,
        P_EXCUSED_ALL=rules.visibility_exceptions_lift == "all_night_limits",
        P_SURRENDER=rules.surrender_inches if rules.surrender_when != "never" else -1,
        P_SURRENDER_WHEN=(k.SURRENDER_WITHIN if rules.surrender_when == "within"
                          else k.SURRENDER_APPROACH),
        P_UNITS_BLOCK=rules.battlefield_units_block,
        P_DOOR=rules.battlefield_door_inches,
        P_ENTER_MOVE=rules.battlefield_entering == "move",
        P_SHOOTER_COVER=rules.battlefield_shooter_cover == "counted",
        P_HEIGHT_CLEARS=rules.battlefield_height_clears_cover,
        P_SURROUNDED=rules.flee_surrounded == "paths",
    )
    return need, damage, p


def compile_scenario(scenario: Scenario) -> CompiledFight:
    """Turn a validated :class:`~sim.rules.skirmish_model.Scenario` into kernel arrays."""
    rules = scenario.rules
    rows = []
    grp = np.zeros((2, layout.N_GRP), dtype=np.int64)
    for g, group in enumerate(scenario.groups):
        start = len(rows)
        for i, f in enumerate(group.figures):
            rows.append(layout.FIGURE.pack(
                F_GROUP=g,
                F_SKILL=f.skill,
                F_DICE=f.weapon.dice,
                F_RANGE=f.weapon.range,
                F_SUPP=f.weapon.suppression,
                F_TWO=f.weapon.two_weapons,
                F_SPEED=rules.speed(f.skill),
                F_POS=_POS[f.cover],
                F_HIDDEN=group.hidden,
                F_PRONE=f.prone,
                F_NIGHT_VISION=f.night_vision,
                F_FLOOR=group.positions[i][2] if group.positions else 0,
                F_SPREAD=f.weapon.spread,
            ))
        grp[g] = layout.GROUP.pack(
            G_START=start, G_STOP=len(rows), G_LEADER=group.leader, G_FLANKED=group.flanked,
            G_WITHDRAW=group.withdraw_at, G_TERRAIN=_TERRAIN[group.terrain], G_LIT=group.lit,
            G_CARRIERS=group.carriers, G_MOVEMENT=group.movement == "advance")
    need, damage, params = compile_rules(rules)
    params = layout.PARAMS.pack(params, P_NIGHT=scenario.light == "night",
                           P_BAD_WEATHER=scenario.weather == "bad")
    field_ = None
    xy0 = np.zeros((0, 2))
    if scenario.battlefield is not None:
        field_ = compile_field(scenario.battlefield, rules)
        xy0 = np.array([p[:2] for g in scenario.groups for p in g.positions], dtype=np.float64)
        params = layout.PARAMS.pack(
            params, P_FIELD=1, P_WALLS_ROUND=scenario.battlefield.walls == "round",
            P_GRID_NX=int(np.ceil(field_.width / field_.cell)),
            P_GRID_NY=int(np.ceil(field_.depth / field_.cell)))
    return CompiledFight(fig=np.array(rows, dtype=np.int64), grp=grp,
                         distance=int(scenario.distance), need=need, damage=damage,
                         params=params, xy0=xy0, field=field_)


_NO_FIELD = CompiledField(bld=np.zeros((0, geo.B_COLS)), opn=np.zeros((0, geo.O_COLS)),
                          cov=np.zeros((0, geo.V_COLS)), lit=np.zeros((0, 4)), half=0.0,
                          width=0.0, depth=0.0)
"""The empty battlefield the kernel is given on the abstract battlefield (never read)."""
