#!/usr/bin/env bash
# CI job asan-ubsan: clang-19 with ASan + LSan + UBSan + the integer checks + float division by zero, every
# check fatal; unit tests, every corpus replayed, a libFuzzer smoke of every target (docs/ci.md).
source "$(dirname "$0")/lib.sh"
JOB_NAME=asan-ubsan
# The tree is make test's: CMakePresets.json's preset "asan" holds this job's flags (clang-19 -O1, the sanitizers
# above with the integer ignorelist, libFuzzer, the pinned tree as BASE), so after make test (.ci/run) nothing is
# compiled again. A planted defect's run configures the preset into its own directory.
CONFIGURE_PRESET=asan
SMOKE_ENGINE=libfuzzer
SANITIZER_ENV=(
    "ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
)
run_job
