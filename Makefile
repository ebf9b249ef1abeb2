# Fieldnotes: `make run` serves the blog with demo content, `make test` runs every test.
# Both install what they need first, on a fresh clone of a fresh Debian machine.

VENV    := .venv
PY      := $(VENV)/bin/python
FLASK   := $(VENV)/bin/flask --app blog
# The tests keep their compiled, assertion-rewritten form in __pycache__ even where the
# environment turns bytecode off: rewriting them again costs seconds in every test process.
PYTEST  := env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/pytest
UV      := $(VENV)/bin/uv
STAMP   := $(VENV)/.installed
HTMX    := static/vendor/htmx.min.js
FONTS   := static/vendor/fonts/.copied
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT     := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends
PGHOST  ?= 127.0.0.1

.PHONY: run test setup test-sqlite test-postgresql browser screenshots coverage mutation \
	bench lint services redis cairo clean serve serve-stop

# A development run on http://127.0.0.1:$(PORT) (`make run PORT=5050` picks another port; the
# site's own absolute URLs follow it unless SITE_URL is set). Debug mode supplies a
# development-only SECRET_KEY. Failed logins are counted in the local Redis, as in production
# (counts in memory hold for one process only). Each step says what it does in one line; the
# migrations' log goes to instance/db-upgrade.log and is shown only when they fail.
PORT    ?= 5000
UPGRADE_LOG := instance/db-upgrade.log

