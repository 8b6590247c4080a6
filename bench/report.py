#!/usr/bin/env python3
"""Runs serdiff_bench and prints the table of docs/bench.md, also written as bench-out/results.json.

  bench/report.py run --binary build/bench/bin/serdiff_bench [--out bench-out] [--repetitions 3] [--min-time 0.2]
                      [--filter REGEX]
  bench/report.py callgrind --binary build/bench/bin/serdiff_bench [--out bench-out] [--filter REGEX]

`run` uses Google Benchmark (median of the repetitions, wall-clock time); `callgrind` runs every case once
under valgrind --tool=callgrind and reports instructions per operation, which machine noise does not move.
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


def ratio_text(results, key, field):
    """The ratios shown beside a row: against the reference, memcpy, the unbuffered path, the peers."""
    group, subject, implementation = key
    own = results[key][field]
    texts = []

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


def table_lines(results, field, unit_label, goals, notes):
    lines = [f"| benchmark | subject | implementation | {unit_label} | MB/s | ratios |", "|---|---|---|---:|---:|---|"]
    order = ["SerializeBlock", "DeserializeBlock", "SizeComputerBlock", "memcpy", "WriteBlock", "ReadBlock",
             "Obfuscate"]

    implementations = ["optimized", "optimized-reused", "optimized+txids", "optimized-buffered",
                       "optimized-bufferedreader", "batched", "autofile-unbuffered", "byte-at-a-time", "reference",
                       CORE, CORE + "-discard", "rust-bitcoin", "btcd", "memcpy"]

    def sort_key(key):
        group, subject, implementation = key
        rank = order.index(group) if group in order else len(order)
        # Natural order of subjects ("2B" before "10B"), then the implementations in the order above.
        subject_key = [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", subject)]
        implementation_rank = implementations.index(implementation) if implementation in implementations else 99
        return (rank, group, subject_key, implementation_rank)

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


def run_benchmarks(args):
    os.makedirs(args.out, exist_ok=True)
    raw_path = os.path.join(args.out, "google-benchmark.json")
    command = [args.binary, f"--scratch={os.path.join(args.out, 'files')}", f"--benchmark_out={raw_path}",
               "--benchmark_out_format=json", f"--benchmark_repetitions={args.repetitions}",
               f"--benchmark_min_time={args.min_time}", f"--benchmark_filter={args.filter}"]
    print("bench: " + " ".join(command), file=sys.stderr, flush=True)
    machine = machine_description()
    # Google Benchmark prints one line per run on stdout: the progress of the long run.
    completed = subprocess.run(command)
    if completed.returncode != 0:
        sys.exit(f"bench: serdiff_bench failed with status {completed.returncode}")
    context, results = load_google_benchmark(raw_path)
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
    notes.append(f"Machine: {machine['cpu']}, {machine['cores']} cores, kernel {machine['kernel']}, "
                 f"{machine['compiler']}, {machine['flags']}; load average at start "
                 f"{machine['load_average_at_start']} (a shared machine: ratios are more meaningful than absolute "
                 f"times). Median of {args.repetitions} repetitions of >= {args.min_time} s each, wall-clock time.")
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
        "notes": notes,
    }
    with open(os.path.join(args.out, "results.json"), "w") as out:
        json.dump(output, out, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"bench: wrote {args.out}/results.json and {args.out}/results.md ({len(results)} benchmarks, "
          f"{sum(1 for goal in goals if goal['met'])} of {sum(1 for goal in goals if goal['met'] is not None)} "
          f"goals met)", file=sys.stderr)


def run_callgrind(args):
    out_dir = os.path.join(args.out, "callgrind")
    os.makedirs(out_dir, exist_ok=True)
    for stale in glob.glob(os.path.join(out_dir, "callgrind.out*")):
        os.remove(stale)
    # Valgrind 3.19 cannot read clang-19's and Rust's newer DWARF: run a copy without debug info (symbols
    # stay). The Go runtime's asynchronous preemption signals crash callgrind: turn them off.
    binary = os.path.join(out_dir, "serdiff_bench.nodebug")
    subprocess.run(["objcopy", "--strip-debug", args.binary, binary], check=True)
    command = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               f"--callgrind-out-file={os.path.join(out_dir, 'callgrind.out')}", binary,
               f"--scratch={os.path.join(args.out, 'files')}", "--instructions", f"--filter={args.filter}"]
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
    for path in glob.glob(os.path.join(out_dir, "callgrind.out.*")):
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
    results = {}
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
    goals = evaluate_goals(results, "instructions_per_op")
    notes = ["Instructions per operation counted by callgrind: user space only (the kernel's share of file I/O is "
             "not counted); the Go peer's GC threads are counted while collection is on; memcpy and memset run as "
             "`rep movsb`/`rep stosb`, which valgrind counts once per byte, so the memcpy row and the ratios against "
             "it are not comparable with time. Ratios here are instruction ratios, not time ratios."]
    lines = table_lines(results, "instructions_per_op", "instructions/op", goals, notes)
    print("\n".join(lines))
    with open(os.path.join(args.out, "callgrind.json"), "w") as out:
        json.dump({"command": "make bench-callgrind", "machine": machine_description(),
                   "benchmarks": sorted(results.values(), key=lambda r: (r["group"], r["subject"], r["implementation"])),
                   "goals": goals, "notes": notes}, out, indent=1)
    with open(os.path.join(args.out, "callgrind.md"), "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"bench: wrote {args.out}/callgrind.json and {args.out}/callgrind.md ({len(results)} benchmarks)",
          file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["run", "callgrind"])
    parser.add_argument("--binary", required=True)
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
    main()
