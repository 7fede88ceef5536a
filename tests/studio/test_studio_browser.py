"""zonesim studio in a real browser (issue 49): Selenium 4 driving Debian's chromium.

The server runs on 127.0.0.1 in the test process; headless Chromium loads the page, edits
the Bloodsucker's endurance 4 -> 3, runs, and the paired difference it shows agrees with
``zonesim compare campaign`` on the same seed within its interval; Stop ends a long run
and keeps what was played; the shared URL restores the inputs and gives the same numbers;
a card named ``<script>alert(1)</script>`` shows as text and runs nothing.

Needs the Debian packages ``chromium`` and ``chromium-driver`` and the Python package
``selenium`` (the test extra); without them every test here is skipped with one line
naming them, unless ``ZONESIM_REQUIRE_BROWSER=1`` (``.ci/run`` sets it), which makes
the skip a failure. No browser or driver is ever downloaded: both paths are given.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.paths import bundled_ruleset, configs_root

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
NEEDS = ("needs the Debian packages chromium and chromium-driver (apt-get install -y chromium "
         "chromium-driver) and the Python package selenium")
pytestmark = pytest.mark.subprocess  # the browser and its driver are child processes
WAIT = 240  # seconds: the first run may compile the kernels on a loaded machine


def _found(paths):
    return next((p for p in paths if Path(p).is_file()), None) or \
        shutil.which(Path(paths[0]).name)


def _browser_or_skip():
    try:
        import selenium  # noqa: F401
    except ImportError:
        selenium = None
    chromium, driver = _found(CHROMIUM), _found(DRIVER)
    if selenium is None or chromium is None or driver is None:
        if os.environ.get("ZONESIM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ZONESIM_REQUIRE_BROWSER=1: {NEEDS}")
        pytest.skip(NEEDS)
    return chromium, driver


def serve(scenario, reports=None):
    """The studio on a free port of 127.0.0.1 in a thread (``reports``: its
    :class:`~sim.studio.reports.Reports`); returns (url, server)."""
    import uvicorn

    from sim.studio.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(scenario, hosts={f"127.0.0.1:{port}"}, warm=False, reports=reports)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}/", server


def chrome(chromium, driver_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1500,1100", "--disable-gpu"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)


@pytest.fixture(scope="module")
def browser():
    chromium, driver_path = _browser_or_skip()
    driver = chrome(chromium, driver_path)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def studio():
    _browser_or_skip()
    url, server = serve("base")
    yield url, server.config.app.state.studio
    server.should_exit = True


def wait(driver, condition, seconds=WAIT):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(d))


def open_table(driver, table):
    driver.execute_script(
        "document.querySelector(`table[data-table='${arguments[0]}']`)"
        ".closest('details').open = true", table)


def edit(driver, name, value):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(By.NAME, name)
    box.clear()
    box.send_keys(value, Keys.TAB)


def set_field(driver, element_id, value):
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, element_id)
    box.clear()
    box.send_keys(str(value))


def win_difference(driver):
    """The win rate's paired difference and its interval, as the page holds them."""
    from selenium.webdriver.common.by import By

    cell = driver.find_element(By.CSS_SELECTOR, "tr[data-metric='p_sarcophagus'] td.diff")
    return tuple(float(cell.get_attribute(f"data-{k}")) for k in ("value", "low", "high"))


def run_to(driver, state):
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: d.find_element(By.ID, "status").get_attribute("data-state") == state)


