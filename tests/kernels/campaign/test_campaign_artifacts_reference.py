"""The reference campaign's artefact rules, one by one (docs/rules.md "Artefacts in the campaign").

Deterministic checks of :mod:`sim.reference.campaign` with scripted dice: the
Ecologists' exchange (P-07, P-34), kept finds and card identity (P-11, P-35),
artefacts acting in fights and on damage (P-08..P-10, P-23), the daily heal,
calm and purge (P-08), movement artefacts (Z-20, Z-03), knock-out losses
(P-37), the refusals, and the invariants of whole games on the two artefact
scenarios that the kernel is compared with (``tests/data/artifacts_*.toml``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sim.errors import InputError
from sim.reference import campaign as reference
from sim.reference import campaign_players
from sim.rules.scenario import load_scenario
from tests.kernels.campaign.test_campaign_reference import scenario

DATA = Path(__file__).parents[2] / "data"
SCENARIOS = ("artifacts_a.toml", "artifacts_b.toml")

BODY = ('stalker = "Strelok"\nstart = "Cordon"\n[loadout]\narmor = "Stalker suit"\n'
        'weapons = ["SVD sniper rifle", "Knife"]\nitems = {items}\nartifacts = {artifacts}\n'
        '[policy]\nshopping = []\nenter_anomalies = true\nkeep_artifacts = {keep}\n{policy}')


class Fixed(random.Random):
    """A stream whose every die shows ``face`` (both ``randint`` and ``d6``'s ``random``)."""

    def __init__(self, face: int):
        super().__init__(0)
        self.face = face

    def randint(self, a: int, b: int) -> int:
        return self.face

    def random(self) -> float:
        return (self.face - 0.5) / 6


def campaign(tmp_path: Path, artifacts=(), keep=(), items=(), policy: str = "",
             rules: dict[str, str] | None = None, body: str = BODY) -> reference.Campaign:
    """A reference campaign on a copy of the base ruleset with some rules.toml lines replaced."""
    quote = lambda names: "[" + ", ".join(f'"{n}"' for n in names) + "]"  # noqa: E731
    path = scenario(tmp_path, "s", rules, body.format(
        items=quote(items), artifacts=quote(artifacts), keep=quote(keep), policy=policy))
    return reference.Campaign(load_scenario(path))


def game(c: reference.Campaign, dice: random.Random | None = None,
         deck: random.Random | None = None) -> reference.Game:
    return reference.Game(c, dice or random.Random(1), deck or random.Random(2),
                          random.Random(3))


def slot(c: reference.Campaign, name: str) -> int:
    return c.slots.index(name)


# --- the Ecologists' exchange (P-07, P-34) --------------------------------------------------


def test_three_trophies_buy_one_artefact_at_the_ecologists_bunker(tmp_path):
    c = campaign(tmp_path)
    g = game(c)
    g.me.trophies_anomaly = 3
    cards, rubles = sum(g.artifact_deck), g.me.rubles
    g.trade("ecologists")
    assert g.me.tally["exchanges"] == 1 and g.me.trophies_anomaly == 0
    assert sum(g.artifact_deck) == cards - 1
    # Not kept: sold there at once for its type's mean price // 2 (P-11).
    assert g.me.rubles - rubles in {v // 2 for v in c.artifact_value}
    assert g.me.artifacts == 0 and g.me.artifact_value == 0


@pytest.mark.parametrize(("trophies", "faction", "exchange", "bought", "left"), [
    (2, "ecologists", "true", 0, 2), (7, "ecologists", "true", 2, 1),
    (3, "duty", "true", 0, 3), (3, "ecologists", "false", 0, 3)])
def test_the_exchange_needs_the_ecologists_the_trophies_and_the_policy(
        tmp_path, trophies, faction, exchange, bought, left):
    g = game(campaign(tmp_path, policy=f"exchange = {exchange}\n"))
    g.me.trophies_anomaly = trophies
    g.trade(faction)
    assert (g.me.tally["exchanges"], g.me.trophies_anomaly) == (bought, left)


def test_the_dearest_card_is_kept_and_the_cheapest_sold_at_its_price(tmp_path):
    dearest = campaign(tmp_path / "d", keep=["Flame"],
                       rules={'exchange_draw = "random"': 'exchange_draw = "dearest"'})
    g = game(dearest)
    g.me.trophies_anomaly = 3
    g.trade("ecologists")
    # Flame and Night star cost 4000; Flame comes first in artifacts.csv.
    assert g.me.held[slot(dearest, "Flame")] and g.me.artifacts == 0
    assert g.artifact_deck[dearest.artifact_types.index("fire")] == 3
    cheapest = campaign(tmp_path / "c",
                        rules={'exchange_draw = "random"': 'exchange_draw = "cheapest"'})
    g = game(cheapest)
    g.me.trophies_anomaly, rubles = 3, g.me.rubles
    g.trade("ecologists")
    assert g.me.rubles - rubles == 1000 // 2  # Flash, the first card at 1000


# --- finds: card identity, keeping, acting (P-08..P-11, P-35) --------------------------------


def test_a_find_of_a_type_nobody_keeps_is_worth_the_type_mean(tmp_path):
    c = campaign(tmp_path, keep=["Flash"])
    g = game(c)
    fire = c.artifact_types.index("fire")
    g.gain(fire)
    assert g.me.artifacts == 1 and g.me.artifact_value == c.artifact_value[fire]
    assert c.identified == {"electro"}
    assert reference.Campaign(c.scenario, frozenset({"Slug"})).identified == {"chemical"}


def test_a_kept_find_in_an_anomaly_becomes_held(tmp_path, monkeypatch):
    c = campaign(tmp_path, keep=["Jellyfish", "Stone flower", "Night star"])
    g = game(c)
    monkeypatch.setattr(g, "test", lambda dice, modifier: True)
    springboard = next(i for i, a in enumerate(c.anomalies) if a.name == "Springboard")
    assert g.anomaly(springboard)
    assert g.me.tally["artifacts_found"] == 1 and sum(g.me.held) == 1
    assert g.me.artifacts == 0 and g.me.trophies_anomaly == 1


def test_a_kept_find_acts_in_the_next_fight_and_a_second_card_is_sold(tmp_path):
    c = campaign(tmp_path, keep=["Stone flower"])
    # Gravity holds Jellyfish x2, Stone flower, Night star: 3.5/6 of 4 cards picks the third.
    g = game(c, deck=Fixed(4))
    gravity = c.artifact_types.index("gravity")
    enemy = next(i for i, e in enumerate(c.enemies) if e.name == "Flesh")
    g.fight(enemy, sneak=False)
    assert g.me.tally["artifacts_used"] == 0
    g.gain(gravity)
    assert g.me.held == [True]
    g.fight(enemy, sneak=False)
    assert g.me.tally["artifacts_used"] >= 1  # +1 Combat die each round, no hands (P-23)
    g.gain(gravity)
    assert g.me.held == [True] and (g.me.artifacts, g.me.artifact_value) == (1, 2500)


def test_a_resist_artifact_absorbs_damage_of_its_type_with_its_side_effect(tmp_path):
    g = game(campaign(tmp_path, artifacts=["Flash"]), dice=Fixed(1))
    health = g.me.health
    g.hurt(2, "electric", None)  # Flash: resist 1 electric, automatic, 1 dose (P-09)
    assert (g.me.health, g.me.radiation) == (health - 1, 1)
    assert (g.me.tally["artifacts_used"], g.me.tally["side_effects"]) == (1, 1)
    g.hurt(2, "thermal", None)
    assert g.me.health == health - 3 and g.me.tally["artifacts_used"] == 1


# --- once a day (P-08) ------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "health", "after", "side"), [
    (6, 3, 5, 0),   # at medkit_at: the Intellect test passes, +2
    (1, 3, 2, 1),   # it fails: no effect, the side effect (1 thermal wound; P-10)
    (6, 4, 4, 0),   # above medkit_at: not used
])
def test_a_heal_artifact_is_used_once_a_day_at_medkit_at(tmp_path, face, health, after, side):
    g = game(campaign(tmp_path, artifacts=["Crystal"], policy="medkit_at = 3\n"),
             dice=Fixed(face))
    g.me.health, g.me.knocked_down = health, 1
    g.turn()  # a day without movement still ends with the day's artefact uses
    assert g.me.health == after and g.me.tally["side_effects"] == side
    assert g.me.tally["artifacts_used"] == (health <= 3)


