"""One game told day by day: the library behind ``zonesim campaign SCENARIO --trace N``.

Game ``N`` of a run with seed ``S`` is trial ``N`` of the Monte Carlo with that
seed: :func:`trace_game` plays it through the same compiled game body
(:func:`sim.kernels.campaign.game.play_games`, trial ``N`` on the streams of
``(S, N)``) with a trace log (:mod:`sim.kernels.campaign.log`) instead of the
empty one the Monte Carlo passes, so ``zonesim campaign --trials K --seed S``
counts exactly the wins, ends and days the traces of games ``0 .. K-1`` show.
The log's events are read here, in Python, into named fields and words: the
route of each day (and the policy key that chose its objective), each hex
entered, each encounter (a fight with its rounds, wounds and stimulants, an
anomaly, an event card with the item used), trade at bases, the stalker's tracks,
items used and money after each step, the Zone phase and the Emission Track,
each Emission, and the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.campaign.compile import CampaignArrays
from sim.campaign.hexmap import compile_map
from sim.campaign.players import GameArrays
from sim.errors import visible
from sim.experiments.campaign_metrics import CAUSE_LABELS, ENDS
from sim.kernels import anomaly as A
from sim.kernels import campaign as K
from sim.kernels import combat as F
from sim.kernels import event as EV
from sim.kernels import layout as S
from sim.kernels.campaign.game import play_games
from sim.kernels.campaign.log import SNAPSHOT
from sim.rules import Ruleset, fightable

_SLOT_NAMES = {index: name for name, index in K.SEAT_STATE.index.items()}
STATE_FIELDS = (*(_SLOT_NAMES[slot].removeprefix("S_").lower() for slot in SNAPSHOT),
                "items_held", "gear")
"""The names of an ``LG_STATE`` event's values: the kernel's ``SNAPSHOT`` slots, the item
cards held and ``gear``, the bit mask of the weapons and artefact slots held (``S_WEAPONS``)."""

FIELDS = {
    K.LG_STATE: STATE_FIELDS,
    K.LG_ROUTE: ("objective", "goal", "start", "mover", "bonus", "extra"),
    K.LG_HEX: ("hex", "location"),
    K.LG_FIGHT: ("enemy", "outcome", "rounds", "wounds", "stimulants", "source"),
    K.LG_ANOMALY: ("anomaly", "outcome", "found", "trophy", "source"),
    K.LG_EVENT: ("card", "item", "outcome", "brings", "days_lost", "emission_tokens"),
    K.LG_BASE: ("faction", "rubles_before", "rubles_after"),
    K.LG_IDLE: ("reason", "days_left"),
    K.LG_NEW: ("slot", "status"),
    K.LG_ZONE: ("tokens_before", "tokens_after", "enemies_on_board", "anomalies_on_board"),
    K.LG_EMISSION: ("card", "final", "drawn"),
}
"""Each logged kind's value names, in the order :mod:`sim.kernels.campaign.log` writes them."""

KINDS = {code: name.removeprefix("LG_").lower() for name, code in K.LOG_KINDS.index.items()}
"""Each logged kind's name in the trace (``fight``, ``route``, ...)."""
KINDS[K.LG_NEW] = "new_character"

LOCATIONS = {K.LOC_NONE: "empty hex", K.LOC_OPEN: "Open Space", K.LOC_SECRET: "Secret Location",
             K.LOC_COMPLEX: "Secret Complex", K.LOC_BUNKER: "bunker", K.LOC_BASE: "base",
             K.LOC_EPICENTRE: "Epicentre", K.LOC_SARCOPHAGUS: "Sarcophagus"}
FACTIONS = {K.FACTION_NONE: "none", K.FACTION_DUTY: "Duty", K.FACTION_FREEDOM: "Freedom",
            K.FACTION_ECOLOGISTS: "Ecologists", K.FACTION_MILITARY: "Military"}
SOURCES = {K.SOURCE_LYING: "lying there", K.SOURCE_DRAWN: "drawn",
           K.SOURCE_SARCOPHAGUS: "in the Sarcophagus"}
IDLE = {K.IDLE_LOST: ("lost in a Secret Location (P-38, P-41)", "death.lost_days"),
        K.IDLE_KNOCKED: ("knocked down (P-42)", "death.knocked_down_days"),
        K.IDLE_HELICOPTER: ("flown to the Military base (Z-05)", "policy.helicopter_at")}
