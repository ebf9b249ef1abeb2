"""Driving wrk (Debian's `wrk` package) and reading its `--latency` report."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
_PERCENTILE = re.compile(r"^\s*(50|75|90|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s|m|h)\s*$", re.MULTILINE)
_RPS = re.compile(r"^Requests/sec:\s+([\d.]+)", re.MULTILINE)
_TOTAL = re.compile(
    r"^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),\s+([\d.]+)(B|KB|MB|GB) read", re.MULTILINE
)
_NON_2XX = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
_SOCKET = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
_SIZES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


@dataclass(frozen=True)
class Request:
    """One HTTP request a scenario repeats: a path and its extra headers."""

    path: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Measurement:
    """What one wrk run reported."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    seconds: float
    bytes_read: int
    non_2xx_3xx: int
    socket_errors: dict[str, int]

    @property
    def failed(self) -> bool:
        """True when any response was an error or any request never got one."""
        return (
            self.requests == 0
            or self.non_2xx_3xx > 0
            or self.socket_errors["connect"] > 0
            or self.socket_errors["timeout"] > 0
        )


def available() -> str | None:
    """The wrk executable, or None when it is not installed."""
    return shutil.which("wrk")


def parse(output: str) -> Measurement:
    """Read requests/s, p50, p99 and error counts from wrk's `--latency` output."""
    percentiles = {int(p): float(v) * _UNITS[u] for p, v, u in _PERCENTILE.findall(output)}
    rps = _RPS.search(output)
    total = _TOTAL.search(output)
    if rps is None or total is None:
        raise ValueError(f"unexpected wrk output:\n{output}")
    if int(total.group(1)) == 0:
        # Nothing completed: no latency to speak of.
        percentiles = {50: math.inf, 99: math.inf}
    elif 50 not in percentiles or 99 not in percentiles:
        raise ValueError(f"unexpected wrk output:\n{output}")
    non_2xx = _NON_2XX.search(output)
    socket = _SOCKET.search(output)
    counts = [int(n) for n in socket.groups()] if socket else [0, 0, 0, 0]
    return Measurement(
        rps=float(rps.group(1)),
        p50_ms=percentiles[50],
        p99_ms=percentiles[99],
        requests=int(total.group(1)),
        seconds=float(total.group(2)) * _UNITS[total.group(3)] / 1000,
        bytes_read=int(float(total.group(4)) * _SIZES[total.group(5)]),
        non_2xx_3xx=int(non_2xx.group(1)) if non_2xx else 0,
        socket_errors=dict(zip(("connect", "read", "write", "timeout"), counts, strict=True)),
    )


def _lua_string(text: str) -> str:
    """A Lua long-bracket string literal holding `text` verbatim."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def cycle_script(requests: list[Request]) -> str:
    """A wrk Lua script that sends the given requests in turn, for warming a server up."""
    lines = ["local requests = {}"]
    for number, request in enumerate(requests, start=1):
        headers = ", ".join(
            f"[ {_lua_string(name)} ] = {_lua_string(value)}" for name, value in request.headers
        )
        lines.append(
            f'requests[{number}] = wrk.format("GET", {_lua_string(request.path)}, {{{headers}}})'
        )
    lines += [
        "local next_one = 0",
        "request = function()",
        "  next_one = next_one % #requests + 1",
        "  return requests[next_one]",
        "end",
    ]
    return "\n".join(lines) + "\n"


def _command(
    base_url: str, seconds: float, threads: int, connections: int, timeout: float
) -> list[str]:
    """The wrk command line shared by every run."""
    return [
        available() or "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        f"--timeout={max(1, round(timeout))}s",
        "--latency",
        base_url,
    ]


def run(
    base_url: str,
    request: Request,
    *,
    seconds: float,
    threads: int,
    connections: int,
    timeout: float = 30,
) -> tuple[Measurement, str]:
    """Run wrk once against `base_url` + the request's path; return the result and the output."""
    command = _command(base_url.rstrip("/") + request.path, seconds, threads, connections, timeout)
    for name, value in request.headers:
        command[1:1] = ["-H", f"{name}: {value}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + timeout + 60)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    return parse(done.stdout), done.stdout


def warm_up(
    base_url: str,
    requests: list[Request],
    *,
    seconds: float,
    threads: int,
    connections: int,
    timeout: float = 30,
) -> None:
    """Send the requests in turn for `seconds`, and throw the numbers away."""
    with tempfile.TemporaryDirectory(prefix="fieldnotes-wrk-") as folder:
        script = Path(folder) / "cycle.lua"
        script.write_text(cycle_script(requests))
        command = _command(base_url, seconds, threads, connections, timeout)
        command[1:1] = ["-s", str(script)]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=seconds + timeout + 60
        )
        if done.returncode != 0 or "requests in" not in done.stdout:
            raise RuntimeError(f"wrk warm-up failed: {done.stderr or done.stdout}")
