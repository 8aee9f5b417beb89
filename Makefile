# Two commands for a fresh machine: `make run` (dashboard) and `make test` (tests).
# Everything installs into ./.venv; nothing is needed by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check

.PHONY: run test test-slow lint format clean help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A stamp per extra, so a second `make` reinstalls only when pyproject.toml changed.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) -e ".[dev]"
	touch $@

$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(PIP) -e ".[dev,train]"
	touch $@

run: $(VENV)/.installed-run  ## install and start the dashboard
	$(BIN)/dominocam serve

test: $(VENV)/.installed-dev  ## install and run the default tests (no torch) and the linter
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest  # pyproject addopts: not slow, not train

test-slow: $(VENV)/.installed-train  ## the slow checks CI also runs (training smoke runs, browser tests)
	sh scripts/install-browser.sh
	$(BIN)/python -m pytest -m "slow or train"

lint: $(VENV)/.installed-dev  ## ruff check
	$(BIN)/ruff check .

format: $(VENV)/.installed-dev  ## ruff format and autofix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis *.egg-info
