#!/usr/bin/env python3
"""serdiff fuzz runner: builds the engine binary, fuzzes every target in parallel, prints progress and a
final table; `merge` minimizes new inputs back into corpora/ (libFuzzer -merge=1).

  tools/fuzz/run.py fuzz  [--time 60] [--targets a,b] [--engine libfuzzer|afl] [--jobs N]
  tools/fuzz/run.py merge [--targets a,b] [--jobs N]
  tools/fuzz/run.py build [--engine libfuzzer|afl]
"""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "fuzz-out"
SHARED_DATA = Path(os.environ.get("SERDIFF_DATA_DIR") or ROOT.parent / "shared" / "data")
RSS_LIMIT_MB = 2048          # no target may exceed 2 GiB RSS (docs/fuzzing.md)
AFL_MAX_SEED_BYTES = 1 << 20  # afl-fuzz refuses larger test cases
PROGRESS_SECONDS = 10


def log(message):
    print(message, flush=True)


def build_dir(engine):
    return ROOT / "build" / f"fuzz-{engine}"


def build(engine, jobs, extra_targets=()):
    """Configures build/fuzz-<engine> (clang-19, ASan+UBSan, engine instrumentation) and builds it."""
    directory = build_dir(engine)
    log(f"fuzz: building {engine} binaries in {directory.relative_to(ROOT)} ...")
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(directory), "-G", "Ninja",
                    "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSERDIFF_SANITIZERS=address,undefined",
                    f"-DSERDIFF_FUZZ_ENGINE={engine}", "-DSERDIFF_BUILD_TESTS=OFF"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(directory), "-j", str(jobs), "--target",
                    f"serdiff_fuzz_{engine}", "serdiff_fuzz_replay", "serdiff_corpus_gen", *extra_targets], check=True)
    return directory / "bin"


# Runtime sanitizer options of make fuzz, fuzz-bench and test-planted (docs/fuzzing.md "Sanitizer policy"):
# ASan's stack-use-after-return detection off (it costs 3x on the small targets, more with exceptions); the
# CI asan-ubsan job's replay and smoke (ci/jobs/asan-ubsan.sh) and make test's replay keep it on. Options
# the caller already set in ASAN_OPTIONS come later and win.
FUZZ_ASAN_OPTIONS = "detect_stack_use_after_return=0"


def sanitizer_environment():
    """The environment every fuzzing run gets (make fuzz, fuzz-bench, test-planted)."""
    user = os.environ.get("ASAN_OPTIONS", "")
    return {**os.environ, "ASAN_OPTIONS": FUZZ_ASAN_OPTIONS + (":" + user if user else "")}


def target_options(binary):
    """Every registered target's options, as the binary prints them (SERDIFF_FUZZ_TARGET in fuzz_targets/)."""
    listing = subprocess.run([str(binary), "--list", "--json"], check=True, capture_output=True, text=True,
                             env={**os.environ, "FUZZ": ""}).stdout
    return {entry["name"]: entry for entry in json.loads(listing)}


def list_targets(binary, wanted):
    """The wanted targets' options (all targets when none is named), in the binary's order."""
    options = target_options(binary)
    if not wanted:
        return list(options.values())
    unknown = [name for name in wanted if name not in options]
    if unknown:
        sys.exit(f"fuzz: unknown target(s) {', '.join(unknown)}; known: {' '.join(options)}")
    return [options[name] for name in wanted]


