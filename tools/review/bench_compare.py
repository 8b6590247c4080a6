#!/usr/bin/env python3
"""BASE vs HEAD benchmark of a Bitcoin Core change: Core's block serialization compiled from each tree
(serdiff_bench_core, bench/core_cases.cpp), timed interleaved and counted under callgrind.

  python3 tools/review/bench_compare.py --base-tree DIR --head-tree DIR --out review-out/bench [--rounds 5]
                                        [--jobs 2] [--no-callgrind]

A tree is a Bitcoin Core tree holding src/ (make review-core's build/review/base and build/review/head, or a
checkout); given its src/ directory, its parent is taken. Steps:

  1. build: serdiff_bench_core only, for each tree, in build/review/bench-base and build/review/bench-head
     (CMake preset `bench`, the same flags for both: -DSERDIFF_CORE_SRC=TREE -DSERDIFF_PEERS=OFF). A build
     directory already configured for that tree is only rebuilt (incremental); a failed build gives status
     "error" with its log (build/review/bench-<side>.log) and the log's last lines.
  2. time: ROUNDS rounds, each runs both binaries (base then head, head then base in the next round, ... so a
     drift of the machine's load cancels), Google Benchmark json, --name=base / --name=head; the table shows
     the median per case over the rounds (ns per operation, wall clock).
  3. instructions: each binary once under valgrind --tool=callgrind (bench/report.py's callgrind_binary: each
     case run once untimed, then once with collection toggled on around the operation); instructions per
     operation, which machine noise does not move.

Writes OUT/bench.json (the dict compare() returns) and OUT/bench.md; OUT/runs/ keeps every run's json.
speedup = base_ns / head_ns and instruction_ratio = base / head: above 1 means HEAD is faster.
Python standard library only. Unit test: tests/bench_compare_test.py (ctest bench_compare).
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import report as bench_report  # noqa: E402  (callgrind_binary: the cases under callgrind, like make bench-callgrind)

WORK = ROOT / "build" / "review"
BUILD_DIRS = {"base": WORK / "bench-base", "head": WORK / "bench-head"}
TARGET = "serdiff_bench_core"
PRESET = "bench"
# The same for both trees. The peers are never linked into serdiff_bench_core; OFF spares the configure their
# toolchains (cargo, go, libpython).
CONFIGURE_FLAGS = ["-DSERDIFF_PEERS=OFF"]
MIN_TIME = 0.1            # seconds per case and run (Google Benchmark --benchmark_min_time)
BUILD_LOG_LINES = 20      # the last lines of a failed build's log in the message

# A case of serdiff_bench_core, named GROUP/BLOCK/NAME+SUFFIX: (group, suffix, what), in table order.
CASES = [
    ("SerializeBlock", "-reused", "serialize into a reused buffer"),
    ("DeserializeBlock", "", "decode, txids hashed"),
    ("DeserializeBlock", "-nohash", "decode, no hashing"),
    ("SizeComputerBlock", "", "size computer"),
    # On <block>:plain and <block>:xor (no key / an Obfuscation key): Core's AutoFile, BufferedWriter, Obfuscation.
    ("WriteBlock", "-buffered", "block record through BufferedWriter onto AutoFile"),
    ("WriteBlock", "-unbuffered", "block record into AutoFile, field by field"),
    ("ReadBlock", "-unbuffered", "block record from AutoFile, field by field"),
    # Core's BlockManager (a tree block_store drives): node/blockstorage.cpp's own WriteBlock and ReadBlock.
    ("WriteBlock", "-blockmanager", "BlockManager::WriteBlock: placement, allocation, record"),
    ("ReadBlock", "-blockmanager", "BlockManager::ReadBlock: raw read, decode, header checks"),
]
# Cases only a tree of the v31 cycle has (serdiff_bench_core builds the BlockManager rows where block_store runs):
# when one side has none of a case's rows, the case is left out of the comparison and the message says so.
TREE_DEPENDENT = {what for _, suffix, what in CASES if suffix == "-blockmanager"}
WHAT_ORDER = {what: index for index, (_, _, what) in enumerate(CASES)}
SIDES = ("base", "head")
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class MissingRows(ValueError):
    """A case one side (or one round) has and the other has not: the two binaries cannot be compared row by row."""


# -- pure logic (tests/bench_compare_test.py) ----------------------------------------------------------------------

def case_key(benchmark_name, name):
    """(group, block, what) of a serdiff_bench_core case run under --name=NAME, or None for any other name."""
    parts = benchmark_name.split("/")
    if parts and parts[-1] == "manual_time":
        parts = parts[:-1]
    if len(parts) != 3:
        return None
    group, block, row = parts
    for case_group, suffix, what in CASES:
        if group == case_group and row == name + suffix:
            return group, block, what
    return None


def parse_run(data, name):
    """{(group, block, what): ns per operation} of one Google Benchmark json run (a dict) under --name=NAME.
    Aggregates other than the median are ignored; a case with several repetitions and no median aggregate gets
    the median of its repetitions."""
    samples, medians = {}, {}
    for entry in data.get("benchmarks", []):
        key = case_key(entry.get("run_name", entry.get("name", "")), name)
        if key is None or entry.get("error_occurred"):
            continue
        unit = entry.get("time_unit", "ns")
        if unit not in UNIT_NS:
            raise ValueError(f"{entry.get('name')}: unknown time unit {unit!r}")
        ops = entry.get("ops_per_run", 1) or 1
        ns_per_op = float(entry["real_time"]) * UNIT_NS[unit] / ops
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                medians[key] = ns_per_op
            continue
        samples.setdefault(key, []).append(ns_per_op)
    result = {key: statistics.median(values) for key, values in samples.items()}
    result.update(medians)
    return result


def round_orders(rounds):
    """The order of the two sides in each round: base first, then head first, alternating."""
    return [SIDES if index % 2 == 0 else SIDES[::-1] for index in range(rounds)]


def median_over_rounds(runs, side):
    """{key: median ns} of one side's per-round results ([{key: ns}], one dict per round). Every round must have
    the same cases: a case missing from one round raises MissingRows naming it and the round."""
    if not runs:
        raise MissingRows(f"{side}: no timed round")
    keys = set().union(*runs)
    for index, run in enumerate(runs, 1):
        missing = sorted(keys - set(run))
        if missing:
            raise MissingRows(f"{side}: round {index} has no row for " + ", ".join(row_label(key) for key in missing))
    return {key: statistics.median(run[key] for run in runs) for key in keys}


def row_label(key):
    group, block, what = key
    return f"{group}/{block} ({what})"


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


def sort_key(key):
    group, block, what = key
    height = block.split(":")[0]  # the file rows' blocks are <height>:plain and <height>:xor
    return (int(height) if height.isdigit() else float("inf"), block, WHAT_ORDER.get(what, len(WHAT_ORDER)))


def combine(base_ns, head_ns, base_instructions=None, head_instructions=None, notes=None):
    """The rows of the report from each side's {key: ns} (medians) and, optionally, {key: instructions per op}.
    Both sides must have the same cases (MissingRows otherwise, naming what is missing on which side), but for a
    TREE_DEPENDENT case one side has none of (it is left out, and `notes`, a list, gets a line saying so); a side's
    instruction count may be absent (null in the row)."""
    for what in sorted(TREE_DEPENDENT):
        has = {side: any(key[2] == what for key in ns) for side, ns in (("base", base_ns), ("head", head_ns))}
        if has["base"] != has["head"]:
            base_ns = {key: value for key, value in base_ns.items() if key[2] != what}
            head_ns = {key: value for key, value in head_ns.items() if key[2] != what}
            if notes is not None:
                notes.append(f"{what}: only {'BASE' if has['base'] else 'HEAD'}'s tree has it, not compared")
    problems = []
    for side, mine, other in (("base", base_ns, head_ns), ("head", head_ns, base_ns)):
        missing = sorted(set(other) - set(mine), key=sort_key)
        if missing:
            problems.append(f"{side} has no row for " + ", ".join(row_label(key) for key in missing))
    if problems:
        raise MissingRows("; ".join(problems))
    if not base_ns:
        raise MissingRows("no serdiff_bench_core row in either run")
    base_instructions = base_instructions or {}
    head_instructions = head_instructions or {}
    rows = []
    for key in sorted(base_ns, key=sort_key):
        group, block, what = key
        base_i, head_i = base_instructions.get(key), head_instructions.get(key)
        rows.append({"group": group, "block": block, "what": what,
                     "base_ns": base_ns[key], "head_ns": head_ns[key], "speedup": ratio(base_ns[key], head_ns[key]),
                     "base_instructions": base_i, "head_instructions": head_i,
                     "instruction_ratio": ratio(base_i, head_i)})
    return rows


def instructions_per_op(cases, totals, name):
    """{key: instructions per operation} from callgrind_binary's ({case: (ops, bytes, self_timed)}, {dump: total})."""
    result = {}
    for case, (ops, _bytes, _self_timed) in cases.items():
        key = case_key(case, name)
        if key is not None and case in totals:
            result[key] = totals[case] / (ops or 1)
    return result


