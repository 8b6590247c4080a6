#!/bin/bash -eu
# Builds serdiff's fuzz targets the OSS-Fuzz way (OSS-Fuzz, ClusterFuzzLite, `make oss-fuzz-check`), for both
# subjects: serdiff's serializer (serialize/) and Bitcoin Core's own source (docs/core.md).
#
# SPDX-License-Identifier: MIT (serdiff's licence: LICENSE at the repository root).
# The copy submitted to google/oss-fuzz (projects/serdiff/) is contributed under that repository's licence,
# the Apache License, Version 2.0, http://www.apache.org/licenses/LICENSE-2.0 , whose URL OSS-Fuzz's
# presubmit requires in every build.sh and Dockerfile under projects/.
#
# Input, from OSS-Fuzz's `compile`: $CC $CXX $CFLAGS $CXXFLAGS (sanitizer and coverage flags included)
# and $LIB_FUZZING_ENGINE; the sources in $SRC/serdiff (the working directory), $SRC/secp256k1 (cloned by the
# Dockerfile) and $SRC/bitcoin-core (Core's tree from the pinned py-bitcoinkernel sdist, unpacked by the
# Dockerfile: the build fetches nothing). Output: $OUT/<target> for every target of the serdiff subject and
# $OUT/core_<target> for every target the Core subject builds (one binary per target: the engine entry point
# picks the target from its own file name), each with <name>_seed_corpus.zip, <name>.dict and <name>.options
# from the target's corpus, dictionary and options. Everything else is written under $WORK.

project=$SRC/serdiff
deps=$WORK/deps
core_tree=$SRC/bitcoin-core
if [ ! -f "$core_tree/src/serialize.h" ]; then
  echo "build.sh: no Bitcoin Core tree at $core_tree (the Dockerfile unpacks the pinned sdist there)" >&2
  exit 1
fi

# libsecp256k1 from source with the same flags: MSan needs every library instrumented, and the distro
# packages on OSS-Fuzz's base image are older than the API crypto/ uses. Its three translation units
# build without a configure step (the defaults in src/ecmult.h and src/ecmult_gen.h apply).
secp=$SRC/secp256k1
mkdir -p "$deps/include" "$deps/lib" "$deps/obj"
for unit in secp256k1 precomputed_ecmult precomputed_ecmult_gen; do
  $CC $CFLAGS -I"$secp/include" -I"$secp/src" -c "$secp/src/$unit.c" -o "$deps/obj/$unit.o"
done
rm -f "$deps/lib/libsecp256k1.a"
ar rcs "$deps/lib/libsecp256k1.a" "$deps"/obj/*.o
cp "$secp"/include/*.h "$deps/include/"

# HEAD vs BASE (docs/base.md): a long run of a Core branch against its base (ClusterFuzzLite on a pull request)
# puts BASE's tree at $SERDIFF_CORE_BASE_SRC; each core_* binary then compares every input with BASE too, through
# libcore_base.so, copied to $OUT beside them (the binaries look for it in their own directory). Unset: no BASE.
base_tree=${SERDIFF_CORE_BASE_SRC:-}
if [ -n "$base_tree" ] && [ ! -f "$base_tree/src/serialize.h" ]; then
  echo "build.sh: SERDIFF_CORE_BASE_SRC=$base_tree is not a Bitcoin Core tree (no src/serialize.h)" >&2
  exit 1
fi

# The project: no sanitizer, coverage or -Werror settings of its own (the flags above carry them and a
# newer compiler must not fail the build on a new warning); the peers (Rust, Go, Python) are off, so
# peer_transaction and peer_block run their optimized-vs-reference checks only. Both subjects, Core's from
# $core_tree (compiled with the same flags: its library too is instrumented).
cmake -S "$project" -B "$WORK/build" -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" -DCMAKE_EXE_LINKER_FLAGS="${LDFLAGS:-}" \
  -DSERDIFF_WERROR=OFF -DSERDIFF_BUILD_TESTS=OFF -DSERDIFF_PEERS=OFF \
  -DSERDIFF_SUBJECTS="serdiff;core" -DSERDIFF_CORE_SRC="$core_tree" -DSERDIFF_CORE_BASE_SRC="$base_tree" \
  -DSERDIFF_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DSECP256K1_INCLUDE_DIR="$deps/include" -DSECP256K1_LIBRARY="$deps/lib/libsecp256k1.a"
cmake --build "$WORK/build" --target serdiff_fuzz_engine core_fuzz_engine -j "$(nproc)"

# One subject's engine binary copied to $OUT/<prefix><target> for every target it builds (--list names only
# those: the Core subject's absent targets are left out), with the target's seeds, dictionary and options.
emit_targets() {
  local engine=$1 prefix=$2 target name flag max_len
  for target in $(FUZZ= "$engine" --list); do
    name=$prefix$target
    cp "$engine" "$OUT/$name"
    if [ -d "$project/corpora/$target" ]; then
      rm -f "$OUT/${name}_seed_corpus.zip"
      (cd "$project/corpora/$target" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
    fi
    if [ -f "$project/corpora/dicts/$target.dict" ]; then
      cp "$project/corpora/dicts/$target.dict" "$OUT/$name.dict"
    fi
    # The longest input worth mutating, as the target declares it (SERDIFF_FUZZ_TARGET options).
    max_len=$(FUZZ= python3 -B "$project/tools/fuzz/run.py" option "$engine" "$target" max_len)
    printf '[libfuzzer]\nmax_len = %s\n' "$max_len" > "$OUT/$name.options"
    # Its own libFuzzer flags (.libfuzzer_flags "-name=value ..."), one "name = value" line each.
    for flag in $(FUZZ= python3 -B "$project/tools/fuzz/run.py" option "$engine" "$target" libfuzzer_flags); do
      flag=${flag#-}
      printf '%s = %s\n' "${flag%%=*}" "${flag#*=}" >> "$OUT/$name.options"
    done
  done
}
emit_targets "$WORK/build/bin/serdiff_fuzz_engine" ""
emit_targets "$WORK/build/bin/core_fuzz_engine" core_
if [ -n "$base_tree" ]; then
  cp "$WORK/build/bin/libcore_base.so" "$OUT/"
fi
