# The two commands of the README:
#   make demo   - install everything into .venv and run the demo
#   make test   - install everything plus the test tools into .venv and run the whole suite
# The environment's Python, found once: 3.12 or newer where there is one (Array.lazy's
# zarr-indexing needs it, and its tests run only there; zarrforge itself runs on 3.11):
# $ZARRFORGE_TEST_PYTHON, else python3 if new enough, python3.12+ on PATH, or pyenv's; else
# python3, with a warning
ifndef PYTHON
PYTHON := $(shell python3 tests/interop/_side_venv.py find-python)
endif
VENV ?= .venv
BIN := $(VENV)/bin
ZARRFORGE_PACKAGES := -e core -e plugins/std -e plugins/batch-io -e plugins/numcodecs -e plugins/sharding -e plugins/dtypes -e plugins/rectilinear -e plugins/v2 -e plugins/draft2022 -e "plugins/fsspec[s3,gcs,azure,hf,http,sftp,test]" \
	-e plugins/extensions -e plugins/zom -e plugins/cli -e "plugins/serve[test]" -e plugins/xarray -e "plugins/zarr-python[test]" -e "plugins/obstore[test]"
PACKAGES := $(ZARRFORGE_PACKAGES) -e "examples/third-party-plugin[test]" \
	-e examples/zep-playground/delta -e examples/zep-playground/chunk-manifest -e examples/zep-playground/scale
# zarr-python 2.18 for tests/interop/test_zarr2_draft.py, in an environment of its own
ZARR2_VENV ?= .venv-zarr2
# zarr-python 3.4.2 (Python >= 3.12) for tests/interop/test_zarr34_registry.py, likewise
ZARR34_VENV ?= .venv-zarr34
# Servers the remote-store tests start on 127.0.0.1, each from its own installation:
# olah (a Hugging Face Hub mirror serving local git repositories) for hf://, and Azurite
# (Microsoft's Azure Storage emulator, from the npm registry) for abfs:// and az://
OLAH_VENV ?= .venv-olah
OLAH := $(OLAH_VENV)/bin/olah-cli
AZURITE_DIR ?= .azurite
AZURITE := $(AZURITE_DIR)/node_modules/.bin/azurite-blob
# The browser test of `zarrforge serve` (plugins/serve/tests/test_browser.py): zarrita.js from
# npm bundled into one module, and the system's Chromium where none is installed and apt-get
# can (plugins/serve/tests/browser/setup.sh says when it cannot: the test then skips)
BROWSER_DIR ?= .browser

.PHONY: demo test install install-test zarr2-venv zarr34-venv dist clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet $(PACKAGES)

install-test: install
	$(BIN)/python -m pip install --quiet --group test

demo: install
	$(BIN)/python examples/demo.py

# the side environments need only the standard library to build (tests/interop/_side_venv.py),
# so they are built while .venv is installed
zarr2-venv:
	ZARRFORGE_ZARR2_VENV=$(ZARR2_VENV) $(PYTHON) tests/interop/_side_venv.py zarr2

# two workers, one per core; a module's tests stay on one worker, so module fixtures (the
# interop trees, the packaging venv) are built once. PYTEST_WORKERS= runs it serially.
PYTEST_WORKERS ?= -n 2 --dist loadscope

zarr34-venv:
	ZARRFORGE_ZARR34_VENV=$(ZARR34_VENV) $(PYTHON) tests/interop/_side_venv.py zarr34

$(OLAH):
	$(PYTHON) -m venv $(OLAH_VENV)
	$(OLAH_VENV)/bin/python -m pip install --quiet "olah==0.5.4"

# npm's registry fails a download now and then (a fresh-clone CI run met exit 217 once): a
# second try after a pause, before the failure stops the run
$(AZURITE):
	npm install --prefix $(AZURITE_DIR) --no-audit --no-fund --silent "azurite@3.37.0" || \
		(sleep 10 && npm install --prefix $(AZURITE_DIR) --no-audit --no-fund "azurite@3.37.0")

.PHONY: browser
browser:
	plugins/serve/tests/browser/setup.sh $(BROWSER_DIR)

# everything the suite needs, at once: each installs into a directory of its own (pip's
# downloads wait on the network, so this beats one after the other even on two cores)
.PHONY: test-setup
test-setup:
	$(MAKE) -j6 install-test zarr2-venv zarr34-venv $(OLAH) $(AZURITE) browser

test: test-setup
	ZARRFORGE_ZARR2_VENV=$(ZARR2_VENV) ZARRFORGE_ZARR34_VENV=$(ZARR34_VENV) \
	ZARRFORGE_OLAH=$(abspath $(OLAH)) ZARRFORGE_AZURITE=$(abspath $(AZURITE)) \
	ZARRFORGE_ZARRITA=$(abspath $(BROWSER_DIR))/zarrita.bundle.js \
	$(BIN)/python -m pytest -q $(PYTEST_WORKERS) --ignore=tests/test_docs_site.py

