"""One naming scheme for metrics, and the older names still read (issue 15, section 4).

A campaign metric is named by its path in ``zonesim campaign``'s JSON, with
dots between the levels: ``p_sarcophagus``, ``knockouts``, ``days.median``
(``data["days"]["median"]``), ``causes.final_emission`` (the ``causes`` entry
of that cause). Sweep columns, report tables, targets and ``compare`` use
these names; the sweep columns' earlier names (``days_median``,
``death_final_emission``) are read as aliases, so older target files and
commands keep working. Encounter metrics (``knocked_out``, ``days_lost``)
have one level and keep their names.
"""

from __future__ import annotations

DAY_STATS = ("mean", "median", "p10", "p90")
"""Statistics of the days to the Sarcophagus: ``days.mean`` ... ``days.p90``."""

_OLD_PREFIXES = {"death_": "causes."}


def canonical_metric(name: str) -> str:
    """The metric's name in the one scheme: ``days_median`` -> ``days.median``,
    ``death_<cause>`` -> ``causes.<cause>``; every other name is returned as is.
    """
    for stat in DAY_STATS:
        if name == f"days_{stat}":
            return f"days.{stat}"
    for old, new in _OLD_PREFIXES.items():
        if name.startswith(old):
            return new + name.removeprefix(old)
    return name


__all__ = ["DAY_STATS", "canonical_metric"]
