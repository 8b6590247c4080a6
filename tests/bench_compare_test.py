#!/usr/bin/env python3
"""ctest bench_compare: tools/review/bench_compare.py (BASE vs HEAD of a Core change, serdiff_bench_core built from
each tree) without a build: case naming, parsing synthetic Google Benchmark json, the interleaved round order, the
median over rounds, the ratios, missing rows as a clear error, and compare()'s dict with the build and the runs
replaced (a build failure is status "error", never an exception).

  python3 tests/bench_compare_test.py        (Python standard library only)
"""
import json
import sys
import tempfile
import unittest
from pathlib import Path

MODULE = Path(__file__).resolve().parents[1] / "tools" / "review" / "bench_compare.py"
sys.path.insert(0, str(MODULE.parent))
import bench_compare  # noqa: E402

BLOCKS = ["413567", "540107"]
ROW_KEYS = {"group", "block", "what", "base_ns", "head_ns", "speedup", "base_instructions", "head_instructions",
            "instruction_ratio"}
RESULT_KEYS = {"status", "message", "command", "load", "load_after", "rounds", "rows"}


def entry(name, real_time, unit="us", ops=1, run_type="iteration", aggregate=None):
    record = {"name": name + (f"_{aggregate}" if aggregate else ""), "run_name": name, "run_type": run_type,
              "real_time": real_time, "cpu_time": real_time, "time_unit": unit, "ops_per_run": ops,
              "bytes_per_op": 1000}
    if aggregate:
        record["aggregate_name"] = aggregate
    return record


def run_json(name, microseconds):
    """A serdiff_bench_core run under --name=NAME: every case of every block at `microseconds` (a number, or
    {(group, block, what): number})."""
    benchmarks = []
    for block in BLOCKS:
        for group, suffix, what in bench_compare.CASES:
            value = microseconds if not isinstance(microseconds, dict) else microseconds[(group, block, what)]
            benchmarks.append(entry(f"{group}/{block}/{name}{suffix}", value))
    return {"context": {"load_avg": [1.0, 1.0, 1.0]}, "benchmarks": benchmarks}


def all_keys():
    return [(group, block, what) for block in BLOCKS for group, _suffix, what in bench_compare.CASES]


class Naming(unittest.TestCase):
    def test_case_key(self):
        key = bench_compare.case_key
        self.assertEqual(key("SerializeBlock/413567/base-reused", "base"),
                         ("SerializeBlock", "413567", "serialize into a reused buffer"))
        self.assertEqual(key("DeserializeBlock/413567/head", "head"),
                         ("DeserializeBlock", "413567", "decode, txids hashed"))
        self.assertEqual(key("DeserializeBlock/702861/head-nohash", "head"),
                         ("DeserializeBlock", "702861", "decode, no hashing"))
        self.assertEqual(key("SizeComputerBlock/540107/base", "base"), ("SizeComputerBlock", "540107", "size computer"))
        self.assertEqual(key("SizeComputerBlock/540107/base/manual_time", "base"),
                         ("SizeComputerBlock", "540107", "size computer"))
        # another --name, a row this tool does not compare, a serdiff_bench row
        self.assertIsNone(key("SerializeBlock/413567/head-reused", "base"))
        self.assertIsNone(key("SerializeBlock/413567/base", "base"))
        self.assertIsNone(key("SizeComputerBlock/413567/base-nohash", "base"))
        self.assertIsNone(key("SerializeBlock/413567/optimized-reused", "base"))
        self.assertIsNone(key("memcpy/413567", "base"))


