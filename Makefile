# serdiff front door. `make test` and `make fuzz` work on a fresh Debian 12 machine: they install
# what is missing first (ci/install-deps.sh), then configure and build through CMake presets.
SHELL := /bin/bash
JOBS ?= $(shell nproc)

TIME ?= 60
ENGINE ?= libfuzzer
# The code under test (docs/core.md): serdiff (serialize/) or core (Bitcoin Core's source: CORE_SRC=DIR, a Core
# checkout, or without it the pinned sdist fetched into build/core-source). CORE_SRC alone means SUBJECT=core.
CORE_SRC ?=
SUBJECT ?= $(if $(CORE_SRC)$(CORE_BASE),core,serdiff)
SUBJECT_ARGS = --subject $(SUBJECT) --core-src "$(CORE_SRC)" --core-base "$(CORE_BASE)"
TARGETS ?=
MINIMIZE_SECONDS ?= 30
TRIAGE_CHECK_TIME ?= 30

.PHONY: all deps build build-asan test clean help fuzz fuzz-build fuzz-bench corpus-merge corpora

all: build

help:
	@echo "make test     build under ASan+UBSan (build/asan), run every test, then the Hypothesis properties"
	@echo "make build    optimized build, CLI at build/bin/serdiff"
	@echo "make deps     install the Debian packages serdiff needs (idempotent)"
	@echo "make clean    remove build/ (trees and venv), fuzz-out/, bench-out/, mutate-out/ and review-out/"
	@echo "make fuzz     fuzz every target: TIME=60 (s per target) TARGETS='a b' ENGINE=libfuzzer|afl|hypothesis JOBS=nproc"
	@echo "             SUBJECT=core [CORE_SRC=DIR] fuzzes Bitcoin Core's own code (a checkout, or the pinned sdist): docs/core.md"
	@echo "             CORE_BASE=REV (of CORE_SRC; or a tree, or 'pinned') compares HEAD with BASE on every input: docs/base.md"
	@echo "             ENGINE='libfuzzer afl' runs both; crashes are minimized (MINIMIZE_SECONDS=30), deduplicated, explained"
	@echo "make triage DIR=path [TARGET=name]   the same triage for crash files from elsewhere (OSS-Fuzz, CI, AFL++ dirs)"
	@echo "make triage-check   a planted bug found by libFuzzer and AFL++ must triage to ONE finding (PLANTED=one bug, default varint_length_off_by_one; TRIAGE_FROM_NOTHING=1)"
	@echo "make fuzz-bench   exec/s per target vs an empty target, one core: FUZZ_BENCH_TIME=20 TARGETS='a b' (docs/bench.md)"
	@echo "make corpus-merge   add fuzz-out/corpus inputs with new coverage to corpora/ (libFuzzer -merge=1)"
	@echo "make corpora  regenerate the committed seeds and dictionaries (tools/corpus_gen)"
	@echo "make test-planted   build each planted bug and show its fuzz target finds it (PLANTED='a b', PLANTED_BUDGET=120 s)"
	@echo "             SUBJECT=core [CORE_SRC=DIR]: the defects planted in Bitcoin Core's own files (tests/planted/core/)"
	@echo "             SUBJECT=core BASE_ONLY=1: the changes only HEAD vs BASE sees (tests/planted/core-base/), the tree as BASE"
	@echo "make review-core CORE_SRC=DIR [BASE=REV] [TIME=10]   review a Core serialization change: fuzz, replay, changed-line coverage, mutants, BASE/HEAD bench, verdict + HTML (docs/review.md)"
	@echo "make mutate   mutation analysis of serialize/, model/, crypto/: FILES='serialize/x.h serialize/' SAMPLE=N SEED=1 TIME=60 JOBS=1 RESUME=1 REFRESH_COVERAGE=1 RERUN_SURVIVORS=1 RERUN='file#n' UNIT=1 ONLY='file#n' LINES='file:1,5-9' MUTATE_OUT=dir TRIAGE_FILE=f IMPORT=report.json PLAN_REV=rev (docs/mutation.md)"
	@echo "             SUBJECT=core [CORE_SRC=DIR]: of Bitcoin Core's own serialization files (FILES='streams.h', relative to src/)"
	@echo "make core-versions   the Core subject on every Core tree since 28.99 (VERSIONS='0.1.0a4 0.1.0a5', TIME=10, CONSECUTIVE=1: what changed from the tree before): docs/core.md"
	@echo "make coverage the fast-path lines (OPTIMIZATIONS.md rows) the corpora reach, via llvm-cov"
	@echo "make bench    benchmarks on the mainnet blocks: table + bench-out/results.json (docs/bench.md)"
	@echo "             with Bitcoin Core compiled from source (core-src rows: the pinned sdist, or CORE_SRC=DIR)"
	@echo "make bench-callgrind   the same cases' instruction counts under callgrind (bench-out/callgrind.json)"
	@echo "make ci       the CI matrix: asan-ubsan, msan, gcc, afl jobs with a summary (docs/ci.md); make ci-<job> for one"
	@echo "make ci-planted       show each CI job fails on its planted sanitizer-class defect (PLANTED='name ...')"
	@echo "make oss-fuzz-check   emulate OSS-Fuzz's builds (ASan/UBSan/MSan x libFuzzer, AFL++) and check_build (docs/oss-fuzz.md)"
	@echo "make python-build     the venv (build/python-venv) and the serdiff Python extension (docs/python.md)"
	@echo "make python-test      the Hypothesis properties and Python tests (HYPOTHESIS_PROFILE=ci|nightly|dev)"
	@echo "make fuzz-hypothesis  the properties as one atheris-driven fuzzer for TIME seconds (= make fuzz ENGINE=hypothesis)"
	@echo "make python-planted-bug   a test-only extension with PLANTED=name compiled in; the properties find and shrink it"

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
	@$(MAKE) --no-print-directory python-test

