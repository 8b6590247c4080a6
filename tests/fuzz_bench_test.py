#!/usr/bin/env python3
"""ctest fuzz_bench_compare: tools/fuzz/bench.py --compare, the before/after table of docs/bench.md, on
synthetic fuzz-bench.json files: the ratios and fractions of the ceiling it prints, and a clear error (exit 2,
no traceback) for a file that is missing or is not a fuzz-bench result; and the side-by-side rows of
make fuzz-bench SUBJECT=core (Core's exec/CPU-s over serdiff's, against the 0.5x goal)."""
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "tools" / "fuzz" / "bench.py"
sys.path.insert(0, str(BENCH.parent))
import bench  # noqa: E402


def result(ceiling_cpu, targets, from_empty=False):
    """A fuzz-bench.json shaped like bench.py writes it: targets {name: (exec/s, exec/CPU-s)}; a ceiling of
    None is a --no-ceiling run (zeros, skipped)."""
    row = lambda name, rate, cpu: {"target": name, "exec_per_sec": rate, "exec_per_cpu_sec": cpu,  # noqa: E731
                                   "edges": 10, "features": 20, "peak_rss_mb": 100}
    ceiling = row(bench.CEILING, ceiling_cpu, ceiling_cpu) if ceiling_cpu else {**row(bench.CEILING, 0, 0),
                                                                                  "skipped": True}
    return {"when": "2026-11-25T00:00:00Z", "load_before": [0.5], "load_after": [0.6], "from_empty": from_empty,
            "machine": {"cpu": "test", "cpus": 2}, "runtime_options": {"ASAN_OPTIONS": "x=0"},
            "ceiling": ceiling, "targets": [row(name, rate, cpu) for name, (rate, cpu) in targets.items()]}


def cells(out, target):
    """The table row of `target` in compare()'s output, as its cells."""
    row = next(line for line in out.splitlines() if line.startswith(f"| {target} "))
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


class Compare(unittest.TestCase):
    def run_compare(self, before, after):
        """compare() on two sides, each one result or a list of results (written as comma-separated files)."""
        with tempfile.TemporaryDirectory() as directory:
            sides = []
            for name, contents in (("before", before), ("after", after)):
                paths = []
                for i, content in enumerate(contents if isinstance(contents, list) else [contents]):
                    path = Path(directory) / f"{name}{i}.json"
                    path.write_text(content if isinstance(content, str) else json.dumps(content))
                    paths.append(str(path))
                sides.append(",".join(paths))
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = bench.compare(*sides)
            return status, out.getvalue(), err.getvalue()

    def test_ratios_and_fractions_of_the_ceiling(self):
        status, out, _ = self.run_compare(result(300_000, {"varint": (30_000, 30_000)}),
                                          result(320_000, {"varint": (45_000, 48_000)}))
        self.assertEqual(status, 0)
        # exec/s 30,000 → 45,000 (1.5×); per CPU-s 30,000 → 48,000 (1.6×); 10.0% → 15.0% of each run's ceiling.
        self.assertEqual(cells(out, "varint")[1:10], ["30,000", "45,000", "1.5", "30,000", "48,000", "1.6", "10.0%",
                                                      "15.0%", "10/20"])

    def test_the_table_of_several_runs_per_side_shows_medians_and_ranges(self):
        before = [result(300_000, {"varint": (30_000, 30_000)}), result(320_000, {"varint": (32_000, 32_000)}),
                  result(310_000, {"varint": (20_000, 20_000)})]
        after = [result(300_000, {"varint": (60_000, 60_000), "block": (9_000, 9_000)}),
                 result(330_000, {"varint": (40_000, 40_000)}),
                 result(310_000, {"varint": (62_000, 62_000), "block": (10_000, 10_000)})]
        status, out, _ = self.run_compare(before, after)
        self.assertEqual(status, 0)
        # Medians: before 30,000 of a 310,000 ceiling (9.7%), after 60,000 of 310,000 (19.4%); 2.0×.
        self.assertEqual(cells(out, "varint")[4:9], ["30,000", "60,000", "2.0", "9.7%", "19.4%"])
        self.assertIn("after: medians of 3 runs; exec/CPU-s lowest–highest: (empty ceiling) 300,000–330,000, "
                      "varint 40,000–62,000, block 9,000–10,000 (2 of 3 runs)", out)
        # A target only the after side has gets no row (nothing to compare it with).
        self.assertFalse(any(line.startswith("| block ") for line in out.splitlines()))

    def test_a_skipped_ceiling_does_not_halve_the_median(self):
        # One --no-ceiling run (zeros) beside a measured one: the ceiling is the measured 300,000, not 150,000.
        status, out, _ = self.run_compare(result(300_000, {"varint": (30_000, 30_000)}),
                                          [result(None, {"varint": (30_000, 30_000)}),
                                           result(300_000, {"varint": (30_000, 30_000)})])
        self.assertEqual(status, 0)
        self.assertEqual(cells(out, "varint")[7:9], ["10.0%", "10.0%"])
        self.assertEqual(cells(out, "(empty ceiling)")[4:6], ["300,000", "300,000"])

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
        without_load = {k: v for k, v in good.items() if k != "load_before"}
        for bad in ("{not json", json.dumps([1, 2]), json.dumps({"targets": []}), json.dumps(without_load)):
            status, out, err = self.run_compare(good, bad)
            self.assertEqual(status, 2)
            self.assertIn("after0.json", err)
        # Runs from empty corpora and from corpora/ on one side are not one measurement.
        status, _, err = self.run_compare(good, [good, result(300_000, {"varint": (1, 1)}, from_empty=True)])
        self.assertEqual(status, 2)
        self.assertIn("empty corpora", err)
        # The command itself: exit status 2 and one line naming the file, no traceback.
        command = subprocess.run([sys.executable, str(BENCH), "--compare", "/nonexistent/before.json",
                                  "/nonexistent/after.json"], capture_output=True, text=True)
        self.assertEqual(command.returncode, 2)
        self.assertEqual(command.stderr.strip().splitlines(),
                         ["fuzz-bench --compare: /nonexistent/before.json: [Errno 2] No such file or directory: "
                          "'/nonexistent/before.json'"])


