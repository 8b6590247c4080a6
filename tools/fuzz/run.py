#!/usr/bin/env python3
"""serdiff fuzz runner: builds the engine binary, fuzzes every target in parallel, prints progress and a
final table, then triages the crashes (tools/fuzz/triage.py: minimized, deduplicated, explained);
`merge` minimizes new inputs back into corpora/ (libFuzzer -merge=1).

  tools/fuzz/run.py fuzz  [--time 60] [--targets a,b] [--engine libfuzzer|afl|libfuzzer,afl] [--jobs N]
  tools/fuzz/run.py merge [--targets a,b] [--jobs N]
  tools/fuzz/run.py build [--engine libfuzzer|afl]
Every command takes --subject serdiff|core and --core-src DIR (tools/fuzz/subject.py, docs/core.md).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402
import subject  # noqa: E402  (which code is under test: serdiff's or Bitcoin Core's)
import triage  # noqa: E402  (crash triage: replay, minimize, deduplicate, explain)

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "fuzz-out"
SHARED_DATA = provenance.SHARED_DATA  # ../shared/data, or $SERDIFF_DATA_DIR
RSS_LIMIT_MB = 2048          # no target may exceed 2 GiB RSS (docs/targets.md, "Bounds")
AFL_MAX_SEED_BYTES = 1 << 20  # afl-fuzz refuses larger test cases
PROGRESS_SECONDS = 10


def log(message):
    print(message, flush=True)


def build_dir(engine):
    return ROOT / "build" / f"fuzz-{engine}"


def configure_command(engine, directory):
    """The cmake line of a fuzz build tree (clang-19, ASan+UBSan, RelWithDebInfo, engine instrumentation, no
    tests); the caller adds the subject's arguments."""
    return ["cmake", "-S", str(ROOT), "-B", str(directory), "-G", "Ninja", "-DCMAKE_C_COMPILER=clang-19",
            "-DCMAKE_CXX_COMPILER=clang++-19", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            "-DSERDIFF_SANITIZERS=address,undefined", f"-DSERDIFF_FUZZ_ENGINE={engine}", "-DSERDIFF_BUILD_TESTS=OFF"]


def build(engine, jobs, extra_targets=()):
    """Configures build/fuzz-<engine> (configure_command) and builds the current subject's binaries in it
    (<subject>_fuzz_<engine>, <subject>_fuzz_replay)."""
    directory = build_dir(engine)
    log(f"fuzz: building {engine} binaries for {subject.describe()} in {directory.relative_to(ROOT)} ...")
    configured = subprocess.run(configure_command(engine, directory) + subject.cmake_arguments(),
                                stdout=subprocess.DEVNULL)
    if configured.returncode != 0:
        sys.exit(f"fuzz: configuring {directory.relative_to(ROOT)} failed (messages above)")
    subprocess.run(["cmake", "--build", str(directory), "-j", str(jobs), "--target",
                    subject.binary_name(engine), subject.binary_name("replay"), "serdiff_corpus_gen",
                    *extra_targets], check=True)
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


def afl_environment(environment):
    """afl-fuzz's environment: it refuses to start when ASAN_OPTIONS is set without abort_on_error=1 and symbolize=0
    (it learns of a crash from the signal; make fuzz's ASAN_OPTIONS are always set), so those two come first and the
    caller's options (sanitizer_environment: make fuzz's, then the user's) after them; plus its quiet settings."""
    return {**environment, "ASAN_OPTIONS": "abort_on_error=1:symbolize=0:" + environment.get("ASAN_OPTIONS", ""),
            "AFL_SKIP_CPUFREQ": "1", "AFL_NO_UI": "1", "AFL_NO_AFFINITY": "1",
            "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1", "AFL_FORKSRV_INIT_TMOUT": "60000",
            "AFL_SKIP_CRASHES": "1"}  # a crashing seed is skipped, logged, harvested (run_afl)