run: setup redis
	@echo "Creating or upgrading the database..."
	@mkdir -p $(dir $(UPGRADE_LOG))
	@FLASK_DEBUG=1 $(FLASK) db upgrade > $(UPGRADE_LOG) 2>&1 \
		|| { cat $(UPGRADE_LOG); echo "db upgrade failed (log in $(UPGRADE_LOG))"; exit 1; }
	@echo "Loading the demo posts (only into an empty database)..."
	@FLASK_DEBUG=1 $(FLASK) demo load
	@echo "Bringing stored posts up to date with the Markdown pipeline..."
	@# A body too slow to render keeps its page, so a failure here does not stop the run.
	-@FLASK_DEBUG=1 $(FLASK) posts rerender
	@echo "Serving on http://127.0.0.1:$(PORT) (Ctrl+C stops it)..."
	@RATELIMIT_STORAGE_URI=$${RATELIMIT_STORAGE_URI:-redis://127.0.0.1:6379/0} \
		SITE_URL=$${SITE_URL:-http://127.0.0.1:$(PORT)} \
		$(FLASK) run --debug --host 127.0.0.1 --port $(PORT)

# Every test: three passes side by side, as they share nothing (each has its own databases,
# files and ports). Each pass prints when it ends; then the slowest tests over all of them
# and the total. Any failure, or a pass that did not finish, fails the run.
REPORTS := artifacts/test-reports
PASS_ARGS = --junitxml=$(REPORTS)/$(1).xml -o junit_suite_name=$(1) -o junit_family=xunit2
# A unit pass run alone spreads over WORKERS pytest-xdist processes. Side by side, the three
# passes already fill both cores, and extra workers only add start-up and contention: each
# unit pass then runs in one process (-n 0), measured at 219 s where -n 2 took 270-284 s.
# The unit passes run at a lower priority, so the browser suite, which mostly waits on
# Chromium and its server, gets a core the moment it needs one.
WORKERS ?= 2
UNIT     = nice -n 10 $(PYTEST) -n $(WORKERS) --dist worksteal

test: setup /usr/bin/chromium /usr/bin/java services
	@rm -rf $(REPORTS)
	@echo "Running the SQLite, PostgreSQL and browser passes side by side..."
	@status=0; \
	$(MAKE) --no-print-directory -k -j3 --output-sync=target WORKERS=0 \
		test-sqlite test-postgresql browser || status=1; \
	$(PY) -m tests.slowest $(REPORTS) || status=1; \
	exit $$status

# Every test but the browser and deploy suites, on SQLite. Java runs the Nu HTML checker
# (tests/web/test_validity.py), which both unit passes run.
test-sqlite: /usr/bin/java
	TEST_DATABASE=sqlite $(UNIT) -m "not browser and not deploy" $(call PASS_ARGS,sqlite)

# Only the tests that use the database (tests/conftest.py marks them from their fixtures):
# the rest would run exactly as they do on SQLite. Tests marked one_store are those no store
# can change: what the templates make of stored text (tests/test_fuzz.py checks that both
# stores keep every hostile string as written), CPU time limits, image decoding, requests
# refused before any lookup. Each says why where it is marked; they run on SQLite only.
test-postgresql: /usr/bin/java
	TEST_DATABASE=postgresql $(UNIT) -m "database and not one_store and not browser and not deploy" \
		$(call PASS_ARGS,postgresql)

# The browser suite drives the same code on either store; it runs once, on SQLite, with one
# server and one Chromium for all of it. The deploy tests (tests/deploy/: nginx in front of two
# gunicorns on PostgreSQL and Redis, one stack for the module) ride in this, the shortest pass.
browser: setup /usr/bin/chromium /usr/sbin/nginx services
	$(PYTEST) tests/browser tests/deploy $(call PASS_ARGS,browser)

# Full-page screenshots of every kind of page (the browser suite's Site.paths: home, a topic,
# page 2, a post, login, the editor, and any page added there) and of a post's history and a
# compare at phone and desktop widths, in the light and the dark colour scheme, for review:
# artifacts/screenshots/NAME-WIDTH-SCHEME.png.
screenshots: setup /usr/bin/chromium
	rm -rf artifacts/screenshots
	$(PYTEST) tests/browser/test_layout.py tests/browser/test_history.py -k captured --screenshots
	@echo "Screenshots in artifacts/screenshots/"

# Line coverage of blog/ over every test on SQLite, the browser suite included, in one
# process (coverage.py follows that one; gunicorn's requests are not counted).
coverage: setup /usr/bin/chromium /usr/bin/java services
	env -u PYTHONDONTWRITEBYTECODE TEST_DATABASE=sqlite $(VENV)/bin/coverage run --source=blog \
		-m pytest -q
	$(VENV)/bin/coverage report

# Mutation testing (mutmut; its settings in setup.cfg) of the safety-critical code: the
# sanitizer, the page-or-fragment decision, the lock-version check, the page cache's key and
# invalidation. Not part of `make test`: it runs the suite once per mutant that a quick test
# does not kill. It works in a copy of the tree under artifacts/mutation/, so the mutated
# copy mutmut makes never lands in the work tree; `make mutation MUTANTS=...` picks others.
MUTATION_DIR := artifacts/mutation
MUTMUT  := $(abspath $(VENV))/bin/mutmut
SAFETY_MUTANTS := blog.markup.x_sanitize__mutmut_* blog.web.htmx.x_* \
	blog.authoring.editor.posts.x__based_on__mutmut_* blog.authoring.editor.posts.x__conflict__mutmut_* \
	blog.authoring.store.x_update_post__mutmut_*
PAGECACHE_MUTANTS := blog.web.pagecache.x*PageCache*key__mutmut_* \
	blog.web.pagecache.x*PageCache*__call____mutmut_* blog.web.pagecache.x_clear__mutmut_* \
	blog.web.versions.x*StateReader*_read__mutmut_* blog.web.versions.x_bump__mutmut_* \
	blog.web.versions.x__touches_watched__mutmut_* blog.web.versions.x__on_execute__mutmut_*
MUTANTS ?= $(SAFETY_MUTANTS) $(PAGECACHE_MUTANTS)

mutation: setup services
	@test -x $(MUTMUT) || $(UV) pip install --quiet --python $(PY) mutmut==3.8.1
	rm -rf $(MUTATION_DIR)
	mkdir -p $(MUTATION_DIR)
	git ls-files -z blog tests templates static migrations demo setup.cfg pyproject.toml \
		| xargs -0 cp --parents -t $(MUTATION_DIR)
	cp -r static/vendor $(MUTATION_DIR)/static/
	cd $(MUTATION_DIR) && TEST_DATABASE=sqlite $(MUTMUT) run $(foreach name,$(MUTANTS),'$(name)')
	@# The score over the mutants this run checked; it fails below 90 % killed.
	cd $(MUTATION_DIR) && $(MUTMUT) results --all true | awk -F': ' \
		'$$2 != "not checked" { n++; if ($$2 == "killed" || $$2 == "timeout") k++; \
		else print "  " $$2 ": " $$1 } \
		END { printf "mutation score: %d of %d mutants killed (%.1f %%)\n", k, n, n ? 100 * k / n : 0; \
		exit (n == 0 || k < 0.9 * n) }'

# The listing benchmark (bench/run.py): SQLite and PostgreSQL, 1,000 to 100,000 posts, and the
# home page through the production stack's proxy cache (nginx).
bench: setup /usr/bin/wrk /usr/sbin/nginx services
	$(PY) -m bench.run $(BENCH_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

setup: $(STAMP) $(HTMX) $(FONTS) cairo /usr/bin/dot

# The virtualenv starts without pip and gets uv, which installs the project's packages in
# about 15 s where pip takes 45 s (most of a fresh clone's set-up). They are compiled to
# bytecode at install, as pip does: where the environment turns bytecode writing off, every
# process would otherwise compile them again.
$(PY):
	@echo "Creating the Python virtualenv ($(VENV))..."
	@python3 -m venv --without-pip $(VENV) || { $(SUDO) apt-get update -qq && $(APT) python3-venv \
		&& python3 -m venv --without-pip $(VENV); }

$(UV): | $(PY)
	@echo "Installing uv into $(VENV)..."
	@python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(APT) python3-pip; }
	@python3 -m pip --python $(PY) install --quiet uv==0.13.9

$(STAMP): pyproject.toml | $(UV)
	@echo "Installing Python packages..."
	@$(UV) pip install --quiet --compile-bytecode --python $(PY) -e '.[serve,test]'
	@touch $@

# No package needs its install scripts; vnu-jar's would fetch a Java runtime of its own
# where none is installed yet, and Java comes from Debian (/usr/bin/java below).
node_modules/.package-lock.json: package.json package-lock.json
	@echo "Installing front-end packages (npm)..."
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(APT) nodejs npm; }
	@npm ci --no-audit --no-fund --loglevel=error --ignore-scripts >/dev/null

$(HTMX): node_modules/.package-lock.json
	@echo "Copying htmx into static/vendor/..."
	@mkdir -p $(dir $@)
	@cp node_modules/htmx.org/dist/htmx.min.js $@

# The self-hosted fonts (npm's @fontsource-variable packages): the variable-weight Latin and
# Latin Extended files site.css names (Inter upright and italic, JetBrains Mono upright), each
# family with its licence (SIL Open Font License), which must travel with the files.
INTER   := node_modules/@fontsource-variable/inter
MONO    := node_modules/@fontsource-variable/jetbrains-mono
$(FONTS): node_modules/.package-lock.json
	@echo "Copying the fonts into static/vendor/fonts/..."
	@mkdir -p $(dir $@)
	@cp $(INTER)/files/inter-latin-wght-normal.woff2 $(INTER)/files/inter-latin-ext-wght-normal.woff2 \
		$(INTER)/files/inter-latin-wght-italic.woff2 $(INTER)/files/inter-latin-ext-wght-italic.woff2 \
		$(MONO)/files/jetbrains-mono-latin-wght-normal.woff2 \
		$(MONO)/files/jetbrains-mono-latin-ext-wght-normal.woff2 $(dir $@)
	@cp $(INTER)/LICENSE $(dir $@)inter-LICENSE.txt
	@cp $(MONO)/LICENSE $(dir $@)jetbrains-mono-LICENSE.txt
	@touch $@

# The production stack on this machine (deploy/stack.py): nginx on 127.0.0.1:8080 in front
# of two gunicorn app servers (8081, 8082), the `fieldnotes` PostgreSQL database (created,
# migrated, demo loaded when empty) and Redis for the login limits. It keeps its pid files,
# logs and generated SECRET_KEY in instance/stack/; `make serve-stop` stops what it started.
serve: setup /usr/sbin/nginx /usr/bin/pg_ctlcluster services
	$(PY) -m deploy.stack up

serve-stop:
	$(PY) -m deploy.stack down

/usr/sbin/nginx:
	$(SUDO) apt-get update -qq
	$(APT) nginx

/usr/bin/pg_ctlcluster:
	$(SUDO) apt-get update -qq
	$(APT) postgresql

/usr/bin/wrk:
	$(SUDO) apt-get update -qq
	$(APT) wrk

/usr/bin/chromium:
	$(SUDO) apt-get update -qq
	$(APT) chromium fonts-dejavu-core

# A headless Java runtime for the Nu HTML checker (vnu.jar, installed by npm).
/usr/bin/java:
	$(SUDO) apt-get update -qq
	$(APT) default-jre-headless

# Graphviz, whose dot draws the ```dot diagrams in post bodies (blog/markup/diagrams.py).
/usr/bin/dot:
	$(SUDO) apt-get update -qq
	$(APT) graphviz

# Cairo, which CairoSVG loads at run time to render the PNG link previews (blog/media/previews.py).
cairo:
	@/sbin/ldconfig -p | grep -q 'libcairo\.so\.2 ' || { $(SUDO) apt-get update -qq && $(APT) libcairo2; }

# PostgreSQL and Redis normally run already; start them if this machine stopped them, and
# install Redis (Debian's package) where it is missing.
services: redis
	@pg_isready -q -h $(PGHOST) || $(SUDO) pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start

redis:
	@command -v redis-server >/dev/null || { $(SUDO) apt-get update -qq && $(APT) redis-server; }
	@redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 || { echo "Starting Redis on 127.0.0.1:6379..."; \
		redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no; }

clean:
	rm -rf $(VENV) node_modules static/vendor
