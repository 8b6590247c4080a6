#!/usr/bin/env python3
"""Does a file hold a piece of ../shared/data? The real-data files may be read at test and fuzz time but never
committed, nor pieces cut from them; a fuzzer input grown from a real-data seed (make fuzz gives those seeds
to the targets with real_data_seeds) carries long runs of its bytes. `make corpus-merge` keeps such inputs
out of corpora/, and ctest `corpora_hold_no_shared_data` checks every committed corpus file.

A file holds shared data when WINDOW (32) bytes of it equal WINDOW bytes of a shared file (the raw blocks and
transactions, and every hex string of 64 or more digits in the .hex and .json files, decoded) that start at a
multiple of STRIDE (16) there: so every common run of 47 bytes or more is found. Windows with fewer than 4
distinct byte values (zero hashes, padding, repeated bytes a generator also writes) are not indexed.

  tools/fuzz/provenance.py [--data DIR] PATH...   # files or directories; exit 1 when any file holds shared data
"""
import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("SERDIFF_DATA_DIR") or ROOT.parent / "shared" / "data")
WINDOW = 32
STRIDE = 16
MIN_DISTINCT = 4
HEX_RUN = re.compile(rb"[0-9a-fA-F]{64,}")


def shared_blobs(data_dir):
    """The byte strings of the shared data: raw files as they are, hex text decoded run by run."""
    for path in sorted(Path(data_dir).rglob("*")):
        if not path.is_file() or path.name == "README.md":
            continue
        content = path.read_bytes()
        if path.suffix in (".hex", ".json"):
            for run in HEX_RUN.findall(content):
                yield bytes.fromhex(run[: len(run) // 2 * 2].decode())
        else:
            yield content


class Index:
    """The WINDOW-byte windows of the shared data at every STRIDE-th offset."""

    def __init__(self, data_dir=SHARED_DATA):
        self.windows = set()
        for blob in shared_blobs(data_dir):
            for start in range(0, len(blob) - WINDOW + 1, STRIDE):
                window = blob[start:start + WINDOW]
                if len(set(window)) >= MIN_DISTINCT:
                    self.windows.add(window)

    def find(self, content):
        """The first offset of `content` where a shared window starts, or None."""
        windows = self.windows
        for offset in range(0, len(content) - WINDOW + 1):
            if content[offset:offset + WINDOW] in windows:
                return offset
        return None


def files_under(paths):
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.is_file())
        else:
            yield path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(SHARED_DATA), help="the shared data directory")
    parser.add_argument("paths", nargs="+")
    arguments = parser.parse_args()
    if not Path(arguments.data, "blocks").is_dir():
        sys.exit(f"provenance: {arguments.data} has no blocks/: nothing to compare against")
    index = Index(arguments.data)
    found = checked = 0
    for path in files_under(arguments.paths):
        checked += 1
        offset = index.find(path.read_bytes())
        if offset is not None:
            found += 1
            print(f"{path}: holds shared data (32 bytes of {arguments.data} at offset {offset})")
    print(f"provenance: {checked} file(s) checked against {len(index.windows):,} windows, {found} hold shared data")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