def format_number(value, digits=0):
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def markdown(result):
    """bench.md: the status, the load, the command and the table."""
    lines = [f"# BASE vs HEAD: Bitcoin Core's block serialization ({result['status']})", ""]
    if result.get("message"):
        lines += [result["message"], ""]
    load = ", ".join(f"{value:.2f}" for value in result.get("load") or [])
    load_after = ", ".join(f"{value:.2f}" for value in result.get("load_after") or [])
    lines += [f"Load average (1, 5, 15 min): {load or '?'} at the start, {load_after or '?'} at the end; "
              f"{result.get('rounds', '?')} interleaved rounds, median per case. speedup = base time / head time, "
              "instruction ratio = base / head: above 1, HEAD is faster.", "",
              f"Re-run: `{result.get('command', '')}`", ""]
    if not result.get("rows"):
        return "\n".join(lines) + "\n"
    cores = os.cpu_count() or 1
    peak = max([*(result.get("load") or [0])[:1], *(result.get("load_after") or [0])[:1]])
    if peak > cores:
        lines += [f"**The 1-minute load reached {peak:.2f} on {cores} cores: the times are unreliable (rows the change "
                  "does not touch may move too); the instruction counts are not affected by load.**", ""]
    lines += ["Times: wall clock per operation, Core's SHA-256 as SHA256AutoDetect() picks it on this CPU. Instructions: "
              "callgrind, where SHA256AutoDetect() finds no SHA-NI (valgrind's CPUID lacks it), so the txid-hashing "
              "rows count another SHA-256 implementation than the one timed; the same on both sides.", ""]
    header = ("block", "operation", "base µs", "head µs", "speedup", "base instr/op", "head instr/op", "instr ratio")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in result["rows"]:
        cells = (row["block"], f"{row['group']}: {row['what']}", format_number(row["base_ns"] / 1e3, 1),
                 format_number(row["head_ns"] / 1e3, 1), format_number(row["speedup"], 3),
                 format_number(row["base_instructions"]), format_number(row["head_instructions"]),
                 format_number(row["instruction_ratio"], 4))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# -- building and running ------------------------------------------------------------------------------------------

