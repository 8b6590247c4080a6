#!/usr/bin/env python3
"""make fuzz-bench: fuzzing throughput per target, a benchmark (not a test; it fails only if a run fails).

Builds build/fuzz-libfuzzer exactly as `make fuzz` does (tools/fuzz/run.py: clang-19, ASan + UBSan,
RelWithDebInfo) plus serdiff_fuzz_ceiling, an empty entry point over the same instrumented code (the
engine's ceiling). Then, one libFuzzer process at a time (one core), each target and the ceiling fuzz for
the same budget from the committed corpora (corpora/<target>/, into a scratch copy under bench-out/), with
the same runtime options, -max_len and dictionary as `make fuzz` and a fixed -seed. Prints a table
(exec/s by the clock and per CPU-second, each as a fraction of the ceiling's; edges and features
reached; peak RSS) and writes bench-out/fuzz-bench.json.

  tools/fuzz/bench.py [--time 20] [--targets a,b] [--jobs 2 (build only)] [--seed 1] [--json PATH]
                      [--from-empty] [--no-ceiling] [--subject core [--core-src DIR]]
  (--from-empty: start every target from an empty corpus instead of corpora/<target>/, to measure the search
   rather than the seeds; --no-ceiling: skip the empty target's two runs, as for a coverage-reach run)
  (--subject core, make fuzz-bench SUBJECT=core: every Core-backed target runs on core_fuzz_libfuzzer and
   serdiff_fuzz_libfuzzer, one after the other, with the same corpus, flags and seed; the table sets the two
   exec/CPU-s side by side against the goal core >= 0.5x serdiff; the ceiling is core_fuzz_ceiling; with
   --core-base REV, make fuzz-bench CORE_BASE=REV, each Core target also runs on the same binary without its BASE
   comparison, SERDIFF_BASE_SKIP_FOR_BENCH=1, and the table gives with/without against the goal >= 0.4x)
  tools/fuzz/bench.py --compare BEFORE.json AFTER.json    # the before/after table of docs/bench.md
  tools/fuzz/bench.py --compare B1.json,B2.json A1.json,A2.json   # each side the median of its runs
"""
import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as fuzz_run  # noqa: E402  (the build, the target options, the runtime options of make fuzz)
import subject  # noqa: E402  (--subject/--core-src: which code is under test)

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "bench-out"
WORK = OUT / "fuzz-bench"
CEILING = "(empty ceiling)"
CORE_GOAL = 0.5  # make fuzz-bench SUBJECT=core: the Core subject fuzzes at least half as fast as serdiff's
BASE_GOAL = 0.4  # make fuzz-bench CORE_BASE=REV: HEAD compared with BASE fuzzes at least 0.4x as fast as HEAD alone


def log(message):
    print(message, flush=True)


def child_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def final_stats(text):
    stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.MULTILINE))
    status = re.findall(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+)", text, re.MULTILINE)
    edges, features = (int(status[-1][1]), int(status[-1][2])) if status else (0, 0)
    return {"execs": int(stats.get("number_of_executed_units", 0)),
            "exec_per_sec": int(stats.get("average_exec_per_sec", 0)),
            "peak_rss_mb": int(stats.get("peak_rss_mb", 0)), "edges": edges, "features": features}