def share_and_open(driver, seed, name, value):
    """Copy URL, open it afresh, and wait until input ``name`` holds ``value`` again."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "share").click()
    wait(driver, lambda d: f"seed={seed}" in d.current_url)
    shared = driver.current_url
    driver.get("about:blank")
    driver.get(shared)
    wait(driver, lambda d: d.find_element(By.NAME, name).get_attribute("value") == value)


def compare_campaign(seed, games, variant="edit=enemies.Bloodsucker.endurance=3"):
    """``zonesim compare campaign``'s row of the win rate's paired difference."""
    from sim.cli import main

    out = CliRunner().invoke(main, [
        "compare", "campaign", "base", "--baseline", "", "--variant", variant,
        "--seed", str(seed), "--trials", str(games), "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)["rows"]
    return next(r for r in rows if r["metric"] == "p_sarcophagus" and r["verdict"] != "baseline")


def test_edit_run_stop_share_and_close(browser, studio):
    from selenium.webdriver.common.by import By

    studio, state = studio
    browser.get(studio)
    wait(browser, lambda d: d.find_element(By.ID, "compile").get_attribute("data-done"))
    open_table(browser, "enemies")
    edit(browser, "enemies.Bloodsucker.endurance", "3")
    wait(browser, lambda d: "enemies.Bloodsucker.endurance = 3" in d.find_element(By.ID,
                                                                                  "edits").text)
    set_field(browser, "seed", 7)
    set_field(browser, "games", 3000)
    run_to(browser, "done")
    diff, low, high = win_difference(browser)
    cli = compare_campaign(7, 3000)
    assert diff == pytest.approx(cli["diff"], abs=1e-12)
    assert low <= cli["diff"] <= high and low <= diff <= high
    assert cli["diff_ci_low"] >= low - 1e-12 or cli["diff_ci_high"] <= high + 1e-12
    rows = browser.find_elements(By.CSS_SELECTOR, "#cards tbody tr")
    assert rows and "Bloodsucker" in rows[0].text  # the touched card's deck table

    # Stop: a long run ends within a second of the click, keeping what was played
    set_field(browser, "games", 10_000_000)
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: int(d.find_element(By.ID, "status").get_attribute("data-games")
                                or 0) > 0
         and d.find_element(By.ID, "status").get_attribute("data-state") == "running")
    browser.find_element(By.ID, "stop").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state")
         == "stopped", seconds=30)
    status = browser.find_element(By.ID, "status")
    assert 0 < int(status.get_attribute("data-games")) < 10_000_000
    assert len(browser.find_elements(By.CSS_SELECTOR, "#history tbody tr")) == 2

    # Share: the URL restores the inputs and gives the same numbers
    set_field(browser, "games", 3000)
    share_and_open(browser, 7, "enemies.Bloodsucker.endurance", "3")
    assert browser.find_element(By.ID, "seed").get_attribute("value") == "7"
    run_to(browser, "done")
    assert win_difference(browser) == (diff, low, high)

    # Closing the tab (leaving the page) stops its run on the server
    set_field(browser, "games", 10_000_000)
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: d.find_element(By.ID, "status").get_attribute("data-state")
         == "running")
    running = [r for r in state.runs.values() if not r.finished]
    assert len(running) == 1 and not running[0].stop.is_set()
    browser.get("about:blank")
    wait(browser, lambda d: running[0].finished, seconds=30)
    assert running[0].stop.is_set()
    stopped = [d for k, d in running[0].events if k == "snapshot"][-1]
    assert stopped["state"] == "stopped" and stopped["games"] < 10_000_000


def test_a_script_in_a_card_name_stays_text(browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    folder = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    csv = folder / "enemies.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace(
        "Snork,", '"<script>alert(1)</script>",', 1), encoding="utf-8")
    text = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "named.toml"
    scenario.write_text(text.replace('ruleset = "base"', f'ruleset = "{folder}"'),
                        encoding="utf-8")
    url, server = serve(scenario)
    try:
        browser.get(url)
        open_table(browser, "enemies")
        names = [th.text for th in browser.find_elements(By.CSS_SELECTOR,
                                                         "table[data-table='enemies'] th.card")]
        assert "<script>alert(1)</script>" in names
        with pytest.raises(NoAlertPresentException):
            browser.switch_to.alert.text  # noqa: B018 - reading it is the check
        edit(browser, "enemies.<script>alert(1)</script>.endurance", "99")
        wait(browser, lambda d: "99 is not in 1..10" in d.find_element(By.ID, "problems").text)
        with pytest.raises(NoAlertPresentException):
            browser.switch_to.alert.text  # noqa: B018
    finally:
        server.should_exit = True


def test_without_the_packages_the_tests_skip_unless_ci_requires_them(monkeypatch):
    import tests.studio.test_studio_browser as me

    monkeypatch.setattr(me, "CHROMIUM", ("/nonexistent/chromium",))
    monkeypatch.setattr(me.shutil, "which", lambda name: None)
    monkeypatch.delenv("ZONESIM_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium and chromium-driver"):
        me._browser_or_skip()
    monkeypatch.setenv("ZONESIM_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="ZONESIM_REQUIRE_BROWSER=1"):
        me._browser_or_skip()


def test_rebalance_suggestion_applied_in_one_click(browser, studio):
    from selenium.webdriver.common.by import By

    url, _ = studio
    browser.get(url)
    browser.execute_script("document.getElementById('rebalance').open = true")
    targets = browser.find_element(By.ID, "targets")
    targets.clear()
    targets.send_keys("combat:Bloodsucker:knocked_out <= 0.1")
    set_field(browser, "levers", "enemies.Bloodsucker.*")
    browser.find_element(By.ID, "suggest").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#suggestions button"))
    first = browser.find_element(By.CSS_SELECTOR, "#suggestions tbody tr")
    assert first.text.startswith("chosen") and "PASS" in first.text
    first.find_element(By.TAG_NAME, "button").click()
    wait(browser, lambda d: "enemies.Bloodsucker." in d.find_element(By.ID, "edits").text)
    assert not browser.find_element(By.ID, "problems").text


def test_report_button_links_the_written_report(browser, tmp_path):
    """The Report button of an edited page: the link opens the report, which compares the
    edited cell with the baseline's; the folder on disk is named as text.
    """
    from selenium.webdriver.common.by import By

    from sim.studio.reports import Reports

    url, server = serve("base", Reports(tmp_path, trials=200, campaign_trials=200))
    try:
        browser.get(url)
        open_table(browser, "enemies")
        edit(browser, "enemies.Bloodsucker.endurance", "3")
        browser.execute_script("document.getElementById('report').open = true")
        browser.find_element(By.ID, "write-report").click()
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#report-done a"))
        done = browser.find_element(By.ID, "report-done").text
        folder = next(tmp_path.iterdir())
        assert str(folder) in done and (folder / "report.html").is_file()
        browser.get(browser.find_element(By.CSS_SELECTOR, "#report-done a").get_attribute("href"))
        assert "Bloodsucker" in browser.page_source and "endurance" in browser.page_source
    finally:
        server.should_exit = True


def choose(driver, name, value):
    """Pick the option of value ``value`` in the select named ``name``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.NAME, name)).select_by_value(value)


