# Two commands for a fresh machine: `make run` (dashboard) and `make test` (tests).
# Everything installs into ./.venv; nothing is needed by hand.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check

.PHONY: run test test-slow test-tournament tournament lint format messages clean help

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

$(VENV)/.installed-tournament: pyproject.toml | $(BIN)/python
	$(PIP) -e ".[dev,tournament]"
	touch $@

$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(PIP) -e ".[dev,train]"
	touch $@

run: $(VENV)/.installed-run  ## install and start the dashboard
	$(BIN)/dominocam serve

test: $(VENV)/.installed-dev  ## install and run the default tests (no torch), the linter and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy  # rules/ and vision/ (pyproject.toml [tool.mypy])
	$(BIN)/python -m pytest  # pyproject addopts: not slow, not train, not tournament

test-slow: $(VENV)/.installed-train  ## the slow checks CI also runs (training smoke runs, browser tests)
	sh scripts/install-browser.sh
	$(BIN)/python -m pytest -m "slow or train"

# Tournament mode (docs/tournament.md): Debian's redis-server and postgresql, started privately
# on loopback in a temporary folder and stopped afterwards, also when a test fails.
test-tournament: $(VENV)/.installed-tournament  ## install Redis + PostgreSQL, start them, run the tournament tests, stop them
	sh scripts/install-tournament-services.sh
	sh scripts/tournament-services.sh run -- $(BIN)/python -m pytest -m tournament

tournament: $(VENV)/.installed-tournament  ## try tournament mode on one machine: Redis, PostgreSQL, 2 workers, 2 web processes
	sh scripts/install-tournament-services.sh
	sh scripts/tournament-services.sh run -- $(BIN)/python -m tournament.launch examples/tournament/club-night.yaml

lint: $(VENV)/.installed-dev  ## ruff check and mypy
	$(BIN)/ruff check .
	$(BIN)/mypy

format: $(VENV)/.installed-dev  ## ruff format and autofix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The gettext catalogues of rules/i18n.py (the rulings, the command line, the server's
# messages, the vision warnings, the pages' templates and scripts; babel.cfg lists the
# sources; tests/server/test_server_i18n.py checks the scripts' strings): extract the template, merge it into each
# language's .po (new messages arrive untranslated; tests/rules/test_rules_i18n.py fails
# until they are translated), then compile the .mo files that are committed beside them.
LOCALE := rules/locale
LANGUAGES := hu it vi es
messages: $(VENV)/.installed-dev  ## extract, update and compile the message catalogues
	$(BIN)/pybabel -q extract -F babel.cfg -o $(LOCALE)/dominocam.pot \
		--project=dominocam --version=$$($(BIN)/python -c 'import dominocam; print(dominocam.__version__)') \
		--msgid-bugs-address= --copyright-holder="DominoCam" --no-wrap --sort-by-file .
	for lang in $(LANGUAGES); do test -f $(LOCALE)/$$lang/LC_MESSAGES/dominocam.po || \
		$(BIN)/pybabel -q init -i $(LOCALE)/dominocam.pot -d $(LOCALE) -D dominocam -l $$lang; done
	$(BIN)/pybabel -q update -i $(LOCALE)/dominocam.pot -d $(LOCALE) -D dominocam \
		--no-wrap --no-fuzzy-matching --ignore-obsolete
	$(BIN)/pybabel compile --statistics -d $(LOCALE) -D dominocam

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis *.egg-info build dist
