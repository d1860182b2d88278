# Two commands on a fresh machine: `make demo` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

GITHUB_SCHEMA := .cache/npm/node_modules/@octokit/graphql-schema/schema.graphql
AXE           := .cache/npm/node_modules/axe-core/axe.min.js

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Porchlamp needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/porchlamp demo --out demo $(DEMO_FLAGS)

# GitHub's published GraphQL schema, pinned: the emulator and the queries are checked against it.
$(GITHUB_SCHEMA):
	npm install --silent --no-audit --no-fund --prefix .cache/npm @octokit/graphql-schema@15.26.1

# axe-core, pinned: the browser tests check every page type for accessibility with it.
$(AXE):
	npm install --silent --no-audit --no-fund --prefix .cache/npm axe-core@4.11.0

test: $(STAMP) $(GITHUB_SCHEMA) $(AXE)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) demo .pytest_cache .cache