# Fuzzing (docs/fuzzing.md): binaries in build/fuzz-<engine>, findings in fuzz-out/.
fuzz: deps
ifeq ($(ENGINE),hypothesis)
	@$(MAKE) --no-print-directory fuzz-hypothesis
else
	@python3 tools/fuzz/run.py fuzz --time $(TIME) --engine "$(ENGINE)" --jobs $(JOBS) --targets "$(TARGETS)" \
	  --minimize-seconds $(MINIMIZE_SECONDS) $(SUBJECT_ARGS)
endif

fuzz-build: deps
	@python3 tools/fuzz/run.py build --engine "$(ENGINE)" --jobs $(JOBS) $(SUBJECT_ARGS)

# Crash triage (docs/triage.md): crash files from elsewhere (OSS-Fuzz, CI artifacts, AFL++ output dirs) replayed,
# minimized, grouped by signature and explained with the build/fuzz-libfuzzer tree; TARGET= when paths don't name it.
DIR ?=
TARGET ?=
.PHONY: triage triage-check
triage: deps
	@test -n "$(DIR)" || { echo "usage: make triage DIR=<crash file or directory> [TARGET=<target>]"; exit 2; }
	@python3 tools/fuzz/run.py build --engine libfuzzer --jobs $(JOBS) $(SUBJECT_ARGS) >/dev/null
	@python3 tools/fuzz/triage.py $(if $(TARGET),--target $(TARGET)) --minimize-seconds $(MINIMIZE_SECONDS) $(SUBJECT_ARGS) $(DIR)

# A planted bug fuzzed by libFuzzer and AFL++ at once must come out of make fuzz's triage as ONE minimized,
# explained finding (build/triage-check, fuzz-out/triage-check; about 40 s plus a first build, docs/triage.md). Not in make test.
triage-check: deps
	@python3 tools/fuzz/triage_check.py --bug $(or $(PLANTED),varint_length_off_by_one) --time $(TRIAGE_CHECK_TIME) --jobs $(JOBS) \
	  $(if $(TRIAGE_FROM_NOTHING),--from-nothing)

