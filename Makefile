# `make run` serves on the embedded defaults; `make test` runs the whole suite.
# Both create the virtual environment in .venv when it is missing.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TEST_POSTGRES_URL ?= postgresql+asyncpg://postgres@127.0.0.1:5432/lisan_test
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15
PYTEST_ARGS ?=

.PHONY: install system-deps run migrate lint test test-sqlite test-postgres bench clean

# Debian packages the tests need: real speech made with espeak-ng, converted with sox.
SYSTEM_TOOLS := espeak-ng sox

install: $(STAMP) system-deps

system-deps:
	@missing=""; for tool in $(SYSTEM_TOOLS); do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: install
	$(BIN)/lisan serve

migrate: install
	$(BIN)/lisan migrate

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy src tests bench

test-sqlite: install
	LISAN_TEST_REDIS_URL=$(TEST_REDIS_URL) $(BIN)/pytest $(PYTEST_ARGS)

test-postgres: install
	LISAN_TEST_DATABASE_URL=$(TEST_POSTGRES_URL) LISAN_TEST_REDIS_URL=$(TEST_REDIS_URL) \
		$(BIN)/pytest $(PYTEST_ARGS)

test: lint test-sqlite test-postgres

bench: install
	command -v wrk >/dev/null || (apt-get update -q && apt-get install -y -q wrk)
	$(BIN)/python -m bench.identity --database both

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