def libfuzzer_command(binary, target, options, seconds, artifacts, corpora):
    """make fuzz's libFuzzer line for one target: its options from the binary's listing (max_len, its own flags),
    its dictionary when corpora/dicts has one, crash files into `artifacts`, new inputs into the first corpus."""
    command = [str(binary), f"-max_total_time={seconds}", f"-rss_limit_mb={RSS_LIMIT_MB}",
               f"-max_len={options['max_len']}", "-timeout=30", "-print_final_stats=1", f"-artifact_prefix={artifacts}/"]
    dictionary = ROOT / "corpora" / "dicts" / f"{target}.dict"
    if dictionary.exists():
        command.append(f"-dict={dictionary}")
    return command + options["libfuzzer_flags"].split() + [str(d) for d in corpora]


def target_options(binary):
    """Every registered target's options, as the binary prints them (SERDIFF_FUZZ_TARGET in fuzz_targets/)."""
    listing = subprocess.run([str(binary), "--list", "--json"], check=True, capture_output=True, text=True,
                             env={**os.environ, "FUZZ": ""}).stdout
    return {entry["name"]: entry for entry in json.loads(listing) if "absent" not in entry}


def absent_targets(binary):
    """The targets the binary's subject does not build, with the reason (subjects/core/absent_targets.tsv)."""
    listing = subprocess.run([str(binary), "--list", "--json"], check=True, capture_output=True, text=True,
                             env={**os.environ, "FUZZ": ""}).stdout
    return {entry["name"]: entry["absent"] for entry in json.loads(listing) if "absent" in entry}


def list_targets(binary, wanted):
    """The wanted targets' options (all targets when none is named), in the binary's order."""
    options = target_options(binary)
    absent = absent_targets(binary)
    if not wanted:
        for name, reason in absent.items():
            log(f"fuzz: {name}: not built for the {subject.current()} subject: {reason}")
        return list(options.values())
    for name in wanted:
        if name in absent:
            sys.exit(f"fuzz: target {name} is not built for the {subject.current()} subject: {absent[name]}")
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
        self.dictionary = ROOT / "corpora" / "dicts" / f"{target}.dict"  # (AFL++'s -x; libfuzzer_command finds it too)
        self.options = options
        self.execs = self.exec_rate = 0
        self.coverage = "-"
        self.corpus_before = self.corpus_after = 0
        self.new_crashes = []
        self.exit_status = 0
        self.engine_failed = False
        self.skipped = options["afl_unsupported"] if engine == "afl" else None
        self.started = None
        self.status = "waiting"
        self.from_seeds = False      # the crash came while the engine replayed its seeds
        self.peak_rss_mb = 0
        self.edges = self.features = None  # libFuzzer's cov/ft, for the samples
        self.samples = []            # (elapsed s, execs, exec/s, peak RSS MB, edges, ft, RSS MB now) per poll
        self.pid = None              # the libFuzzer process while it runs (its RSS now is read from /proc)

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
        # Only this engine's files: another engine fuzzing the same target harvests into the same directory.
        self.new_crashes = sorted(name for name in set(os.listdir(self.crashes)) - crashes_before
                                  if name.startswith("afl-") == (self.engine == "afl"))
        self.from_seeds = bool(self.new_crashes) and triage.found_replaying_seeds(self.engine, self.log_path,
                                                                                   self.new_crashes)
        # An engine that stops with an error but left no crash input did not fuzz (bad flags, setup).
        self.engine_failed = self.exit_status != 0 and not self.new_crashes
        self.corpus_after = count_files(self.committed, self.corpus, self.shared)
        self.status = "done"

    def run_libfuzzer(self):
        command = libfuzzer_command(self.bin_dir / subject.binary_name("libfuzzer"), self.target, self.options,
                                    self.seconds, self.crashes, [d for d in (self.corpus, self.committed, self.shared) if d])
        with open(self.log_path, "w") as log_file:
            process = subprocess.Popen(command, env=self.environment(), stdout=log_file, stderr=subprocess.STDOUT,
                                       cwd=OUT)
            self.pid = process.pid
            try:
                self.exit_status = process.wait()
            except BaseException:
                process.kill()
                process.wait()
                raise
            finally:
                self.pid = None
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
        command += ["--", str(self.bin_dir / subject.binary_name("afl"))]
        environment = afl_environment(self.environment())
        with open(self.log_path, "w") as log_file:
            self.exit_status = subprocess.run(command, env=environment, stdout=log_file, stderr=subprocess.STDOUT,
                                              cwd=OUT).returncode
        self.poll()
        # Harvest: AFL's crashes into fuzz-out/crashes/<target>/, its queue into fuzz-out/corpus/<target>/.
        for crash in sorted((findings / "default" / "crashes").glob("id:*")):
            save_by_content(crash, self.crashes, "afl-crash-")
        triage.harvest_afl_seed_crashes(self.log_path, seeds, self.crashes)
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
            rss = re.findall(r"(?:^#\d+\s.* rss: |stat::peak_rss_mb:\s+)(\d+)", text, re.MULTILINE)
            if rss:
                self.peak_rss_mb = max(self.peak_rss_mb, max(int(x) for x in rss))
            if status:
                execs, cov, features, _, rate = status[-1]
                self.execs, self.coverage = int(execs), f"{cov} edges / {features} ft"
                self.edges, self.features = int(cov), int(features)
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
                self.peak_rss_mb = max(self.peak_rss_mb, int(stats.get("peak_rss_mb", 0) or 0))

    def replay_command(self, crash):
        return (f"{(self.bin_dir / subject.binary_name('replay')).relative_to(ROOT)} --target {self.target} "
                f"{(self.crashes / crash).relative_to(ROOT)}")


