#!/usr/bin/env python3
"""Runs serdiff_bench and prints the table of docs/bench.md, also written as bench-out/results.json.

  bench/report.py run --binary build/bench/bin/serdiff_bench [--core-binary [NAME=]PATH ...] [--out bench-out]
                      [--repetitions 3] [--min-time 0.2] [--filter REGEX]
  bench/report.py callgrind --binary build/bench/bin/serdiff_bench [--core-binary [NAME=]PATH ...] [--out bench-out]
                      [--filter REGEX]

`run` uses Google Benchmark (median of the repetitions, wall-clock time); `callgrind` runs every case once
under valgrind --tool=callgrind and reports instructions per operation, which machine noise does not move.

--core-binary: a serdiff_bench_core (Bitcoin Core's code compiled from a Core tree, bench/core_cases.cpp), run
with the same settings; its rows are named NAME (default core-src), NAME-reused and NAME-nohash and shown beside the
optimized rows they compare with. Give it once per Core tree (e.g.
core-base=build/bench-base/bin/serdiff_bench_core core-head=build/bench/bin/serdiff_bench_core). With Core binaries,
--filter is applied here to every binary's --list, and the rows compared run slot by slot: for each group and block
of the Core rows, serdiff_bench's rows of that group and block, then each Core binary's (seconds apart, so they see
the same load on a shared machine); then the rest of serdiff_bench. Each run's Google Benchmark output is in
OUT/runs/, all of them merged in OUT/google-benchmark.json.
Python standard library only.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

# The benchmark goals (docs/bench.md): (description, numerator group/implementation, denominator, target, kind).
# kind "faster": time(denominator) / time(numerator) >= target; "within": time(num) / time(den) <= target.
BLOCK_GOALS = [
    ("SerializeBlock optimized >= 3x faster than reference", ("SerializeBlock", "optimized"),
     ("SerializeBlock", "reference"), 3.0, "faster"),
    ("SizeComputerBlock >= 10x faster than optimized SerializeBlock", ("SizeComputerBlock", "optimized"),
     ("SerializeBlock", "optimized"), 10.0, "faster"),
    ("SerializeBlock optimized within 4x of memcpy", ("SerializeBlock", "optimized"), ("memcpy", "memcpy"), 4.0,
     "within"),
    ("SerializeBlock optimized-reused within 4x of memcpy", ("SerializeBlock", "optimized-reused"),
     ("memcpy", "memcpy"), 4.0, "within"),
]
PEERS = ["rust-bitcoin", "btcd"]
# Peers encode into a reused buffer, so they are compared with optimized-reused; decode with optimized.
PEER_GOALS = [
    ("DeserializeBlock optimized faster than {peer}", ("DeserializeBlock", "optimized"), ("DeserializeBlock", "{peer}"),
     1.0, "faster"),
    ("SerializeBlock optimized-reused faster than {peer}", ("SerializeBlock", "optimized-reused"),
     ("SerializeBlock", "{peer}"), 1.0, "faster"),
]
# Bitcoin Core (libbitcoinkernel): its block decode builds CTransactions, which hash every transaction (txid, and
# wtxid when it has a witness), so it is compared with optimized+txids (decode plus the same hashes); its encode
# goes through the C API's writer callback into a reused buffer, compared with optimized-reused.
CORE = "bitcoin-core"
CORE_GOALS = [
    ("DeserializeBlock optimized+txids (same work) faster than bitcoin-core", ("DeserializeBlock", "optimized+txids"),
     ("DeserializeBlock", CORE), 1.0, "faster"),
    ("SerializeBlock optimized-reused faster than bitcoin-core", ("SerializeBlock", "optimized-reused"),
     ("SerializeBlock", CORE), 1.0, "faster"),
]
# Bitcoin Core compiled from source (serdiff_bench_core, one per Core tree, rows named after its NAME): which
# optimized row each of its rows compares with, like for like: (group, optimized row, Core row suffix, what).
CORE_SOURCE_PAIRS = [
    ("SerializeBlock", "optimized-reused", "-reused", "serialize into a reused buffer"),
    ("DeserializeBlock", "optimized", "-nohash", "decode, no hashing"),
    ("DeserializeBlock", "optimized+txids", "", "decode + txid/wtxid"),
    ("SizeComputerBlock", "optimized", "", "size computer"),
    ("WriteBlock", "optimized-buffered", "-buffered", "block record through a BufferedWriter onto an AutoFile"),
    ("WriteBlock", "autofile-unbuffered", "-unbuffered", "block record into an AutoFile, field by field"),
    ("ReadBlock", "autofile-unbuffered", "-unbuffered", "block record from an AutoFile, field by field"),
]
DEFAULT_CORE_NAME = "core-src"
STORE_GOALS = [
    ("WriteBlock with a key: buffered >= 2.5x faster than unbuffered", "WriteBlock", ":xor", 2.5),
    ("ReadBlock with a key: buffered >= 1.2x faster than unbuffered", "ReadBlock", ":xor", 1.2),
    ("ReadBlock without a key: buffered >= 1.2x faster than unbuffered", "ReadBlock", ":plain", 1.2),
]


def machine_description():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0, 0, 0)
    compiler = subprocess.run(["clang++-19", "--version"], capture_output=True, text=True).stdout.splitlines()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "compiler": compiler[0] if compiler else "unknown",
        "flags": "-O2 -DNDEBUG (CMake preset bench)",
        "load_average_at_start": [round(value, 2) for value in load],
        "git_commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def split_name(name):
    parts = name.split("/")
    if parts[-1] == "manual_time":
        parts = parts[:-1]
    return parts[0], parts[1], "/".join(parts[2:])


def load_google_benchmark(path):
    with open(path) as raw:
        data = json.load(raw)
    results = {}
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "aggregate" and entry.get("aggregate_name") not in ("median", "min"):
            continue
        group, subject, implementation = split_name(entry["run_name"])
        assert entry["time_unit"] == "us", entry["time_unit"]
        ops = entry.get("ops_per_run", 1) or 1
        ns_per_op = entry["real_time"] * 1000.0 / ops
        key = (group, subject, implementation)
        record = results.setdefault(key, {"group": group, "subject": subject, "implementation": implementation,
                                          "bytes_per_op": int(entry.get("bytes_per_op", 0))})
        if entry.get("run_type") != "aggregate":
            record.setdefault("samples_ns", []).append(ns_per_op)
            continue
        record[entry["aggregate_name"] + "_ns"] = ns_per_op
    for record in results.values():
        samples = sorted(record.get("samples_ns", []))
        if "median_ns" not in record and samples:
            record["median_ns"] = samples[len(samples) // 2]
        if "min_ns" not in record and samples:
            record["min_ns"] = samples[0]
        record["ns_per_op"] = record["median_ns"]
        record["mb_per_s"] = record["bytes_per_op"] / record["ns_per_op"] * 1000.0 if record["bytes_per_op"] else None
    return data.get("context", {}), results


def value(results, group, subject, implementation, field="ns_per_op"):
    record = results.get((group, subject, implementation))
    return record[field] if record else None


def evaluate_goals(results, field):
    """Every goal on every subject it applies to: [{goal, subject, measured, target, met}]."""
    goals = []
    subjects = sorted({key[1] for key in results if key[0] == "SerializeBlock"})
    for subject in subjects:
        for description, numerator, denominator, target, kind in BLOCK_GOALS:
            goals.append(ratio_goal(results, field, description, subject, subject, numerator, denominator, target,
                                    kind))
        for description, numerator, denominator, target, kind in CORE_GOALS:
            goals.append(ratio_goal(results, field, description, subject, subject, numerator, denominator, target,
                                    kind))
        for peer in PEERS:
            for description, numerator, denominator, target, kind in PEER_GOALS:
                den = (denominator[0], denominator[1].format(peer=peer))
                goals.append(ratio_goal(results, field, description.format(peer=peer), subject, subject, numerator,
                                        den, target, kind))
        for description, group, suffix, target in STORE_GOALS:
            goals.append(ratio_goal(results, field, description, subject + suffix, subject + suffix,
                                    (group, "optimized-buffered"), (group, "autofile-unbuffered"), target, "faster"))
    goals.append(ratio_goal(results, field, "Obfuscate batched >= 8x byte-at-a-time, unaligned", "1MiB:unaligned",
                            "1MiB:unaligned", ("Obfuscate", "batched"), ("Obfuscate", "byte-at-a-time"), 8.0,
                            "faster"))
    return goals


def ratio_goal(results, field, description, subject, den_subject, numerator, denominator, target, kind):
    num = value(results, numerator[0], subject, numerator[1], field)
    den = value(results, denominator[0], den_subject, denominator[1], field)
    goal = {"goal": description, "subject": subject, "target": target, "kind": kind}
    if num is None or den is None:
        goal.update(measured=None, met=None)
        return goal
    measured = den / num if kind == "faster" else num / den
    goal.update(measured=round(measured, 2), met=measured >= target if kind == "faster" else measured <= target)
    return goal


def core_names(results):
    """The NAMEs of the Core-from-source binaries whose rows are in `results`, in the order they were run."""
    names = []
    for record in results.values():
        name = record.get("core_name")
        if name and name not in names:
            names.append(name)
    return names


def core_source_comparisons(results, field):
    """Each Core-from-source row against the optimized row it compares with:
    [{core_name, subject, group, what, optimized, core, optimized_value, core_value, ratio}], ratio being
    core / optimized (how many times faster, or fewer instructions, the optimized side is)."""
    comparisons = []
    groups = {pair[0] for pair in CORE_SOURCE_PAIRS}
    subjects = sorted({key[1] for key in results if key[0] in groups}, key=natural_key)
    for name in core_names(results):
        for subject in subjects:
            for group, optimized, suffix, what in CORE_SOURCE_PAIRS:
                core = name + suffix
                opt_value = value(results, group, subject, optimized, field)
                core_value = value(results, group, subject, core, field)
                if core_value is None:
                    continue
                comparisons.append({"core_name": name, "subject": subject, "group": group, "what": what,
                                    "optimized": optimized, "core": core, "optimized_value": opt_value,
                                    "core_value": core_value,
                                    "ratio": round(core_value / opt_value, 3) if opt_value else None})
    return comparisons


def ratio_text(results, key, field):
    """The ratios shown beside a row: against the reference, memcpy, the unbuffered path, the peers, Core."""
    group, subject, implementation = key
    own = results[key][field]
    texts = []
    names = core_names(results)

    def faster(label, other):
        if other is not None and own:
            word = "faster than" if field == "ns_per_op" else "fewer instructions than"
            texts.append(f"{other / own:.2f}x {word} {label}")

    if group in ("SerializeBlock", "DeserializeBlock", "SizeComputerBlock") and implementation.startswith("optimized"):
        faster("reference", value(results, group, subject, "reference", field))
        memcpy = value(results, "memcpy", subject, "memcpy", field)
        if memcpy and group != "SizeComputerBlock":
            texts.append(f"{own / memcpy:.2f}x memcpy")
        if group == "SizeComputerBlock":
            faster("optimized SerializeBlock", value(results, "SerializeBlock", subject, "optimized", field))
        if implementation == ("optimized-reused" if group == "SerializeBlock" else "optimized"):
            for peer in PEERS:
                faster(peer, value(results, group, subject, peer, field))
        if implementation == ("optimized-reused" if group == "SerializeBlock" else "optimized+txids"):
            faster(CORE + " (same work)" if group == "DeserializeBlock" else CORE,
                   value(results, group, subject, CORE, field))
        for name in names:
            for pair_group, optimized, suffix, _ in CORE_SOURCE_PAIRS:
                if (pair_group, optimized) == (group, implementation):
                    faster(name + suffix, value(results, group, subject, name + suffix, field))
    elif results[key].get("core_name") and group in ("SerializeBlock", "DeserializeBlock"):
        # A Core-from-source row: against the kernel library's row of the same Core code, and its hashing share.
        name = results[key]["core_name"]
        kernel = value(results, group, subject, CORE, field)
        if kernel and implementation != name + "-nohash":
            measure = "the time" if field == "ns_per_op" else "the instructions"
            texts.append(f"{own / kernel:.2f}x {measure} of {CORE} (libbitcoinkernel)")
        nohash = value(results, group, subject, name + "-nohash", field)
        if implementation == name and group == "DeserializeBlock" and nohash and own:
            texts.append(f"{name}-nohash is {nohash / own:.2f}x of it")
    elif group == "SerializeBlock" and implementation == CORE + "-discard":
        core = value(results, group, subject, CORE, field)
        if core:
            measure = "the time" if field == "ns_per_op" else "the instructions"
            texts.append(f"{own / core:.2f}x {measure} of {CORE} (callback keeps nothing)")
    elif group in ("WriteBlock", "ReadBlock") and implementation.startswith("optimized"):
        faster("unbuffered", value(results, group, subject, "autofile-unbuffered", field))
        faster("reference", value(results, group, subject, "reference", field))
    elif group == "Obfuscate" and implementation == "batched":
        faster("byte-at-a-time", value(results, group, subject, "byte-at-a-time", field))
    elif (group.startswith("CompactSize") or group.startswith("VarInt")) and implementation == "optimized":
        faster("reference", value(results, group, subject, "reference", field))
    return "; ".join(texts)


def format_ns(ns):
    if ns is None:
        return "-"
    if ns >= 100_000:
        return f"{ns:,.0f}"
    if ns >= 100:
        return f"{ns:,.1f}"
    return f"{ns:.2f}"


def natural_key(text):
    """Natural order: "2B" before "10B"."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def core_source_lines(results, field, unit_label):
    """Per Core tree, a table of each block: the optimized row, the Core-from-source row it compares with, and
    how many times faster the optimized side is."""
    comparisons = core_source_comparisons(results, field)
    lines = []
    word = "faster" if field == "ns_per_op" else "fewer instructions"
    for name in core_names(results):
        rows = [c for c in comparisons if c["core_name"] == name]
        if not rows:
            continue
        lines += ["", f"Bitcoin Core compiled from source (`{name}`) beside the optimized side, {unit_label}; "
                      f"the last column is how many times {word} the optimized row is:", "",
                  "| block | what | optimized row | optimized | Core row | Core | optimized vs Core |",
                  "|---|---|---|---:|---|---:|---:|"]
        for c in rows:
            def number(x):
                if x is None:
                    return "-"
                return format_ns(x) if field == "ns_per_op" else f"{x:,.0f}"
            ratio = "-" if c["ratio"] is None else f"{c['ratio']:.2f}x"
            lines.append(f"| {c['subject']} | {c['group']}: {c['what']} | {c['optimized']} | "
                         f"{number(c['optimized_value'])} | {c['core']} | {number(c['core_value'])} | {ratio} |")
    return lines


