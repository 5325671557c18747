# Two entry points for a fresh machine: `make run` (the main job) and `make test` (the suite).
# Each creates .venv and installs the project into it the first time, then reuses it.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
CONFIG ?= airline.yml
ARGS ?=

.PHONY: run test lint browser clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[local,mcp,ray,dev,docs]'
	touch $(INSTALLED)

run: $(INSTALLED)
	$(PY) run.py --config $(CONFIG) $(ARGS)

# The report is checked in a real browser: Debian's chromium, driven by Playwright.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing chromium (Debian package) for the report tests"; \
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Lint first: it takes a second and fails with the line to fix. The test modules are spread over the cores
# (at most four), each module on one, so a module's shared fixture (the embedded model's whole run, a Ray
# cluster) is set up once.
test: lint browser
	$(PY) -m pytest -n auto --maxprocesses 4 --dist loadscope $(ARGS)

lint: $(INSTALLED)
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) results .pytest_cache
