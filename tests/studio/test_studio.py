"""zonesim studio over HTTP (issue 49): every route with Starlette's test client.

The page is generated from the settings table; an edit is checked with the messages of
``zonesim validate``; a run streams paired numbers that equal the library's (and ``zonesim
compare campaign``'s) on the same seed; Stop keeps what was played; two runs never mix;
closing the event stream stops its run; Host, Origin and body size are checked; a name is
text; the export zip loads as a scenario with its ruleset.
"""

from __future__ import annotations

import html
import io
import json
import shutil
import socket
import zipfile
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from sim.experiments import registry
from sim.experiments.campaign_metrics import WIN_RATE
from sim.paths import bundled_ruleset, configs_root
from sim.rules import RulesetError, load_ruleset
from sim.rules.scenario import load_scenario
from sim.rules.settings import of_kind
from sim.studio.app import MAX_BODY, create_app
from sim.workflows import compare, whatif

HOST = "127.0.0.1:8765"
ORIGIN = {"Origin": f"http://{HOST}"}
EDIT = {"enemies.Bloodsucker.endurance": "3"}


@pytest.fixture(scope="module")
def app():
    return create_app("base", hosts={HOST}, warm=False)


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app, base_url=f"http://{HOST}")


def events(client, run: str) -> list[tuple[str, object]]:
    """Every event of a run's stream, in order, as (kind, data)."""
    out, kind = [], None
    with client.stream("GET", f"/api/runs/{run}/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                out.append((kind, json.loads(line.removeprefix("data: "))))
    return out


def start(client, edits, seed=1, games=2000) -> str:
    r = client.post("/api/runs", json={"scenario": "base", "edits": edits, "seed": seed,
                                       "games": games}, headers=ORIGIN)
    assert r.status_code == 200, r.text
    return r.json()["run"]


def last_snapshot(evs):
    return [d for k, d in evs if k == "snapshot"][-1]


def test_page_has_an_input_for_every_setting_with_its_doc_and_rule_ids(client):
    r = client.get("/")
    assert r.status_code == 200
    text = r.text
    for s in of_kind():
        if whatif.editable(s) and s.kind != "card" and s.type != "table":
            assert f'name="{html.escape(s.name)}"' in text, s.name
    assert 'name="enemies.Bloodsucker.endurance" data-base="4"' in text
    assert "P-19" in text  # the endurance column's rule, on hover
    assert "Content-Security-Policy" in r.headers and "script-src 'self'" in \
        r.headers["Content-Security-Policy"]
    assert "confidence sequence" in text and "Waudby-Smith" in text  # the help names it


def test_page_and_script_come_from_the_package_not_a_cdn(client):
    page = client.get("/").text
    assert '<script src="/static/studio.js">' in page
    assert '<body data-scenario="base">' in page  # the script's one input from the server
    assert "//cdn" not in page and 'src="http' not in page and 'href="http' not in page
    for asset in ("studio.js", "studio.css"):
        r = client.get(f"/static/{asset}")
        assert r.status_code == 200 and "https://" not in r.text


def test_status_reports_the_compile(client):
    assert client.get("/favicon.ico").status_code == 204  # no icon, no error in the log
    r = client.get("/api/status")
    assert r.status_code == 200 and r.json()["compile"]["done"] is True


def test_an_edit_is_checked_with_the_messages_of_validate(client, tmp_path):
    """The same cell written into a copy of the ruleset: validate's own message."""
    folder = tmp_path / "my"
    shutil.copytree(bundled_ruleset(), folder)
    csv = folder / "enemies.csv"
    lines = csv.read_text(encoding="utf-8").splitlines(keepends=True)
    i = next(n for n, line in enumerate(lines) if line.startswith("Bloodsucker,"))
    header = lines[0].rstrip("\n").split(",")
    cells = lines[i].rstrip("\n").split(",")
    cells[header.index("endurance")] = "99"
    lines[i] = ",".join(cells) + "\n"
    csv.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset(folder)
    expected = str(info.value.problems[0]).replace(f"{folder}/", "")
    r = client.post("/api/validate", json={"edits": {"enemies.Bloodsucker.endurance": "99"}},
                    headers=ORIGIN)
    assert r.status_code == 200
    assert r.json()["problems"] == [{"key": "enemies.Bloodsucker.endurance",
                                     "message": expected}]
    assert client.post("/api/validate", json={"edits": EDIT}, headers=ORIGIN).json() == {
        "problems": []}


@pytest.mark.parametrize("body", [
    b"not json", b"[1, 2]", b'{"edits": [1]}', b'{"edits": {"a": null}}',
    b'{"edits": {"no.such.key": "1"}}', b'{"edits": {"policy.sneak": "<b>x</b>"}}',
    b'{"edits": {"enemies.<script>.endurance": "3"}}', b'{"scenario": "/etc/passwd"}',
    b'{"edits": {"enemies.Bloodsucker.endurance": "1e999999"}}'])
@pytest.mark.parametrize("route", ["/api/validate", "/api/runs", "/api/export",
                                   "/api/report"])
def test_bad_input_gets_a_message_never_a_500(client, route, body):
    r = client.post(route, content=body, headers={**ORIGIN, "Content-Type": "application/json"})
    if r.status_code == 200:  # validate answers problems with 200
        assert route == "/api/validate" and r.json()["problems"]
        return
    assert r.status_code in (400, 404, 422), r.text
    assert r.json()["problems"][0]["message"]
    assert "Traceback" not in r.text


@pytest.mark.parametrize("body", [b'{"seed": -1}', b'{"games": 0}', b'{"games": "many"}',
                                  b'{"seed": 1.5}', b'{"games": 1e99}'])
def test_a_run_s_seed_and_games_are_checked(client, body):
    r = client.post("/api/runs", content=body,
                    headers={**ORIGIN, "Content-Type": "application/json"})
    assert r.status_code == 422 and "is not a whole number" in r.json()["problems"][0]["message"]


def test_host_origin_and_body_size_are_checked(client):
    assert client.get("/", headers={"Host": "evil.example:8765"}).status_code == 421
    assert client.post("/api/runs", json={}, headers={"Origin": "http://evil.example"}
                       ).status_code == 403
    assert client.post("/api/runs", json={}).status_code == 403  # no Origin
    assert client.get("/api/status", headers={"Origin": "http://evil.example"}
                      ).status_code == 403
    big = {"edits": {"x": "y" * MAX_BODY}}
    assert client.post("/api/validate", json=big, headers=ORIGIN).status_code == 413


def test_a_scenario_is_named_never_a_path(client):
    assert client.get("/", params={"scenario": "../../../etc/passwd"}).status_code == 404
    assert client.get("/", params={"scenario": "base"}).status_code == 200


def test_a_run_streams_the_paired_numbers_of_compare_campaign(client):
    """The whole-game difference equals ``zonesim compare campaign`` on the same seed."""
    evs = events(client, start(client, EDIT, seed=3, games=3000))
    kinds = [k for k, _ in evs]
    assert kinds[-1] == "end" and "cards" in kinds
    snaps = [d for k, d in evs if k == "snapshot"]
    assert [s["state"] for s in snaps][-1] == "done" and snaps[-1]["games"] == 3000
    assert [s["games"] for s in snaps] == sorted(s["games"] for s in snaps)
    row = next(r for r in snaps[-1]["rows"] if r["metric"] == WIN_RATE)
    exp = registry.experiment("campaign")
    sc = load_scenario("base")
    base = exp.from_scenario(sc)
    variants = [compare.parse_variant("", exp),
                compare.parse_variant("edit=enemies.Bloodsucker.endurance=3", exp)]
    result = exp.run(compare.cases(sc.ruleset, base, variants), trials=3000, seed=3)
    want = {r["variant"]: r for r in compare.paired_rows(result, ["b", "v"], [WIN_RATE])}
    assert row["baseline"] == pytest.approx(want["b"]["mc"], abs=1e-12)
    assert row["variant"] == pytest.approx(want["v"]["mc"], abs=1e-12)
    assert row["diff"] == pytest.approx(want["v"]["diff"], abs=1e-12)
    assert row["diff_low"] <= row["diff"] <= row["diff_high"]
    assert row["diff_high"] - row["diff_low"] >= want["v"]["diff_ci_high"] - \
        want["v"]["diff_ci_low"]  # anytime-valid: never narrower than the fixed-n interval
    cards = next(d for k, d in evs if k == "cards")
    assert {(r["table"], r["card"]) for r in cards} == {("enemies", "Bloodsucker")}
    assert any(r["exact"] is not None for r in cards)  # the fight's exact twin
    assert {r["kind"] for r in cards} == {"proportion", "mean"}  # shown as % or as numbers


def test_stop_ends_the_run_and_keeps_what_was_played(client):
    run = start(client, EDIT, games=10_000_000)
    assert client.post(f"/api/runs/{run}/stop", json={}, headers=ORIGIN).status_code == 200
    evs = events(client, run)
    last = last_snapshot(evs)
    assert last["state"] == "stopped" and 0 < last["games"] < 10_000_000 or \
        last["games"] == 0
    assert evs[-1][0] == "end"


def test_two_runs_at_once_do_not_mix(client):
    a = start(client, EDIT, seed=5, games=1500)
    b = start(client, {}, seed=5, games=1500)
    eb, ea = events(client, b), events(client, a)
    rows_a = {r["metric"]: r for r in last_snapshot(ea)["rows"]}
    rows_b = {r["metric"]: r for r in last_snapshot(eb)["rows"]}
    assert rows_b[WIN_RATE]["diff"] == 0.0 and rows_a[WIN_RATE]["diff"] != 0.0
    assert rows_a[WIN_RATE]["baseline"] == rows_b[WIN_RATE]["baseline"]  # same seed
    assert client.get(f"/api/runs/{a}/events").status_code == 409  # one stream per run


def test_closing_the_event_stream_stops_its_run(app, client):
    """A tab closed: the browser drops the stream, the server stops the run."""
    run = start(client, EDIT, games=10_000_000)
    studio = app.state.studio
    sent = []

    async def receive():
        if not sent:
            await anyio.sleep(0.05)
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": f"/api/runs/{run}/events",
             "raw_path": f"/api/runs/{run}/events".encode(), "query_string": b"",
             "headers": [(b"host", HOST.encode())], "scheme": "http", "http_version": "1.1",
             "server": ("127.0.0.1", 8765), "client": ("127.0.0.1", 1), "root_path": ""}

    async def main():
        with anyio.fail_after(60):
            await app(scope, receive, send)

    anyio.run(main)
    assert studio.runs[run].stop.is_set()


