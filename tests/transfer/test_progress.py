"""An import draws its progress bar on standard error when that is a terminal, and never in a
pipe: run as a real command, once with a pseudo-terminal for standard error, once with a pipe."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

DATA = Path(__file__).parents[1] / "data" / "transfer"
FLASK = Path(sys.executable).with_name("flask")


def import_command(database_url: str, site: Path, stderr: int) -> subprocess.Popen[bytes]:
    """`flask posts import SITE` on the tests' database, standard error to `stderr`."""
    environment = os.environ | {
        "DATABASE_URL": database_url,
        "SECRET_KEY": "test-secret",
        "PYTHONPATH": str(Path(__file__).parents[2]),
        "TERM": "xterm",
    }
    return subprocess.Popen(
        [str(FLASK), "--app", "blog", "posts", "import", str(site)],
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=environment,
    )


def read_all(descriptor: int, into: list[bytes]) -> None:
    """Read a pseudo-terminal's side until the command closes it."""
    while True:
        try:
            chunk = os.read(descriptor, 4096)
        except OSError:  # EIO: the other side closed
            return
        if not chunk:
            return
        into.append(chunk)


def test_the_bar_shows_on_a_terminal_and_not_in_a_pipe(app, database_url):
    """On a terminal the bar counts the files read, the bodies checked and the posts saved,
    and the summary stays on standard output; in a pipe standard error holds no bar."""
    site = "zola-site"
    leader, follower = os.openpty()
    command = import_command(database_url, DATA / site, follower)
    os.close(follower)
    shown: list[bytes] = []
    reader = threading.Thread(target=read_all, args=(leader, shown))
    reader.start()
    output, _ = command.communicate(timeout=120)
    reader.join(timeout=30)
    os.close(leader)
    terminal = b"".join(shown).decode()
    assert command.returncode == 0, terminal
    for label in ("Reading files", "Checking bodies", "Saving posts"):
        assert label in terminal, terminal
    assert "100%" in terminal
    assert output.decode().startswith("created 3 (")
    assert "Reading" not in output.decode()

    piped = import_command(database_url, DATA / site, subprocess.PIPE)
    output, errors = piped.communicate(timeout=120)
    assert piped.returncode == 0, errors
    assert "unchanged 3" in output.decode()
    assert errors.decode().startswith("skipped: "), errors.decode()
    for label in ("Reading", "Checking", "Saving"):
        assert label not in errors.decode(), errors.decode()
    assert not re.search(r"\d%", errors.decode()), errors.decode()
