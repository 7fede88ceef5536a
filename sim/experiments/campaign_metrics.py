"""The campaign's metrics, declared once: names, kinds, the better direction and labels.

A module of plain data (no numpy, numba or pandas), so that the report's words
(:mod:`sim.report.labels`) and its list of target metrics read the same
declaration as the campaign experiment (:mod:`sim.experiments.campaign`),
which adds the kernel columns each counted mean is summed in.
"""

from __future__ import annotations

from collections.abc import Mapping

from sim.experiments.naming import DAY_STATS

IN_SARCOPHAGUS = ("knocked_out_in_sarcophagus", "concussion_in_sarcophagus")
"""The deaths in the Sarcophagus, dealt by what waits there (P-50; the report names it)."""
ENDS = ("reached", *IN_SARCOPHAGUS, "fifth_deformation", "knockout_and_concussion",
        "final_emission", "capped")
"""How a game ends, in kernel order (:mod:`sim.kernels.campaign`)."""

DEATHS = ENDS[1:6]

CAUSE_LABELS = {
    "reached": "won (reached and survived the Sarcophagus)",
    "knocked_out_in_sarcophagus": "knocked out in the Sarcophagus",
    "concussion_in_sarcophagus": "concussed in the Sarcophagus",
    "fifth_deformation": "killed by a fifth Deformation",
    "knockout_and_concussion": "knocked out and concussed at once",
    "final_emission": "caught by the Final Emission",
    "capped": "still in the Zone after the last simulated day",
}
"""How a game ends (:data:`ENDS`), in words."""

WIN_RATE = "p_sarcophagus"
"""The win rate's metric name (reach and survive the Sarcophagus): every caller that means
the win rate (the report's headline and verdict, readings, the artefact table) reads it
here, where :data:`METRICS` declares it."""

REACH = "p_reach_sarcophagus"
"""Reached the Sarcophagus, survived it or not (P-50)."""
SURVIVE = "p_survive"
"""Won, or still in the Zone at the day cap (not lost)."""
SURVIVE_SARCOPHAGUS = "p_survive_sarcophagus"
"""Survived the Sarcophagus among the games that reached it (P-50): the win rate is
P(reach) x this. A share of the games that reached, not of all games, so not a per-game
metric of :data:`METRICS` (like the days to win); the Sarcophagus deck it depends on is an
assumption (``sarcophagus.csv``; ``zonesim readings`` plays every other enemy card there)."""
FINAL_EMISSION = "p_final_emission"
"""Caught by the Final Emission (P-49)."""
CAPPED = "p_capped"
"""Still in the Zone after the last simulated day."""
GAME_DAYS = "game_days"
"""The day a game ended, over all games."""

TROPHIES_FOUND = "trophies_found"
"""Trophy cards taken: an enemy's when killed (P-19), an anomaly's when kept (P-34; the
Ecologists exchange these for artefacts, ``exchanges``)."""
TROPHIES_SOLD = "trophies_sold"
"""Enemy trophies sold: mutant and animal trophies to Duty for rubles (P-26, P-28), stalker
trophies to Freedom for Gear (P-27)."""
TROPHY_RUBLES = "trophy_rubles"
"""Rubles from the trophies sold (P-26, P-28)."""
ARTIFACTS_SOLD = "artifacts_sold"
"""Artefacts sold at a base, those found or exchanged and not kept (P-11)."""
ARTIFACT_RUBLES = "artifact_rubles"
"""Rubles from the artefacts sold (P-11)."""
RUBLES_SPENT = "rubles_spent"
"""Rubles paid for items, gear, armour (less the old armour's trade-in; P-13) and healing
(P-37, P-40): a character's money at the end is his start's, plus both sales, less this."""
ECONOMY = (TROPHIES_FOUND, TROPHIES_SOLD, TROPHY_RUBLES, ARTIFACTS_SOLD, ARTIFACT_RUBLES,
           RUBLES_SPENT)
"""The economy's per-game counters (issue 46, item 6), in the kernel's order: what a game
finds, sells and earns, and spends (:func:`economy_lines`)."""

