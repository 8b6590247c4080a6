#!/usr/bin/env bash
# Installs every Debian 12 package serdiff needs; does nothing when all are present (idempotent).
# Usage: ci/install-deps.sh [--check]   (--check: exit 1 listing what is missing, install nothing)
set -euo pipefail

packages=(
  cmake ninja-build make git python3 python3-venv pkg-config
  clang-19 libclang-rt-19-dev libfuzzer-19-dev llvm-19   # compiler, sanitizers, libFuzzer, llvm-cov
  g++                                                    # the second compiler
  libgtest-dev                                           # unit tests
  libssl-dev libsecp256k1-dev                            # SHA-256 (OpenSSL), EC key decompression
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  echo "missing packages: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