def bench_one(binary, name, options, seconds, seed, from_empty=False, work=None, extra_environment=None):
    """One libFuzzer run of `seconds` from the committed corpus (or from nothing); returns its final stats.
    Scratch files in `work` (default bench-out/fuzz-bench/<target>, or .../ceiling)."""
    work = work or WORK / (name if options else "ceiling")
    shutil.rmtree(work, ignore_errors=True)
    (work / "corpus").mkdir(parents=True)
    max_len = options["max_len"] if options else 4096
    command = [str(binary), f"-max_total_time={seconds}", f"-seed={seed}", f"-rss_limit_mb={fuzz_run.RSS_LIMIT_MB}",
               f"-max_len={max_len}", "-timeout=30", "-print_final_stats=1", f"-artifact_prefix={work}/"]
    if options:
        dictionary = ROOT / "corpora" / "dicts" / f"{name}.dict"
        if dictionary.exists():
            command.append(f"-dict={dictionary}")
        command += options.get("libfuzzer_flags", "").split()
        command += [str(work / "corpus")] + ([] if from_empty else [str(ROOT / "corpora" / name)])
    else:
        command += [str(work / "corpus")]
    environment = {**fuzz_run.sanitizer_environment(), "FUZZ": name if options else "", **(extra_environment or {})}
    started, cpu_before = time.time(), child_cpu_seconds()
    with open(work / "fuzz.log", "w") as log_file:
        status = subprocess.run(command, env=environment, stdout=log_file, stderr=subprocess.STDOUT,
                                cwd=work).returncode
    cpu = child_cpu_seconds() - cpu_before
    result = final_stats((work / "fuzz.log").read_text(errors="replace"))
    # Executions per second of CPU the run got: on a shared machine the wall-clock rate follows the load,
    # this one much less (it still pays for cache contention). It includes loading the seeds.
    result["exec_per_cpu_sec"] = int(result["execs"] / cpu) if cpu > 0 else 0
    result.update({"target": name, "from_empty": from_empty or not options, "seconds": round(time.time() - started, 1), "cpu_seconds": round(cpu, 1),
                   "exit_status": status,
                   "max_len": max_len, "log": str((work / "fuzz.log").relative_to(ROOT))})
    return result


def table(rows, ceiling, cpu_ceiling):
    header = ("target", "exec/s", "of ceiling", "exec/CPU-s", "of ceiling (CPU)", "edges", "features",
              "peak RSS MB", "execs")
    lines = [(r["target"], f"{r['exec_per_sec']:,}",
              f"{r['exec_per_sec'] / ceiling:.1%}" if ceiling else "-", f"{r['exec_per_cpu_sec']:,}",
              f"{r['exec_per_cpu_sec'] / cpu_ceiling:.1%}" if cpu_ceiling else "-", str(r["edges"]),
              str(r["features"]), str(r["peak_rss_mb"]), f"{r['execs']:,}") for r in rows]
    return markdown(header, lines)


RESULT_KEYS = {"targets", "ceiling", "when", "load_before", "load_after", "machine", "runtime_options"}


def load_results(paths):
    """One side of --compare: a fuzz-bench.json, or several (comma-separated) merged by their median.
    Raises ValueError with the offending path for a file that is missing or not a fuzz-bench result, and for
    a side that mixes runs from empty corpora (--from-empty) with runs from corpora/."""
    runs = []
    for path in paths.split(","):
        try:
            run = json.loads(Path(path).read_text())
            if not isinstance(run, dict):
                raise ValueError("not a fuzz-bench result (not a JSON object)")
            if RESULT_KEYS - run.keys():
                raise ValueError(f"not a fuzz-bench result (it lacks {', '.join(sorted(RESULT_KEYS - run.keys()))})")
        except (OSError, ValueError) as error:
            raise ValueError(f"{path}: {error}") from None
        runs.append(run)
    if len(runs) == 1:
        return runs[0]
    if len({bool(run.get("from_empty")) for run in runs}) > 1:
        raise ValueError(f"{paths}: some runs started from empty corpora and some from corpora/: not one side")

    def median_row(rows):
        # Every numeric field the table shows, as the median over the runs that have the row and did not
        # skip it (a --no-ceiling run has no ceiling; peak RSS: the largest); "range" keeps the lowest and
        # highest exec/CPU-s and "samples" how many runs had it, so the noise and the gaps stay visible.
        measured = [r for r in rows if not r.get("skipped")]
        merged = dict(rows[-1])
        merged["skipped"] = not measured
        if not measured:
            return merged
        for key in ("exec_per_sec", "exec_per_cpu_sec", "edges", "features"):
            merged[key] = int(statistics.median(r.get(key, 0) for r in measured))
        merged["peak_rss_mb"] = max(r.get("peak_rss_mb", 0) for r in measured)
        merged["range"] = (min(r.get("exec_per_cpu_sec", 0) for r in measured),
                           max(r.get("exec_per_cpu_sec", 0) for r in measured))
        merged["samples"] = len(measured)
        return merged

    names = list(dict.fromkeys(r["target"] for run in runs for r in run["targets"]))  # every run's, in order
    by_name = [{r["target"]: r for r in run["targets"]} for run in runs]
    merged = dict(runs[-1])
    merged["ceiling"] = median_row([run["ceiling"] for run in runs])
    merged["targets"] = [median_row([index[name] for index in by_name if name in index]) for name in names]
    merged["runs"] = runs
    return merged


