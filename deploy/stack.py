"""The production stack on one machine: nginx in front of two gunicorn app servers, on one
PostgreSQL database and one Redis for the login limits.

`make serve` and `make serve-stop` run this module, and so do the deploy tests (on ports,
directories and a database of their own):

    .venv/bin/python -m deploy.stack up [--port 8080] [--app-ports 8081,8082] [--state-dir DIR]
    .venv/bin/python -m deploy.stack down [--state-dir DIR]

Everything it starts writes a pid file in the state directory (instance/stack/ by default,
outside git), and `down` stops exactly those processes, after checking that each pid still
belongs to a process this stack started.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent
DEFAULT_STATE = ROOT / "instance" / "stack"
DEFAULT_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/fieldnotes"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
NGINX_CANDIDATES = ("/usr/sbin/nginx", "/usr/bin/nginx")
MIME_TYPES = Path("/etc/nginx/mime.types")
START_SECONDS = 30


class StackError(RuntimeError):
    """The stack could not be brought up; the message says which part and why."""


def nginx_binary() -> str | None:
    """Debian's nginx, or whichever nginx is on the PATH; None when there is none."""
    for candidate in NGINX_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("nginx")


def credential_cookies() -> tuple[str, ...]:
    """The cookie names that can carry a signed-in editor, as the app's settings name them."""
    from flask import Flask

    from blog.config import Config
    from blog.web.viewer import credential_cookies as names

    settings = {**Flask.default_config, **{k: v for k, v in vars(Config).items() if k.isupper()}}
    return names(settings)


def largest_request() -> int:
    """The largest request body the app accepts, in bytes (MAX_CONTENT_LENGTH)."""
    from blog.config import Config

    return int(Config.MAX_CONTENT_LENGTH)


