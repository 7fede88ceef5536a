"""``zonesim skirmish`` on a battlefield (issue 50): surrenders, the plot, --vary."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.rules.skirmish_loader import load_scenario, skirmish_root
from sim.skirmish.vary import VaryError, parse, variants

STREET = "configs/skirmish/street_buildings.toml"
FIELD = "configs/skirmish/field_cover.toml"


def _run(*args):
    return CliRunner().invoke(main, ["skirmish", *args])


def test_battlefield_json_has_surrenders_and_the_plot_is_written(tmp_path):
    png = tmp_path / "street.png"
    result = _run(STREET, "--trials", "2000", "--seed", "3", "--format", "json",
                  "--plot", str(png))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    for side in doc["sides"]:
        assert set(side["surrendered"]) == {"mean", "ci_low", "ci_high"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The abstract battlefield's document keeps its keys (the golden outputs do not move).
    plain = json.loads(_run("--trials", "500", "--format", "json").stdout)
    assert "surrendered" not in plain["sides"][0]


def test_plot_needs_a_battlefield(tmp_path):
    result = _run("configs/skirmish/duel.toml", "--plot", str(tmp_path / "x.png"))
    assert result.exit_code == 2
    assert "has no [battlefield] to draw" in result.output


def test_vary_a_cover_objects_units_on_the_same_dice():
    result = _run(FIELD, "--trials", "3000", "--seed", "4", "--format", "json",
                  "--vary", "cover.Stone wall.units=1,2")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["vary"] == "cover.Stone wall.units"
    one, two = (v["sides"][0]["p_win"]["mc"] for v in doc["variants"])
    assert [v["value"] for v in doc["variants"]] == ["1", "2"]
    assert one != two   # a 2-unit wall stops the fire both ways (S-23)


def test_vary_refuses_what_it_cannot_set():
    street = load_scenario(skirmish_root() / "street_buildings.toml")
    with pytest.raises(VaryError, match="no building named 'Shopp'"):
        variants(street, "buildings.Shopp.floors", ["1"])
    with pytest.raises(VaryError, match="has a window above that floor"):
        variants(street, "buildings.Shop.floors", ["1"])
    with pytest.raises(VaryError, match="not KEY=V1,V2"):
        parse("buildings.Shop.floors")
    shop = [v.battlefield.buildings[0] for v in variants(street, "buildings.Shop.openings.2",
                                                          ["none", "door"])]
    assert len(shop[0].openings) == 4 and shop[1].openings[1].kind == "door"
    three = variants(street, "buildings.Shop.floors", ["3"])[0]
    assert three.battlefield.buildings[0].floors == 3


def test_vary_bad_value_exits_2():
    result = _run(FIELD, "--trials", "100", "--vary", "cover.Stone wall.units=9")
    assert result.exit_code == 2
    assert "is not a whole number in 1..4" in result.output