METRICS: tuple[tuple[str, str, str | None, str], ...] = (
    (WIN_RATE, "proportion", "higher", "win (reach and survive the Sarcophagus)"),
    (REACH, "proportion", "higher", "reach the Sarcophagus (survive it or not)"),
    (SURVIVE, "proportion", "higher", "survive (win, or still in the Zone at the day cap)"),
    (FINAL_EMISSION, "proportion", "lower", "caught by the Final Emission"),
    (CAPPED, "proportion", None, "still in the Zone at the day cap"),
    *((f"causes.{c}", "proportion", "lower", CAUSE_LABELS[c]) for c in DEATHS),
    (GAME_DAYS, "mean", None, "days a game lasts"),
    ("knockouts", "mean", "lower", "knock-outs per game"),
    ("concussions", "mean", "lower", "concussions per game"),
    ("deformations", "mean", "lower", "deformations per game"),
    ("emissions", "mean", "lower", "Emissions per game"),
    ("emissions_suffered", "mean", "lower", "Emissions suffered per game"),
    ("items_used", "mean", None, "items used per game"),
    ("fights", "mean", None, "fights per game"),
    ("kills", "mean", None, "enemies killed per game"),
    ("anomalies_entered", "mean", None, "anomalies entered per game"),
    ("artifacts_found", "mean", "higher", "artefacts found per game"),
    ("events", "mean", None, "events per game"),
    ("complexes_explored", "mean", "higher", "Secret Complexes explored per game"),
    ("rubles_at_end", "mean", "higher", "rubles left at the end"),
    ("artifacts_used", "mean", None, "artefact uses per game"),
    ("side_effects", "mean", "lower", "artefact side effects per game"),
    ("exchanges", "mean", None, "artefacts bought with anomaly trophies per game"),
    ("clues", "mean", None, "clue tokens held at the end"),
    ("zone_tokens", "mean", None, "Zone tokens held at the end"),
    ("clues_lost", "mean", "lower", "clue tokens lost to radiation mutations per game"),
    ("zone_lost", "mean", "lower", "Zone tokens lost to concussions per game"),
    (TROPHIES_FOUND, "mean", None, "trophies taken per game (enemies killed, anomaly cards kept)"),
    (TROPHIES_SOLD, "mean", None, "enemy trophies sold per game (to Duty, or Freedom for Gear)"),
    (TROPHY_RUBLES, "mean", None, "rubles from trophies sold per game"),
    (ARTIFACTS_SOLD, "mean", None, "artefacts sold per game"),
    (ARTIFACT_RUBLES, "mean", None, "rubles from artefacts sold per game"),
    (RUBLES_SPENT, "mean", None, "rubles spent per game (items, gear, armour, healing)"),
)
"""Every per-game campaign metric, declared once: ``(name, kind, better, label)``.

``name`` is its path in ``zonesim campaign``'s JSON (:mod:`sim.experiments.naming`);
``kind`` ``proportion`` (a 0/1 outcome per game, Wilson interval) or ``mean`` (a
count per game, normal interval); ``better`` ``higher``/``lower``/None (the
stalker's view, for verdicts); ``label`` the plain words every output shows
(compare, sweep, tune, levers, targets, the campaign table and the report).
``p_sarcophagus`` is a win: the stalker reached the Sarcophagus and survived
what waits there (P-50); ``p_reach_sarcophagus`` counts every game that got
there, whatever happened inside (its complement splits into the deaths
before it, the Final Emission and the day cap). ``p_final_emission`` and
``causes.final_emission`` are the same share under its two names."""

SEAT_WIN = "seat_win"
"""One seat of a multiplayer game won it (P-45; the cooperative team's win counts for each)."""
SEAT_DEATHS = "seat_deaths"
"""One seat's deaths in a multiplayer game (P-44: each one a new character or the seat out)."""