def print_table(runs, findings=()):
    header = ("target", "engine", "execs/s", "coverage", "corpus before → after", "peak RSS",
              "crashes → unique")

    def unique(r):
        paths = {r.crashes / name for name in r.new_crashes}
        return sum(1 for f in findings if any(c.path in paths for c in f.crashes))

    def row(r):
        if r.skipped:
            return (r.target, r.engine, "-", f"skipped: {r.skipped}", "-", "-", "-")
        crashes = "engine failed" if r.engine_failed else (
            f"{len(r.new_crashes)} → {unique(r)}" if r.new_crashes else "0")
        rss = f"{r.peak_rss_mb} MB" if r.peak_rss_mb else "-"
        if r.from_seeds and r.execs == 0:  # no mutation ran: the rate and coverage columns would be empty
            return (r.target, r.engine, "-", "found while replaying seeds", f"{r.corpus_before} → {r.corpus_after}",
                    rss, crashes)
        return (r.target, r.engine, str(r.exec_rate), r.coverage + (" (crash on a seed)" if r.from_seeds else ""),
                f"{r.corpus_before} → {r.corpus_after}", rss, crashes)

    rows = [row(r) for r in runs]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    line = "  ".join("{:<%d}" % w for w in widths)
    log("")
    log(line.format(*header))
    log("  ".join("-" * w for w in widths))
    for row in rows:
        log(line.format(*row))


def resident_mb(pid):
    """The resident set of process `pid` now (VmRSS, /proc/<pid>/status) in MB; None without a process or
    /proc. libFuzzer reports only its peak, which a single large input raises for good; a leak raises this."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def execute(runs, jobs):
    """Runs every target × engine, `jobs` at a time, with a progress line per running target every 10 s."""
    done = threading.Event()
    several_engines = len({r.engine for r in runs}) > 1

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
                    r.samples.append((round(elapsed), r.execs, rate, r.peak_rss_mb, r.edges, r.features,
                                      resident_mb(r.pid)))
                    name = f"{r.target}/{r.engine}" if several_engines else r.target
                    log(f"  [{elapsed:5.0f}s/{r.seconds}s] {name:<14} {r.execs:>10} execs "
                        f"{rate:>7}/s  {r.coverage}")

    reporter = threading.Thread(target=report_progress, daemon=True)
    reporter.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(r.run): r for r in runs}
        for future in concurrent.futures.as_completed(futures):
            r = futures[future]
            future.result()
            outcome = ("skipped" if r.skipped else "ENGINE FAILED" if r.engine_failed
                       else f"{len(r.new_crashes)} crash(es)" + (" while replaying seeds" if r.from_seeds else ""))
            log(f"fuzz: {r.target} ({r.engine}) finished: {r.execs} execs, {outcome}")
    done.set()


def triage_runs(runs, minimize_seconds):
    """The run's crashes through tools/fuzz/triage.py: replayed, minimized, grouped into unique findings."""
    crashes = [triage.Crash(path=r.crashes / name, target=r.target, engine=r.engine,
                            from_seeds=r.from_seeds or name.startswith("afl-seed-crash-"))
               for r in runs for name in r.new_crashes]
    if not crashes:
        return crashes, []
    bin_dirs = {r.engine: r.bin_dir for r in runs}
    tools = triage.Tools(bin_dirs.get("libfuzzer") or next(iter(bin_dirs.values())), bin_dirs)
    log(f"\nfuzz: triaging {len(crashes)} crash file(s) (minimizing with a {minimize_seconds} s budget each) ...")
    return crashes, triage.triage(crashes, tools, minimize_seconds, OUT / "findings")


