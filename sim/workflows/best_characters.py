"""Every character under his own best play: ``zonesim optimize SCENARIO --stalker all``.

Each stalker card of the ruleset plays his own best policy and loadout (within his starting
money, the scenario's kit his starting kit: :class:`sim.workflows.policy_space.Purse`),
found by :func:`sim.workflows.optimize.optimize` on the same seed (so every character's
fresh games are the same trials of the same streams). The spread between the best and
the worst character is given under best play and under the scenario's policy, each with
the half-widths of the two estimates' 95 % intervals added (a conservative interval: the
two estimates come from different searches), as the report's outliers give the spread of
the characters (issue 26).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from sim.rules.scenario import Scenario
from sim.workflows.optimize import Optimization, most_games, optimize

ESTIMATES = {"best": "winner_estimate", "scenario": "scenario_estimate",
             "naive": "naive_estimate"}
"""The spreads given, and the fresh estimate each one is taken from."""
RUNG_SHARE = 1000
"""A race's first rung plays ``budget // RUNG_SHARE`` games per candidate."""


def search_budget(budget: int, fresh_trials: int) -> dict:
    """The search's options for ``budget`` games of selection and ``fresh_trials`` fresh games.

    A race's first rung plays ``budget // RUNG_SHARE`` games per candidate (at least 1), so
    a smaller budget plays every race on fewer games rather than fewer races.
    """
    budget = max(1, int(budget))
    return {"budget": budget, "trials": max(1, budget // RUNG_SHARE),
            "fresh_trials": max(1, int(fresh_trials))}


@dataclass(frozen=True)
class Characters:
    """Result of :func:`best_characters`: one :class:`Optimization` per stalker card."""

    results: tuple[Optimization, ...]

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C stopped the last search (the characters after it were not run)."""
        return bool(self.results) and self.results[-1].stopped == "interrupted"

    @property
    def finished(self) -> tuple[Optimization, ...]:
        """The searches that were re-evaluated."""
        return tuple(r for r in self.results if r.reevaluation is not None)

    def spread(self, which: str) -> dict | None:
        """The best minus the worst character's estimate under ``which`` policy.

        ``which`` is one of :data:`ESTIMATES`; the interval adds the half-widths of both
        estimates' intervals. None with fewer than two finished characters.
        """
        if len(self.finished) < 2:
            return None
        cells = {r.stalker: r.reevaluation[ESTIMATES[which]] for r in self.finished}
        top = max(cells, key=lambda s: cells[s]["mc"])
        low = min(cells, key=lambda s: cells[s]["mc"])
        half = sum((cells[s]["ci_high"] - cells[s]["ci_low"]) / 2 for s in (top, low))
        diff = cells[top]["mc"] - cells[low]["mc"]
        return {"policy": which, "best_character": top, "worst_character": low,
                "spread": diff, "ci_low": diff - half, "ci_high": diff + half}

    def rows(self) -> list[dict]:
        """One row per character: his best policy and the fresh estimates.

        Then the search's budget, and with a replicate (:func:`~sim.workflows.optimize.
        optimize`'s ``replicate``) the second search's best and its paired difference to the
        best (``second_search_*``; None without one): how far each figure is from converged.
        """
        out = []
        for r in self.finished:
            fresh = r.reevaluation
            again = fresh.get("replicate") or {}
            out.append({"stalker": r.stalker, "best_policy": r.winner.label,
                        **{f"{k}_{part}": fresh[v][part] for k, v in ESTIMATES.items()
                           for part in ("mc", "ci_low", "ci_high")},
                        **{f"vs_scenario_{k}": x for k, x in fresh["vs_scenario"].items()},
                        **{f"skill_gap_{k}": x for k, x in fresh["skill_gap"].items()},
                        "budget": r.budget, "second_search_policy": again.get("winner"),
                        **{f"second_search_{k}": again.get("vs_winner", {}).get(k)
                           for k in ("diff", "diff_ci_low", "diff_ci_high")}})
        return out

    def to_frame(self) -> pd.DataFrame:
        """:meth:`rows` as a frame."""
        return pd.DataFrame(self.rows())

    def table_rows(self) -> list[dict]:
        """:meth:`rows` in words: each fresh estimate with its 95 % interval, the gaps paired."""
        return [{"stalker": r["stalker"], "best": _cell(r, "best"),
                 "scenario's policy": _cell(r, "scenario"), "naive": _cell(r, "naive"),
                 "best - scenario's": _diff(r, "vs_scenario"),
                 "skill gap": _diff(r, "skill_gap"), "best policy": r["best_policy"],
                 **({} if r["second_search_policy"] is None else
                    {"second search": "same policy" if r["second_search_policy"]
                     == r["best_policy"] else _diff(r, "second_search")})}
                for r in self.rows()]

    def spread_lines(self) -> list[str]:
        """The spread between characters under each policy of :data:`ESTIMATES`, in words."""
        return [f"spread ({s['policy']}): {s['best_character']} minus {s['worst_character']} "
                f"{s['spread']:.4f} ({s['ci_low']:.4f} to {s['ci_high']:.4f})"
                for s in map(self.spread, ESTIMATES) if s is not None]

    def to_dict(self) -> dict:
        """JSON document: each character's search, and the spreads."""
        return {"characters": [r.to_dict() for r in self.results],
                "spreads": [self.spread(w) for w in ESTIMATES]}


def _cell(row: dict, name: str) -> str:
    return f"{row[f'{name}_mc']:.4f} ({row[f'{name}_ci_low']:.4f}-{row[f'{name}_ci_high']:.4f})"


def _diff(row: dict, name: str) -> str:
    return (f"{row[f'{name}_diff']:+.4f} ({row[f'{name}_diff_ci_low']:+.4f} to "
            f"{row[f'{name}_diff_ci_high']:+.4f})")


def characters_games(scenario: Scenario, budget: int, fresh_trials: int,
                     replicate: bool = False) -> int:
    """The most games :func:`best_characters` plays over every stalker card (a progress bar)."""
    return len(scenario.ruleset.stalkers) * most_games(budget, fresh_trials, replicate)


def best_characters(scenario: Scenario, stalkers: Sequence[str] | None = None,
                    known: Mapping[str, Optimization] | None = None,
                    **options) -> Characters:
    """:func:`~sim.workflows.optimize.optimize` for each stalker card (default: all).

    ``options`` are those of :func:`~sim.workflows.optimize.optimize`, the same for every
    character (seed included). ``known``: searches already run, by stalker card, reused
    instead of searching him again (one best-play figure per stalker, issue 46 item 3; its
    budget is in its row).
    """
    names = list(scenario.ruleset.stalkers) if stalkers is None else list(stalkers)
    known = known or {}
    results = []
    for name in names:
        results.append(known[name] if name in known else
                       optimize(scenario, stalker=name, **options))
        if results[-1].stopped == "interrupted":  # Ctrl-C: the characters after it are not run
            break
    return Characters(tuple(results))


__all__ = ["ESTIMATES", "RUNG_SHARE", "Characters", "best_characters", "characters_games",
           "search_budget"]
