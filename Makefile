# Two commands do all set-up on a fresh machine:
#   make demo   - create .venv, install retrograd (+ demo extras), run the demo
#   make test   - create .venv, install retrograd (+ test extras incl. torch 2.13 CPU), run all tests
#                 natively and again as on a CPU without AVX (scripts/test_any_cpu.sh)
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

# graphviz's `dot` renders the demo's and tests' graphs to SVG/PNG. Optional: without it the demo
# writes .dot files and says so, and the tests skip only their rendering checks. Installed with
# apt-get when it is missing and apt-get is usable (root, or password-less sudo).
graphviz-dot:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO=no; fi; \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$SUDO" != no ]; then \
	    echo "installing graphviz (for its dot program) with apt-get"; \
	    $$SUDO apt-get install -y -qq graphviz >/dev/null 2>&1 || \
	      { $$SUDO apt-get update -qq >/dev/null 2>&1 && $$SUDO apt-get install -y -qq graphviz >/dev/null 2>&1; } || \
	      echo "could not install graphviz: graphs will be written as .dot files"; \
	  else \
	    echo "graphviz's dot is missing (apt-get install graphviz / brew install graphviz): graphs will be .dot files"; \
	  fi; }

.PHONY: test demo bench bench-peers graphviz-dot
# pytest-xdist workers: one per core (TEST_WORKERS=0 runs in this process, for debugging).
TEST_WORKERS ?= auto
# The suite runs twice: on this CPU's fastest SIMD paths, then as on a CPU without AVX
# (scripts/test_any_cpu.sh), so no test depends on which rounding path a machine takes.
# ruff, the size budgets (scripts/check_size.py) and the import layers (scripts/check_import_layers.py)
# run first: they take seconds and fail fast.
# Doctests of src/ and the README's printed outputs run inside pytest (tests/docs/).
test: $(VENV)/.test-installed graphviz-dot
	$(BIN)/ruff check src tests bench scripts examples
	$(BIN)/python scripts/check_size.py
	$(BIN)/python scripts/check_import_layers.py
	$(BIN)/python -m pytest -n $(TEST_WORKERS)
	PY=$(BIN)/python scripts/test_any_cpu.sh -p no:cacheprovider -n $(TEST_WORKERS)

demo: $(VENV)/.demo-installed graphviz-dot
	$(BIN)/python -m retrograd demo $(DEMO_ARGS)

# The peers (HIPS autograd, mygrad) go into .bench-peers, beside the test venv and not into it:
# bench/compare.py's workers add that folder to their path. --no-deps: they need only NumPy.
.bench-peers/.installed: $(BIN)/python
	$(BIN)/pip install -q --no-deps --target .bench-peers autograd mygrad
	touch $@

bench-peers: $(BIN)/python .bench-peers/.installed

# One table: retrograd, torch, hand-written NumPy, autograd, mygrad (bench/compare.py, BENCH_ARGS=--quick
# for a smoke test); then every bench/bench_*.py (bench/run_all.py).
bench: $(VENV)/.test-installed bench-peers
	$(BIN)/python bench/compare.py $(BENCH_ARGS)
	$(BIN)/python bench/run_all.py
