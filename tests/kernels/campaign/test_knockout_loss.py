"""Which half of his belongings a knocked-out stalker gives up (P-37; issue 27, section 1.5).

P-37 takes half of the belongings and leaves open who chooses which half, so the choice is
the policy key ``policy.knockout_loss`` (docs/rules.md "Assumptions"): ``keep_useful`` (the
default) gives up first the item cards that never act in the simulation (effects ``none``
and ``location_movement``), then the cheapest; ``cheapest`` goes by price alone. The
compile step's loss table (the kernel's) and the plain-Python reference's own order are
checked against the order written out here by hand; the reference and the kernel agree in
distribution on scenarios that carry such a card
(tests/kernels/campaign/test_campaign_reference.py).
"""

from __future__ import annotations

import pytest

from sim.campaign import compile as C
from sim.kernels import campaign as K
from sim.reference import campaign as reference
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario

LOADOUT = ('stalker = "Strelok"\nstart = "Cordon"\n[loadout]\narmor = "Stalker suit"\n'
           'weapons = ["SVD sniper rifle"]\n'
           'items = ["Helicopter call", "Medkit", "Flashlight"]\n')


def _scenario(tmp_path, loss: str | None):
    policy = "" if loss is None else f'[policy]\nknockout_loss = "{loss}"\n'
    path = tmp_path / "loss.toml"
    path.write_text(LOADOUT + policy, encoding="utf-8")
    return load_scenario(path)


def _by_hand(sc, inert_first: bool) -> list[str]:
    """Every item card, the weapon and the armour, by price (stable: items, weapons, armour);
    with ``inert_first`` the items of effect none / location_movement before them all, and
    the Helicopter call (effect helicopter), which ``policy.helicopter_at = 0`` never calls."""
    rs = sc.ruleset
    rows = [(c.price, f"item {name}", c.effect) for name, c in rs.items.items()]
    rows += [(rs.weapons[w].price, f"weapon {w}", "") for w in sc.weapons]
    rows.append((rs.armor[sc.armor].price, f"armor {sc.armor}", ""))
    inert = [r for r in rows
             if inert_first and r[2] in ("none", "location_movement", "helicopter")]
    rest = [r for r in rows if r not in inert]
    return [r[1] for r in sorted(inert, key=lambda r: r[0]) + sorted(rest, key=lambda r: r[0])]


def _compiled(sc) -> list[str]:
    names = {K.BELONG_ITEM: list(sc.ruleset.items), K.BELONG_WEAPON: list(sc.weapons),
             K.BELONG_ARMOR: [sc.armor]}
    kinds = {K.BELONG_ITEM: "item", K.BELONG_WEAPON: "weapon", K.BELONG_ARMOR: "armor"}
    return [f"{kinds[k]} {names[k][i]}" for k, i in C.lose_order(sc)]


def _reference(sc) -> list[str]:
    camp = reference.Campaign(sc)
    names = {"item": list(sc.ruleset.items), "weapon": list(sc.weapons), "armor": [sc.armor]}
    return [f"{k} {names[k][i]}" for k, i in camp.loss_order]


@pytest.mark.parametrize(("loss", "inert_first"), [
    (None, True), ("keep_useful", True), ("cheapest", False)])
def test_the_loss_order_follows_the_policy(tmp_path, loss, inert_first):
    sc = _scenario(tmp_path, loss)
    want = _by_hand(sc, inert_first)
    assert _compiled(sc) == want
    assert _reference(sc) == want
    helicopter, medkit = want.index("item Helicopter call"), want.index("item Medkit")
    assert (helicopter < medkit) == inert_first  # 3,000 rubles, yet of no use here


def test_the_two_readings_differ_where_an_inert_card_is_carried(tmp_path):
    """Guard: the check above can fail, the two orders differ on this loadout."""
    sc = _scenario(tmp_path, None)
    assert _by_hand(sc, True) != _by_hand(sc, False)


