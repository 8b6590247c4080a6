#!/usr/bin/env python3
"""ctest fuzz_bench_compare: tools/fuzz/bench.py --compare, the before/after table of docs/bench.md, on
synthetic fuzz-bench.json files: the ratios and fractions of the ceiling it prints, and a clear error (exit 2,
no traceback) for a file that is missing or is not a fuzz-bench result."""
import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "fuzz"))
import bench  # noqa: E402


def result(ceiling_cpu, targets):
    """A fuzz-bench.json shaped like bench.py writes it: targets {name: (exec/s, exec/CPU-s)}."""
    row = lambda name, rate, cpu: {"target": name, "exec_per_sec": rate, "exec_per_cpu_sec": cpu,  # noqa: E731
                                   "edges": 10, "features": 20, "peak_rss_mb": 100}
    return {"when": "2026-11-25T00:00:00Z", "load_before": [0.5], "load_after": [0.6],
            "machine": {"cpu": "test", "cpus": 2}, "runtime_options": {"ASAN_OPTIONS": "x=0"},
            "ceiling": row("", ceiling_cpu, ceiling_cpu),
            "targets": [row(name, rate, cpu) for name, (rate, cpu) in targets.items()]}


class Compare(unittest.TestCase):
    def run_compare(self, before, after):
        with tempfile.TemporaryDirectory() as directory:
            paths = []
            for name, content in (("before.json", before), ("after.json", after)):
                path = Path(directory) / name
                path.write_text(content if isinstance(content, str) else json.dumps(content))
                paths.append(str(path))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = bench.compare(*paths)
            return status, out.getvalue(), err.getvalue()

    def test_ratios_and_fractions_of_the_ceiling(self):
        status, out, _ = self.run_compare(result(300_000, {"varint": (30_000, 30_000)}),
                                          result(320_000, {"varint": (45_000, 48_000)}))
        self.assertEqual(status, 0)
        row = next(line for line in out.splitlines() if line.startswith("| varint"))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        # exec/s 30,000 → 45,000 (1.5×); per CPU-s 30,000 → 48,000 (1.6×); 10.0% → 15.0% of each run's ceiling.
        self.assertEqual(cells[1:10], ["30,000", "45,000", "1.5", "30,000", "48,000", "1.6", "10.0%", "15.0%",
                                       "10/20"])

    def test_several_runs_per_side_are_merged_by_their_median(self):
        with tempfile.TemporaryDirectory() as directory:
            paths = []
            for i, (ceiling, cpu) in enumerate([(300_000, 20_000), (330_000, 90_000), (310_000, 30_000)]):
                path = Path(directory) / f"after{i}.json"
                path.write_text(json.dumps(result(ceiling, {"varint": (cpu, cpu)})))
                paths.append(str(path))
            merged = bench.load_results(",".join(paths))
        self.assertEqual(merged["ceiling"]["exec_per_cpu_sec"], 310_000)
        varint = merged["targets"][0]
        self.assertEqual((varint["exec_per_cpu_sec"], varint["range"]), (30_000, (20_000, 90_000)))
        self.assertEqual(len(merged["runs"]), 3)

    def test_a_missing_or_foreign_file_is_a_clear_error(self):
        good = result(300_000, {"varint": (30_000, 30_000)})
        for bad in ("{not json", json.dumps([1, 2]), json.dumps({"targets": []})):
            status, out, err = self.run_compare(good, bad)
            self.assertEqual(status, 2)
            self.assertIn("after.json", err)
            self.assertNotIn("Traceback", err)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(bench.compare("/nonexistent/before.json", "/nonexistent/after.json"), 2)
        self.assertIn("/nonexistent/before.json", err.getvalue())


if __name__ == "__main__":
    unittest.main()
