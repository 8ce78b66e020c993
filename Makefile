# Two set-up commands (see README): `make demo` and `make test`. Both create .venv/ at the repo root.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
SAMPLE := examples/PMC1090588.nxml

.PHONY: demo test lint typecheck bench clean results results-fast retriever-model

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# the default install: no torch
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e .
	touch $@

# test set-up: the CPU torch wheel first (plain `torch` would pull a CUDA build), then the extras
# (ocr: tests/test_pdf_ocr.py; it calls tesseract and ghostscript, which .ci/run installs)
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e '.[dev,torch,ocr]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	$(BIN)/claimtrace parse $(SAMPLE)
	$(BIN)/claimtrace stats $(SAMPLE)
	$(BIN)/claimtrace extract $(SAMPLE) --extractor embedded
	$(BIN)/claimtrace retrieve $(SAMPLE) -q "anodal or cathodal tDCS vs sham-tDCS: reaction time" --units sentences -k 3

test: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench scripts training
	$(BIN)/lint-imports  # the layer contract (pyproject.toml, docs/architecture.md)
	$(BIN)/mypy
	$(BIN)/mypy bench scripts training  # the benchmark, training and helper scripts too (mypy_path from pyproject)
	scripts/local-llm.sh install  # the real local LLM for the llm-marked tests (built once, cached)
	$(BIN)/python -m pytest -q

# every result file and results page from committed inputs (needs ../shared; bench/reproduce.py --list)
results-fast: $(VENV)/.installed
	$(BIN)/python bench/reproduce.py --fast --compare

# the same plus the slow steps (local LLM, long runs, the fine-tuned retriever)
results: $(VENV)/.installed
	$(BIN)/python bench/reproduce.py --slow --compare

# the shipped trained retriever (src/claimtrace/resources/retriever) from EI train: needs torch, onnx, ../shared
retriever-model: $(VENV)/.installed-dev
	nice -n 10 $(BIN)/python training/train_retriever.py

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench scripts training
	$(BIN)/lint-imports  # the layer contract (pyproject.toml, docs/architecture.md)
	$(BIN)/mypy
	$(BIN)/mypy bench scripts training  # the benchmark, training and helper scripts too (mypy_path from pyproject)

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
