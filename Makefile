# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

BENCHVENV := .venv-bench
BENCHSTAMP := $(BENCHVENV)/.installed

.PHONY: demo test lint bench bench-peers clean

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

test: lint
	$(BIN)/python -m pytest

# mypy cannot follow the folder-to-package mapping, so it checks a tree of symlinks
# laid out as the installed package is.
lint: $(DEVSTAMP)
	$(BIN)/ruff check .
	rm -rf build/typecheck && mkdir -p build/typecheck/a4a
	for f in a4a/*.py; do ln -s ../../../$$f build/typecheck/a4a/; done
	for d in runtime generator templates catalog training; do ln -s ../../../$$d build/typecheck/a4a/$$d; done
	cd build/typecheck && ../../$(BIN)/mypy --config-file ../../pyproject.toml -p a4a

bench: $(STAMP)
	$(BIN)/python bench/build_throughput.py
	$(BIN)/python bench/cli_startup.py
	$(BIN)/python bench/runtime_overhead.py

# Peer frameworks live in their own environment so the project's dependencies stay lean.
$(BENCHSTAMP): pyproject.toml bench/peers.txt
	$(PY) -m venv $(BENCHVENV)
	$(BENCHVENV)/bin/pip install --quiet --upgrade "pip>=24" "setuptools>=69" wheel
	$(BENCHVENV)/bin/pip install --quiet -e . -r bench/peers.txt
	! $(BENCHVENV)/bin/pip show --quiet torch 2>/dev/null  # a peer must never pull in torch
	touch $@

bench-peers: $(BENCHSTAMP)
	$(BENCHVENV)/bin/python bench/runtime_overhead.py

clean:
	rm -rf $(VENV) $(BENCHVENV) build dist *.egg-info demo