FIGHT_OUTCOMES = {code: name.lower() for name, code in F.OUTCOME.index.items()}
ANOMALY_OUTCOMES = {code: name.lower() for name, code in A.OUTCOME.index.items()}
EVENT_OUTCOMES = {code: name.lower() for name, code in EV.OUTCOME.index.items()}
FIGHT_POLICY = {F.AVOIDED: "policy.sneak", F.FLED: "policy.flee_at"}
"""The policy key that chose a fight's end, where the stalker chose it (P-16, P-21)."""

LOG_EVENTS = 4096
"""Events a trace log holds at first; a longer game is played again with a larger log."""


@dataclass(frozen=True)
class Names:
    """What a trace names: the ruleset's cards and map, in the kernel's index order."""

    hexes: tuple[str, ...]
    enemies: tuple[str, ...]
    anomalies: tuple[str, ...]
    events: tuple[str, ...]
    items: tuple[str, ...]
    emissions: tuple[str, ...]
    characters: tuple[str, ...]

    @classmethod
    def of(cls, rs: Ruleset, arrays: CampaignArrays) -> Names:
        """The names of ``rs`` (fightable enemies only, as the fight tables hold them); a
        hex without a name is called by its index and location kind (``arrays``' map).
        """
        hexmap = compile_map(rs)
        kinds = arrays.loc_kind
        hexes = tuple(name or f"hex {h} ({LOCATIONS.get(int(kinds[h]), 'hex')})"
                      for h, name in enumerate(hexmap.names))
        return cls(hexes=hexes,
                   enemies=tuple(name for name, card in rs.enemies.items()
                                 if fightable(card.wound_type)),
                   anomalies=tuple(rs.anomalies), events=tuple(rs.events),
                   items=tuple(rs.items), emissions=tuple(e.name for e in rs.emission_deck()),
                   characters=tuple(rs.stalkers))


def slots_of(compiled: CampaignArrays | GameArrays) -> tuple[CampaignArrays, ...]:
    """The compiled character slots (one for a one-stalker scenario)."""
    return compiled.slots if isinstance(compiled, GameArrays) else (compiled,)


def play_logged(compiled: CampaignArrays | GameArrays, *, seed: int,
                game: int) -> tuple[np.ndarray, np.ndarray]:
    """Trial ``game`` of a run with ``seed``, played with a trace log.

    Returns its result row (``G_*`` columns, as :func:`sim.experiments.campaign.
    simulate_trials` gives it) and its events, shape (n, ``LOG_WIDTH``).
    """
    if seed < 0 or game < 0:
        raise ValueError("seed and game must be >= 0")
    tables = compiled.pack()
    size = LOG_EVENTS
    while True:
        log = np.zeros(K.LOG_HEAD + size * K.LOG_WIDTH, dtype=np.int64)
        row = np.zeros((1, K.G_ROW), dtype=np.int64)
        play_games(seed, game, 1, tables, row, 0, log)
        n = int(log[K.LOG_EVENTS])
        if n <= size:
            return row[0], log[K.LOG_HEAD:K.LOG_HEAD + n * K.LOG_WIDTH].reshape(n, K.LOG_WIDTH)
        size = n  # the same game again (same streams), with room for every event


def _fields(kind: int, values: np.ndarray) -> dict[str, int]:
    return {name: int(v) for name, v in zip(FIELDS[kind], values, strict=False)}