def core_tree(tree):
    """The Core tree holding src/ (given src/ itself, its parent); ValueError when it is not one."""
    tree = Path(os.path.abspath(tree))
    if not (tree / "src" / "serialize.h").is_file() and tree.name == "src" and (tree / "serialize.h").is_file():
        tree = tree.parent
    if not (tree / "src" / "serialize.h").is_file():
        raise ValueError(f"{tree} is not a Bitcoin Core tree (no src/serialize.h)")
    return tree


def configured_tree(build_dir):
    """The Core tree a build directory was configured for, or None: its CMakeCache's SERDIFF_CORE_TREE (what the
    last successful configure compiled) when SERDIFF_CORE_SRC (what was asked last) names the same tree. A
    configure that failed leaves them different, and the directory counts as not configured."""
    cache = Path(build_dir) / "CMakeCache.txt"
    if not cache.is_file() or not (Path(build_dir) / "build.ninja").is_file():
        return None
    values = {}
    for line in cache.read_text(errors="replace").splitlines():
        for variable in ("SERDIFF_CORE_TREE", "SERDIFF_CORE_SRC"):
            if line.startswith(variable + ":"):
                values[variable] = line.split("=", 1)[1].strip()
    tree = values.get("SERDIFF_CORE_TREE")
    if not tree or not values.get("SERDIFF_CORE_SRC") or os.path.abspath(values["SERDIFF_CORE_SRC"]) != tree:
        return None
    return tree


