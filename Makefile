# overhead-tui: `make run` opens the app, `make test` runs the whole suite.
# Both create .venv on first use (and again when pyproject.toml changes).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast compile lint docs screenshots benchmark system-deps torch clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	@# uv installs the same packages from PyPI in a few seconds (pip takes about 30 s), byte-
	@# compiled as pip does (every process of the suite would compile textual, numpy … again
	@# where PYTHONDONTWRITEBYTECODE is set); where uv cannot be had or cannot reach an index,
	@# pip does it (with pip's own configuration)
	$(BIN)/python -m pip install --quiet uv 2>&1 | grep -v "is ignored" || true
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]' || { \
	  $(BIN)/python -m pip install --quiet --upgrade pip 2>&1 | grep -v "is ignored"; \
	  $(BIN)/python -m pip install --quiet -e '.[test]' 2>&1 | grep -v "is ignored"; } || true
	$(BIN)/python -c "import overhead_tui, textual, numpy, numba, pytest"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/overhead-tui $(ARGS)

system-deps:
	@sh scripts/system-deps.sh

# optional: PyTorch's CPU build for torch_matmul (never the default CUDA build of several GB):
# the CPU wheel where pip finds one (its find-links), else from PyTorch's CPU index, both pinned
TORCH ?= 2.13.0
torch: $(STAMP)
	@echo "installing torch $(TORCH), its CPU build"
	$(BIN)/python -m pip install --quiet 'torch==$(TORCH)+cpu' || { \
	  echo "no local CPU wheel of torch $(TORCH): trying PyTorch's CPU index"; \
	  $(BIN)/python -m pip install --quiet 'torch==$(TORCH)' \
	    --index-url https://download.pytorch.org/whl/cpu; }

# three test processes on two cores: a third keeps the CPUs busy while a test waits on a
# timeout or a child; worksteal moves queued tests to whichever process runs out first
XDIST := -n 3 --dist worksteal

# the package byte-compiled once: the suite starts about 400 Python processes, and each would
# compile it from source again where PYTHONDONTWRITEBYTECODE is set (0.1 s a process)
compile: $(STAMP)
	@$(BIN)/python -m compileall -q overhead_tui

test: $(STAMP) system-deps compile
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# the fast loop: unit, app and snapshot tests (no real ladders, tmux, profilers or pip)
test-fast: $(STAMP) compile
	$(BIN)/python -m pytest $(XDIST) -m "not slow" tests/unit tests/app tests/snapshots $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m mypy

# the docs site: generated reference pages, then a strict build (warnings are errors) into site/
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py
	$(BIN)/python scripts/gen_schema.py
	$(BIN)/python -m mkdocs build --strict --quiet

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

benchmark: $(STAMP)
	$(BIN)/python scripts/benchmark.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache site
