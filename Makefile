# StreamGraph Studio developer commands (GNU make).

PYTHON_BOOT ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PORT ?= 8000
TEST_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/postgres
# The production settings with a key of the tests' own (tests/settings.py), as pytest uses.
TEST_SETTINGS := DJANGO_SETTINGS_MODULE=tests.settings

INSTALLED := $(VENV)/.installed
NODE_STAMP := node_modules/.package-lock.json
# The built browser app; its stamp lives inside the build, so a removed build is rebuilt.
FRONTEND_STAMP := frontend/dist/.built
# Folders too: removing a file changes its folder's time.
FRONTEND_SOURCES := $(shell find frontend/src frontend/public 2>/dev/null) \
	$(wildcard frontend/index.html frontend/vite.config.ts frontend/tsconfig*.json package-lock.json)
# The end-to-end tests and the canvas benchmark drive Debian's Chromium (playwright-core
# downloads no browser); installing it needs root, or sudo.
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.DEFAULT_GOAL := help

.PHONY: help install build run test test-python-checks test-frontend-checks test-pytest \
	test-sqlite test-e2e \
	lint fmt bench nightly clean wire executor-env spark-jar

help:
	@echo "StreamGraph Studio"
	@echo ""
	@echo "  make run     install dependencies, build the app if its sources changed, migrate,"
	@echo "              serve http://127.0.0.1:$(PORT) (app, API, websockets, Celery worker)"
	@echo "  make build   build the browser app into frontend/dist if its sources changed"
	@echo "  make test    lint, type-check, import contracts, Django checks, pytest (PostgreSQL,"
	@echo "              a few again on SQLite), vitest, end-to-end tests in headless Chromium,"
	@echo "              side by side; parts: test-python-checks, test-frontend-checks,"
	@echo "              test-pytest, test-sqlite, test-e2e"
	@echo "  make bench   compiler, runnability, savepoint, co-editing, Spark and canvas benchmarks"
	@echo "              (figures)"
	@echo "  make nightly the runtime's differential tests on 200 batches of generated pipelines"
	@echo "              from the day's seed (DIFFERENTIAL_SEED=N reruns one)"
	@echo "  make lint    ruff check and format check, commit messages since the rule came in"
	@echo "  make fmt     ruff format and autofix, prettier on frontend/"
	@echo "  make wire    regenerate the browser's wire types from the server's models"
	@echo "  make executor-env  pack the Spark executors' Python environment into"
	@echo "              $(EXECUTOR_ARCHIVE) (a cluster profile's pythonArchive)"
	@echo "  make spark-jar  compile the Spark runtime's Java functions into $(SPARK_JAR)"
	@echo "  make clean   remove .venv, node_modules, var, frontend/dist and build"
	@echo ""
	@echo "Variables: PORT=$(PORT) TEST_POSTGRES_URL=$(TEST_POSTGRES_URL)"

$(INSTALLED): requirements/base.txt requirements/executor.txt requirements/dev.txt
	test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.txt
	touch $@

install: $(INSTALLED)

# npm writes its hidden lockfile only into an existing node_modules folder.
# With a package-lock.json, `npm ci` installs exactly what it pins.
$(NODE_STAMP): package.json $(wildcard package-lock.json)
	mkdir -p node_modules
	if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
	touch $@

$(FRONTEND_STAMP): $(NODE_STAMP) $(FRONTEND_SOURCES)
	npm run build
	touch $@

build: $(FRONTEND_STAMP)

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium

# Production settings are the default; `make run` opts into development ones (debug pages,
# a secret key of this checkout's own in var/) unless DJANGO_DEBUG is set otherwise.
DJANGO_DEBUG ?= true

# The Java functions Spark runs for the SQL path (backend/runtime/spark/jvm/), compiled
# against the pyspark jars of the venv, with the case tables of the venv's Python (the
# executors'); the session ships the jar with `spark.jars`.
SPARK_JAR := build/spark/streamgraph-spark.jar
SPARK_JAVA := $(shell find backend/runtime/spark/jvm -name '*.java' 2>/dev/null)
CASE_TABLES := backend/runtime/spark/casetables.py