# Fuzzing throughput (docs/bench.md): each target, then an empty entry point (the engine's ceiling), one at a
# time for FUZZ_BENCH_TIME s from the committed corpora; table + bench-out/fuzz-bench.json. A benchmark, not a test.
# SUBJECT=core [CORE_SRC=DIR]: every Core-backed target on core_fuzz_libfuzzer and serdiff_fuzz_libfuzzer in turn,
# side by side against the goal core >= 0.5x serdiff (exec per CPU-second).
FUZZ_BENCH_TIME ?= 20
fuzz-bench: deps
	@python3 tools/fuzz/bench.py --time $(FUZZ_BENCH_TIME) --jobs $(JOBS) --targets "$(TARGETS)" $(SUBJECT_ARGS)

corpus-merge: deps
	@python3 tools/fuzz/run.py merge --jobs $(JOBS) --targets "$(TARGETS)" $(SUBJECT_ARGS)

corpora: build-asan
	@build/asan/bin/serdiff_corpus_gen --out corpora

# Planted bugs (tests/planted/bugs.tsv, docs/planted.md). PLANTED names the bugs for every planted-bug command
# (test-planted, ci-planted: a list, default all of theirs; python-planted-bug: one). test-planted builds each
# bug whose detector is a fuzz target into build/planted and hunts it for at most PLANTED_BUDGET seconds; a
# table of times to detection; fails if one is missed. Not part of make test. SUBJECT=core [CORE_SRC=DIR] plants
# the defects of tests/planted/core/ (patches to Core's own files) in copies of the Core tree instead.
PLANTED ?=
PLANTED_BUDGET ?= 120
# PLANTED_FROM_NOTHING=1 also hunts each bug from an empty corpus (no seeds) for the same budget.
PLANTED_FROM_NOTHING ?=
.PHONY: test-planted coverage
test-planted: deps
	@python3 tools/fuzz/planted.py run --budget $(PLANTED_BUDGET) --bugs "$(PLANTED)" --jobs $(JOBS) \
	  $(if $(PLANTED_FROM_NOTHING),--from-nothing) $(if $(BASE_ONLY),--base-only) $(SUBJECT_ARGS)

# Review of a Bitcoin Core serialization change (docs/review.md): CORE_SRC=DIR, a git checkout (never written);
# BASE=REV (default: the merge-base of HEAD with the upstream or default branch, else HEAD~1); TIME s of fuzzing
# per Core-backed target (default 10 here, not make fuzz's 60), also per mutant and reaching target in the mutation
# of the changed lines; ROUNDS interleaved BASE/HEAD benchmark rounds (default 5); MUTATION=0 / BENCH=0 skip those
# phases. Trees in build/review/, results in review-out/ (review.json, index.html).
# Exit status 0: nothing needs the reviewer's eyes; 1: a new finding, a changed code line not reached, a surviving
# mutant of a changed line, a case slower in instructions, or a phase that failed; 2: a usage or build error.
BASE ?=
.PHONY: review-core
review-core: deps
	@python3 tools/review/review.py --core-src "$(CORE_SRC)" $(if $(BASE),--base "$(BASE)") \
	  --time $(if $(filter command line environment,$(origin TIME)),$(TIME),10) \
	  --jobs $(if $(filter command line,$(origin JOBS)),$(JOBS),2) \
	  $(if $(filter 0,$(MUTATION)),--no-mutation) $(if $(filter 0,$(BENCH)),--no-bench) $(if $(ROUNDS),--rounds $(ROUNDS)) $(if $(TRIAGE),--triage "$(TRIAGE)") $(if $(filter 1,$(VERDICT_ONLY)),--verdict-only)

