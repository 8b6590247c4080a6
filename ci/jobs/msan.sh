#!/usr/bin/env bash
# CI job msan: clang-19 MemorySanitizer with origin tracking, linked against an MSan-instrumented libc++
# (ci/build-msan-libcxx.sh, built once and cached) and a GoogleTest built from Debian's source with it;
# unit tests, every corpus replayed, a libFuzzer smoke of every target (docs/ci.md).
source "$(dirname "$0")/lib.sh"
JOB_NAME=msan
build_root=${SERDIFF_CI_BUILD_ROOT:-$ROOT/build}
# SERDIFF_MSAN_LIBCXX shares one libc++ build between trees (e.g. fresh clones in CI); else build/msan-libcxx.
libcxx=${SERDIFF_MSAN_LIBCXX:-$build_root/msan-libcxx}
googletest=$build_root/ci-msan-googletest

# Line tables only: what MSan's reports and origins print (docs/ci.md).
instrumented="-fsanitize=memory -fsanitize-memory-track-origins=2 -fno-omit-frame-pointer -O1 -gline-tables-only"
cxx_flags="$instrumented -nostdinc++ -isystem $libcxx/include/c++/v1"
# libc++ replaces libstdc++ everywhere; the uninstrumented libFuzzer runtime still needs libstdc++, which
# --as-needed keeps out of every other binary.
cxx_libraries="-nostdlib++ -L$libcxx/lib -Wl,-rpath,$libcxx/lib -lc++ -lc++abi -Wl,--as-needed -lstdc++ -Wl,--no-as-needed"

prepare_dependencies() {
    mkdir -p "$build_root"
    say "instrumented libc++ in $libcxx"
    "$ROOT/ci/build-msan-libcxx.sh" "$libcxx" >&2
    # GoogleTest from Debian's source (package googletest, /usr/src/googletest): Debian's libgtest is
    # built against libstdc++ and would mix two standard libraries into the test binary.
    local stamp=$googletest/install/.built-with
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$libcxx" ]; then
        return
    fi
    say "building GoogleTest with the instrumented libc++ in $googletest"
    rm -rf "$googletest"
    cmake -S /usr/src/googletest -B "$googletest/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_CXX_FLAGS="$cxx_flags" \
        -DCMAKE_C_FLAGS="$instrumented" -DCMAKE_CXX_STANDARD_LIBRARIES="$cxx_libraries" \
        -DBUILD_GMOCK=OFF -DCMAKE_INSTALL_PREFIX="$googletest/install" > "$googletest.log" 2>&1 &&
        cmake --build "$googletest/build" -j "$PARALLEL" >> "$googletest.log" 2>&1 &&
        cmake --install "$googletest/build" >> "$googletest.log" 2>&1 || {
        cat "$googletest.log"
        return 1
    }
    echo "$libcxx" > "$stamp"
}

PREPARE=prepare_dependencies
CMAKE_ARGS=(
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS_DEBUG=" "-DCMAKE_C_FLAGS_DEBUG="
    "-DCMAKE_CXX_FLAGS=$cxx_flags" "-DCMAKE_C_FLAGS=$instrumented"
    "-DCMAKE_CXX_STANDARD_LIBRARIES=$cxx_libraries"
    -DSERDIFF_SANITIZERS=memory -DSERDIFF_FUZZ_ENGINE=libfuzzer
    "-DGTest_DIR=$googletest/install/lib/cmake/GTest"
)
SMOKE_ENGINE=libfuzzer
SANITIZER_ENV=("MSAN_OPTIONS=halt_on_error=1:print_stats=0")
run_job