def table_lines(results, field, unit_label, goals, notes):
    lines = [f"| benchmark | subject | implementation | {unit_label} | MB/s | ratios |", "|---|---|---|---:|---:|---|"]
    order = ["SerializeBlock", "DeserializeBlock", "SizeComputerBlock", "memcpy", "WriteBlock", "ReadBlock",
             "Obfuscate"]

    implementations = ["optimized", "optimized-reused", "optimized+txids", "optimized-buffered",
                       "optimized-bufferedreader", "batched", "autofile-unbuffered", "byte-at-a-time", "reference",
                       CORE, CORE + "-discard", "rust-bitcoin", "btcd", "memcpy"]
    names = core_names(results)

    def sort_key(key):
        group, subject, implementation = key
        rank = order.index(group) if group in order else len(order)
        # Natural order of subjects, then the implementations in the order above; Core-from-source rows right
        # after the optimized rows (each tree's rows together, in the order they ran).
        if results[key].get("core_name") in names:
            implementation_rank = (implementations.index("optimized+txids") + 0.5 +
                                   names.index(results[key]["core_name"]) * 0.01)
        else:
            implementation_rank = implementations.index(implementation) if implementation in implementations else 99
        return (rank, group, natural_key(subject), implementation_rank, implementation)

    for key in sorted(results, key=sort_key):
        record = results[key]
        number = record.get(field)
        if number is None:
            continue
        speed = record["bytes_per_op"] / number * 1000.0 if record["bytes_per_op"] and field == "ns_per_op" else None
        speed_text = f"{speed:,.0f}" if speed else ""
        number_text = format_ns(number) if field == "ns_per_op" else f"{number:,.0f}"
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {number_text} | {speed_text} | "
                     f"{ratio_text(results, key, field)} |")
    lines += core_source_lines(results, field, unit_label)
    lines.append("")
    lines.append("| goal | subject | measured | target | met |")
    lines.append("|---|---|---:|---:|---|")
    for goal in goals:
        measured = "-" if goal["measured"] is None else f"{goal['measured']:.2f}x"
        target = ("≥ " if goal["kind"] == "faster" else "≤ ") + f"{goal['target']:g}x"
        met = "n/a (not measured)" if goal["met"] is None else ("yes" if goal["met"] else "**no**")
        lines.append(f"| {goal['goal']} | {goal['subject']} | {measured} | {target} | {met} |")
    for note in notes:
        lines.append("")
        lines.append(note)
    return lines