# The version matrix (docs/core.md "Core versions"): the Core subject built from every tree of subjects/core/versions.tsv
# (py-bitcoinkernel's sdists, Core 28.99 to 31.99, fetched by hash), every corpus replayed and each target fuzzed
# TIME s (default 10) per tree; VERSIONS='0.1.0a4 0.1.0a5' for some; CONSECUTIVE=1 also builds each tree with the one
# before it as BASE and lists what changed. Table in core-versions-out/matrix.md. Not in make test.
VERSIONS ?=
.PHONY: core-versions
core-versions: deps
	@python3 tools/core_versions.py --versions "$(VERSIONS)" --time $(if $(filter command line environment,$(origin TIME)),$(TIME),10) --jobs $(JOBS) $(if $(filter 1,$(CONSECUTIVE)),--consecutive)

# Which OPTIMIZATIONS.md fast-path lines the committed corpora reach: clang source coverage of the replay
# driver over every corpus (build/coverage), the llvm-cov report and the per-row table (docs/planted.md).
coverage: deps
	@python3 tools/fuzz/coverage.py --jobs $(JOBS)

# Mutation analysis (docs/mutation.md): universalmutator's mutants of serialize/, model/ and crypto/, invalid and
# equivalent ones removed (TCE on the fuzz units and tools/mutate/instantiate.cpp), the rest killed by corpus replay then TIME s of libFuzzer per reaching target.
# State in mutate-out/state.json (RESUME=1 continues it), report in mutate-out/report.{md,json}. Not part of make test.
# SUBJECT=core [CORE_SRC=DIR]: Bitcoin Core's own files in copies of the Core tree (build/mutate-core/), state and
# report in mutate-out/core/. LINES='file:1,5-9 ...' keeps only the mutants of those lines.
FILES ?=
LINES ?=
SAMPLE ?=
SEED ?= 1
MUTATE_JOBS ?= 1
SHARD ?=
# MUTATE_OUT=DIR: state, report and job trees in DIR instead of mutate-out (a held-out run beside the recorded one).
# TRIAGE_FILE=F: the run's triage file instead of the subject's (the run records it; its report counts F's verdicts).
# SCHEMATA=0: every mutant rebuilt one at a time (the default compiles the mutants into one build, chosen at run time).
MUTATE_OUT ?=
TRIAGE_FILE ?=
SCHEMATA ?=
.PHONY: mutate
mutate: deps
	@python3 tools/mutate/mutate.py run --files "$(FILES)" --seed $(SEED) --time $(TIME) \
	  --jobs $(if $(filter command line,$(origin JOBS)),$(JOBS),$(MUTATE_JOBS)) \
	  $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(RESUME),--resume) $(if $(REFRESH_COVERAGE),--refresh-coverage) $(if $(RERUN_SURVIVORS),--rerun-survivors) $(if $(RERUN),--rerun "$(RERUN)") $(if $(UNIT),--unit) $(if $(SHARD),--shard $(SHARD)) $(if $(ONLY),--only "$(ONLY)") $(if $(IMPORT),--import-results $(IMPORT)) $(if $(PLAN_REV),--plan-rev $(PLAN_REV)) \
	  $(if $(LINES),--lines "$(LINES)") $(if $(MUTATE_OUT),--out $(MUTATE_OUT)) $(if $(TRIAGE_FILE),--triage $(TRIAGE_FILE)) $(if $(SCHEMATA),--schemata $(if $(filter 0 off no,$(SCHEMATA)),off,on)) $(SUBJECT_ARGS)

# Everything the build and the runs write: build trees (and the venv), fuzz findings, benchmark output.
clean:
	rm -rf build fuzz-out bench-out mutate-out review-out

# Python bindings, pure-Python spec codec and Hypothesis properties (python/, docs/python.md). The venv
# (build/python-venv) and the extension are built first, incrementally. HYPOTHESIS_PROFILE=ci|nightly|dev.
HYPOTHESIS_PROFILE ?= ci
.PHONY: python-build python-test fuzz-hypothesis python-planted-bug

python-build: deps
	@python/build.sh

python-test: python-build
	@cd python && HYPOTHESIS_PROFILE=$(HYPOTHESIS_PROFILE) ../build/python-venv/bin/pytest -p no:cacheprovider tests