def compare(before_path, after_path):
    """Prints a before/after table of two fuzz-bench.json files, or of two comma-separated lists of them
    (each side the median of its runs: a noisy machine wants several samples; docs/bench.md)."""
    try:
        before, after = load_results(before_path), load_results(after_path)
    except ValueError as error:
        print(f"fuzz-bench --compare: {error}", file=sys.stderr)
        return 2
    old = {r["target"]: r for r in before["targets"]}
    header = ("target", "exec/s before", "after", "×", "exec/CPU-s before", "after", "×",
              "of ceiling (CPU) before", "after", "edges/ft before", "after", "RSS MB before", "after")
    rows = []
    for r in [{**after["ceiling"], "target": CEILING}] + after["targets"]:
        o = before["ceiling"] if r["target"] == CEILING else old.get(r["target"])
        if o is None or o.get("skipped") or r.get("skipped"):  # no ceiling run (--no-ceiling)
            continue
        ratio = lambda a, b: f"{a / b:.1f}" if b else "-"  # noqa: E731
        cpu_fraction = lambda x, run: (f"{x['exec_per_cpu_sec'] / run['ceiling']['exec_per_cpu_sec']:.1%}"  # noqa: E731
                                       if run["ceiling"].get("exec_per_cpu_sec") else "-")
        rows.append((r["target"], f"{o['exec_per_sec']:,}", f"{r['exec_per_sec']:,}",
                     ratio(r["exec_per_sec"], o["exec_per_sec"]), f"{o['exec_per_cpu_sec']:,}",
                     f"{r['exec_per_cpu_sec']:,}", ratio(r["exec_per_cpu_sec"], o["exec_per_cpu_sec"]),
                     cpu_fraction(o, before), cpu_fraction(r, after), f"{o['edges']}/{o['features']}",
                     f"{r['edges']}/{r['features']}", str(o["peak_rss_mb"]), str(r["peak_rss_mb"])))
    print(markdown(header, rows))
    if before.get("from_empty", False) != after.get("from_empty", False):
        print("warning: one run started from empty corpora (--from-empty), the other from corpora/: "
              "the edges and features are not comparable")
    for name, side in (("before", before), ("after", after)):
        for run in side.get("runs", [side]):
            print(f"{name}: {run['when']}, load {run['load_before'][0]:.2f} → {run['load_after'][0]:.2f}, "
                  f"{run['machine']['cpu']}, {run['machine']['cpus']} cpus, ASAN_OPTIONS "
                  f"'{run['runtime_options'].get('ASAN_OPTIONS', '')}'")
    for name, side in (("before", before), ("after", after)):
        if "runs" in side:
            total = len(side["runs"])
            print(f"{name}: medians of {total} runs; exec/CPU-s lowest–highest: " + ", ".join(
                f"{r['target']} {r['range'][0]:,}–{r['range'][1]:,}" +
                (f" ({r['samples']} of {total} runs)" if r["samples"] < total else "")
                for r in [side["ceiling"]] + side["targets"] if "range" in r))
    return 0


def build_binaries(jobs, core):
    """build/fuzz-libfuzzer as make fuzz builds it (tools/fuzz/run.py) plus the ceiling, and for the Core
    subject serdiff's engine binary too."""
    extra = [subject.binary_name("ceiling")] + ([subject.binary_name("libfuzzer", "serdiff")] if core else [])
    return fuzz_run.build("libfuzzer", max(1, jobs), extra_targets=extra)