class Parsing(unittest.TestCase):
    def test_units_and_ops(self):
        data = {"benchmarks": [
            entry("SerializeBlock/413567/base-reused", 250.0, unit="us"),
            entry("DeserializeBlock/413567/base", 2.0, unit="ms"),
            entry("DeserializeBlock/413567/base-nohash", 900_000.0, unit="ns", ops=2),
            entry("SizeComputerBlock/413567/base", 0.00001, unit="s"),
            entry("SerializeBlock/413567/optimized-reused", 1.0),
        ]}
        parsed = bench_compare.parse_run(data, "base")
        self.assertEqual(len(parsed), 4)
        self.assertAlmostEqual(parsed[("SerializeBlock", "413567", "serialize into a reused buffer")], 250_000.0)
        self.assertAlmostEqual(parsed[("DeserializeBlock", "413567", "decode, txids hashed")], 2_000_000.0)
        self.assertAlmostEqual(parsed[("DeserializeBlock", "413567", "decode, no hashing")], 450_000.0)
        self.assertAlmostEqual(parsed[("SizeComputerBlock", "413567", "size computer")], 10_000.0)

    def test_repetitions_and_aggregates(self):
        name = "SizeComputerBlock/413567/head"
        data = {"benchmarks": [entry(name, 30.0), entry(name, 10.0), entry(name, 20.0),
                               entry(name, 99.0, run_type="aggregate", aggregate="mean"),
                               entry(name, 99.0, run_type="aggregate", aggregate="stddev")]}
        self.assertEqual(bench_compare.parse_run(data, "head"), {("SizeComputerBlock", "413567", "size computer"): 20_000.0})
        data["benchmarks"].append(entry(name, 21.0, run_type="aggregate", aggregate="median"))
        self.assertEqual(bench_compare.parse_run(data, "head"), {("SizeComputerBlock", "413567", "size computer"): 21_000.0})

    def test_errored_entry_is_skipped(self):
        failed = entry("SizeComputerBlock/413567/base", 1.0)
        failed["error_occurred"] = True
        self.assertEqual(bench_compare.parse_run({"benchmarks": [failed]}, "base"), {})

    def test_unknown_unit(self):
        with self.assertRaises(ValueError):
            bench_compare.parse_run({"benchmarks": [entry("SizeComputerBlock/413567/base", 1.0, unit="fortnight")]},
                                    "base")


class Rounds(unittest.TestCase):
    def test_order_alternates(self):
        self.assertEqual(bench_compare.round_orders(4),
                         [("base", "head"), ("head", "base"), ("base", "head"), ("head", "base")])
        self.assertEqual(bench_compare.round_orders(1), [("base", "head")])

    def test_median_over_rounds(self):
        key = ("SerializeBlock", "413567", "serialize into a reused buffer")
        runs = [{key: 100.0}, {key: 500.0}, {key: 110.0}]      # one slow round (load spike) does not move it
        self.assertEqual(bench_compare.median_over_rounds(runs, "base"), {key: 110.0})
        self.assertEqual(bench_compare.median_over_rounds(runs[:2] + [{key: 120.0}, {key: 90.0}], "base"), {key: 110.0})

    def test_round_missing_a_row(self):
        a = ("SerializeBlock", "413567", "serialize into a reused buffer")
        b = ("SizeComputerBlock", "413567", "size computer")
        with self.assertRaisesRegex(bench_compare.MissingRows,
                                    r"head: round 2 has no row for SizeComputerBlock/413567 \(size computer\)"):
            bench_compare.median_over_rounds([{a: 1.0, b: 1.0}, {a: 1.0}], "head")
        with self.assertRaises(bench_compare.MissingRows):
            bench_compare.median_over_rounds([], "base")

    def test_interleaved_rounds_end_to_end(self):
        """Three rounds per side parsed from json, medians, rows with their ratios."""
        slow_serialize = {key: (300.0 if key[0] == "SerializeBlock" else 100.0) for key in all_keys()}
        base_runs = [bench_compare.parse_run(run_json("base", t), "base") for t in (100.0, 104.0, 96.0)]
        head_runs = [bench_compare.parse_run(run_json("head", t), "head")
                     for t in (slow_serialize, {k: v * 1.04 for k, v in slow_serialize.items()}, slow_serialize)]
        base = bench_compare.median_over_rounds(base_runs, "base")
        head = bench_compare.median_over_rounds(head_runs, "head")
        rows = bench_compare.combine(base, head)
        self.assertEqual(len(rows), len(BLOCKS) * len(bench_compare.CASES))
        for row in rows:
            self.assertEqual(set(row), ROW_KEYS)
            self.assertEqual(row["base_ns"], 100_000.0)
            expected = 1 / 3 if row["group"] == "SerializeBlock" else 1.0
            self.assertAlmostEqual(row["speedup"], expected)
            self.assertIsNone(row["instruction_ratio"])
        # table order: block, then serialize, decode with txids, decode without, size computer
        per_block = len(bench_compare.CASES)
        self.assertEqual([(row["block"], row["what"]) for row in rows[:per_block]],
                         [("413567", what) for _group, _suffix, what in bench_compare.CASES])
        self.assertEqual(rows[per_block]["block"], "540107")