def write_summary(runs, findings, path):
    """fuzz-out/summary.json: per target × engine the numbers of the table, exec/s and RSS over time, and the
    unique findings (what a long soak records)."""
    summary = {"subject": subject.current(), "core_src": subject.core_src() or None, "runs": [{"target": r.target, "engine": r.engine, "seconds": r.seconds, "skipped": r.skipped or None,
                         "execs": r.execs, "exec_per_s": r.exec_rate, "coverage": r.coverage,
                         "corpus_before": r.corpus_before, "corpus_after": r.corpus_after,
                         "peak_rss_mb": r.peak_rss_mb, "crashes": r.new_crashes, "from_seeds": r.from_seeds,
                         "engine_failed": r.engine_failed, "log": str(r.log_path.relative_to(ROOT)),
                         "samples": [{"elapsed_s": e, "execs": x, "exec_per_s": rate, "rss_mb": rss, "edges": edges,
                                      "features": features, "rss_now_mb": now}
                                     for e, x, rate, rss, edges, features, now in r.samples]} for r in runs],
               "findings": triage.findings_json(findings)}
    path.write_text(json.dumps(summary, indent=1) + "\n")
    from importlib import util  # tools/report/html.py by path (on sys.path its name would shadow the stdlib's html)
    spec = util.spec_from_file_location("serdiff_report_html", ROOT / "tools" / "report" / "html.py")
    page = util.module_from_spec(spec)
    spec.loader.exec_module(page)
    page.write_fuzz_page(summary, path.parent / "index.html")


def fuzz(arguments):
    runs = []
    for engine in arguments.engines:
        bin_dir = build(engine, arguments.jobs)
        targets = list_targets(bin_dir / subject.binary_name(engine), arguments.targets)
        seeds_dir = shared_seeds(bin_dir)
        runs += [Run(options, engine, bin_dir, arguments.time, seeds_dir) for options in targets]
    log(f"fuzz: {len(runs)} run(s) (target × engine) × {arguments.time} s with {', '.join(arguments.engines)}, "
        f"{arguments.jobs} at a time; logs in {(OUT / 'logs').relative_to(ROOT)}/")
    execute(runs, arguments.jobs)
    return report(runs, arguments.minimize_seconds)


def report(runs, minimize_seconds=triage.DEFAULT_MINIMIZE_SECONDS):
    """The table, one block per unique finding, the summary JSON; 1 when anything was found or failed."""
    crashes, findings = triage_runs(runs, minimize_seconds)
    print_table(runs, findings)
    if crashes:
        triage.print_findings(findings, len(crashes))
    for r in runs:
        if r.engine_failed:
            log(f"ENGINE FAILED {r.target} ({r.engine}): exit status {r.exit_status}; log: "
                f"{r.log_path.relative_to(ROOT)}")
    write_summary(runs, findings, OUT / "summary.json")
    log(f"\nfuzz: {len(crashes)} crash file(s) → {len(findings)} unique finding(s); summary in "
        f"{(OUT / 'summary.json').relative_to(ROOT)} (page: {(OUT / 'index.html').relative_to(ROOT)}), logs in "
        f"{(OUT / 'logs').relative_to(ROOT)}/")
    return 1 if crashes or any(r.engine_failed for r in runs) else 0