# The properties as one atheris-driven fuzzer for TIME seconds (the same TIME as `make fuzz`).
fuzz-hypothesis: python-build
	@build/python-venv/bin/python python/fuzz_hypothesis.py --seconds $(TIME)

# Builds a test-only extension with a planted optimized-side bug and shows the properties find and shrink it.
python-planted-bug: python-build
	@python/check_planted_bug.sh $(or $(PLANTED),witness_first_input_only)

# Benchmarks (docs/bench.md): an -O2 -DNDEBUG tree in build/bench, the table on stdout and in
# bench-out/results.json. BENCH_REPETITIONS/BENCH_MIN_TIME (s per repetition)/BENCH_FILTER (regex) tune it;
# bench-callgrind counts instructions per operation under valgrind instead of timing. The tree also compiles
# Bitcoin Core's source (the Core subject: the pinned sdist fetched into build/core-source by the configure step,
# or CORE_SRC=DIR) into serdiff_bench_core, whose core-src rows report.py runs right after serdiff_bench's.
BENCH_REPETITIONS ?= 3
BENCH_MIN_TIME ?= 0.2
BENCH_FILTER ?= .
BENCH_BINARIES = --binary build/bench/bin/serdiff_bench --core-binary core-src=build/bench/bin/serdiff_bench_core
.PHONY: bench bench-build bench-callgrind

bench-build: deps
	@cmake --preset bench -DSERDIFF_CORE_SRC="$(CORE_SRC)" >/dev/null
	@cmake --build --preset bench --target serdiff_bench serdiff_bench_core -j $(JOBS)

bench: bench-build
	@python3 bench/report.py run $(BENCH_BINARIES) --out bench-out \
	  --repetitions $(BENCH_REPETITIONS) --min-time $(BENCH_MIN_TIME) --filter '$(BENCH_FILTER)'

bench-callgrind: bench-build
	@python3 bench/report.py callgrind $(BENCH_BINARIES) --out bench-out --filter '$(BENCH_FILTER)'

# OSS-Fuzz and ClusterFuzzLite (docs/oss-fuzz.md): ci/oss-fuzz/build.sh under OSS-Fuzz's flags for each
# sanitizer x engine OSS-Fuzz builds (OSS_FUZZ_COMBINATIONS=all for every pair), checked as check_build
# does, plus an OSS_FUZZ_SECONDS fuzz run per target. Trees in build/oss-fuzz/. Not part of `make test`.
OSS_FUZZ_COMBINATIONS ?= oss-fuzz
OSS_FUZZ_SECONDS ?= 3
.PHONY: oss-fuzz-check
oss-fuzz-check: deps
	@python3 tools/oss_fuzz_check/check.py --combinations $(OSS_FUZZ_COMBINATIONS) --seconds $(OSS_FUZZ_SECONDS) --jobs $(JOBS)

# CI matrix (docs/ci.md): each job builds its own tree build/ci-<job> (asan-ubsan: make test's build/asan) and runs unit tests, every corpus and a
# short fuzz smoke of every target. `make ci` runs them all with a summary; `make ci-<job>` runs one;
# `make ci-planted` proves each job catches its class of defect. CI_SMOKE_SECONDS = fuzz smoke per target.
CI_JOBS ?= asan-ubsan msan gcc afl
CI_SMOKE_SECONDS ?= 5
.PHONY: ci ci-asan-ubsan ci-msan ci-gcc ci-afl ci-planted

ci: deps
	@SERDIFF_CI_SMOKE_SECONDS=$(CI_SMOKE_SECONDS) ci/matrix.sh $(CI_JOBS)

ci-asan-ubsan ci-msan ci-gcc ci-afl: deps
	@SERDIFF_CI_SMOKE_SECONDS=$(CI_SMOKE_SECONDS) ci/matrix.sh $(patsubst ci-%,%,$@)

ci-planted: deps
	@SERDIFF_CI_SMOKE_SECONDS=$(CI_SMOKE_SECONDS) ci/planted.sh $(PLANTED)
