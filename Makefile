# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test lint bench clean chromium

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
	$(BIN)/a4a catalog list
	@echo ""
	@echo "Every build is kept in the catalog. Browse it: $(BIN)/a4a catalog serve"
	@echo "then open http://127.0.0.1:8765 (or: $(BIN)/a4a catalog search \"triage\")"

test: lint chromium
	$(BIN)/python -m pytest

# The browser tests drive Debian's chromium; install it when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

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
	$(BIN)/python bench/catalog_bench.py
	$(BIN)/python bench/catalog_concurrency.py --seconds 30

clean:
	rm -rf $(VENV) build dist *.egg-info demo
