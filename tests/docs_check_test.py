#!/usr/bin/env python3
"""ctest docs_check_fires: tools/docs_check.py passes on a copy of this tree's docs and fails, naming the file and
line, on each kind of drift: a renamed make target, a renamed or misspelt make variable, a broken link, a broken anchor, a
serdiff option the CLI does not have, a fuzz target renamed in the code (a fuzz binary whose --list --json
calls `varint` something else) or misspelt in a doc, a word about how a page was made, a tracker's number in a text
or file name, a long table cell, and a number that disagrees with its record (either side changed, or its sentence
gone).

  tests/docs_check_test.py --serdiff build/asan/bin/serdiff --fuzz-binary build/asan/bin/serdiff_fuzz_replay
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "tools" / "docs_check.py"
ARGS = None


class DocsCheck(unittest.TestCase):
    def setUp(self):
        self.scratch = Path(tempfile.mkdtemp(prefix="docs_check_test."))
        self.tree = self.scratch / "tree"
        self.tree.mkdir()
        for name in ("README.md", "CHANGELOG.md", "Makefile", "LICENSE"):
            if (ROOT / name).exists():
                shutil.copy(ROOT / name, self.tree / name)
        shutil.copytree(ROOT / "docs", self.tree / "docs")
        # The records the docs' numbers are checked against (tools/docs_check.py RECORD_RULES).
        for record in ("tools/mutate/results", "tests/planted/bugs.tsv", "tests/planted/core/defects.tsv",
                       "subjects/core/absent_targets.tsv", "subjects/core/versions-matrix.json",
                       "subjects/core/versions-consecutive.json", "bench/records"):
            (self.tree / record).parent.mkdir(parents=True, exist_ok=True)
            if (ROOT / record).is_dir():
                shutil.copytree(ROOT / record, self.tree / record)
            else:
                shutil.copy(ROOT / record, self.tree / record)
        self.fuzz_binary = ARGS.fuzz_binary

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def run_check(self):
        result = subprocess.run([sys.executable, str(CHECK), "--serdiff", ARGS.serdiff,
                                 "--fuzz-binary", self.fuzz_binary, str(self.tree)],
                                capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr

    def edit(self, relative, old, new, count=1):
        path = self.tree / relative
        text = path.read_text(encoding="utf-8")
        self.assertIn(old, text, f"{relative} no longer holds {old!r}: update this test")
        path.write_text(text.replace(old, new, count), encoding="utf-8")

    def assert_fails(self, *expected):
        code, output = self.run_check()
        self.assertEqual(code, 1, output)
        for text in expected:
            self.assertIn(text, output)

    def test_passes_on_the_real_docs(self):
        code, output = self.run_check()
        self.assertEqual(code, 0, output)
        self.assertIn("0 problem(s)", output)

    def test_renamed_make_target(self):
        self.edit("Makefile", "\nfuzz-bench: deps", "\nfuzz-benchmark: deps")
        self.edit("Makefile", "fuzz-build fuzz-bench corpus-merge", "fuzz-build fuzz-benchmark corpus-merge")
        self.assert_fails("README.md:", "make target 'fuzz-bench' is not a rule of the Makefile")

    def test_renamed_make_variable(self):
        self.edit("Makefile", "MINIMIZE_SECONDS", "MINIMIZE_TIME", count=-1)
        self.assert_fails("docs/triage.md:", "make variable MINIMIZE_SECONDS is not in the Makefile")

    def test_misspelt_make_variable(self):
        self.edit("README.md", "make mutate SAMPLE=40", "make mutate SAMPLES=40")
        self.assert_fails("README.md:", "make variable SAMPLES is not in the Makefile")

    def test_broken_link(self):
        self.edit("README.md", "](docs/mutation.md)", "](docs/mutations.md)")
        self.assert_fails("README.md:", "broken link: docs/mutations.md")

    def test_broken_anchor(self):
        self.edit("docs/fuzzing.md", "## Corpora", "## Seed corpora")
        self.assert_fails("README.md:", "no heading with anchor #corpora in docs/fuzzing.md")

    def test_serdiff_option_the_cli_lacks(self):
        self.edit("README.md", "serdiff blockfile scan --verify", "serdiff blockfile scan --verify-all")
        self.assert_fails("README.md:", "serdiff blockfile: option --verify-all is not in its --help")

    def test_serdiff_option_in_a_synopsis(self):
        self.edit("README.md", "[--impl optimized|reference|both|all] [--hex HEX", "[--impl optimized|reference|both|all] [--hexa HEX")
        self.assert_fails("README.md:", "serdiff inspect: option --hexa is not in its --help")

    def test_serdiff_command_the_cli_lacks(self):
        self.edit("README.md", "serdiff blockfile import", "serdiff blockfile ingest")
        self.assert_fails("README.md:", "'ingest' does not appear in serdiff blockfile --help")

    def test_dated_section_issue_number_and_long_page(self):
        self.edit("docs/bench.md", "## History", "## 2026-11-26 (sixth): a later run\n\nAs issue " "12 asked.\n\n## History")
        self.edit("README.md", "## Licence", "## Licence\n" + "\n" * 40)
        self.assert_fails("docs/bench.md:", "a dated section in a reference page", "a tracker issue number",
                          "README.md:151: ")

    def test_process_words_and_issue_numbers_notes_included(self):
        self.edit("docs/notes/2026-11-25-soak.md", "with other builds\n", "with this session's builds\n")
        self.edit("docs/fuzzing.md", "## Corpora", "## Corpora\n\nAs PR #12 asked.\n")
        (self.tree / "docs" / "notes" / "issue30-rerun.json").write_text("{}\n")
        self.assert_fails("docs/notes/2026-11-25-soak.md:", "'session': the docs speak of the project",
                          "docs/fuzzing.md:", "a tracker issue number",
                          "docs/notes/issue30-rerun.json: a file named after a tracker issue")

    def test_upstream_references_pass(self):
        self.edit("docs/fuzzing.md", "## Corpora", "## Corpora\n\nAs bitcoin/bitcoin#36049 fixes.\n")
        code, output = self.run_check()
        self.assertEqual(code, 0, output)

    def test_long_table_cell(self):
        self.edit("docs/findings.md", "| rust-bitcoin | rejects a transaction with no inputs",
                  "| rust-bitcoin | " + "a very long cell " * 30 + "rejects a transaction with no inputs")
        self.assert_fails("docs/findings.md:", "a table cell of 5")

    def test_number_disagreeing_with_its_record(self):
        self.edit("README.md", "17 of 21 targets run on Core's source", "18 of 21 targets run on Core's source")
        self.assert_fails("README.md:", "says 18, 21 where the fuzz binary's --list --json and "
                                        "subjects/core/absent_targets.tsv gives 17, 21")

    def test_record_changed_under_its_sentence(self):
        path = self.tree / "tools/mutate/results/core-heldout.json"
        record = json.loads(path.read_text())
        record["score_after_strengthening"] = 95.0
        path.write_text(json.dumps(record))
        self.assert_fails("README.md:", "where tools/mutate/results/core-heldout.json gives 62.3, 187, 300, 95.0, 213")

    def test_generated_table_stale(self):
        path = self.tree / "subjects/core/versions-matrix.json"
        record = json.loads(path.read_text())
        record["trees"]["0.1.0a1"]["targets"]["varint"] = {"state": "finding", "what": "varint: values differ"}
        path.write_text(json.dumps(record))
        self.assert_fails("docs/core.md: its table of subjects/core/versions-matrix.json is not what "
                          "`tools/core_versions.py --render subjects/core/versions-matrix.json` prints")

    def test_bench_tables_stale_or_without_record(self):
        path = self.tree / "bench/records/bench.json"
        record = json.loads(path.read_text())
        record["benchmarks"] = [dict(row, ns_per_op=row["ns_per_op"] * 2) for row in record["benchmarks"]]
        path.write_text(json.dumps(record))
        (self.tree / "bench/records/fuzz-bench-2.json").unlink()
        self.assert_fails("docs/bench.md: its table of bench/records/bench.json is not what "
                          "`bench/report.py summary bench/records/bench.json` prints",
                          "docs/bench.md: its table's record bench/records/fuzz-bench-2.json is missing")

    def test_checked_sentence_gone(self):
        self.edit("README.md", "all 46 defects planted in Core's files", "every defect planted in Core's files")
        self.assert_fails("README.md: no sentence matching the rule for tests/planted/core/defects.tsv")

    def test_fuzz_target_renamed_in_the_code(self):
        # A fuzz binary that lists `varint` as `varint64`: the docs still say varint.
        wrapper = self.scratch / "renamed_fuzz_binary"
        wrapper.write_text("#!/bin/sh\n"
                           f"'{ARGS.fuzz_binary}' \"$@\" | sed 's/\"name\": *\"varint\"/\"name\":\"varint64\"/'\n")
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
        self.fuzz_binary = str(wrapper)
        self.assert_fails("fuzz target 'varint'", "is not in the fuzz binary's --list --json")

    def test_fuzz_target_misspelt_in_a_doc(self):
        self.edit("README.md", 'TARGETS="transaction block"', 'TARGETS="transactions block"')
        self.assert_fails("README.md:", "fuzz target 'transactions' (TARGETS=)")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--serdiff", required=True)
    parser.add_argument("--fuzz-binary", required=True)
    ARGS, rest = parser.parse_known_args()
    ARGS.serdiff = os.path.abspath(ARGS.serdiff)
    ARGS.fuzz_binary = os.path.abspath(ARGS.fuzz_binary)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
