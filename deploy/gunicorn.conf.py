"""gunicorn settings for one Fieldnotes app server behind deploy/'s nginx.

deploy/stack.py passes the address (--bind) and the pid file (--pid) on the command line;
everything else is here. Sync workers are safe only because nginx reads each request whole
before it hands it on: never expose these servers to clients directly.
"""

import os

worker_class = "sync"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2)
# nginx is the only client: its X-Forwarded-For/-Proto are believed from its address only
# (the app's ProxyFix, TRUSTED_PROXIES=1, makes the same choice).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS") or "127.0.0.1"
# A worker stuck this long on one request is killed and replaced.
timeout = 30
graceful_timeout = 10
# nginx logs every request; the app server logs only its own events, to standard error.
accesslog = None
errorlog = "-"
loglevel = "info"
# No per-user control socket: several app servers run side by side as one user.
control_socket_disable = True
# The app is built once in the master and shared by the forked workers: one start-up's
# work per server instead of one per worker. It opens no database connection at build
# time, so no connection is shared across the fork.
preload_app = True
