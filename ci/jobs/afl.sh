#!/usr/bin/env bash
# CI job afl: every target built for AFL++ (clang-19 trace-pc-guard + Debian's AFL++ runtime, ASan + UBSan,
# -O2 as `make fuzz ENGINE=afl` builds it), the unit tests and replays, then a short afl-fuzz run per target.
source "$(dirname "$0")/lib.sh"
JOB_NAME=afl
CMAKE_ARGS=(
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # RelWithDebInfo without its -DNDEBUG: Bitcoin Core's util/check.h refuses to compile without assertions
    # (the Core subject), and serdiff's own code has no assert() for it to change.
    # Line tables only: what the sanitizers' stack traces print (docs/ci.md).
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only"
    -DSERDIFF_SANITIZERS=address,undefined -DSERDIFF_FUZZ_ENGINE=afl
)
SMOKE_ENGINE=afl
SANITIZER_ENV=(
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
)
run_job
