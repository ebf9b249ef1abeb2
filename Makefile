# Fieldnotes: `make run` serves the blog with demo content, `make test` runs every test.
# Both install what they need first, on a fresh clone of a fresh Debian machine.

VENV    := .venv
PY      := $(VENV)/bin/python
FLASK   := $(VENV)/bin/flask --app blog
PYTEST  := $(VENV)/bin/pytest
STAMP   := $(VENV)/.installed
HTMX    := static/vendor/htmx.min.js
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT     := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends
PGHOST  ?= 127.0.0.1

.PHONY: run test setup test-sqlite test-postgresql browser bench lint services clean

# A development run: debug mode supplies a development-only SECRET_KEY.
run: setup
	FLASK_DEBUG=1 $(FLASK) db upgrade
	FLASK_DEBUG=1 $(FLASK) demo load
	$(FLASK) run --debug --host 127.0.0.1 --port 5000

test: setup /usr/bin/chromium services
	$(MAKE) --no-print-directory test-sqlite
	$(MAKE) --no-print-directory test-postgresql

test-sqlite:
	TEST_DATABASE=sqlite $(PYTEST)

# The browser suite drives the same code on either store; it runs once, on SQLite.
test-postgresql:
	TEST_DATABASE=postgresql $(PYTEST) -m "not browser"

browser: setup /usr/bin/chromium
	$(PYTEST) -m browser

# The listing benchmark (bench/run.py): SQLite and PostgreSQL, 1,000 to 100,000 posts.
bench: setup /usr/bin/wrk services
	$(PY) -m bench.run $(BENCH_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

setup: $(STAMP) $(HTMX)

$(PY):
	python3 -m venv $(VENV) || { $(SUDO) apt-get update -qq && $(APT) python3-venv && python3 -m venv $(VENV); }

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[serve,test]'
	touch $@

node_modules/.package-lock.json: package.json package-lock.json
	command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(APT) nodejs npm; }
	npm ci --no-audit --no-fund --loglevel=error

$(HTMX): node_modules/.package-lock.json
	mkdir -p $(dir $@)
	cp node_modules/htmx.org/dist/htmx.min.js $@

/usr/bin/wrk:
	$(SUDO) apt-get update -qq
	$(APT) wrk

/usr/bin/chromium:
	$(SUDO) apt-get update -qq
	$(APT) chromium fonts-dejavu-core

# PostgreSQL and Redis normally run already; start them if this machine stopped them.
services:
	@pg_isready -q -h $(PGHOST) || $(SUDO) pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 || redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no

clean:
	rm -rf $(VENV) node_modules static/vendor
