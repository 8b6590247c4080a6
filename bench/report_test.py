#!/usr/bin/env python3
"""bench/report.py on synthetic Google Benchmark output: the Core-from-source rows (serdiff_bench_core, one binary
per Core tree) beside the optimized rows, with the right ratios, in results.md and results.json; a filter that
matches none of a Core binary's rows; rows that clash; the --core-binary syntax.

  python3 bench/report_test.py        (Python standard library only; no build needed)
"""
import argparse
import contextlib
import io
import json
import os
import re
import stat
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402

BLOCKS = ["413567", "540107"]


def entry(name, microseconds, repetition=None, aggregate=None, manual=False):
    """One Google Benchmark JSON entry (time unit us), a repetition or an aggregate."""
    run_name = name + ("/manual_time" if manual else "")
    record = {"name": run_name + (f"_{aggregate}" if aggregate else ""), "run_name": run_name,
              "run_type": "aggregate" if aggregate else "iteration", "real_time": microseconds, "cpu_time": microseconds,
              "time_unit": "us", "ops_per_run": 1, "bytes_per_op": 1_000_000}
    if aggregate:
        record["aggregate_name"] = aggregate
    return record


def google_benchmark(times, notes=""):
    """A google-benchmark.json with, per case, three repetitions and their median; times {name: microseconds}."""
    benchmarks = []
    for name, microseconds in times.items():
        benchmarks += [entry(name, microseconds * factor) for factor in (1.1, 1.0, 0.9)]
        benchmarks.append(entry(name, microseconds, aggregate="median"))
    return {"context": {"serdiff_blocks": "synthetic", "serdiff_notes": notes}, "benchmarks": benchmarks}


# serdiff_bench's rows (µs) and a Core tree's (µs): the Core rows are 2, 3, 1.5 and 4 times the optimized rows.
SERDIFF_TIMES = {}
CORE_TIMES = {}
for block in BLOCKS:
    SERDIFF_TIMES.update({
        f"SerializeBlock/{block}/optimized": 200, f"SerializeBlock/{block}/optimized-reused": 100,
        f"SerializeBlock/{block}/reference": 1000, f"DeserializeBlock/{block}/optimized": 500,
        f"DeserializeBlock/{block}/optimized+txids": 1000, f"DeserializeBlock/{block}/reference": 3000,
        f"SizeComputerBlock/{block}/optimized": 10, f"memcpy/{block}/memcpy": 50,
        f"DeserializeBlock/{block}/bitcoin-core": 1200,
    })


def core_times(name, scale=1.0):
    times = {}
    for block in BLOCKS:
        times.update({f"SerializeBlock/{block}/{name}-reused": 200 * scale,
                      f"DeserializeBlock/{block}/{name}-nohash": 1500 * scale,
                      f"DeserializeBlock/{block}/{name}": 1500 * scale,
                      f"SizeComputerBlock/{block}/{name}": 40 * scale})
    return times


