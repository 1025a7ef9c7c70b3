# The one entry point. `make demo` and `make test` work from a clean clone with nothing but Python >= 3.11.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
N ?= 1e6

.PHONY: install demo test bench lint report golden docs clean

install: $(STAMP)

$(STAMP): pyproject.toml tests/example_game/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test,cluster]"
	$(BIN)/pip install --quiet -e tests/example_game  # the worked example game from outside (engines/README.md)
	touch $(STAMP)

demo: install
	$(BIN)/simulate pantolino --policy keep-jokers -n $(N) --seed 2026 --out runs/demo
	$(BIN)/simulate report pantolino --seed 2026

test: install
	$(BIN)/pytest -q -n auto --dist loadfile --durations=20

bench: install
	$(BIN)/python benchmarks/bench.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

report: install
	$(BIN)/simulate report pantolino

golden: install
	$(BIN)/python -m tests.golden.regenerate

# The documentation site, site/index.html (docs/, mkdocs.yml); its packages are the `docs` extra, installed here only
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict

$(VENV)/.docs-installed: $(STAMP)
	$(BIN)/pip install --quiet -e ".[test,cluster,docs]"
	touch $@

clean:
	rm -rf $(VENV) site runs/* reports/*.pdf reports/*.html reports/*.chunks test-artifacts .pytest_cache .ruff_cache build *.egg-info