def parse_core_binaries(specs):
    """--core-binary values ([NAME=]PATH) as [(name, path)]; names must differ and contain no '/'."""
    binaries = []
    for spec in specs or []:
        name, separator, path = spec.partition("=")
        if not separator:
            name, path = DEFAULT_CORE_NAME, spec
        if not name or "/" in name or not path:
            sys.exit(f"bench: --core-binary {spec!r}: expected [NAME=]PATH, NAME without '/'")
        if name in [existing for existing, _ in binaries]:
            sys.exit(f"bench: --core-binary: the name {name!r} is given twice")
        binaries.append((name, path))
    return binaries


def tag_core_rows(results, name, binary):
    """Marks the rows of one serdiff_bench_core run as that Core tree's (name, binary)."""
    for record in results.values():
        record["core_name"] = name
        record["core_binary"] = binary
    return results


# The groups whose rows a Core-from-source binary has. With --core-binary, each (group, block) of them runs as its
# own slot: serdiff_bench's rows of that group and block, then each Core binary's, seconds apart, so that on a
# shared machine the rows compared see the same load; the rest of serdiff_bench runs after the slots.
CORE_SOURCE_GROUPS = ("SerializeBlock", "DeserializeBlock", "SizeComputerBlock", "WriteBlock", "ReadBlock")


