#!/usr/bin/env python3
"""ctest fuzz_triage: the signatures tools/fuzz/triage.py groups crashes by, the crash files it finds and the
targets it guesses, AFL++'s crashing-seed lines, and (with --replay-dir, a tree's bin/ holding
serdiff_fuzz_replay) the whole pipeline on an input that does not crash. The end-to-end proof on a real
planted bug found by two engines is `make triage-check` (a build of its own, too slow for make test)."""
import argparse
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import triage  # noqa: E402

REPLAY_DIR = None


def mismatch(label, details, input_hex="00"):
    return (f"\n==== serdiff MISMATCH in {label} ====\n{details}\ninput (1 bytes): {input_hex}\n"
            "==== end of mismatch report ====\n")


def signature(text, target="t"):
    return triage.classify(target, triage.Replay(reproduced=True, status=1, output=text)).signature


BYTES = ("first difference at offset {offset} (optimized {a} bytes, reference {b} bytes)\n"
         "optimized: [0..] 01 >02<\nreference: [0..] 01 >03<")


class Signatures(unittest.TestCase):
    def test_byte_offsets_group_by_range_and_length_relation(self):
        five = signature(mismatch("x encode: bytes differ", BYTES.format(offset=5, a=9, b=9)))
        six = signature(mismatch("x encode: bytes differ", BYTES.format(offset=6, a=12, b=12)))
        nine = signature(mismatch("x encode: bytes differ", BYTES.format(offset=9, a=12, b=12)))
        shorter = signature(mismatch("x encode: bytes differ", BYTES.format(offset=6, a=6, b=12)))
        self.assertEqual(five, six)
        self.assertEqual(five, "t | x encode: bytes differ | bytes at offset 4-7, same length")
        self.assertNotEqual(five, nine)
        self.assertIn("one a prefix of the other", shorter)
        self.assertNotEqual(signature(mismatch("y encode: bytes differ", BYTES.format(offset=5, a=9, b=9))), five)
        self.assertNotEqual(signature(mismatch("x encode: bytes differ", BYTES.format(offset=5, a=9, b=9)), "u"),
                            five)

    def test_decoded_value_keeps_the_field(self):
        details = ("first difference at character 40 of the printed values (>>> marks it)\n"
                   'optimized: {"version":1,"inputs":[{"sequence":>>>5}]}\n'
                   'reference: {"version":1,"inputs":[{"sequence":>>>6}]}')
        self.assertEqual(signature(mismatch("tx decode: decoded value differs", details)),
                         "t | tx decode: decoded value differs | value field sequence")

    def test_read_trace_keeps_the_operations(self):
        details = ("first differing read: 3\n  (both) #2 read_u8 = 7 @5\n  optimized: #3 read_u32 = 9 @9\n"
                   "  reference: error: end of data")
        self.assertEqual(signature(mismatch("p DataStream read: read values differ", details)),
                         "t | p DataStream read: read values differ | read read_u32 vs error: end of data")

    def test_accept_reject_messages_lose_their_numbers(self):
        a = signature(mismatch("d decode: accept/reject differs", 'optimized accepted\nreference rejected: "size 12"'))
        b = signature(mismatch("d decode: accept/reject differs", 'optimized accepted\nreference rejected: "size 99"'))
        self.assertEqual(a, b)

    def test_ubsan_is_its_location_and_message(self):
        text = ("/src/serialize/serialize.h:236:20: runtime error: shift exponent 64 is too large\n"
                "    #0 0x55 in serdiff::f(int) /src/serialize/serialize.h:236:20\n")
        self.assertEqual(signature(text), "t | UBSan serialize.h:236: shift exponent N is too large")

    def test_asan_is_its_error_type_and_top_frames_outside_the_runtime(self):
        text = ("==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x55\n"
                "    #0 0x55 in __asan_memcpy (/b/bin/x+0x1)\n"
                "    #1 0x56 in serdiff::optimized::read(std::span<unsigned char>) /src/serialize/file.h:10:3\n"
                "    #2 0x57 in serdiff::optimized::decode_block(std::span<unsigned char const>) /src/codec.cpp:5:1\n"
                "    #3 0x58 in serdiff_fuzz_target_block(std::span<unsigned char const>) /src/block.cpp:7\n"
                "    #4 0x59 in serdiff::fuzz::run_target(...) /src/registry.cpp:1\n")
        self.assertEqual(signature(text), "t | AddressSanitizer: heap-buffer-overflow | serdiff::optimized::read < "
                                          "serdiff::optimized::decode_block < serdiff_fuzz_target_block")

    def test_frames_lose_templates_parameters_and_return_types(self):
        text = ("==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x5020\n"
                "    #0 0x56 in serdiff::optimized::SpanReader::read_byte() /w/serialize/streams.h:138:55\n"
                "    #1 0x56 in T0 serdiff::optimized::ReadVarInt<(serdiff::optimized::VarIntMode)0, unsigned long, "
                "serdiff::optimized::SpanReader>(serdiff::optimized::SpanReader&) /w/serialize/serialize.h:280:53\n"
                "    #2 0x56 in _ZZZN7serdiff9optimized13decode_varintESt4spanIKhLm18446744073709551615EENS_5model7"
                "IntKindEENK3$_0clIhEEDaT_ENKUlRNS0_10SpanReaderERmE_clESA_SB_ /w/serialize/codec.cpp:106:43\n")
        self.assertEqual(triage.top_frames(text), ["serdiff::optimized::SpanReader::read_byte",
                                                   "serdiff::optimized::ReadVarInt",
                                                   "serdiff::optimized::decode_varint (inner)"])

    def test_no_report(self):
        replay = triage.classify("t", triage.Replay(reproduced=False, status=0, output="ok\n"))
        self.assertEqual(replay.kind, "other")
        self.assertIn("does not reproduce", replay.signature)


