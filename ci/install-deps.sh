#!/usr/bin/env bash
# Installs every Debian 12 package serdiff needs; does nothing when all are present (idempotent).
# Usage: ci/install-deps.sh [--check]   (--check: exit 1 listing what is missing, install nothing)
set -euo pipefail

packages=(
  cmake ninja-build make git python3 python3-venv pkg-config
  clang-19 libclang-rt-19-dev libfuzzer-19-dev llvm-19   # compiler, sanitizers, libFuzzer, llvm-cov
  g++ afl++                                              # the second compiler; AFL++ (runtime, libAFLDriver)
  libgtest-dev                                           # unit tests
  libc++-19-dev libc++abi-19-dev                         # make oss-fuzz-check: OSS-Fuzz compiles with -stdlib=libc++
  libbenchmark-dev valgrind                              # make bench (Google Benchmark), make bench-callgrind
  libssl-dev libsecp256k1-dev                            # SHA-256 (OpenSSL), EC key decompression
  python3-dev python3-pip                                # python-bitcoinlib peer: embedded libpython, pip
  chromium                                               # make test's HTML page test (ctest html_report)
  ccache                                                 # make mutate: a header mutant's restore rebuilds from cache
  libclang1-19                                           # make mutate's schemata planner (PyPI clang bindings)
  libboost-dev                                           # the Core subject's block_store: Boost headers validation.h includes
)

# The rust-bitcoin and btcd peers (differential/oracles/) need cargo and go, which the project's machines
# have preinstalled (Debian's are too old); without them CMake builds with SERDIFF_PEERS=OFF and says so.
for tool in cargo go; do
  if ! command -v "$tool" >/dev/null && [ ! -x "$HOME/.cargo/bin/$tool" ] && [ ! -x "/usr/local/go/bin/$tool" ]; then
    echo "install-deps: $tool not found: the peer implementations will be left out (SERDIFF_PEERS=OFF)" >&2
  fi
done

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