def fake_binary(directory, label, data):
    """An executable standing in for a benchmark binary: --list prints the names of `data`'s cases; a run writes
    the entries its --benchmark_filter matches to its --benchmark_out= (an empty file when none, as Google
    Benchmark does; `data` None: no case at all). Each invocation's arguments are appended to PATH.calls."""
    path = Path(directory) / label
    payload = json.dumps(data or {"context": {}, "benchmarks": []})
    path.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json, re, sys
        data = json.loads({payload!r})
        with open({str(path) + '.calls'!r}, "a") as calls:
            calls.write(json.dumps(sys.argv[1:]) + "\\n")
        if "--list" not in sys.argv:
            with open({str(Path(directory) / 'order.log')!r}, "a") as order:
                order.write(json.dumps([{'serdiff' if label == 'serdiff_bench' else 'core'!r}, sys.argv[1:]]) + "\\n")
        names = sorted({{entry["run_name"].removesuffix("/manual_time") for entry in data["benchmarks"]}})
        if "--list" in sys.argv:
            print("\\n".join(names))
            sys.exit(0)
        out = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--benchmark_out="))
        pattern = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--benchmark_filter="))
        chosen = [e for e in data["benchmarks"] if re.search(pattern, e["run_name"])]
        with open(out, "w") as output:
            if chosen:
                json.dump({{"context": data["context"], "benchmarks": chosen}}, output)
    """))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def calls(binary):
    """The argument lists a fake binary was run with, in order."""
    return [json.loads(line) for line in Path(binary + ".calls").read_text().splitlines()]


def flag(arguments, name):
    return next((a.split("=", 1)[1] for a in arguments if a.startswith(name + "=")), None)


def row(markdown, group, subject, implementation):
    """The cells of one row of the main table."""
    prefix = f"| {group} | {subject} | {implementation} |"
    line = next(line for line in markdown.splitlines() if line.startswith(prefix))
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


class Summary(unittest.TestCase):
    def test_the_docs_tables_come_from_the_record(self):
        # docs/bench.md's tables (docs_check compares the page with them), from a results.json-shaped record.
        rows = [("SerializeBlock", "413567", "optimized-reused", 120_400.0), ("SerializeBlock", "413567", "btcd", 303_300.0),
                ("DeserializeBlock", "413567", "optimized", 518_000.0), ("memcpy", "413567", "memcpy", 36_500.0)]
        record = {"command": "make bench", "settings": {"repetitions": 5},
                  "machine": {"git_commit": "abc1234", "date": "2026-11-29 11:13 UTC", "cpu": "test", "cores": 2,
                              "compiler": "clang 19", "load_average_at_start": [0.5], "load_average_after": [0.7]},
                  "benchmarks": [{"group": g, "subject": b, "implementation": i, "ns_per_op": ns} for g, b, i, ns in rows],
                  "goals": [{"goal": "a", "subject": "413567", "measured": 2.5, "met": True},
                            {"goal": "SerializeBlock within 4x of memcpy", "subject": "413567", "measured": 4.39,
                             "met": False}, {"goal": "c", "subject": "x", "measured": None, "met": None}],
                  "core_source_comparisons": []}
        lines = report.summary_lines(record)
        self.assertIn("at abc1234, 2026-11-29 11:13 UTC", lines[0])
        self.assertIn("load average 0.5 at the start and 0.7 at the end", lines[0])
        self.assertIn("| 413,567 | 120.4 | - | 303.3 | 518.0 | - | - | - | 36.5 |", lines)
        self.assertIn("Goals met: 1 of 2 (1 not measured); missed: SerializeBlock within 4x of memcpy on 413567 "
                      "(4.39x).", lines)


class Run(unittest.TestCase):
    def run_report(self, core_binaries, directory, serdiff=None, filter_="."):
        args = argparse.Namespace(
            binary=fake_binary(directory, "serdiff_bench", serdiff or google_benchmark(SERDIFF_TIMES)),
            core_binary=core_binaries, out=str(Path(directory) / "out"), repetitions=3, min_time=0.01, filter=filter_)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            report.run_benchmarks(args)
        markdown = (Path(args.out) / "results.md").read_text()
        self.assertEqual(stdout.getvalue().strip(), markdown.strip())
        return markdown, json.loads((Path(args.out) / "results.json").read_text())

    def test_core_rows_beside_the_optimized_rows_with_ratios(self):
        with tempfile.TemporaryDirectory() as directory:
            core = fake_binary(directory, "serdiff_bench_core",
                               google_benchmark(core_times("core-src"), notes="core-src: Bitcoin Core compiled from X"))
            markdown, results = self.run_report([core], directory)
            # The Core binary ran with its name and the same settings as serdiff_bench, one run per group and block.
            core_runs = [a for a in calls(core) if "--list" not in a]
            self.assertEqual(len(core_runs), 3 * len(BLOCKS))  # Serialize, Deserialize (2 rows), SizeComputer
            for arguments in core_runs:
                self.assertIn("--name=core-src", arguments)
                self.assertIn("--benchmark_repetitions=3", arguments)
            # Slot by slot: serdiff_bench's rows of a group and block right before Core's, then the rest.
            log = [json.loads(line) for line in (Path(directory) / "order.log").read_text().splitlines()]
            serdiff_runs = [a for a in calls(str(Path(directory) / "serdiff_bench")) if "--list" not in a]
            self.assertEqual(len(serdiff_runs), 3 * len(BLOCKS) + 1)
            slots = [re.findall(r"^\^\((\w+)/(\d+)/", flag(a, "--benchmark_filter"))[0] for a in core_runs]
            self.assertEqual(len(set(slots)), 3 * len(BLOCKS))
            for serdiff_run, core_run, slot in zip(serdiff_runs, core_runs, slots):
                pattern = flag(serdiff_run, "--benchmark_filter")
                self.assertTrue(re.search(pattern, f"{slot[0]}/{slot[1]}/optimized"), (pattern, slot))
                self.assertFalse(re.search(pattern, f"memcpy/{slot[1]}/memcpy"))
            self.assertTrue(re.search(flag(serdiff_runs[-1], "--benchmark_filter"), "memcpy/413567/memcpy"))
            self.assertEqual([who for who, _ in log], ["serdiff", "core"] * (3 * len(BLOCKS)) + ["serdiff"])
        for block in BLOCKS:
            self.assertIn("2.00x faster than core-src-reused", row(markdown, "SerializeBlock", block, "optimized-reused")[5])
            self.assertIn("3.00x faster than core-src-nohash", row(markdown, "DeserializeBlock", block, "optimized")[5])
            self.assertIn("1.50x faster than core-src", row(markdown, "DeserializeBlock", block, "optimized+txids")[5])
            self.assertIn("4.00x faster than core-src", row(markdown, "SizeComputerBlock", block, "optimized")[5])
            # Not like for like: the plain decode is not compared with the hashing Core row, nor the reverse.
            self.assertNotIn("core-src (", row(markdown, "DeserializeBlock", block, "optimized")[5])
            self.assertNotIn("core-src-nohash", row(markdown, "DeserializeBlock", block, "optimized+txids")[5])
            # The Core rows themselves: against the kernel library's row, and the share of the non-hashing decode.
            self.assertIn("1.25x the time of bitcoin-core", row(markdown, "DeserializeBlock", block, "core-src")[5])
            self.assertIn("core-src-nohash is 1.00x of it", row(markdown, "DeserializeBlock", block, "core-src")[5])
        # Beside the optimized rows: in DeserializeBlock/413567 the order is optimized, optimized+txids, then Core's.
        implementations = [line.split("|")[3].strip() for line in markdown.splitlines()
                           if line.startswith("| DeserializeBlock | 413567 |")]
        self.assertEqual(implementations[:4], ["optimized", "optimized+txids", "core-src", "core-src-nohash"])
        # The per-block table and results.json's comparisons: one per block and pair, core / optimized.
        self.assertIn("| 540107 | SerializeBlock: serialize into a reused buffer | optimized-reused | 100,000 | "
                      "core-src-reused | 200,000 | 2.00x |", markdown)
        comparisons = results["core_source_comparisons"]
        # The fake binaries have the block codec's groups only: their pairs, none of the file groups' (absent rows).
        codec_pairs = [p for p in report.CORE_SOURCE_PAIRS if p[0] not in ("WriteBlock", "ReadBlock")]
        self.assertEqual(len(codec_pairs), 4)
        self.assertEqual(len(comparisons), len(BLOCKS) * len(codec_pairs))
        by_key = {(c["subject"], c["group"], c["core"]): c["ratio"] for c in comparisons}
        self.assertEqual(by_key[("413567", "DeserializeBlock", "core-src")], 1.5)
        self.assertEqual(by_key[("413567", "DeserializeBlock", "core-src-nohash")], 3.0)
        self.assertEqual(by_key[("540107", "SizeComputerBlock", "core-src")], 4.0)
        self.assertEqual(results["core_sources"][0]["rows"], 4 * len(BLOCKS))
        self.assertIn("Bitcoin Core compiled from X", " ".join(results["notes"]))
        core_records = [b for b in results["benchmarks"] if b.get("core_name") == "core-src"]
        self.assertEqual(len(core_records), 4 * len(BLOCKS))

    def test_two_core_trees_side_by_side(self):
        with tempfile.TemporaryDirectory() as directory:
            base = fake_binary(directory, "base", google_benchmark(core_times("core-base", 1.0)))
            head = fake_binary(directory, "head", google_benchmark(core_times("core-head", 0.5)))
            markdown, results = self.run_report([f"core-base={base}", f"core-head={head}"], directory)
        ratios = row(markdown, "SerializeBlock", "413567", "optimized-reused")[5]
        self.assertIn("2.00x faster than core-base-reused", ratios)
        self.assertIn("1.00x faster than core-head-reused", ratios)
        self.assertEqual([s["name"] for s in results["core_sources"]], ["core-base", "core-head"])
        self.assertIn("(`core-base`)", markdown)
        self.assertIn("(`core-head`)", markdown)

    def test_filter_matching_no_core_row(self):
        with tempfile.TemporaryDirectory() as directory:
            core = fake_binary(directory, "serdiff_bench_core", None)
            markdown, results = self.run_report([core], directory)
        self.assertEqual(results["core_sources"][0]["rows"], 0)
        self.assertEqual(results["core_source_comparisons"], [])
        self.assertIn("matched none of its rows", markdown)
        self.assertNotIn("core-src-reused", row(markdown, "SerializeBlock", "413567", "optimized-reused")[5])

    def test_no_core_binary(self):
        with tempfile.TemporaryDirectory() as directory:
            markdown, results = self.run_report(None, directory)
        self.assertEqual(results["core_sources"], [])
        self.assertIn("Bitcoin Core compiled from source not measured", markdown)

    def test_rows_that_clash_with_serdiff_bench_are_refused(self):
        with tempfile.TemporaryDirectory() as directory:
            core = fake_binary(directory, "clash", google_benchmark({"SerializeBlock/413567/optimized-reused": 1}))
            with self.assertRaises(SystemExit) as raised:
                self.run_report([f"optimized={core}"], directory)
        self.assertIn("clash", str(raised.exception))


class CoreBinarySyntax(unittest.TestCase):
    def test_names(self):
        self.assertEqual(report.parse_core_binaries(["a/b/serdiff_bench_core"]), [("core-src", "a/b/serdiff_bench_core")])
        self.assertEqual(report.parse_core_binaries(["core-head=x", "core-base=y"]), [("core-head", "x"), ("core-base", "y")])
        self.assertEqual(report.parse_core_binaries(None), [])
        for bad in (["a=x", "a=y"], ["a/b=x"], ["=x"], ["a="]):
            with self.assertRaises(SystemExit, msg=bad), contextlib.redirect_stderr(io.StringIO()):
                report.parse_core_binaries(bad)

    def test_exact_filter(self):
        pattern = report.exact_filter(["DeserializeBlock/413567/optimized+txids", "SerializeBlock/413567/bitcoin-core"])
        self.assertTrue(re.search(pattern, "DeserializeBlock/413567/optimized+txids"))
        self.assertTrue(re.search(pattern, "SerializeBlock/413567/bitcoin-core/manual_time"))
        for other in ("DeserializeBlock/413567/optimized", "DeserializeBlock/413567/optimizedtxids",
                      "SerializeBlock/413567/bitcoin-core-discard/manual_time", "XSerializeBlock/413567/bitcoin-core"):
            self.assertFalse(re.search(pattern, other), other)
        self.assertTrue(report.filter_matches("-Obfuscate", "SerializeBlock/1/optimized"))
        self.assertFalse(report.filter_matches("-Obfuscate", "Obfuscate/1MiB:aligned/batched"))


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    unittest.main()