SEAT_METRICS: tuple[tuple[str, str, str | None, str], ...] = (
    (SEAT_WIN, "proportion", "higher", "the seat wins the game"),
    (SEAT_DEATHS, "mean", "lower", "the seat's deaths per game"),
)
"""The per-game metrics of one seat of a multiplayer game, declared like :data:`METRICS`
(``zonesim optimize --seat``): the one-stalker columns are the first seat's, so another
seat has its win and its deaths."""

NOBODY_WINS = "p_nobody_wins"
"""Nobody won a multiplayer game (P-45: the Final Emission took everyone, no stalker was
left, or the day cap came first)."""
FIRST_SEAT = "first_seat_advantage"
"""A multiplayer game's first-seat advantage: seat 1's win minus the mean of the other seats'
wins, per game (above 0: the first seat wins more often than the others; P-45)."""
TEAM_WINS = "p_team_wins"
"""The team won a cooperative multiplayer game (P-45): the complement of
:data:`NOBODY_WINS` there."""
GAME_SHARES = (NOBODY_WINS, FINAL_EMISSION, CAPPED)
"""A multiplayer game's shares, in the order its JSON writes them
(:meth:`sim.experiments.campaign_players.PlayersResult.to_dict`): nobody wins, the Final
Emission takes everyone (P-49), still in the Zone at the day cap."""
EMISSIONS_DRAWN = "emissions_drawn"
"""Emission cards drawn in a multiplayer game (a per-game mean)."""

CHARACTER_SPREAD = "character_spread"
"""The best minus the worst character's win rate, every stalker card playing the scenario's
loadout and policy with his own card's money, on the same games (as ``zonesim balance
characters`` measures it)."""
SEAT_SPREAD = "seat_spread"
"""The best minus the worst seat's win rate of a multiplayer game (P-45)."""

BALANCE_METRICS: tuple[tuple[str, str, str | None, str], ...] = (
    (CHARACTER_SPREAD, "proportion", "lower",
     "best minus worst character's win rate (the scenario's loadout and policy)"),
    (SEAT_SPREAD, "proportion", "lower", "best minus worst seat's win rate"),
    (NOBODY_WINS, "proportion", "lower", "nobody wins the game"),
)
MULTIPLAYER_LABELS = {FIRST_SEAT: "seat 1's win minus the other seats' mean win",
                      TEAM_WINS: "the team wins the game (cooperative)"}
"""The per-game metrics of a whole multiplayer game that no other list declares, in words
(the ``multiplayer`` experiment, :mod:`sim.experiments.campaign_multi`)."""
"""The balance metrics of a scenario, declared like :data:`METRICS` beside them: each
compares games of several characters or seats, so none is a per-game metric of one
stalker. ``zonesim rebalance`` takes targets on them; ``seat_spread`` and
``p_nobody_wins`` need a multiplayer scenario."""
MULTIPLAYER_ONLY = (SEAT_SPREAD, NOBODY_WINS)
"""The balance metrics only a multiplayer scenario has."""

DAYS_MEAN = "days.mean"
DAYS_MEDIAN = "days.median"
CONDITIONAL_LABELS = {SURVIVE_SARCOPHAGUS: "survive the Sarcophagus, among the games that "
                                           "get there"}
"""The shares of a part of the games (not per-game metrics), in words."""
DAY_LABELS = {DAYS_MEAN: "days to win, mean", DAYS_MEDIAN: "days to win, median",
              "days.p10": "days to win, 10th percentile",
              "days.p90": "days to win, 90th percentile"}
"""The days to the Sarcophagus among the games that won (not per-game metrics)."""

QUANTILES = {"median": 0.5, "p10": 0.1, "p90": 0.9}
"""The day statistics (:data:`sim.experiments.naming.DAY_STATS`) that are quantiles, and
theirs: each with its order-statistic interval (:func:`sim.stats.histogram_quantile`)."""

LABELS: Mapping[str, str] = {**{m[0]: m[3] for m in (*METRICS, *SEAT_METRICS,
                                                     *BALANCE_METRICS)},
                             **MULTIPLAYER_LABELS, **CONDITIONAL_LABELS, **DAY_LABELS}
