#!/usr/bin/env bash
# Proves each CI job catches its class of defect: builds the job with one planted defect (the rows of
# tests/planted/bugs.tsv whose detector is job:<job>; -DSERDIFF_PLANTED_BUG=<name>) and expects it to FAIL with
# the report headline the manifest names; the same job without the defect must pass (its clean run, done first unless already green).
# Usage: ci/planted.sh [DEFECT...]   (default: all)   Logs: build/ci-<job>-planted-<defect>.log
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_root=${SERDIFF_CI_BUILD_ROOT:-$root/build}

# defect | job | the report headline the job's output must contain (from the manifest's job:<job> rows)
defects=()
while IFS=$'\t' read -r name row detector expect what; do
    case "$name" in ''|'#'*) continue ;; esac
    [[ $detector == job:* ]] && defects+=("$name|${detector#job:}|$expect")
done < "$root/tests/planted/bugs.tsv"
[ ${#defects[@]} -gt 0 ] || { echo "planted: no job:<job> rows in tests/planted/bugs.tsv" >&2; exit 2; }

wanted=("$@")
selected=()
for entry in "${defects[@]}"; do
    name=${entry%%|*}
    if [ ${#wanted[@]} -eq 0 ] || [[ " ${wanted[*]} " == *" $name "* ]]; then
        selected+=("$entry")
    fi
done
[ ${#selected[@]} -gt 0 ] || { echo "planted: no such defect: $*" >&2; exit 2; }

# The clean run of every job involved must pass (else a failure would prove nothing).
clean_status() { cat "$build_root/ci-$1/ci-summary.txt" 2>/dev/null | cut -d' ' -f2; }
jobs_needed=$(printf '%s\n' "${selected[@]}" | cut -d'|' -f2 | sort -u)
for job in $jobs_needed; do
    if [ "$(clean_status "$job")" != PASS ]; then
        echo "planted: running the clean $job job first" >&2
        "$root/ci/jobs/$job.sh" > "$build_root/ci-$job.log" 2>&1
    fi
done

results=()
failures=0
for entry in "${selected[@]}"; do
    IFS='|' read -r name job headline <<<"$entry"
    log=$build_root/ci-$job-planted-$name.log
    echo "planted: $name in the $job job (expect: $headline) ..." >&2
    start=$(date +%s)
    SERDIFF_PLANTED_BUG=$name "$root/ci/jobs/$job.sh" > "$log" 2>&1
    status=$?
    seconds=$(( $(date +%s) - start ))
    stage=$(sed -n 's/.*FAILED in stage: \([^ ]*\).*/\1/p' "$log" | tail -n1)
    if [ "$(clean_status "$job")" != PASS ]; then
        verdict="NOT PROVEN (the clean $job job does not pass)"
    elif [ $status -eq 0 ]; then
        verdict="MISSED (the job passed with the defect)"
    elif ! grep -qF "$headline" "$log"; then
        verdict="WRONG FAILURE (no '$headline' in the output)"
    else
        verdict="caught"
    fi
    [ "$verdict" = caught ] || failures=$((failures + 1))
    results+=("$(printf '%-26s %-11s %-8s %-17s %5ss  %s' "$name" "$job" "$verdict" "${stage:--}" "$seconds" \
        "$(grep -m1 -oF "$headline" "$log" || echo '-')")")
    [ "$verdict" = caught ] || tail -n 30 "$log"
done

echo
printf '%-26s %-11s %-8s %-17s %6s  %s\n' defect job result "failed stage" time "report headline"
for line in "${results[@]}"; do echo "$line"; done
echo "planted: $(( ${#selected[@]} - failures )) passed, $failures failed"
[ $failures -eq 0 ]
