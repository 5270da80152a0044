# The README's commands. `make demo` sets everything up and runs the built-in suite end to end with the
# built-in reference model; `make test` runs the whole test suite (what .ci/run calls).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint validate bench clean

setup: $(STAMP)

# uv installs the pinned requirements (parallel downloads and byte-compiling; pip took about 3 min 45 s on a
# fresh 2-core machine) while the Debian packages install beside it. The .pyc files matter: the sandbox imports
# from a read-only view with PYTHONDONTWRITEBYTECODE, so without them every sandboxed import of torch would compile
# it from source again. uv reads no pip configuration, so the local wheel folder pip would look in (PIP_FIND_LINKS:
# the CPU torch wheel these machines carry) is passed on.
FIND_LINKS := $(if $(PIP_FIND_LINKS),$(foreach d,$(PIP_FIND_LINKS),--find-links $(d)))

$(STAMP): requirements.txt pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q $$(grep -E '^uv==' requirements.txt | cut -d' ' -f1)
	bash scripts/install-system-tools.sh > $(VENV)/system-tools.log 2>&1 & \
	  $(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) $(FIND_LINKS) -r requirements.txt \
	  && $(VENV)/bin/uv pip install -q --python $(PY) --no-deps -e . ; rc=$$?; wait; cat $(VENV)/system-tools.log; exit $$rc
	touch $(STAMP)

demo: setup
	$(VENV)/bin/lmrbench run --model reference --split all --workers 2

# mypy (about 9 s cold) runs beside pytest; either failing fails the target.
test: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/mypy & mypy=$$!; $(PY) -m pytest -q -n 2 --dist loadfile -m "not proof"; rc=$$?; \
	  wait $$mypy || exit 1; exit $$rc

# The heavier proofs `make test` leaves out: first the tests marked `proof` (every lite/main reference passes under
# the pinned kernels and another BLAS and every stub fails; fixtures under the pinned kernels; every lite
# implementation through Inspect; no committed file copies a pinned release), then the wrong variants and mutants
# of lite and main, then the upstream split (when tasks/ holds upstream recipes): fetch (cached), lint with the
# release, validate with mutants (90% kill bar).
UPSTREAM_RECIPES := $(shell grep -lE '"split": *"upstream"' tasks/*/info.json 2>/dev/null)

validate: setup
	$(PY) -m pytest -q -n 2 --dist loadfile -m proof
	$(VENV)/bin/lmrbench validate --mutants --split all --workers 2
ifneq ($(UPSTREAM_RECIPES),)
	$(VENV)/bin/lmrbench tasks fetch --split upstream
	$(VENV)/bin/lmrbench tasks lint --split upstream
	$(VENV)/bin/lmrbench validate --mutants --min-kill 0.9 --split upstream --workers 2
endif

bench: setup
	$(PY) benchmarks/bench_evaluate.py
	$(PY) benchmarks/bench_validate.py

clean:
	rm -rf runs .pytest_cache