def test_daily_uses_stop_at_restore_uses_and_skip_a_stalker_out_of_play(tmp_path):
    g = game(campaign(tmp_path, artifacts=["Crystal"], policy="medkit_at = 4\n"), dice=Fixed(6))
    g.me.health, g.me.knocked_down = 1, 1
    g.turn()
    assert g.me.health == 3 and g.me.tally["artifacts_used"] == 1  # restore_uses = 1
    g.me.lost = 2
    g.turn()
    assert g.me.health == 3 and g.me.tally["artifacts_used"] == 1


def test_purge_removes_value_doses_and_calm_waits_for_calm_at(tmp_path):
    g = game(campaign(tmp_path, artifacts=["Slug", "Moonlight"]), dice=Fixed(6))
    g.me.radiation, g.me.willpower, g.me.knocked_down = 1, 3, 1
    g.turn()
    # Slug: purge 2, automatic, 1 chemical wound; Moonlight waits for Willpower <= 2.
    assert (g.me.radiation, g.me.health, g.me.willpower) == (0, 5, 3)
    assert g.me.tally["artifacts_used"] == 1


# --- movement (Z-20, Z-03) --------------------------------------------------------------------


@pytest.mark.parametrize(("stacks", "steps"), [("true", 2), ("false", 1)])
def test_movement_artifact_steps_with_and_without_stacking(tmp_path, monkeypatch, stacks,
                                                           steps):
    c = campaign(tmp_path, artifacts=["Battery"], items=["Zone map"],
                 rules={"movement_stacks = true": f"movement_stacks = {stacks}"})
    g = game(c)
    planned = []
    monkeypatch.setattr(c, "today", lambda start, goal, allowance: planned.append(allowance)
                        or ())
    g.move()
    assert planned == [c.base_steps + steps]  # Zone map +1, Battery +1
    assert (g.me.radiation, g.me.tally["artifacts_used"], g.me.tally["side_effects"]) == \
        (1, 1, 1)
    assert c.allowance(g.me.items, 2) == c.base_steps + (3 if stacks == "true" else 2)


