"""What the app learns from the server that runs it: a warning when login counts cannot hold."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blog.web import serving

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
WARNING = "Failed logins are counted in each process's memory"


@pytest.fixture
def under_gunicorn(monkeypatch: pytest.MonkeyPatch):
    """Pretend this process is a gunicorn worker started with a given command line."""
    import gunicorn.arbiter  # noqa: F401  (what a gunicorn process has loaded)

    monkeypatch.delenv("GUNICORN_CMD_ARGS", raising=False)
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.chdir(ROOT / "tests")  # no gunicorn.conf.py here

    def run(*argv: str) -> int | None:
        monkeypatch.setattr(sys, "argv", [str(GUNICORN), *argv])
        return serving.gunicorn_workers()

    return run


def test_workers_are_read_as_gunicorn_reads_them(under_gunicorn, monkeypatch):
    """The command line and GUNICORN_CMD_ARGS decide the count (WEB_CONCURRENCY, read when
    gunicorn starts, is its default)."""
    assert under_gunicorn("-w", "3", "blog:create_app()") == 3
    assert under_gunicorn("--workers=2", "blog:create_app()") == 2
    assert under_gunicorn("blog:create_app()") == 1
    monkeypatch.setenv("GUNICORN_CMD_ARGS", "--workers 5")
    assert under_gunicorn("blog:create_app()") == 5
    assert under_gunicorn("--no-such-option", "-w") is None  # gunicorn would have refused


def test_outside_gunicorn_there_is_no_count(monkeypatch):
    """A process without gunicorn (flask run, the CLI, these tests) has no worker count."""
    monkeypatch.delitem(sys.modules, "gunicorn.arbiter", raising=False)
    assert serving.gunicorn_workers() is None


@pytest.mark.parametrize(
    ("workers", "storage", "warned"),
    [
        (2, "memory://", True),
        (1, "memory://", False),
        (None, "memory://", False),
        (4, "redis://127.0.0.1:6379/0", False),
    ],
)
def test_the_warning_comes_only_when_counts_cannot_hold(
    monkeypatch, caplog, workers, storage, warned
):
    """Only in-memory counts with more than one worker are a limit that does not hold."""
    from blog import create_app

    monkeypatch.setattr(serving, "gunicorn_workers", lambda: workers)
    with caplog.at_level("WARNING"):
        create_app({"TESTING": True, "SECRET_KEY": "x", "RATELIMIT_STORAGE_URI": storage})
    assert (WARNING in caplog.text) is warned


def test_gunicorn_with_two_workers_and_counts_in_memory_warns_at_start(tmp_path: Path):
    """The real server: each of two workers logs that the limit is per process."""
    log = tmp_path / "gunicorn.log"
    env = os.environ | {
        "SECRET_KEY": "x",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'blog.sqlite3'}",
        "RATELIMIT_STORAGE_URI": "memory://",
    }
    env.pop("WEB_CONCURRENCY", None)
    env.pop("GUNICORN_CMD_ARGS", None)
    command = [str(GUNICORN), "-w", "2", "-b", "127.0.0.1:0", "blog:create_app()"]
    with log.open("w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=out, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30  # each worker loads the app once it has booted
        while log.read_text().count(WARNING) < 2 and time.monotonic() < deadline:
            assert server.poll() is None, log.read_text()
            time.sleep(0.05)
    finally:
        # gunicorn waits for its workers to stop: on a busy machine that can take a while.
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    text = log.read_text()
    assert text.count(WARNING) == 2, text
    assert "RATELIMIT_STORAGE_URI" in text and "2 gunicorn workers" in text
