# DeltaBLEU Studio — the two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1

.PHONY: run test test-fast lint typecheck install install-dev browser redis worker bench wheel clean

# A stamp per requirements file: the venv is rebuilt only when the pins change.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The metric library is a distribution of its own (packages/deltableu-metrics); the web app
# installs it like any dependency, editable so that a change to it needs no reinstall.
$(VENV)/.installed: requirements.txt packages/deltableu-metrics/pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e packages/deltableu-metrics
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Embedded mode: SQLite and a file-system Celery broker under var/, a real worker beside the
# web server. Ctrl-C stops both.
run: install
	DEBUG=True $(BIN)/python manage.py migrate --noinput
	DEBUG=True $(BIN)/python manage.py load_demo
	@bash scripts/run.sh "$(BIN)" "$(HOST)" "$(PORT)"

worker: install
	DEBUG=True $(BIN)/celery -A deltableu worker -B -l info --concurrency 2 -Q celery,celery-heavy

# Debian's Chromium drives the browser tests (Playwright cannot download browsers here).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's chromium for the browser tests..."; \
	    (apt-get install -y -qq chromium >/dev/null 2>&1 || \
	      (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)); \
	  else echo "Browser tests need /usr/bin/chromium (apt-get install chromium)."; fi; \
	fi

# The broker-outage test stops and starts a redis-server of its own (Debian's package).
redis:
	@if ! command -v redis-server >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's redis-server for the broker-outage test..."; \
	    (apt-get install -y -qq redis-server >/dev/null 2>&1 || \
	      (apt-get update -qq && apt-get install -y -qq redis-server >/dev/null)); \
	  else echo "The broker-outage test needs redis-server (apt-get install redis-server)."; fi; \
	fi

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install-dev
	DEBUG=True $(BIN)/mypy

test: install-dev browser redis lint typecheck
	$(BIN)/python -m pytest

# Unit tests only: no browser, no worker, none marked slow (sweeps of every model or route,
# whole pipelines, long simulations, the CLI and Node.js started: pyproject.toml's markers);
# spread over the machine's cores, each worker keeping its migrated test database for the next
# run (new migrations are still applied; `--create-db` starts afresh). `make test` always builds
# a fresh one.
# The tests' temporary folders (each test's storage, index files, uploads: thousands of files
# a run) go to memory where the machine has /dev/shm: creating them on disk cost ~1 s of system
# time a run.
# The folders of browser and worker tests are not even collected, nor is tests/api (the schema
# conformance sweep, marked slow, whose import alone brought schemathesis in: 0.2 s of each
# worker's collection), nor are the pytest plugins only they use loaded (importing Playwright
# and schemathesis cost each process ~0.5 s); and a worker that runs out of tests takes half of
# the other's queue ("worksteal"), so both finish together instead of one idling for the last
# second or two.
FAST_TMPDIR := $(if $(wildcard /dev/shm),/dev/shm,$(or $(TMPDIR),/tmp))
FAST_SKIP := --ignore=tests/browser --ignore=tests/integration --ignore=tests/api \
	-p no:playwright -p no:schemathesis -p no:anyio
test-fast: install-dev
	TESTS_FAST=1 TMPDIR=$(FAST_TMPDIR) $(BIN)/python -m pytest -n auto --dist worksteal \
	  --reuse-db $(FAST_SKIP) -m "not browser and not integration and not slow"

bench: install-dev
	$(BIN)/python bench/metrics.py

# The metric library's wheel and sdist, in dist/ (`pip install dist/deltableu_metrics-*.whl`).
wheel: install-dev
	$(BIN)/python -m build --no-isolation --outdir dist packages/deltableu-metrics

clean:
	rm -rf $(VENV) var dist .pytest_cache .mypy_cache .ruff_cache