def test_movement_artifacts_follow_the_policy(tmp_path):
    g = game(campaign(tmp_path, artifacts=["Battery"],
                      policy="use_movement_artifacts = false\n"))
    assert g.movement_artifacts() == 0 and g.me.tally["artifacts_used"] == 0


def test_a_movement_side_effect_that_knocks_out_keeps_him_in_place(tmp_path, monkeypatch):
    c = campaign(tmp_path, artifacts=["Battery"])
    g = game(c)
    monkeypatch.setattr(c, "today", lambda *a: pytest.fail("he moved"))
    g.me.health = 0  # as if the side effect had taken the last Health point
    g.move()
    assert g.me.tally["knockouts"] == 1 and g.me.stop


def test_a_movement_dose_past_the_maximum_deforms_at_once(tmp_path, monkeypatch):
    """P-39 after any damage step: Battery's dose past the maximum deforms before he moves."""
    c = campaign(tmp_path, artifacts=["Battery"])
    g = game(c)
    monkeypatch.setattr(c, "today", lambda *a: ())
    g.me.radiation = c.hero.radiation_max
    assert g.movement_artifacts() == 1
    assert (g.me.deformations, g.me.radiation) == (1, 0) and not g.me.stop


def test_movement_in_epicentre_unlike_items_is_refused(tmp_path):
    # Refused by the ruleset's validation first (RulesetError), before the reference runs.
    with pytest.raises(InputError, match="movement_in_epicentre"):
        campaign(tmp_path, rules={"\n[artifacts]\n":
                                  "\n[artifacts]\nmovement_in_epicentre = true\n"})