def tail(path, count=BUILD_LOG_LINES):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-count:])
    except OSError:
        return ""


def build(side, tree, jobs, log):
    """Configures (when not configured for this tree) and builds serdiff_bench_core for one side: (binary, None)
    or (None, error message with the log's path and last lines)."""
    build_dir = BUILD_DIRS[side]
    log_path = build_dir.parent / f"{build_dir.name}.log"
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    commands = []
    if configured_tree(build_dir) != str(tree):
        commands.append(["cmake", "--preset", PRESET, "-B", str(build_dir), f"-DSERDIFF_CORE_SRC={tree}",
                         *CONFIGURE_FLAGS])
    commands.append(["nice", "cmake", "--build", str(build_dir), "--target", TARGET, "-j", str(jobs)])
    status = 0
    with open(log_path, "w") as out:
        for command in commands:
            log(f"{side}: {shlex.join(command)} (log {shown(log_path)})")
            out.write("$ " + shlex.join(command) + "\n")
            out.flush()
            status = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT).returncode
            if status != 0:
                break
    if status != 0:
        return None, (f"{side} build failed (status {status}, tree {tree}): {shown(log_path)}; its last "
                      f"lines:\n{tail(log_path)}")
    binary = build_dir / "bin" / TARGET
    if not binary.is_file():
        return None, f"{side} build made no {binary} (log {shown(log_path)}):\n{tail(log_path)}"
    return binary, None


def shown(path):
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def run_timed(binary, side, out_file, scratch, min_time=MIN_TIME):
    """One Google Benchmark run of a binary under --name=SIDE, its json kept in out_file: {key: ns per op}."""
    command = [str(binary), f"--name={side}", f"--scratch={scratch}", "--benchmark_format=json",
               f"--benchmark_min_time={min_time}"]
    completed = subprocess.run(command, capture_output=True, text=True)
    Path(out_file).write_text(completed.stdout)
    if completed.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed with status {completed.returncode}: "
                           f"{completed.stderr.strip()[-2000:]}")
    return parse_run(json.loads(completed.stdout), side)


def run_callgrind(binary, side, out):
    """Instructions per operation of each case of one binary under callgrind: {key: instructions}."""
    out_dir = out / "callgrind"
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob(f"callgrind.{side}.out*"):
        stale.unlink()
    arguments = types.SimpleNamespace(out=str(out), filter=".")
    try:
        cases, totals = bench_report.callgrind_binary(arguments, str(out_dir), str(binary), side, [f"--name={side}"])
    except SystemExit as error:  # report.py exits on a failed valgrind run
        raise RuntimeError(f"{side}: {error}") from None
    return instructions_per_op(cases, totals, side)


def load_average():
    return [round(value, 2) for value in os.getloadavg()]


def rerun_command(base_tree, head_tree, out, rounds, callgrind):
    command = ["python3", "tools/review/bench_compare.py", "--base-tree", shown(base_tree), "--head-tree",
               shown(head_tree), "--out", shown(out), "--rounds", str(rounds)]
    return shlex.join(command + ([] if callgrind else ["--no-callgrind"]))


def write(result, out):
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "bench.md").write_text(markdown(result))