"""Plain label of every campaign metric name, from :data:`METRICS`, :data:`SEAT_METRICS`,
:data:`BALANCE_METRICS`, :data:`MULTIPLAYER_LABELS`, :data:`CONDITIONAL_LABELS` and
:data:`DAY_LABELS`."""


def label(name: str) -> str:
    """The plain label of a campaign metric name (underscores as spaces if unknown)."""
    return LABELS.get(name, name.replace("_", " "))


SAME_REASONS = {SURVIVE: "no game lasted to the day cap",
                f"causes.{ENDS[5]}": "the same share, its other name"}
"""Why a metric equals another in every game of a run (``same_as`` of ``zonesim campaign``'s
JSON): the words a table writes beside the one row it keeps."""


def same_notes(same: Mapping[str, str]) -> dict[str, str]:
    """Per metric kept, the words naming those equal to it: ``{"p_sarcophagus": "also
    p_survive (no game lasted to the day cap)"}``, from ``same`` (a metric -> the one it
    equals in every game of the run, :meth:`sim.experiments.campaign.CampaignResult.same_as`).
    """
    notes: dict[str, list[str]] = {}
    for metric, kept in same.items():
        notes.setdefault(kept, []).append(
            f"also {metric} ({SAME_REASONS.get(metric, 'equal in every game')})")
    return {kept: "; ".join(words) for kept, words in notes.items()}


def fold_same(rows: list[dict], same: Mapping[str, str], *, name: str = "metric",
              text: str = "what") -> list[dict]:
    """The rows of a table with each metric that equals another shown once (issue 46, item 6).

    The row of each metric of ``same`` is left out and the ``text`` cell of
    the one it equals says so (:func:`same_notes`): ``win (...); also p_survive
    (no game lasted to the day cap)``. ``name`` is the column of each row's metric.
    """
    notes = same_notes(same)
    return [{**row, text: f"{row[text]}; {notes[row[name]]}"} if row[name] in notes else row
            for row in rows if row[name] not in same]


def in_words(rows: list[dict], cells: tuple[str, ...] = ("mc", "ci_low", "ci_high")
             ) -> list[dict]:
    """The rows of a table as a designer reads them (issue 47, item 4): each ``cells`` value
    of a share (a ``proportion`` of :data:`METRICS`: the win rate, the reach, a cause) as a
    percentage, ``36.9 %``; of any other number with three decimals, ``14.526``; a missing
    one as ``-``. The JSON and CSV keep the numbers; ``metric`` names each row's metric.
    """
    kinds = {m[0]: m[1] for m in METRICS}

    def text(value, share: bool) -> str:
        if value is None or value != value:  # None or NaN
            return "-"
        return f"{100 * value:.1f} %" if share else f"{value:.3f}"

    return [{**row, **{c: text(row[c], kinds.get(row["metric"]) == "proportion")
                       for c in cells}} for row in rows]


HARDLY = 0.01
"""A part of the economy hardly acts when the upper end of the 95 % interval of what it
sells per game is below this share of what it finds: under 1 in 100 trophies taken is sold
(:func:`economy_lines`)."""

ECONOMY_PARTS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], str, str, str,
                           tuple[tuple[str, str], ...]], ...] = (
    ("trophy trade", TROPHIES_SOLD, (TROPHIES_FOUND,), (TROPHIES_SOLD, TROPHY_RUBLES),
     "no trophy taken is sold in any game", "under 1 in {n} trophies taken is sold",
     "the trophy prices and lots",
     ((TROPHIES_FOUND, "trophies taken"), (TROPHIES_SOLD, "sold"),
      (TROPHY_RUBLES, "rubles from them"))),
    ("artefact sale", ARTIFACTS_SOLD, ("artifacts_found", "exchanges"),
     (ARTIFACTS_SOLD, ARTIFACT_RUBLES), "no artefact found is sold in any game",
     "under 1 in {n} artefacts found is sold", "the artefacts' sale prices",
     (("artifacts_found", "artefacts found"), ("exchanges", "exchanged"),
      (ARTIFACTS_SOLD, "sold"), (ARTIFACT_RUBLES, "rubles from them"))),
    ("spending", RUBLES_SPENT, (), (RUBLES_SPENT,),
     "no ruble is spent in any game (no item, gear, armour or healing bought)", "",
     "the prices and the money",
     (("rubles_at_end", "rubles left at the end"),)),
)
"""The parts of the economy (issue 46, item 6), each ``(part, the counter of its acting (a
sale, a ruble spent), the counters of what it could sell, its counters (all 0 in every game
when it never acts), its never acting and its hardly acting in words (``{n}``: 1 /
:data:`HARDLY`), what then does not matter, the counts its line quotes as (metric,
words))``; :func:`economy_lines`."""


