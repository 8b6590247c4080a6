#!/usr/bin/env bash
# Runs the CI matrix (ci/jobs/<job>.sh, one after another: the machine has 2 cores) and prints a per-job
# summary: pass/fail, time, and for each subject (serdiff, core) its targets, inputs replayed and fuzz smoke
# executions. A failing job does not stop the others; the exit status is 1 when any failed. Each job's full
# output: build/ci-<job>.log.
# Usage: ci/matrix.sh [JOB...]   (default: asan-ubsan msan gcc afl)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_root=${SERDIFF_CI_BUILD_ROOT:-$root/build}
jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(asan-ubsan msan gcc afl)
mkdir -p "$build_root"

matrix_start=$(date +%s)
for job in "${jobs[@]}"; do
    if [ ! -x "$root/ci/jobs/$job.sh" ]; then
        echo "ci: unknown job '$job' (jobs: $(cd "$root/ci/jobs" && ls *.sh | sed 's/\.sh$//' | grep -v '^lib$' | xargs))" >&2
        exit 2
    fi
    rm -f "$build_root/ci-$job/ci-summary.txt"
    echo "ci: job $job (log: ${build_root#$root/}/ci-$job.log)"
    # The job's own progress lines (stderr, "[ci <job>] ...") stay on the terminal; everything goes to the log.
    : > "$build_root/ci-$job.log"
    "$root/ci/jobs/$job.sh" 2> >(tee -a "$build_root/ci-$job.log" | grep --line-buffered '^\[ci ' >&2) \
        >> "$build_root/ci-$job.log"
    status=$?
    wait
    if [ $status -ne 0 ]; then
        echo "ci: job $job FAILED; the end of its log:"
        tail -n 80 "$build_root/ci-$job.log"
    fi
done

passed=0
failed=0
echo
# Per subject (serdiff's serialize/, then Bitcoin Core's own source): targets, inputs replayed (committed
# corpora plus real-data seeds) and fuzz smoke executions.
printf '%-11s %-6s %8s %-10s  %-30s  %-30s\n' "" "" "" "" "------------ serdiff ----------" "------------- core -------------"
printf '%-11s %-6s %8s %-10s  %7s %10s %11s  %7s %10s %11s\n' job result time smoke \
    targets replayed "smoke execs" targets replayed "smoke execs"
for job in "${jobs[@]}"; do
    summary=$build_root/ci-$job/ci-summary.txt
    if [ -f "$summary" ]; then
        read -r _ result seconds engine s_targets s_replayed s_execs c_targets c_replayed c_execs < "$summary"
    else
        result=FAIL seconds=- engine=- s_targets=- s_replayed=- s_execs=- c_targets=- c_replayed=- c_execs=-
    fi
    [ "$result" = PASS ] && passed=$((passed + 1)) || failed=$((failed + 1))
    [ "$seconds" = - ] || seconds="$((seconds / 60))m$(printf '%02d' $((seconds % 60)))s"
    printf '%-11s %-6s %8s %-10s  %7s %10s %11s  %7s %10s %11s\n' "$job" "$result" "$seconds" "$engine" \
        "$s_targets" "$s_replayed" "$s_execs" "${c_targets:--}" "${c_replayed:--}" "${c_execs:--}"
    [ -f "$summary" ] || echo "            (no summary: see ${build_root#$root/}/ci-$job.log)"
done
total=$(( $(date +%s) - matrix_start ))
echo "ci: matrix took $((total / 60))m$(printf '%02d' $((total % 60)))s"
echo "ci: $passed passed, $failed failed"
[ $failed -eq 0 ]