def list_cases(binary, extra):
    """The case names a benchmark binary registers (its --list)."""
    completed = subprocess.run([binary, "--list"] + extra, capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"bench: {binary} --list failed with status {completed.returncode}: {completed.stderr.strip()}")
    return [line for line in completed.stdout.splitlines() if line]


def filter_matches(pattern, name):
    """Google Benchmark's --benchmark_filter on one name: a regex searched in it; a leading '-' negates."""
    if pattern.startswith("-"):
        return not re.search(pattern[1:], name)
    return re.search(pattern, name) is not None


def exact_filter(names):
    """A --benchmark_filter matching exactly these case names (a self-timed case's name ends in /manual_time)."""
    escaped = [re.sub(r"([.\[\](){}*+?|^$\\])", r"\\\1", name) for name in names]
    return "^(" + "|".join(escaped) + ")(/manual_time)?$"


class BenchmarkRuns:
    """The Google Benchmark runs of one `run`: each binary run with the same settings, the results merged."""

    def __init__(self, args):
        self.args = args
        self.raw_dir = os.path.join(args.out, "runs")
        os.makedirs(self.raw_dir, exist_ok=True)
        for stale in glob.glob(os.path.join(self.raw_dir, "*.json")):
            os.remove(stale)
        self.outputs = []   # every Google Benchmark output, merged into google-benchmark.json
        self.context = {}   # serdiff_bench's
        self.results = {}

    def run(self, label, command, benchmark_filter, source=None):
        """One run; `source` (a core_sources entry) marks a Core binary's rows as that tree's."""
        raw_path = os.path.join(self.raw_dir, f"{len(self.outputs) + 1:02d}-{label}.json")
        command = command + [f"--benchmark_out={raw_path}", "--benchmark_out_format=json",
                             f"--benchmark_repetitions={self.args.repetitions}",
                             f"--benchmark_min_time={self.args.min_time}", f"--benchmark_filter={benchmark_filter}"]
        print("bench: " + " ".join(command), file=sys.stderr, flush=True)
        # Google Benchmark prints one line per run on stdout: the progress of the long run.
        completed = subprocess.run(command)
        if completed.returncode != 0:
            sys.exit(f"bench: {command[0]} failed with status {completed.returncode}")
        # A filter that matches nothing leaves Google Benchmark's output file empty.
        if not os.path.exists(raw_path) or os.path.getsize(raw_path) == 0:
            return
        with open(raw_path) as raw:
            self.outputs.append(json.load(raw))
        context, results = load_google_benchmark(raw_path)
        if source is None:
            self.context = self.context or context
        else:
            tag_core_rows(results, source["name"], source["binary"])
            clash = sorted("/".join(key) for key in results if key in self.results)
            if clash:
                sys.exit(f"bench: --core-binary {source['name']}={source['binary']}: its rows {clash[:3]} clash with "
                         "serdiff_bench's (choose another NAME)")
            source["rows"] += len(results)
            source["notes"] = source["notes"] or context.get("serdiff_notes", "")
        self.results.update(results)

    def write_merged(self, path):
        with open(path, "w") as merged:
            json.dump({"context": self.outputs[0].get("context", {}) if self.outputs else {},
                       "benchmarks": [entry for output in self.outputs for entry in output.get("benchmarks", [])]},
                      merged, indent=1)


