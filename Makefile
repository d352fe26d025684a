# Two commands for a newcomer: `make serve` shows the course, `make test` proves it works.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1:8000
export NO_MKDOCS_2_WARNING := 1
# pytest-xdist: one worker per core (at most 4), each test module whole in one worker (its fixtures
# made once), the cross-browser module split by engine, WebKit's unit first (tests/conftest.py queue_place);
# `make test PYTEST_WORKERS=` runs the suite in one process.
PYTEST_WORKERS ?= --numprocesses=auto --maxprocesses=4 --dist=loadfile

STRYKER := tests/tools/stryker/node_modules/.bin/stryker
JS_MUTATED = $(shell node tests/tools/stryker/modules.mjs)

.PHONY: serve site check test assets browser node test-tools lint format bench mutation mutation-python mutation-js stryker editor clean

$(STAMP): pyproject.toml src/course_site/pyproject.toml requirements/constraints.txt
	@$(PYTHON) scripts/check_python.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c requirements/constraints.txt pip
	$(BIN)/python -m pip install --quiet -c requirements/constraints.txt -e '.[dev,plot]' -e src/course_site
	@touch $@

## assets: fetch and verify the pinned Pyodide files (cached in pyodide_assets/files/)
assets: $(STAMP)
	$(BIN)/python -m course_site.pyodide_assets fetch

## browser: find Chromium, Firefox and WebKitGTK's WebDriver (with Xvfb), or install them with apt-get (as root, or
## through `sudo -n` with password-less sudo; on Debian all of them, on Ubuntu the WebKit driver and Xvfb, using
## Mozilla's /usr/bin/firefox; Chromium else from Playwright); else say what to install and which of CHROMIUM,
## FIREFOX, WEBKIT_WEBDRIVER to set. Records the choices in .cache/; npm ci installs puppeteer-core (drives Firefox)
browser: $(STAMP)
	$(BIN)/python scripts/ensure_browser.py

## node: find Node.js 18+ (the build runs the cells in Pyodide under Node), or install it (apt-get as root on Debian)
node:
	@$(PYTHON) scripts/ensure_node.py

## test-tools: fetch and verify the browser tools the tests run (axe-core, from npm; cached in .cache/test-tools/)
test-tools: $(STAMP)
	$(BIN)/python scripts/fetch_test_tools.py

## serve: build and serve the site at http://$(HOST) with live reload (ProperDocs, the maintained MkDocs 1.x)
serve: assets node
	SITE_URL=http://$(HOST)/ $(BIN)/properdocs serve -f mkdocs.yml --dev-addr $(HOST)

## site: the static build into ./site (SITE_URL, if set, is where it will be served)
site: assets node
	$(BIN)/properdocs build --strict -f mkdocs.yml

## check: the quick tier for authors, with no browser: lint, unit tests and doctests, the lesson tests, the Node
## tests of the browser code, and the site build with every cell and exercise proved (`make test` proves the rest)
check: assets node lint
	$(BIN)/python -m pytest $(PYTEST_WORKERS) -m "not browser"

## test: everything: lint, unit tests, doctests, lesson cells in CPython and Pyodide, browser tests
test: assets browser node test-tools lint
	$(BIN)/python -m pytest $(PYTEST_WORKERS)

LINT_STAMP := $(VENV)/.lint-tools
$(LINT_STAMP): requirements/lint.txt $(STAMP)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r requirements/lint.txt
	@touch $@

## lint: ruff over the code; actionlint and zizmor (offline audits) over the CI workflows
lint: $(LINT_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/actionlint .github/workflows/*.yml
	$(BIN)/zizmor --offline --no-progress .github/workflows/

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## bench: the benchmarks (ratios measured side by side)
bench: assets browser node
	$(BIN)/python benchmarks/bench_posenc.py
	$(BIN)/python benchmarks/first_output.py

## mutation: the share of mutants that the tests catch, of posenc and the plugin's Python (mutmut) and of
## the browser code's modules that have Node tests (StrykerJS); a report, like bench, niced, not part of
## `make test`. `$(BIN)/mutmut results` in ., src/course_site lists the Python survivors; Stryker lists its
## own as it runs, and keeps them in .cache/stryker/<module>.json.
mutation: mutation-python mutation-js
	$(BIN)/python scripts/mutation_score.py

mutation-python: $(STAMP)
	nice -n 19 $(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut export-cicd-stats
	mkdir -p src/course_site/mutants && ln -sfn ../../../tests src/course_site/mutants/tests
	cd src/course_site && nice -n 19 ../../$(BIN)/mutmut run --max-children 2
	cd src/course_site && ../../$(BIN)/mutmut export-cicd-stats

## mutation-js: the JavaScript's alone: each module of tests/tools/stryker/modules.mjs mutated and checked
## by its Node tests (stryker.config.mjs there), one Stryker run each, one test process at a time
mutation-js: $(STAMP) $(STRYKER)
	for module in $(JS_MUTATED); do \
	  COURSE_JS_MODULE=$$module nice -n 19 $(STRYKER) run tests/tools/stryker/stryker.config.mjs || exit 1; \
	done
	$(BIN)/python scripts/mutation_score.py js

## stryker: StrykerJS for mutation-js, pinned in tests/tools/stryker/package-lock.json (needs Node.js 20+ and npm)
stryker: $(STRYKER)
$(STRYKER): tests/tools/stryker/package.json tests/tools/stryker/package-lock.json
	cd tests/tools/stryker && npm ci --no-audit --no-fund
	@touch $@

## editor: rebuild the vendored CodeMirror bundle (needs Node.js and npm)
editor:
	cd src/course_site/editor && npm ci && node build.mjs

clean:
	rm -rf site .cache .pytest_cache mutants src/course_site/mutants