@dataclass
class _Teller:
    """Turns logged events into named fields and words (one game, one set of names)."""

    names: Names
    slots: tuple[CampaignArrays, ...]
    seat_slot: list[int]
    last: dict[int, dict[str, int]]

    def objective(self, slot: int, target: int) -> tuple[str, str, str]:
        """The day's objective in words, its hex and the policy key that chose it (P-26,
        P-37, P-50).
        """
        cp = self.slots[slot].cp
        hex_name = self.names.hexes[int(self.slots[slot].target_hex[target])]
        if target < cp[K.C_N_OBJECTIVES]:
            return f"Secret Complex {hex_name}", hex_name, "policy.route"
        if target == cp[K.C_SARCOPHAGUS_TARGET]:
            return "the Sarcophagus", hex_name, "policy.route"
        if target == cp[K.C_TROPHY_TARGET]:
            return f"the Duty base {hex_name} to sell trophies", hex_name, \
                "policy.sell_trophies_at"
        return f"the bunker {hex_name} to heal", hex_name, "policy.retreat_at"

    def state_words(self, seat: int, state: dict[str, int]) -> str:
        """His tracks, and what changed since the last ones (knock-outs, items used)."""
        before = self.last.get(seat)
        self.last[seat] = state
        words = (f"Health {state['health']}, Willpower {state['willpower']}, "
                 f"Radiation {state['radiation']}, armour tokens {state['armor']}, "
                 f"{state['rubles']} rubles, {state['items_held']} item card(s)")
        if before is None:
            return words
        changes = []
        if state["knockouts"] > before["knockouts"]:  # half his belongings (P-37)
            cards = before["items_held"] - state["items_held"] - (state["items_used"]
                                                                 - before["items_used"])
            gear = bin(before["gear"] & ~state["gear"]).count("1")
            changes.append(f"lost {cards} item card(s) and {gear} weapon(s) or artefact(s) "
                           "(P-37)")
        for key, what in (("items_used", "item(s) used"), ("knockouts", "knocked out"),
                          ("concussions", "concussed"), ("deformations", "Deformation card"),
                          ("emissions_hit", "hit by the Emission")):
            gained = state[key] - before[key]
            if gained > 0:
                changes.append(what if gained == 1 and key != "items_used"
                               else f"{gained} {what}")
        return words + (f" ({'; '.join(changes)})" if changes else "")

    def tell(self, seat: int, kind: int, f: dict[str, int]) -> tuple[str, str | None]:
        """One event in words, and the policy key that decided it (None: no decision)."""
        n = self.names
        slot = self.seat_slot[seat] if seat >= 0 else 0
        if kind == K.LG_STATE:
            return self.state_words(seat, f), None
        if kind == K.LG_ROUTE:
            what, _, key = self.objective(slot, f["objective"])
            mover = (f", with the {n.items[f['mover']]} (+{f['bonus']} allowance)"
                     if f["mover"] >= 0 else "")
            extra = (f", movement artefacts +{f['extra']} (policy.use_movement_artifacts)"
                     if f["extra"] else "")
            return f"sets out from {n.hexes[f['start']]} toward {what}{mover}{extra}", key
        if kind == K.LG_HEX:
            if f["location"] == K.LOC_NONE:
                return f"passes {n.hexes[f['hex']]}", None
            return f"enters {n.hexes[f['hex']]} ({LOCATIONS[f['location']]})", None
        if kind == K.LG_FIGHT:
            outcome = FIGHT_OUTCOMES[f["outcome"]].replace("_", " ")
            stims = f", {f['stimulants']} stimulant(s) (policy.heal_at)" if f["stimulants"] else ""
            key = FIGHT_POLICY.get(f["outcome"], "policy.heal_at" if f["stimulants"] else None)
            return (f"fights the {n.enemies[f['enemy']]} ({SOURCES[f['source']]}): {outcome} "
                    f"after {f['rounds']} round(s), {f['wounds']} wound(s) through the armour"
                    f"{stims}"), key
        if kind == K.LG_ANOMALY:
            outcome = ANOMALY_OUTCOMES[f["outcome"]].replace("_", " ")
            found = ", finds an artefact" if f["found"] else ""
            key = "policy.enter_anomalies" if f["outcome"] == A.AVOIDED else None
            return (f"meets the anomaly {n.anomalies[f['anomaly']]} ({SOURCES[f['source']]}): "
                    f"{outcome}{found}"), key
        if kind == K.LG_EVENT:
            outcome = EVENT_OUTCOMES[f["outcome"]].replace("_", " ")
            item = f", using the {n.items[f['item']]}" if f["item"] >= 0 else ""
            brings = {S.EFFECT_ENEMY: ", which brings an enemy",
                      S.EFFECT_ANOMALY: ", which brings an anomaly"}.get(f["brings"], "")
            extra = (f", {f['days_lost']} day(s) lost" if f["days_lost"] else "") + (
                f", +{f['emission_tokens']} Emission token(s)" if f["emission_tokens"] else "")
            return f"draws the event {n.events[f['card']]}{item}: {outcome}{brings}{extra}", None
        if kind == K.LG_BASE:
            spent = f["rubles_before"] - f["rubles_after"]
            money = (f"spends {spent} rubles" if spent > 0 else f"earns {-spent} rubles"
                     if spent < 0 else "trades nothing")
            return (f"at the {FACTIONS.get(f['faction'], '?')} base: {money} "
                    f"({f['rubles_after']} left)"), "policy.shopping" if spent > 0 else None
        if kind == K.LG_IDLE:
            what, key = IDLE[f["reason"]]
            left = f", {f['days_left']} day(s) left" if f["reason"] != K.IDLE_HELICOPTER else ""
            return f"does not move: {what}{left}", key if f["reason"] == K.IDLE_HELICOPTER \
                else None
        if kind == K.LG_NEW:
            self.seat_slot[seat] = f["slot"]
            if f["status"] == K.SEAT_ELIMINATED:
                return "no stalker card left for a new character: out of the game (P-44)", None
            character = n.characters[int(self.slots[f["slot"]].cp[K.C_CHARACTER])]
            return f"a new character enters: {character} (P-44)", None
        if kind == K.LG_ZONE:
            return (f"Zone phase: Emission Track {f['tokens_before']} -> {f['tokens_after']} "
                    f"token(s); {f['enemies_on_board']} enemy and {f['anomalies_on_board']} "
                    "anomaly card(s) on the board"), None
        if kind == K.LG_EMISSION:
            final = " (the Final Emission, P-49)" if f["final"] else ""
            return f"Emission {f['drawn']}: {n.emissions[f['card']]}{final}", None
        raise ValueError(f"unknown logged event kind {kind}")


