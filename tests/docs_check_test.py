#!/usr/bin/env python3
"""ctest docs_check_fires: tools/docs_check.py passes on a copy of this tree's docs and fails, naming the file and
line, on each kind of drift: a renamed make target, a renamed or misspelt make variable, a broken link, a broken anchor, a
serdiff option the CLI does not have, and a fuzz target renamed in the code (a fuzz binary whose --list --json
calls `varint` something else) or misspelt in a doc.

  tests/docs_check_test.py --serdiff build/asan/bin/serdiff --fuzz-binary build/asan/bin/serdiff_fuzz_replay
"""
import argparse
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
