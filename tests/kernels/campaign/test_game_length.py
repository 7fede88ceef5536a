"""How long a multiplayer game lasts when the last stalker dies (P-43, P-44, P-50; issue 27, 1.7).

A seat whose character dies awaits a new character next morning (P-44); when no stalker
card is left for him, he is out of the game at once, so a game whose last stalker dies
with no card left to draw ends that day: no empty day is played in which the draw fails.

The games play on a copy of ``tests/data/corridor`` (19 hexes in a row: West Lab at 0, the
Camp bunker and start at 6, East Lab at 12, the Sarcophagus at 18; no encounters, Zone phase
or Emissions) whose Sarcophagus deck holds one "Killer" (endurance and wounds 10, the
largest pool, POOL): no Combat pool reaches 10 successes (P-19) and 10 wounds through no
armour take any stalker's Health to 0 in the first round (P-20, P-37), and a knock-out in
the Sarcophagus is death (P-43). Every stalker plays the top-level policy: West Lab first
(``route``), no sneaking (``sneak = "never"``, P-17). Hand count of the route (6 steps a
day, the Sarcophagus hex costs 5, Z-03; reaching an objective ends the day's movement):
day 1 West Lab (6 steps), day 2 Camp, day 3 East Lab, day 4 at 17 (5 steps; 1 left < 5),
day 5 into the Sarcophagus, where he dies. A new character starts at Camp the day after
and walks the same route: his day 5 is the game's day 10. His random kit (two item cards,
``multiplayer.new_character_items``) cannot change that: the longest movement item gives
9 steps, never 0 -> 12 (12 steps) nor 12 -> 18 (5 + 5 = 10 steps) in a day, and no item
survives 10 wounds with no armour.

- Four seats, four stalker cards: the four die on day 5 and no card is left, so the game
  lasts **5** days (the kernel and the reference said 6 before the fix).
- The same with a fifth card ("Spare"): seat 1 (the first awaiting seat, P-44 in seat
  order) draws it on day 6, seats 2-4 are out; Spare dies on day 10 and the game lasts
  **10** days (11 before).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.experiments.campaign_players import run_players
from sim.reference import campaign_players as reference
from sim.rules.scenario import load_scenario
from sim.rules.schema import POOL

CORRIDOR = Path(__file__).parents[2] / "data" / "corridor"
SEATS = ("Strelok", "Scar", "Degtyarev", "Ghost")


def killer_corridor(tmp_path: Path, vigilance: int, cards: tuple[str, ...] | None = None,
                    spare: bool = False) -> Path:
    """A copy of the corridor ruleset with a Killer of ``vigilance`` as the Sarcophagus deck.

    ``cards`` keeps only those stalker cards (all when None); ``spare`` adds one more,
    "Spare", for a new character to draw (P-44).
    """
    folder = tmp_path / "corridor"
    shutil.copytree(CORRIDOR, folder)
    with (folder / "enemies.csv").open("a", encoding="utf-8") as f:
        f.write(f"Killer,0,stalker,secret,{vigilance},{POOL},{POOL},physical,0,,kills\n")
    (folder / "sarcophagus.csv").write_text(
        "name,order,enemy,notes\nKiller,1,Killer,test card\n", encoding="utf-8")
    lines = (folder / "stalkers.csv").read_text(encoding="utf-8").splitlines()
    kept = [lines[0]] + [line for line in lines[1:]
                         if cards is None or line.split(",")[0] in cards]
    if spare:
        kept.append("Spare,5,5,5,3,3,3,3,3,3,1000,a card left for a new character (P-44)")
    (folder / "stalkers.csv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder


def _deadly_corridor(tmp_path: Path, spare: bool, variant: str) -> Path:
    """The corridor with a Killer in the Sarcophagus, four seats on West Lab first."""
    killer_corridor(tmp_path, 1, spare=spare)
    seats = "".join(f'[[players]]\ncharacter = "{c}"\n' for c in SEATS)
    path = tmp_path / "deadly.toml"
    path.write_text(f'ruleset = "corridor"\nstart = "Camp"\nvariant = "{variant}"\n'
                    f'[policy]\nsneak = "never"\nroute = ["West Lab"]\n{seats}',
                    encoding="utf-8")
    return path


CASES = [(False, "competitive", 5), (True, "competitive", 10),
         (False, "cooperative", 5), (True, "cooperative", 10)]
"""(a spare card, variant, the hand-computed length in days)."""


@pytest.mark.parametrize(("spare", "variant", "days"), CASES)
def test_the_game_ends_the_day_the_last_stalker_dies_in_the_kernel(tmp_path, spare,
                                                                    variant, days):
    """P-43, P-44, P-50: the kernel's game lasts the hand-computed days, every game."""
    data = run_players(load_scenario(_deadly_corridor(tmp_path, spare, variant)),
                       trials=40, seed=3).to_dict()
    assert data["game_days"]["histogram"][days] == 40
    assert data["p_nobody_wins"]["mc"] == 1.0 and data["p_capped"]["mc"] == 0.0
    deaths = [s["deaths"]["mc"] for s in data["seats"]]
    new = [s["new_characters"]["mc"] for s in data["seats"]]
    assert deaths == ([2.0, 1.0, 1.0, 1.0] if spare else [1.0] * 4)
    assert new == ([1.0, 0.0, 0.0, 0.0] if spare else [0.0] * 4)


@pytest.mark.parametrize(("spare", "variant", "days"), CASES)
def test_the_game_ends_the_day_the_last_stalker_dies_in_the_reference(tmp_path, spare,
                                                                       variant, days):
    """P-43, P-44, P-50: the plain-Python reference's game lasts the hand-computed days."""
    rows = reference.play(load_scenario(_deadly_corridor(tmp_path, spare, variant)), 20, 3)
    assert {row["days"] for row in rows} == {days}
    assert all(not row["winners"] and not row["capped"] for row in rows)
    assert {tuple(row["deaths"]) for row in rows} == {(2, 1, 1, 1) if spare else (1,) * 4}


def test_guard_counting_every_awaiting_seat_as_in_the_game_plays_an_empty_day(
        tmp_path, monkeypatch):
    """Guard: the old reading (every seat awaiting a character is still in the game, P-44
    left unchecked) gives 6 and 11 days, so the checks above fail on it."""
    def every_awaiting_seat(self):
        return [p for p, s in enumerate(self.status) if s != reference.ELIMINATED]

    monkeypatch.setattr(reference.Table, "in_game", every_awaiting_seat)
    for spare, days in ((False, 6), (True, 11)):
        path = _deadly_corridor(tmp_path / str(spare), spare, "competitive")
        assert {row["days"] for row in reference.play(load_scenario(path), 5, 3)} == {days}
