"""Gunicorn servers for the benchmark (2 sync workers on 127.0.0.1), and plain HTTP fetches."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 2


@dataclass(frozen=True)
class Fetched:
    """One response as it came over the wire (bodies are not decompressed)."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    """A running gunicorn serving one app factory."""

    name: str
    app: str
    port: int
    process: subprocess.Popen
    log: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        """The server's address, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 30) -> str:
        """The end of the server's log, for error messages."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(name: str, app: str, env: dict[str, str], log_dir: Path) -> Server:
    """Start `gunicorn -w 2` for the app factory `app` with extra environment `env`."""
    port = free_port()
    log = log_dir / f"{name}.log"
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        f"--workers={WORKERS}",
        "--worker-class=sync",
        f"--bind=127.0.0.1:{port}",
        "--log-level=warning",
        app,
    ]
    environment = os.environ | {"PYTHONPATH": str(ROOT)} | env
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Server(name, app, port, process, log, env)


def fetch(server: Server, path: str, headers: dict[str, str] | None = None) -> Fetched:
    """GET `path` from the server once."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return Fetched(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
    finally:
        connection.close()


def wait_ready(server: Server, timeout: float = 300) -> None:
    """Wait until the server answers HTTP (any status), or fail with its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited at startup:\n{server.log_tail()}")
        try:
            fetch(server, "/robots.txt")
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{server.name} did not answer within {timeout:.0f} s:\n{server.log_tail()}")


def settle(server: Server) -> None:
    """Wait until requests left queued by an ended wrk run have been served.

    wrk stops sending when its time is up, but the connections it opened stay in gunicorn's
    backlog and are still served; measuring the next row before they drain would charge it
    for them. A request queues behind them, so once two in a row have answered, the workers
    are free again.
    """
    for _ in range(2):
        try:
            fetch(server, "/robots.txt")
        except (OSError, http.client.HTTPException):
            time.sleep(1)


def stop(server: Server) -> None:
    """Stop the server's process group (gunicorn and its workers), which we started."""
    if server.process.poll() is not None:
        return
    os.killpg(server.process.pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
