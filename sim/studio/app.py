"""The studio's ASGI app: a page, its script and a few JSON and Server-Sent-Events routes.

Routes (every one tested over HTTP in ``tests/studio/test_studio.py``):

``GET /``
    The page (:mod:`sim.studio.page`) of the scenario ``?scenario=NAME`` (one the server
    was started with or a bundled one; never a path).
``GET /static/...``
    The script and style shipped in the package (no CDN: the page works offline).
``GET /api/status``
    The kernels' compile progress (they compile once, when the server starts).
``POST /api/validate``
    ``{"scenario", "edits"}`` -> ``{"problems": [{"key", "message"}]}``
    (:func:`sim.workflows.whatif.check`).
``POST /api/runs``
    ``{"scenario", "edits", "seed", "games"}`` -> ``{"run": ID}``, or 422 with the problems.
``GET /api/runs/ID/events``
    The run's progress as Server-Sent Events: ``snapshot`` (:class:`~sim.workflows.
    whatif.Snapshot`) at least twice a second, ``cards`` (the touched cards' tables),
    ``problem``, then ``end``. Closing the stream (the tab) stops the run.
``POST /api/runs/ID/stop``
    Stops the run within a second; what was played is kept (a last ``stopped`` snapshot).
``POST /api/rebalance``
    ``{"scenario", "targets", "levers", "seed"}`` -> ``{"run": ID}``: a ``zonesim rebalance``
    search in the background (:func:`sim.workflows.whatif.suggestions`), its stream of
    events ``progress``, ``suggestions`` (edit sets the page applies in one click),
    ``problem`` and ``end``; stopped like a run (it keeps the best so far).
``POST /api/bestplay``
    ``{"scenario", "edits", "seed"}`` -> ``{"run": ID}``: ``zonesim optimize``'s search for
    the baseline and the variant in the background (:func:`sim.workflows.whatif.
    best_play`), its events ``progress``, ``bestplay`` (each side's win rate under best
    play and the skill gap), ``problem`` and ``end``; stopped like a run.
``POST /api/export``
    ``{"scenario", "edits"}`` -> a zip download (:func:`sim.workflows.whatif.export_zip`).
``POST /api/report``
    ``{"scenario", "edits", "seed"}`` -> ``{"run": ID}``: ``zonesim report --baseline`` of
    the edits against the scenario as loaded, written in the background under the server's
    reports folder (:mod:`sim.studio.reports`), its events ``progress``, ``report`` (the
    link and the folder), ``problem`` and ``end``; stopped like a run (nothing written).
``GET /reports/ID/NAME``
    A file (``report.html``) of a report folder written here, by the ID the server made;
    any other ID or name is 404.

Every request is checked first (:class:`Guard`): its ``Host`` must be the server's own
(no DNS rebinding), a request with an ``Origin`` must come from the page's own origin and
a ``POST`` must have one (no cross-site request starts a run), and a body may hold at most
:data:`MAX_BODY` bytes. Runs are kept per run ID, so two tabs never mix their numbers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mimetypes
import secrets
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim import jsontext
from sim.errors import InputError, visible
from sim.rules.scenario import Scenario, load_scenario
from sim.studio import page
from sim.studio.reports import Reports, Stopped
from sim.workflows import whatif

STATIC = Path(__file__).parent / "static"
"""The script and style the page loads."""
MAX_BODY = 64 * 1024
"""Bytes a request body may hold (a page's edits are a few hundred)."""
MAX_RUNS = 4
"""Runs at once, over every tab (two cores play them)."""
MAX_GAMES = 10_000_000
"""Games a run may ask for."""
ORPHAN_SECONDS = 30.0
"""A run whose events nobody opened within this long is stopped (its tab went away)."""
HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'self'; "
                                      "style-src 'self'; frame-ancestors 'none'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-store"}
"""Headers of every response: the page runs its own script only, in no frame."""
REPORT_POLICY = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                 "frame-ancestors 'none'; sandbox")
"""A served report's policy instead: its own style and embedded figures, no script at all."""


