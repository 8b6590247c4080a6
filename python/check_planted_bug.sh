#!/usr/bin/env bash
# Shows that the Hypothesis properties catch a bug planted in the optimized side and shrink it: builds a
# test-only extension with bug NAME of tests/planted/bugs.tsv planted, runs the properties from an empty example
# database, and prints each shrunk failing example. Exits 0 when the bug was found, 1 when it slipped through.
# Usage: python/check_planted_bug.sh NAME [--source DIR]   (DIR: a tree whose serialize/ has the hook)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:?usage: $0 NAME [--source DIR]}
shift
if ! grep -q "^$name	" "$repo/tests/planted/bugs.tsv"; then
  echo "check_planted_bug: no bug '$name' in tests/planted/bugs.tsv" >&2; exit 2
fi
source_dir="$repo"
[ "${1:-}" = "--source" ] && source_dir=$2

target="$repo/build/python-planted-$name"
"$repo/python/build.sh" --planted-bug "$name" --source "$source_dir" --target "$target"
database=$(mktemp -d)
log="$repo/build/python-planted-$name.log"
trap 'rm -rf "$database"' EXIT

echo "check_planted_bug: running the properties against the optimized side with planted bug '$name'"
set +e
(cd "$repo/python" && PYTHONPATH="$target" SERDIFF_HYPOTHESIS_DATABASE="$database" \
  "$repo/build/python-venv/bin/pytest" -p no:cacheprovider -q --tb=short -x tests/test_properties.py) >"$log" 2>&1
status=$?
set -e
if ! grep -q "planted_bug" <(PYTHONPATH="$target" "$repo/build/python-venv/bin/python" -c \
    "from serdiff import _native; print('planted_bug', _native.planted_bug)"); then
  echo "check_planted_bug: the test build does not report its planted bug" >&2; exit 1
fi
if [ $status -eq 0 ]; then
  echo "check_planted_bug: NOT FOUND: every property passed with planted bug '$name' (log: $log)" >&2
  exit 1
fi
# Each failure's shrunk example: the failing test case and its draws, as Hypothesis printed them.
awk '/^_+ test_/ {print; next} /Failing test case:|Falsifying example/ {show=1} show && /reproduce_failure|^tests\// {show=0}
     show {print}' "$log"
grep -E "^(FAILED|[0-9]+ (passed|failed))" "$log" || tail -3 "$log"
echo "check_planted_bug: FOUND planted bug '$name' (full log: $log)"
