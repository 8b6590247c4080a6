#!/usr/bin/env python3
"""ctest fuzz_planted_core_check: `tools/fuzz/planted.py --check`'s half for the defects planted in Bitcoin Core's
own files (tests/planted/core/) passes on the real manifest and fires on each way it can drift: a patch without a
row, a row without a patch, a patch that changes another file than its row says, a header that disagrees with its
row, a detector that is no fuzz target; and `planted.py --check` exits 1 on such a drift."""
import contextlib
import io
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "fuzz"))
import planted  # noqa: E402

PATCH = """# Core file: src/serialize.h, WriteCompactSize
# Detector:  compact_size (the encode side)
--- a/src/serialize.h
+++ b/src/serialize.h
@@ -1,1 +1,1 @@
-old
+new
"""


class CoreDefectsWired(unittest.TestCase):
    def setUp(self):
        self.saved = planted.CORE_DEFECTS, planted.CORE_MANIFEST
        self.directory = Path(tempfile.mkdtemp())
        planted.CORE_DEFECTS, planted.CORE_MANIFEST = self.directory, self.directory / "defects.tsv"

    def tearDown(self):
        planted.CORE_DEFECTS, planted.CORE_MANIFEST = self.saved
        shutil.rmtree(self.directory)

    def problems(self, rows, patches):
        planted.CORE_MANIFEST.write_text("# comment\n" + "".join("\t".join(row) + "\n" for row in rows))
        for name, text in patches.items():
            (self.directory / f"{name}.patch").write_text(text)
        return planted.check_core()

    def test_the_real_manifest_is_wired(self):
        planted.CORE_DEFECTS, planted.CORE_MANIFEST = self.saved
        self.assertEqual(planted.check_core(), [])
        self.assertGreaterEqual(len(planted.core_defects()), 6)

    def test_agreeing_rows_and_patches_pass(self):
        self.assertEqual(self.problems([("a", "src/serialize.h", "compact_size", "x")], {"a": PATCH}), [])

    def test_each_drift_is_reported(self):
        problems = self.problems(
            [("no_patch", "src/serialize.h", "compact_size", "x"),
             ("other_file", "src/streams.h", "compact_size", "x"),
             ("other_target", "src/serialize.h", "varint", "x"),
             ("no_target", "src/serialize.h", "no_such_target", "x")],
            {"no_row": PATCH, "other_file": PATCH, "other_target": PATCH,
             "no_target": PATCH.replace("compact_size", "no_such_target")})
        text = "\n".join(problems)
        self.assertIn("no_row.patch is not a row of defects.tsv", text)
        self.assertIn("Core defect no_patch: no ", text)
        self.assertIn("Core defect other_file: its patch changes src/serialize.h, the manifest says src/streams.h",
                      text)
        self.assertIn("Core defect other_target: the patch's header says src/serialize.h / compact_size, "
                      "the manifest src/serialize.h / varint", text)
        self.assertIn("Core defect no_target: detector no_such_target is not a fuzz target", text)
        self.assertEqual(len(problems), 6, text)  # other_file: its +++ line and its header both disagree

    def test_the_check_fails_on_a_drift(self):
        # planted.py --check (check()) on the scratch manifest: the serdiff half passes, the Core half fails.
        self.problems([], {"stray": PATCH})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(planted.check(), 1)
        self.assertIn("stray.patch is not a row of defects.tsv", out.getvalue())

if __name__ == "__main__":
    unittest.main()
