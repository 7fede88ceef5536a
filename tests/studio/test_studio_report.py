"""The studio's Report button over HTTP (issue 49, "Share and keep"): ``zonesim report
--baseline`` of the page's edits, written under the server's reports folder and served by
an ID the server made, never by a path the browser names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from sim.rules.scenario import load_scenario
from sim.studio.app import create_app
from sim.studio.reports import Reports
from tests.studio.test_studio import EDIT, HOST, ORIGIN, events

EDITS = {**EDIT, "targets.p_survive.low": "0.2", "targets.p_survive.high": "1"}
"""A card edit and a target the report judges (the targets grid's entries)."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reports")


@pytest.fixture(scope="module")
def client(folder):
    reports = Reports(folder, trials=200, campaign_trials=200)
    return TestClient(create_app("base", hosts={HOST}, warm=False, reports=reports),
                      base_url=f"http://{HOST}")


@pytest.fixture(scope="module")
def written(client) -> dict:
    """The report of the page's edits (enemies.Bloodsucker.endurance = 3, and a target
    added in the targets grid) from the button."""
    r = client.post("/api/report", json={"scenario": "base", "edits": EDITS, "seed": 3},
                    headers=ORIGIN)
    assert r.status_code == 200, r.text
    evs = events(client, r.json()["run"])
    assert [k for k, _ in evs][-1] == "end"
    assert not [d for k, d in evs if k == "problem"], evs
    assert any(k == "progress" for k, _ in evs)
    return next(d for k, d in evs if k == "report")


def test_report_compares_the_edited_value_with_the_baseline(written, folder):
    on_disk = Path(written["folder"])
    assert on_disk.parent == folder.resolve() and (on_disk / "report.html").is_file()
    assert written["trials"] == 200 and written["campaign_trials"] == 200
    meta = json.loads((on_disk / "metadata.json").read_text(encoding="utf-8"))
    assert meta["trials"] == 200 and meta["baseline"]["given"] == str(
        load_scenario("base").path)
    assert {"p_sarcophagus in 0.35..0.55", "p_survive in 0.2..1"} <= set(meta["targets"])
    # the changed cell, its baseline value beside the edited one
    before = load_scenario("base").ruleset.enemies["Bloodsucker"].endurance
    assert before != 3
    cells = (on_disk / "changed_cells.csv").read_text(encoding="utf-8")
    line = next(x for x in cells.splitlines() if "Bloodsucker" in x and "endurance" in x)
    assert str(before) in line.split(",") and "3" in line.split(","), line


def test_the_link_serves_the_written_report(client, written):
    assert written["url"] == f"/reports/{written['id']}/report.html"
    r = client.get(written["url"])
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "Bloodsucker" in r.text and "endurance" in r.text
    on_disk = (Path(written["folder"]) / "report.html").read_text(encoding="utf-8")
    assert r.text == on_disk
    policy = r.headers.get_list("content-security-policy")
    assert len(policy) == 1 and "sandbox" in policy[0] and "script-src" not in policy[0]


def test_a_crafted_id_or_path_is_refused(client, written, folder, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the page", encoding="utf-8")
    (folder / "planted.txt").write_text("not written by a report", encoding="utf-8")
    (Path(written["folder"]) / "link.txt").symlink_to(secret)
    key = written["id"]
    for url in [f"/reports/{key}/../planted.txt", f"/reports/{key}/%2e%2e%2fplanted.txt",
                f"/reports/{key}/..%2fplanted.txt", f"/reports/{key}/..",
                f"/reports/{key}/%2e%2e", f"/reports/{key}/{secret}",
                f"/reports/{key}/%2F{str(secret).lstrip('/')}",
                f"/reports/{key}/link.txt", f"/reports/{key}/.hidden",
                "/reports/not-an-id/report.html", f"/reports/{key[:-1]}/report.html",
                f"/reports/../{Path(written['folder']).name}/report.html",
                f"/reports/{Path(written['folder']).name}/report.html",
                f"/reports/{key}/", "/reports/%2e%2e/planted.txt"]:
        r = client.get(url)
        assert r.status_code == 404, url
        assert "not for the page" not in r.text and "not written" not in r.text, url


def test_report_start_checks_origin_and_edits(client):
    body = {"scenario": "base", "edits": EDIT}
    assert client.post("/api/report", json=body).status_code == 403  # no Origin
    assert client.post("/api/report", json=body, headers={"Origin": "http://evil.example"}
                       ).status_code == 403
    assert client.get("/reports/x/report.html", headers={"Host": "evil.example:8765"}
                      ).status_code == 421
    r = client.post("/api/report", json={"edits": {"enemies.Bloodsucker.endurance": "lots"}},
                    headers=ORIGIN)
    assert r.status_code == 422 and r.json()["problems"][0]["key"] == (
        "enemies.Bloodsucker.endurance")


def test_a_failing_report_shows_its_message(client, monkeypatch):
    """An error in the report is a ``problem`` event with its message, never a 500."""
    from sim.errors import InputError
    from sim.studio import reports

    def refuse(*args, **kwargs):
        raise InputError("targets.p_win: a made-up reason")

    monkeypatch.setattr(reports, "run_report", refuse)
    r = client.post("/api/report", json={"edits": EDIT}, headers=ORIGIN)
    assert r.status_code == 200
    evs = events(client, r.json()["run"])
    assert [k for k, _ in evs][-1] == "end" and not any(k == "report" for k, _ in evs)
    assert any(k == "problem" and "a made-up reason" in d["message"] for k, d in evs)


def test_stop_writes_nothing(client, folder):
    before = sorted(p.name for p in folder.iterdir())
    run = client.post("/api/report", json={"edits": EDIT}, headers=ORIGIN).json()["run"]
    client.post(f"/api/runs/{run}/stop", json={}, headers=ORIGIN)
    evs = events(client, run)
    assert any(k == "problem" and d["message"].startswith("stopped") for k, d in evs)
    assert not any(k == "report" for k, _ in evs)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_page_has_the_report_button_and_says_its_trials(client):
    text = client.get("/").text
    assert 'id="write-report"' in text and "200 trials per table and 200 games" in text


def test_command_reports_option_and_its_default(monkeypatch, tmp_path):
    """--reports DIR is where the button writes; without it, a new temporary folder (never
    the working folder), named on the terminal.
    """
    import tempfile

    import uvicorn
    from click.testing import CliRunner

    from sim.cli import main

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    made = []
    monkeypatch.setattr("sim.studio.app.create_app", lambda *a, **k: made.append(k) or object())
    out = CliRunner().invoke(main, ["studio", "--no-browser", "--port", "8766",
                                    "--reports", str(tmp_path / "mine")])
    assert out.exit_code == 0, out.output
    assert made[-1]["reports"].root == (tmp_path / "mine").resolve()
    assert f"reports go to {(tmp_path / 'mine').resolve()}" in out.output
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    out = CliRunner().invoke(main, ["studio", "--no-browser", "--port", "8766"])
    assert out.exit_code == 0, out.output
    root = made[-1]["reports"].root
    assert root.parent == (tmp_path / "temp").resolve() and root.is_dir()
    assert not any(root.iterdir())
    help_text = CliRunner().invoke(main, ["studio", "--help"]).output
    assert "--reports" in help_text and "temporary folder" in help_text
