# The README's commands. `make demo` sets everything up and runs the built-in suite end to end with the
# built-in reference model; `make test` runs the whole test suite (what .ci/run calls).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint validate bench clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	bash scripts/install-system-tools.sh
	touch $(STAMP)

demo: setup
	$(VENV)/bin/lmrbench run --model reference --split all --workers 2

test: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -n 2 --dist loadfile

validate: setup
	$(VENV)/bin/lmrbench validate --mutants --split all --workers 2

bench: setup
	$(PY) benchmarks/bench_evaluate.py
	$(PY) benchmarks/bench_validate.py

clean:
	rm -rf runs .pytest_cache
