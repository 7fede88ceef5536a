"""Search one card value to hit a balance target: the library behind ``zonesim tune``.

``tune`` varies one cell (``enemies.Bloodsucker.endurance=1..8``, any edit
path of :mod:`sim.rules.variants`) and evaluates candidates of an experiment of
:mod:`sim.workflows.compare` on the same seed, so every candidate sees the same dice
(common random numbers): the estimates of neighbouring candidates differ by
the effect of the change, not by noise, and the search cannot be misled by
noise that changes from one candidate to the next.

Candidates are ``lo..hi`` (integers), ``lo..hi:step`` (integers or reals) or a
list ``a,b,c``. Methods:

- ``bisect`` (monotone metric, a ``lo..hi`` integer range): evaluate both
  ends, then bisect for the first candidate whose estimate reaches the
  target's aim point (the middle of a closed range, else its finite bound);
  ``O(log n)`` evaluations.
- ``scan``: evaluate every candidate (in one paired run).

The chosen value is the smallest change that works: among the evaluated
``PASS`` candidates, the one nearest the cell's current value (a designer
moves a card as little as possible; when the current value passes, it is
kept). A bisection therefore also searches, after the aim point, for the edge
of the passing band on the current value's side. Without a ``PASS``, the
chosen value is an ``UNDECIDED`` candidate, else a ``FAIL`` one, closest to the
aim point. Ties go to the candidate listed first. When two neighbouring
candidates lie on opposite sides of the target band (one wholly below it, the
next wholly above), one step of the cell jumps over the band: the result says
so (``jumps_over``, ``note``), since no value on this grid can pass. Every
evaluated candidate is reported as evidence with its estimate, interval,
exact value (where known) and verdict.

The chosen value is then played again, beside the current value, on fresh games: the same
number of trials on the seed :func:`sim.workflows.fresh.fresh_seed` derives from the
search's, whose (seed, trial, purpose) streams no candidate's estimate used. The fresh
estimate, its interval and verdict and the paired difference to the current value are
what a designer is shown as the answer (honest selection: a winner picked on some dice is
judged on others), the selection's evidence beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from sim.errors import InputError
from sim.experiments.base import CompareInputError
from sim.experiments.registry import experiment
from sim.rules import Ruleset
from sim.rules.grid import number, parse_grid
from sim.rules.variants import VariantError, apply_edits, edit_value, format_value, parse_edit
from sim.workflows.compare import Variant, cases, compare
from sim.workflows.fresh import fresh_seed
from sim.workflows.targets import FAIL, PASS, UNDECIDED, Target

METHODS = ("auto", "bisect", "scan")
_RANK = {PASS: 0, UNDECIDED: 1, FAIL: 2}
MAX_CANDIDATES = 1000


class TuneInputError(InputError):
    """A search that cannot be run (reported to the user, exit status 2)."""


@dataclass(frozen=True)
class Vary:
    """The cell to vary and its candidate values.

    Attributes
    ----------
    path : str
        ``table.card.column`` (or ``rules.section.key``).
    values : tuple of int or float
        Candidates in the order given.
    integer_range : bool
        Whether the candidates are a ``lo..hi`` integer range (step 1), the
        case :func:`tune` can bisect.
    """

    path: str
    values: tuple[int | float, ...]
    integer_range: bool = False


def parse_vary(text: str) -> Vary:
    """Parse ``table.card.column=lo..hi``, ``=lo..hi:step`` or ``=a,b,c`` (:mod:`sim.rules.grid`).

    Raises
    ------
    TuneInputError
        Malformed text, an empty range, a non-positive step, too many
        candidates, or a candidate that is not a number.
    """
    try:
        grid = parse_grid(text, MAX_CANDIDATES)
    except VariantError as error:
        raise TuneInputError(str(error), error.field) from None
    try:
        values = tuple(number(v) for v in grid.values)
    except ValueError:
        raise TuneInputError(f"{text!r}: every candidate must be a number", "vary") from None
    return Vary(grid.path, values, integer_range=grid.integer_range)


@dataclass(frozen=True)
class Tuning:
    """Result of :func:`tune`.

    Attributes
    ----------
    experiment : str
        Experiment name.
    path : str
        The varied cell.
    current : object
        Its value in the ruleset.
    target : Target
        What the metric should be.
    method : str
        ``bisect`` or ``scan``.
    chosen : int or float or None
        The chosen candidate (None only when nothing was evaluated).
    verdict : str
        The chosen candidate's verdict (``PASS``, ``UNDECIDED`` or ``FAIL``).
    evidence : tuple of dict
        Every evaluated candidate, in candidate order: ``value``, ``mc``,
        ``ci_low``, ``ci_high``, ``exact``, ``verdict``, ``chosen``.
    trials, seed : int
        Trials per candidate and the common seed.
    setup : dict
        The base setup.
    jumps_over : tuple of two values or None
        Two neighbouring candidates whose estimates lie wholly on opposite
        sides of the target band (one step of the cell jumps over it), else None.
    skipped : tuple of dict
        Candidates not played: ``value``, ``edit``, ``reason`` (starting with
        the edit, which names the card and cell) and ``refused_by`` (``rules``:
        the edit checks; ``compile``: the experiment cannot set the game up).
    fresh : dict or None
        The chosen value played again on fresh games (:func:`fresh_check`): ``seed``,
        ``trials``, ``current`` and ``chosen`` (``value``, ``mc``, ``ci_low``, ``ci_high``,
        ``exact``, ``verdict``) and ``difference`` (chosen minus current, paired: ``mc``,
        ``ci_low``, ``ci_high``); None only when nothing was evaluated.
    """

    experiment: str
    path: str
    current: object
    target: Target
    method: str
    chosen: int | float | None
    verdict: str
    evidence: tuple[dict, ...]
    trials: int
    seed: int
    setup: dict
    jumps_over: tuple | None = None
    skipped: tuple[dict, ...] = ()
    fresh: dict | None = None

    @property
    def note(self) -> str:
        """One sentence for the designer: the change chosen, or why none works, and what the
        fresh games say where they disagree with the search's.
        """
        note = self._choice()
        if self.fresh is not None and self.fresh["chosen"]["verdict"] != self.verdict:
            note += (f"; on fresh games it is {self.fresh['chosen']['verdict']}, not "
                     f"{self.verdict}: the search's games favoured it by chance, so check "
                     "it with more --trials")
        return note

    def _choice(self) -> str:
        """The change chosen, or why none works (the search's verdict)."""
        if self.verdict == PASS:
            if self.chosen == self.current:
                return f"the current value {self.path}={self.current} already passes"
            return (f"smallest change that passes: {self.path} from {self.current} to "
                    f"{self.chosen}")
        if self.jumps_over is not None:
            a, b = self.jumps_over
            return (f"one step from {a} to {b} jumps over the target band "
                    f"{self.target.low:g}..{self.target.high:g}: no value of this grid "
                    "passes; try a finer step or tune another cell with it")
        return "no candidate passes"

    def to_dict(self) -> dict:
        """JSON document (``skipped`` only when a candidate was skipped)."""
        return {"experiment": self.experiment, "vary": self.path, "current": self.current,
                "target": str(self.target), "metric": self.target.metric,
                "method": self.method, "trials": self.trials, "seed": self.seed,
                "setup": self.setup, "chosen": self.chosen, "verdict": self.verdict,
                "evidence": list(self.evidence),
                "jumps_over": None if self.jumps_over is None else list(self.jumps_over),
                "note": self.note, "fresh": self.fresh,
                **({"skipped": list(self.skipped)} if self.skipped else {})}

    def to_frame(self) -> pd.DataFrame:
        """One row per evaluated candidate."""
        return pd.DataFrame(list(self.evidence))


def _evaluate(name: str, rs: Ruleset, base: Mapping[str, Any], vary: Vary, values, target,
              trials: int, seed: int, threads, variant: Variant) -> dict:
    variants = [dataclasses.replace(variant, label=format_value(x),
                                    edits=(*variant.edits, f"{vary.path}={format_value(x)}"))
                for x in values]
    try:
        result = compare(experiment(name), rs, base, variants, trials=trials, seed=seed,
                         threads=threads, metrics=[target.metric])
    except CompareInputError as error:
        raise TuneInputError(str(error)) from None
    out = {}
    for x, row in zip(values, result.rows, strict=True):
        out[x] = {"value": x, "mc": row["mc"], "ci_low": row["ci_low"],
                  "ci_high": row["ci_high"], "exact": row["exact"],
                  "verdict": target.judge(row["mc"], row["ci_low"], row["ci_high"])}
    return out


def tune(name: str, rs: Ruleset, base: Mapping[str, Any], vary: Vary | str, target: Target,
         *, trials: int, seed: int, threads: int | None = None, method: str = "auto",
         variant: Variant | None = None) -> Tuning:
    """Find the candidate value of one cell whose metric meets ``target``.

    Parameters
    ----------
    name : str
        Experiment (``combat``, ``anomaly``, ``event``).
    rs : Ruleset
        The base ruleset.
    base : mapping
        Base setup of the experiment (e.g. ``stalker``, ``enemy``).
    vary : Vary or str
        The cell and candidates (``enemies.Bloodsucker.endurance=1..8``).
    target : Target
        The metric's target range.
    trials, seed, threads :
        Trials per candidate; every candidate runs on ``seed``.
    method : str
        ``auto`` (bisect an integer range, else scan), ``bisect`` or ``scan``.
    variant : Variant, optional
        Further overrides and edits applied to every candidate.

    Raises
    ------
    TuneInputError
        Bad ``vary``, unknown metric, a further edit the rules refuse or that
        edits the tuned cell itself, no candidate that can be played, or
        ``bisect`` on candidates that are not an integer range. A candidate
        the rules refuse, or whose game the experiment cannot set up, is
        skipped and listed in :attr:`Tuning.skipped`; it never stops the search.
    """
    if isinstance(vary, str):
        vary = parse_vary(vary)
    variant = variant or Variant()
    if method not in METHODS:
        raise TuneInputError(f"method {method!r} is not one of {', '.join(METHODS)}")
    known = [m.name for m in experiment(name).metrics]
    if target.metric not in known:
        raise TuneInputError(f"unknown metric {target.metric!r} for {name} "
                             f"(known: {', '.join(known)})")
    try:
        current = edit_value(rs, vary.path)
    except VariantError as error:
        raise TuneInputError(str(error)) from None
    _refuse_tuned_cell(vary.path, variant.edits)
    try:
        apply_edits(rs, variant.edits)
    except VariantError as error:
        raise TuneInputError(str(error), "edit") from None
    vary, skipped = screen(name, rs, base, vary, variant)
    if method == "bisect" and not vary.integer_range:
        raise TuneInputError("bisect needs an integer range lo..hi; use --method scan")
    if method == "auto":
        method = "bisect" if vary.integer_range and len(vary.values) > 3 else "scan"
    args = (name, rs, base, vary)
    kw = {"target": target, "trials": trials, "seed": seed, "threads": threads,
          "variant": variant}
    if method == "scan":
        seen = _evaluate(*args, values=vary.values, **kw)
    else:
        def evaluate(xs):
            return _evaluate(*args, values=xs, **kw)
        seen = _bisect(vary.values, target.aim, evaluate)
        _toward_current(vary.values, current, seen, evaluate)
    order = {x: i for i, x in enumerate(vary.values)}
    best = min(seen.values(), key=lambda r: _preference(r, target, current, order))
    evidence = tuple({**seen[x], "chosen": x == best["value"]}
                     for x in sorted(seen, key=order.__getitem__))
    fresh = fresh_check(name, rs, base, vary.path, current, best["value"], target,
                        trials=trials, seed=seed, threads=threads, variant=variant)
    return Tuning(name, vary.path, current, target, method, best["value"], best["verdict"],
                  evidence, trials, seed, dict(base),
                  _jump(vary.values, seen, target) if best["verdict"] != PASS else None,
                  tuple(skipped), fresh)


def fresh_line(result: Tuning) -> str:
    """The fresh games' answer in one line (the table's footer under the chosen value)."""
    f = result.fresh
    c, d = f["chosen"], f["difference"]
    return (f"on {f['trials']:,} fresh games (seed {f['seed']}, none of the search's): "
            f"{result.path}={format_value(c['value'])}: {result.target.metric} {c['mc']:.4f} "
            f"({c['ci_low']:.4f} to {c['ci_high']:.4f}), {c['verdict']}; against the current "
            f"{format_value(result.current)}: {d['mc']:+.4f} ({d['ci_low']:+.4f} to "
            f"{d['ci_high']:+.4f}), paired")


def fresh_check(name: str, rs: Ruleset, base: Mapping[str, Any], path: str, current,
                chosen, target: Target, *, trials: int, seed: int, threads: int | None,
                variant: Variant) -> dict:
    """Play the current and the chosen value again on fresh games, paired.

    Returns
    -------
    dict
        ``seed`` (:func:`~sim.workflows.fresh.fresh_seed`), ``trials``, ``current`` and
        ``chosen`` (``value``, ``mc``, ``ci_low``, ``ci_high``, ``exact``, ``verdict``
        against ``target``) and
        ``difference`` (chosen minus current on the same games: ``mc``, ``ci_low``,
        ``ci_high``; exactly 0 when the current value is kept).
    """
    values = [current] if chosen == current else [current, chosen]
    fresh = fresh_seed(seed)
    variants = [dataclasses.replace(variant, label=f"{path}={format_value(x)}",
                                    edits=(*variant.edits, f"{path}={format_value(x)}"))
                for x in values]
    rows = compare(experiment(name), rs, base, variants, trials=trials, seed=fresh,
                   threads=threads, metrics=[target.metric]).rows
    sides = [{"value": x, "mc": r["mc"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
              "exact": r["exact"], "verdict": target.judge(r["mc"], r["ci_low"], r["ci_high"])}
             for x, r in zip(values, rows, strict=True)]
    last = rows[-1]
    return {"seed": fresh, "trials": trials, "current": sides[0], "chosen": sides[-1],
            "difference": {"mc": last["diff"], "ci_low": last["diff_ci_low"],
                           "ci_high": last["diff_ci_high"]}}


def screen(name: str, rs: Ruleset, base: Mapping[str, Any], vary: Vary,
           variant: Variant) -> tuple[Vary, list[dict]]:
    """The candidates that can be played, and one skipped row per candidate that cannot.

    Each candidate's edits (``variant``'s, then the candidate's) are checked as
    every edit is (:func:`sim.rules.variants.apply_edits`), and for an experiment
    with ``compile_inputs`` (``campaign``, ``combat``) its game is compiled there
    before anything runs: a map edit after which some hex cannot reach a bunker is
    refused there.

    Raises
    ------
    TuneInputError
        No candidate can be played (the first one's reason).
    """
    compile_inputs = experiment(name).compile_inputs
    kept, skipped = [], []
    for x in vary.values:
        text = f"{vary.path}={format_value(x)}"
        edits = (*variant.edits, text)
        try:
            apply_edits(rs, edits)
        except VariantError as error:
            skipped.append(_skipped(x, text, str(error), "rules"))
            continue
        try:
            if compile_inputs is not None:
                compile_inputs(cases(rs, base, [dataclasses.replace(variant, edits=edits)]))
        except InputError as error:
            skipped.append(_skipped(x, text, str(error), "compile"))
            continue
        kept.append(x)
    if not kept:
        more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
        raise TuneInputError(f"no candidate can be played: {skipped[0]['reason']}{more}",
                             "vary")
    return dataclasses.replace(vary, values=tuple(kept)), skipped


def _skipped(value, edit: str, reason: str, by: str) -> dict:
    text = reason if reason.startswith("edit ") else f"edit {edit!r}: {reason}"
    return {"value": value, "edit": edit, "reason": text, "refused_by": by}


def _refuse_tuned_cell(path: str, edits: Sequence[str]) -> None:
    """Refuse a further edit of the very cell being tuned (field ``edit``).

    Each candidate's own edit of that cell comes last and would replace the
    further one's value without a word, so the search would not be run on
    what the designer asked for.
    """
    tuned = parse_edit(f"{path}=")
    cell = (tuned.table, tuned.card, tuned.column)
    for text in edits:
        try:
            edit = parse_edit(text)
        except VariantError as error:
            raise TuneInputError(str(error), "edit") from None
        if (edit.table, edit.card, edit.column) == cell:
            raise TuneInputError(f"{text!r} edits {'.'.join(cell)}, the cell being tuned: every "
                                 "candidate sets that cell, so this edit would be dropped; "
                                 "leave it out, or tune another cell", "edit")


def _distance(value, current) -> float:
    """How far a candidate is from the current value (0 when the cell is not a number)."""
    if isinstance(current, bool) or not isinstance(current, int | float):
        return 0.0
    return abs(value - current)


def _preference(row: dict, target: Target, current, order: Mapping) -> tuple:
    """Sort key of a candidate: PASS nearest the current value first, else nearest the aim."""
    rank = _RANK[row["verdict"]]
    if rank == 0:
        return (rank, _distance(row["value"], current), abs(row["mc"] - target.aim),
                order[row["value"]])
    return (rank, 0.0, abs(row["mc"] - target.aim), order[row["value"]])


def _side(row: dict, target: Target) -> int:
    """-1 if the estimate lies wholly below the band, +1 wholly above, 0 otherwise."""
    low = row["ci_low"] if row["ci_low"] is not None else row["mc"]
    high = row["ci_high"] if row["ci_high"] is not None else row["mc"]
    if high < target.low:
        return -1
    if low > target.high:
        return 1
    return 0


def _jump(values: Sequence, seen: Mapping, target: Target) -> tuple | None:
    """The first pair of neighbouring candidates on opposite sides of the band, if any."""
    for a, b in zip(values, values[1:], strict=False):
        if a in seen and b in seen and _side(seen[a], target) * _side(seen[b], target) < 0:
            return (a, b)
    return None


def _toward_current(values: Sequence, current, seen: dict, evaluate) -> None:
    """Bisect from the passing candidate nearest ``current`` toward it, for the band's edge.

    The metric is monotone, so the ``PASS`` candidates form one run of
    neighbours: between a passing candidate and the current value there is one
    edge, found in ``O(log n)`` further evaluations (added to ``seen``).
    """
    passing = [i for i, x in enumerate(values) if x in seen and seen[x]["verdict"] == PASS]
    if not passing or isinstance(current, bool) or not isinstance(current, int | float):
        return
    goal = min(range(len(values)), key=lambda i: abs(values[i] - current))
    inside = min(passing, key=lambda i: abs(i - goal))

    def passes(i: int) -> bool:
        if values[i] not in seen:
            seen.update(evaluate([values[i]]))
        return seen[values[i]]["verdict"] == PASS

    if passes(goal):
        return
    outside = goal  # invariant: passes(inside), not passes(outside)
    while abs(outside - inside) > 1:
        mid = (inside + outside) // 2
        if passes(mid):
            inside = mid
        else:
            outside = mid


def _bisect(values: Sequence, aim: float, evaluate) -> dict:
    """Evaluate ends, then bisect for the first index whose estimate passes ``aim``.

    The metric is assumed monotone in the candidate (either direction, read
    from the ends). Returns every evaluation, keyed by value.
    """
    seen = evaluate([values[0], values[-1]])
    up = seen[values[-1]]["mc"] >= seen[values[0]]["mc"]

    def reached(i: int) -> bool:
        if values[i] not in seen:
            seen.update(evaluate([values[i]]))
        mc = seen[values[i]]["mc"]
        return mc >= aim if up else mc <= aim

    lo, hi = 0, len(values) - 1
    if reached(lo):
        hi = lo
    elif not reached(hi):
        lo = hi
    while hi - lo > 1:  # invariant: not reached(lo), reached(hi)
        mid = (lo + hi) // 2
        if reached(mid):
            hi = mid
        else:
            lo = mid
    return seen


__all__ = ["METHODS", "TuneInputError", "Tuning", "Vary", "fresh_check",
           "fresh_line", "parse_vary", "screen", "tune"]
