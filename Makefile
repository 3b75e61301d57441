# overhead-tui: `make run` opens the app, `make test` runs the whole suite.
# Both create .venv on first use (and again when pyproject.toml changes).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast compile lint docs screenshots benchmark system-deps torch mojo clean

$(STAMP): pyproject.toml
	@# a venv without pip (0.2 s, against 6 s for ensurepip's copy): uv is installed into it by
	@# this Python's pip, and it installs the project from PyPI in about 5 s (pip takes about
	@# 30 s); where uv cannot be had or cannot reach an index, the venv's own pip does it (with
	@# pip's own configuration)
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet uv 2>/dev/null || { \
	  $(BIN)/python -m ensurepip --default-pip >/dev/null 2>&1; \
	  $(BIN)/python -m pip install --quiet uv 2>&1 | grep -v "is ignored"; } || true
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[test]' || { \
	  $(BIN)/python -m ensurepip --default-pip >/dev/null 2>&1; \
	  $(BIN)/python -m pip install --quiet --upgrade pip 2>&1 | grep -v "is ignored"; \
	  $(BIN)/python -m pip install --quiet -e '.[test]' 2>&1 | grep -v "is ignored"; } || true
	$(BIN)/python -c "import overhead_tui, textual, numpy, numba, pytest"
	@# byte-compiled once, as pip does, what the app, its workers and the default set's builds
	@# import (every process would compile textual, numpy, numba … again where
	@# PYTHONDONTWRITEBYTECODE is set): 8 s on 2 vCPUs, against 15 s for every package;
	@# `make test` compiles the tools only the suite and the other rungs import
	$(BIN)/python -m compileall -q -j 0 -x '$(TOOLS_ONLY)' $(SITE) >/dev/null
	touch $(STAMP)

# packages no process of the app's default set imports: the compilers and libraries of the
# other rungs, the linters, the docs and the test runner (byte-compiled by `make test`); numba
# imports scipy. No package's own tests are compiled (nothing imports them: 2 of numpy's and
# numba's 4 s)
TESTS := /tests?/
TOOLS_ONLY := /site-packages/(jax|jaxlib|nuitka|pythran|mypy|mypyc|mkdocs|pip|_pytest|pytest|ruff)/|$(TESTS)
SITE = $$($(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
COMPILED := $(VENV)/.compiled

$(COMPILED): $(STAMP)
	$(BIN)/python -m compileall -q -j 0 -x '$(TESTS)' $(SITE) >/dev/null
	touch $(COMPILED)

run: $(STAMP) compile
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

# optional: Mojo for mojo_naive and mojo_tiled_simd (--set compilers), pinned: its syntax moves
# between releases (about 770 MB: the compiler, its libraries and its LLDB)
MOJO_VERSION ?= 1.2.0
mojo: $(STAMP)
	@echo "installing mojo $(MOJO_VERSION)"
	$(BIN)/uv pip install --quiet --python $(BIN)/python 'mojo==$(MOJO_VERSION)' || { \
	  $(BIN)/python -m ensurepip --default-pip >/dev/null 2>&1; \
	  $(BIN)/python -m pip install --quiet 'mojo==$(MOJO_VERSION)'; }

# three test processes on two cores: a third keeps the CPUs busy while a test waits on a
# timeout or a child; worksteal moves queued tests to whichever process runs out first
XDIST := -n 3 --dist worksteal

# the package byte-compiled once: the suite starts about 400 Python processes, and each would
# compile it from source again where PYTHONDONTWRITEBYTECODE is set (0.1 s a process)
compile: $(STAMP)
	@$(BIN)/python -m compileall -q overhead_tui

test: $(STAMP) $(COMPILED) system-deps compile
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# the fast loop: unit, app and snapshot tests (no real ladders, tmux, profilers or pip)
test-fast: $(STAMP) $(COMPILED) compile
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
