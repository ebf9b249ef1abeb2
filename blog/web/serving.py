"""What the app can learn about the server that runs it."""

from __future__ import annotations

import sys


def gunicorn_workers() -> int | None:
    """How many worker processes the gunicorn serving this process runs, or None when no
    gunicorn does. Read the way gunicorn reads it: its command line, GUNICORN_CMD_ARGS,
    its configuration file and WEB_CONCURRENCY."""
    if "gunicorn.arbiter" not in sys.modules:
        return None
    from gunicorn.app.wsgiapp import WSGIApplication

    try:
        return int(WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg.workers)
    except (Exception, SystemExit):  # a command line gunicorn itself would have refused
        return None