def shared_seeds(bin_dir):
    """Real-data seeds cut from ../shared/data into the build tree (never into corpora/)."""
    if not (SHARED_DATA / "blocks").is_dir():
        log(f"fuzz: {SHARED_DATA} absent; fuzzing from the committed corpora only")
        return None
    out = bin_dir.parent / "shared-seeds"
    # Regenerated every run (about a second) so it follows the generator and the data.
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([str(bin_dir / "serdiff_corpus_gen"), "--shared-data", str(SHARED_DATA), "--out", str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def count_files(*directories):
    return sum(1 for d in directories if d and d.is_dir() for f in d.iterdir() if f.is_file())


def save_by_content(source, directory, prefix=""):
    """Copies `source` into `directory` named by its SHA-1 (as libFuzzer names inputs); True when new."""
    data = source.read_bytes()
    target = directory / (prefix + hashlib.sha1(data).hexdigest())
    if target.exists():
        return False
    directory.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return True


class Run:
    """One target under one engine: its command, live status and results."""

    def __init__(self, options, engine, bin_dir, seconds, seeds_dir):
        target = options["name"]
        self.target, self.engine, self.bin_dir, self.seconds = target, engine, bin_dir, seconds
        self.corpus = OUT / "corpus" / target            # inputs found by earlier and this run
        self.committed = ROOT / "corpora" / target
        self.shared = seeds_dir / target if seeds_dir and (seeds_dir / target).is_dir() else None
        self.crashes = OUT / "crashes" / target
        self.log_path = OUT / "logs" / f"{target}-{engine}.log"
        self.dictionary = ROOT / "corpora" / "dicts" / f"{target}.dict"
        self.max_len = options["max_len"]
        self.libfuzzer_flags = options["libfuzzer_flags"].split()
        self.execs = self.exec_rate = 0
        self.coverage = "-"
        self.corpus_before = self.corpus_after = 0
        self.new_crashes = []
        self.exit_status = 0
        self.engine_failed = False
        self.skipped = options["afl_unsupported"] if engine == "afl" else None
        self.started = None
        self.status = "waiting"

    def environment(self):
        return {**sanitizer_environment(), "FUZZ": self.target}

    def run(self):
        if self.skipped:
            self.status = "done"
            return
        self.corpus.mkdir(parents=True, exist_ok=True)
        self.crashes.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        crashes_before = set(os.listdir(self.crashes))
        self.corpus_before = count_files(self.committed, self.corpus, self.shared)
        self.started = time.time()
        self.status = "running"
        if self.engine == "libfuzzer":
            self.run_libfuzzer()
        else:
            self.run_afl()
        self.new_crashes = sorted(set(os.listdir(self.crashes)) - crashes_before)
        # An engine that stops with an error but left no crash input did not fuzz (bad flags, setup).
        self.engine_failed = self.exit_status != 0 and not self.new_crashes
        self.corpus_after = count_files(self.committed, self.corpus, self.shared)
        self.status = "done"

    def run_libfuzzer(self):
        command = [str(self.bin_dir / "serdiff_fuzz_libfuzzer"), f"-max_total_time={self.seconds}",
                   f"-rss_limit_mb={RSS_LIMIT_MB}", f"-max_len={self.max_len}", "-timeout=30",
                   "-print_final_stats=1", f"-artifact_prefix={self.crashes}/"]
        if self.dictionary.exists():
            command.append(f"-dict={self.dictionary}")
        command += self.libfuzzer_flags
        command += [str(d) for d in (self.corpus, self.committed, self.shared) if d]
        with open(self.log_path, "w") as log_file:
            self.exit_status = subprocess.run(command, env=self.environment(), stdout=log_file,
                                              stderr=subprocess.STDOUT, cwd=OUT).returncode
        self.poll()

    def run_afl(self):
        seeds = OUT / "afl-in" / self.target
        shutil.rmtree(seeds, ignore_errors=True)
        seeds.mkdir(parents=True)
        for directory in (self.committed, self.corpus, self.shared):
            if directory:
                for f in directory.iterdir():
                    if f.is_file() and 0 < f.stat().st_size <= AFL_MAX_SEED_BYTES:
                        save_by_content(f, seeds)
        findings = OUT / "afl" / self.target
        shutil.rmtree(findings, ignore_errors=True)
        findings.parent.mkdir(parents=True, exist_ok=True)
        command = ["afl-fuzz", "-i", str(seeds), "-o", str(findings), "-V", str(self.seconds), "-m", "none",
                   "-t", "5000"]
        if self.dictionary.exists():
            command += ["-x", str(self.dictionary)]
        command += ["--", str(self.bin_dir / "serdiff_fuzz_afl")]
        environment = {**self.environment(), "AFL_SKIP_CPUFREQ": "1", "AFL_NO_UI": "1", "AFL_NO_AFFINITY": "1",
                       "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1", "AFL_FORKSRV_INIT_TMOUT": "60000"}
        with open(self.log_path, "w") as log_file:
            self.exit_status = subprocess.run(command, env=environment, stdout=log_file, stderr=subprocess.STDOUT,
                                              cwd=OUT).returncode
        self.poll()
        # Harvest: AFL's crashes into fuzz-out/crashes/<target>/, its queue into fuzz-out/corpus/<target>/.
        for crash in sorted((findings / "default" / "crashes").glob("id:*")):
            save_by_content(crash, self.crashes, "afl-crash-")
        for entry in sorted((findings / "default" / "queue").glob("id:*")):
            if entry.is_file():
                save_by_content(entry, self.corpus)

    def poll(self):
        """Refreshes execs, rate and coverage from the engine's log or stats file."""
        if self.engine == "libfuzzer":
            try:
                text = self.log_path.read_text(errors="replace")
            except FileNotFoundError:
                return
            status = re.findall(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/\S+(?: lim: \d+)?"
                                r"(?: exec/s: (\d+))?", text, re.MULTILINE)
            if status:
                execs, cov, features, _, rate = status[-1]
                self.execs, self.coverage = int(execs), f"{cov} edges / {features} ft"
                if rate:
                    self.exec_rate = int(rate)
            final = re.search(r"stat::average_exec_per_sec:\s+(\d+)", text)
            if final:
                self.exec_rate = int(final.group(1))
        else:
            stats_file = OUT / "afl" / self.target / "default" / "fuzzer_stats"
            if stats_file.exists():
                stats = dict(line.split(":", 1) for line in stats_file.read_text().splitlines() if ":" in line)
                stats = {k.strip(): v.strip() for k, v in stats.items()}
                self.execs = int(stats.get("execs_done", 0))
                rate = float(stats.get("execs_per_sec", 0))
                self.exec_rate = int(rate) if math.isfinite(rate) else 0  # "inf" right after start
                self.coverage = f"{stats.get('edges_found', '?')} edges ({stats.get('bitmap_cvg', '?')})"

    def replay_command(self, crash):
        return (f"{(self.bin_dir / 'serdiff_fuzz_replay').relative_to(ROOT)} --target {self.target} "
                f"{(self.crashes / crash).relative_to(ROOT)}")


def print_table(runs):
    header = ("target", "engine", "execs/s", "coverage", "corpus before → after", "crashes")
    rows = [(r.target, r.engine, "-", f"skipped: {r.skipped}", "-", "-") if r.skipped else
            (r.target, r.engine, str(r.exec_rate), r.coverage, f"{r.corpus_before} → {r.corpus_after}",
             "engine failed" if r.engine_failed else str(len(r.new_crashes))) for r in runs]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    line = "  ".join("{:<%d}" % w for w in widths)
    log("")
    log(line.format(*header))
    log("  ".join("-" * w for w in widths))
    for row in rows:
        log(line.format(*row))


def fuzz(arguments):
    engine = arguments.engine
    bin_dir = build(engine, arguments.jobs)
    targets = list_targets(bin_dir / f"serdiff_fuzz_{engine}", arguments.targets)
    seeds_dir = shared_seeds(bin_dir)
    runs = [Run(options, engine, bin_dir, arguments.time, seeds_dir) for options in targets]
    log(f"fuzz: {len(runs)} target(s) × {arguments.time} s with {engine}, {arguments.jobs} at a time; "
        f"logs in {(OUT / 'logs').relative_to(ROOT)}/")

    done = threading.Event()

    def report_progress():
        while not done.wait(PROGRESS_SECONDS):
            for r in runs:
                if r.status == "running":
                    try:
                        r.poll()
                    except (OSError, ValueError):  # a stats file caught mid-write: next round
                        continue
                    elapsed = time.time() - r.started
                    rate = r.exec_rate or int(r.execs / max(elapsed, 1))  # before the engine reports one
                    log(f"  [{elapsed:5.0f}s/{r.seconds}s] {r.target:<14} {r.execs:>10} execs "
                        f"{rate:>7}/s  {r.coverage}")

    reporter = threading.Thread(target=report_progress, daemon=True)
    reporter.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=arguments.jobs) as pool:
        futures = {pool.submit(r.run): r for r in runs}
        for future in concurrent.futures.as_completed(futures):
            r = futures[future]
            future.result()
            outcome = ("skipped" if r.skipped else "ENGINE FAILED" if r.engine_failed
                       else f"{len(r.new_crashes)} crash(es)")
            log(f"fuzz: {r.target} finished: {r.execs} execs, {outcome}")
    done.set()

    print_table(runs)
    failed = [r for r in runs if r.new_crashes or r.engine_failed]
    for r in failed:
        for crash in r.new_crashes:
            log(f"CRASH {r.target}: {r.replay_command(crash)}")
        if r.engine_failed:
            log(f"ENGINE FAILED {r.target}: exit status {r.exit_status}")
        log(f"  log: {r.log_path.relative_to(ROOT)}")
    return 1 if failed else 0


def merge(arguments):
    """Adds the fuzz-out/corpus/<target>/ inputs that bring new coverage to corpora/<target>/."""
    bin_dir = build("libfuzzer", arguments.jobs)
    binary = bin_dir / "serdiff_fuzz_libfuzzer"
    targets = list_targets(binary, arguments.targets)
    for options in targets:
        target = options["name"]
        committed, found = ROOT / "corpora" / target, OUT / "corpus" / target
        if not found.is_dir() or not any(found.iterdir()):
            log(f"merge: {target}: no new inputs in {found.relative_to(ROOT)}")
            continue
        before = count_files(committed)
        result = subprocess.run([str(binary), "-merge=1", f"-rss_limit_mb={RSS_LIMIT_MB}",
                                 f"-max_len={options['max_len']}", str(committed), str(found)],
                                env={**os.environ, "FUZZ": target}, capture_output=True, text=True)
        if result.returncode != 0:
            log(result.stderr[-3000:])
            sys.exit(f"merge: {target}: libFuzzer -merge failed (status {result.returncode})")
        log(f"merge: {target}: corpora/{target} {before} → {count_files(committed)} inputs "
            f"(from {count_files(found)} found)")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fuzz", "merge", "build", "option"])
    parser.add_argument("option_args", nargs="*", metavar="BINARY TARGET FIELD",
                        help="option: print one option of one target as the binary declares it (for scripts)")
    parser.add_argument("--time", type=int, default=60, help="seconds per target (default 60)")
    parser.add_argument("--targets", default="", help="comma- or space-separated target names (default: all)")
    parser.add_argument("--engine", default="libfuzzer", choices=["libfuzzer", "afl"])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="targets fuzzed at once")
    arguments = parser.parse_args()
    arguments.targets = [t for t in re.split(r"[,\s]+", arguments.targets) if t]
    arguments.jobs = max(1, arguments.jobs)
    if arguments.command == "option":
        if len(arguments.option_args) != 3:
            sys.exit("usage: tools/fuzz/run.py option BINARY TARGET FIELD   (e.g. max_len)")
        binary, target, field = arguments.option_args
        value = target_options(binary)[target][field]
        print(str(value).lower() if isinstance(value, bool) else value)
        return 0
    OUT.mkdir(exist_ok=True)
    if arguments.command == "build":
        build(arguments.engine, arguments.jobs)
        return 0
    return fuzz(arguments) if arguments.command == "fuzz" else merge(arguments)


if __name__ == "__main__":
    sys.exit(main())