$(SPARK_JAR): $(INSTALLED) $(SPARK_JAVA) $(CASE_TABLES)
	rm -rf build/spark/classes $@.partial
	mkdir -p build/spark/classes
	javac -nowarn --release 17 -d build/spark/classes \
		-cp "$$($(PY) -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')/*" \
		$(SPARK_JAVA)
	$(PY) $(CASE_TABLES) build/spark/classes/streamgraph/spark/python-case.txt
	jar --create --file $@.partial -C build/spark/classes .
	mv $@.partial $@

spark-jar: $(SPARK_JAR)

run: $(INSTALLED) $(FRONTEND_STAMP) $(SPARK_JAR)
	@echo "make run: DJANGO_DEBUG=$(DJANGO_DEBUG) (development settings; production needs SECRET_KEY)"
	DJANGO_DEBUG=$(DJANGO_DEBUG) $(PY) manage.py migrate --noinput
	DJANGO_DEBUG=$(DJANGO_DEBUG) $(PY) manage.py serve --port $(PORT)

lint: $(INSTALLED)
	$(CHECKS_NICE) $(BIN)/ruff check .
	$(CHECKS_NICE) $(BIN)/ruff format --check .
	$(CHECKS_NICE) $(PY) tools/commit_subjects.py

# `make test` runs five parts side by side, each printed whole when it ends, and says how
# long it took: the Python checks, the browser app's checks and unit tests, pytest on
# PostgreSQL (in TEST_WORKERS processes), the tests marked `both_databases` again on SQLite
# (`make run`'s database), and the end-to-end suite (a server and database of its own).
# docs/ARCHITECTURE.md, "Tests", says how to run one part.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/pytest --durations=30
# The tests' JVMs (Spark's, in pytest and behind the end-to-end server) live seconds to
# minutes: C2's compiles and parallel GC threads cost them a quarter of their CPU on two
# cores and pay nothing back, and verifying the bytecode of Spark's own jars and of the
# classes its SQL compiles costs every JVM a second more; production's JVMs keep the defaults.
TEST_JAVA := JAVA_TOOL_OPTIONS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
	-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"

# The two check parts are pure computation and end in a third of pytest's time: in `make
# test` they run at a lower priority, on the CPU pytest's processes leave while they wait,
# so pytest, the longest part, is not slowed by them.
CHECKS_NICE ?=

test:
	@start=$$(date +%s); \
	if $(MAKE) --no-print-directory --output-sync=target -j 5 CHECKS_NICE="nice -n 10" \
		test-python-checks test-frontend-checks test-pytest test-sqlite test-e2e; \
	then result=passed; else result=FAILED; fi; \
	echo "make test: $$result in $$(( $$(date +%s) - start )) s"; \
	[ $$result = passed ]

test-python-checks: lint
	$(CHECKS_NICE) $(BIN)/mypy
	PYTHONPATH=backend $(CHECKS_NICE) $(BIN)/lint-imports
	$(TEST_SETTINGS) $(CHECKS_NICE) $(PY) manage.py makemigrations --check --dry-run
	$(TEST_SETTINGS) $(CHECKS_NICE) $(PY) manage.py spectacular --validate --fail-on-warn \
		--file /dev/null
	$(TEST_SETTINGS) $(CHECKS_NICE) $(PY) manage.py wire_schema --check

# ESLint's type-aware rules read across files, so a lint holds for exactly the files it
# read: it runs again, over all of frontend/, whenever anything there (or an installed
# package) changed since it last passed.
LINT_STAMP := node_modules/.cache/frontend-lint.passed
LINT_INPUTS := $(shell find frontend -path frontend/dist -prune -o -print 2>/dev/null) package.json

$(LINT_STAMP): $(NODE_STAMP) $(LINT_INPUTS)
	$(CHECKS_NICE) npm run lint
	mkdir -p $(@D)
	touch $@

# The build type-checks frontend/ whenever its sources change, and the lint runs whenever
# they change; the rest is checked here.
test-frontend-checks: $(NODE_STAMP) $(FRONTEND_STAMP) $(LINT_STAMP)
	$(CHECKS_NICE) npm run format:check
	$(CHECKS_NICE) npm run typecheck:others
	$(CHECKS_NICE) npm run test:unit
	$(CHECKS_NICE) npm run wire:check