def test_names_are_text_in_the_page_and_the_answers(tmp_path):
    folder = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    csv = folder / "enemies.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace(
        "Bloodsucker,", '"<script>alert(1)</script>",', 1).replace(
        "Snork,", '"=HYPERLINK(""http://x"")",', 1), encoding="utf-8")
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "named.toml"
    scenario.write_text(text.replace('ruleset = "base"', f'ruleset = "{folder}"'),
                        encoding="utf-8")
    client = TestClient(create_app(scenario, hosts={HOST}, warm=False),
                        base_url=f"http://{HOST}")
    page = client.get("/").text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "=HYPERLINK(&quot;http://x&quot;)" in page
    key = "enemies.<script>alert(1)</script>.endurance"
    r = client.post("/api/validate", json={"scenario": "named", "edits": {key: "99"}},
                    headers=ORIGIN)
    assert r.json()["problems"][0]["key"] == key
    assert r.headers["content-type"].startswith("application/json")


def test_export_is_a_zip_that_loads_as_the_variant(client, tmp_path):
    edits = {**EDIT, "policy.sneak": "never", "combat.max_rounds": "40"}
    r = client.post("/api/export", json={"edits": edits}, headers=ORIGIN)
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert "attachment" in r.headers["content-disposition"]
    zipfile.ZipFile(io.BytesIO(r.content)).extractall(tmp_path)
    sc = load_scenario(tmp_path / "studio" / "scenario.toml")
    base = load_scenario("base")
    assert sc.ruleset.enemies["Bloodsucker"].endurance == 3
    assert sc.policy.sneak == "never" and sc.ruleset.param("combat", "max_rounds") == 40
    assert sc.ruleset.enemies["Snork"] == base.ruleset.enemies["Snork"]
    assert Path(sc.ruleset.path).resolve() == (tmp_path / "studio" / "ruleset").resolve()