def run_benchmarks(args):
    os.makedirs(args.out, exist_ok=True)
    scratch = f"--scratch={os.path.join(args.out, 'files')}"
    core_binaries = parse_core_binaries(args.core_binary)
    machine = machine_description()
    runs = BenchmarkRuns(args)
    core_sources = [{"name": name, "binary": binary, "rows": 0, "notes": ""} for name, binary in core_binaries]
    if not core_sources:
        runs.run("serdiff_bench", [args.binary, scratch], args.filter)
    else:
        # The comparable rows slot by slot, serdiff_bench's then each Core binary's; then the rest of serdiff_bench.
        serdiff_names = [name for name in list_cases(args.binary, [scratch]) if filter_matches(args.filter, name)]
        core_names_by_source = [[name for name in list_cases(source["binary"], [f"--name={source['name']}"])
                                 if filter_matches(args.filter, name)] for source in core_sources]
        slots = []
        for names in core_names_by_source:
            for name in names:
                slot = split_name(name)[:2]
                if slot[0] in CORE_SOURCE_GROUPS and slot not in slots:
                    slots.append(slot)
        for slot in slots:
            in_slot = [name for name in serdiff_names if split_name(name)[:2] == slot]
            if in_slot:
                runs.run("serdiff_bench", [args.binary, scratch], exact_filter(in_slot))
            for source, names in zip(core_sources, core_names_by_source):
                in_slot = [name for name in names if split_name(name)[:2] == slot]
                if in_slot:
                    runs.run(source["name"], [source["binary"], f"--name={source['name']}"], exact_filter(in_slot),
                             source)
        rest = [name for name in serdiff_names if split_name(name)[:2] not in slots]
        if rest:
            runs.run("serdiff_bench", [args.binary, scratch], exact_filter(rest))
    runs.write_merged(os.path.join(args.out, "google-benchmark.json"))
    context, results = runs.context, runs.results
    machine["load_average_after"] = [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None
    notes = [f"Blocks: {context.get('serdiff_blocks', '?')}. Block files: {context.get('serdiff_scratch_dir', '?')} "
             "on the local disk, page cache warm (each file written and read once before timing; writes overwrite "
             "the file in place, no fsync)."]
    if context.get("serdiff_notes"):
        notes.append("Notes: " + context["serdiff_notes"])
    if not any(key[2] in PEERS for key in results):
        notes.append("Peers: rust-bitcoin and btcd not measured (this tree was built with SERDIFF_PEERS=OFF, or "
                     "--filter left them out).")
    if not any(key[2] == CORE for key in results):
        notes.append("Bitcoin Core not measured (SERDIFF_PEERS=OFF or SERDIFF_CORE_PEER=OFF, its library missing "
                     "(see the notes), or --filter left it out).")
    notes += core_source_notes(core_sources)
    notes.append(f"Machine: {machine['cpu']}, {machine['cores']} cores, kernel {machine['kernel']}, "
                 f"{machine['compiler']}, {machine['flags']}; load average at start "
                 f"{machine['load_average_at_start']}, at the end {machine['load_average_after']} (a shared machine: "
                 f"ratios are more meaningful than absolute times). Median of {args.repetitions} repetitions of "
                 f">= {args.min_time} s each, wall-clock time.")
    goals = evaluate_goals(results, "ns_per_op")
    lines = table_lines(results, "ns_per_op", "ns/op", goals, notes)
    print("\n".join(lines))
    output = {
        "command": "make bench",
        "machine": machine,
        "settings": {"repetitions": args.repetitions, "min_time_s": args.min_time, "statistic": "median",
                     "clock": "wall (real_time); peers time themselves with their monotonic clock"},
        "context": context,
        "benchmarks": sorted(results.values(), key=lambda record: (record["group"], record["subject"],
                                                                   record["implementation"])),
        "goals": goals,
        "core_sources": core_sources,
        "core_source_comparisons": core_source_comparisons(results, "ns_per_op"),
        "notes": notes,
    }
    with open(os.path.join(args.out, "results.json"), "w") as out:
        json.dump(output, out, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"bench: wrote {args.out}/results.json and {args.out}/results.md ({len(results)} benchmarks, "
          f"{sum(1 for goal in goals if goal['met'])} of {sum(1 for goal in goals if goal['met'] is not None)} "
          f"goals met)", file=sys.stderr)


def core_source_notes(core_sources):
    """The notes on the Core-from-source binaries: which tree, which SHA-256, what each row does."""
    if not core_sources:
        return ["Bitcoin Core compiled from source not measured (no --core-binary: make bench passes "
                "build/bench/bin/serdiff_bench_core, built when SERDIFF_SUBJECTS has core)."]
    notes = []
    for source in core_sources:
        if not source["rows"]:
            notes.append(f"{source['name']} ({source['binary']}): --filter matched none of its rows.")
            continue
        notes.append(f"{source['name']} ({source['binary']}): {source['notes']}. Its rows: "
                     f"`{source['name']}-reused` = CBlock << TX_WITH_WITNESS into a DataStream cleared and reused "
                     f"(compare optimized-reused); `{source['name']}` DeserializeBlock = SpanReader >> "
                     f"TX_WITH_WITNESS(CBlock) into a fresh CBlock, every CTransaction hashing its txid and wtxid "
                     f"(compare optimized+txids); `{source['name']}-nohash` = SpanReader >> CBlockHeader >> "
                     f"TX_WITH_WITNESS(vector<CMutableTransaction>), no hashing (compare optimized); "
                     f"`{source['name']}` SizeComputerBlock = GetSerializeSize(TX_WITH_WITNESS(block)) (compare "
                     f"optimized). Compiled at the bench flags with NDEBUG undefined (Core's util/check.h requires "
                     f"assertions).")
    return notes


def callgrind_binary(args, out_dir, binary, label, extra):
    """Runs one benchmark binary's cases under callgrind: {name: (ops, bytes_per_op, self_timed)} and the dumps'
    {description: instructions}."""
    # Valgrind 3.19 cannot read clang-19's and Rust's newer DWARF: run a copy without debug info (symbols
    # stay). The Go runtime's asynchronous preemption signals crash callgrind: turn them off.
    copy = os.path.join(out_dir, f"{label}.nodebug")
    subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
    out_file = os.path.join(out_dir, f"callgrind.{label}.out")
    command = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out_file}", copy,
               f"--scratch={os.path.join(args.out, 'files')}", "--instructions", f"--filter={args.filter}"] + extra
    print("bench: GODEBUG=asyncpreemptoff=1 " + " ".join(command), file=sys.stderr, flush=True)
    environment = dict(os.environ, GODEBUG="asyncpreemptoff=1")
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=environment)
    if completed.returncode != 0:
        sys.exit(f"bench: callgrind run failed with status {completed.returncode} (rerun the command above to see "
                 "valgrind's messages)")
    cases = {}
    for line in completed.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 5 and parts[0] == "case":
            cases[parts[1]] = (int(parts[2]), int(parts[3]), parts[4] == "1")
    totals = {}
    for path in glob.glob(out_file + ".*"):
        description = None
        total = None
        with open(path) as dump:
            for line in dump:
                if line.startswith("desc: Trigger: Client Request: "):
                    description = line.split("Client Request: ", 1)[1].strip()
                elif line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
        if description is not None and total is not None:
            totals[description] = total
    return cases, totals


