"""``--scheduler`` with a malformed or unreachable address: one line, exit 2 (issue 43).

Every command taking ``--scheduler`` (optimize, sweep, levers) asks the address who it is
(:func:`sim.workflows.sweep.check_scheduler`) before any work: a malformed address, a
closed port or a stranger's answer is a usage error naming the option and the value,
never a traceback after the work. Only loopback is used: a port just closed again, and a
plain TCP server that answers garbage, each under a short timeout.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.workflows import sweep as sweep_module
from sim.workflows.sweep import SweepError, check_scheduler
from tests.hostile import forbid_trials

COMMANDS = {
    "optimize": ["optimize", "base", "--keys", "flee_at", "--trials", "100", "--budget",
                 "1000", "--fresh-trials", "100"],
    "sweep": ["sweep", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--trials", "1000",
              "--vary", "enemies.Bloodsucker.endurance=2..3"],
    "levers": ["levers", "base", "--experiment", "combat", "--card", "Bloodsucker",
               "--trials", "1000", "--tables", "enemies"],
}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def stranger():
    """A loopback TCP server that answers every connection with bytes no Dask speaks."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"\xff" * 64)

    threading.Thread(target=serve, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    server.close()


@pytest.mark.parametrize("address", ["not an address", "tcp://127.0.0.1:99999",
                                     "foo://127.0.0.1:1", "tcp://[::1"])
def test_a_malformed_address_is_refused_at_once(address):
    with pytest.raises(SweepError, match="not a Dask scheduler address") as error:
        check_scheduler(address)
    assert error.value.field == "scheduler"


def test_a_closed_port_and_a_stranger_are_refused_within_the_timeout(stranger):
    start = time.monotonic()
    with pytest.raises(SweepError, match="no Dask scheduler answers there"):
        check_scheduler(f"tcp://127.0.0.1:{_closed_port()}", timeout=1)
    with pytest.raises(SweepError, match="not a Dask scheduler"):
        check_scheduler(stranger, timeout=1)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("kind", ["malformed", "closed", "stranger"])
def test_every_command_refuses_the_address_in_one_line_before_any_work(
        command, kind, tmp_path, monkeypatch, stranger):
    monkeypatch.setattr(sweep_module, "CONNECT_TIMEOUT", 1.0)
    forbid_trials(monkeypatch)
    address = {"malformed": "tcp://host:notaport", "closed": f"tcp://127.0.0.1:{_closed_port()}",
               "stranger": stranger}[kind]
    args = [*COMMANDS[command], "--scheduler", address]
    if command != "optimize":
        args += ["--out", str(tmp_path / "results")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "--scheduler" in result.output and repr(address) in result.output
    assert "Traceback" not in result.output and result.exception is not None
    assert not (tmp_path / "results").exists()