class Combine(unittest.TestCase):
    def test_ratios_with_instructions(self):
        key = ("DeserializeBlock", "413567", "decode, no hashing")
        rows = bench_compare.combine({key: 200.0}, {key: 100.0}, {key: 5000.0}, {key: 4000.0})
        self.assertEqual(rows, [{"group": "DeserializeBlock", "block": "413567", "what": "decode, no hashing",
                                 "base_ns": 200.0, "head_ns": 100.0, "speedup": 2.0, "base_instructions": 5000.0,
                                 "head_instructions": 4000.0, "instruction_ratio": 1.25}])

    def test_instructions_of_one_side_missing(self):
        key = ("SizeComputerBlock", "413567", "size computer")
        row = bench_compare.combine({key: 1.0}, {key: 1.0}, {key: 10.0}, {})[0]
        self.assertEqual(row["base_instructions"], 10.0)
        self.assertIsNone(row["head_instructions"])
        self.assertIsNone(row["instruction_ratio"])

    def test_missing_rows_named(self):
        a = ("SerializeBlock", "413567", "serialize into a reused buffer")
        b = ("DeserializeBlock", "540107", "decode, txids hashed")
        with self.assertRaises(bench_compare.MissingRows) as raised:
            bench_compare.combine({a: 1.0, b: 1.0}, {a: 1.0})
        self.assertIn("head has no row for DeserializeBlock/540107 (decode, txids hashed)", str(raised.exception))
        self.assertNotIn("base has no row", str(raised.exception))
        with self.assertRaisesRegex(bench_compare.MissingRows, "base has no row for SerializeBlock/413567"):
            bench_compare.combine({b: 1.0}, {a: 1.0, b: 1.0})
        with self.assertRaisesRegex(bench_compare.MissingRows, "no serdiff_bench_core row"):
            bench_compare.combine({}, {})

    def test_block_manager_rows_only_one_tree_has_are_left_out(self):
        # BASE before the v31 cycle has no BlockManager rows (serdiff_bench_core builds them where block_store runs):
        # the case is left out and said; a case both have stays, and a row missing otherwise still fails.
        a = ("SerializeBlock", "413567", "serialize into a reused buffer")
        write = ("WriteBlock", "413567:xor", "BlockManager::WriteBlock: placement, allocation, record")
        notes = []
        rows = bench_compare.combine({a: 1.0}, {a: 1.0, write: 2.0}, notes=notes)
        self.assertEqual([(r["group"], r["what"]) for r in rows], [("SerializeBlock", a[2])])
        self.assertEqual(notes, ["BlockManager::WriteBlock: placement, allocation, record: only HEAD's tree has it, "
                                 "not compared"])
        rows = bench_compare.combine({a: 1.0, write: 2.0}, {a: 1.0, write: 1.0})
        self.assertEqual(len(rows), 2)
        other_block = ("WriteBlock", "540107:xor", write[2])
        with self.assertRaisesRegex(bench_compare.MissingRows, "head has no row for WriteBlock/540107:xor"):
            bench_compare.combine({a: 1.0, write: 2.0, other_block: 3.0}, {a: 1.0, write: 1.0})

    def test_instructions_per_op(self):
        cases = {"SerializeBlock/413567/base-reused": (1, 1000, False), "SizeComputerBlock/413567/base": (4, 10, False),
                 "DeserializeBlock/413567/base": (1, 1000, False)}
        totals = {"SerializeBlock/413567/base-reused": 1_000_000, "SizeComputerBlock/413567/base": 400}
        self.assertEqual(bench_compare.instructions_per_op(cases, totals, "base"),
                         {("SerializeBlock", "413567", "serialize into a reused buffer"): 1_000_000.0,
                          ("SizeComputerBlock", "413567", "size computer"): 100.0})