def subjects_side_by_side(serdiff_rows, core_rows):
    """Per target, serdiff's and Core's exec/CPU-s, their ratio and whether it meets CORE_GOAL. A run that
    failed (a crash: its rate is that of the inputs before it) gives no ratio."""
    serdiff = {r["target"]: r for r in serdiff_rows}
    comparison = []
    for r in core_rows:
        s = serdiff[r["target"]]
        failed = [name for name, row in (("serdiff", s), ("core", r)) if row.get("exit_status")]
        ratio = (r["exec_per_cpu_sec"] / s["exec_per_cpu_sec"] if s["exec_per_cpu_sec"] and not failed
                 else None)
        comparison.append({"target": r["target"], "serdiff_exec_per_cpu_sec": s["exec_per_cpu_sec"],
                           "core_exec_per_cpu_sec": r["exec_per_cpu_sec"], "core_over_serdiff": ratio,
                           "meets_goal": ratio is not None and ratio >= CORE_GOAL, "failed": failed,
                           "serdiff_edges": s["edges"], "core_edges": r["edges"]})
    return comparison


def subjects_table(comparison):
    header = ("target", "serdiff exec/CPU-s", "core exec/CPU-s", "core/serdiff", f"core >= {CORE_GOAL}x serdiff",
              "edges serdiff / core")
    lines = [(c["target"], f"{c['serdiff_exec_per_cpu_sec']:,}", f"{c['core_exec_per_cpu_sec']:,}",
              f"{c['core_over_serdiff']:.2f}x" if c["core_over_serdiff"] is not None else "-",
              "yes" if c["meets_goal"] else f"{' and '.join(c['failed'])} run failed" if c.get("failed") else "NO",
              f"{c['serdiff_edges']} / {c['core_edges']}") for c in comparison]
    return markdown(header, lines)


def markdown(header, lines):
    widths = [max(len(x[i]) for x in lines + [header]) for i in range(len(header))]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in lines]
    return "\n".join(out)


