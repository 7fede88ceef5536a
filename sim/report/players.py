"""The report's sections for a multiplayer scenario (issue 12): "Seats" and "Characters".

:func:`seats_section` plays the scenario's games (:func:`sim.experiments.campaign_players.
run_players`) and gives P(each seat wins), deaths and new characters per seat, P(nobody
wins), P(Final Emission), the game's length and Emissions drawn; :func:`characters_section`
gives P(each character wins) from the same games. Their values are the target-able
metrics :func:`player_metrics` names, e.g. ``"win.seat1" = [0.2, 0.3]`` in ``[targets]``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.experiments import campaign_metrics as M
from sim.experiments.campaign_players import run_players
from sim.report import labels, plots
from sim.report.tables import Section
from sim.rules.scenario import MAX_PLAYERS, Scenario


def player_metrics(sc: Scenario) -> list[str]:
    """Target-able metrics of a multiplayer report: seats, characters, the game."""
    names = [f"win.seat{p + 1}" for p in range(MAX_PLAYERS)]
    names += [f"win.{c}" for c in sc.ruleset.stalkers]
    names += [f"{k}.seat{p + 1}" for k in ("deaths", "new_characters")
              for p in range(MAX_PLAYERS)]
    return [*names, *M.GAME_SHARES, M.EMISSIONS_DRAWN,
            *(f"{M.GAME_DAYS}.{k}" for k in ("mean", "median", "p10", "p90"))]


def _triple(cell: dict) -> tuple:
    return cell["mc"], cell.get("ci_low"), cell.get("ci_high")


def _values(data: dict) -> dict[str, tuple]:
    """Metric name -> ``(value, ci_low, ci_high)`` of one multiplayer result."""
    values = {}
    for seat in data["seats"]:
        values[f"win.seat{seat['seat']}"] = _triple(seat["win"])
        values[f"deaths.seat{seat['seat']}"] = _triple(seat["deaths"])
        values[f"new_characters.seat{seat['seat']}"] = _triple(seat["new_characters"])
    for character in data["characters"]:
        values[f"win.{character['character']}"] = _triple(character["win"])
    for key in M.GAME_SHARES:
        values[key] = _triple(data[key])
    values[M.EMISSIONS_DRAWN] = _triple(data[M.EMISSIONS_DRAWN])
    days = data[M.GAME_DAYS]
    values[f"{M.GAME_DAYS}.mean"] = _triple(days)
    for key in ("median", "p10", "p90"):
        if days[key] is not None:
            values[f"{M.GAME_DAYS}.{key}"] = (days[key], days[f"{key}_ci_low"],
                                              days[f"{key}_ci_high"])
    return values


def _wins(rows: list[dict], name: str) -> pd.DataFrame:
    return pd.DataFrame([{name: r[name], "win": r["win"]["mc"], "win_ci_low": r["win"]["ci_low"],
                          "win_ci_high": r["win"]["ci_high"]} for r in rows])


def seats_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Win rate, deaths and new characters by seat; the game's length and how it ends."""
    data = run_players(sc, trials=trials, seed=seed).to_dict()
    section = Section("seats", "Seats", values=_values(data))
    seats = _wins(data["seats"], "seat")
    seats.insert(1, "character", [s["character"] for s in data["seats"]])
    for key in ("deaths", "new_characters"):
        seats[key] = [s[key]["mc"] for s in data["seats"]]
    days = data[M.GAME_DAYS]
    hist = days["histogram"]
    section.tables = {
        "seats": seats,
        "game_days": pd.DataFrame({"day": np.arange(len(hist)), "games": hist}),
        "game": pd.DataFrame([{"metric": k, "value": v, "ci_low": lo, "ci_high": hi}
                              for k, (v, lo, hi) in section.values.items()
                              if not k.startswith(("win.", "deaths.", "new_"))]),
        "victory": pd.DataFrame([{"key": k, "value": str(v)}
                                 for k, v in data["victory"].items()]),
    }
    section.shown["Win rate by seat"] = pd.DataFrame({
        "seat": [f"{s['seat']} ({s['character']})" for s in data["seats"]],
        "win": [labels.percent(*_triple(s["win"])) for s in data["seats"]],
        "deaths": [labels.number(*_triple(s["deaths"])) for s in data["seats"]],
        "new characters": [labels.number(*_triple(s["new_characters"]))
                           for s in data["seats"]]})
    section.shown["The game"] = pd.DataFrame([
        {"": "nobody wins", "value": labels.percent(*_triple(data[M.NOBODY_WINS]))},
        {"": "the Final Emission takes everyone",
         "value": labels.percent(*_triple(data[M.FINAL_EMISSION]))},
        {"": "game days: mean", "value": labels.number(*_triple(days), digits=1)},
        *({"": f"game days: {key}", "value": labels.number(
            days[key], days[f"{key}_ci_low"], days[f"{key}_ci_high"], digits=0)}
          for key in ("median", "p10", "p90")),
        {"": "Emissions drawn (mean)",
         "value": labels.number(*_triple(data[M.EMISSIONS_DRAWN]))}])
    seats["name"] = section.shown["Win rate by seat"]["seat"]
    section.figures["seats_win"] = plots.bars(seats, "name", "win", "Win rate by seat",
                                              xlabel="share of games won")
    section.figures["game_days"] = plots.days_histogram(
        {"histogram": hist, "mean": days["mc"], "median": days["median"]},
        title="Game length (days)", ylabel="games")
    section.text.append(
        f"{trials} {data['variant']} games of {sc.name} ({len(data['seats'])} stalkers), "
        f"seed {seed}. Deaths and new characters are means per game (P-44); a game nobody "
        "wins ends with the Final Emission (P-49), with no stalker left, or at the cap. "
        f"Victory (P-45; Gap \"The Sarcophagus\"): {data['victory']['text']}.")
    section.summary = [{"section": "seats", "metric": k, "mc": v, "ci_low": lo,
                        "ci_high": hi, "exact": None}
                       for k, (v, lo, hi) in section.values.items() if k.startswith("win.seat")]
    return section