def economy_lines(means: Mapping[str, Mapping]) -> list[dict]:
    """Each part of the economy (:data:`ECONOMY_PARTS`): whether it acts in a run, and the one
    line that says so where it never or hardly does (issue 46, item 6).

    ``means`` is ``zonesim campaign``'s ``means`` (each counter's ``{"mc", "ci_low",
    "ci_high"}``). A counter is never negative, so a mean of 0 is 0 in every game: a part
    whose acting counter is then never acts (no trophy sold in any game, no ruble spent),
    and its counters' rows say nothing (``zero``: a table shows the line instead). A part
    that sells under :data:`HARDLY` of what it finds (the upper end of the sales' interval)
    hardly acts. The line gives the counts per game with their intervals: ``trophy trade:
    never acts: no trophy taken is sold in any game, so the trophy prices and lots do not
    matter here (per game: 6.099 trophies taken (6.071 to 6.126), 0 sold, 0 rubles from
    them)``. Returns ``{"part", "acts", "zero", "text"}`` per part: ``acts`` ``"never"``,
    ``"hardly"`` or ``"yes"``, ``text`` None where it acts.
    """
    def count(metric: str, words: str) -> str:
        cell = means[metric]
        if not cell["mc"]:
            return f"0 {words}"
        return (f"{cell['mc']:.3f} {words} ({max(cell['ci_low'], 0.0):.3f} to "
                f"{cell['ci_high']:.3f})")

    out = []
    for part, counter, found, zero, never, hardly, what, quoted in ECONOMY_PARTS:
        if counter not in means:
            continue
        counts = ", ".join(count(m, w) for m, w in quoted if m in means)
        if not means[counter]["mc"]:
            acts, text = "never", (f"{part}: never acts: {never}, so {what} do not matter "
                                   f"here (per game: {counts})")
        elif found and means[counter]["ci_high"] < HARDLY * sum(means[m]["mc"] for m in found):
            acts, text = "hardly", (f"{part}: hardly acts: "
                                    f"{hardly.format(n=round(1 / HARDLY))}, so {what} hardly "
                                    f"matter here (per game: {counts})")
        else:
            acts, text = "yes", None
        out.append({"part": part, "acts": acts, "zero": list(zero) if acts == "never" else [],
                    "text": text})
    return out


MEAN_NAMES = tuple(m[0] for m in METRICS if m[1] == "mean" and m[0] != GAME_DAYS)
"""The per-game counters (every mean but ``game_days``), in the kernel's order."""

PROBABILITIES = tuple(m[0] for m in METRICS if m[1] == "proportion" and "." not in m[0])
"""The game's shares (every proportion but the causes): :data:`WIN_RATE`, :data:`REACH`,
:data:`SURVIVE`, :data:`FINAL_EMISSION`, :data:`CAPPED`."""
FRAME_METRICS = (*PROBABILITIES, *(f"days.{k}" for k in DAY_STATS),
                 *(f"causes.{c}" for c in DEATHS), *MEAN_NAMES)
"""Metric columns of :meth:`sim.experiments.campaign.CampaignResult.to_frame`, known before
any game is played, named in the one scheme of :mod:`sim.experiments.naming`."""
