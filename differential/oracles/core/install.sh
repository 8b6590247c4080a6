#!/usr/bin/env bash
# Installs the pinned py-bitcoinkernel wheel (requirements.txt, hash-checked) into a venv, creating the venv
# with Debian's python3 when it does not exist yet (as python/build.sh does). Idempotent; serialised with a
# lock, since CMake builds and python/build.sh may both call it.
# Usage: differential/oracles/core/install.sh VENV_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
venv=${1:?usage: install.sh VENV_DIR}
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.core-install.lock"
flock 9
# A venv is complete only with its pip (venv installs pip last): one left without it by an interrupted creation is
# made again, not used.
if [ ! -x "$venv/bin/python" ] || [ ! -x "$venv/bin/pip" ]; then
  echo "core/install.sh: creating $venv" >&2
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
fi
stamp="$venv/.serdiff-core-requirements"
if cmp -s "$here/requirements.txt" "$stamp" && [ -d "$venv/lib" ] &&
   compgen -G "$venv/lib/python3*/site-packages/pbk/_libs/libbitcoinkernel.so" >/dev/null; then
  exit 0
fi
echo "core/install.sh: installing py-bitcoinkernel (pinned by hash) into $venv" >&2
if ! PIP_ROOT_USER_ACTION=ignore "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
       --require-hashes --only-binary=:all: -r "$here/requirements.txt"; then
  echo "core/install.sh: could not install py-bitcoinkernel from PyPI: the Bitcoin Core peer needs it" \
       "(or configure with -DSERDIFF_CORE_PEER=OFF)" >&2
  exit 1
fi
cp "$here/requirements.txt" "$stamp"
