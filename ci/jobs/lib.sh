# Shared steps of every CI job (sourced by ci/jobs/<job>.sh): configure its own build directory, build,
# replay every corpus, run the unit tests, fuzz-smoke every target, and write a one-line summary.
#
# A job script sets, then calls run_job:
#   JOB_NAME          the job (build directory build/ci-<job>)
#   CMAKE_ARGS        array of extra -D arguments (compiler, sanitizers, engine, flags)
#   SMOKE_ENGINE      libfuzzer | afl | replay   (what the fuzz smoke runs)
#   SANITIZER_ENV     array of NAME=VALUE runtime options for every test binary
#   PREPARE           optional: a function run first (e.g. building an instrumented standard library)
# Environment knobs (all optional):
#   SERDIFF_CI_SMOKE_SECONDS   seconds of fuzz smoke per target (default 5)
#   SERDIFF_PLANTED_BUG        compile in a planted defect (tests/planted/bugs.tsv); the build directory
#                              becomes build/ci-<job>-planted-<name> so the clean tree stays cached
#   SERDIFF_CI_BUILD_ROOT      where build directories go (default <repo>/build)
#   SERDIFF_CI_JOBS            parallel build/test jobs (default: nproc, at most 2)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SMOKE_SECONDS=${SERDIFF_CI_SMOKE_SECONDS:-5}
PARALLEL=${SERDIFF_CI_JOBS:-$(( $(nproc) < 2 ? $(nproc) : 2 ))}
SHARED_DATA=${SERDIFF_DATA_DIR:-$ROOT/../shared/data}

say() { echo "[ci $JOB_NAME] $*" >&2; }

# Writes the summary line the matrix table is made of: status seconds targets replayed smoke.
write_summary() {
    local status=$1
    local elapsed=$(( $(date +%s) - JOB_START ))
    mkdir -p "$BUILD_DIR"
    printf '%s %s %s %s %s %s\n' "$JOB_NAME" "$status" "$elapsed" "${TARGET_COUNT:-0}" "${REPLAYED:-0}" \
        "${SMOKE_DESCRIPTION:-none}" > "$BUILD_DIR/ci-summary.txt"
}

# Runs a command with its output in $BUILD_DIR/ci-logs/<name>.log; on failure prints the log's end (where a
# sanitizer's report is) and fails.
logged() {
    local name=$1
    shift
    mkdir -p "$BUILD_DIR/ci-logs"
    local log=$BUILD_DIR/ci-logs/$name.log
    if ! "$@" > "$log" 2>&1; then
        tail -n 250 "$log"
        say "$name failed; full output in $log"
        return 1
    fi
}

on_exit() {
    local status=$?
    if [ $status -ne 0 ]; then
        write_summary FAIL
        say "FAILED in stage: ${STAGE:-?} ($(( $(date +%s) - JOB_START )) s); output above"
    fi
}

# Replays every file under the given paths for one target; adds the count to REPLAYED.
replay() {
    local target=$1
    shift
    local output errors=$BUILD_DIR/ci-logs/replay-$target.stderr
    # stderr (progress lines, or a sanitizer's report) is shown only when the replay fails.
    output=$(env "${SANITIZER_ENV[@]}" "$BIN/serdiff_fuzz_replay" --target "$target" "$@" 2> "$errors") || {
        echo "$output"
        cat "$errors" >&2
        return 1
    }
    local count
    count=$(sed -n 's/^serdiff replay [^:]*: \([0-9]*\) files.*/\1/p' <<<"$output")
    REPLAYED=$(( REPLAYED + ${count:-0} ))
}

# The longest input libFuzzer mutates per target, as the target declares it (SERDIFF_FUZZ_TARGET options).
max_len() {
    python3 "$ROOT/tools/fuzz/run.py" option "$BIN/serdiff_fuzz_libfuzzer" "$1" max_len
}

