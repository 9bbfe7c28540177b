# Cardroom: the README's two quick-start commands are `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8765

.PHONY: serve test check test-latest lock lint typecheck pytest bench sim clean schema chromium nginx docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The compiled build's modules (server/compiled.py, the one list): an installed .so shadows its
# .py, so editing one of them installs again (compiles) before the next serve or test.
COMPILED := $(shell $(PYTHON) -c 'import runpy; print(*runpy.run_path("server/compiled.py", run_name="make")["sources"]("."))')

# Installs come from the lock (requirements/, `make lock`): every package pinned with its hashes,
# wheels only, and the build's own tools (setuptools, mypy for mypyc) from the same lock, so a
# fresh machine builds exactly what the last green run built. LATEST=1 (`make test-latest`)
# installs the newest releases inside pyproject.toml's ranges instead.
ifeq ($(LATEST),1)
define install
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.$(2)'
endef
else
define install
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps --only-binary :all: -r $(1)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
endef
endif

$(VENV)/.installed: requirements/run.txt pyproject.toml setup.py mypyc.ini $(COMPILED) | $(BIN)/python
	$(call install,requirements/run.txt,)
	touch $@

$(VENV)/.installed-dev: requirements/dev.txt pyproject.toml setup.py mypyc.ini $(COMPILED) | $(BIN)/python
	$(call install,requirements/dev.txt,[dev])
	touch $@ $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/cardroom serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev lint typecheck pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy protocol server clients tests

# Three workers, each taking whole files (a module's browser and fixtures stay on one worker):
# most tests wait on sockets, browsers and child processes (two workers kept the two cores
# about half busy: 10:00 for the suite, three 7:51, on a fresh clone here).
# WORKERS=0 runs the suite in this process, one test after another. The 25 slowest tests are
# printed at the end, so a CI log shows where the suite's time goes.
WORKERS ?= 3
XDIST := $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile)
pytest: $(VENV)/.installed-dev chromium nginx
	$(BIN)/pytest -q --durations=25 $(XDIST)

# The quick check before every commit: ruff, the type check and every test not marked slow (no
# browser, nginx, Redis Cluster, subprocess server or long run of games; tests/conftest.py marks
# the fixtures' users itself). It prints its own time: it should answer within a minute. Its
# tests are quick and busy the CPU: two workers, one a core (three took 30 s against 26).
check: $(VENV)/.installed-dev
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory lint typecheck && $(BIN)/pytest -q -m "not slow" -n 2; \
	rc=$$?; echo "make check: $$(( $$(date +%s) - t0 )) s"; exit $$rc

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

# The documentation as a site (mkdocs.yml), strict: a broken link or a page missing from the nav
# fails the build. Nothing is fetched from the network, so build/site/ works offline.
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

# Regenerate protocol/schema.json from protocol/messages.py (CI checks it with --check).
schema: $(VENV)/.installed
	$(BIN)/python -m protocol.schema

# the install's mypyc output too: the compiled modules beside their sources and the C in build/
clean:
	rm -rf $(VENV) *.egg-info build *.so
	find server -name "*.so" -delete

# The lock: one resolution of every dependency (runtime, the dev and fuzz extras, and the build's
# requirements), with hashes. requirements/dev.txt is all of it; requirements/run.txt is its
# runtime-and-build part (the server and the Docker image), solved under dev.txt's pins.
PIP_COMPILE_FLAGS := --quiet --generate-hashes --allow-unsafe --strip-extras --all-build-deps \
	--no-emit-find-links --no-emit-index-url --no-emit-trusted-host
# `make lock` keeps every pin that still satisfies pyproject.toml and solves only what changed
# (a new or narrowed range); `make lock UPGRADE=1` moves every pin to the newest release allowed.
LOCK_UPGRADE := $(if $(UPGRADE),--upgrade,)
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet 'pip-tools>=7.4,<8'
	$(BIN)/pip-compile $(PIP_COMPILE_FLAGS) $(LOCK_UPGRADE) --all-extras -o requirements/dev.txt pyproject.toml
	$(BIN)/pip-compile $(PIP_COMPILE_FLAGS) $(LOCK_UPGRADE) -c requirements/dev.txt -o requirements/run.txt pyproject.toml

# The whole suite on the newest releases pyproject.toml allows, in a copy of the work tree with
# its own venv (an in-place compiled build would otherwise overwrite .venv's modules): drift is
# found on purpose, not by the next stranger. Nothing of it touches .venv or the lock.
test-latest:
	rm -rf build/latest && mkdir -p build/latest
	git ls-files -co --exclude-standard | tar -cf - -T - --ignore-failed-read 2>/dev/null | tar -xf - -C build/latest
	$(MAKE) -C build/latest test LATEST=1
	build/latest/$(BIN)/python -m pip freeze --exclude-editable > build/latest-freeze.txt
	@echo "newest releases tested: build/latest-freeze.txt (diff against requirements/dev.txt)"
