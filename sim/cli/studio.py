"""``zonesim studio``: a what-if page in the browser (issue 49), served on this machine."""

from __future__ import annotations

import socket
import webbrowser

import click

from sim.cli import common


def free_port(host: str) -> int:
    """A port nothing listens on at ``host`` now (the system's choice)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@click.command(cls=common.Command)
@click.argument("scenario", required=False)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any other than 127.0.0.1 lets other machines in "
                   "(a warning says so).")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port to listen on (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the URL without opening a browser.")
def studio(scenario: str | None, host: str, port: int, no_browser: bool) -> None:
    """Edit cards, rules and play in the browser: live paired results with intervals.

    Starts a local web server for SCENARIO (a file or bundled name; default: base and
    the other bundled one-stalker scenarios), prints its URL and opens it in the browser.
    Edit any setting or card cell; a run plays the scenario as loaded against the edited
    one on common random numbers, with anytime-valid 95 % intervals that update as games
    accrue. The kernels compile once, when the server starts. Ctrl-C stops the server.

    \b
    Example:
      zonesim studio base --no-browser --port 8765
    """
    import uvicorn

    from sim.studio.app import LOCAL, create_app, hosts_for

    if host != LOCAL:
        click.echo(f"zonesim studio: warning: listening on {host}: other machines that reach "
                   "it can open the studio and run games on this one", err=True)
    port = port or free_port(host)
    shown = f"[{host}]" if ":" in host else host
    app = create_app(scenario, hosts=hosts_for(host, port))
    url = f"http://{shown}:{port}/"
    click.echo(f"zonesim studio: {url} (Ctrl-C stops it)")
    if not no_browser:
        webbrowser.open(url)
    uvicorn.run(app, host=host, port=port, log_level="warning")