smoke_libfuzzer() {
    local target=$1 work=$BUILD_DIR/ci-smoke/$1
    rm -rf "$work" && mkdir -p "$work/corpus" "$work/crashes"
    local command=("$BIN/serdiff_fuzz_libfuzzer" "-max_total_time=$SMOKE_SECONDS" "-rss_limit_mb=2048"
                   "-max_len=$(max_len "$target")" "-timeout=30" "-print_final_stats=1"
                   "-artifact_prefix=$work/crashes/")
    [ -f "$ROOT/corpora/dicts/$target.dict" ] && command+=("-dict=$ROOT/corpora/dicts/$target.dict")
    # New inputs go to the scratch corpus (first directory), never into corpora/.
    command+=("$work/corpus" "$ROOT/corpora/$target")
    if ! env "${SANITIZER_ENV[@]}" FUZZ="$target" "${command[@]}" > "$work/log" 2>&1; then
        tail -n 60 "$work/log"
        say "libFuzzer smoke of $target failed (log $work/log, inputs in $work/crashes/)"
        return 1
    fi
    local execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    SMOKE_EXECS=$(( SMOKE_EXECS + ${execs:-0} ))
}

smoke_afl() {
    local target=$1 work=$BUILD_DIR/ci-smoke/$1
    rm -rf "$work" && mkdir -p "$work/in"
    local file
    for file in "$ROOT/corpora/$target"/*; do
        [ -s "$file" ] && cp "$file" "$work/in/"
    done
    local command=(afl-fuzz -i "$work/in" -o "$work/out" -V "$SMOKE_SECONDS" -m none -t 5000)
    [ -f "$ROOT/corpora/dicts/$target.dict" ] && command+=(-x "$ROOT/corpora/dicts/$target.dict")
    command+=(-- "$BIN/serdiff_fuzz_afl")
    # afl-fuzz insists on unsymbolized, aborting ASan reports (it records the abort as a crash).
    local setting asan_options=""
    for setting in "${SANITIZER_ENV[@]}"; do
        [[ $setting == ASAN_OPTIONS=* ]] && asan_options=${setting#ASAN_OPTIONS=}
    done
    if ! env "${SANITIZER_ENV[@]}" "ASAN_OPTIONS=${asan_options:+$asan_options:}abort_on_error=1:symbolize=0" \
        FUZZ="$target" AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
        AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_FORKSRV_INIT_TMOUT=60000 \
        "${command[@]}" > "$work/log" 2>&1; then
        tail -n 40 "$work/log"
        say "afl-fuzz on $target did not run"
        return 1
    fi
    local crashes
    crashes=$(find "$work/out/default/crashes" -name 'id:*' 2>/dev/null | wc -l)
    if [ "$crashes" -ne 0 ]; then
        say "afl-fuzz found $crashes crash(es) in $target; replay one with:"
        find "$work/out/default/crashes" -name 'id:*' | head -n 3 |
            sed "s|^|  $BIN/serdiff_fuzz_replay --target $target |" >&2
        return 1
    fi
    local execs
    execs=$(sed -n 's/^execs_done *: *//p' "$work/out/default/fuzzer_stats" 2>/dev/null)
    SMOKE_EXECS=$(( SMOKE_EXECS + ${execs:-0} ))
}

smoke_replay() {
    local target=$1 work=$BUILD_DIR/ci-smoke/$1
    rm -rf "$work" && mkdir -p "$work"
    local output
    # The replay driver saves a failing mutation as ./serdiff-smoke-crash-<target>.
    output=$(cd "$work" && env "${SANITIZER_ENV[@]}" "$BIN/serdiff_fuzz_replay" --target "$target" \
        --smoke-seconds "$SMOKE_SECONDS" --seed 1 "$ROOT/corpora/$target" 2> "$work/stderr") || {
        echo "$output"
        cat "$work/stderr" >&2
        return 1
    }
    local runs
    runs=$(sed -n 's/^serdiff smoke [^:]*: \([0-9]*\) mutated.*/\1/p' <<<"$output")
    SMOKE_EXECS=$(( SMOKE_EXECS + ${runs:-0} ))
}

