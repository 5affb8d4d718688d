# ssisim developer targets. Quick start: `make run` (simulator) and `make test` (the whole suite).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
HEADLESS := .venv-headless
BIN := $(VENV)/bin
# Libraries Qt needs on a bare Debian/Ubuntu (offscreen and real windows), and numba's OpenMP layer.
QT_LIBS := libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libfreetype6 \
	libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
	libxcb-render-util0 libxcb-render0 libxcb-shape0 libxcb-util1 libxcb-xkb1 libgomp1

.PHONY: run test test-fast setup setup-test syslibs bench validate docs-charts screenshots lint clean

run: setup syslibs
	$(BIN)/ssisim gui

test: setup-test syslibs lint
	$(BIN)/python -m pytest
	@echo "== engine and CLI tests again, in a venv without Qt =="
	$(HEADLESS)/bin/python -m pytest tests/engine tests/scenarios tests/cli tests/lessons -W ignore::pytest.PytestConfigWarning

bench: setup
	$(BIN)/ssisim bench

validate: setup
	$(BIN)/ssisim validate

# The charts in docs/, drawn headless by the tool itself.
docs-charts: setup
	$(BIN)/ssisim charts --out docs/img

# The desktop app's screenshots in docs/, rendered offscreen by the app itself (the commands in
# docs/gui.md's captions). Watch mode needs the clock running: gui-watch-mode.png runs at 10x from
# t = 35 s and is taken 4 wall seconds later (--screenshot-after).
screenshots: setup syslibs
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui lgr-short-destination --run-until 119 \
		--theme light --screenshot docs/img/gui-relocation.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui lgr-short-destination --run-until 70 \
		--theme light --screenshot docs/img/gui-relocation-throttled.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui overcommit --run-until 900 --select IDLE02 \
		--theme light --screenshot docs/img/gui-paging.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui first-relocation --run-until 90 \
		--session docs/img/gui-lesson.session.toml --theme light --screenshot docs/img/gui-lesson.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui migration-comparison --run-until 218 \
		--theme light --screenshot docs/img/gui-migrations.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui scenarios/pause/pause-suspend.toml \
		--run-until 318 --select WAS01 --theme light --screenshot docs/img/gui-pausing.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui lgr-short-destination --run-until 119 \
		--size 1024x775 --theme light --screenshot docs/img/gui-1024-light.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui lgr-short-destination --run-until 119 \
		--size 1600x1000 --theme dark --screenshot docs/img/gui-1600-dark.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui lgr-short-destination --run-until 119 \
		--size 1920x1080 --theme light --screenshot docs/img/gui-1920-light.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui lgr-short-destination --run-until 35 \
		--speed 10x --screenshot-after 4 --theme light --screenshot docs/img/gui-watch-mode.png
	QT_QPA_PLATFORM=offscreen $(BIN)/ssisim gui planning/shop-1000 --run-until 120 \
		--size 1600x1000 --theme light --screenshot docs/img/gui-shop-1000.png

# The desktop bundle (docs/install.md): dist/ssisim-VERSION-linux-x86_64.tar.gz, made by
# PyInstaller in a venv of its own. bundle-check unpacks it in a clean folder and checks it
# against the source install, installed and uninstalled in a temporary HOME.
BUNDLE_VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)
BUNDLE := dist/ssisim-$(BUNDLE_VERSION)-linux-x86_64.tar.gz
.PHONY: bundle bundle-check

bundle: syslibs
	PYTHON=$(PYTHON) bash installer/build-bundle.sh

bundle-check: bundle setup
	bash installer/check-bundle.sh $(BUNDLE) $(VENV)

# The venv, rebuilt when pyproject.toml changes.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.setup: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[gui]'
	touch $@

$(VENV)/.setup-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[gui,test]'
	touch $@

$(HEADLESS)/.setup: pyproject.toml
	$(PYTHON) -m venv $(HEADLESS)
	$(HEADLESS)/bin/python -m pip install -q --upgrade pip
	$(HEADLESS)/bin/python -m pip install -q -e . pytest hypothesis
	@if $(HEADLESS)/bin/python -c "import PySide6" 2>/dev/null; then \
		echo "$(HEADLESS) must not have PySide6"; exit 1; fi
	touch $@

setup: $(VENV)/.setup

setup-test: $(VENV)/.setup-test $(HEADLESS)/.setup

# As root, install what Qt needs; otherwise say exactly what to install.
syslibs:
	@missing=""; for p in $(QT_LIBS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if ! command -v apt-get >/dev/null; then \
		echo "note: could not check system libraries (no apt-get); Qt needs:$$missing"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing system libraries:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
		echo "The desktop app needs system libraries; install them with:"; \
		echo "  sudo apt-get install -y$$missing"; \
	fi

# The gates: import contracts, lint and types (clean), before any test runs.
lint: setup-test
	PYTHONPATH=. $(BIN)/lint-imports
	$(BIN)/ruff check engine app ssisim tests installer
	$(BIN)/mypy engine

# The suite without the tests marked slow (more than a few seconds each); CI runs them all.
test-fast: setup-test syslibs lint
	$(BIN)/python -m pytest -m "not slow"

clean:
	rm -rf $(VENV) $(HEADLESS) build *.egg-info
