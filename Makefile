# The two commands of the README:
#   make demo   - install everything into .venv and run the demo
#   make test   - install everything plus the test tools into .venv and run the whole suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PACKAGES := -e core -e plugins/std -e plugins/numcodecs -e plugins/sharding -e plugins/dtypes

.PHONY: demo test install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet $(PACKAGES)

install-test: install
	$(BIN)/python -m pip install --quiet --group test

demo: install
	$(BIN)/python examples/demo.py

test: install-test
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV)
