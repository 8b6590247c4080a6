#!/usr/bin/env python3
"""Checks that no fuzz target is forgotten (ctest fuzz_target_list), from the targets' own declarations
(`--list --json`; the options are written once, in SERDIFF_FUZZ_TARGET):
  - every type of the codec table (model/codec_table.h, `--list-types`) is covered by a target (its `codec`
    option);
  - no codec is claimed twice, and no target claims a codec that does not exist;
  - every registered target has committed seeds in corpora/<target>/ and a sane max_len;
  - with --same-targets-as OTHER (a binary of another subject): every target of OTHER is built here or listed
    as absent with a reason (subjects/core/absent_targets.tsv), and nothing absent is unknown to OTHER.

  tools/fuzz/check_targets.py build/asan/bin/serdiff_fuzz_replay
  tools/fuzz/check_targets.py build/asan/bin/core_fuzz_replay --same-targets-as build/asan/bin/serdiff_fuzz_replay
"""
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (target_options: the binary's --list --json)

ROOT = Path(__file__).resolve().parents[2]


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--same-targets-as"):
        sys.exit(__doc__)
    targets = run.target_options(sys.argv[1])
    problems = []
    if len(sys.argv) == 4:
        absent = run.absent_targets(sys.argv[1])
        other = run.target_options(sys.argv[3])
        for name in sorted(other):
            if name not in targets and name not in absent:
                problems.append(f"target {name} of {sys.argv[3]} is neither built nor listed as absent")
        for name, reason in sorted(absent.items()):
            if name not in other:
                problems.append(f"absent target {name} is not a target of {sys.argv[3]}")
            if not reason.strip():
                problems.append(f"absent target {name} gives no reason")
        print(f"check_targets: {len(targets)} built, {len(absent)} absent with a reason, of {len(other)}")
    codecs = subprocess.run([sys.argv[1], "--list-types"], check=True, capture_output=True, text=True,
                            env={**os.environ, "FUZZ": ""}).stdout.split()
    if not codecs:
        problems.append("the binary lists no types (--list-types)")
    claimed = {}
    for name, options in targets.items():
        codec = options["codec"]
        if not codec:
            continue
        if codec not in codecs:
            problems.append(f"target {name} claims codec {codec}, which the codec table does not have")
        if codec in claimed:
            problems.append(f"codec {codec} claimed by both {claimed[codec]} and {name}")
        claimed.setdefault(codec, name)
    for codec in codecs:
        if codec not in claimed:
            problems.append(f"type {codec} has no target: add one with .codec = \"{codec}\"")
    for name, options in sorted(targets.items()):
        corpus = ROOT / "corpora" / name
        if not corpus.is_dir() or not any(corpus.iterdir()):
            problems.append(f"target {name} has no seeds in corpora/{name}/ (make corpora)")
        if not 1 <= options["max_len"] <= 4 << 20:
            problems.append(f"target {name}: max_len {options['max_len']} outside 1..4 MiB")
    print(f"check_targets: {len(targets)} registered, {len(codecs)} codecs, each covered by one target")
    for problem in problems:
        print(f"  FAIL {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
