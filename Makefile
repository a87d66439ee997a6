# The two commands a newcomer needs: `make run` and `make test`.
# Both set up everything on a fresh Debian machine: Debian packages (as root),
# a virtualenv in .venv, and the package with its test extras.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test check check-fast bench conformance debs clean

run: debs $(STAMP)
	@scripts/run

test: debs $(STAMP)
	@scripts/check

check: $(STAMP)
	@scripts/check

# Lint, types and the fast tests: under two minutes, for before each commit.
check-fast: $(STAMP)
	@scripts/check -m fast -q

bench: $(STAMP)
	@$(BIN)/python bench/run_all.py

conformance: $(STAMP)
	@scripts/conformance

debs:
	@scripts/ensure-debs

$(STAMP): pyproject.toml Makefile
	@scripts/ensure-debs python
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -e '.[test,rapidocr]'
	@touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache bench/out