def merge(arguments):
    """Adds the fuzz-out/corpus/<target>/ inputs that bring new coverage to corpora/<target>/, except those that
    hold a piece of ../shared/data (tools/fuzz/provenance.py): an input grown from a real-data seed is never
    committed. They are set aside before libFuzzer merges, so a clean input with the same coverage still can be."""
    bin_dir = build("libfuzzer", arguments.jobs)
    binary = bin_dir / subject.binary_name("libfuzzer")
    targets = list_targets(binary, arguments.targets)
    index = provenance.Index(SHARED_DATA) if (SHARED_DATA / "blocks").is_dir() else None
    if index is None:
        log(f"merge: {SHARED_DATA} absent: inputs cannot be checked for pieces of it (a run without it seeds "
            f"nothing from it; a corpus from a run that had it may hold some)")
    for options in targets:
        target = options["name"]
        committed, found = ROOT / "corpora" / target, OUT / "corpus" / target
        if not found.is_dir() or not any(found.iterdir()):
            log(f"merge: {target}: no new inputs in {found.relative_to(ROOT)}")
            continue
        committed.mkdir(parents=True, exist_ok=True)
        before = count_files(committed)
        clean = OUT / "merge" / target
        shutil.rmtree(clean, ignore_errors=True)
        clean.mkdir(parents=True)
        refused = 0
        for candidate in sorted(p for p in found.iterdir() if p.is_file()):
            if index is not None and index.find(candidate.read_bytes()) is not None:
                refused += 1
            else:
                shutil.copyfile(candidate, clean / candidate.name)
        result = subprocess.run([str(binary), "-merge=1", f"-rss_limit_mb={RSS_LIMIT_MB}",
                                 f"-max_len={options['max_len']}", str(committed), str(clean)],
                                env={**os.environ, "FUZZ": target}, capture_output=True, text=True)
        shutil.rmtree(clean, ignore_errors=True)
        if result.returncode != 0:
            log(result.stderr[-3000:])
            sys.exit(f"merge: {target}: libFuzzer -merge failed (status {result.returncode})")
        log(f"merge: {target}: corpora/{target} {before} → {count_files(committed)} inputs "
            f"(from {count_files(found)} found" +
            (f"; {refused} refused before merging: they hold pieces of {SHARED_DATA}" if refused else "") + ")")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fuzz", "merge", "build", "option"])
    parser.add_argument("option_args", nargs="*", metavar="BINARY TARGET FIELD",
                        help="option: print one option of one target as the binary declares it (for scripts)")
    parser.add_argument("--time", type=int, default=60, help="seconds per target (default 60)")
    parser.add_argument("--targets", default="", help="comma- or space-separated target names (default: all)")
    parser.add_argument("--engine", default="libfuzzer",
                        help="libfuzzer, afl, or several (comma- or space-separated) fuzzing the same targets")
    parser.add_argument("--minimize-seconds", type=int, default=triage.DEFAULT_MINIMIZE_SECONDS,
                        help="time budget per crash minimization in the triage (0: none)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="targets fuzzed at once")
    subject.add_arguments(parser)
    arguments = parser.parse_args()
    global OUT
    if subject.select(arguments.subject, arguments.core_src, arguments.core_base) == "core":
        OUT = ROOT / "fuzz-out" / "core"  # the Core subject's findings apart from the serdiff subject's
    arguments.targets = [t for t in re.split(r"[,\s]+", arguments.targets) if t]
    arguments.jobs = max(1, arguments.jobs)
    arguments.engines = [e for e in re.split(r"[,\s]+", arguments.engine) if e]
    if not arguments.engines or any(e not in ("libfuzzer", "afl") for e in arguments.engines):
        sys.exit(f"fuzz: --engine takes libfuzzer and/or afl, got '{arguments.engine}'")
    if arguments.command == "option":
        if len(arguments.option_args) != 3:
            sys.exit("usage: tools/fuzz/run.py option BINARY TARGET FIELD   (e.g. max_len)")
        binary, target, field = arguments.option_args
        value = target_options(binary)[target][field]
        print(str(value).lower() if isinstance(value, bool) else value)
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    if arguments.command == "build":
        for engine in arguments.engines:
            build(engine, arguments.jobs)
        return 0
    return fuzz(arguments) if arguments.command == "fuzz" else merge(arguments)


if __name__ == "__main__":
    sys.exit(main())