def test_command_binds_127_0_0_1_and_warns_for_another_host(monkeypatch):
    import uvicorn

    from sim.cli import main

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    made = []
    monkeypatch.setattr("sim.studio.app.create_app", lambda *a, **k: made.append(k) or object())
    out = CliRunner().invoke(main, ["studio", "--no-browser", "--port", "8766"])
    assert out.exit_code == 0, out.output
    assert calls[-1]["host"] == "127.0.0.1" and "warning" not in out.output
    assert made[-1]["hosts"] == {"127.0.0.1:8766", "localhost:8766"}
    assert "http://127.0.0.1:8766/" in out.output
    out = CliRunner().invoke(main, ["studio", "--no-browser", "--host", "0.0.0.0",
                                    "--port", "8766"])
    assert calls[-1]["host"] == "0.0.0.0" and "warning: listening on 0.0.0.0" in out.output
    # another machine names this one by an address or its name, never by another domain
    assert {"127.0.0.1:8766", f"{socket.gethostname()}:8766"} <= made[-1]["hosts"]
    assert not any("evil" in h or h.startswith("0.0.0.0") for h in made[-1]["hosts"])
    help_text = CliRunner().invoke(main, ["studio", "--help"]).output
    assert "zonesim studio base --no-browser" in help_text and "--host" in help_text


