"""Where a campaign game's time goes, against the dice limit (issue 28, section 2).

Run: ``python benchmarks/profile_campaign.py`` (base scenario) or ``--players``
(``four_stalkers``). Every figure is CPU time of this one thread
(``time.thread_time``), best of a few runs, so that other jobs on the machine
move it little; the load average is printed beside it. It prints, per game:

- the whole game body (:func:`sim.kernels.campaign.game.play_run`) and the
  counting step that adds the rows up (:func:`.game.count_games`);
- the per-game fixed cost: the same games with ``campaign.max_days`` set to 0
  in a copy of the tables (new game, streams seeded, result row written, no day);
- what a game draws: 64-bit words of the DICE, DECK and ENVIRONMENT streams
  (read from the streams' counters after each game, :func:`.game.scratch`), days,
  turns, fights, anomalies and events;
- the dice limit: the time a bare numba loop takes to draw those words, the DICE
  stream's cut into d6 (:func:`sim.kernels.rng.count_at_least`), the others as
  words (:func:`sim.kernels.rng.next_u64`), and the rest of the game body
  (table lookups, branches, state loads and stores) per day and per turn;
- the game's skeleton: the same games with parts switched off by their keys in a
  copy of the tables, so nothing is compiled again: no card drawn at locations
  and none laid by the Zone phase (``campaign.*_location_draw = "nothing"``,
  ``zone.*_per_day = 0``), which leaves the days' movement, medkits, the Emission
  check and the turn and day loops; the encounters' share is the rest. Then each
  kind of encounter alone (every location draws an event, or an enemy, or an
  anomaly; still none laid by the Zone phase): its cost per encounter past the
  skeleton's days.
"""

from __future__ import annotations

import os
import sys
import time

import numba
import numpy as np

from sim.campaign.compile import compile_campaign
from sim.campaign.players import compile_game
from sim.kernels import campaign as K
from sim.kernels import rng
from sim.kernels.campaign import tables as tb
from sim.kernels.campaign.game import NO_LOG, count_games, play_run, scratch
from sim.rules.scenario import load_scenario

SEED = 7
GAMES = 200_000
COUNTED = 2_000  # games whose stream draws are counted one by one
_INVERSE = pow(int(rng._GOLDEN), -1, 1 << 64)  # a word drawn moves the counter by _GOLDEN


