#!/usr/bin/env bash
# CI job gcc: the same workload built by gcc at -O2 with gcc's ASan + UBSan (a second compiler's
# instrumentation and warnings); gcc has no libFuzzer, so the smoke is the replay driver's mutations.
source "$(dirname "$0")/lib.sh"
JOB_NAME=gcc
CMAKE_ARGS=(
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # RelWithDebInfo without its -DNDEBUG: Bitcoin Core's util/check.h refuses to compile without assertions
    # (the Core subject), and serdiff's own code has no assert() for it to change.
    # -g1: line tables and function names, what the sanitizers' stack traces print; no local variables. gcc's full -g
    # doubles the compile time of Core's node/blockstorage.cpp (161 s against 85 s under ASan and UBSan, measured).
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1"
    -DSERDIFF_SANITIZERS=address,undefined -DSERDIFF_FUZZ_ENGINE=none
)
SMOKE_ENGINE=replay
SANITIZER_ENV=(
    "ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
)
run_job
