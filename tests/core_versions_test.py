#!/usr/bin/env python3
"""ctest core_versions_logic: tools/core_versions.py (make core-versions) without building anything: the manifest
of trees (every row a package version, a Core version and a sha256; the pinned tree's hash equal to sdist.txt's),
the first compiler error of a build log, the first report of a failing run, and the matrix table."""
import re
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import core_versions  # noqa: E402


class Manifest(unittest.TestCase):
    def test_five_trees_and_the_pinned_hash(self):
        rows = core_versions.manifest()
        self.assertEqual([r[0] for r in rows], ["0.1.0a1", "0.1.0a2", "0.1.0a3", "0.1.0a4", "0.1.0a5"])
        self.assertEqual([r[1] for r in rows], ["28.99", "28.99", "29.99", "30.99", "31.99"])
        pinned = re.search(r"sha256:([0-9a-f]{64})", (ROOT / "subjects/core/sdist.txt").read_text()).group(1)
        self.assertEqual(dict((r[0], r[2]) for r in rows)["0.1.0a5"], pinned)

    def test_a_bad_row_is_refused_with_its_line(self):
        with tempfile.TemporaryDirectory() as directory:
            bad = Path(directory) / "versions.tsv"
            bad.write_text("# comment\n0.1.0a1\t28.99\tnot-a-hash\n")
            saved, core_versions.VERSIONS = core_versions.VERSIONS, bad
            try:
                with self.assertRaises(SystemExit) as stop:
                    core_versions.manifest()
            finally:
                core_versions.VERSIONS = saved
        self.assertIn("versions.tsv:2", str(stop.exception))


class Reports(unittest.TestCase):
    def test_first_compiler_error(self):
        log = ("[1/9] Building CXX object a.o\nFAILED: subjects/core/subject.cpp.o\nIn file included from x.h:3:\n"
               "/w/subjects/core/subject_streams.h:22:10: fatal error: 'util/obfuscation.h' file not found\n"
               "/w/other.cpp:1:1: error: later\n")
        self.assertEqual(core_versions.first_error(log),
                         "/w/subjects/core/subject_streams.h:22:10: fatal error: 'util/obfuscation.h' file not found")
        self.assertEqual(core_versions.first_error("no errors\nlast line\n"), "last line")

    def test_first_report_of_a_failing_run(self):
        text = ("INFO: seed\n\n==== serdiff MISMATCH in primitive_stream SpanReader read: values differ ====\n"
                "SUMMARY: libFuzzer: deadly signal\n")
        self.assertEqual(core_versions.first_report(text), "primitive_stream SpanReader read: values differ")
        self.assertEqual(core_versions.first_report("x\nSUMMARY: AddressSanitizer: heap-buffer-overflow a.cpp:3\n"),
                         "AddressSanitizer: heap-buffer-overflow a.cpp:3")

    def test_a_difference_from_base_names_the_observation(self):
        text = ("\n==== serdiff MISMATCH in compact_size (HEAD vs BASE): HEAD differs from BASE ====\n"
                "observation 0 of the target: compact_size(range check) decode\n"
                "HEAD: \"accepted, consumed 1\"\nBASE: \"`ccepted, consumed 1\"\nreference: \"accepted\"\n")
        what = core_versions.first_report(text)
        self.assertEqual(what, 'compact_size (HEAD vs BASE): compact_size(range check) decode: '
                               'HEAD "accepted, consumed 1", BASE "`ccepted, consumed 1"')
        self.assertEqual(core_versions.cell({"state": "finding", "what": what}), "**changed**: " + what)
        self.assertEqual(core_versions.cell({"state": "finding", "what": "varint: values differ"}),
                         "**finding**: varint: values differ")


class Table(unittest.TestCase):
    def test_cells(self):
        results = {"trees": {
            "0.1.0a3": {"core": "29.99", "build_error": "subject_streams.h:22: fatal error: no obfuscation.h",
                        "targets": {}},
            "0.1.0a4": {"core": "30.99", "targets": {
                "varint": {"state": "agrees"},
                "block_store": {"state": "absent", "reason": "serdiff-only"},
                "primitive_stream": {"state": "finding", "what": "SpanReader read: values differ"}}}}}
        table = core_versions.render(results)
        self.assertIn("| target | 0.1.0a3 (Core 29.99) | 0.1.0a4 (Core 30.99) |", table)
        self.assertIn("| varint | does not build | agrees |", table)
        self.assertIn("| block_store | does not build | absent [1] |", table)
        self.assertIn("[1] serdiff-only", table)
        self.assertIn("| primitive_stream | does not build | **finding**: SpanReader read: values differ |", table)
        self.assertIn("- 0.1.0a3: does not build: `subject_streams.h:22: fatal error: no obfuscation.h`", table)

    def test_unknown_version_is_a_usage_error(self):
        self.assertEqual(core_versions.main(["--versions", "0.1.0a9"]), 2)


if __name__ == "__main__":
    unittest.main()
