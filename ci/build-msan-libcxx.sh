#!/usr/bin/env bash
# Builds an MSan-instrumented libc++/libc++abi from Debian's llvm-toolchain-19 source package, once.
# MSan needs every C++ library call instrumented (libstdc++ gives false positives); the result is
# cached in PREFIX (default build/msan-libcxx) and reused while its stamp file exists.
# Usage: ci/build-msan-libcxx.sh [PREFIX]   (or set SERDIFF_MSAN_LIBCXX to share one build across trees)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-${SERDIFF_MSAN_LIBCXX:-$root/build/msan-libcxx}}
stamp=$prefix/.built-from
if [ -f "$stamp" ]; then
  echo "msan-libcxx: cached at $prefix ($(cat "$stamp"))"
  exit 0
fi

work=$prefix.src
mkdir -p "$work"
cd "$work"
if ! ls llvm-toolchain-19_*.orig.tar.xz >/dev/null 2>&1; then
  if ! grep -rqs "^deb-src .*bookworm" /etc/apt/sources.list /etc/apt/sources.list.d/ &&
     ! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/; then
    echo "msan-libcxx: adding a deb-src entry for bookworm" >&2
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" > /etc/apt/sources.list.d/serdiff-deb-src.list
  fi
  apt-get update -qq
  echo "msan-libcxx: downloading Debian's llvm-toolchain-19 source package" >&2
  apt-get source --download-only llvm-toolchain-19 >/dev/null
fi
tarball=$(ls llvm-toolchain-19_*.orig.tar.xz | head -n1)
srcdir=$work/src
if [ ! -d "$srcdir/runtimes" ]; then
  echo "msan-libcxx: extracting $tarball" >&2
  mkdir -p "$srcdir"
  # head closes the pipe after one line, so tar dies of SIGPIPE: expected, hence `|| true` under pipefail.
  top=$( (tar -tJf "$tarball" || true) | head -n1 | cut -d/ -f1)
  tar -xJf "$tarball" -C "$srcdir" --strip-components=1 \
    "$top/runtimes" "$top/libcxx" "$top/libcxxabi" "$top/libunwind" "$top/cmake" \
    "$top/llvm/cmake" "$top/llvm/utils" "$top/third-party"
fi

echo "msan-libcxx: configuring and building (about 2 minutes on 2 cores)" >&2
cmake -S "$srcdir/runtimes" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DLLVM_ENABLE_RUNTIMES="libcxx;libcxxabi" \
  -DLLVM_USE_SANITIZER=MemoryWithOrigins \
  -DLIBCXXABI_USE_LLVM_UNWINDER=OFF \
  -DLIBCXX_INCLUDE_BENCHMARKS=OFF -DLIBCXX_INCLUDE_TESTS=OFF -DLIBCXXABI_INCLUDE_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
ninja -C "$work/build" cxx cxxabi >/dev/null
ninja -C "$work/build" install-cxx install-cxxabi >/dev/null
echo "$tarball" > "$stamp"
rm -rf "$work/build"
echo "msan-libcxx: installed at $prefix"
