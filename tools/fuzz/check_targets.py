#!/usr/bin/env python3
"""Checks that no fuzz target is forgotten (ctest fuzz_target_list):
  - every required target (plus the peer targets) is registered (`serdiff_fuzz_replay --list`);
  - every object codec in serialize/codec.h (decode_<name>) has a target;
  - every registered target has committed seeds in corpora/<target>/.

  tools/fuzz/check_targets.py build/asan/bin/serdiff_fuzz_replay
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Issue 4's list, in its order, and the peer targets (differential/oracles/).
REQUIRED_TARGETS = ["compact_size", "varint", "primitive_stream", "transaction", "block_header", "block",
                    "block_locator", "block_undo", "size_computer", "obfuscation", "buffered_writer",
                    "buffered_reader", "block_store", "peer_transaction", "peer_block"]

# decode_<codec> in serialize/codec.h → the target that decodes arbitrary bytes with it.
CODEC_TARGETS = {"compactsize": "compact_size", "varint": "varint", "transaction": "transaction",
                 "header": "block_header", "block": "block", "locator": "block_locator",
                 "block_undo": "block_undo"}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    registered = set(subprocess.run([sys.argv[1], "--list"], check=True, capture_output=True,
                                    text=True).stdout.split())
    problems = []
    for target in REQUIRED_TARGETS:
        if target not in registered:
            problems.append(f"target {target} (required) is not registered")
    codecs = re.findall(r"\bdecode_(\w+)\(", (ROOT / "serialize" / "codec.h").read_text())
    if not codecs:
        problems.append("no decode_<name> found in serialize/codec.h (did the facade change?)")
    for codec in codecs:
        target = CODEC_TARGETS.get(codec)
        if target is None:
            problems.append(f"codec decode_{codec} has no target: add one and map it in CODEC_TARGETS")
        elif target not in registered:
            problems.append(f"codec decode_{codec}: its target {target} is not registered")
    for target in sorted(registered):
        corpus = ROOT / "corpora" / target
        if not corpus.is_dir() or not any(corpus.iterdir()):
            problems.append(f"target {target} has no seeds in corpora/{target}/ (make corpora)")
    extra = sorted(registered - set(REQUIRED_TARGETS))
    print(f"check_targets: {len(registered)} registered, {len(REQUIRED_TARGETS)} required, "
          f"{len(codecs)} codecs" + (f"; also registered: {' '.join(extra)}" if extra else ""))
    for problem in problems:
        print(f"  FAIL {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