class Refused(Exception):
    """A request refused with a status and a one-line message (never a traceback)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Run:
    """One run of one tab: its events in order and the switch that stops it."""

    id: str
    stop: threading.Event = field(default_factory=threading.Event)
    events: list[tuple[str, Any]] = field(default_factory=list)
    finished: bool = False
    opened: bool = False
    born: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, kind: str, data: Any) -> None:
        """Add an event (``snapshot``, ``cards``, ``problem``, ``end``) with its data."""
        with self.lock:
            self.events.append((kind, data))

    def since(self, i: int) -> list[tuple[str, Any]]:
        """The events from the ``i``-th on."""
        with self.lock:
            return self.events[i:]


class Studio:
    """The server's state: the scenarios it may open, the compile progress and the runs."""

    def __init__(self, scenario: str | Path | None, hosts: set[str]) -> None:
        self.hosts = hosts
        self.scenarios: dict[str, Scenario] = {}
        first = load_scenario(scenario)
        self.default = visible(Path(first.path).stem, lines=False)
        self.scenarios[self.default] = first
        for path in sorted(Path(first.path).parent.glob("*.toml")) if scenario is None else ():
            loaded = load_scenario(path)
            if not loaded.multiplayer:
                self.scenarios.setdefault(visible(path.stem, lines=False), loaded)
        self.runs: dict[str, Run] = {}
        self.compile: dict[str, Any] = {"done": False, "steps": [], "step": ""}
        self.lock = threading.Lock()

    def scenario(self, name: object) -> tuple[str, Scenario]:
        """The scenario a page or request names (the default when none)."""
        key = self.default if name in (None, "") else name
        if not isinstance(key, str) or key not in self.scenarios:
            raise Refused(404, f"no scenario {jsontext.dumps(str(name))} here (known: "
                          f"{', '.join(self.scenarios)})")
        return key, self.scenarios[key]

    def warm(self, steps: list[tuple[str, Callable[[], object]]]) -> None:
        """Run the compile steps in order, keeping their progress for ``/api/status``."""
        self.compile["steps"] = [{"label": label, "state": "waiting"} for label, _ in steps]
        for i, (label, step) in enumerate(steps):
            self.compile["step"] = label
            self.compile["steps"][i]["state"] = "compiling"
            began = time.monotonic()
            try:
                step()
                self.compile["steps"][i]["state"] = "ready"
            except Exception as error:  # reported on the page and stderr, never fatal
                self.compile["steps"][i]["state"] = f"failed: {error}"
                traceback.print_exc(file=sys.stderr)
            self.compile["steps"][i]["seconds"] = round(time.monotonic() - began, 1)
        self.compile["done"] = True
        self.compile["step"] = ""


def _edits(data: dict) -> dict[str, str]:
    edits = data.get("edits", {})
    if not isinstance(edits, dict) or not all(
            isinstance(k, str) and isinstance(x, str | int | float) for k, x in edits.items()):
        raise Refused(400, "edits must be an object of setting names to values")
    return {k: str(x) for k, x in edits.items()}


def _int(data: dict, key: str, default: int, lo: int, hi: int) -> int:
    value = data.get(key, default)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise Refused(422, f"{key} {jsontext.dumps(value)} is not a whole number in {lo}..{hi}")
    return value