@dataclass
class Stack:
    """One nginx, several app servers and their settings, all kept under `state_dir`."""

    state_dir: Path = DEFAULT_STATE
    port: int = 8080
    app_ports: tuple[int, ...] = (8081, 8082)
    database_url: str = DEFAULT_DATABASE
    redis_url: str = DEFAULT_REDIS
    # More settings for the app (CACHE_MAX_AGE...), over those of the environment.
    settings: Mapping[str, str] = field(default_factory=dict)
    workers: int = 2
    # More nginx configuration inside the server block (the benchmark adds a location).
    extra_nginx: str = ""
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict, repr=False)

    @property
    def site_url(self) -> str:
        """The public address: the proxy's."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def logs(self) -> Path:
        """Where every log of the stack goes."""
        return self.state_dir / "logs"

    @property
    def nginx_conf(self) -> Path:
        """The nginx configuration written from deploy/nginx.conf.template."""
        return self.state_dir / "nginx.conf"

    def app_pid_file(self, index: int) -> Path:
        """The pid file of app server `index` (0 is the first)."""
        return self.state_dir / f"app-{index + 1}.pid"

    @property
    def nginx_pid_file(self) -> Path:
        """nginx's pid file (its master process)."""
        return self.state_dir / "nginx.pid"

    # --- Settings -------------------------------------------------------------------------

    def secret_key(self) -> str:
        """SECRET_KEY as given (settings, then environment), else one made once and kept
        in the state dir."""
        given = self.settings.get("SECRET_KEY") or os.environ.get("SECRET_KEY")
        if given:
            return given
        path = self.state_dir / "secret_key"
        if not path.exists():
            self.state_dir.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(48))
        return path.read_text().strip()

    def app_env(self) -> dict[str, str]:
        """The environment every app process (server or command) runs with."""
        env = dict(os.environ)
        env.pop("FLASK_DEBUG", None)
        env |= {
            "DATABASE_URL": self.database_url,
            "RATELIMIT_STORAGE_URI": self.redis_url,
            "SITE_URL": self.site_url,
            "TRUSTED_PROXIES": "1",
            "SECRET_KEY": self.secret_key(),
            "WEB_CONCURRENCY": str(self.workers),
        }
        env |= dict(self.settings)
        return env

    # --- The database ---------------------------------------------------------------------

    def create_database(self) -> None:
        """Create the PostgreSQL database DATABASE_URL names when its server lacks it."""
        import sqlalchemy as sa

        url = sa.make_url(_with_driver(self.database_url))
        if not url.drivername.startswith("postgresql") or not url.database:
            return
        admin = sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                found = connection.execute(
                    sa.text("SELECT 1 FROM pg_database WHERE datname = :name"),
                    {"name": url.database},
                ).first()
                if found is None:
                    quoted = url.database.replace('"', '""')
                    connection.execute(sa.text(f'CREATE DATABASE "{quoted}"'))
                    print(f"Created the database {url.database}.")
        except sa.exc.OperationalError as error:
            raise StackError(f"PostgreSQL is unreachable for {url.database}: {error}") from error
        finally:
            admin.dispose()

    def flask(self, *args: str) -> None:
        """Run `flask --app blog ARGS` on the stack's database, or fail with its output."""
        done = subprocess.run(
            [str(BIN / "flask"), "--app", "blog", *args],
            cwd=ROOT,
            env=self.app_env(),
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise StackError(f"flask {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        if done.stdout.strip():
            print(done.stdout.strip())

    def rerender(self) -> None:
        """Render again the bodies an older Markdown pipeline stored. A body too slow to
        render keeps the page it has, so it is reported without stopping the start."""
        try:
            self.flask("posts", "rerender")
        except StackError as refused:
            print(refused)

    # --- nginx ----------------------------------------------------------------------------

    def render_nginx_conf(self) -> str:
        """deploy/nginx.conf.template with this stack's ports, paths and cookie names."""
        # A master started as root hands the connections to unprivileged workers.
        user = "user nobody nogroup;" if os.geteuid() == 0 else ""
        servers = "\n".join(
            f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=10s;"
            for port in self.app_ports
        )
        values = {
            "user": user,
            "state": str(self.state_dir),
            "logs": str(self.logs),
            "mime_types": str(MIME_TYPES),
            "max_body": str(largest_request() + 64 * 1024),
            "app_servers": servers,
            "credential_cookies": "|".join(re.escape(name) for name in credential_cookies()),
            "port": str(self.port),
            "deploy": str(DEPLOY),
            "static": str(ROOT / "static"),
            "extra": self.extra_nginx,
        }
        text = (DEPLOY / "nginx.conf.template").read_text()
        text = re.sub(r"\{\{(\w+)\}\}", lambda found: values[found.group(1)], text)
        return text

    def start_nginx(self) -> None:
        """Check and start the stack's own nginx, from its own prefix and files."""
        nginx = nginx_binary()
        if nginx is None:
            raise StackError("nginx is not installed (Debian's package: apt-get install nginx)")
        prefix = self.state_dir / "nginx"
        prefix.mkdir(parents=True, exist_ok=True)
        self.nginx_conf.write_text(self.render_nginx_conf())
        command = [nginx, "-p", str(prefix), "-c", str(self.nginx_conf), "-e", "stderr"]
        checked = subprocess.run([*command, "-t", "-q"], capture_output=True, text=True)
        if checked.returncode != 0:
            raise StackError(f"nginx refused {self.nginx_conf}:\n{checked.stderr}")
        # nginx puts its master process in the background and writes the pid file.
        started = subprocess.run(command, capture_output=True, text=True)
        if started.returncode != 0:
            raise StackError(f"nginx did not start:\n{started.stderr}")
        _wait_for(self.nginx_pid_file.exists, "nginx's pid file", self.logs / "nginx-error.log")

    # --- App servers ----------------------------------------------------------------------

    def start_app(self, index: int) -> subprocess.Popen[bytes]:
        """Start app server `index` (a gunicorn of its own, in its own process group)."""
        port = self.app_ports[index]
        log = self.logs / f"app-{index + 1}.log"
        command = [
            str(BIN / "gunicorn"),
            "--config",
            str(DEPLOY / "gunicorn.conf.py"),
            f"--bind=127.0.0.1:{port}",
            f"--pid={self.app_pid_file(index)}",
            "blog:create_app()",
        ]
        with log.open("ab") as output:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.app_env(),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes[f"app-{index + 1}"] = process
        return process

    def wait_for_app(self, index: int) -> None:
        """Wait until app server `index` answers HTTP, or fail with its log."""
        log = self.logs / f"app-{index + 1}.log"
        process = self.processes.get(f"app-{index + 1}")

        def answers() -> bool:
            if process is not None and process.poll() is not None:
                raise StackError(f"app server {index + 1} exited:\n{_tail(log)}")
            return get(self.app_ports[index], "/robots.txt") is not None

        _wait_for(answers, f"app server {index + 1}", log)

    # --- The whole stack ------------------------------------------------------------------

    def up(self, *, prepare: bool = True) -> None:
        """Bring everything up: the database, the app servers, then nginx in front."""
        if self.running():
            raise StackError(f"a stack already runs from {self.state_dir}: stop it first")
        self.logs.mkdir(parents=True, exist_ok=True)
        # nginx's workers (unprivileged when the master is root) must reach their files.
        self.state_dir.chmod(0o755)
        if prepare:
            self.create_database()
        try:
            # The app servers boot (imports, app factory) while the schema is migrated and
            # the demo loaded: they read nothing from the database until the first request.
            for index in range(len(self.app_ports)):
                self.start_app(index)
            if prepare:
                self.flask("db", "upgrade")
                self.flask("demo", "load")
                self.rerender()
            for index in range(len(self.app_ports)):
                self.wait_for_app(index)
            self.start_nginx()
            _wait_for(lambda: get(self.port, "/robots.txt") is not None, "nginx", None)
        except BaseException:
            self.down(quiet=True)
            raise

    def running(self) -> list[str]:
        """The names of this stack's processes that still run."""
        files = [("nginx", self.nginx_pid_file)] + [
            (f"app-{index + 1}", self.app_pid_file(index)) for index in range(len(self.app_ports))
        ]
        return [name for name, path in files if self._owned_pid(path) is not None]

    def _owned_pid(self, pid_file: Path) -> int | None:
        """The pid in `pid_file` when that process is still one this stack started."""
        try:
            pid = int(pid_file.read_text().strip())
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            return None
        # nginx's master names its configuration, each gunicorn master its pid file.
        mine = str(self.nginx_conf) if pid_file == self.nginx_pid_file else str(pid_file)
        return pid if mine in command else None

    def kill_app(self, index: int) -> None:
        """SIGKILL app server `index` and its workers at once, as a crashed host would go."""
        pid = self._owned_pid(self.app_pid_file(index))
        if pid is None:
            return
        os.killpg(pid, signal.SIGKILL)
        process = self.processes.get(f"app-{index + 1}")
        if process is not None:
            process.wait(timeout=10)
        _wait_for(lambda: _group_gone(pid), f"app server {index + 1} to go", None)

    def down(self, *, quiet: bool = False) -> None:
        """Stop nginx, then the app servers: exactly the processes this stack started."""
        stopped = []
        pid = self._owned_pid(self.nginx_pid_file)
        if pid is not None:
            os.kill(pid, signal.SIGQUIT)  # finish the requests in hand, then exit
            _wait_for(lambda: not _alive(pid), "nginx to stop", None, timeout=15)
            stopped.append("nginx")
        for index in range(len(self.app_ports)):
            pid = self._owned_pid(self.app_pid_file(index))
            if pid is None:
                continue
            os.killpg(pid, signal.SIGTERM)  # gunicorn stops its workers gracefully
            try:
                _wait_for(lambda pid=pid: _group_gone(pid), "an app server to stop", None)
            except StackError:
                os.killpg(pid, signal.SIGKILL)
            stopped.append(f"app server {index + 1}")
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
        if not quiet:
            print("Stopped " + (", ".join(stopped) if stopped else "nothing: nothing ran") + ".")


def _with_driver(url: str) -> str:
    """A PostgreSQL URL naming psycopg 3, as the app reads DATABASE_URL (blog/config.py)."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def get(port: int, path: str, timeout: float = 2) -> int | None:
    """The status of GET `path` on 127.0.0.1:`port`, or None when nothing answers."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers={"Host": "127.0.0.1"})
        response = connection.getresponse()
        response.read()
        return response.status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists (and is not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _group_gone(pgid: int) -> bool:
    """Whether every process of the group `pgid` has ended."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return False
    return True


def _tail(log: Path | None, lines: int = 30) -> str:
    """The end of a log file, for error messages."""
    if log is None:
        return ""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _wait_for(
    condition: object, what: str, log: Path | None, timeout: float = START_SECONDS
) -> None:
    """Poll `condition` until it holds, or fail naming `what` with the end of its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise StackError(f"gave up waiting for {what} after {timeout:.0f} s\n{_tail(log)}")


def _ports(text: str) -> tuple[int, ...]:
    """A comma-separated list of ports."""
    return tuple(int(part) for part in text.split(",") if part.strip())


def main(argv: list[str] | None = None) -> int:
    """`up` or `down` the stack from the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m deploy.stack", description=__doc__.split("\n")[0]
    )
    parser.add_argument("action", choices=("up", "down"))
    parser.add_argument("--state-dir", type=Path, default=DEFAULT_STATE)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--app-ports", type=_ports, default=(8081, 8082))
    parser.add_argument(
        "--database-url", default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("RATELIMIT_STORAGE_URI") or DEFAULT_REDIS
    )
    args = parser.parse_args(argv)
    stack = Stack(
        state_dir=args.state_dir.resolve(),
        port=args.port,
        app_ports=args.app_ports,
        database_url=args.database_url,
        redis_url=args.redis_url,
    )
    try:
        if args.action == "down":
            stack.down()
            return 0
        stack.up()
    except StackError as error:
        print(f"deploy.stack: {error}", file=sys.stderr)
        return 1
    ports = ", ".join(str(port) for port in stack.app_ports)
    print(f"Fieldnotes serves {stack.site_url}/ (nginx, app servers on {ports}).")
    print(f"Logs in {stack.logs}/; `make serve-stop` stops it.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