run_job() {
    JOB_START=$(date +%s)
    REPLAYED=0
    SMOKE_EXECS=0
    local build_root=${SERDIFF_CI_BUILD_ROOT:-$ROOT/build}
    BUILD_DIR=$build_root/ci-$JOB_NAME
    local planted=${SERDIFF_PLANTED_BUG:-}
    if [ -n "$planted" ]; then
        BUILD_DIR=$build_root/ci-$JOB_NAME-planted-$planted
        say "PLANTED DEFECT $planted compiled in: this run is expected to fail"
    fi
    BIN=$BUILD_DIR/bin
    trap on_exit EXIT
    cd "$ROOT"
    mkdir -p "$BUILD_DIR"

    if [ -n "${PREPARE:-}" ]; then
        STAGE=prepare
        "$PREPARE"
    fi

    STAGE=configure
    say "configuring $BUILD_DIR"
    # A planted defect may draw a compiler warning (gcc sees some statically): warnings fail only clean builds.
    local werror=ON
    [ -z "$planted" ] || werror=OFF
    logged configure cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DSERDIFF_PEERS=OFF -DSERDIFF_WERROR=$werror \
        -DSERDIFF_PLANTED_BUG="$planted" "${CMAKE_ARGS[@]}"

    # The replay driver first: the committed corpora fail fast, before the slower unit-test build.
    STAGE=build-replay
    say "building the replay driver"
    logged build-replay cmake --build "$BUILD_DIR" -j "$PARALLEL" --target serdiff_fuzz_replay
    local targets
    targets=$(env "${SANITIZER_ENV[@]}" "$BIN/serdiff_fuzz_replay" --list)
    TARGET_COUNT=$(wc -w <<<"$targets")

    STAGE=replay-corpora
    say "replaying corpora/ for $TARGET_COUNT targets"
    local target
    for target in $targets; do
        replay "$target" "$ROOT/corpora/$target"
    done

    STAGE=build
    say "building everything"
    logged build cmake --build "$BUILD_DIR" -j "$PARALLEL"

    STAGE=unit-tests
    say "unit tests (ctest -LE fuzz)"
    logged unit-tests env "${SANITIZER_ENV[@]}" ctest --test-dir "$BUILD_DIR" -LE fuzz -j "$PARALLEL" \
        --output-on-failure --timeout 900
    grep -E '^[0-9]+% tests passed' "$BUILD_DIR/ci-logs/unit-tests.log" | sed "s/^/[ci $JOB_NAME] /" >&2

    STAGE=replay-real-data
    if [ -d "$SHARED_DATA/blocks" ]; then
        say "replaying seeds cut from $SHARED_DATA"
        local seeds=$BUILD_DIR/shared-seeds
        rm -rf "$seeds"
        env "${SANITIZER_ENV[@]}" "$BIN/serdiff_corpus_gen" --shared-data "$SHARED_DATA" --out "$seeds" > /dev/null
        for target in $targets; do
            if [ -d "$seeds/$target" ]; then replay "$target" "$seeds/$target"; fi
        done
    else
        say "no $SHARED_DATA: real-data seeds skipped"
    fi

    STAGE=fuzz-smoke
    say "fuzz smoke: $SMOKE_ENGINE, ${SMOKE_SECONDS} s per target"
    for target in $targets; do
        "smoke_$SMOKE_ENGINE" "$target"
    done
    SMOKE_DESCRIPTION="${SMOKE_ENGINE}:${SMOKE_EXECS}-execs"

    STAGE=done
    write_summary PASS
    say "PASS in $(( $(date +%s) - JOB_START )) s: $TARGET_COUNT targets, $REPLAYED inputs replayed," \
        "$SMOKE_EXECS smoke executions ($SMOKE_ENGINE)"
}