async def _json(request: Request) -> dict:
    """The request's JSON body (an object), at most :data:`MAX_BODY` bytes."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise Refused(413, f"request body over {MAX_BODY} bytes")
    body = b""
    async for part in request.stream():
        body += part
        if len(body) > MAX_BODY:
            raise Refused(413, f"request body over {MAX_BODY} bytes")
    try:
        data = json.loads(body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body is not a JSON object")
    return data


def _problems(troubles) -> JSONResponse:
    return JSONResponse({"problems": [{"key": t.key, "message": t.message} for t in troubles]},
                        status_code=422)


LOCAL = "127.0.0.1"
"""The one address the studio listens on unless told otherwise."""
WILDCARDS = ("0.0.0.0", "::", "")
"""Addresses that listen on every interface of the machine."""
LOOPBACK = (LOCAL, "::1", "localhost")
"""Addresses only this machine reaches: no warning when the studio listens on one."""


def hosts_for(host: str, port: int) -> set[str]:
    """The ``Host`` values a server listening on ``host``:``port`` answers: its address (and
    ``localhost`` for 127.0.0.1); on every interface (``0.0.0.0``), each address and name
    of this machine. Any other name (a DNS-rebinding domain) is refused.
    """
    def shown(h: str) -> str:
        return f"[{h}]:{port}" if ":" in h else f"{h}:{port}"

    names = {host}
    if host == LOCAL:
        names.add("localhost")
    if host in WILDCARDS:
        names = {LOCAL, "localhost", socket.gethostname(), socket.getfqdn()}
        with contextlib.suppress(OSError):
            names |= {str(a[4][0]) for a in socket.getaddrinfo(socket.gethostname(), None)}
    if host not in WILDCARDS:
        names.add(host)
    return {shown(h) for h in names if h}


def create_app(scenario: str | Path | None = None, *, hosts: set[str] | None = None,
               warm: bool = True, reports: Reports | None = None) -> Starlette:
    """The studio for ``scenario`` (a file or bundled name; None: ``base`` and the other
    bundled one-stalker scenarios), answering requests for ``hosts`` (``host:port`` as the
    ``Host`` header writes it).

    ``warm`` compiles the kernels when the server starts, in a thread (``/api/status``).
    ``reports`` holds the Report button's folders (default: a temporary folder, made on
    the first report).

    Raises
    ------
    RulesetError
        A scenario or ruleset that does not load (every problem).
    """
    studio = Studio(scenario, hosts or {LOCAL})
    studio.compile["done"] = not warm
    written = reports or Reports()

    async def index(request: Request) -> Response:
        name, sc = studio.scenario(request.query_params.get("scenario"))
        return HTMLResponse(page.render(sc, name, list(studio.scenarios),
                                        (written.trials, written.campaign_trials),
                                        sorted(studio.hosts)))

    async def status(request: Request) -> Response:
        return JSONResponse({"compile": studio.compile,
                             "runs": sum(not r.finished for r in studio.runs.values())})

    async def validate(request: Request) -> Response:
        data = await _json(request)
        _, sc = studio.scenario(data.get("scenario"))
        troubles = await asyncio.to_thread(whatif.check, sc, _edits(data))
        return JSONResponse({"problems": [{"key": t.key, "message": t.message}
                                          for t in troubles]})

    async def start(request: Request) -> Response:
        data = await _json(request)
        _, sc = studio.scenario(data.get("scenario"))
        seed = _int(data, "seed", 1, 0, 2**31 - 1)
        games = _int(data, "games", 20_000, 1, MAX_GAMES)
        try:
            chosen = await asyncio.to_thread(whatif.variant, sc, _edits(data))
        except whatif.EditError as error:
            return _problems(error.troubles)
        run = _new_run()
        threading.Thread(target=_play, args=(run, chosen, seed, games), daemon=True).start()
        return JSONResponse({"run": run.id})

    def _lines(data: dict, key: str) -> list[str]:
        value = data.get(key, "")
        if not isinstance(value, str):
            raise Refused(400, f"{key} must be text, one per line")
        return [line.strip() for line in value.replace(",", "\n").splitlines()
                if line.strip()] if key == "levers" else [
            line.strip() for line in value.splitlines() if line.strip()]

    async def suggest(request: Request) -> Response:
        data = await _json(request)
        _, sc = studio.scenario(data.get("scenario"))
        targets, levers = _lines(data, "targets"), _lines(data, "levers")
        seed = _int(data, "seed", 0, 0, 2**31 - 1)
        run = _new_run()
        threading.Thread(target=_rebalance, args=(run, sc, targets, levers, seed),
                         daemon=True).start()
        return JSONResponse({"run": run.id})

    async def _edited(request: Request, seed: int, what: str,
                      job: Callable[[Run, Scenario, whatif.Variant, int], None]) -> Response:
        """Start ``job(run, scenario, variant, seed)`` on the request's scenario and edits in
        the background (bad edits: 422 with the problems; ``seed``: the default seed).
        """
        data = await _json(request)
        _, sc = studio.scenario(data.get("scenario"))
        chosen_seed = _int(data, "seed", seed, 0, 2**31 - 1)
        try:
            chosen = await asyncio.to_thread(whatif.variant, sc, _edits(data))
        except whatif.EditError as error:
            return _problems(error.troubles)
        run = _new_run()
        threading.Thread(target=_guarded, args=(
            run, lambda: job(run, sc, chosen, chosen_seed), what), daemon=True).start()
        return JSONResponse({"run": run.id})

    async def best(request: Request) -> Response:
        def job(run: Run, sc: Scenario, chosen: whatif.Variant, seed: int) -> None:
            found = whatif.best_play(chosen, seed=seed, stop=run.stop,
                                     say=lambda line: run.push("progress", {"line": line}))
            run.push("bestplay", jsontext.finite(found))

        return await _edited(request, 0, "the best-play search", job)

    async def report(request: Request) -> Response:
        def job(run: Run, sc: Scenario, chosen: whatif.Variant, seed: int) -> None:
            try:
                done = written.write(sc, chosen, seed=seed, stop=run.stop,
                                     say=lambda line: run.push("progress", {"line": line}))
            except (Stopped, FileExistsError) as error:  # never overwritten: a message
                run.push("problem", {"message": str(error)})
                return
            run.push("report", done)

        return await _edited(request, 1, "the report", job)

    async def served(request: Request) -> Response:
        path = written.file(request.path_params["report"], request.path_params["name"])
        if path is None:
            raise Refused(404, "no such report file")
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return Response(await asyncio.to_thread(path.read_bytes), media_type=kind,
                        headers={"Content-Security-Policy": REPORT_POLICY})

    def _new_run() -> Run:
        with studio.lock:
            for key in [k for k, r in studio.runs.items() if r.finished and r.opened]:
                del studio.runs[key]
            if sum(not r.finished for r in studio.runs.values()) >= MAX_RUNS:
                raise Refused(429, f"{MAX_RUNS} runs are going; stop one first")
            run = Run(secrets.token_urlsafe(16))
            studio.runs[run.id] = run
        return run

    def _rebalance(run: Run, sc: Scenario, targets: list[str], levers: list[str],
                   seed: int) -> None:
        def work() -> None:
            found = whatif.suggestions(sc, targets, levers, seed=seed, stop=run.stop,
                                       say=lambda line: run.push("progress", {"line": line}))
            run.push("suggestions", jsontext.finite(found))

        _guarded(run, work, "the search")

    def _run(request: Request) -> Run:
        run = studio.runs.get(request.path_params["run"])
        if run is None:
            raise Refused(404, "no such run")
        return run

    async def events(request: Request) -> Response:
        run = _run(request)
        if run.opened:
            raise Refused(409, "this run's events are already open")
        run.opened = True

        async def stream():
            i = 0
            try:
                while True:
                    new = run.since(i)
                    for kind, data in new:
                        yield f"event: {kind}\ndata: {jsontext.dumps(data, indent=None)}\n\n"
                    i += len(new)
                    if new and new[-1][0] == "end":
                        return
                    await asyncio.sleep(0.05)
            finally:  # the tab closed or the run ended: nothing more is played
                run.stop.set()

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    async def stop(request: Request) -> Response:
        run = _run(request)
        await _json(request)
        run.stop.set()
        return JSONResponse({"stopping": run.id})

    async def export(request: Request) -> Response:
        data = await _json(request)
        name, sc = studio.scenario(data.get("scenario"))
        try:
            chosen = await asyncio.to_thread(whatif.variant, sc, _edits(data))
        except whatif.EditError as error:
            return _problems(error.troubles)
        body = await asyncio.to_thread(whatif.export_zip, sc, chosen, "studio")
        return Response(body, media_type="application/zip", headers={
            "Content-Disposition": 'attachment; filename="studio.zip"'})

    def _play(run: Run, chosen: whatif.Variant, seed: int, games: int) -> None:
        cards = threading.Thread(target=_cards, args=(run, chosen, seed), daemon=True)

        def work() -> None:
            cards.start()
            try:
                for snap in whatif.stream(chosen, seed=seed, games=games, stop=run.stop):
                    run.push("snapshot", snap.to_dict())
            finally:
                cards.join()

        _guarded(run, work, "the run")

    def _cards(run: Run, chosen: whatif.Variant, seed: int) -> None:
        try:
            rows = whatif.card_tables(chosen, seed=seed)
            run.push("cards", jsontext.finite(rows))
        except InputError as error:
            run.push("cards", [])
            run.push("problem", {"message": str(error)})
        except Exception:
            traceback.print_exc(file=sys.stderr)
            run.push("problem", {"message": "the card tables failed; the server's terminal "
                                 "says why"})

    def _orphans() -> None:
        """Stop runs whose events nobody opened (the tab went before it listened)."""
        while True:
            time.sleep(ORPHAN_SECONDS / 3)
            for run in list(studio.runs.values()):
                if not run.opened and time.monotonic() - run.born > ORPHAN_SECONDS:
                    run.stop.set()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        threading.Thread(target=_orphans, daemon=True).start()
        if warm:
            _, sc = studio.scenario(None)
            threading.Thread(target=studio.warm, args=(whatif.warm_steps(sc),),
                             daemon=True).start()
        yield
        for run in studio.runs.values():
            run.stop.set()

    async def refused(request: Request, error: Exception) -> Response:
        status = error.status if isinstance(error, Refused) else 422
        return JSONResponse({"problems": [{"key": "", "message": str(error)}]},
                            status_code=status)

    async def icon(request: Request) -> Response:
        return Response(status_code=204)

    routes = [Route("/", index), Route("/favicon.ico", icon), Route("/api/status", status),
              Route("/api/validate", validate, methods=["POST"]),
              Route("/api/runs", start, methods=["POST"]),
              Route("/api/runs/{run}/events", events),
              Route("/api/runs/{run}/stop", stop, methods=["POST"]),
              Route("/api/export", export, methods=["POST"]),
              Route("/api/rebalance", suggest, methods=["POST"]),
              Route("/api/bestplay", best, methods=["POST"]),
              Route("/api/report", report, methods=["POST"]),
              Route("/reports/{report}/{name}", served),
              Mount("/static", StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={Refused: refused, InputError: refused})
    app.state.studio = studio
    return Guard(app, studio.hosts)


def _guarded(run: Run, work: Callable[[], None], what: str) -> None:
    """Do a run's ``work`` in its thread: a bad input becomes a ``problem`` event with its
    message, anything else one naming ``what`` (the traceback goes to the server's
    terminal, never to the page); ``end`` comes last whatever happens.
    """
    try:
        work()
    except InputError as error:
        run.push("problem", {"message": str(error)})
    except Exception:
        traceback.print_exc(file=sys.stderr)
        run.push("problem", {"message": f"{what} failed; the server's terminal says why"})
    finally:
        run.push("end", {})
        run.finished = True


class Guard:
    """Checks every request before the app sees it: Host, Origin and body size.

    Parameters
    ----------
    app : ASGI app
    hosts : set of str
        The ``Host`` values the server answers (``127.0.0.1:8765``).
    """

    def __init__(self, app: Starlette, hosts: set[str]) -> None:
        self.app, self.hosts = app, hosts
        self.state = app.state

    async def __call__(self, scope, receive, send) -> None:
        """Refuse a request from another host or origin, else pass it on."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope["headers"]}
        host, origin = headers.get("host", ""), headers.get("origin")
        refused = None
        if host not in self.hosts:
            refused = (421, f"this server answers {', '.join(sorted(self.hosts))}, not "
                       f"{jsontext.dumps(host)}")
        elif origin is not None and origin != f"http://{host}":
            refused = (403, f"requests from {jsontext.dumps(origin)} are refused")
        elif scope["method"] == "POST" and origin is None:
            refused = (403, "a POST needs the page's Origin header")
        if refused is not None:
            await _send(Response(refused[1], status_code=refused[0], media_type="text/plain"),
                        scope, receive, send)
            return

        async def secured(message) -> None:
            if message["type"] == "http.response.start":  # a response's own policy stays
                own = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((k.lower().encode(), v.encode())
                                        for k, v in HEADERS.items()
                                        if k.lower().encode() not in own)]
            await send(message)

        await self.app(scope, receive, secured)


async def _send(response: Response, scope, receive, send) -> None:
    await response(scope, receive, send)


__all__ = ["LOCAL", "LOOPBACK", "MAX_BODY", "WILDCARDS", "Guard", "Refused", "Run", "Studio",
           "create_app", "hosts_for"]
