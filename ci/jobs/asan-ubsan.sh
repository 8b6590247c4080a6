#!/usr/bin/env bash
# CI job asan-ubsan: clang-19 with ASan + LSan + UBSan + the integer checks + float division by zero, every
# check fatal; unit tests, every corpus replayed, a libFuzzer smoke of every target (docs/ci.md).
source "$(dirname "$0")/lib.sh"
JOB_NAME=asan-ubsan
ignorelist=$ROOT/ci/sanitizer_suppressions/integer.ignorelist
CMAKE_ARGS=(
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS=-O1 -g -fsanitize-ignorelist=$ignorelist"
    "-DCMAKE_C_FLAGS=-O1 -g -fsanitize-ignorelist=$ignorelist"
    -DSERDIFF_SANITIZERS=address,undefined,integer,float-divide-by-zero
    -DSERDIFF_FUZZ_ENGINE=libfuzzer
)
SMOKE_ENGINE=libfuzzer
SANITIZER_ENV=(
    "ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
)
run_job