class Render(unittest.TestCase):
    def test_the_docs_table_is_the_median_of_the_runs_sorted_by_rate(self):
        # docs/bench.md's table (docs_check compares the page with it): ceiling first, then by exec/CPU-s.
        with tempfile.TemporaryDirectory() as directory:
            paths = []
            for i, (ceiling, varint, block) in enumerate([(300_000, 30_000, 9_000), (330_000, 10_000, 8_000),
                                                          (310_000, 20_000, 12_000)]):
                run = result(ceiling, {"block": (block, block), "varint": (varint, varint)})
                run.update(commit="abc1234", seconds_per_target=15, sanitizers="address,undefined")
                path = Path(directory) / f"run{i}.json"
                path.write_text(json.dumps(run))
                paths.append(str(path))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(bench.render(",".join(paths)), 0)
        text = out.getvalue()
        self.assertIn("3 run(s) of `make fuzz-bench`", text)
        self.assertIn("at abc1234,", text)
        self.assertIn("the median of the 3", text)
        rows = [[cell.strip() for cell in line.strip().strip("|").split("|")][:3] for line in text.splitlines()
                if line.startswith("| ") and "exec/CPU-s" not in line]
        self.assertEqual(rows,
                         [["(empty ceiling)", "310,000", "100.0%"], ["`varint`", "20,000", "6.5%"],
                          ["`block`", "9,000", "2.9%"]])


class CoreBesideSerdiff(unittest.TestCase):
    def test_the_ratio_and_the_goal_per_target(self):
        row = lambda name, cpu, edges: {"target": name, "exec_per_cpu_sec": cpu, "edges": edges}  # noqa: E731
        comparison = bench.subjects_side_by_side(
            [row("varint", 100_000, 50), row("block", 20_000, 900), row("block_header", 0, 10)],
            [row("varint", 50_000, 70), row("block", 9_999, 1500), row("block_header", 5, 12)])
        self.assertEqual([(c["target"], c["core_over_serdiff"], c["meets_goal"]) for c in comparison],
                         [("varint", 0.5, True), ("block", 0.49995, False), ("block_header", None, False)])
        out = bench.subjects_table(comparison)
        self.assertEqual(cells(out, "varint"), ["varint", "100,000", "50,000", "0.50x", "yes", "50 / 70"])
        self.assertEqual(cells(out, "block")[3:5], ["0.50x", "NO"])  # rounded in the table, judged unrounded
        self.assertEqual(cells(out, "block_header")[3:5], ["-", "NO"])  # serdiff measured nothing: no ratio
        # A run that crashed measured only the inputs before the crash: no ratio, and the row says so.
        crashed = bench.subjects_side_by_side([row("varint", 100_000, 50)],
                                              [{**row("varint", 90_000, 0), "exit_status": 1}])
        self.assertEqual((crashed[0]["core_over_serdiff"], crashed[0]["meets_goal"]), (None, False))
        self.assertEqual(cells(bench.subjects_table(crashed), "varint")[3:5], ["-", "core run failed"])


if __name__ == "__main__":
    unittest.main()