def end_of(row: np.ndarray) -> dict[str, Any]:
    """Seat 1's end of a game's result row: ``won`` (seat 1 is among the winners: alone,
    reached and survived the Sarcophagus), ``reached`` (his characters entered it),
    ``days`` (the game's length), ``cause`` (how his last character's game ended).
    """
    cause = ENDS[int(row[K.G_END])]
    return {"won": bool(row[K.G_WINNERS] & 1), "reached": bool(row[K.G_SARCOPHAGUS] > 0),
            "days": int(row[K.G_DAY]), "cause": cause}


def events_of(compiled: CampaignArrays | GameArrays, names: Names,
              log: np.ndarray) -> list[dict[str, Any]]:
    """The logged events as dicts: ``day``, ``seat`` (from 1; 0: the Zone), ``kind``, the
    kind's fields, ``policy`` (the key that decided it, or None) and ``text``; a seat's
    tracks (``state``) only where they changed.
    """
    slots = slots_of(compiled)
    n_seats = int(slots[0].cp[K.C_N_PLAYERS])
    teller = _Teller(names, slots, list(range(n_seats)), {})
    out = []
    for word in log:
        kind, seat = int(word[K.LOG_KIND]), int(word[K.LOG_SEAT])
        f = _fields(kind, word[K.LOG_VALUES:])
        if kind == K.LG_STATE and teller.last.get(seat) == f:
            continue  # his tracks as they were: nothing to tell
        text, key = teller.tell(seat, kind, f)
        out.append({"day": int(word[K.LOG_WHEN]), "seat": seat + 1, "kind": KINDS[kind], **f,
                    "policy": key, "text": visible(text, lines=False)})
    return out


def trace_game(compiled: CampaignArrays | GameArrays, rs: Ruleset, *, seed: int,
               game: int) -> dict[str, Any]:
    """Game ``game`` (trial ``game`` of the Monte Carlo with ``seed``) told day by day.

    Returns
    -------
    dict
        ``game``, ``seed``, ``won`` (seat 1 reached and survived the Sarcophagus),
        ``reached`` (he entered it), ``days`` (the day the game ended), ``cause`` (how
        seat 1's game ended: :data:`~sim.experiments.campaign_metrics.ENDS`),
        ``cause_text``, ``winners`` (seats, from 1) and ``days_log``: one entry per day
        from 0 (the start), each ``{"day", "events"}`` (:func:`events_of`).
    """
    row, log = play_logged(compiled, seed=seed, game=game)
    events = events_of(compiled, Names.of(rs, slots_of(compiled)[0]), log)
    days: dict[int, list] = {}
    for event in events:
        days.setdefault(event["day"], []).append(event)
    end = end_of(row)
    winners = [p + 1 for p in range(K.MAX_PLAYERS) if int(row[K.G_WINNERS]) >> p & 1]
    return {"game": game, "seed": seed, **end, "cause_text": CAUSE_LABELS[end["cause"]],
            "winners": winners,
            "days_log": [{"day": d, "events": days[d]} for d in sorted(days)]}


def trace_text(trace: dict[str, Any], title: str) -> str:
    """A trace in words, a line per event under a line per day."""
    lines = [title]
    for day in trace["days_log"]:
        lines.append(f"day {day['day']}" if day["day"] else "start")
        for event in day["events"]:
            who = f"seat {event['seat']}: " if event["seat"] > 0 else ""
            why = f"  [{event['policy']}]" if event["policy"] else ""
            lines.append(f"  {who}{event['text']}{why}")
    lines.append(f"end: day {trace['days']}, {trace['cause_text']}; won: "
                 f"{'yes' if trace['won'] else 'no'}, reached the Sarcophagus: "
                 f"{'yes' if trace['reached'] else 'no'}")
    return "\n".join(lines)


def events_frame(trace: dict[str, Any]):
    """A trace's events as a table, one row per event (the ``--format csv`` of a trace)."""
    import pandas as pd

    rows = [{"game": trace["game"], **event} for day in trace["days_log"]
            for event in day["events"]]
    return pd.DataFrame(rows)
