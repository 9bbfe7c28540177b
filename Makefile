# Cardroom: the README's two quick-start commands are `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8765

.PHONY: serve test lint typecheck pytest bench sim clean schema chromium nginx

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The compiled build's modules (server/compiled.py, the one list): an installed .so shadows its
# .py, so editing one of them installs again (compiles) before the next serve or test.
COMPILED := $(shell $(PYTHON) -c 'import runpy; print(*runpy.run_path("server/compiled.py", run_name="make")["sources"]("."))')

$(VENV)/.installed: pyproject.toml setup.py mypyc.ini $(COMPILED) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml setup.py mypyc.ini $(COMPILED) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/cardroom serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev lint typecheck pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy protocol server clients tests

# Two workers, each taking whole files (a module's browser and fixtures stay on one worker):
# most tests wait on sockets, browsers and child processes, so two share the two cores well.
# WORKERS=0 runs the suite in this process, one test after another. The 25 slowest tests are
# printed at the end, so a CI log shows where the suite's time goes.
WORKERS ?= 2
pytest: $(VENV)/.installed-dev chromium nginx
	$(BIN)/pytest -q --durations=25 $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)

# The browser tests drive Debian's Chromium (Playwright's own download does not work here);
# CI runs as root on a fresh Debian machine, so install it there when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# The deployment tests (tests/deploy/) run Debian's nginx in front of two processes, the same
# way; it lives in /usr/sbin, which a non-root PATH may lack.
nginx:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nginx; }

bench: $(VENV)/.installed
	$(BIN)/cardroom bench rules
	$(BIN)/cardroom bench server

sim: $(VENV)/.installed
	$(BIN)/cardroom sim shithead --players 4 --games 1000
	$(BIN)/cardroom sim sheepshead --hands 1000

# Regenerate protocol/schema.json from protocol/messages.py (CI checks it with --check).
schema: $(VENV)/.installed
	$(BIN)/python -m protocol.schema

# the install's mypyc output too: the compiled modules beside their sources and the C in build/
clean:
	rm -rf $(VENV) *.egg-info build *.so
	find server -name "*.so" -delete