def run_callgrind(args):
    out_dir = os.path.join(args.out, "callgrind")
    os.makedirs(out_dir, exist_ok=True)
    for stale in glob.glob(os.path.join(out_dir, "callgrind.*out*")):
        os.remove(stale)
    runs = [(None, *callgrind_binary(args, out_dir, args.binary, "serdiff_bench", []))]
    for name, binary in parse_core_binaries(args.core_binary):
        runs.append((name, *callgrind_binary(args, out_dir, binary, f"serdiff_bench_core-{name}", [f"--name={name}"])))
    results = {}
    for core_name, cases, totals in runs:
        for name, (ops, bytes_per_op, self_timed) in cases.items():
            if name not in totals:
                continue
            if self_timed:
                if name + "#3" not in totals:
                    continue
                per_op = (totals[name + "#3"] - totals[name]) / 2.0
            else:
                per_op = totals[name] / ops
            group, subject, implementation = split_name(name)
            results[(group, subject, implementation)] = {
                "group": group, "subject": subject, "implementation": implementation, "bytes_per_op": bytes_per_op,
                "instructions_per_op": per_op}
            if core_name:
                results[(group, subject, implementation)]["core_name"] = core_name
    goals = evaluate_goals(results, "instructions_per_op")
    notes = ["Instructions per operation counted by callgrind: user space only (the kernel's share of file I/O is "
             "not counted); the Go peer's GC threads are counted while collection is on; memcpy and memset run as "
             "`rep movsb`/`rep stosb`, which valgrind counts once per byte, so the memcpy row and the ratios against "
             "it are not comparable with time. Ratios here are instruction ratios, not time ratios."]
    if core_names(results):
        notes.append("Bitcoin Core compiled from source: under valgrind, Core's SHA256AutoDetect() finds no SHA-NI "
                     "(valgrind's CPUID does not offer it) and hashes with sse4(1way);sse41(4way);avx2(8way); on the "
                     "CPU the timed run says which it used.")
    lines = table_lines(results, "instructions_per_op", "instructions/op", goals, notes)
    print("\n".join(lines))
    with open(os.path.join(args.out, "callgrind.json"), "w") as out:
        json.dump({"command": "make bench-callgrind", "machine": machine_description(),
                   "benchmarks": sorted(results.values(), key=lambda r: (r["group"], r["subject"], r["implementation"])),
                   "goals": goals,
                   "core_source_comparisons": core_source_comparisons(results, "instructions_per_op"),
                   "notes": notes}, out, indent=1)
    with open(os.path.join(args.out, "callgrind.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"bench: wrote {args.out}/callgrind.json and {args.out}/callgrind.md ({len(results)} benchmarks)",
          file=sys.stderr)


# The block-codec columns of the summary: (heading, group, implementation).
SUMMARY_COLUMNS = [("Serialize (reused buffer)", "SerializeBlock", "optimized-reused"),
                   ("rust-bitcoin", "SerializeBlock", "rust-bitcoin"), ("btcd", "SerializeBlock", "btcd"),
                   ("Deserialize", "DeserializeBlock", "optimized"),
                   ("rust-bitcoin", "DeserializeBlock", "rust-bitcoin"), ("btcd", "DeserializeBlock", "btcd"),
                   ("SizeComputer", "SizeComputerBlock", "optimized"), ("memcpy", "memcpy", "memcpy")]


def summary_lines(record):
    """The short tables docs/bench.md shows, rendered from a recorded bench-out/results.json (times, µs) or
    bench-out/callgrind.json (instructions): one row per block, the goals met and missed, and the Core-from-source
    comparisons. docs_check compares the page with this output, so the page's numbers are the record's."""
    timed = record["command"] == "make bench"
    field = "ns_per_op" if timed else "instructions_per_op"
    results = {(r["group"], r["subject"], r["implementation"]): r for r in record["benchmarks"]}
    machine = record["machine"]
    blocks = sorted({key[1] for key in results if key[0] == "SerializeBlock" and ":" not in key[1]}, key=natural_key)

    def number(x):
        if x is None:
            return "-"
        if timed:
            return f"{x / 1000:,.1f}"
        return f"{x:,.0f}"

    if timed:
        settings = record.get("settings", {})
        head = (f"`{record['command']}` at {machine.get('git_commit') or '?'}, {machine.get('date', '?')}, "
                f"{machine['cpu']}, {machine['cores']} cores, {machine['compiler']}: median of "
                f"{settings.get('repetitions', '?')} repetitions, load average {machine['load_average_at_start'][0]} "
                f"at the start and {(machine.get('load_average_after') or ['?'])[0]} at the end. Times in µs:")
    else:
        head = (f"`{record['command']}` at {machine.get('git_commit') or '?'}, {machine.get('date', '?')}: "
                f"instructions per operation (callgrind):")
    lines = [head, "", "| block | " + " | ".join(c[0] for c in SUMMARY_COLUMNS) + " |",
             "|---|" + "---:|" * len(SUMMARY_COLUMNS)]
    for block in blocks:
        lines.append(f"| {int(block):,} | " if block.isdigit() else f"| {block} | ")
        lines[-1] += " | ".join(number(value(results, group, block, implementation, field))
                                for _, group, implementation in SUMMARY_COLUMNS) + " |"
    goals = [g for g in record["goals"] if g["met"] is not None]
    missed = [g for g in goals if not g["met"]]
    lines += ["", f"Goals met: {len(goals) - len(missed)} of {len(goals)}" +
              (f" ({sum(1 for g in record['goals'] if g['met'] is None)} not measured)"
               if any(g["met"] is None for g in record["goals"]) else "") +
              ("." if not missed else "; missed: " + "; ".join(
                  f"{g['goal']} on {g['subject']} ({g['measured']:.2f}x)" for g in missed) + ".")]
    # The block codec's rows of Core from source (the file rows are in the record's core_source_comparisons).
    comparisons = [c for c in record.get("core_source_comparisons") or []
                   if c["group"] in ("SerializeBlock", "DeserializeBlock", "SizeComputerBlock")]
    if comparisons:
        word = "faster" if timed else "fewer instructions"
        lines += ["", f"Bitcoin Core compiled from source beside the optimized side, the block codec (how many times "
                      f"{word} the optimized row is; the block-file rows are in the record):", "",
                  "| block | what | optimized | Core | optimized vs Core |",
                  "|---|---|---:|---:|---:|"]
        for c in comparisons:
            ratio = "-" if c["ratio"] is None else f"{c['ratio']:.2f}x"
            lines.append(f"| {c['subject']} | {c['what']} | {number(c['optimized_value'])} | "
                         f"{number(c['core_value'])} | {ratio} |")
    return lines


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        # bench/report.py summary RECORD: docs/bench.md's tables from a committed bench-out/results.json or
        # callgrind.json (bench/records/).
        try:
            record = json.loads(Path(sys.argv[2]).read_text())
            print("\n".join(summary_lines(record)))
        except (OSError, ValueError, KeyError) as error:
            print(f"bench/report.py summary: {sys.argv[2]}: not a make bench record ({error})", file=sys.stderr)
            return 2
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["run", "callgrind"])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--core-binary", action="append", metavar="[NAME=]PATH",
                        help="a serdiff_bench_core to run beside serdiff_bench (repeatable, one per Core tree)")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--filter", default=".")
    args = parser.parse_args()
    if args.mode == "run":
        run_benchmarks(args)
    else:
        run_callgrind(args)


if __name__ == "__main__":
    sys.exit(main())
