# Shared steps of every CI job (sourced by ci/jobs/<job>.sh): configure its own build directory with both
# subjects (serdiff's serialize/ and Bitcoin Core's own source, docs/core.md), build, replay every corpus
# through each subject's replay driver, run the unit tests, fuzz-smoke every target of each subject, and write
# a one-line summary.
#
# A job script sets, then calls run_job:
#   JOB_NAME          the job (build directory build/ci-<job>, or the preset's: see CONFIGURE_PRESET)
#   CMAKE_ARGS        array of extra -D arguments (compiler, sanitizers, engine, flags)
#   SMOKE_ENGINE      libfuzzer | afl | replay   (what the fuzz smoke runs)
#   SANITIZER_ENV     array of NAME=VALUE runtime options for every test binary
#   PREPARE           optional: a function run first (e.g. building an instrumented standard library)
#   CONFIGURE_PRESET  optional, instead of CMAKE_ARGS: a configure preset of CMakePresets.json, whose build directory
#                     build/<preset> the job uses (make test's, for asan-ubsan; SERDIFF_CI_BUILD_ROOT does not move
#                     it); a planted defect's run, or one with SERDIFF_CORE_SRC, configures it in build/ci-<job>...
# Environment knobs (all optional):
#   SERDIFF_CI_SMOKE_SECONDS   seconds of fuzz smoke per target (default 5)
#   SERDIFF_PLANTED_BUG        compile in a planted defect (tests/planted/bugs.tsv); the build directory
#                              becomes build/ci-<job>-planted-<name> so the clean tree stays cached
#   SERDIFF_CI_BUILD_ROOT      where build directories go (default <repo>/build)
#   SERDIFF_CI_JOBS            parallel build/test jobs (default: nproc, at most 2)
#   SERDIFF_CORE_SRC           the Bitcoin Core tree of the Core subject (default: the pinned sdist, fetched
#                              by subjects/core/fetch.sh at configure time into build/core-source)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SMOKE_SECONDS=${SERDIFF_CI_SMOKE_SECONDS:-5}
PARALLEL=${SERDIFF_CI_JOBS:-$(( $(nproc) < 2 ? $(nproc) : 2 ))}
SHARED_DATA=${SERDIFF_DATA_DIR:-$ROOT/../shared/data}
# The subjects every job builds and tests (differential/subject.h): <subject>_fuzz_{replay,libfuzzer,afl}.
SUBJECTS=(serdiff core)
declare -A TARGETS=() TARGET_COUNT=()

# Progress lines carry the seconds since the job started, so each stage's time can be read off the log.
say() { echo "[ci $JOB_NAME] $(( $(date +%s) - ${JOB_START:-$(date +%s)} ))s $*" >&2; }

# Inputs replayed and smoke executions are counted in files, one line per run (runs go in parallel, in subshells):
# add_count replayed|smoke SUBJECT N, and count_total replayed|smoke SUBJECT.
add_count() { echo "$3" >> "$BUILD_DIR/ci-logs/counts/$1.$2"; }
count_total() {
    local file=$BUILD_DIR/ci-logs/counts/$1.$2
    if [ -f "$file" ]; then awk '{ total += $1 } END { print total + 0 }' "$file"; else echo 0; fi
}

# Writes the summary line the matrix table is made of: job status seconds engine, then targets, inputs
# replayed and smoke executions of each subject (serdiff, then core).
write_summary() {
    local status=$1
    local elapsed=$(( $(date +%s) - JOB_START ))
    local subject counts=()
    for subject in "${SUBJECTS[@]}"; do
        counts+=("${TARGET_COUNT[$subject]:-0}" "$(count_total replayed "$subject")" "$(count_total smoke "$subject")")
    done
    mkdir -p "$SUMMARY_DIR"
    echo "$JOB_NAME $status $elapsed ${SMOKE_ENGINE:-none} ${counts[*]}" > "$SUMMARY_DIR/ci-summary.txt"
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

# The targets a subject's replay driver has built (core_fuzz_replay lists the targets it does not build as
# "absent", with the reason: those are skipped).
built_targets() {
    env "${SANITIZER_ENV[@]}" "$BIN/$1_fuzz_replay" --list --json |
        python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin) if not t.get("absent")))'
}