# make peer-suites - the peers' own test suites on zarrforge (tests/peers/): zarr-python 3.4.2's,
# in a Python 3.12 environment of its own (.venv-zarrsuite) with zarrforge installed editable;
# per file, the items zarr-python passes and how many of those zarrforge passes, failing below
# the floor in tests/peers/zarr_python_floor.json; then zarr-python's user guide with `zarr`
# meaning zarrforge (tests/peers/zarr_python_user_guide.py, floor zarr_python_guide_floor.json);
# then xarray's own Zarr backend tests through zarrforge's writer and engine, in the main
# environment (tests/peers/xarray_suite.py; the counts printed at the end).
# .ci/run runs it after `make test`.
.PHONY: peer-suites
peer-suites: $(BIN)/python
	$(PYTHON) tests/peers/zarr_python_suite.py
	$(PYTHON) tests/peers/zarr_python_user_guide.py
	$(BIN)/python -m pytest -q tests/peers/xarray_suite.py

# make check - the house checks, each of which fails the run (.ci/run calls it after the tests):
# ruff's rule set and its formatter (pyproject.toml [tool.ruff]), mypy over core, plugins,
# tests, benchmarks and examples with the plugin-facing surface strict ([tool.mypy]), and the
# documentation site built strictly (make docs), then tests/test_docs_site.py on that site
# (make test leaves that module to make check, so the site is built once). The tools are
# pinned in the `dev` group, which the `test` group includes.
.PHONY: check
check: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(MAKE) docs
	ZARRFORGE_DOCS_SITE=site $(BIN)/python -m pytest -q tests/test_docs_site.py

