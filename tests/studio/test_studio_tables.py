"""zonesim studio's table settings and map grid over HTTP (issue 49).

``policy.artifact_use`` (a row per artefact, a choice of its uses, P-08), ``policy.weights``
(a bounded number per outcome) and ``targets`` (a metric's low and high) have inputs made
from their :attr:`~sim.rules.settings.Setting.entries`; the map is a grid of its hexes'
cells (Z-18 to Z-26). Each edit is checked with the loader's or ``zonesim compare``'s own
message, reaches the run (``artifact_use``: whole games play it, with ``zonesim compare
campaign``'s numbers), the export and the report, and a name stays text.
"""

from __future__ import annotations

import html
import io
import re
import zipfile

import pytest
from starlette.testclient import TestClient

from sim.experiments import registry
from sim.experiments.base import CompareInputError
from sim.experiments.campaign_metrics import WIN_RATE
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import MAX_WEIGHT, WEIGHT_KEYS, load_scenario
from sim.rules.settings import of_kind
from sim.studio.app import create_app
from sim.workflows import compare, whatif
from tests.hostile import copy_ruleset, edited_scenario
from tests.studio.test_studio import HOST, ORIGIN, events, last_snapshot, start

USE = {"policy.artifact_use.Flash": "never", "policy.artifact_use.Moonlight": "2"}
"""Two artefacts' uses edited (P-08): never, and at Health 2 or less."""
HEX = "map.-1,6"
"""The Cordon start hex of the base map (``map.csv`` line 160): a road (Z-25)."""
FIELD = "map.0,6"
"""A plain field beside Cordon (terrain 2, no road): its terrain may become forest (3)."""


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app("base", hosts={HOST}, warm=False), base_url=f"http://{HOST}")


def problems(client, edits, scenario=None):
    body = {"edits": edits} | ({"scenario": scenario} if scenario else {})
    r = client.post("/api/validate", json=body, headers=ORIGIN)
    assert r.status_code == 200
    return r.json()["problems"]


def attributes(page: str, name: str) -> str:
    """The opening tag of the input or select named ``name``."""
    found = re.search(rf'<(input|select)[^>]*name="{re.escape(html.escape(name))}"[^>]*>', page)
    assert found, name
    return found.group(0)


def test_every_table_setting_has_inputs_from_its_declaration(client):
    """Guard: before, ``settings_table`` left every ``table`` setting out (no weights input)."""
    page = client.get("/").text
    tables = [s for s in of_kind() if s.type == "table"]
    assert {s.name for s in tables} == {"policy.weights", "policy.artifact_use", "targets"}
    assert all(s.entries is not None and whatif.editable(s) for s in tables)
    for key in WEIGHT_KEYS:  # a bounded number per outcome
        tag = attributes(page, f"policy.weights.{key}")
        assert 'type="number"' in tag and 'min="0"' in tag and f'max="{MAX_WEIGHT}"' in tag
    for card in load_scenario("base").ruleset.artifacts:  # a choice of uses per artefact
        tag = attributes(page, f"policy.artifact_use.{card}")
        assert tag.startswith("<select") and 'data-base="always"' in tag
    uses = page[page.index('name="policy.artifact_use.Flash"'):]
    uses = uses[:uses.index("</select>")]
    assert re.findall(r'<option value="([^"]*)"', uses) == ["always", "never", "1", "2", "3",
                                                            "4", "5", "6"]  # Strelok: Health 6
    assert 'data-base="0.35"' in attributes(page, "targets.p_sarcophagus.low")
    assert 'data-base="0.55"' in attributes(page, "targets.p_sarcophagus.high")
    assert 'data-base=""' in attributes(page, "targets.p_survive.low")  # no target yet


def test_table_entries_are_checked_with_the_loader_s_messages(client, tmp_path):
    """The weights and targets as the scenario file's would be refused; a use as ``zonesim
    compare``'s ``artifact_use=NAME:USE``."""
    bad = edited_scenario(tmp_path, "p_sarcophagus = [0.35, 0.55]", "p_sarcophagus = "
                          "[0.55, 0.35]\n[policy.weights]\nwound = -1", name="base.toml")
    with pytest.raises(RulesetError) as info:
        load_scenario(bad)
    said = {p.column: str(p).split(": ", 1)[1] for p in info.value.problems}
    got = problems(client, {"policy.weights.wound": "-1",
                            "targets.p_sarcophagus.low": "0.55",
                            "targets.p_sarcophagus.high": "0.35"})
    by_key = {p["key"]: p["message"] for p in got}
    assert by_key["policy.weights.wound"].startswith("base.toml:")
    assert by_key["policy.weights.wound"].endswith(said["policy.weights.wound"])
    assert by_key["targets.p_sarcophagus.high"].endswith(said["targets.p_sarcophagus"])
    with pytest.raises(CompareInputError) as cli:
        compare.parse_variant("artifact_use=Flash:sometimes", registry.experiment("campaign"))
    assert problems(client, {"policy.artifact_use.Flash": "sometimes"}) == [
        {"key": "policy.artifact_use.Flash", "message": str(cli.value)}]
    one_side = problems(client, {"targets.p_survive.low": "0.5"})
    assert [p["key"] for p in one_side] == ["targets.p_survive.low"]
    assert "is not a range [low, high]" in one_side[0]["message"]
    assert problems(client, {**USE, "policy.weights.wound": "2.5",
                             "targets.p_survive.low": "0.5", "targets.p_survive.high": "1"}) == []
    assert problems(client, {"policy.weights.nothing": "1"})[0]["message"].endswith(
        "key 'policy.weights.nothing': unknown key")


