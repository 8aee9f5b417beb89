# Two commands for a fresh machine: `make run` (dashboard) and `make test` (tests).
# Everything installs into ./.venv from the lock (uv.lock, exported to requirements/*.txt with
# a hash for every file); nothing is needed by hand, and every machine gets the same packages.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check
# `make run PORT=5001 HOST=127.0.0.1`: where the dashboard listens (auto: the local network
# when this computer is on a private one, else this computer only; docs/server.md).
PORT   ?= 5000
HOST   ?= auto

# The default tests in parallel processes (pytest-xdist), one per core up to four: most of
# them spend their time in one Python thread. A plain `pytest` runs the same tests in one.
TEST_WORKERS ?= -n auto --maxprocesses 4

# pip's hash-checking mode: every package must be named in the file with its version and
# hash, and only wheels are taken (an sdist would fetch an unlocked build backend). The
# project itself goes in without build isolation, with the setuptools of the lock.
REQUIREMENTS := requirements
LOCKED  := $(PIP) --require-hashes --only-binary :all: -r
PROJECT := $(PIP) --no-deps --no-build-isolation -e .

.PHONY: run test test-slow test-tournament tournament lint format messages lock clean help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# A stamp per set of packages, so a second `make` reinstalls only when the lock changed.
$(VENV)/.installed-%: $(REQUIREMENTS)/%.txt pyproject.toml | $(BIN)/python
	$(LOCKED) $<
	$(PROJECT)
	touch $@

run: $(VENV)/.installed-run  ## install and start the dashboard (PORT=5000 HOST=auto)
	$(BIN)/dominocam serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev  ## install and run the default tests (no torch), the linter and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy  # dominocam/, rules/, vision/ and rounds/ (pyproject.toml [tool.mypy])
	$(BIN)/python -m pytest $(TEST_WORKERS)  # pyproject addopts: not slow, not train, not tournament

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
	sh scripts/tournament-services.sh run -- $(BIN)/python -m dominocam.tournament.launch examples/tournament/club-night.yaml

lint: $(VENV)/.installed-dev  ## ruff check and mypy
	$(BIN)/ruff check .
	$(BIN)/mypy

format: $(VENV)/.installed-dev  ## ruff format and autofix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The gettext catalogues of dominocam/i18n.py (the rulings, the command line, the server's
# messages, the vision warnings, the pages' templates and scripts; babel.cfg lists the
# sources; tests/server/test_server_i18n.py checks the scripts' strings): extract the template, merge it into each
# language's .po (new messages arrive untranslated; tests/rules/test_rules_i18n.py fails
# until they are translated), then compile the .mo files that are committed beside them.
LOCALE := dominocam/locale
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

# The lock: uv resolves every extra at once for Linux x86-64 and arm64, CPython 3.11 to 3.13
# (pyproject.toml [tool.uv]) into uv.lock, then exports one hash-checked file per set of
# packages that a target installs. uv itself comes from the lock (its `lock` group).
lock: | $(BIN)/python  ## refresh the lock to the newest releases the ranges allow
	$(LOCKED) $(REQUIREMENTS)/lock.txt
	$(BIN)/uv lock --upgrade
	$(BIN)/uv export --frozen --quiet --no-emit-project --only-group lock -o $(REQUIREMENTS)/lock.txt
	$(BIN)/uv export --frozen --quiet --no-emit-project --group build -o $(REQUIREMENTS)/run.txt
	$(BIN)/uv export --frozen --quiet --no-emit-project --group build --extra dev \
		-o $(REQUIREMENTS)/dev.txt
	$(BIN)/uv export --frozen --quiet --no-emit-project --group build --extra dev --extra train \
		-o $(REQUIREMENTS)/train.txt
	$(BIN)/uv export --frozen --quiet --no-emit-project --group build --extra dev \
		--extra tournament -o $(REQUIREMENTS)/tournament.txt

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis *.egg-info build dist