def cpu(func, repeats: int = 3) -> float:
    """Best thread CPU time of ``repeats`` calls of ``func`` (seconds)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        func()
        best = min(best, time.thread_time() - start)
    return best


def words(state: np.ndarray, start: int) -> int:
    """64-bit words a stream drew since its counter was ``start``."""
    return ((int(state[0]) - start) * _INVERSE) % (1 << 64)


def drawn(tables, games: int) -> dict[str, float]:
    """Mean words drawn per game from each stream, over ``games`` games played one by one."""
    G, R = scratch(tables)
    out = np.zeros((1, K.G_ROW), dtype=np.int64)
    fresh = rng.new_state()
    sums = dict(dice=0, deck=0, env=0)
    streams = R.reshape(len(tb.STREAMS), rng.STATE_SIZE)  # dice, deck, env, zone_deck
    for t in range(games):
        play_run(tables, G, R, SEED, t, 1, out, 0, NO_LOG)
        for name, purpose, state in (("dice", rng.DICE, streams[0]), ("deck", rng.DECK, streams[1]),
                                     ("env", rng.ENVIRONMENT, streams[2])):
            rng.seed_stream(fresh, SEED, t, purpose)
            sums[name] += words(state, int(fresh[0]))
    return {name: total / games for name, total in sums.items()}


@numba.njit(nogil=True)
def draw_words(dice_words, other_words, n_games):
    """The dice limit: ``dice_words`` words a game cut into d6 and ``other_words`` drawn
    as they are, for ``n_games`` games."""
    state = np.zeros(rng.STATE_SIZE, dtype=np.uint64)
    total = np.uint64(0)
    for t in range(n_games):
        rng.seed_stream(state, SEED, t, rng.DICE)
        total += np.uint64(rng.count_at_least(state, dice_words * 8 * 252 // 256, 4))
        for _ in range(other_words):
            total ^= rng.next_u64(state)
    return total


def with_keys(tables, **keys):
    """A copy of ``tables`` whose parameters ``keys`` (``C_*`` names) are changed in every slot."""
    changed = tables.copy()
    for s in range(_slots(tables)):
        header = tb.header(changed, s)
        for name, value in keys.items():
            header[getattr(K, name)] = value
    return changed


def _slots(tables) -> int:
    """The number of character slots packed in ``tables``: their headers come first, then the
    first table (``hexes``)."""
    return int(tables[tb.LAYOUT.index["T_HEXES"]]) // tb.SLOT_SIZE


def main(players: bool) -> None:
    scenario = load_scenario("four_stalkers" if players else None)
    arrays = compile_game(scenario) if players else compile_campaign(scenario)
    tables = arrays.pack()
    out = np.zeros((GAMES, K.G_ROW), dtype=np.int64)
    G, R = scratch(tables)
    play_run(tables, G, R, SEED, 0, 10, out, 0, NO_LOG)  # compile or load from the cache
    whole = cpu(lambda: play_run(tables, G, R, SEED, 0, GAMES, out, 0, NO_LOG)) / GAMES
    row = np.zeros(K.count_width(arrays.max_days, arrays.n_characters), dtype=np.int64)
    count_games(out, 10, row, arrays.max_days, arrays.n_characters)
    counting = cpu(lambda: count_games(out, GAMES, row, arrays.max_days,
                                       arrays.n_characters)) / GAMES
    rows = out.copy()
    no_days = with_keys(tables, C_MAX_DAYS=0)
    fixed = cpu(lambda: play_run(no_days, G, R, SEED, 0, GAMES, out, 0, NO_LOG)) / GAMES
    bare = with_keys(tables, C_OPEN_DRAW=K.DRAW_NOTHING, C_SECRET_DRAW=K.DRAW_NOTHING,
                     C_ENEMIES_PER_DAY=0, C_ANOMALIES_PER_DAY=0)
    skeleton = cpu(lambda: play_run(bare, G, R, SEED, 0, GAMES, out, 0, NO_LOG)) / GAMES
    bare_days = out[:, K.G_DAY].mean()
    per_game = drawn(tables, COUNTED)
    dice_words = int(round(per_game["dice"]))
    other_words = int(round(per_game["deck"] + per_game["env"]))
    draw_words(dice_words, other_words, 10)
    dice = cpu(lambda: draw_words(dice_words, other_words, GAMES)) / GAMES
    days = rows[:, K.G_DAY].mean()
    seats = len(scenario.players) if players else 1
    mean = {name: rows[:, getattr(K, "G_" + name.upper())].mean()
            for name in ("fights", "anomalies", "events")}
    rest = whole - fixed - dice
    print(f"scenario: {scenario.name}; load average {os.getloadavg()[0]:.2f}; "
          f"one thread, CPU time, {GAMES:,} games")
    print(f"game body          : {whole * 1e9:8.0f} ns/game ({1 / whole / 1e3:.0f} k games/s)")
    print(f"counting the rows  : {counting * 1e9:8.0f} ns/game")
    print(f"fixed (no day)     : {fixed * 1e9:8.0f} ns/game")
    print(f"per game: {days:.1f} days, {days * seats:.1f} turns at most, "
          f"{mean['fights']:.2f} fights, {mean['anomalies']:.2f} anomalies, "
          f"{mean['events']:.2f} events (seat 1)")
    print(f"words drawn: dice {per_game['dice']:.1f}, deck {per_game['deck']:.1f}, "
          f"environment {per_game['env']:.1f} (about {per_game['dice'] * 7.9:.0f} d6)")
    print(f"dice limit         : {dice * 1e9:8.0f} ns/game ({dice_words} words cut into d6, "
          f"{other_words} drawn as they are)")
    per_day = (skeleton - fixed) / bare_days
    encounters = sum(mean.values())
    share = whole - fixed - per_day * days
    print(f"skeleton (no cards): {per_day * 1e9:8.0f} ns/day ({bare_days:.1f} days a game): "
          f"{per_day * days * 1e9:.0f} ns of a game's {days:.1f} days")
    print(f"encounters         : {share * 1e9:8.0f} ns/game, {share / encounters * 1e9:.0f} ns "
          f"per encounter of seat 1 (fights, anomalies, events), dice included")
    for label, draw, column in (("event", K.DRAW_EVENT, K.G_EVENTS),
                                ("fight", K.DRAW_ENEMY, K.G_FIGHTS),
                                ("anomaly", K.DRAW_ANOMALY, K.G_ANOMALIES)):
        alone = with_keys(bare, C_OPEN_DRAW=draw, C_SECRET_DRAW=draw)
        spent = cpu(lambda t=alone: play_run(t, G, R, SEED, 0, GAMES, out, 0, NO_LOG)) / GAMES
        n = out[:, column].mean()
        each = (spent - fixed - per_day * out[:, K.G_DAY].mean()) / n
        print(f"  one {label:8s}     : {each * 1e9:8.0f} ns ({n:.1f} a game when every location "
              f"draws one)")
    print(f"the rest           : {rest * 1e9:8.0f} ns/game, {rest / days * 1e9:.0f} ns/day, "
          f"{rest / (days * seats) * 1e9:.0f} ns/turn")
    print(f"game body / dice limit: {whole / dice:.1f} x")


if __name__ == "__main__":
    main("--players" in sys.argv)