class Compare(unittest.TestCase):
    """compare() with build, run_timed and run_callgrind replaced: no compiler, no valgrind."""

    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.dir = Path(self.scratch.name)
        for side in ("base", "head"):
            (self.dir / side / "src").mkdir(parents=True)
            (self.dir / side / "src" / "serialize.h").write_text("// a Core tree\n")
        self.out = self.dir / "out"
        self.saved = (bench_compare.build, bench_compare.run_timed, bench_compare.run_callgrind)
        self.calls = []

    def tearDown(self):
        bench_compare.build, bench_compare.run_timed, bench_compare.run_callgrind = self.saved
        self.scratch.cleanup()

    def fake(self, head_time=50.0, build_error=None, head_drops=None):
        def build(side, tree, jobs, log):
            self.calls.append(("build", side, tree.name))
            if build_error and side == build_error:
                return None, f"{side} build failed: build/review/bench-{side}.log; its last lines:\nerror: boom"
            return Path(f"/nonexistent/{side}"), None

        def run_timed(binary, side, out_file, scratch, min_time=0.1):
            self.calls.append(("time", side))
            data = run_json(side, 100.0 if side == "base" else head_time)
            if side == "head" and head_drops:
                data["benchmarks"] = [e for e in data["benchmarks"] if head_drops not in e["name"]]
            return bench_compare.parse_run(data, side)

        def run_callgrind(binary, side, out):
            self.calls.append(("callgrind", side))
            return {key: (1000.0 if side == "base" else 800.0) for key in all_keys()}

        bench_compare.build, bench_compare.run_timed, bench_compare.run_callgrind = build, run_timed, run_callgrind

    def compare(self, **options):
        lines = []
        result = bench_compare.compare(self.dir / "base", self.dir / "head" / "src", self.out, rounds=3,
                                       log=lines.append, **options)
        return result, lines

    def test_measured(self):
        self.fake()
        result, lines = self.compare()
        self.assertEqual(set(result), RESULT_KEYS)
        self.assertEqual(result["status"], "measured", result["message"])
        self.assertEqual(result["rounds"], 3)
        self.assertEqual(len(result["load"]), 3)
        self.assertEqual(len(result["load_after"]), 3)
        self.assertIn("bench_compare.py --base-tree", result["command"])
        self.assertIn("--rounds 3", result["command"])
        # head given as its src/ directory: the tree is its parent
        self.assertEqual([c for c in self.calls if c[0] == "build"], [("build", "base", "base"), ("build", "head", "head")])
        timed = [c[1] for c in self.calls if c[0] == "time"]
        self.assertEqual(timed, ["base", "head", "head", "base", "base", "head"])
        self.assertEqual(len(result["rows"]), len(BLOCKS) * len(bench_compare.CASES))
        for row in result["rows"]:
            self.assertAlmostEqual(row["speedup"], 2.0)
            self.assertAlmostEqual(row["instruction_ratio"], 1.25)
        self.assertTrue(any(line.startswith("time: round 3/3 (base then head)") for line in lines), lines)
        self.assertTrue(any(line.startswith("measured: wrote ") for line in lines), lines)
        written = json.loads((self.out / "bench.json").read_text())
        self.assertEqual(written, json.loads(json.dumps(result)))
        table = (self.out / "bench.md").read_text()
        self.assertIn("| 413567 | SerializeBlock: serialize into a reused buffer | 100.0 | 50.0 | 2.000 | 1,000 | 800 | "
                      "1.2500 |", table)

    def test_load_warning(self):
        result = {"status": "measured", "message": "", "command": "c", "load": [0.5, 0.5, 0.5],
                  "load_after": [0.7, 0.6, 0.5], "rounds": 1,
                  "rows": bench_compare.combine({all_keys()[0]: 1.0}, {all_keys()[0]: 1.0})}
        self.assertNotIn("unreliable", bench_compare.markdown(result))
        result["load_after"] = [1000.0, 1.0, 1.0]
        self.assertIn("the times are unreliable", bench_compare.markdown(result))

    def test_no_callgrind(self):
        self.fake()
        result, _ = self.compare(callgrind=False)
        self.assertEqual(result["status"], "measured")
        self.assertNotIn("callgrind", [c[0] for c in self.calls])
        self.assertTrue(all(row["base_instructions"] is None and row["instruction_ratio"] is None
                            for row in result["rows"]))
        self.assertIn("--no-callgrind", result["command"])

    def test_callgrind_failure_keeps_the_times(self):
        self.fake()

        def failing(binary, side, out):
            raise RuntimeError("bench: callgrind run failed with status 1")

        bench_compare.run_callgrind = failing
        result, _ = self.compare()
        self.assertEqual(result["status"], "measured")
        self.assertIn("callgrind failed", result["message"])
        self.assertTrue(all(row["speedup"] == 2.0 and row["head_instructions"] is None for row in result["rows"]))

    def test_build_failure_is_an_error_not_an_exception(self):
        self.fake(build_error="head")
        result, _ = self.compare()
        self.assertEqual(result["status"], "error")
        self.assertIn("build/review/bench-head.log", result["message"])
        self.assertIn("error: boom", result["message"])
        self.assertEqual(result["rows"], [])
        self.assertNotIn("time", [c[0] for c in self.calls])
        self.assertEqual(json.loads((self.out / "bench.json").read_text())["status"], "error")

    def test_missing_rows_is_an_error(self):
        self.fake(head_drops="-nohash")
        result, _ = self.compare()
        self.assertEqual(result["status"], "error")
        self.assertIn("head has no row for DeserializeBlock/413567 (decode, no hashing)", result["message"])

    def test_not_a_tree(self):
        self.fake()
        result = bench_compare.compare(self.dir / "nothing", self.dir / "head", self.out, log=lambda line: None)
        self.assertEqual(result["status"], "error")
        self.assertIn("not a Bitcoin Core tree", result["message"])
        self.assertEqual(self.calls, [])


