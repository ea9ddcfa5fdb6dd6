# Quickstart targets. `make demo` and `make test` each work on a fresh machine:
# they create .venv, install srm-bench with its dependencies, then run.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := out/demo

.PHONY: demo test test-fast lint bench clean

demo: $(STAMP)
	rm -rf $(DEMO)
	$(BIN)/srm-bench generate sudoku --split hard -o $(DEMO)/hard
	$(BIN)/srm-bench verify $(DEMO)/hard
	$(BIN)/srm-bench evaluate $(DEMO)/hard --out $(DEMO)/results
	for s in random greedy most-constrained; do \
	  $(BIN)/srm-bench oracle sudoku --strategy $$s --split hard --reference $(DEMO)/hard -o $(DEMO)/oracle-$$s.h5 && \
	  $(BIN)/srm-bench evaluate $(DEMO)/oracle-$$s.h5 --reference $(DEMO)/hard --out $(DEMO)/results || exit 1; \
	done
	$(BIN)/srm-bench leaderboard --task sudoku --results $(DEMO)/results

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy  # srm_bench/, baselines/, evaluators/, generators/, leaderboard/: see [tool.mypy] in pyproject.toml

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

clean:
	rm -rf $(VENV) out