# Where a subject's fuzz smoke of a target works (and leaves its findings): ci-smoke/<target> for serdiff,
# ci-smoke/core/<target> for Core.
smoke_dir() {
    if [ "$1" = serdiff ]; then echo "$BUILD_DIR/ci-smoke/$2"; else echo "$BUILD_DIR/ci-smoke/$1/$2"; fi
}

# in_parallel COMMAND SUBJECT TARGET...: runs `COMMAND SUBJECT TARGET` for each target, PARALLEL at a time (each
# run is one process on one core: the replays and smokes used one of the 2 cores before), each run's output shown
# whole when it ends. After the first failure no new run starts; the runs under way are waited for; fails if any
# failed.
in_parallel() {
    local command=$1 subject=$2
    shift 2
    local spool=$BUILD_DIR/ci-logs/parallel
    rm -rf "$spool" && mkdir -p "$spool"
    local -A running=()
    local target failed=0
    # Interrupted (Ctrl-C, a kill of the job): the runs under way stop too.
    trap 'kill "${!running[@]}" 2>/dev/null; exit 130' INT TERM
    collect() {
        local pid status=0
        wait -n -p pid "${!running[@]}" || status=$?
        cat "$spool/${running[$pid]}.out" >&2
        [ $status -eq 0 ] || failed=1
        unset "running[$pid]"
    }
    for target in "$@"; do
        [ ${#running[@]} -lt "$PARALLEL" ] || collect
        [ $failed -eq 0 ] || break
        "$command" "$subject" "$target" > "$spool/$target.out" 2>&1 &
        running[$!]=$target
    done
    while [ ${#running[@]} -gt 0 ]; do collect; done
    trap - INT TERM
    [ $failed -eq 0 ]
}

# replay SUBJECT TARGET PATH...: replays every file under the paths through the subject's replay driver;
# counts them (add_count replayed).
replay() {
    local subject=$1 target=$2
    shift 2
    local output errors=$BUILD_DIR/ci-logs/replay-$subject-$target${REPLAY_SHARD:+-$REPLAY_SHARD}.stderr
    # stderr (progress lines, or a sanitizer's report) is shown only when the replay fails.
    output=$(env "${SANITIZER_ENV[@]}" "$BIN/${subject}_fuzz_replay" --target "$target" "$@" 2> "$errors") || {
        echo "$output"
        cat "$errors" >&2
        say "replaying $* through ${subject}_fuzz_replay --target $target failed"
        return 1
    }
    local count
    count=$(sed -n 's/^serdiff replay [^:]*: \([0-9]*\) files.*/\1/p' <<<"$output")
    add_count replayed "$subject" "${count:-0}"
}

# The longest input libFuzzer mutates per target, as the target declares it (SERDIFF_FUZZ_TARGET options).
max_len() {
    python3 "$ROOT/tools/fuzz/run.py" option "$BIN/$1_fuzz_libfuzzer" "$2" max_len
}

# smoke_<engine> SUBJECT TARGET: a short fuzz run of one target of one subject, from the target's corpus.
smoke_libfuzzer() {
    local subject=$1 target=$2 work
    work=$(smoke_dir "$subject" "$target")
    rm -rf "$work" && mkdir -p "$work/corpus" "$work/crashes"
    local binary=$BIN/${subject}_fuzz_libfuzzer
    local command=("$binary" "-max_total_time=$SMOKE_SECONDS" "-rss_limit_mb=2048"
                   "-max_len=$(max_len "$subject" "$target")" "-timeout=30" "-print_final_stats=1"
                   "-artifact_prefix=$work/crashes/")
    [ -f "$ROOT/corpora/dicts/$target.dict" ] && command+=("-dict=$ROOT/corpora/dicts/$target.dict")
    # The target's own libFuzzer flags (SERDIFF_FUZZ_TARGET .libfuzzer_flags).
    local flags
    read -r -a flags <<<"$(python3 "$ROOT/tools/fuzz/run.py" option "$binary" "$target" libfuzzer_flags)"
    command+=("${flags[@]}")
    # New inputs go to the scratch corpus (first directory), never into corpora/.
    command+=("$work/corpus" "$ROOT/corpora/$target")
    if ! env "${SANITIZER_ENV[@]}" FUZZ="$target" "${command[@]}" > "$work/log" 2>&1; then
        tail -n 60 "$work/log"
        say "libFuzzer smoke of $target ($subject) failed (log $work/log, inputs in $work/crashes/," \
            "replay with $BIN/${subject}_fuzz_replay --target $target FILE)"
        return 1
    fi
    local execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    add_count smoke "$subject" "${execs:-0}"
}

smoke_afl() {
    local subject=$1 target=$2 work
    work=$(smoke_dir "$subject" "$target")
    rm -rf "$work" && mkdir -p "$work/in"
    local file
    for file in "$ROOT/corpora/$target"/*; do
        [ -s "$file" ] && cp "$file" "$work/in/"
    done
    local command=(afl-fuzz -i "$work/in" -o "$work/out" -V "$SMOKE_SECONDS" -m none -t 5000)
    [ -f "$ROOT/corpora/dicts/$target.dict" ] && command+=(-x "$ROOT/corpora/dicts/$target.dict")
    command+=(-- "$BIN/${subject}_fuzz_afl")
    # afl-fuzz insists on unsymbolized, aborting ASan reports (it records the abort as a crash).
    local setting asan_options=""
    for setting in "${SANITIZER_ENV[@]}"; do
        [[ $setting == ASAN_OPTIONS=* ]] && asan_options=${setting#ASAN_OPTIONS=}
    done
    # AFL_NO_STARTUP_CALIBRATION: afl-fuzz starts fuzzing at once instead of first running every seed several
    # times to calibrate it (primitive_stream's 1,561 seeds took 87 s of a 5 s smoke). Every seed has been run
    # already in this job, by the replay driver of the same build (replay_corpora), so nothing goes unrun.
    if ! env "${SANITIZER_ENV[@]}" "ASAN_OPTIONS=${asan_options:+$asan_options:}abort_on_error=1:symbolize=0" \
        FUZZ="$target" AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_NO_STARTUP_CALIBRATION=1 \
        AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_FORKSRV_INIT_TMOUT=60000 \
        "${command[@]}" > "$work/log" 2>&1; then
        tail -n 40 "$work/log"
        say "afl-fuzz on $target ($subject) did not run"
        return 1
    fi
    local crashes
    crashes=$(find "$work/out/default/crashes" -name 'id:*' 2>/dev/null | wc -l)
    if [ "$crashes" -ne 0 ]; then
        say "afl-fuzz found $crashes crash(es) in $target ($subject); replay one with:"
        find "$work/out/default/crashes" -name 'id:*' | head -n 3 |
            sed "s|^|  $BIN/${subject}_fuzz_replay --target $target |" >&2
        return 1
    fi
    local execs
    execs=$(sed -n 's/^execs_done *: *//p' "$work/out/default/fuzzer_stats" 2>/dev/null)
    add_count smoke "$subject" "${execs:-0}"
}

smoke_replay() {
    local subject=$1 target=$2 work
    work=$(smoke_dir "$subject" "$target")
    rm -rf "$work" && mkdir -p "$work"
    local output
    # The replay driver saves a failing mutation as ./serdiff-smoke-crash-<target>. The corpus is only the mutations'
    # bases here (--bases-only): the first step replayed it with this binary.
    output=$(cd "$work" && env "${SANITIZER_ENV[@]}" "$BIN/${subject}_fuzz_replay" --target "$target" \
        --smoke-seconds "$SMOKE_SECONDS" --seed 1 --bases-only "$ROOT/corpora/$target" 2> "$work/stderr") || {
        echo "$output"
        cat "$work/stderr" >&2
        say "replay-driver smoke of $target ($subject) failed (input saved in $work/)"
        return 1
    }
    local runs
    runs=$(sed -n 's/^serdiff smoke [^:]*: \([0-9]*\) mutated.*/\1/p' <<<"$output")
    add_count smoke "$subject" "${runs:-0}"
}

# Builds a subject's replay driver, lists its targets and replays every target's committed corpus.
replay_corpora() {
    local subject=$1
    STAGE=build-replay-$subject
    say "building ${subject}_fuzz_replay"
    logged "build-replay-$subject" cmake --build "$BUILD_DIR" -j "$PARALLEL" --target "${subject}_fuzz_replay"
    TARGETS[$subject]=$(built_targets "$subject")
    TARGET_COUNT[$subject]=$(wc -w <<<"${TARGETS[$subject]}")
    [ "${TARGET_COUNT[$subject]}" -gt 0 ] || { say "${subject}_fuzz_replay lists no built target"; return 1; }
    STAGE=replay-corpora-$subject
    say "replaying corpora/ through ${subject}_fuzz_replay for ${TARGET_COUNT[$subject]} targets"
    local items=() target shard count
    for target in ${TARGETS[$subject]}; do
        count=$(find "$ROOT/corpora/$target" -type f | wc -l)
        if [ "$count" -gt "$SHARD_FILES" ]; then
            for (( shard = 0; shard < PARALLEL; shard++ )); do items+=("$target@$shard"); done
        else
            items+=("$target")
        fi
    done
    in_parallel replay_corpus "$subject" "${items[@]}"
}
# A corpus of more than SHARD_FILES files is replayed as PARALLEL shards (target@k: every PARALLEL-th file from the
# k-th), so one large corpus (primitive_stream's 1,561 seeds: about 2 minutes under MSan) does not hold one core
# while the other waits.
SHARD_FILES=400
replay_corpus() {
    local target=${2%@*}
    if [ "$target" = "$2" ]; then
        replay "$1" "$target" "$ROOT/corpora/$target"
    else
        REPLAY_SHARD=${2#*@}
        local files=()
        mapfile -t files < <(find "$ROOT/corpora/$target" -type f | sort | awk -v n="$PARALLEL" -v k="$REPLAY_SHARD" '(NR - 1) % n == k')
        replay "$1" "$target" "${files[@]}"
    fi
}
replay_seeds() { if [ -d "$SEEDS/$2" ]; then replay "$1" "$2" "$SEEDS/$2"; fi; }

run_job() {
    JOB_START=$(date +%s)
    local build_root=${SERDIFF_CI_BUILD_ROOT:-$ROOT/build}
    BUILD_DIR=$build_root/ci-$JOB_NAME
    # The summary make ci's table and ci-planted's clean-run check read: build/ci-<job>/ci-summary.txt, also for a
    # job that builds in a preset's tree.
    SUMMARY_DIR=$BUILD_DIR
    # A preset's tree is make test's (build/<preset>, whatever SERDIFF_CI_BUILD_ROOT says), unless SERDIFF_CORE_SRC
    # names another Core tree: that build keeps build/ci-<job>, so make test's tree never changes Core tree.
    [ -z "${CONFIGURE_PRESET:-}" ] || [ -n "${SERDIFF_CORE_SRC:-}" ] || BUILD_DIR=$ROOT/build/$CONFIGURE_PRESET
    local planted=${SERDIFF_PLANTED_BUG:-}
    if [ -n "$planted" ]; then
        BUILD_DIR=$build_root/ci-$JOB_NAME-planted-$planted
        SUMMARY_DIR=$BUILD_DIR
        say "PLANTED DEFECT $planted compiled in: this run is expected to fail"
    fi
    BIN=$BUILD_DIR/bin
    trap on_exit EXIT
    cd "$ROOT"
    mkdir -p "$BUILD_DIR"
    rm -rf "$BUILD_DIR/ci-logs/counts" && mkdir -p "$BUILD_DIR/ci-logs/counts"

    if [ -n "${PREPARE:-}" ]; then
        STAGE=prepare
        "$PREPARE"
    fi

    STAGE=configure
    say "configuring $BUILD_DIR"
    # A planted defect may draw a compiler warning (gcc sees some statically): warnings fail only clean builds.
    local werror=ON
    [ -z "$planted" ] || werror=OFF
    # Both subjects; the Core source is fetched here (the pinned sdist) unless SERDIFF_CORE_SRC names a tree.
    if [ -n "${CONFIGURE_PRESET:-}" ]; then
        # The preset's own tree keeps its cache (make test's: peers and all); another tree (a planted run's, one of
        # another Core tree) builds no peers, as every other job.
        local peers=()
        [ "$BUILD_DIR" = "$ROOT/build/$CONFIGURE_PRESET" ] || peers=(-DSERDIFF_PEERS=OFF)
        logged configure cmake --preset "$CONFIGURE_PRESET" -B "$BUILD_DIR" -DSERDIFF_WERROR=$werror \
            -DSERDIFF_PLANTED_BUG="$planted" "-DSERDIFF_CORE_SRC=${SERDIFF_CORE_SRC:-}" "${peers[@]}"
    else
        logged configure cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DSERDIFF_PEERS=OFF -DSERDIFF_WERROR=$werror \
            -DSERDIFF_PLANTED_BUG="$planted" "-DSERDIFF_SUBJECTS=serdiff;core" \
            "-DSERDIFF_CORE_SRC=${SERDIFF_CORE_SRC:-}" "${CMAKE_ARGS[@]}"
    fi
    grep -h 'subjects/core: Bitcoin Core source at' "$BUILD_DIR/ci-logs/configure.log" | sed "s/^-- /[ci $JOB_NAME] /" >&2 || true

    # The replay drivers first: the committed corpora fail fast, before the slower full build. serdiff's
    # first, so a defect in serialize/ fails before Core's files are compiled.
    local subject target
    for subject in "${SUBJECTS[@]}"; do
        replay_corpora "$subject"
    done

    STAGE=build
    say "building everything"
    logged build cmake --build "$BUILD_DIR" -j "$PARALLEL"

    STAGE=unit-tests
    # The documentation checks (label docs) run in make test's tree only: they check the docs, which no compiler
    # changes, against the binaries' listings.
    local excluded=fuzz
    [ "$BUILD_DIR" = "$ROOT/build/${CONFIGURE_PRESET:-}" ] || excluded='fuzz|docs'
    say "unit tests (ctest -LE '$excluded')"
    logged unit-tests env "${SANITIZER_ENV[@]}" ctest --test-dir "$BUILD_DIR" -LE "$excluded" -j "$PARALLEL" \
        --output-on-failure --timeout 900
    grep -E '^[0-9]+% tests passed' "$BUILD_DIR/ci-logs/unit-tests.log" | sed "s/^/[ci $JOB_NAME] /" >&2

    STAGE=replay-real-data
    if [ -d "$SHARED_DATA/blocks" ]; then
        say "replaying seeds cut from $SHARED_DATA"
        SEEDS=$BUILD_DIR/shared-seeds
        rm -rf "$SEEDS"
        env "${SANITIZER_ENV[@]}" "$BIN/serdiff_corpus_gen" --shared-data "$SHARED_DATA" --out "$SEEDS" > /dev/null
        for subject in "${SUBJECTS[@]}"; do
            in_parallel replay_seeds "$subject" ${TARGETS[$subject]}
        done
    else
        say "no $SHARED_DATA: real-data seeds skipped"
    fi

    for subject in "${SUBJECTS[@]}"; do
        STAGE=fuzz-smoke-$subject
        say "fuzz smoke of ${subject}'s ${TARGET_COUNT[$subject]} targets: $SMOKE_ENGINE, ${SMOKE_SECONDS} s per target"
        in_parallel "smoke_$SMOKE_ENGINE" "$subject" ${TARGETS[$subject]}
    done

    STAGE=done
    write_summary PASS
    local totals=""
    for subject in "${SUBJECTS[@]}"; do
        totals+="${totals:+; }$subject: ${TARGET_COUNT[$subject]} targets, $(count_total replayed "$subject") inputs replayed,"
        totals+=" $(count_total smoke "$subject") smoke executions"
    done
    say "PASS in $(( $(date +%s) - JOB_START )) s ($SMOKE_ENGINE smoke): $totals"
}
