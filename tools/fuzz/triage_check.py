#!/usr/bin/env python3
"""make triage-check: proves the triage of `make fuzz` on a real planted bug found by two engines.

Builds the bug (tests/planted/bugs.tsv) into one target's libFuzzer and AFL++ binaries (build/triage-check/
<engine>: ASan + UBSan, only that target, with the replay driver and the serdiff CLI of the same tree),
fuzzes the target with both engines at once through make fuzz's own code (tools/fuzz/run.py: the same
Run, table, triage and summary; output in fuzz-out/triage-check/), and checks the result: both engines
crashed, the crashes form exactly ONE unique finding, its input was minimized and still reproduces, and
it has an explanation. Exit status 1 when a check fails.

  tools/fuzz/triage_check.py [--bug varint_length_off_by_one] [--time 30] [--minimize-seconds 20]
                             [--from-nothing] [--jobs 2]

--from-nothing starts both engines from a one-byte seed instead of the committed corpus (every planted
bug is on a seed, so by default both find it while replaying seeds; this shows mutation finding it).
"""
import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as fuzz_run  # noqa: E402
import planted  # noqa: E402
import triage  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "triage-check"
# Planted bugs hunted by a fuzz target, and that target (the target:<name> rows of tests/planted/bugs.tsv).
TARGET_OF = {name: bug["detector"] for name, bug in planted.manifest().items() if bug["kind"] == "target"}
# Sanitizer-class bugs (rows detected by a CI job) that the varint target trips too: the triage of a
# sanitizer report (error type and top frames, UBSan file:line) is checked on them.
TARGET_OF.update({"varint_limit_shift": "varint", "span_reader_dangling_copy": "varint"})


def log(message=""):
    print(message, flush=True)


def build(engine, bug, target, jobs):
    directory = BUILD / engine
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(directory), "-G", "Ninja",
                    "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSERDIFF_SANITIZERS=address,undefined",
                    f"-DSERDIFF_FUZZ_ENGINE={engine}", "-DSERDIFF_BUILD_TESTS=OFF", "-DSERDIFF_PEERS=OFF",
                    f"-DSERDIFF_FUZZ_ONLY_TARGETS={target}", f"-DSERDIFF_PLANTED_BUG={bug}"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(directory), "-j", str(jobs), "--target", f"serdiff_fuzz_{engine}",
                    "serdiff_fuzz_replay", "serdiff"], check=True, stdout=subprocess.DEVNULL)
    return directory / "bin"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bug", default="varint_length_off_by_one", choices=sorted(TARGET_OF))
    parser.add_argument("--time", type=int, default=30, help="seconds of fuzzing per engine (default 30)")
    parser.add_argument("--minimize-seconds", type=int, default=20, help="minimization budget per crash")
    parser.add_argument("--from-nothing", action="store_true", help="start from a one-byte seed, not corpora/")
    parser.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args()
    target = TARGET_OF[arguments.bug]

    out = ROOT / "fuzz-out" / "triage-check"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    fuzz_run.OUT = out  # every path of make fuzz's Run (corpus, crashes, logs, afl dirs, summary) goes here

    runs = []
    for engine in ("libfuzzer", "afl"):
        log(f"triage-check: building {target} with planted bug {arguments.bug} for {engine} in "
            f"{(BUILD / engine).relative_to(ROOT)} ...")
        bin_dir = build(engine, arguments.bug, target, arguments.jobs)
        options = fuzz_run.target_options(bin_dir / f"serdiff_fuzz_{engine}")[target]
        r = fuzz_run.Run(options, engine, bin_dir, arguments.time, None)
        if arguments.from_nothing:
            r.committed = out / "one-byte-seed" / target
            r.committed.mkdir(parents=True, exist_ok=True)
            (r.committed / "zero").write_bytes(b"\0")
        runs.append(r)
    log(f"triage-check: fuzzing {target} with libFuzzer and AFL++ at once for {arguments.time} s "
        f"({'from a one-byte seed' if arguments.from_nothing else 'from corpora/' + target}) ...")
    fuzz_run.execute(runs, max(2, arguments.jobs))
    fuzz_run.report(runs, arguments.minimize_seconds)

    # The checks.
    summary = __import__("json").loads((out / "summary.json").read_text())
    findings = summary["findings"]
    problems = []
    engines = {r["engine"]: r for r in summary["runs"]}
    for engine in ("libfuzzer", "afl"):
        if not engines[engine]["crashes"]:
            problems.append(f"{engine} found no crash in {arguments.time} s")
    if len(findings) != 1:
        problems.append(f"{len(findings)} unique findings, expected exactly 1: "
                        + "; ".join(f["signature"] for f in findings))
    for f in findings:
        by = {c["engine"] for c in f["crashes"]}
        if by != {"libfuzzer", "afl"}:
            problems.append(f"finding '{f['signature']}' holds crashes of {sorted(by)}, not of both engines")
        if not f["explanation"]:
            problems.append(f"finding '{f['signature']}' has no explanation")
        minimized = ROOT / f["directory"] / "minimized"
        again = triage.replay(triage.Tools(runs[0].bin_dir), target, minimized)
        if not again.reproduced or again.signature != f["signature"]:
            problems.append(f"the minimized input {minimized} does not reproduce its signature "
                            f"(got: {again.signature})")
        if f["minimized_size"] > f["original_size"]:
            problems.append("the minimized input is larger than the crash")
        if "nothing smaller" in f["method"] and f["original_size"] > 1:
            problems.append(f"minimization did not shrink a {f['original_size']}-byte input ({f['method']})")
    log("")
    for p in problems:
        log(f"triage-check: FAIL {p}")
    if not problems:
        f = findings[0]
        log(f"triage-check: PASS planted bug {arguments.bug}: {sum(len(r['crashes']) for r in summary['runs'])} "
            f"crash file(s) from libfuzzer and afl → 1 unique finding '{f['headline']}', minimized "
            f"{f['original_size']} → {f['minimized_size']} bytes ({f['method']}), replays, explained")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