def test_an_artefact_use_and_a_weight_set_on_the_page_run_and_share(browser, studio):
    """The table settings' inputs: Flash never used (P-08) and a wound's weight, checked as
    made, run (whole games play the use: ``zonesim compare campaign``'s numbers), and a
    shared URL restores both; a bad weight gets the loader's message.
    """
    from selenium.webdriver.common.by import By

    url, _ = studio
    browser.get(url)
    browser.execute_script("for (const d of document.querySelectorAll('details.entries')) "
                           "{ d.closest('details:not(.entries)').open = true; d.open = true; }")
    choose(browser, "policy.artifact_use.Flash", "never")
    edit(browser, "policy.weights.wound", "-1")
    wait(browser, lambda d: "policy.weights.wound': -1 is not a number of 0 or more" in
         d.find_element(By.ID, "problems").text)
    edit(browser, "policy.weights.wound", "2")
    wait(browser, lambda d: {"policy.artifact_use.Flash = never", "policy.weights.wound = 2"}
         <= set(d.find_element(By.ID, "edits").text.removeprefix("edits: ").split("; "))
         and not d.find_element(By.ID, "problems").text)
    set_field(browser, "seed", 4)
    set_field(browser, "games", 1500)
    run_to(browser, "done")
    diff, low, high = win_difference(browser)
    cli = compare_campaign(4, 1500, "artifact_use=Flash:never")
    assert diff == pytest.approx(cli["diff"], abs=1e-12) and low <= diff <= high
    history = browser.find_element(By.CSS_SELECTOR, "#history tbody tr").text
    assert "policy.artifact_use.Flash = never" in history
    share_and_open(browser, 4, "policy.artifact_use.Flash", "never")
    assert browser.find_element(By.NAME, "policy.weights.wound").get_attribute("value") == "2"