def compare(base_tree: Path, head_tree: Path, out: Path, jobs: int = 2, rounds: int = 5, log=print, *,
            callgrind: bool = True, min_time: float = MIN_TIME) -> dict:
    """Builds serdiff_bench_core from both trees, times them interleaved over `rounds` rounds, counts their
    instructions under callgrind (unless callgrind=False), writes out/bench.json and out/bench.md and returns the
    dict written. A build or run failure gives status "error" and its message; it never raises for one. log gets
    one progress line per step (the CLI prefixes the seconds since its start)."""
    out = Path(out)
    progress = log  # the CLI's log adds the seconds since the start; review.py's adds its own

    result = {"status": "error", "message": "", "command": rerun_command(base_tree, head_tree, out, rounds, callgrind),
              "load": load_average(), "load_after": None, "rounds": rounds, "rows": []}
    try:
        trees = {"base": core_tree(base_tree), "head": core_tree(head_tree)}
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {rounds}")
        binaries = {}
        for side in SIDES:
            progress(f"build {side}: {TARGET} from {trees[side]} in {shown(BUILD_DIRS[side])}")
            binary, error = build(side, trees[side], jobs, progress)
            if error:
                result["message"] = error
                return finish(result, out, progress)
            binaries[side] = binary
        runs_dir = out / "runs"
        runs_dir.mkdir(parents=True, exist_ok=True)
        scratch = out / "files"
        timed = {side: [] for side in SIDES}
        for index, order in enumerate(round_orders(rounds), 1):
            for side in order:
                timed[side].append(run_timed(binaries[side], side, runs_dir / f"round{index}-{side}.json", scratch,
                                             min_time))
            progress(f"time: round {index}/{rounds} ({' then '.join(order)}), load {load_average()[0]:.2f}")
        medians = {side: median_over_rounds(timed[side], side) for side in SIDES}
        instructions = {side: {} for side in SIDES}
        callgrind_note = "" if callgrind else "; instructions not counted (--no-callgrind)"
        if callgrind:
            try:
                for side in SIDES:
                    progress(f"instructions: {side} under valgrind --tool=callgrind")
                    instructions[side] = run_callgrind(binaries[side], side, out)
            except (RuntimeError, OSError, subprocess.SubprocessError) as error:
                # The times stand without the counts: the rows keep null instructions and the message says why.
                instructions = {side: {} for side in SIDES}
                callgrind_note = f"; instructions not counted, callgrind failed: {error}"
                progress(f"instructions: callgrind failed: {error}")
        notes = []
        result["rows"] = combine(medians["base"], medians["head"], instructions["base"], instructions["head"], notes)
        result["status"] = "measured"
        result["message"] = f"{len(result['rows'])} cases" + callgrind_note + "".join(f"; {note}" for note in notes)
    except (ValueError, RuntimeError, OSError, subprocess.SubprocessError) as error:
        result["message"] = str(error)
    return finish(result, out, progress)


def finish(result, out, progress):
    result["load_after"] = load_average()
    write(result, out)
    progress(f"{result['status']}: wrote {shown(out / 'bench.json')} and {shown(out / 'bench.md')}")
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-tree", required=True, type=Path, help="Bitcoin Core tree of BASE (holding src/)")
    parser.add_argument("--head-tree", required=True, type=Path, help="Bitcoin Core tree of HEAD (holding src/)")
    parser.add_argument("--out", type=Path, default=Path("review-out/bench"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=MIN_TIME, help="seconds per case and run")
    parser.add_argument("--no-callgrind", action="store_true", help="time only, no instruction counts")
    arguments = parser.parse_args(argv)
    started = time.time()

    def log(message):
        print(f"bench [{time.time() - started:7.1f} s] {message}", file=sys.stderr, flush=True)

    result = compare(arguments.base_tree, arguments.head_tree, arguments.out, jobs=arguments.jobs,
                     rounds=arguments.rounds, log=log,
                     callgrind=not arguments.no_callgrind, min_time=arguments.min_time)
    print(markdown(result), end="")
    return 0 if result["status"] == "measured" else 1


if __name__ == "__main__":
    sys.exit(main())
