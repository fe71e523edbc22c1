# Two entry points that work on a fresh machine: `make demo` and `make test`.
# PY: the interpreter .venv is made with. Unset, the fastest build on this machine of the Python
# version `python3` is (tools/pick_python.py times each; this machine's Debian build runs the
# suite about 20% faster than pyenv's, docs/testing.md). An existing .venv keeps its interpreter
# (`rm -rf .venv` to make it again); `make PY=/path/to/python3` chooses one for a new .venv.
PY ?=
PY_FOR_VENV := $(or $(PY),$$(python3 tools/pick_python.py || echo python3))
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: CORE_STAMP, the package alone (what `make demo` needs: about 200 MB); STAMP, every
# extra the tests need (about 1.6 GB) on top of it. Either order of `make demo` and `make test`
# in one clone works: the full install starts from the core one, the demo uses whichever is there.
CORE_STAMP := $(VENV)/.installed-core
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean mutation

$(CORE_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY_FOR_VENV) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $(CORE_STAMP)

$(STAMP): $(CORE_STAMP) pyproject.toml
	$(BIN)/pip install -q -e '.[dev,inspect,ray,openenv,verifiers]'
	$(BIN)/pip install -q --no-deps 'bfcl-eval==2026.3.23'
	touch $(STAMP)

demo: $(CORE_STAMP)
	$(BIN)/agm audit comtrade --out out/demo

# pytest-xdist: TEST_WORKERS processes; --dist loadscope keeps each module on one worker, so a
# module-scoped fixture (a recorded store, a census) is built once. TEST_WORKERS=0 runs serially.
# Tests marked `serial` (a wall-clock limit, see tests/conftest.py) run afterwards, beside mypy
# only, never beside another test worker.
# SERIAL_TESTS lists the modules marked `serial` (tests/conftest.py SERIAL_MODULES; a test checks
# that the two agree), so the serial run collects only them, not the whole suite again.
# Bytecode caching is on for the tests (test-parallel, test-serial) whatever the environment
# says: with PYTHONDONTWRITEBYTECODE set (some CI images and sandboxes set it), every xdist worker
# redoes every test module's asserts and every `agm` subprocess compiles the package again
# (docs/testing.md).
TEST_WORKERS ?= 2
SERIAL_TESTS := tests/run/campaign/test_campaign_interrupt.py tests/run/campaign/test_campaign_ray_nodes.py
test: $(STAMP)
	$(MAKE) --no-print-directory test-lint
	$(MAKE) --no-print-directory test-parallel
	$(MAKE) --no-print-directory -j 2 $(OUTPUT_SYNC) test-types test-serial

# The type check and the serial modules run side by side, one core each (the serial module's
# limit, a Ctrl-C answered within 10 s, holds beside one busy process, not beside a second test
# worker); --output-sync prints each one's output whole when it ends (GNU make 4.0 and later;
# an older make interleaves the two). Either failing fails.
OUTPUT_SYNC := $(if $(filter output-sync,$(.FEATURES)),--output-sync=target)
# benchmarks/suite_time.py runs these three parts one by one and times each.
.PHONY: test-lint test-parallel test-types test-serial
test-lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools
test-parallel: export PYTHONDONTWRITEBYTECODE =
test-parallel: $(STAMP)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadscope -m "not serial"
test-types: $(STAMP)
	$(BIN)/mypy
test-serial: export PYTHONDONTWRITEBYTECODE =
test-serial: $(STAMP)
	$(BIN)/pytest -m serial $(SERIAL_TESTS)

bench: $(STAMP)
	$(BIN)/python benchmarks/episodes.py
	$(BIN)/python benchmarks/score_memory.py
	$(BIN)/python benchmarks/stats.py
	$(BIN)/python benchmarks/harness.py
	$(BIN)/python benchmarks/researchops.py
	$(BIN)/python benchmarks/diagnose_grid.py
	$(BIN)/python benchmarks/viewer.py
	$(BIN)/python benchmarks/view_scale.py
	$(BIN)/python benchmarks/rl_adapters.py
	$(BIN)/python benchmarks/memory.py
	$(BIN)/python benchmarks/ledger_append.py
	$(BIN)/python benchmarks/episodes_vs.py --base HEAD~1
	$(BIN)/python benchmarks/llm_throughput.py
	$(BIN)/python benchmarks/llm_campaign_ray.py
	$(BIN)/python benchmarks/ray_nodes.py
	$(BIN)/python benchmarks/suite_time.py
	$(BIN)/python benchmarks/table_read.py
	$(BIN)/python benchmarks/table.py

# Mutation testing of the measurement core (slow; not part of `make test`). One module at a
# time, one worker: `make mutation MODULES="archive/passk.py audit/probes.py"`. See docs/testing.md.
MODULES ?=
mutation: $(STAMP)
	$(BIN)/python tests/mutation/run.py $(MODULES)

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
