#!/usr/bin/env python3
"""ctest fuzz_provenance_check_fires: tools/fuzz/provenance.py finds a piece of ../shared/data inside a fuzzer
input (also after mutations between long runs) and passes inputs that hold none: what keeps make
corpus-merge from committing pieces of the real data."""
import random
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "fuzz"))
import provenance  # noqa: E402

INDEX = None


def block_bytes():
    return sorted((provenance.SHARED_DATA / "blocks").glob("*.raw"))[0].read_bytes()


class Provenance(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global INDEX
        INDEX = INDEX or provenance.Index()

    def test_a_piece_of_a_block_inside_other_bytes_is_found(self):
        rng = random.Random(1)
        block = block_bytes()
        for _ in range(50):
            start = rng.randrange(len(block) - 200)
            piece = block[start:start + rng.randrange(47, 200)]
            prefix = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 100)))
            self.assertIsNotNone(INDEX.find(prefix + piece + b"\x00" * 10),
                                 f"{len(piece)} bytes of the block at {start} not found")

    def test_a_mutated_transaction_is_still_found(self):
        # A real stretch with a byte changed every 60 bytes: a run of 59 stays intact between changes.
        block = bytearray(block_bytes()[500_000:501_000])
        for offset in range(0, len(block), 60):
            block[offset] ^= 0xff
        self.assertIsNotNone(INDEX.find(bytes(block)))

    def test_inputs_without_shared_data_pass(self):
        rng = random.Random(2)
        self.assertIsNone(INDEX.find(bytes(rng.randrange(256) for _ in range(65536))))
        self.assertIsNone(INDEX.find(b"\x00" * 4096 + b"\xff" * 4096))  # low-entropy runs are not indexed


if __name__ == "__main__":
    if not (provenance.SHARED_DATA / "blocks").is_dir():
        print(f"provenance_test: {provenance.SHARED_DATA} absent")
        sys.exit(1)
    unittest.main()
