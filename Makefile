# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade "pip>=24" "setuptools>=69" wheel

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEVSTAMP): $(STAMP)
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

demo: $(STAMP)
	$(BIN)/a4a build "a team that triages GitHub issues" --out demo/github-triage
	$(BIN)/a4a show demo/github-triage

test: $(DEVSTAMP)
	$(BIN)/python -m pytest

lint: $(DEVSTAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/build_throughput.py
	$(BIN)/python bench/cli_startup.py

clean:
	rm -rf $(VENV) build dist *.egg-info demo