def test_another_host_warns_and_the_host_check_is_documented(monkeypatch, client):
    """Guard: before, --host 0.0.0.0 printed http://0.0.0.0:PORT/, a Host the server
    refuses (421), and neither --help nor the page said what the Host check admits.
    """
    import uvicorn

    from sim.cli import main

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    made = []
    monkeypatch.setattr("sim.studio.app.create_app", lambda *a, **k: made.append(k) or object())
    for local in ("127.0.0.1", "localhost", "::1"):
        out = CliRunner().invoke(main, ["studio", "--no-browser", "--host", local,
                                        "--port", "8767"])
        assert out.exit_code == 0 and "warning" not in out.output, out.output
    out = CliRunner().invoke(main, ["studio", "--no-browser", "--host", "0.0.0.0",
                                    "--port", "8767"])
    warning = next(line for line in out.output.splitlines() if "warning" in line)
    assert "listening on 0.0.0.0" in warning and "127.0.0.1:8767" in warning
    assert "DNS-rebinding" in warning and f"{socket.gethostname()}:8767" in warning
    url = next(line for line in out.output.splitlines() if "http://" in line)
    assert "http://127.0.0.1:8767/" in url and "127.0.0.1:8767" in made[-1]["hosts"]
    help_text = " ".join(CliRunner().invoke(main, ["studio", "--help"]).output.split())
    assert "Host check" in help_text and "Host header" in help_text and "(421)" in help_text
    page = client.get("/").text
    assert 'id="host-check"' in page and "DNS rebinding" in page and HOST in page


def test_rebalance_suggests_edit_sets_the_page_applies(client):
    """zonesim rebalance from the page: an exact encounter target, one click's edits."""
    r = client.post("/api/rebalance", json={
        "targets": "combat:Bloodsucker:knocked_out <= 0.1", "levers": "enemies.Bloodsucker.*"},
        headers=ORIGIN)
    assert r.status_code == 200, r.text
    evs = events(client, r.json()["run"])
    assert [k for k, _ in evs][-1] == "end" and any(k == "progress" for k, _ in evs)
    found = next(d for k, d in evs if k == "suggestions")
    assert found[0]["role"] == "chosen" and found[0]["cells"][0]["verdict"] == "PASS"
    assert all(key.startswith("enemies.Bloodsucker.") for key in found[0]["edits"])
    check = client.post("/api/validate", json={"edits": found[0]["edits"]}, headers=ORIGIN)
    assert check.json() == {"problems": []}


def test_rebalance_bad_targets_and_stop(client):
    r = client.post("/api/rebalance", json={"targets": "no_such_metric in 0..1"},
                    headers=ORIGIN)
    evs = events(client, r.json()["run"])
    assert any(k == "problem" and "no_such_metric" in d["message"] for k, d in evs)
    run = client.post("/api/rebalance", json={}, headers=ORIGIN).json()["run"]
    client.post(f"/api/runs/{run}/stop", json={}, headers=ORIGIN)
    evs = events(client, run)  # the scenario's own targets, stopped at the first stage
    assert [k for k, _ in evs][-1] == "end"
    assert all(s["role"].startswith("best so far") for d in
               (d for k, d in evs if k == "suggestions") for s in d)


def test_best_play_of_both_sides_and_its_stop(client):
    """zonesim optimize's search for the baseline and the variant (a small budget here)."""
    sides = whatif.best_play(whatif.variant(load_scenario("base"), EDIT), budget=20_000)
    assert [s["side"] for s in sides] == ["baseline", "variant"]
    for s in sides:
        assert s["stopped"] != "interrupted" and s["best"]
        assert 0 <= s["best_play"]["ci_low"] <= s["best_play"]["mc"] <= s["best_play"]["ci_high"]
        assert s["skill_gap"]["diff_ci_low"] <= s["skill_gap"]["diff"]
    run = client.post("/api/bestplay", json={"edits": EDIT}, headers=ORIGIN).json()["run"]
    client.post(f"/api/runs/{run}/stop", json={}, headers=ORIGIN)
    evs = events(client, run)
    assert [k for k, _ in evs][-1] == "end"
    found = [d for k, d in evs if k == "bestplay"]
    assert found and all(s["stopped"] == "interrupted" for s in found[0])  # kept, not judged
    bad = client.post("/api/bestplay", json={"edits": {"enemies.Bloodsucker.endurance": "0"}},
                      headers=ORIGIN)
    assert bad.status_code == 422 and "is not in 1..10" in bad.text
