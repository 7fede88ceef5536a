"""zonesim studio: the compile at start, a what-if round trip and the first partial result.

Run: ``python benchmarks/bench_studio.py`` (after ``pip install -e ".[test]"``). Starts the
studio on 127.0.0.1 in this process (uvicorn in a thread, kernels compiled at start as
``zonesim studio`` does) and talks to it over real HTTP, as the page does:

- the compile at start: seconds until ``/api/status`` says every kernel is ready (cold
  when the numba cache is empty, else loading it);
- the what-if round trip (issue 49 target: 3 s on this 2-core machine): one card edit
  (Bloodsucker endurance 4 -> 3), from the POST that starts the run until the whole-game
  win rate's paired difference carries an anytime-valid interval of +-1 percentage point;
- the time to the first partial result (target: 1 s): from the POST to the first
  ``snapshot`` event.

Each is the median of ``--repeat`` runs (default 3) on fresh seeds, printed beside its
target with ``uptime`` (the load: nine agents share the two cores here, so figures move).

``--screenshots DIR`` also drives headless Chromium (Debian's chromium and
chromium-driver, Selenium) and saves ``DIR/studio-before.png`` (an edit made, no run),
``studio-during.png`` (a run streaming) and ``studio-after.png`` (the run done).
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import uvicorn

from sim.studio.app import create_app

EDIT = {"enemies.Bloodsucker.endurance": "3"}
ROUND_TRIP_TARGET = 3.0
FIRST_TARGET = 1.0
HALF_WIDTH = 0.01


def serve() -> tuple[str, uvicorn.Server]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app("base", hosts={f"127.0.0.1:{port}"}, warm=True)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server


def request(url: str, path: str, body: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, headers={
        "Origin": url, "Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=600)


def compiled(url: str) -> float:
    began = time.monotonic()
    while True:
        status = json.load(request(url, "/api/status"))["compile"]
        if status["done"]:
            return time.monotonic() - began
        time.sleep(0.1)


def round_trip(url: str, seed: int) -> tuple[float, float, int, float]:
    """(seconds to the first snapshot, seconds to +-1 pp, games then, the difference)."""
    began = time.monotonic()
    run = json.load(request(url, "/api/runs", {"edits": EDIT, "seed": seed,
                                               "games": 10_000_000}))["run"]
    first = None
    with request(url, f"/api/runs/{run}/events") as stream:
        kind = None
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "snapshot":
                snap = json.loads(line[6:])
                first = first if first is not None else time.monotonic() - began
                win = snap["rows"][0]
                if (win["diff_high"] - win["diff_low"]) / 2 <= HALF_WIDTH:
                    took = time.monotonic() - began
                    request(url, f"/api/runs/{run}/stop", {})
                    return first, took, snap["games"], win["diff"]
    raise RuntimeError("the run ended before +-1 pp")


def screenshots(url: str, folder: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1600,1200"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url + "/")
        driver.execute_script("document.querySelector(\"table[data-table='enemies']\")"
                              ".closest('details').open = true")
        box = driver.find_element(By.NAME, "enemies.Bloodsucker.endurance")
        box.clear()
        box.send_keys("3", Keys.TAB)
        for field, value in (("seed", "11"), ("games", "40000")):
            el = driver.find_element(By.ID, field)
            el.clear()
            el.send_keys(value)
        time.sleep(1)
        folder.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(folder / "studio-before.png"))
        driver.find_element(By.ID, "start").click()
        state = lambda d: d.find_element(By.ID, "status").get_attribute("data-state")  # noqa: E731
        WebDriverWait(driver, 120, 0.05).until(lambda d: state(d) == "running")
        driver.save_screenshot(str(folder / "studio-during.png"))
        WebDriverWait(driver, 600, 0.2).until(lambda d: state(d) == "done")
        time.sleep(2)  # the touched card's table
        driver.save_screenshot(str(folder / "studio-after.png"))
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--screenshots", type=Path)
    args = parser.parse_args()
    url, server = serve()
    print(f"compile at start: {compiled(url):.1f} s  (load: {_uptime()})")
    runs = [round_trip(url, seed) for seed in range(1, args.repeat + 1)]
    first = statistics.median(r[0] for r in runs)
    trip = statistics.median(r[1] for r in runs)
    for r in runs:
        print(f"  first result {r[0]:.2f} s, +-1 pp after {r[1]:.2f} s and {r[2]:,} games "
              f"per side (difference {100 * r[3]:+.2f} pp)")
    print(f"first partial result: {first:.2f} s (target {FIRST_TARGET:g} s)")
    print(f"what-if round trip to +-1 pp: {trip:.2f} s (target {ROUND_TRIP_TARGET:g} s)")
    print(f"load: {_uptime()}")
    if args.screenshots:
        screenshots(url, args.screenshots)
        print(f"screenshots in {args.screenshots}")
    server.should_exit = True


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
