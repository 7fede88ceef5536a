"""``zonesim studio``: a what-if page in the browser (issue 49), served on this machine."""

from __future__ import annotations

import socket
import tempfile
import webbrowser
from pathlib import Path

import click

from sim.cli import common
from sim.errors import visible


def free_port(host: str) -> int:
    """A port nothing listens on at ``host`` now (the system's choice)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@click.command(cls=common.Command)
@click.argument("scenario", required=False)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any but this machine's own (127.0.0.1, ::1, "
                   "localhost) lets other machines in, and a warning says so. Whatever "
                   "the address, the server answers only requests whose Host header names "
                   "it (its address, or with 0.0.0.0 or :: this machine's names and "
                   "addresses, listed at start), so a DNS-rebinding domain is refused "
                   "(421); a request from another page's Origin is refused (403).")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port to listen on (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL without opening a browser.")
@click.option("--reports", type=click.Path(file_okay=False, path_type=Path),
              help="Folder the Report button writes its before/after report folders in, "
                   "each under a new name (default: a new temporary folder made at start, "
                   "so nothing lands in the working folder; its name is printed).")
def studio(scenario: str | None, host: str, port: int, no_browser: bool,
           reports: Path | None) -> None:
    """Edit cards, rules and play in the browser: live paired results with intervals.

    Starts a local web server for SCENARIO (a file or bundled name; default: base and
    the other bundled one-stalker scenarios), prints its URL and opens it in the browser.
    Edit any setting or card cell; a run plays the scenario as loaded against the edited
    one on common random numbers, with anytime-valid 95 % intervals that update as games
    accrue. The kernels compile once, when the server starts. Ctrl-C stops the server.
    The Report button writes zonesim report --baseline's folder of the edits (fewer
    trials) under --reports and links its report.html.

    Host check: the server answers a request only when its Host header names the
    server as --host does (0.0.0.0 or ::: this machine's names and addresses), and a
    POST only from the page's own Origin: another site, or a domain rebound to this
    machine's address, cannot start a run.

    \b
    Example:
      zonesim studio base --no-browser --port 8765
    """
    import uvicorn

    from sim.studio.app import LOCAL, LOOPBACK, WILDCARDS, create_app, hosts_for
    from sim.studio.reports import Reports

    port = port or free_port(host)
    hosts = hosts_for(host, port)
    if host not in LOOPBACK:
        click.echo(f"zonesim studio: warning: listening on {visible(host, lines=False)}: "
                   "other machines that reach it can open the studio and run games on this "
                   "one. It answers only a Host header of "
                   f"{visible(', '.join(sorted(hosts)), lines=False)} (any other name, "
                   "a DNS-rebinding domain, is refused)", err=True)
    local = LOCAL if host in WILDCARDS else host  # a URL whose Host the server answers
    shown = f"[{local}]" if ":" in local else local
    written = Reports(reports if reports is not None
                      else tempfile.mkdtemp(prefix="zonesim-studio-reports-"))
    app = create_app(scenario, hosts=hosts, reports=written)
    url = f"http://{shown}:{port}/"
    click.echo(f"zonesim studio: {url} (Ctrl-C stops it)")
    click.echo(f"zonesim studio: reports go to {visible(str(written.root), lines=False)}")
    if not no_browser:
        webbrowser.open(url)
    uvicorn.run(app, host=host, port=port, log_level="warning")