def test_an_unknown_reading_is_refused_naming_the_key(tmp_path):
    with pytest.raises(RulesetError) as err:
        _scenario(tmp_path, "dearest")
    assert "policy.knockout_loss" in str(err.value) and "keep_useful, cheapest" in str(err.value)


def test_compare_plays_the_scenarios_reading_and_its_variant(tmp_path):
    """``zonesim compare campaign`` carries the key from the scenario and as a variant
    (``knockout_loss=cheapest``): on a loadout with an inert card the two readings differ,
    and the scenario's own reading is its baseline (guard: a setup that dropped the key
    would play the default for both and show no difference)."""
    import json

    from click.testing import CliRunner

    from sim.cli import main

    path = tmp_path / "junk.toml"
    path.write_text(LOADOUT.replace('"Helicopter call", ', '"Helicopter call", "Stimulant", ')
                    + '[policy]\nknockout_loss = "cheapest"\n', encoding="utf-8")
    args = ["compare", "campaign", str(path), "--baseline", "", "--variant",
            "knockout_loss=keep_useful", "--variant", "knockout_loss=cheapest",
            "--trials", "20000", "--seed", "3", "--format", "json", "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.stdout)["rows"] if r["metric"] == "p_sarcophagus"]
    diffs = {r["variant"]: r.get("diff") for r in rows}
    assert diffs["knockout_loss=cheapest"] == 0.0  # the scenario's reading is the baseline's
    assert diffs["knockout_loss=keep_useful"] != 0.0



def _artefact_scenario(tmp_path, loss: str):
    """The loadout above carrying Jellyfish (never used) and Crystal (used whenever it may)."""
    path = tmp_path / "arts.toml"
    path.write_text(LOADOUT + 'artifacts = ["Jellyfish", "Crystal"]\n'
                    + f'[policy]\nknockout_loss = "{loss}"\n'
                    + '[policy.artifact_use]\nJellyfish = "never"\n', encoding="utf-8")
    return load_scenario(path)


@pytest.mark.parametrize("loss", ["keep_useful", "cheapest"])
def test_an_artefact_never_used_is_given_up_like_an_inert_card(tmp_path, loss):
    """P-37 leaves the choice to the player, and ``keep_useful`` gives up first what never
    acts: an artefact his ``policy.artifact_use`` never uses (P-08) goes with the inert item
    cards, by price, before any useful card; the artefact he uses still goes last. Guard:
    before issue 46.2 every artefact went last, so carrying one unused cost a useful card
    at each knock-out. Under ``cheapest`` (price alone) artefacts still go last."""
    sc = _artefact_scenario(tmp_path, loss)
    weapons = C.campaign_weapons(sc)
    slots = ("Jellyfish", "Crystal")
    names = {K.BELONG_ITEM: [f"item {n}" for n in sc.ruleset.items],
             K.BELONG_ARMOR: [f"armor {n}" for n in C.campaign_armors(sc)],
             K.BELONG_WEAPON: [f"weapon {n}" for n in weapons] + [f"artifact {n}" for n in slots]}
    compiled = [names[k][i] for k, i in C.lose_order(sc, slots)]
    camp = reference.Campaign(sc)
    assert camp.slots == slots
    ref = {"item": names[K.BELONG_ITEM], "weapon": names[K.BELONG_WEAPON],
           "armor": names[K.BELONG_ARMOR], "artifact": [f"artifact {n}" for n in slots]}
    referenced = [ref[k][i] for k, i in camp.loss_order]
    medkit, jellyfish = compiled.index("item Medkit"), compiled.index("artifact Jellyfish")
    assert (jellyfish < medkit) == (loss == "keep_useful")
    assert compiled[-1] == "artifact Crystal"
    # The reference lists the never-used slots in its order; the others it loses after it.
    assert referenced == [n for n in compiled if n != "artifact Crystal"
                          and (loss == "keep_useful" or not n.startswith("artifact"))]
