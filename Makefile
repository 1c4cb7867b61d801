# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean sandbox

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade "pip>=24" "setuptools>=69" wheel

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	touch $@

$(DEVSTAMP): $(STAMP)
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

# Code tools run only under bubblewrap (the runtime fails closed without it); Debian ships it.
sandbox:
	command -v bwrap >/dev/null || (apt-get update && apt-get install -y bubblewrap)

demo: $(STAMP) sandbox
	$(BIN)/a4a build "a team that triages GitHub issues" --out demo/github-triage
	$(BIN)/a4a show demo/github-triage

# A4A_REQUIRE_SANDBOX turns a missing bubblewrap into failures instead of skipped probes.
test: lint sandbox
	A4A_REQUIRE_SANDBOX=1 $(BIN)/python -m pytest

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
	$(BIN)/python bench/llm_concurrency.py

clean:
	rm -rf $(VENV) build dist *.egg-info demo
