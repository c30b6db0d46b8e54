# Two commands do all set-up on a fresh machine:
#   make demo   - create .venv, install retrograd (+ demo extras), run the demo
#   make test   - create .venv, install retrograd (+ test extras incl. torch 2.13 CPU), run all tests
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.test-installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[test]'
	touch $@

$(VENV)/.demo-installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[demo]'
	touch $@

.PHONY: test demo bench
test: $(VENV)/.test-installed
	$(BIN)/python -m pytest

demo: $(VENV)/.demo-installed
	$(BIN)/python -m retrograd demo $(DEMO_ARGS)

bench: $(VENV)/.test-installed
	$(BIN)/python bench/run_all.py