def test_an_artefact_use_edit_plays_as_compare_campaign_does(client):
    """Whole games play the edited uses: the numbers of ``zonesim compare campaign
    --variant "artifact_use=Flash:never;artifact_use=Moonlight:2"`` on the same seed."""
    evs = events(client, start(client, USE, seed=4, games=1500))
    row = next(r for r in last_snapshot(evs)["rows"] if r["metric"] == WIN_RATE)
    exp = registry.experiment("campaign")
    sc = load_scenario("base")
    variants = [compare.parse_variant("", exp), compare.parse_variant(
        "artifact_use=Flash:never;artifact_use=Moonlight:2", exp)]
    result = exp.run(compare.cases(sc.ruleset, exp.from_scenario(sc), variants), trials=1500,
                     seed=4)
    want = {r["variant"]: r for r in compare.paired_rows(result, ["b", "v"], [WIN_RATE])}
    assert row["variant"] == pytest.approx(want["v"]["mc"], abs=1e-12)
    assert row["diff"] == pytest.approx(want["v"]["diff"], abs=1e-12)
    assert whatif.variant(sc, USE).case.setup["artifact_use"] == (("Flash", 0), ("Moonlight", 2))


def test_the_map_is_a_grid_of_hexes_checked_as_validate_checks_it(client, tmp_path):
    """Guard: before, the map had no grid and a hex edit was refused as no setting."""
    page = client.get("/").text
    assert 'data-table="map"' in page
    assert 'data-base="1"' in attributes(page, f"{HEX}.terrain")
    assert 'data-base="open"' in attributes(page, f"{HEX}.location")
    assert 'data-base="Cordon"' in attributes(page, f"{HEX}.name")
    assert f'name="{HEX}.q"' not in page and f'name="{HEX}.notes"' not in page  # its key
    folder = copy_ruleset(tmp_path)
    path = folder / "map.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("-1,6,1,open,Cordon",
                                                             "-1,6,9,open,Cordon"),
                    encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset(folder)
    expected = str(info.value.problems[0]).replace(f"{folder}/", "")
    assert problems(client, {f"{HEX}.terrain": "9"}) == [
        {"key": f"{HEX}.terrain", "message": expected}]
    road = problems(client, {f"{HEX}.terrain": "2"})  # a whole-map check: a road is terrain 1
    assert road == [{"key": f"{HEX}.terrain", "message": "map.csv:160: column 'terrain': 2 is "
                     "not 1 (road) but the hex has roads (Z-21, Z-25)"}]
    assert problems(client, {f"{FIELD}.terrain": "3"}) == []
    assert problems(client, {"map.99,99.terrain": "2"})[0]["key"] == "map.99,99.terrain"
    chosen = whatif.variant(load_scenario("base"), {f"{FIELD}.terrain": "3"})
    field = next(h for h in chosen.case.ruleset.map.hexes if (h.q, h.r) == (0, 6))
    assert field.terrain == 3 and chosen.case.ruleset.sha256 != chosen.base.ruleset.sha256


def test_export_carries_the_table_and_map_edits(client, tmp_path):
    edits = {**USE, "policy.weights.wound": "2.5", "targets.p_survive.low": "0.5",
             "targets.p_survive.high": "1", "targets.days.median.low": "",
             "targets.days.median.high": "", f"{FIELD}.terrain": "3"}
    r = client.post("/api/export", json={"edits": edits}, headers=ORIGIN)
    assert r.status_code == 200
    zipfile.ZipFile(io.BytesIO(r.content)).extractall(tmp_path)
    sc = load_scenario(tmp_path / "studio" / "scenario.toml")
    assert sc.policy.artifact_use == (("Flash", 0), ("Moonlight", 2))
    assert sc.policy.weights == (("wound", 2.5),)
    assert sc.targets == {"p_sarcophagus": (0.35, 0.55), "p_survive": (0.5, 1.0)}
    base = {(h.q, h.r): h for h in load_scenario("base").ruleset.map.hexes}
    got = {(h.q, h.r): h for h in sc.ruleset.map.hexes}
    assert got[0, 6].terrain == 3 and base[0, 6].terrain == 2
    assert {k: h for k, h in got.items() if k != (0, 6)} == {
        k: h for k, h in base.items() if k != (0, 6)}


def test_an_artefact_name_is_text(tmp_path):
    folder = copy_ruleset(tmp_path)
    csv = folder / "artifacts.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace(
        "Flash,", '"<script>alert(1)</script>",', 1), encoding="utf-8")
    scenario = edited_scenario(tmp_path, 'ruleset = "base"', f'ruleset = "{folder}"',
                               name="named.toml")
    client = TestClient(create_app(scenario, hosts={HOST}, warm=False),
                        base_url=f"http://{HOST}")
    page = client.get("/").text
    assert "<script>alert(1)</script>" not in page
    assert 'name="policy.artifact_use.&lt;script&gt;alert(1)&lt;/script&gt;"' in page
    key = "policy.artifact_use.<script>alert(1)</script>"
    assert problems(client, {key: "never"}, "named") == []
    assert problems(client, {key: "<b>"}, "named")[0]["key"] == key
