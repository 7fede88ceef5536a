"""Balance targets: ``metric op range``, judged against an estimate and its interval.

A designer writes what a number should be, e.g. ``knocked_out <= 0.25``,
``p_sarcophagus in 0.35..0.55`` or ``days.median in 18..24``, and every
result row with that metric gets a verdict:

- ``PASS``: the whole 95 % interval lies inside the target range;
- ``FAIL``: the whole interval lies outside it;
- ``UNDECIDED``: the interval straddles a bound (more trials would tell).

Judging is a function of ``(value, ci_low, ci_high)`` only, so it works on any
result row (encounter rows now, campaign rows later). Targets come from a
list of strings or from the ``[targets]`` table of a TOML file, whose entries
are ``metric = [low, high]`` (``-inf``/``inf`` for an open side) or the same
text as on the command line (``knocked_out = "<= 0.25"``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sim.errors import InputError
from sim.experiments.base import Metric
from sim.experiments.naming import canonical_metric
from sim.rules.files import decode, parse_toml, read_regular

PASS = "PASS"
FAIL = "FAIL"
UNDECIDED = "UNDECIDED"
VERDICTS = (PASS, FAIL, UNDECIDED)

_NUMBER = r"[+-]?(?:inf|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
_METRIC = r"[A-Za-z_][\w.]*"
_COMPARE = re.compile(rf"^\s*({_METRIC})\s*(<=|>=|==|<|>)\s*({_NUMBER})\s*$")
_RANGE = re.compile(rf"^\s*({_METRIC})\s+in\s+[\[(]?\s*({_NUMBER})\s*(?:\.\.|,)\s*({_NUMBER})"
                    rf"\s*[\])]?\s*$")


class TargetError(InputError):
    """A target that cannot be parsed."""


@dataclass(frozen=True)
class Target:
    """A range a metric should fall in.

    Attributes
    ----------
    metric : str
        Metric name as in the result rows (``knocked_out``, ``days.median``).
    low, high : float
        Bounds; ``-inf``/``inf`` for an open side.
    low_strict, high_strict : bool
        Whether the bound itself is excluded (``>``, ``<``).
    text : str
        The target as written, for reports.
    """

    metric: str
    low: float = -math.inf
    high: float = math.inf
    low_strict: bool = False
    high_strict: bool = False
    text: str = ""

    def __post_init__(self) -> None:
        if math.isnan(self.low) or math.isnan(self.high) or self.low > self.high:
            raise TargetError(f"target {self.text or self.metric!r}: empty range "
                              f"{self.low}..{self.high}")

    def _above_low(self, x: float) -> bool:
        return x > self.low if self.low_strict else x >= self.low

    def _below_high(self, x: float) -> bool:
        return x < self.high if self.high_strict else x <= self.high

    def contains(self, x: float) -> bool:
        """Whether the value ``x`` meets the target."""
        return self._above_low(x) and self._below_high(x)

    def judge(self, value: float, ci_low: float | None = None,
              ci_high: float | None = None) -> str:
        """``PASS``, ``FAIL`` or ``UNDECIDED`` for an estimate and its interval.

        Without an interval (``ci_low``/``ci_high`` None, e.g. an exact value)
        the value alone decides: PASS or FAIL.
        """
        lo = value if ci_low is None else ci_low
        hi = value if ci_high is None else ci_high
        if self._above_low(lo) and self._below_high(hi):
            return PASS
        if not self._above_low(hi) or not self._below_high(lo):
            return FAIL
        return UNDECIDED

    @property
    def aim(self) -> float:
        """The point to aim at: the middle of a closed range, else its finite bound."""
        if math.isfinite(self.low) and math.isfinite(self.high):
            return (self.low + self.high) / 2.0
        if math.isfinite(self.low):
            return self.low
        if math.isfinite(self.high):
            return self.high
        return 0.0

    def __str__(self) -> str:
        return self.text or f"{self.metric} in {self.low}..{self.high}"


def judge(target: Target, value: float, ci_low: float | None = None,
          ci_high: float | None = None) -> str:
    """Verdict of ``target`` on ``(value, ci_low, ci_high)``; see :meth:`Target.judge`."""
    return target.judge(value, ci_low, ci_high)


def parse_target(text: str) -> Target:
    """Parse ``metric <= x``, ``< x``, ``>= x``, ``> x``, ``== x`` or ``metric in a..b``.

    The metric is named in the one scheme; an older name (``days_median``) is
    read as the name now (``days.median``, :func:`~sim.experiments.registry.canonical_metric`).

    Raises
    ------
    TargetError
        If the text is not of one of these forms or the range is empty.
    """
    if m := _RANGE.match(text):
        return Target(canonical_metric(m.group(1)), float(m.group(2)), float(m.group(3)),
                      text=text.strip())
    if m := _COMPARE.match(text):
        metric, op, x = canonical_metric(m.group(1)), m.group(2), float(m.group(3))
        if op in ("<=", "<"):
            return Target(metric, high=x, high_strict=op == "<", text=text.strip())
        if op in (">=", ">"):
            return Target(metric, low=x, low_strict=op == ">", text=text.strip())
        return Target(metric, x, x, text=text.strip())
    raise TargetError(f"target {text!r}: expected 'metric op value' with op one of "
                      "<=, <, >=, >, ==, or 'metric in low..high' "
                      "(e.g. 'knocked_out <= 0.25', 'knocked_out in 0.2..0.3')")


def metric_range(metric: Metric) -> tuple[float, float]:
    """The values a metric can take: ``(0, 1)`` for a proportion, ``(-1, 1)`` for a
    difference of two shares (a multiplayer game's first-seat advantage), ``(0, inf)`` for a
    mean.

    Every mean an experiment declares is a count per trial or game (wounds, days, rubles,
    draws), never below 0.
    """
    return {"proportion": (0.0, 1.0), "difference": (-1.0, 1.0)}.get(metric.kind,
                                                                     (0.0, math.inf))


def out_of_range(target: Target, metric: Metric) -> str | None:
    """Why a finite bound of ``target`` lies outside ``metric``'s values; None if none does.

    ``p_sarcophagus >= 1.5`` can never pass and ``knockouts <= -1`` never either: a bound
    outside :func:`metric_range` is a mistake (a percentage for a proportion, a sign),
    never a target.
    """
    low, high = metric_range(metric)
    bad = [b for b in (target.low, target.high) if math.isfinite(b) and not low <= b <= high]
    if not bad:
        return None
    kind = ("a count, never below 0" if not math.isfinite(high) else "a proportion"
            if low == 0 else "a difference of two shares")
    values = f"{low:g}..{high:g}" if math.isfinite(high) else f">= {low:g}"
    return f"the bound {bad[0]:g} is outside the values {target.metric} can take ({kind}: {values})"


def checked(target: Target, metric: Metric | None) -> Target:
    """``target``, or a :class:`TargetError` if a bound is :func:`out_of_range` of ``metric``.

    ``metric`` is the declaration of the target's metric (None: not known here, not checked).
    """
    why = None if metric is None else out_of_range(target, metric)
    if why is not None:
        raise TargetError(f"target {str(target)!r}: {why}")
    return target


def parse_targets(texts: Iterable[str]) -> tuple[Target, ...]:
    """Parse several targets (see :func:`parse_target`)."""
    return tuple(parse_target(t) for t in texts)


def _flatten(table: Mapping, prefix: str = "") -> dict:
    """TOML dotted keys (``days.median = ...``) nest tables; join them back with dots."""
    out = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def targets_from_table(table: Mapping) -> tuple[Target, ...]:
    """Targets from a parsed ``[targets]`` table: ``metric = [low, high]`` or ``"op value"``.

    Raises
    ------
    TargetError
        An entry that is neither a two-number list nor a target text.
    """
    out = []
    for metric, value in _flatten(table).items():
        if isinstance(value, str):
            out.append(parse_target(f"{metric} {value}"))
            continue
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(x, int | float) and not isinstance(x, bool)
                           for x in value)):
            raise TargetError(f"target {metric!r}: expected [low, high] (numbers; -inf/inf "
                              f"for an open side) or a text like \"<= 0.25\", got {value!r}")
        low, high = float(value[0]), float(value[1])
        out.append(Target(canonical_metric(metric), low, high,
                          text=f"{metric} in {value[0]}..{value[1]}"))
    return tuple(out)


def load_targets(path: str | Path) -> tuple[Target, ...]:
    """Targets from the ``[targets]`` table of a TOML file.

    Raises
    ------
    TargetError
        If the file cannot be read or parsed, has no ``[targets]`` table, or
        an entry is invalid; the message names the file.
    """
    raw, message = read_regular(path)
    text, line, decode_message = decode(raw) if raw is not None else (None, None, message)
    if text is None:
        where = f"{path}:{line}" if line else f"{path}"
        raise TargetError(f"{where}: {decode_message}")
    data, line, message = parse_toml(text)
    if message is not None:
        raise TargetError(f"{path}:{line}: {message}" if line else f"{path}: {message}")
    table = data.get("targets")
    if not isinstance(table, Mapping):
        raise TargetError(f"{path}: no [targets] table")
    try:
        return targets_from_table(table)
    except TargetError as error:
        raise TargetError(f"{path}: {error}") from None


def judge_rows(targets: Iterable[Target], rows: Iterable[dict], *,
               metric: str = "metric", value: str = "mc") -> list[dict]:
    """Copies of tidy result rows with a ``target`` and a ``target_verdict`` key.

    Rows whose metric has no target get None for both. Each row needs the keys
    ``metric``, ``value`` (default ``mc``), ``ci_low`` and ``ci_high``.
    """
    by_metric = {t.metric: t for t in targets}
    out = []
    for row in rows:
        t = by_metric.get(row[metric])
        verdict = None if t is None else t.judge(row[value], row.get("ci_low"),
                                                 row.get("ci_high"))
        out.append({**row, "target": None if t is None else str(t), "target_verdict": verdict})
    return out


__all__ = ["FAIL", "PASS", "UNDECIDED", "VERDICTS", "Target", "TargetError", "checked", "judge",
           "judge_rows", "load_targets", "metric_range", "out_of_range", "parse_target",
           "parse_targets", "targets_from_table"]
