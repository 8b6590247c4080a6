#!/usr/bin/env python3
"""ctest fuzz_afl_environment: make fuzz ENGINE=afl hands afl-fuzz an environment it starts with. afl-fuzz refuses
ASAN_OPTIONS without abort_on_error=1 and symbolize=0 before it looks at the target, and make fuzz always sets
ASAN_OPTIONS (tools/fuzz/run.py sanitizer_environment). Both are run through Debian's afl-fuzz against /bin/true:
run.py's own environment must get past that check (to the binary check: "No instrumentation detected"), and the
sanitizer environment alone must not (the check this test relies on does fire)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "fuzz"))
import run  # noqa: E402

REFUSAL = "Custom ASAN_OPTIONS set without"


def afl_fuzz_output(environment):
    with tempfile.TemporaryDirectory() as scratch:
        seeds = Path(scratch) / "in"
        seeds.mkdir()
        (seeds / "seed").write_bytes(b"x")
        result = subprocess.run(["afl-fuzz", "-i", str(seeds), "-o", str(Path(scratch) / "out"), "-V", "1", "--",
                                 "/bin/true"], env=environment, capture_output=True, timeout=60, cwd=scratch)
        return (result.stdout + result.stderr).decode(errors="replace")


@unittest.skipUnless(shutil.which("afl-fuzz"), "afl-fuzz is not installed (Debian afl++)")
class AflEnvironment(unittest.TestCase):
    def test_make_fuzz_environment_passes_afl_fuzz_option_check(self):
        output = afl_fuzz_output(run.afl_environment(run.sanitizer_environment()))
        self.assertNotIn(REFUSAL, output)
        self.assertIn("No instrumentation detected", output)

    def test_sanitizer_environment_alone_is_refused(self):
        environment = {**run.sanitizer_environment(), "AFL_NO_UI": "1", "AFL_SKIP_CPUFREQ": "1"}
        self.assertIn(REFUSAL, afl_fuzz_output(environment))

    def test_user_options_still_come_last(self):
        os.environ["ASAN_OPTIONS"] = "detect_leaks=0"
        try:
            options = run.afl_environment(run.sanitizer_environment())["ASAN_OPTIONS"].split(":")
        finally:
            del os.environ["ASAN_OPTIONS"]
        self.assertEqual(options[:2], ["abort_on_error=1", "symbolize=0"])
        self.assertEqual(options[-1], "detect_leaks=0")


if __name__ == "__main__":
    unittest.main()