class Build(unittest.TestCase):
    def test_configured_tree(self):
        with tempfile.TemporaryDirectory() as build_dir:
            self.assertIsNone(bench_compare.configured_tree(build_dir))
            cache = Path(build_dir) / "CMakeCache.txt"
            cache.write_text("FOO:BOOL=ON\nSERDIFF_CORE_SRC:PATH=/x/bitcoin\nSERDIFF_CORE_TREE:INTERNAL=/x/bitcoin\n")
            self.assertIsNone(bench_compare.configured_tree(build_dir))     # no build.ninja: not configured
            (Path(build_dir) / "build.ninja").write_text("")
            self.assertEqual(bench_compare.configured_tree(build_dir), "/x/bitcoin")
            # a configure for another tree that failed: SERDIFF_CORE_SRC moved, SERDIFF_CORE_TREE did not
            cache.write_text("SERDIFF_CORE_SRC:PATH=/y/broken\nSERDIFF_CORE_TREE:INTERNAL=/x/bitcoin\n")
            self.assertIsNone(bench_compare.configured_tree(build_dir))
            # the pinned sdist (no SERDIFF_CORE_SRC): never taken for a given tree
            cache.write_text("SERDIFF_CORE_SRC:PATH=\nSERDIFF_CORE_TREE:INTERNAL=/x/bitcoin\n")
            self.assertIsNone(bench_compare.configured_tree(build_dir))


if __name__ == "__main__":
    unittest.main()