def characters_section(sc: Scenario, trials: int, seed: int) -> Section:
    """Win rate by character (the character playing the winning seat), same games as Seats."""
    data = run_players(sc, trials=trials, seed=seed).to_dict()
    values = {k: v for k, v in _values(data).items()
              if k.startswith("win.") and not k.startswith("win.seat")}
    section = Section("characters", "Characters", values=values)
    frame = _wins(data["characters"], "character")
    section.tables = {"characters": frame}
    section.shown["Win rate by character"] = pd.DataFrame({
        "character": frame["character"],
        "win": [labels.percent(*_triple(c["win"])) for c in data["characters"]]})
    section.figures["characters_win"] = plots.bars(frame, "character", "win",
                                                   "Win rate by character",
                                                   xlabel="share of games won")
    section.text.append(
        "A character wins when he plays the winning seat (a new character after a death "
        "counts for the card drawn, P-44); 'zonesim balance characters' puts every "
        "character in every seat on common random numbers.")
    section.summary = [{"section": "characters", "metric": k, "mc": v, "ci_low": lo,
                        "ci_high": hi, "exact": None} for k, (v, lo, hi) in values.items()]
    return section


def seats_line(sections) -> str | None:
    """The verdict's line of a multiplayer report: each seat's win rate and nobody's."""
    seats = sections.get("seats")
    if seats is None or "seats" not in seats.tables:
        return None
    found = seats.values
    rows = seats.tables["seats"].to_dict("records")
    parts = [f"seat {r['seat']} ({r['character']}) "
             + labels.percent(*found["win.seat" + str(r["seat"])]) for r in rows]
    return ("Win rate by seat: " + "; ".join(parts) + f"; nobody wins "
            f"{labels.percent(*found[M.NOBODY_WINS])}.")