# A wheel and an sdist of every distribution (core and each plugin) into dist/; then
#   pip install --find-links dist 'zarrforge[standard]'   (or 'zarrforge[all]')
DISTRIBUTIONS := core $(sort $(wildcard plugins/*))
dist: $(BIN)/python
	$(BIN)/python -m pip install --quiet build
	rm -rf dist
	for d in $(DISTRIBUTIONS); do $(BIN)/python -m build --outdir dist $$d || exit 1; done

# make docs - the documentation site into site/ (docs/conf.py): strict, every warning and every
# unresolved reference fails the build
.PHONY: docs
docs: $(BIN)/python
	$(BIN)/python -m pip install --quiet --group docs
	$(BIN)/python -m sphinx -W --keep-going -n -b html docs site

clean:
	rm -rf dist site docs/_build $(VENV) $(ZARR2_VENV) $(ZARR2_VENV).lock $(ZARR34_VENV) $(ZARR34_VENV).lock .venv-zarrsuite .venv-zarrsuite.lock .cache/peer-suites $(OLAH_VENV) $(AZURITE_DIR) $(BROWSER_DIR)

# make bench [BENCH_ARGS="--scale 0.125 --repeat 2"] - the benchmark suite (benchmarks/README.md),
# in a virtual environment of its own so the measured packages are exactly these.
BENCH_VENV ?= benchmarks/.venv
BENCH_BIN := $(BENCH_VENV)/bin
BENCH_ARGS ?=
# zarrforge as a user installs it (core and the plugins under plugins/), without the example
# third-party plugin: its node-opened hook would be measured as zarrforge's own time.
BENCH_PACKAGES := $(ZARRFORGE_PACKAGES) "zarr>=3.1,<3.2" tensorstore matplotlib threadpoolctl

.PHONY: bench

$(BENCH_BIN)/python:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

# zarrs-python, the Rust codec pipeline for zarr-python, needs zarr-python >= 3.2 and so
# Python >= 3.12: its children run in the zarr-python 3.4.2 + zarrs environment the tests use
# (tests/interop/_side_venv.py finds the Python: $ZARRFORGE_ZARR34_PYTHON, PATH or pyenv).
bench: $(BENCH_BIN)/python zarr34-venv
	$(BENCH_BIN)/python -m pip install --quiet $(BENCH_PACKAGES)
	$(BENCH_BIN)/python -m pip uninstall --quiet --yes zarrforge-example-thirdparty
	ZARRFORGE_BENCH_ZARRS_PYTHON=$(abspath $(ZARR34_VENV))/bin/python $(BENCH_BIN)/python benchmarks/run.py $(BENCH_ARGS)
	$(BENCH_BIN)/python -m benchmarks.slab_scan
	$(BENCH_BIN)/python -m benchmarks.lazy_reads
	$(BENCH_BIN)/python -m benchmarks.serve_throughput

# make bench-serve - `zarrforge serve` against static file servers (Python's threading
# http.server, and nginx where installed) with 64 concurrent clients, re-encoded chunks
# against the codecs alone, and the time to first byte of a zarr.json under 10,000 members
# (benchmarks/serve_throughput.py; also the last step of make bench)
.PHONY: bench-serve
bench-serve: $(BIN)/python
	$(BIN)/python -m benchmarks.serve_throughput

# make bench-cache - slab scans with and without the decoded-chunk cache, zarrforge beside
# TensorStore with the same cache_pool limit, and the scan's peak memory; lazy reads against
# eager ones (benchmarks/slab_scan.py, benchmarks/lazy_reads.py; also the last steps of make bench)
.PHONY: bench-cache
bench-cache: $(BIN)/python
	$(BIN)/python -m benchmarks.slab_scan
	$(BIN)/python -m benchmarks.lazy_reads

# make bench-cores [BENCH_ARGS="--quick"] - the simulated many-core benchmark: codecs that only
# sleep (releasing the GIL) stand in for compute, so 16 threads overlap on 2 cores; zarrforge and
# zarr-python 3.4.2 (.venv-zarr34) at 1, 2, 4, 8 and 16 threads; simulated-cores.json and .md in
# benchmarks/results (benchmarks/simulated_cores.py; benchmarks/README.md, "Simulated cores").
.PHONY: bench-cores
bench-cores: $(BIN)/python zarr34-venv
	$(BIN)/python -m benchmarks.simulated_cores --zarr-python $(abspath $(ZARR34_VENV))/bin/python $(BENCH_ARGS)

# make bench-sweep [BENCH_ARGS="--threads-sweep 1,2,4 --only W2,W3r --repeat 3"] - the thread
# sweep: W1, W2, W3, W3r, W4, W5, W5r for every engine set to each thread count, with the codec
# floor at that count; sweep.json, sweep.md, sweep.png in --out (benchmarks/README.md, "Thread
# sweep"). Without --threads-sweep in BENCH_ARGS: --threads-sweep auto (1, 2, 4, ... CPUs).
.PHONY: bench-sweep
bench-sweep: $(BENCH_BIN)/python zarr34-venv
	$(BENCH_BIN)/python -m pip install --quiet $(BENCH_PACKAGES)
	$(BENCH_BIN)/python -m pip uninstall --quiet --yes zarrforge-example-thirdparty
	ZARRFORGE_BENCH_ZARRS_PYTHON=$(abspath $(ZARR34_VENV))/bin/python $(BENCH_BIN)/python benchmarks/run.py \
		$(if $(findstring --threads-sweep,$(BENCH_ARGS)),,--threads-sweep auto) $(BENCH_ARGS)

# make device-kit - what the thread sweep needs on a lent many-core machine with no network
# (Python 3.12 with numpy, fsspec, pluggy and tensorstore, nothing else of ours): wheels of
# zarrforge and the plugins the benchmark engine loads, and the compiled wheels they need, in
# .whl/ (git-ignored). benchmarks/device_sweep.sh, run there, installs them and runs the sweep
# (benchmarks/README.md, "On a lent many-core machine").
DEVICE_DISTRIBUTIONS := core plugins/std plugins/batch-io plugins/numcodecs plugins/sharding plugins/v2 \
	plugins/draft2022 plugins/dtypes plugins/extensions plugins/fsspec
DEVICE_WHEELS := numcodecs==0.16.6 google-crc32c==1.9.0 zstandard==0.25.0 importlib-metadata==10.2.0 lazy-importer==0.1.0
.PHONY: device-kit
device-kit: $(BIN)/python
	rm -rf .whl && mkdir .whl
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir .whl $(addprefix ./,$(DEVICE_DISTRIBUTIONS))
	$(BIN)/python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
		--implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
		--platform manylinux2014_x86_64 --dest .whl $(DEVICE_WHEELS)
	@ls .whl | wc -l | xargs echo "wheels in .whl:"

# make bench-cloud - W7 (256 chunks of 1 MiB, written and read) and W8 (500 small reads of a
# sharded array) on a local S3 with 20 ms per request: zarrforge (fsspec and obstore
# stores) against zarr-python (FsspecStore, ObjectStore) and tensorstore (benchmarks/cloud.py)
.PHONY: bench-cloud
bench-cloud: $(BENCH_BIN)/python
	$(BENCH_BIN)/python -m pip install --quiet $(BENCH_PACKAGES) "moto[server]>=5" obstore
	$(BENCH_BIN)/python -m pip uninstall --quiet --yes zarrforge-example-thirdparty
	$(BENCH_BIN)/python benchmarks/cloud.py $(BENCH_ARGS)

# make bench-s3 - 200 small chunks from a local S3 server with 20 ms per request:
# batched vs one at a time, and zarr-python (benchmarks/s3_latency.py)
.PHONY: bench-s3
bench-s3: $(BENCH_BIN)/python
	$(BENCH_BIN)/python -m pip install --quiet $(BENCH_PACKAGES) "moto[server]>=5"
	$(BENCH_BIN)/python -m pip uninstall --quiet --yes zarrforge-example-thirdparty
	$(BENCH_BIN)/python benchmarks/s3_latency.py $(BENCH_ARGS)
