#!/usr/bin/env python3
"""make test-planted: proves the fuzz targets find the planted bugs of tests/planted/bugs.tsv.

For each bug whose detector is a fuzz target: reconfigure build/planted (libFuzzer + ASan + UBSan,
RelWithDebInfo, only the bug's target, SERDIFF_PLANTED_BUG=<bug>, which reaches only what links the optimized
side, so only that recompiles), build the engine binary,
fuzz the target from its committed seeds until the first crash or the budget, and print a table
bug → target → detected? → seconds / execs to detection. Exit status 1 when a bug was missed.

  tools/fuzz/planted.py run [--budget 120] [--bugs a,b] [--jobs 2]
  tools/fuzz/planted.py --check    # every bug of the manifest is hooked in serialize/, every hook is a bug
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as fuzz_run  # noqa: E402  (target options, RSS limit, the same libFuzzer flags as make fuzz)

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "planted"
OUT = ROOT / "fuzz-out" / "planted"

MANIFEST = ROOT / "tests" / "planted" / "bugs.tsv"


def manifest():
    """Every planted bug: name → {row, detector kind ("target" or "job"), detector, expect, what}."""
    bugs = {}
    for number, line in enumerate(MANIFEST.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5 or ":" not in fields[2]:
            sys.exit(f"planted: {MANIFEST.relative_to(ROOT)}:{number}: expected 5 tab-separated fields, "
                     f"the third kind:name")
        name, row, detector, expect, what = fields
        kind, detector_name = detector.split(":", 1)
        bugs[name] = {"row": row, "kind": kind, "detector": detector_name, "expect": expect, "what": what}
    return bugs


# bug → (OPTIMIZATIONS.md row, the fuzz target expected to find it), for the bugs make test-planted hunts.
PLANTED = {name: (bug["row"], bug["detector"]) for name, bug in manifest().items() if bug["kind"] == "target"}


def log(message):
    print(message, flush=True)


def check():
    """Every bug of the manifest has a SERDIFF_PLANTED(name) hook in serialize/, every hook names a bug of the
    manifest, every detector exists in its form, and every OPTIMIZATIONS.md row has a bug."""
    bugs = manifest()
    sources = "".join(p.read_text() for p in (ROOT / "serialize").iterdir()
                      if p.suffix in (".h", ".cpp") and p.name != "planted.h")
    hooks = set(re.findall(r"SERDIFF_PLANTED\((\w+)\)", sources))
    problems = [f"{name}: no SERDIFF_PLANTED({name}) hook in serialize/" for name in bugs if name not in hooks]
    problems += [f"SERDIFF_PLANTED({name}) in serialize/ is not a bug of {MANIFEST.relative_to(ROOT)}"
                 for name in sorted(hooks) if name not in bugs]
    jobs = {p.stem for p in (ROOT / "ci" / "jobs").glob("*.sh")} - {"lib"}
    for name, bug in bugs.items():
        if bug["kind"] == "job" and bug["detector"] not in jobs:
            problems.append(f"{name}: detector job:{bug['detector']} is not a job of ci/jobs/")
        if bug["kind"] == "job" and bug["expect"] == "-":
            problems.append(f"{name}: a CI-job defect needs the report headline its job must print")
        if bug["kind"] not in ("target", "job"):
            problems.append(f"{name}: detector kind {bug['kind']} is neither target nor job")
    rows = {bug["row"] for bug in bugs.values()}
    problems += [f"OPTIMIZATIONS.md row {row} has no planted bug" for row in range(1, 13) if str(row) not in rows]
    targets = sum(bug["kind"] == "target" for bug in bugs.values())
    print(f"planted: {len(bugs)} bugs in {MANIFEST.relative_to(ROOT)} ({targets} hunted by fuzz targets, "
          f"{len(bugs) - targets} by CI jobs), {len(hooks)} hooks in serialize/")
    for problem in problems:
        print(f"  FAIL {problem}")
    return 1 if problems else 0


def build(bug, target, jobs):
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(BUILD), "-G", "Ninja",
                    "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSERDIFF_SANITIZERS=address,undefined",
                    "-DSERDIFF_FUZZ_ENGINE=libfuzzer", "-DSERDIFF_BUILD_TESTS=OFF", "-DSERDIFF_PEERS=OFF",
                    f"-DSERDIFF_FUZZ_ONLY_TARGETS={target}", f"-DSERDIFF_PLANTED_BUG={bug}"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(BUILD), "-j", str(jobs), "--target", "serdiff_fuzz_libfuzzer"],
                   check=True, stdout=subprocess.DEVNULL)
    return BUILD / "bin" / "serdiff_fuzz_libfuzzer"


def hunt(bug, target, binary, budget, from_seeds=True):
    """Fuzzes `target` from its seeds (or from nothing) until the first crash or `budget` seconds."""
    work = OUT / bug / ("seeds" if from_seeds else "scratch")
    shutil.rmtree(work, ignore_errors=True)
    (work / "corpus").mkdir(parents=True)
    command = [str(binary), f"-max_total_time={budget}", f"-rss_limit_mb={fuzz_run.RSS_LIMIT_MB}",
               f"-max_len={fuzz_run.target_options(binary)[target]['max_len']}", "-timeout=30",
               "-print_final_stats=1", f"-artifact_prefix={work}/"]
    dictionary = ROOT / "corpora" / "dicts" / f"{target}.dict"
    if dictionary.exists():
        command.append(f"-dict={dictionary}")
    # New inputs go to the first directory, a scratch one: corpora/ stays untouched.
    command += [str(work / "corpus")] + ([str(ROOT / "corpora" / target)] if from_seeds else [])
    started = time.time()
    with open(work / "fuzz.log", "w") as log_file:
        status = subprocess.run(command, env={**os.environ, "FUZZ": target}, stdout=log_file,
                                stderr=subprocess.STDOUT, cwd=work).returncode
    seconds = time.time() - started
    text = (work / "fuzz.log").read_text(errors="replace")
    crashes = sorted(work.glob("crash-*")) + sorted(work.glob("oom-*")) + sorted(work.glob("timeout-*"))
    executed = re.search(r"stat::number_of_executed_units:\s+(\d+)", text)
    progress = re.findall(r"^#(\d+)\s", text, re.MULTILINE)
    execs = int(executed.group(1)) if executed else int(progress[-1]) if progress else 0
    headline = re.search(r"==== serdiff MISMATCH in (.*) ====", text)
    what = headline.group(1) if headline else ("sanitizer: " + m.group(1) if (m := re.search(
        r"ERROR: (\w+Sanitizer: [^\n]*)", text)) else "")
    detected = status != 0 and bool(crashes)
    return {"bug": bug, "target": target, "detected": detected, "seconds": seconds, "execs": execs,
            "what": what if detected else "", "crash": crashes[0] if crashes else None}


def outcome(row):
    if row is None:
        return "-"
    return (f"{row['seconds']:.1f} s / {row['execs']}" if row["detected"]
            else f"NOT FOUND in {row['seconds']:.0f} s / {row['execs']}")


def table(rows):
    header = ("bug", "row", "target", "detected", "from seeds: s / execs", "from nothing: s / execs", "first report")
    lines = [(r["bug"], str(PLANTED[r["bug"]][0]), r["target"], "yes" if r["detected"] else "NO", outcome(r),
              outcome(r.get("scratch")), r["what"][:70]) for r in rows]
    widths = [max(len(x[i]) for x in lines + [header]) for i in range(len(header))]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in lines]
    return "\n".join(out)


def run(arguments):
    bugs = [b for b in re.split(r"[,\s]+", arguments.bugs) if b] or list(PLANTED)
    unknown = [b for b in bugs if b not in PLANTED]
    if unknown:
        sys.exit(f"planted: unknown bug(s) {' '.join(unknown)}; known: {' '.join(PLANTED)}")
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    for index, bug in enumerate(bugs, 1):
        target = PLANTED[bug][1]
        log(f"planted [{index}/{len(bugs)}] {bug}: building {target} with the bug ...")
        started = time.time()
        binary = build(bug, target, arguments.jobs)
        log(f"planted [{index}/{len(bugs)}] {bug}: built in {time.time() - started:.0f} s; fuzzing {target} "
            f"(budget {arguments.budget} s) ...")
        row = hunt(bug, target, binary, arguments.budget)
        if arguments.from_nothing:
            # The same hunt without seeds or earlier findings: how long raw fuzzing takes (informative).
            row["scratch"] = hunt(bug, target, binary, arguments.budget, from_seeds=False)
            log(f"planted [{index}/{len(bugs)}] {bug}: from nothing: {outcome(row['scratch'])}")
        rows.append(row)
        log(f"planted [{index}/{len(bugs)}] {bug}: " + (
            f"FOUND by {target} after {row['seconds']:.1f} s, {row['execs']} execs: {row['what']}"
            if row["detected"] else f"MISSED by {target} in {row['seconds']:.0f} s ({row['execs']} execs)"))
        if row["crash"]:
            log(f"  replay: FUZZ={target} {BINARY_HINT} {row['crash'].relative_to(ROOT)}")
    result = table(rows)
    (OUT / "table.md").write_text(result + "\n")
    log("\n" + result)
    missed = [r["bug"] for r in rows if not r["detected"]]
    log(f"\nplanted: {len(rows) - len(missed)}/{len(rows)} found" + (f"; MISSED: {' '.join(missed)}" if missed else "")
        + f" (table in {(OUT / 'table.md').relative_to(ROOT)})")
    return 1 if missed else 0


BINARY_HINT = "build/planted/bin/serdiff_fuzz_libfuzzer (configured for that bug)"


def main():
    if sys.argv[1:] == ["--check"]:
        return check()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--budget", type=int, default=120, help="seconds of fuzzing per bug (default 120)")
    parser.add_argument("--bugs", default="", help="comma- or space-separated bug names (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="build parallelism (default 2)")
    parser.add_argument("--from-nothing", action="store_true",
                        help="also hunt each bug from an empty corpus (no seeds) for the same budget")
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