def test_more_than_four_artifact_slots_are_refused(tmp_path):
    # Refused by the scenario's validation first (RulesetError), before the reference runs.
    with pytest.raises(InputError, match="at most 4"):
        campaign(tmp_path, artifacts=["Flash", "Slug"], keep=["Slime", "Crystal", "Flame"])


# --- knock-out losses (P-37) --------------------------------------------------------------------


@pytest.mark.parametrize(("items", "waiting", "held", "items_left", "waiting_left"), [
    ([], 0, [True, False], 0, 0),          # 2 things: Flash (1000) goes, Stone flower stays
    (["Medkit"], 0, [True, True], 0, 0),   # 3 things: the medkit goes first
    ([], 2, [False, False], 0, 2),         # 4 things: both held before those waiting
    ([], 4, [False, False], 0, 3),         # 6 things: then one waiting card
])
def test_a_knockout_gives_up_held_artifacts_after_the_rest(tmp_path, items, waiting, held,
                                                          items_left, waiting_left):
    body = BODY.replace('armor = "Stalker suit"\nweapons = ["SVD sniper rifle", "Knife"]\n',
                        "weapons = []\n")
    g = game(campaign(tmp_path, artifacts=["Stone flower", "Flash"], items=items, body=body))
    g.me.artifacts, g.me.artifact_value = waiting, 1000 * waiting
    g.lose_half()
    assert g.me.held == held and sum(g.me.items) == items_left
    assert g.me.artifacts == waiting_left


# --- whole games -------------------------------------------------------------------------------


class Checker:
    """Invariants after every day of a reference game with artefacts."""

    def __init__(self, game: reference.Game):
        self.cards = sum(game.artifact_deck)

    def __call__(self, game: reference.Game, day: int) -> None:
        me, hero = game.me, game.c.hero
        assert me.health <= hero.health and me.willpower <= hero.willpower
        assert 0 <= me.radiation <= hero.radiation_max
        assert len(me.held) == len(game.c.slots) <= reference.MAX_SLOTS
        assert me.artifacts >= 0 and me.artifact_value >= 0 and me.trophies_anomaly >= 0
        assert me.tally["side_effects"] <= me.tally["artifacts_used"]
        assert (sum(game.artifact_deck) + me.tally["artifacts_found"] + me.tally["exchanges"]
                == self.cards)


@pytest.mark.parametrize("name", SCENARIOS)
def test_games_with_artifacts_keep_the_invariants(name):
    c = reference.Campaign(load_scenario(DATA / name))
    streams = [random.Random(f"7:{p}") for p in ("dice", "deck", "env")]
    used = exchanged = 0
    for _ in range(60):
        g = reference.Game(c, *streams)
        end, day = g.play(Checker(g))
        assert end in reference.ENDS and 1 <= day <= c.rules.campaign.max_days
        used += g.me.tally["artifacts_used"]
        exchanged += g.me.tally["exchanges"]
    assert used > 0 and exchanged > 0


def test_seats_use_their_artifacts_in_a_multiplayer_game(tmp_path):
    text = (DATA / "artifacts_b.toml").read_text().replace('stalker = "Strelok"\n', "")
    path = tmp_path / "two.toml"
    path.write_text(text.replace("stalkers = 1\n", "") + '[[players]]\ncharacter = "Strelok"\n'
                    '[[players]]\ncharacter = "Ghost"\n[players.policy]\n'
                    'keep_artifacts = ["Flash"]\nenter_anomalies = true\n')
    scenario = load_scenario(path)
    slots = campaign_players.campaigns(scenario)
    # The kept names of every seat name the cards of their types (docs/rules.md 7).
    assert slots[("seat", 0)].identified == slots[("seat", 1)].identified == {"fire", "electro"}
    assert slots[("seat", 0)].slots == ("Slug", "Sparkler", "Fireball", "Moonlight")
    streams = [random.Random(f"5:{p}") for p in ("dice", "deck", "env")]
    used = 0
    for _ in range(10):
        table = campaign_players.Table(scenario, slots, streams)
        table.play()
        used += sum(seat.me.tally["artifacts_used"] for seat in table.seats)
    assert used > 0
