"""Why a paired difference: the games that changed, where they diverged, what followed.

``zonesim explain`` and ``zonesim campaign --trace --variant`` read variants in the
compare grammar (:func:`sim.workflows.compare.parse_variant` on the ``campaign``
experiment). :func:`explain` plays baseline and variant on common random numbers
(trial ``t`` of each on the streams of ``(seed, t)``), takes the games whose metric
differs, plays each of them again with a trace log (:mod:`sim.experiments.
campaign_trace`: the same game, event by event), finds the first event that
differs between the two traces (the route, a fight and with which card, an
anomaly, an event card, an Emission, or only the day count), and groups the
games into paths by that divergence and by how each game ended in the baseline
and in the variant. Each path's share is the sum of its games' paired differences
over all games, so the shares add up to the paired difference exactly; each has
its 95 % interval (the mean of a per-game variable: the game's difference when it
follows the path, else 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim import stats
from sim.campaign.compile import CampaignArrays
from sim.experiments.base import CompareInputError
from sim.experiments.campaign_metrics import CAUSE_LABELS
from sim.experiments.campaign_paired import compile_cases, trial_values
from sim.experiments.campaign_trace import Names, end_of, events_of, play_logged
from sim.experiments.registry import experiment
from sim.rules import Ruleset
from sim.rules.scenario import Scenario
from sim.workflows import compare as library

NAME = "campaign"
"""The experiment whose variants these are (whole games)."""


def variant_games(scenario: Scenario, texts: Sequence[str]) -> tuple[list[CampaignArrays],
                                                                      list[Ruleset],
                                                                      list[str]]:
    """The compiled games of ``scenario`` under each variant ``texts`` (compare grammar;
    ``""``: the scenario as it is), their rulesets and their labels.

    Raises
    ------
    CompareInputError
        A variant the compare grammar refuses, a card the ruleset lacks, or a
        multiplayer scenario (variants of whole games play one stalker).
    """
    exp = experiment(NAME)
    base = exp.from_scenario(scenario)
    variants = [library.parse_variant(text, exp) for text in texts]
    cases = library.cases(scenario.ruleset, base, variants)
    return compile_cases(cases), [case.ruleset for case in cases], [v.label for v in variants]


# --- explain ---------------------------------------------------------------------------------

KIND_WORDS = {"route": "the route", "hex": "the route", "fight": "a fight",
              "anomaly": "an anomaly", "event": "an event card", "emission": "an Emission",
              "zone": "the Zone phase", "base": "trade at a base", "idle": "a day out of play",
              "new_character": "a new character", "state": "the tracks"}
"""Each logged kind of a first difference, in the words of a path."""


def _keys(events: list[dict[str, Any]]) -> list[tuple]:
    """What two traces compare of each event: everything but its words and policy key, and
    of a seat's tracks the item cards and gear he lost or gained since his last ones (not
    what he holds: a variant's loadout differs from the start).
    """
    last: dict[int, dict[str, Any]] = {}
    out = []
    for event in events:
        fields = {k: v for k, v in event.items() if k not in ("text", "policy")}
        if event["kind"] == "state":
            before = last.get(event["seat"], event)
            last[event["seat"]] = event
            fields["items_held"] = event["items_held"] - before["items_held"]
            fields["gear"] = bin(before["gear"] & ~event["gear"]).count("1")
            fields["knocked"] = event["knockouts"] - before["knockouts"]
        out.append(tuple(fields.items()))
    return out


def divergence(base: list[dict], variant: list[dict], names: Names) -> tuple[str, int]:
    """Where two traces of one game part: the first event that differs, in words, and its
    day (-1 when the events agree to the end of the shorter one: only the day count).

    A differing encounter is named by its card (the baseline's, else the variant's): "a
    fight with the Bloodsucker"; the route names the day's kind of step only; tracks that
    differ right after the same knock-out in both (the same encounter before it) are "the
    belongings lost on a knock-out (P-37)": half of them, which, and the medkits left to use
    after it; other tracks are named by the event before them.
    """
    keys = _keys(base), _keys(variant)
    for i, (b, v) in enumerate(zip(base, variant, strict=False)):
        if keys[0][i] == keys[1][i]:
            continue
        if b["kind"] != v["kind"]:
            if "state" in (b["kind"], v["kind"]):  # tracks changed in one game only
                events = base if b["kind"] == "state" else variant
                return _tracks(events, i), b["day"]
            pair = sorted({KIND_WORDS[b["kind"]], KIND_WORDS[v["kind"]]})
            return f"{pair[0]} or {pair[1]}", b["day"]
        kind = b["kind"]
        if kind == "fight" and b["enemy"] == v["enemy"]:
            return f"a fight with the {names.enemies[b['enemy']]}", b["day"]
        if kind == "anomaly" and b["anomaly"] == v["anomaly"]:
            return f"the anomaly {names.anomalies[b['anomaly']]}", b["day"]
        if kind == "event" and b["card"] == v["card"]:
            return f"the event card {names.events[b['card']]}", b["day"]
        if kind == "emission" and b["card"] == v["card"]:
            return f"the Emission {names.emissions[b['card']]}", b["day"]
        if kind == "state":
            fields = dict(keys[0][i]), dict(keys[1][i])
            if b["knockouts"] == v["knockouts"] and fields[0]["knocked"] > 0 \
                    and fields[1]["knocked"] > 0:  # the same knock-out, other losses
                return "the belongings lost on a knock-out (P-37)", b["day"]
            return _tracks(base, i), b["day"]
        return KIND_WORDS[kind], b["day"]
    return "only the day count", -1


def _tracks(events: list[dict], i: int) -> str:
    """Tracks (event ``i``, a ``state``) that differ first: after the encounter just before
    them, or at the end of a turn or day (the day's artefacts, medkits, tokens, an Emission).
    """
    before = events[i - 1]["kind"] if i > 0 else None
    if before in ("fight", "anomaly", "event"):
        return f"the tracks after {KIND_WORDS[before]}"
    return "the tracks at the end of a turn or day (artefacts, medkits, tokens, Emission)"


TALLIES = {
    "days": "days the game lasted",
    "moving_days": "days he moved",
    "locations": "locations entered",
    "fights_lying": "fights with a card lying on the board",
    "fights_drawn": "fights with a card drawn on entering",
    "fights_sarcophagus": "fights in the Sarcophagus",
    "anomalies_lying": "anomalies lying on the board",
    "anomalies_drawn": "anomalies drawn on entering",
    "events": "event cards drawn",
    "knockouts": "knock-outs",
    "concussions": "concussions",
    "items_lost": "item cards lost on knock-outs (P-37)",
    "items_used": "item cards used",
    "emissions": "Emissions drawn",
}
"""What :func:`tally` counts in one traced game (seat 1), and its words."""


def tally(events: list[dict[str, Any]], days: int) -> dict[str, int]:
    """Seat 1's counts of one traced game (:data:`TALLIES`)."""
    out = dict.fromkeys(TALLIES, 0)
    out["days"] = days
    last = None
    for e in events:
        if e["kind"] == "emission":
            out["emissions"] += 1
        if e["seat"] != 1:
            continue
        kind = e["kind"]
        if kind == "route":
            out["moving_days"] += 1
        elif kind == "hex" and e["location"] in (1, 2, 3):  # Open, Secret, Complex
            out["locations"] += 1
        elif kind == "fight":
            out[("fights_lying", "fights_drawn", "fights_sarcophagus")[e["source"]]] += 1
        elif kind == "anomaly":
            out["anomalies_drawn" if e["source"] == 1 else "anomalies_lying"] += 1
        elif kind == "event":
            out["events"] += 1
        elif kind == "state":
            if last is not None and e["knockouts"] > last["knockouts"]:
                out["items_lost"] += max(last["items_held"] - e["items_held"]
                                         - (e["items_used"] - last["items_used"]), 0)
            last = e
    if last is not None:
        for key in ("knockouts", "concussions", "items_used"):
            out[key] = last[key]
    return out


def _ending(end: dict[str, Any], metric: str) -> str:
    """How one game ended, in the words of a path."""
    words = CAUSE_LABELS[end["cause"]].split(" (")[0]
    if metric == "game_days":
        return f"{words} on day {end['days']}"
    return words


@dataclass
class Path:
    """Games that diverged alike and ended alike (one row of :func:`explain`)."""

    what: str
    games: int = 0
    total: int = 0  # their paired differences, summed
    trials: list[int] = field(default_factory=list)


@dataclass
class Explanation:
    """A paired difference split into paths (:func:`explain`); ``followed``: what the
    changed games held on average under each (:func:`tally`).
    """

    metric: str
    trials: int
    seed: int
    labels: tuple[str, str]
    diff: float
    diff_ci_low: float
    diff_ci_high: float
    changed: int
    paths: list[dict[str, Any]]
    followed: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: ``diff``, ``diff_ci_low``, ``diff_ci_high``, ``paths``."""
        return {"metric": self.metric, "trials": self.trials, "seed": self.seed,
                "baseline": self.labels[0], "variant": self.labels[1], "diff": self.diff,
                "diff_ci_low": self.diff_ci_low, "diff_ci_high": self.diff_ci_high,
                "games_changed": self.changed, "paths": self.paths,
                "changed_games_per_game": self.followed}


METRICS = ("p_sarcophagus", "p_reach_sarcophagus", "p_final_emission", "game_days")
"""The per-game metrics a path decomposition reads (one game's value each)."""


def explain(scenario: Scenario, variant: str, baseline: str = "", *, metric: str = METRICS[0],
            trials: int, seed: int, threads: int | None = None,
            top: int = 12) -> Explanation:
    """Split the paired difference of ``metric`` (variant minus baseline) into paths.

    Parameters
    ----------
    scenario : Scenario
        A one-stalker scenario.
    variant, baseline : str
        Variants in the compare grammar (``""``: the scenario as it is).
    metric : str
        One of :data:`METRICS`.
    trials, seed, threads :
        As every command; games ``0 .. trials - 1`` of each (common random numbers).
    top : int
        Paths listed by name, largest first (by absolute share); the others are
        summed into one last path "other paths", so the shares still add up.
    """
    compiled, rulesets, labels = variant_games(scenario, [baseline, variant])
    return explain_games(compiled, rulesets, (labels[0], labels[1]), metric=metric,
                         trials=trials, seed=seed, threads=threads, top=top)


def explain_games(compiled: Sequence[CampaignArrays], rulesets: Sequence[Ruleset],
                  labels: tuple[str, str], *, metric: str = METRICS[0], trials: int, seed: int,
                  threads: int | None = None, top: int = 12) -> Explanation:
    """:func:`explain` of two compiled one-stalker games (baseline first), named ``labels``:
    the report against a baseline explains its two scenarios' win rates so.
    """
    if metric not in METRICS:
        raise CompareInputError(f"metric {metric!r}: explain reads one of {', '.join(METRICS)}")
    if trials < 1:
        raise CompareInputError("trials must be >= 1")
    values = [trial_values(c, [metric], seed=seed, first=0, trials=trials,
                           threads=threads)[:, 0] for c in compiled]
    d = values[1] - values[0]
    total, total_sq = float(d.sum()), float((d * d).sum())
    mean, low, high = stats.mean_interval(total, total_sq, trials)
    names = [Names.of(rs, arrays) for rs, arrays in zip(rulesets, compiled, strict=True)]
    paths: dict[str, Path] = {}
    tallies = [dict.fromkeys(TALLIES, 0), dict.fromkeys(TALLIES, 0)]
    for t in np.flatnonzero(d):
        t = int(t)
        traced = []
        for c, n in zip(compiled, names, strict=True):
            row, log = play_logged(c, seed=seed, game=t)
            traced.append((end_of(row), events_of(c, n, log)))
        where, day = divergence(traced[0][1], traced[1][1], names[0])
        when = "" if day < 0 else f" (day {day})" if day <= 1 else " (day 2 or later)"
        counts = [tally(events, end["days"]) for end, events in traced]
        for side, c in enumerate(counts):
            for key, value in c.items():
                tallies[side][key] += value
        downs = [c["knockouts"] + c["concussions"] for c in counts]
        followed = ("knocked out or concussed more often" if downs[1] > downs[0] else
                    "knocked out or concussed less often" if downs[1] < downs[0] else
                    "knocked out or concussed as often")
        what = (f"{where}{when}; then the variant {followed}; baseline: "
                f"{_ending(traced[0][0], metric)}, variant: {_ending(traced[1][0], metric)}")
        path = paths.setdefault(what, Path(what))
        path.games += 1
        path.total += int(d[t])
        path.trials.append(t)
    ranked = sorted(paths.values(), key=lambda p: (-abs(p.total), -p.games, p.what))
    if len(ranked) > top:
        rest = Path("other paths")
        for p in ranked[top - 1:]:
            rest.games += p.games
            rest.total += p.total
            rest.trials += p.trials
        ranked = [*ranked[:top - 1], rest]
    rows = []
    for p in ranked:
        x = d[p.trials]  # the path's games; every other game adds 0 to its share
        share, s_low, s_high = stats.mean_interval(float(x.sum()), float((x * x).sum()), trials)
        rows.append({"what": p.what, "games": p.games, "share": share, "share_ci_low": s_low,
                     "share_ci_high": s_high, "example_game": p.trials[0]})
    changed = int(np.count_nonzero(d))
    per_game = [{"what": TALLIES[key], "key": key,
                 "baseline": tallies[0][key] / max(changed, 1),
                 "variant": tallies[1][key] / max(changed, 1),
                 "diff": (tallies[1][key] - tallies[0][key]) / max(changed, 1)}
                for key in TALLIES]
    return Explanation(metric, trials, seed, (labels[0], labels[1]), mean, low, high,
                       changed, rows, per_game)