class CrashFiles(unittest.TestCase):
    def test_finds_crashes_and_guesses_targets(self):
        targets = {"varint": {}, "compact_size": {}, "block": {}, "block_undo": {}}
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            files = {
                "artifacts/varint/crash-aa": ("varint", "libfuzzer"),
                "afl-out/compact_size/default/crashes/id:000000,sig:06,src:000001": ("compact_size", "afl"),
                "oss-fuzz/clusterfuzz-testcase-minimized-block_undo-5012": ("block_undo", ""),
                "fuzz-out/crashes/block/afl-seed-crash-bb": ("block", "afl"),
                "elsewhere/crash-cc": (None, "libfuzzer"),
            }
            for name in list(files) + ["afl-out/compact_size/default/queue/id:000001,time:0",
                                       "afl-out/compact_size/default/crashes/README.txt", "artifacts/varint/notes"]:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_bytes(b"\x01")
            crashes, unknown = triage.find_crashes([root], targets)
            found = {str(c.path.relative_to(root.resolve())): (c.target, c.engine) for c in crashes}
            self.assertEqual(found, {k: v for k, v in files.items() if v[0]})
            self.assertEqual([p.name for p in unknown], ["crash-cc"])
            self.assertTrue(next(c for c in crashes if c.target == "block").from_seeds)
            crashes, unknown = triage.find_crashes([root / "elsewhere"], targets, "varint")
            self.assertEqual([(c.path.name, c.target) for c in crashes], [("crash-cc", "varint")])

    def test_afl_crashing_seeds_from_its_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            seeds = Path(tmp) / "in"
            seeds.mkdir()
            (seeds / "df254d").write_bytes(b"\x80\x00")
            (seeds / "fine").write_bytes(b"\x00")
            log = Path(tmp) / "afl.log"
            log.write_text("\x1b[1;93m[!] WARNING: \x1b[0mTest case 'id:000004,time:0,execs:0,orig:df254d' "
                           "results in a crash, skipping\x1b[0m\n")
            self.assertEqual(triage.afl_crashing_seeds(log, seeds), [seeds / "df254d"])
            crashes = Path(tmp) / "crashes"
            triage.harvest_afl_seed_crashes(log, seeds, crashes)
            self.assertEqual([p.name[:15] for p in crashes.iterdir()], ["afl-seed-crash-"])
            self.assertTrue(triage.found_replaying_seeds("afl", log, [p.name for p in crashes.iterdir()]))
            self.assertFalse(triage.found_replaying_seeds("afl", log, ["afl-crash-1", "afl-seed-crash-2"]))

    def test_libfuzzer_seed_replay_is_a_crash_before_inited(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "l.log"
            log.write_text("INFO: seed corpus: files: 34\n==1== ERROR: libFuzzer: deadly signal\n")
            self.assertTrue(triage.found_replaying_seeds("libfuzzer", log, ["crash-1"]))
            log.write_text("#34\tINITED cov: 237 ft: 346 corp: 34/1Kb\n#40\tNEW cov: 240\n==1== ERROR: libFuzzer\n")
            self.assertFalse(triage.found_replaying_seeds("libfuzzer", log, ["crash-1"]))


class Pipeline(unittest.TestCase):
    def test_an_input_that_does_not_crash_is_one_unreproduced_finding(self):
        if REPLAY_DIR is None:
            self.skipTest("no --replay-dir")
        with tempfile.TemporaryDirectory() as tmp:
            crash = Path(tmp) / "varint" / "crash-1"
            crash.parent.mkdir()
            crash.write_bytes(bytes.fromhex("8000"))
            tools = triage.Tools(REPLAY_DIR)
            crashes, _ = triage.find_crashes([Path(tmp)], tools.options())
            findings = triage.triage(crashes, tools, 5, Path(tmp) / "out", progress=lambda _: None)
            self.assertEqual(len(findings), 1)
            self.assertFalse(findings[0].replay.reproduced)
            self.assertIn("does not reproduce", findings[0].signature)
            self.assertEqual(findings[0].minimized_bytes, bytes.fromhex("8000"))
            self.assertTrue((findings[0].directory / "minimized").exists())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--replay-dir", default=None)
    arguments, rest = parser.parse_known_args()
    REPLAY_DIR = arguments.replay_dir
    unittest.main(argv=[sys.argv[0]] + rest)