def render(paths):
    """docs/bench.md's throughput table from recorded runs (bench/records/; comma-separated: their medians, as
    --compare takes them): the ceiling first, then every target by exec/CPU-s, with the runs' commits, times and
    loads above it. docs_check compares the page with this output."""
    try:
        side = load_results(paths)
    except ValueError as error:
        print(f"fuzz-bench --render: {error}", file=sys.stderr)
        return 2
    runs = side.get("runs", [side])
    commits = sorted({run.get("commit") or "?" for run in runs})
    whens = sorted(run["when"] for run in runs)
    machine = runs[-1]["machine"]
    loads = sorted(load for run in runs for load in (run["load_before"][0], run["load_after"][0]))
    seconds = "/".join(sorted({str(run["seconds_per_target"]) for run in runs}))
    print(f"{len(runs)} run(s) of `make fuzz-bench` (FUZZ_BENCH_TIME={seconds}) "
          f"at {', '.join(commits)}, {whens[0]} to {whens[-1]}, {machine['cpu']}, {machine['cpus']} vCPUs, "
          f"{runs[-1]['sanitizers']}, `ASAN_OPTIONS={runs[-1]['runtime_options'].get('ASAN_OPTIONS', '')}`, "
          f"1-minute load {loads[0]:.1f}-{loads[-1]:.1f} at the starts and ends"
          + (f"; the median of the {len(runs)}" if len(runs) > 1 else "") +
          ". Executions per CPU-second, from the committed corpora, one core:")
    print()
    ceiling = side["ceiling"]
    rows = [("(empty ceiling)", f"{ceiling['exec_per_cpu_sec']:,}", "100.0%", f"{ceiling['edges']}/{ceiling['features']}")]
    for r in sorted((r for r in side["targets"] if not r.get("skipped")), key=lambda r: -r["exec_per_cpu_sec"]):
        rows.append((f"`{r['target']}`", f"{r['exec_per_cpu_sec']:,}",
                     f"{r['exec_per_cpu_sec'] / ceiling['exec_per_cpu_sec']:.1%}" if ceiling.get("exec_per_cpu_sec")
                     else "-", f"{r['edges']}/{r['features']}"))
    print(markdown(("target", "exec/CPU-s", "of ceiling (CPU)", "edges/ft"), rows))
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        return compare(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "--render":
        return render(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--time", type=int, default=20, help="seconds of fuzzing per target (default 20)")
    parser.add_argument("--targets", default="", help="comma- or space-separated target names (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="build parallelism (the runs are one at a time)")
    parser.add_argument("--seed", type=int, default=1, help="libFuzzer -seed (default 1)")
    parser.add_argument("--json", default=str(OUT / "fuzz-bench.json"), help="where the results go")
    parser.add_argument("--from-empty", action="store_true",
                        help="start every target from an empty corpus (the search alone, no committed seeds)")
    parser.add_argument("--no-ceiling", action="store_true",
                        help="skip the empty target's runs (no fraction of the ceiling is printed)")
    subject.add_arguments(parser)
    arguments = parser.parse_args()
    wanted = [t for t in re.split(r"[,\s]+", arguments.targets) if t]
    core = subject.select(arguments.subject, arguments.core_src, arguments.core_base) == "core"

    bin_dir = build_binaries(arguments.jobs, core)
    binary, ceiling_binary = bin_dir / subject.binary_name("libfuzzer"), bin_dir / subject.binary_name("ceiling")
    serdiff_binary = bin_dir / subject.binary_name("libfuzzer", "serdiff")
    targets = fuzz_run.list_targets(binary, wanted)  # the Core subject's: those it builds
    load_before = os.getloadavg()
    log(f"fuzz-bench: {len(targets)} target(s){'' if arguments.no_ceiling else ' + the empty ceiling'} × "
        f"{arguments.time} s, one at a time, from {'empty corpora' if arguments.from_empty else 'corpora/'}; "
        f"load {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")

    def ceiling_run(which):
        if arguments.no_ceiling:
            return {"target": CEILING, "exec_per_sec": 0, "exec_per_cpu_sec": 0, "edges": 0, "features": 0,
                    "peak_rss_mb": 0, "execs": 0, "exit_status": 0, "skipped": True}
        run = bench_one(ceiling_binary, CEILING, None, arguments.time, arguments.seed)
        log(f"  {CEILING} {which}: {run['exec_per_sec']:,} exec/s")
        return run

    def measured(row, who=""):
        log(f"  {row['target']}{who}: {row['exec_per_sec']:,} exec/s ({row['exec_per_cpu_sec']:,} per CPU-s), "
            f"{row['edges']} edges / {row['features']} ft"
            + (f"  (EXIT STATUS {row['exit_status']}: see {row['log']})" if row["exit_status"] else ""))
        return row

    rows, serdiff_rows, without_base_rows = [], [], []
    with_base = core and bool(subject.core_base())
    # The ceiling runs first and last; the fractions use the mean of the two (load drifts on a shared machine).
    first_ceiling = ceiling_run("first")
    for options in targets:
        if core:
            # serdiff's binary first, then Core's, on the same target: the pair sees the same load.
            serdiff_rows.append(measured(bench_one(serdiff_binary, options["name"], options, arguments.time,
                                                   arguments.seed, arguments.from_empty), " (serdiff)"))
        if with_base:
            # The same binary without its BASE comparison first, then with it: the pair sees the same load.
            without_base_rows.append(measured(bench_one(
                binary, options["name"], options, arguments.time, arguments.seed, arguments.from_empty,
                work=WORK / "core-no-base" / options["name"], extra_environment={"SERDIFF_BASE_SKIP_FOR_BENCH": "1"}),
                " (core, without BASE)"))
        rows.append(measured(bench_one(binary, options["name"], options, arguments.time, arguments.seed,
                                       arguments.from_empty, work=WORK / "core" / options["name"] if core else None),
                             (" (core, with BASE)" if with_base else " (core)") if core else ""))
    last_ceiling = ceiling_run("last")
    ceiling = {**last_ceiling, "exec_per_sec": (first_ceiling["exec_per_sec"] + last_ceiling["exec_per_sec"]) // 2,
               "exec_per_cpu_sec": (first_ceiling["exec_per_cpu_sec"] + last_ceiling["exec_per_cpu_sec"]) // 2,
               "first_exec_per_sec": first_ceiling["exec_per_sec"], "last_exec_per_sec": last_ceiling["exec_per_sec"],
               "first_exec_per_cpu_sec": first_ceiling["exec_per_cpu_sec"],
               "last_exec_per_cpu_sec": last_ceiling["exec_per_cpu_sec"]}
    load_after = os.getloadavg()

    result = table(([] if arguments.no_ceiling else [ceiling]) + rows, ceiling["exec_per_sec"],
                   ceiling["exec_per_cpu_sec"])
    comparison = subjects_side_by_side(serdiff_rows, rows) if core else None
    log("\n" + result + ("\n\n" + subjects_table(comparison) if core else ""))
    base_comparison = []
    if with_base:
        for plain, compared in zip(without_base_rows, rows):
            ratio = (compared["exec_per_cpu_sec"] / plain["exec_per_cpu_sec"]) if plain["exec_per_cpu_sec"] else None
            base_comparison.append({"target": plain["target"], "without_base_exec_per_cpu_sec": plain["exec_per_cpu_sec"],
                                    "with_base_exec_per_cpu_sec": compared["exec_per_cpu_sec"], "with_over_without": ratio,
                                    "meets_goal": ratio is not None and ratio >= BASE_GOAL})
        log("\n" + markdown(("target", "without BASE exec/CPU-s", "with BASE exec/CPU-s", "with/without",
                             f">= {BASE_GOAL}x"),
                            [(c["target"], f"{c['without_base_exec_per_cpu_sec']:,}", f"{c['with_base_exec_per_cpu_sec']:,}",
                              f"{c['with_over_without']:.2f}x" if c["with_over_without"] is not None else "-",
                              "yes" if c["meets_goal"] else "NO") for c in base_comparison]))
    if not arguments.no_ceiling:
        log(f"ceiling = mean of its first ({first_ceiling['exec_per_sec']:,}) and last ({last_ceiling['exec_per_sec']:,}) run")
    log(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min); {os.cpu_count()} cpus")
    destination = Path(arguments.json).resolve()
    destination.parent.mkdir(parents=True, exist_ok=True)
    report = {"subject": subject.current(), "seconds_per_target": arguments.time, "seed": arguments.seed,
              "from_empty": arguments.from_empty,
              "engine": "libfuzzer", "sanitizers": "address,undefined", "build": "RelWithDebInfo",
              "runtime_options": {k: v for k, v in fuzz_run.sanitizer_environment().items()
                                  if k.endswith("SAN_OPTIONS")},
              "machine": {"cpu": cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release()},
              "load_before": load_before, "load_after": load_after,
              "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                       text=True).stdout.strip() or None,
              "ceiling": ceiling,
              "targets": [{**r, "fraction_of_ceiling": (r["exec_per_sec"] / ceiling["exec_per_sec"]
                                                        if ceiling["exec_per_sec"] else None),
                           "fraction_of_ceiling_cpu": (r["exec_per_cpu_sec"] / ceiling["exec_per_cpu_sec"]
                                                       if ceiling["exec_per_cpu_sec"] else None)} for r in rows]}
    if core:
        # "targets" (and "ceiling") are the Core subject's, so --compare compares two Core runs as it does two
        # serdiff runs; serdiff's runs of the same targets and the side-by-side rows come beside them.
        report.update({"core_src": subject.core_src() or None, "serdiff_targets": serdiff_rows,
                       "goal": f"core >= {CORE_GOAL}x serdiff (exec/CPU-s)", "comparison": comparison})
        below = [c["target"] for c in comparison if not c["meets_goal"] and not c["failed"]]
        log(f"goal core >= {CORE_GOAL}x serdiff: " + (f"below it: {' '.join(below)}" if below else "every target"))
    if with_base:
        report.update({"core_base": subject.core_base(), "without_base_targets": without_base_rows,
                       "base_goal": f"with BASE >= {BASE_GOAL}x without (exec/CPU-s)", "base_comparison": base_comparison})
    destination.write_text(json.dumps(report, indent=2) + "\n")
    log(f"fuzz-bench: wrote {destination}")
    failed = [r["target"] for r in [first_ceiling, last_ceiling] + rows + serdiff_rows + without_base_rows
              if r["exit_status"] != 0]
    if failed:
        log(f"fuzz-bench: run(s) failed (a crash or engine error, see the logs): {' '.join(failed)}")
    return 1 if failed else 0


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