test-pytest: $(INSTALLED) $(FRONTEND_STAMP) $(SPARK_JAR)
	$(TEST_JAVA) DATABASE_URL=$(TEST_POSTGRES_URL) $(PYTEST) -n $(TEST_WORKERS) --dist loadgroup

test-sqlite: $(INSTALLED) $(FRONTEND_STAMP) $(SPARK_JAR)
	$(TEST_JAVA) DATABASE_URL=sqlite:///var/test.sqlite3 $(PYTEST) -m both_databases

test-e2e: $(INSTALLED) $(NODE_STAMP) $(FRONTEND_STAMP) $(CHROMIUM)
	$(TEST_JAVA) npm run test:e2e

# The browser's types of what the server sends (frontend/src/api/generated/), from its models.
wire: $(INSTALLED) $(NODE_STAMP)
	$(TEST_SETTINGS) $(PY) manage.py wire_schema
	npm run wire

fmt: $(INSTALLED) $(NODE_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	npm run format

bench: $(INSTALLED) $(FRONTEND_STAMP) $(CHROMIUM) $(SPARK_JAR)
	PYTHONPATH=backend $(PY) -m benchmarks.compiler_bench
	PYTHONPATH=backend $(PY) -m benchmarks.runnability_bench
	PYTHONPATH=backend $(PY) -m benchmarks.savepoint_bench
	PYTHONPATH=backend $(PY) -m benchmarks.coediting_bench
	PYTHONPATH=backend $(PY) -m benchmarks.spark_bench --postgres-url "$(TEST_POSTGRES_URL)" \
		$(SPARK_BENCH_FLAGS)
	npm run bench:canvas

# Every fast path of the runtime against the reference executor (docs/RUNTIME.md, "How a
# fast path is proven equal") on many more generated pipelines than `make test` runs, from
# the day's seed unless DIFFERENTIAL_SEED is set; the seed is printed to rerun a failure.
DIFFERENTIAL_SEED ?= $(shell date +%Y%m%d)
DIFFERENTIAL_BATCHES ?= 200

nightly: $(INSTALLED) $(SPARK_JAR)
	@echo "make nightly: DIFFERENTIAL_SEED=$(DIFFERENTIAL_SEED) DIFFERENTIAL_BATCHES=$(DIFFERENTIAL_BATCHES)"
	DIFFERENTIAL_SEED=$(DIFFERENTIAL_SEED) DIFFERENTIAL_BATCHES=$(DIFFERENTIAL_BATCHES) \
		$(BIN)/pytest tests/runtime/spark/test_differential.py

# The Spark executors' Python environment, packed to ship with a cluster profile's
# `pythonArchive` (spark.archives): a virtualenv of requirements/executor.txt made from this
# project's interpreter, whose Python version the driver's must match. Its bin/python links
# to that interpreter's installation, which the cluster's hosts need at the same path (as
# with venv-pack): build it on a host like theirs, such as a container of the project's image.
EXECUTOR_ENV := var/executor-env
EXECUTOR_ARCHIVE := $(EXECUTOR_ENV)/streamgraph-executor.tar.gz

$(EXECUTOR_ARCHIVE): requirements/executor.txt
	@test -x $(PY) || { echo "make install first: the archive's Python is the project's"; exit 1; }
	rm -rf $(EXECUTOR_ENV)/venv $@.partial
	$(PY) -m venv $(EXECUTOR_ENV)/venv
	$(EXECUTOR_ENV)/venv/bin/python -m pip install --quiet --no-cache-dir -r requirements/executor.txt
	$(EXECUTOR_ENV)/venv/bin/python -c "import mmh3, redis, pyarrow"
	tar -czf $@.partial -C $(EXECUTOR_ENV)/venv .
	mv $@.partial $@
	@echo "$@: set a cluster profile's \"pythonArchive\" to a copy of it the cluster can read"

executor-env: $(EXECUTOR_ARCHIVE)

clean:
	rm -rf $(VENV) node_modules var frontend/dist build
