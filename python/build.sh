#!/usr/bin/env bash
# Builds build/python-venv with the pinned packages and installs serdiff (with its extension) into it.
# Idempotent and incremental: a second run only rebuilds what changed.
# Usage: python/build.sh [--planted-bug NAME --source DIR --target DIR]
#   --planted-bug NAME  plant bug NAME of tests/planted/bugs.tsv in the optimized side (a test-only build)
#   --source DIR        the serdiff tree whose libraries are bound (default: this repository)
#   --target DIR        install the package into DIR instead of the venv (use it with PYTHONPATH=DIR)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$repo/build/python-venv"
planted_bug="" source_dir="$repo" target_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --planted-bug) planted_bug=$2; shift 2 ;;
    --source) source_dir=$(cd "$2" && pwd); shift 2 ;;
    --target) target_dir=$2; shift 2 ;;
    *) echo "usage: $0 [--planted-bug NAME --source DIR --target DIR]" >&2; exit 2 ;;
  esac
done

# Debian's interpreter, its venv module and its headers (the extension compiles against them).
missing=()
for package in python3-venv python3-dev; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "python/build.sh: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# The same lock as differential/oracles/core/install.sh, which creates and fills the same venv: one creation at a time.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.core-install.lock"
flock 9
# A venv is complete only with its pip (venv installs pip last): one left without it by an interrupted creation is
# made again, not used.
if [ ! -x "$venv/bin/python" ] || [ ! -x "$venv/bin/pip" ]; then
  echo "python/build.sh: creating $venv" >&2
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
fi
if ! cmp -s "$repo/python/requirements.txt" "$venv/.serdiff-requirements"; then
  echo "python/build.sh: installing python/requirements.txt" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$repo/python/requirements.txt"
  cp "$repo/python/requirements.txt" "$venv/.serdiff-requirements"
fi
# Released before core/install.sh, which takes the same lock.
flock -u 9
exec 9>&-

# Bitcoin Core's kernel library for the properties' fourth implementation (pinned by hash; python/serdiff/core.py).
# Without PyPI it cannot be installed: the properties then skip Core and say why; everything else runs.
"$repo/differential/oracles/core/install.sh" "$venv" ||
  echo "python/build.sh: Bitcoin Core (py-bitcoinkernel) not installed: test_core_properties.py will be skipped" >&2

build_dir="$repo/build/python-extension"
options=(--config-settings="cmake.define.SERDIFF_SOURCE_DIR=$source_dir")
if [ -n "$planted_bug" ]; then
  build_dir="$repo/build/python-extension-planted-$planted_bug"
  options+=(--config-settings="cmake.define.SERDIFF_PLANTED_BUG=$planted_bug")
fi
[ -n "$target_dir" ] && options+=(--target "$target_dir" --upgrade)
echo "python/build.sh: building the extension in $build_dir${planted_bug:+ (planted bug: $planted_bug)}" >&2
# clang-19 like the rest of the project; the build tree is kept, so rebuilds are incremental.
CC=${CC:-clang-19} CXX=${CXX:-clang++-19} "$venv/bin/pip" install -q --disable-pip-version-check \
  --no-build-isolation --no-deps --config-settings="build-dir=$build_dir" "${options[@]}" "$repo/python"
