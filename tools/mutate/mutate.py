#!/usr/bin/env python3
"""make mutate: mutation analysis of the optimized side (serialize/), the shared model types (model/) and the
hashing and block checks (crypto/) against the fuzz suite; the report has a section per directory, with its score.

Mutants come from universalmutator (PyPI, pinned in tools/mutate/requirements.txt, installed into
build/python-venv): its `mutate` CLI with the C++ rules, one source file of serialize/, model/ or crypto/ at a time
(--files takes files or directories; serialize/ alone is the recorded run's set).
Lines of the planted-bug hooks (serialize/planted.h, `SERDIFF_PLANTED(name)` conditions and `planted::` defect
helpers) are never mutated.

Per mutant, in a per-job copy of the source tree (mutate-out/jobs/<n>/src, corpora/ included: a snapshot taken when
the run starts, as are the mutated files' originals) and build tree:
  1. validity + trivial compiler equivalence (TCE): every translation unit of the fuzz binary that
     includes the file is compiled at -O2 -g0 with the fuzz build's sanitizers (not its coverage instrumentation);
     a compile error = invalid. When every such
     object is byte-identical to the original's, the instantiation unit (tools/mutate/instantiate.cpp: every public
     template and member of serialize/ for the fuzz targets' types; serdiff subject only) is compiled too: its
     object differs = "survived (not reached)", reach "instantiation-only" (code no fuzz unit instantiates); it
     does not compile = invalid; identical there too = equivalent. Invalid and equivalent are removed.
  2. reach: the coverage build of `make coverage` (build/coverage) replays each target's corpus; the
     targets whose replay executes the mutated line are the ones run. None = "survived (not reached)"; so is every
     mutant of a file no line of which is in the fuzz binary (crypto/block_check.cpp: the CLI and unit tests only).
     --reach-lcov FILE takes the reach from an lcov tracefile instead (make review-core's coverage of HEAD: one
     notion of reach per review): a record under "TN:<target>" is that target's, one without a test name is
     merged reach (every target is run on a mutant of a line it counts).
  3. incremental build of the libFuzzer + ASan/UBSan binary (as `make fuzz`, plus the CI asan-ubsan job's integer
     checks and ignorelist for the serdiff subject; only the units that include
     the file rebuild; ccache when installed), replay of the committed corpora (and real-data seeds) of
     those targets, then TIME seconds of libFuzzer per target until one kills it.
     Killed = mismatch report, sanitizer report, crash or timeout.
  4. with --unit (UNIT=1): ctest (unit tests) on every mutant; one the fuzz stages left alive, reached or not, that
     ctest kills is killed (phase "unit").

By default (--schemata on) steps 1 and 3 come after a cheaper path (docs/mutation-schemata.md): a quick
-fsyntax-only check of the mutated file alone refuses what does not compile as written; the rest of a round's mutants
are compiled into one schemata binary (tools/mutate/schemata.py), each chosen at run time by SERDIFF_MUTANT, and judged
there by replay, then TCE only if the replay left it alive, then fuzzing; a mutant the schemata form cannot carry is
judged as above (the rebuild way). --schemata off (and --unit) rebuilds every mutant.

State (resumable with --resume): mutate-out/state.json. Report: mutate-out/report.{md,json}.

With --subject core [--core-src DIR] (make mutate SUBJECT=core [CORE_SRC=DIR]) the files mutated are Bitcoin Core's
own (core_files(): CORE_FILES, and BLOCK_STORE_FILES on a tree block_store drives; relative to the Core tree's
src/; the tree given, or the pinned sdist, is never written): each job copies the tree's src/ to
build/mutate-core/jobs/<n>/core/src and builds core_fuzz_libfuzzer from it; reach comes from a coverage build of
core_fuzz_replay (build/mutate-core/coverage), and only the Core-backed targets run.
A target whose corpus already fails on the unmutated tree (a finding in it) keeps its reach (its coverage replay
keeps the profile the mismatch report writes before it aborts, and the inputs after the failing one run one by one):
its mutants are judged by the other targets that reach them first, and one only it tells apart is "killed, HEAD
already failing" (check "HEAD already failing: ..."), never "not reached". State and report: mutate-out/core/.

--lines FILE:1,5-9 keeps only the mutants on those lines (a review of changed lines).

  tools/mutate/mutate.py run [--files serialize/file.h] [--sample N] [--seed 1] [--time 60] [--jobs 1]
                             [--resume] [--unit] [--shard I/N] [--out mutate-out] [--lines FILE:1,5-9]
                             [--subject serdiff|core] [--core-src DIR] [--reach-lcov FILE] [--schemata on|off]
  tools/mutate/mutate.py report [--out mutate-out]
  tools/mutate/mutate.py compare A.json B.json [--out DIR]   (two runs' verdicts; exit 1 on any difference)
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import coverage as fuzz_coverage  # noqa: E402  (tools/fuzz/coverage.py: the build `make coverage` uses)
from run import sanitizer_environment  # noqa: E402  (tools/fuzz/run.py: the runtime options of make fuzz)
import subject as fuzz_subject  # noqa: E402  (tools/fuzz/subject.py: --subject/--core-src, as every fuzz tool)
sys.path.insert(0, str(ROOT / "tools" / "mutate"))
import schemata  # noqa: E402  (tools/mutate/schemata.py: the mutant schemata's rewrite; its planner runs in VENV)

VENV = ROOT / "build" / "python-venv"
REQUIREMENTS = ROOT / "tools" / "mutate" / "requirements.txt"
SHARED_DATA = Path(os.environ.get("SERDIFF_DATA_DIR") or ROOT.parent / "shared" / "data")
RSS_LIMIT_MB = 2048        # as tools/fuzz/run.py
INPUT_TIMEOUT = 30         # libFuzzer -timeout, as tools/fuzz/run.py
STATE_VERSION = 1
TRIAGE = ROOT / "tools" / "mutate" / "triage.tsv"   # id, verdict (equivalent|fixed|open), reason, evidence
PLANTED_HEADER = "serialize/planted.h"
# The serdiff subject's directories, each a section of the report with its own score: the optimized side
# (serialize/), the model types both sides share (model/) and the hashing and block checks (crypto/).
MUTATED_DIRS = ("serialize", "model", "crypto")
# The Core subject: Bitcoin Core's serialization files, relative to the Core tree's src/ (docs/mutation-core.md).
CORE_FILES = ("serialize.h", "streams.h", "streams.cpp", "util/obfuscation.h", "prevector.h", "compressor.cpp",
              "undo.h", "primitives/transaction.h", "primitives/block.h", "util/golombrice.h")
# Core's block storage, mutated on a tree whose BlockManager block_store drives (subjects/core/probe.cmake's test,
# core_has_block_store): there the Core subject compiles these files; on an older tree nothing does.
BLOCK_STORE_FILES = ("node/blockstorage.cpp", "flatfile.cpp")


def core_has_block_store(src):
    """subjects/core/probe.cmake's SERDIFF_CORE_HAS_BLOCK_STORE for the tree whose src/ is `src`: node/blockstorage.h
    has WriteBlock(const CBlock& block, int nHeight) and ReadRawBlock with a part range, and the tree has
    kernel/cs_main.h and util/log.h."""
    src = Path(src)
    header = src / "node" / "blockstorage.h"
    if not header.is_file() or not (src / "kernel" / "cs_main.h").is_file() or not (src / "util" / "log.h").is_file():
        return False
    text = header.read_text(errors="replace")
    return ("FlatFilePos WriteBlock(const CBlock& block, int nHeight)" in text
            and re.search(r"ReadRawBlockResult ReadRawBlock\(.*block_part", text) is not None)


def core_files(src):
    """The Core files make mutate SUBJECT=core mutates in the tree whose src/ is `src`."""
    return CORE_FILES + (BLOCK_STORE_FILES if core_has_block_store(src) else ())
CORE_WORK = ROOT / "build" / "mutate-core"           # the Core subject's job trees and coverage build
CORE_TRIAGE = ROOT / "tools" / "mutate" / "triage-core.tsv"
# The instantiation unit (docs/mutation.md, "Equivalence"): compiled only by the TCE step, in every job's copy of the
# tree, with the compile command of serialize/codec.cpp; it instantiates every public template and member of
# serialize/ for the types the fuzz targets use.
INSTANTIATION_UNIT = "tools/mutate/instantiate.cpp"
# The Core subject's (tools/mutate/instantiate_core.cpp), compiled with the command of the Core subject's
# subjects/core/subject.cpp (the tree's include directories and probe definitions).
CORE_INSTANTIATION_UNIT = "tools/mutate/instantiate_core.cpp"
INSTANTIATION_ONLY = "instantiation-only"
# The target of merged reach (an lcov record with no test name, --reach-lcov): the line is reached, by some target
# the file does not name, so every target runs on its mutants.
ANY_TARGET = "*"
HEAD_ALREADY_FAILING = "HEAD already failing"
DIRECTORY_TIMEOUT = 1800   # a corpus directory's coverage replay (as make review-core's)
FILE_TIMEOUT = 120         # one input's

lock = threading.Lock()


def log(message):
    print(message, flush=True)


# ---------------------------------------------------------------------------------------------- tools

def mutate_cli():
    """build/python-venv/bin/mutate, installing the pinned universalmutator first when needed (under the lock that
    python/build.sh and differential/oracles/core/install.sh take on the same venv)."""
    import fcntl
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{VENV}.core-install.lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        return install_mutate_requirements()


def install_mutate_requirements():
    if not (VENV / "bin" / "python").exists():
        log(f"mutate: creating {VENV.relative_to(ROOT)}")
        subprocess.run(["/usr/bin/python3", "-m", "venv", str(VENV)], check=True)
    marker = VENV / ".serdiff-mutate-requirements"
    if not marker.exists() or marker.read_text() != REQUIREMENTS.read_text():
        log(f"mutate: installing {REQUIREMENTS.relative_to(ROOT)} into {VENV.relative_to(ROOT)}")
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", "-r",
                        str(REQUIREMENTS)], check=True)
        marker.write_text(REQUIREMENTS.read_text())
    return VENV / "bin" / "mutate"


def universalmutator_version():
    """The pinned universalmutator version of REQUIREMENTS (its other pins and comments aside)."""
    match = re.search(r"^universalmutator==([^\s#]+)", REQUIREMENTS.read_text(), re.M)
    return match.group(1) if match else "unpinned"


def optimized_sources(directories=("serialize",)):
    """The mutable sources (.h, .cpp; planted.h never) of `directories`, sorted."""
    return sorted(str(p.relative_to(ROOT)) for d in directories for p in (ROOT / d).iterdir()
                  if p.suffix in (".h", ".cpp") and str(p.relative_to(ROOT)) != PLANTED_HEADER)


def mutable_sources():
    """Every file the serdiff subject mutates by default: serialize/, model/ and crypto/."""
    return optimized_sources(MUTATED_DIRS)


def directory_of(path):
    """The report section of a mutated file: its top directory ('serialize/'), or '' for a Core file."""
    head, _, rest = path.partition("/")
    return f"{head}/" if rest and head in MUTATED_DIRS else ""


# ------------------------------------------------------------------------------------------ subjects

class SerdiffSubject:
    """serialize/, the default: mutant files are relative to the checkout and live at the same path in a job's copy
    of it; everything under the out directory (mutate-out/)."""
    name = "serdiff"
    binary = "serdiff_fuzz_libfuzzer"
    title = "serialize/"
    triage = TRIAGE
    root = ROOT                       # where the original of every mutated file is read
    reach_lcov = None                 # --reach-lcov FILE: the reach map from this lcov instead of a coverage build

    def original(self, path):
        """The bytes of a mutated file as the run started (read once): every mutant is applied to and restored from
        this snapshot, so an edit of the checkout (or of a Core tree) while a run goes on cannot leak into the job
        trees or shift a planned line. The first time the file on disk no longer matches, one warning."""
        cache = self.__dict__.setdefault("originals", {})
        if path not in cache:
            cache[path] = (self.root / path).read_bytes()
        elif path not in self.__dict__.setdefault("warned", set()) and (self.root / path).read_bytes() != cache[path]:
            self.warned.add(path)
            log(f"mutate: {path} changed on disk since the run started; the run keeps mutating the version it "
                f"started with (a resumed run plans the new one)")
        return cache[path]

    def default_files(self):
        return mutable_sources()

    def normalize(self, path):
        return path

    def expand(self, files):
        """A directory named in --files (serialize/, model, crypto/) stands for its mutable sources."""
        expanded = []
        for path in files:
            name = path.rstrip("/")
            chosen = optimized_sources((name,)) if name in MUTATED_DIRS else [path]
            expanded += [f for f in chosen if f not in expanded]
        return expanded

    def check_files(self, files):
        for path in files:
            if path == PLANTED_HEADER or not directory_of(path) or not (ROOT / path).is_file():
                sys.exit(f"mutate: {path}: not a source file of {', '.join(d + '/' for d in MUTATED_DIRS)} "
                         f"(planted.h excluded)")

    def default_out(self):
        return ROOT / "mutate-out"

    def work(self, out):
        """Where the job trees (jobs/<n>) and the compiler cache go."""
        return out

    def copy_root(self, job):
        """The directory of a job's tree that holds its copies of the mutated files."""
        return job.src

    def cmake_flags(self, job):
        # The CI asan-ubsan job's sanitizer set (ci/jobs/asan-ubsan.sh): the integer checks with their ignorelist
        # and float division by zero beside address,undefined, so a mutant that only adds an integer-sanitizer
        # finding (a size_t wrap, an int -> size_t sign change) is killed as that job would report it. Not for
        # Core's files: Core's code is not clean under -fsanitize=integer (it wraps on purpose in its hashing).
        ignorelist = job.src / "ci" / "sanitizer_suppressions" / "integer.ignorelist"
        return ["-DSERDIFF_SANITIZERS=address,undefined,integer,float-divide-by-zero",
                f"-DCMAKE_CXX_FLAGS=-fsanitize-ignorelist={ignorelist}",
                f"-DCMAKE_C_FLAGS=-fsanitize-ignorelist={ignorelist}"]

    def sync(self, job):
        pass

    def config(self):
        return {}

    @property
    def head_failing(self):
        """{target: why} of the targets whose corpus already fails on the unmutated tree (the Core subject's)."""
        return self.__dict__.setdefault("failing", {})

    def reach_files(self):
        """The files a reach map covers."""
        return mutable_sources()

    def coverage(self, jobs):
        if self.reach_lcov is not None:
            return lcov_coverage(self, self.reach_lcov)
        return coverage_map(jobs)


class CoreSubject(SerdiffSubject):
    """Bitcoin Core's own files (core_files: CORE_FILES, and BLOCK_STORE_FILES where block_store runs), relative to
    the Core tree's src/. The tree (CORE_SRC, or the pinned sdist fetched into build/core-source) is only read: each
    job builds core_fuzz_libfuzzer from its own copy of src/ (build/mutate-core/jobs/<n>/core/src), as
    tools/fuzz/planted.py --subject core does."""
    name = "core"
    binary = "core_fuzz_libfuzzer"
    triage = CORE_TRIAGE

    def __init__(self, tree):
        self.tree = Path(tree).resolve()
        self.root = self.tree / "src"
        self.title = f"Bitcoin Core's src/ ({self.tree})"

    def default_files(self):
        return list(core_files(self.root))

    def normalize(self, path):
        return path[len("src/"):] if path.startswith("src/") else path

    def expand(self, files):
        return files

    def check_files(self, files):
        known = core_files(self.root)
        for path in files:
            if path not in known:
                sys.exit(f"mutate: {path}: not one of the Core subject's files in this tree ({' '.join(known)})")
            if not (self.root / path).is_file():
                sys.exit(f"mutate: {path}: not in {self.root}")

    def default_out(self):
        return ROOT / "mutate-out" / "core"

    def work(self, out):
        # Build trees go under build/ (the default out, mutate-out/core, keeps only the state and the report).
        return CORE_WORK if out == self.default_out() else out

    def copy_root(self, job):
        return job.base / "core" / "src"

    def cmake_flags(self, job):
        return ["-DSERDIFF_SUBJECTS=serdiff;core", f"-DSERDIFF_CORE_SRC={job.base / 'core'}"]

    def sync(self, job):
        """The job's copy of the tree's src/: a file is (re)written only when its contents differ (a new modification
        time, so what includes it rebuilds); untouched copies keep the original's time and stay built. A file the tree
        no longer has is removed from the copy: a job tree kept from a run on another Core tree (a review of another
        checkout) must not keep that tree's files, which the configure-time probes read (subjects/core/probe.cmake:
        a stale util/log.h made an older tree's copy look like a newer one, and its link failed)."""
        copy = self.copy_root(job)
        if not copy.is_dir():
            shutil.copytree(self.root, copy, symlinks=True)
            return
        for target in sorted(copy.rglob("*"), reverse=True):
            original = self.root / target.relative_to(copy)
            if target.is_symlink() or target.is_file():
                if not (original.is_file() or original.is_symlink()):
                    target.unlink()
            elif target.is_dir() and not original.is_dir():
                shutil.rmtree(target, ignore_errors=True)
        for source in self.root.rglob("*"):
            if source.is_symlink() or not source.is_file():
                continue
            target = copy / source.relative_to(self.root)
            if target.is_file():
                mine, theirs = source.stat(), target.stat()
                if mine.st_size == theirs.st_size and mine.st_mtime_ns == theirs.st_mtime_ns:
                    continue
                data = source.read_bytes()
                if target.read_bytes() == data:
                    continue
            else:
                data = source.read_bytes()
                target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            shutil.copymode(source, target)

    def config(self):
        return {"subject": "core", "core_tree": str(self.tree)}

    def reach_files(self):
        return list(core_files(self.root))

    def coverage(self, jobs):
        if self.reach_lcov is not None:
            return lcov_coverage(self, self.reach_lcov)
        # Core's coverage build is a full one (its files and the harness): every core, as a job's build uses.
        return core_coverage_map(self, max(jobs, os.cpu_count() or 1))


def make_subject(name, core_source=""):
    return CoreSubject(fuzz_subject.core_tree(core_source, "mutate")) if name == "core" else SerdiffSubject()


def subject_of_state(state):
    """The subject a recorded state was planned for (states before the Core subject are serdiff's)."""
    config = state["config"]
    if config.get("subject") == "core":
        return CoreSubject(config["core_tree"])
    return SerdiffSubject()


def parse_lines(specs):
    """--lines 'FILE:1,5-9 OTHER:3' -> {FILE: {1, 5, 6, 7, 8, 9}, OTHER: {3}} (several specs, space-separated or
    repeated). Exits on a malformed one."""
    lines = {}
    for spec in specs:
        for item in spec.split():
            path, _, ranges = item.rpartition(":")
            if not path or not ranges:
                sys.exit(f"mutate: --lines {item}: expected FILE:LINES, e.g. streams.h:1,5-9")
            chosen = lines.setdefault(path, set())
            for part in ranges.split(","):
                match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
                if not match or int(match.group(1)) < 1 or int(match.group(2) or match.group(1)) < int(match.group(1)):
                    sys.exit(f"mutate: --lines {item}: {part!r} is not a line number or a range a-b")
                chosen.update(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
    return lines


def format_lines(lines):
    """{FILE: {1, 5, 6, 7}} -> 'FILE:1,5-7' (the state's record of --lines)."""
    items = []
    for path, numbers in sorted(lines.items()):
        ordered, runs = sorted(numbers), []
        for n in ordered:
            if runs and n == runs[-1][1] + 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        items.append(f"{path}:" + ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs))
    return " ".join(items)


# ------------------------------------------------------------------------------------------ mutants

# A hook's condition (SERDIFF_PLANTED(name), with the "? defect" of a ternary) or a call of a defect helper.
PLANTED_EXPR = re.compile(r"(?:SERDIFF_PLANTED\(\w+\)|planted::\w+(?:\([^()]*\))?)(?:\s*\?[^:]*(?=:))?")


def protected_spans(lines):
    """{line number: [(start, end)...] or None (whole line)} that belong to planted-bug hooks."""
    spans, depth = {}, 0
    for number, text in enumerate(lines, 1):
        stripped = text.strip()
        if re.match(r"#\s*if.*SERDIFF_PLANTED", stripped):
            depth += 1
        if depth:
            spans[number] = None
            if stripped.startswith("#endif"):
                depth -= 1
            continue
        if "serialize/planted.h" in text or stripped.startswith("if constexpr (SERDIFF_PLANTED("):
            spans[number] = None
        elif "SERDIFF_PLANTED(" in text or "planted::" in text:
            spans[number] = [(m.start(), m.end()) for m in PLANTED_EXPR.finditer(text)]
    return spans


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text)
    text = re.sub(r"//.*", "", text)
    return re.sub(r"\s+", "", text)


changed_span = schemata.changed_span


def generate(cli, path, root=ROOT):
    """universalmutator's mutants of one file (`path` under `root`): [{id, file, line, rule, original, mutated}],
    minus comment-only changes and planted-hook lines; plus counts of what was dropped."""
    source = (root / path).read_text()
    lines = source.splitlines()
    protected = protected_spans(lines)
    rule_text = {}
    with tempfile.TemporaryDirectory(prefix="serdiff-mutate-") as directory:
        # --noCheck: validity is decided later by compiling the units that include the file.
        # Run from the scratch directory: universalmutator writes a .tmp_mutant.<pid>.<ext> file in its working
        # directory, which in the checkout was an untracked file a job tree's sync could copy (and then lose).
        output = subprocess.run([str(cli), str(root / path), "cpp", "--noCheck", "--showRules",
                                 "--mutantDir", directory], check=True, capture_output=True, text=True,
                                cwd=directory).stdout
        mutants, dropped = [], {"comment": 0, "planted": 0}
        pattern = re.compile(r"^PROCESSING MUTANT: (\d+): .*\(FROM: (\S+)\)\.\.\.VALID \[written to (\S+)\]")
        for out_line in output.splitlines():
            match = pattern.match(out_line)
            if not match:
                continue
            number, rule, mutant_file = int(match.group(1)), match.group(2), Path(match.group(3))
            mutated_lines = mutant_file.read_text().splitlines()
            mutated = mutated_lines[number - 1] if number - 1 < len(mutated_lines) else ""
            original = lines[number - 1]
            if len(mutated_lines) != len(lines) or mutated == original:
                continue
            if strip_comments(mutated) == strip_comments(original):
                dropped["comment"] += 1
                continue
            if number in protected:
                spans = protected[number]
                start, end = changed_span(original, mutated)
                if spans is None or any(start < e and s < max(end, start + 1) for s, e in spans):
                    dropped["planted"] += 1
                    continue
            if rule not in rule_text:
                rule_text[rule] = describe_rule(rule)
            operator = rule_text[rule]
            if operator == rule and mutated.strip() == f"/*{original.strip()}*/":
                operator = f"{rule.split(':')[1]}: delete the line (/*...*/)"
            index = int(mutant_file.name.split(".mutant.")[1].split(".")[0])
            mutants.append({"id": f"{path}#{index}", "file": path, "line": number, "rule": rule,
                            "operator": operator, "original": original, "mutated": mutated})
    return mutants, dropped


def describe_rule(rule):
    """'builtin:c_like.rules:112' -> the rule's text ('lhs ==> rhs')."""
    try:
        _, name, number = rule.split(":")
        rules = VENV / "lib"
        found = next(rules.glob(f"python3*/site-packages/universalmutator/static/{name}"))
        text = found.read_text().splitlines()[int(number) - 1].strip()
        return f"{name}: {text}"
    except (ValueError, StopIteration, IndexError, OSError):
        return rule


def sample_order(mutants, seed):
    """A seeded order that spreads every prefix over the files in proportion to their mutant counts,
    with each file's first pick at the front (so even a small SAMPLE touches every file)."""
    by_file = {}
    for m in mutants:
        by_file.setdefault(m["file"], []).append(m)
    keyed = []
    for file_index, (path, items) in enumerate(sorted(by_file.items())):
        rng = random.Random(f"{seed}:{path}")
        order = items[:]
        rng.shuffle(order)
        for rank, m in enumerate(order):
            keyed.append(((rank / len(order)) if rank else -1.0, file_index, m))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [m for _, _, m in keyed]


# ----------------------------------------------------------------------------------------- coverage

CLEAN_DIFF = hashlib.sha256(b"").hexdigest()[:16]


def checkout_stamp():
    """What the checkout's tracked files hold, as git sees it: HEAD, and a digest of the worktree's diff against it."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=ROOT, capture_output=True).stdout
    return head or "unknown", hashlib.sha256(diff).hexdigest()[:16]


def touch_what_changed_since_the_last_build(build):
    """A build tree that compiles the checkout in place (the coverage builds) trusts file times. A frozen clone bind-
    mounted over the worktree (the held-out runs' way, docs/mutation-core.md) compiles the clone's older files into
    it with new object times; back in the worktree, ninja then kept those objects for files whose own time is older,
    and the reach map came from code the suite no longer had (seen: a re-run's coverage build kept the frozen suite's
    transaction.cpp, without the members check). So the tree records what it was built from, and the files that
    differ since then are touched before it is built again (every tracked file when that is not known: the earlier
    build had uncommitted changes, or its commit is not in this repository). Returns what records it after a build."""
    stamp_file = build / "serdiff-checkout.stamp"
    now = checkout_stamp()
    if stamp_file.is_file():
        recorded = tuple(stamp_file.read_text().split())
        if recorded != now:
            changed = subprocess.run(["git", "diff", "--name-only", recorded[0], "HEAD"], cwd=ROOT,
                                     capture_output=True, text=True)
            if recorded[1:] != (CLEAN_DIFF,) or changed.returncode != 0:
                names = tracked_files()
            else:
                names = changed.stdout.split() + subprocess.run(["git", "diff", "--name-only", "HEAD"], cwd=ROOT,
                                                                capture_output=True, text=True).stdout.split()
            for name in set(names):
                if (ROOT / name).is_file():
                    os.utime(ROOT / name)

    def record():
        build.mkdir(parents=True, exist_ok=True)
        stamp_file.write_text(" ".join(now) + "\n")
    return record


def coverage_map(jobs):
    """{file: {line: {target: count}}} from each target's corpus replay in the coverage build, and
    {file: set(instrumented lines)}."""
    log("mutate: coverage build and per-target replay (tools/fuzz/coverage.py, build/coverage) ...")
    built = touch_what_changed_since_the_last_build(fuzz_coverage.BUILD)
    binary = fuzz_coverage.build(jobs)
    built()
    fuzz_coverage.replay_all(binary)
    return reach_from_profiles(binary, fuzz_coverage.BUILD, [ROOT / s for s in mutable_sources()], ROOT)


def core_coverage_map(subject, jobs):
    """coverage_map for the Core subject: core_fuzz_replay built as tools/fuzz/coverage.py builds serdiff's (clang
    source coverage, no sanitizers) in build/mutate-core/coverage from the Core tree itself (only read), each built
    target's corpus replayed into its own profile."""
    build = CORE_WORK / "coverage"
    log(f"mutate: coverage build of core_fuzz_replay ({build.relative_to(ROOT)}) and per-target replay ...")
    # Core's src/ is a SYSTEM include directory (subjects/core/CMakeLists.txt), and clang maps no coverage in system
    # headers unless asked: without this, no line of serialize.h, streams.h, ... would be reached.
    flags = "-fprofile-instr-generate -fcoverage-mapping -mllvm -system-headers-coverage"
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                    "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                    f"-DCMAKE_CXX_FLAGS={flags}", f"-DCMAKE_C_FLAGS={flags}",
                    "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate", "-DSERDIFF_BUILD_TESTS=OFF",
                    "-DSERDIFF_PEERS=OFF", "-DSERDIFF_SUBJECTS=serdiff;core", f"-DSERDIFF_CORE_SRC={subject.tree}"],
                   check=True, stdout=subprocess.DEVNULL)
    built = touch_what_changed_since_the_last_build(build)
    subprocess.run(["cmake", "--build", str(build), "-j", str(jobs), "--target", "core_fuzz_replay"],
                   check=True, stdout=subprocess.DEVNULL)
    built()
    binary = build / "bin" / "core_fuzz_replay"
    profiles = build / "profiles"
    shutil.rmtree(profiles, ignore_errors=True)
    profiles.mkdir(parents=True)
    # --list names the targets built for Core only (the absent ones are in --list --json alone).
    for target in subprocess.run([str(binary), "--list"], check=True, capture_output=True, text=True).stdout.split():
        corpus = ROOT / "corpora" / target
        if not corpus.is_dir():
            log(f"mutate: coverage: {target}: no corpora/{target}/, skipped")
            continue
        ok, summary = replay_for_reach(binary, target, corpus, profiles)
        log(f"mutate: coverage: {target}: {summary}")
        if not ok:
            # The unmutated Core tree already fails this target (a finding in that tree): its reach is kept (the
            # counters up to the mismatch, then every input one by one); run() replays it on the ASan build and
            # judges the mutants it reaches as "HEAD already failing" when no other target kills them.
            log(f"mutate: coverage: {target}: its corpus fails on the unmutated Core tree (reach kept: the profile "
                f"is written before the abort, the other inputs replayed one by one)")
    files = core_files(subject.root)
    reach, instrumented = reach_from_profiles(binary, build, [subject.root / f for f in files], subject.root.resolve())
    unmapped = [f for f in files if not instrumented.get(f)]
    if unmapped:
        sys.exit(f"mutate: the coverage build maps no line of {', '.join(unmapped)} (every mutant there would count as "
                 f"not reached); is the Core tree's src/ still a system include directory without "
                 f"-system-headers-coverage?")
    return reach, instrumented


def replay_for_reach(binary, target, corpus, profiles):
    """One target's corpus through a coverage binary, every run's counters merged into profiles/<target>/ (%m:
    online merging). A replay that fails (the unmutated tree already fails the target: a finding) keeps its profile,
    which the mismatch report writes before it aborts (differential/compare.cpp), and the corpus is then replayed
    file by file so the inputs after the failing one count too, as make review-core's coverage phase does (a failing
    replay's profile was deleted here once: every line only that target reached was "not reached" in a review whose
    own coverage counted it thousands of times). Returns (ok, a line saying how it went)."""
    directory = profiles / target
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    environment = {**os.environ, "LLVM_PROFILE_FILE": str(directory / "%m.profraw")}
    try:
        result = subprocess.run([str(binary), "--target", target, str(corpus)], capture_output=True, text=True,
                                errors="replace", env=environment, timeout=DIRECTORY_TIMEOUT)
        text, failed = result.stdout + result.stderr, result.returncode != 0
    except subprocess.TimeoutExpired:
        text, failed = f"the replay did not finish in {DIRECTORY_TIMEOUT} s", True
    if not failed:
        lines = text.strip().splitlines()
        return True, lines[-1] if lines else "no output"
    for path in sorted(p for p in Path(corpus).rglob("*") if p.is_file()):
        try:
            subprocess.run([str(binary), "--target", target, str(path)], capture_output=True, env=environment,
                           timeout=FILE_TIMEOUT)
        except subprocess.TimeoutExpired:
            pass
    return False, f"FAILS on the unmutated tree: {first_mismatch(text)}"


def add_lcov_reach(text, root, reach, instrumented, target=None, files=None):
    """Adds an lcov text's DA records of the files under `root` (named relative to it; only `files` when given) to
    reach ({file: {line: {target: count}}}) and instrumented ({file: set(lines)}). The target is `target`, else the
    record's "TN:" test name, else ANY_TARGET (merged reach). A count seen twice for one target keeps the larger (as
    make review-core's parse_lcov)."""
    root = Path(root).resolve()
    current, test_name = None, None
    for line in text.splitlines():
        if line.startswith("TN:"):
            test_name = line[3:].strip() or None
        elif line.startswith("SF:"):
            path = Path(line[3:]).resolve()
            current = str(path.relative_to(root)) if path.is_relative_to(root) else None
            if current is not None and files is not None and current not in files:
                current = None
        elif line.startswith("DA:") and current:
            number, count = (int(field) for field in line[3:].split(",")[:2])
            instrumented.setdefault(current, set()).add(number)
            if count > 0:
                counts = reach.setdefault(current, {}).setdefault(number, {})
                name = target or test_name or ANY_TARGET
                counts[name] = max(counts.get(name, 0), count)
        elif line == "end_of_record":
            current = None


def finish_reach(reach, instrumented):
    return ({f: {str(n): t for n, t in sorted(lines.items())} for f, lines in reach.items()},
            {f: sorted(lines) for f, lines in instrumented.items()})


def reach_from_lcov(text, root, files=None):
    """(reach, instrumented) from an lcov tracefile (--reach-lcov): per target where its records carry a test name
    ("TN:<target>", make review-core's coverage-targets.lcov), merged (ANY_TARGET) where they do not (its
    coverage.lcov)."""
    reach, instrumented = {}, {}
    add_lcov_reach(text, root, reach, instrumented, files=set(files) if files is not None else None)
    return finish_reach(reach, instrumented)


def lcov_coverage(subject, path):
    """The subject's reach map from --reach-lcov FILE: the same counts the review that passed it judged its changed
    lines by, so a mutant of a line it counted as reached is never "not reached"."""
    path = Path(path)
    if not path.is_file():
        sys.exit(f"mutate: --reach-lcov {path}: no such file")
    log(f"mutate: reach from {path} (no coverage build)")
    reach, instrumented = reach_from_lcov(path.read_text(errors="replace"), subject.root, subject.reach_files())
    if not instrumented:
        sys.exit(f"mutate: --reach-lcov {path}: no record of a file under {subject.root} "
                 f"({' '.join(subject.reach_files())}): an lcov of another tree?")
    return reach, instrumented


def reach_from_profiles(binary, build, sources, root):
    """{file: {line: {target: count}}} and {file: instrumented lines} from build/profiles/<target>.profraw or
    build/profiles/<target>/*.profraw, the files named relative to `root`."""
    profiles = build / "profiles"
    reach, instrumented = {}, {}
    sources = [str(s) for s in sources]
    groups = {}
    for raw in sorted(profiles.glob("*.profraw")):
        groups.setdefault(raw.stem, []).append(str(raw))
    for raw in sorted(profiles.glob("*/*.profraw")):
        groups.setdefault(raw.parent.name, []).append(str(raw))
    for target, raws in sorted(groups.items()):
        data = build / f"target-{target}.profdata"
        subprocess.run(["llvm-profdata-19", "merge", "-sparse", "-o", str(data)] + raws, check=True)
        lcov = subprocess.run(["llvm-cov-19", "export", "-format=lcov", f"-instr-profile={data}", str(binary)]
                              + sources, check=True, capture_output=True, text=True).stdout
        add_lcov_reach(lcov, root, reach, instrumented, target=target)
    return finish_reach(reach, instrumented)


def targets_for(state, path, line):
    """(targets ordered by how often their replay runs the line, how the reach was found)."""
    reach = state["coverage"]["reach"].get(path, {})
    instrumented = set(state["coverage"]["instrumented"].get(path, []))
    if not instrumented:
        # No line of the file is in the coverage build of the fuzz binary (crypto/block_check.cpp: only the CLI and
        # the unit tests link it): no target can reach it.
        return [], "not linked"
    if line in instrumented:
        counts = reach.get(str(line), {})
        return sorted(counts, key=lambda t: (-counts[t], t)), "line"
    # A line without code of its own (a declaration, a constant, a signature): the nearest instrumented
    # lines above and below stand for it.
    counts = {}
    for step in (-1, 1):
        probe = line + step
        while 0 < probe and abs(probe - line) <= 20:
            if probe in instrumented:
                for t, c in reach.get(str(probe), {}).items():
                    counts[t] = counts.get(t, 0) + c
                break
            probe += step
    if counts:
        return sorted(counts, key=lambda t: (-counts[t], t)), "nearest"
    counts = {}
    for per_line in reach.values():
        for t, c in per_line.items():
            counts[t] = counts.get(t, 0) + c
    return sorted(counts, key=lambda t: (-counts[t], t)), "file"


# -------------------------------------------------------------------------------------------- jobs

def tracked_files(outside=()):
    """The checkout's files a job tree copies: tracked ones and untracked ones git does not ignore (a new source not yet
    committed), apart from corpora/ (mirrored apart), build/, and the directories `outside` (the run's own output and
    job trees, when MUTATE_OUT= puts them in the checkout: copied, each job tree held a copy of every other)."""
    skip = ["corpora/", "build/"]
    for directory in outside:
        directory = Path(directory).resolve()
        if directory.is_relative_to(ROOT) and directory != ROOT:
            skip.append(directory.relative_to(ROOT).as_posix() + "/")
    listing = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                             capture_output=True).stdout.decode()
    return [f for f in listing.split("\0") if f and not f.startswith(tuple(skip))]


class Job:
    """One worker: a copy of the source tree, its fuzz build tree, its TCE compiles."""

    def __init__(self, index, out, build_jobs, unit, subject=None, work=None):
        self.index, self.out, self.unit = index, out, unit
        self.subject = subject or SerdiffSubject()
        self.work = work or out            # the job trees' and the compiler cache's parent (out, or build/mutate-core)
        self.base = self.work / "jobs" / str(index)
        self.src = self.base / "src"
        self.build = self.base / ("build-unit" if unit else "build")
        self.build_jobs = build_jobs
        self.tce_baseline = {}
        self.units_of = {}
        self.instantiation = None          # (compile entry, {mutable files it includes}) of INSTANTIATION_UNIT
        self.quick = {}                    # {mutated file: the -fsyntax-only command of its quick check, or None}

    def sync(self):
        """Copies changed files of the checkout into the job's tree (unchanged files keep their mtime) and
        removes the files the checkout no longer has (a deleted source would still be globbed)."""
        names = tracked_files((self.out, self.work))
        if self.src.is_dir():
            keep = set(names)
            for copy in self.src.rglob("*"):
                relative = copy.relative_to(self.src).as_posix()
                if copy.is_file() and not copy.is_symlink() and not relative.startswith("corpora/") \
                        and relative not in keep:
                    copy.unlink()
        for name in names:
            source, copy = ROOT / name, self.src / name
            try:
                data = source.read_bytes()
                mode = source.stat().st_mode
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                continue        # gone since git listed it (another run's scratch file), or not a file
            if copy.exists() and copy.read_bytes() == data:
                continue
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            copy.chmod(stat.S_IMODE(mode))
        self.snapshot_corpora()
        self.subject.sync(self)

    def snapshot_corpora(self):
        """The checkout's corpora/ (seeds and dictionaries) mirrored into the job's tree at setup: the run replays and
        fuzzes from this copy, so seeds added while a run goes on cannot change its suite half way (a resumed run
        takes the seeds of its start). Replaces the symlink that job trees of earlier versions had."""
        source, copy = ROOT / "corpora", self.src / "corpora"
        if copy.is_symlink():
            copy.unlink()
        names = {path.relative_to(source).as_posix() for path in source.rglob("*") if path.is_file()}
        if copy.is_dir():
            for path in list(copy.rglob("*")):
                if path.is_file() and path.relative_to(copy).as_posix() not in names:
                    path.unlink()
        for name in names:
            original, duplicate = source / name, copy / name
            data = original.read_bytes()
            if duplicate.is_file() and duplicate.read_bytes() == data:
                continue
            duplicate.parent.mkdir(parents=True, exist_ok=True)
            duplicate.write_bytes(data)

    def configure(self):
        flags = ["-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSERDIFF_SANITIZERS=address,undefined",
                 # make fuzz's -O2 without debug info: the rebuild per mutant is its cost (-g adds ~20%),
                 # and a kill is classified from the report's text, which needs no symbolized lines.
                 "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG", "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG",
                 "-DSERDIFF_FUZZ_ENGINE=libfuzzer", f"-DSERDIFF_BUILD_TESTS={'ON' if self.unit else 'OFF'}",
                 "-DSERDIFF_PEERS=OFF", "-DSERDIFF_WERROR=OFF", f"-DSERDIFF_DATA_DIR={SHARED_DATA}"]
        flags += self.subject.cmake_flags(self)
        if shutil.which("ccache"):
            flags += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        subprocess.run(["cmake", "-S", str(self.src), "-B", str(self.build), "-G", "Ninja"] + flags,
                       check=True, stdout=subprocess.DEVNULL)

    def ninja(self, targets, timeout=3600):
        return subprocess.run(["cmake", "--build", str(self.build), "-j", str(self.build_jobs), "--target"] + targets,
                              capture_output=True, text=True, timeout=timeout, env=ccache_env(self.work))

    def setup(self):
        self.sync()
        self.configure()
        result = self.ninja([self.subject.binary, "serdiff_corpus_gen"] + (["all"] if self.unit else []))
        if result.returncode != 0:
            sys.exit(f"mutate: job {self.index}: the original tree does not build:\n{result.stdout[-4000:]}")
        self.read_dependencies()

    def read_dependencies(self):
        """{mutable file (serialize/..., or Core's, relative to src/): [(unit source, compile command)]} for the units
        of the fuzz binary."""
        copies = self.subject.copy_root(self).resolve()
        commands = {}
        for entry in json.loads((self.build / "compile_commands.json").read_text()):
            arguments = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
            output = entry.get("output") or (arguments[arguments.index("-o") + 1] if "-o" in arguments else "")
            if output:
                commands[str((Path(entry["directory"]) / output).resolve())] = entry
        deps = subprocess.run(["ninja", "-C", str(self.build), "-t", "deps"], check=True, capture_output=True,
                              text=True).stdout
        units_of, current = {}, None
        for line in deps.splitlines():
            if line and not line.startswith(" "):
                current = str((self.build / line.split(":")[0]).resolve())
                continue
            path = line.strip()
            if not path or current not in commands:
                continue
            resolved = (self.build / path).resolve()
            try:
                relative = str(resolved.relative_to(copies))
            except ValueError:
                continue
            if self.subject.name == "core" or directory_of(relative):
                if commands[current] not in units_of.get(relative, []):
                    units_of.setdefault(relative, []).append(commands[current])
        if not any(path in self.subject.default_files() for path in units_of):
            sys.exit(f"mutate: job {self.index}: no unit of {self.subject.binary} found to include "
                     f"{self.subject.title} (ninja -t deps in {self.build}); cannot tell equivalent mutants")
        self.units_of = units_of
        self.instantiation = self.instantiation_unit(units_of)

    def instantiation_unit(self, units_of):
        """(compile entry, {mutable file it includes}) for INSTANTIATION_UNIT in the job's copy: serialize/codec.cpp's
        command (the fuzz tree's flags and include directories) with the source and output replaced."""
        core = self.subject.name == "core"
        unit_name = CORE_INSTANTIATION_UNIT if core else INSTANTIATION_UNIT
        source = (self.src / unit_name).resolve()
        if not source.is_file():
            sys.exit(f"mutate: job {self.index}: {source} missing (the instantiation unit of the TCE step)")
        header, flags_from = ("serialize.h", "subjects/core/subject.cpp") if core else ("serialize/serialize.h",
                                                                                       "serialize/codec.cpp")
        entries = [e for e in units_of.get(header, []) if e["file"].endswith(flags_from)]
        entries = entries or units_of.get(header, [])
        if not entries:
            sys.exit(f"mutate: job {self.index}: no unit includes {header}: no flags for {unit_name}")
        entry = entries[0]
        arguments = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
        arguments = [str(source) if a == entry["file"] or (Path(entry["directory"]) / a).resolve() ==
                     Path(entry["file"]).resolve() else a for a in arguments]
        unit = {"directory": entry["directory"], "file": str(source), "arguments": arguments}
        result = subprocess.run(self.tce_arguments(unit) + ["-M"], cwd=entry["directory"], capture_output=True,
                                text=True)
        if result.returncode != 0:
            sys.exit(f"mutate: job {self.index}: {unit_name} does not compile: {first_error(result.stderr)}")
        copies, included = self.subject.copy_root(self).resolve(), set()
        for word in result.stdout.replace("\\\n", " ").split():
            try:
                relative = str((Path(entry["directory"]) / word).resolve().relative_to(copies))
            except ValueError:
                continue
            if (relative in self.subject.default_files()) if core else directory_of(relative):
                included.add(relative)
        return unit, included

    def copy_of(self, path):
        return self.subject.copy_root(self) / path

    def restore(self, path):
        self.copy_of(path).write_bytes(self.subject.original(path))

    def apply(self, mutant):
        lines = self.subject.original(mutant["file"]).decode().split("\n")
        lines[mutant["line"] - 1] = mutant["mutated"]
        self.copy_of(mutant["file"]).write_text("\n".join(lines))

    @staticmethod
    def tce_arguments(entry):
        """The unit's compile command without output, optimization, debug, dependency and coverage flags. The
        sanitizers stay: code that exists only under them (ASan's container annotations, UBSan's checks) is compared
        too, and a mutant that does not compile with them is invalid, as the kills run under them."""
        arguments = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
        if arguments and Path(arguments[0]).name == "ccache":
            arguments = arguments[1:]
        kept, skip = [], False
        for argument in arguments:
            if skip:
                skip = False
                continue
            if argument in ("-o", "-MF", "-MT", "-MQ"):
                skip = True
                continue
            if argument.startswith(("-O", "-g", "-Werror", "-MD", "-MMD", "-fsanitize-coverage")):
                continue
            if argument.startswith("-fsanitize=") and "fuzzer-no-link" in argument:
                # libFuzzer's coverage counters (every edge a counter) would tell apart changes no input can: kept out,
                # with the other sanitizers of the same flag kept.
                others = [name for name in argument.split("=", 1)[1].split(",") if name != "fuzzer-no-link"]
                if others:
                    kept.append("-fsanitize=" + ",".join(others))
                continue
            kept.append(argument)
        return kept

    def flags_of(self, entry):
        """tce_arguments of the unit without its source and -c: the compiler and flags, for another input."""
        source = Path(entry["file"]).resolve()
        return [a for a in self.tce_arguments(entry)
                if a != "-c" and (Path(entry["directory"]) / a).resolve() != source]

    def tce_ir(self, entry, scratch):
        """(SHA-256 of the unit's LLVM IR as the front end hands it to -O2's pipeline (-Xclang -disable-llvm-passes),
        None) or (None, error text). The IR is left in scratch/unit.ll for tce_object. The same IR through the same
        pipeline is the same object, so a unit whose IR is unchanged needs no -O2 compile."""
        output = scratch / "unit.ll"
        result = subprocess.run(self.tce_arguments(entry) + ["-O2", "-g0", "-Xclang", "-disable-llvm-passes",
                                                             "-emit-llvm", "-S", "-o", str(output)],
                                cwd=entry["directory"], capture_output=True, text=True)
        if result.returncode != 0:
            return None, result.stderr[:6000]   # the first error, not the "N errors generated." tail
        return hashlib.sha256(output.read_bytes()).hexdigest(), ""

    def tce_object(self, entry, scratch):
        """(SHA-256 of the object -O2 -g0 makes of scratch/unit.ll with the unit's flags, its sanitizers included (their
        passes run in this pipeline), "") or (None, error text). The front end is not run again: its output is the IR.
        The path of the .ll is part of the object (ASan's module name), so the unmutated and the mutated IR are
        compiled from the same one."""
        output = scratch / "unit.o"
        result = subprocess.run(self.flags_of(entry) + ["-O2", "-g0", "-Wno-unused-command-line-argument", "-c", "-x", "ir",
                                             str(scratch / "unit.ll"), "-o", str(output)],
                                cwd=entry["directory"], capture_output=True, text=True)
        if result.returncode != 0:
            return None, result.stderr[:6000]
        digest = hashlib.sha256(output.read_bytes()).hexdigest()
        output.unlink()
        return digest, ""

    def unit_flags(self, path):
        """The compile flags (no source, output or -c) of the file's own unit when it is one (a .cpp), else of the
        instantiation unit (the subject's widest: every header it includes, the build's definitions)."""
        copy = self.copy_of(path).resolve()
        entry = next((e for e in self.units_of.get(path, []) if Path(e["file"]).resolve() == copy),
                     self.instantiation[0])
        return self.flags_of(entry), entry["directory"], Path(entry["file"]).resolve() == copy

    def quick_setup(self, path):
        """The quick check's command for `path`, or None where it cannot be used. A precompiled header holds the
        file's own #include lines (the code it includes, never itself); the check parses a unit that includes just
        the file, or the .cpp itself, with -fsyntax-only. The unmutated file must pass it."""
        flags, directory, own = self.unit_flags(path)
        quick = self.base / "quick"
        quick.mkdir(parents=True, exist_ok=True)
        stem = path.replace("/", "_")
        found, depth = [], 0     # (#if depth, line) of every #include
        for line in self.subject.original(path).decode().splitlines():
            if re.match(r"\s*#\s*if", line):
                depth += 1
            elif re.match(r"\s*#\s*endif", line):
                depth -= 1
            elif re.match(r"\s*#\s*include\s*[<\"]", line):
                found.append((depth, line))
        # Only the unconditional ones (the include guard's level): a platform's conditional header may not exist.
        includes = [line for d, line in found if d == min(d for d, _ in found)]
        header, pch = quick / f"{stem}.deps.h", quick / f"{stem}.pch"
        header.write_text("\n".join(includes) + "\n")
        compiler = flags[0]
        common = flags[1:] + ["-fpch-validate-input-files-content", "-Wno-everything"]
        # No timestamps in the PCH: the job tree's files are written at every mutant and restored after it, so the
        # headers it holds (another mutable file among them) keep their bytes and change their times. With times, a
        # #pragma once header of the PCH then counts as another file and is parsed again: "redefinition" of all it
        # declares, every mutant of the file invalid (serdiff's headers; Core's have include guards).
        built = subprocess.run([compiler] + common + ["-Xclang", "-fno-pch-timestamp", "-x", "c++-header", str(header),
                                                      "-o", str(pch)], cwd=directory,
                               capture_output=True, text=True)
        if built.returncode != 0:
            log(f"mutate: {path}: no quick check (its #include lines do not build a precompiled header: "
                f"{first_error(built.stderr)})")
            return None
        unit = self.copy_of(path).resolve()
        self.restore(path)
        for prelude in [False] if own else [False, True]:
            if not own:
                unit = quick / f"{stem}.cpp"
                unit.write_text(header_unit_text(self.copy_of(path).resolve(), prelude))
            command = [compiler] + common + ["-include-pch", str(pch), "-fsyntax-only", str(unit)]
            check = subprocess.run(command, cwd=directory, capture_output=True, text=True)
            if check.returncode == 0:
                if prelude:
                    log(f"mutate: {path}: quick check with the standard headers included before it (it does not "
                        f"compile alone: {first_error(first_failure)})")
                return command, directory
            first_failure = check.stderr if not prelude else first_failure
        log(f"mutate: {path}: no quick check (the unmutated file does not compile alone: {first_error(first_failure)})")
        return None

    def quick_check(self, mutant):
        """None when the mutated file compiles alone, else the compiler's first error: the file as written does not
        compile, so no unit that includes it does (invalid, as the TCE step would find, in a fraction of its time)."""
        path = mutant["file"]
        if path not in self.quick:
            self.quick[path] = self.quick_setup(path)
        if self.quick[path] is None:
            return None
        command, directory = self.quick[path]
        self.apply(mutant)
        try:
            result = subprocess.run(command, cwd=directory, capture_output=True, text=True)
        finally:
            self.restore(path)
        return None if result.returncode == 0 else first_error(result.stderr)

    def unit_order(self, mutant, targets):
        units = self.units_of.get(mutant["file"], [])

        def rank(entry):
            name = Path(entry["file"]).name
            if Path(entry["file"]).parent.name == "fuzz_targets" and Path(name).stem in targets:
                return (0, targets.index(Path(name).stem))
            if Path(entry["file"]).resolve() == self.copy_of(mutant["file"]).resolve():
                return (1, 0)
            if self.subject.name == "core" and entry["file"].endswith("subjects/core/subject.cpp"):
                # The Core adapter instantiates most of Core's headers (every codec, the bit streams): a header's
                # non-equivalent mutant usually differs there first, so it is compiled before the programs.
                return (1, 1)
            return (2 + ("differential" not in entry["file"]), name)
        return sorted(units, key=rank)

    def tce_pair(self, key, entry, mutant, scratch):
        """(the unmutated unit's digest, cached per unit; the mutated unit's digest or None; the compile error). The
        IR first: an unchanged IR is an unchanged object (both digests returned equal, no -O2 compile); a changed one
        goes through -O2 (from the IR, each side once; the unmutated side's IR is kept per unit), and the objects
        decide."""
        kept = self.base / "tce-baseline" / (hashlib.sha256(key.encode()).hexdigest()[:16] + ".ll")
        if (key, "ir") not in self.tce_baseline:
            self.restore(mutant["file"])
            digest, error = self.tce_ir(entry, scratch)
            if digest is None:
                raise RuntimeError(f"original unit {key} does not compile: {error}")
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(scratch / "unit.ll", kept)
            self.tce_baseline[(key, "ir")] = digest
        self.apply(mutant)
        digest, error = self.tce_ir(entry, scratch)
        if digest is None or digest == self.tce_baseline[(key, "ir")]:
            return self.tce_baseline[(key, "ir")], digest, error
        mutated, error = self.tce_object(entry, scratch)
        if mutated is None:                 # only the back end refuses it: it does not compile, invalid
            return self.tce_baseline[(key, "ir")], None, error
        if (key, "object") not in self.tce_baseline:
            shutil.copyfile(kept, scratch / "unit.ll")
            baseline, error = self.tce_object(entry, scratch)
            if baseline is None:
                raise RuntimeError(f"original unit {key} does not compile at -O2: {error}")
            self.tce_baseline[(key, "object")] = baseline
        return self.tce_baseline[(key, "object")], mutated, ""

    def tce(self, mutant, targets):
        """'invalid' (with the error), 'equivalent', 'different' (with the first unit that differs), or
        INSTANTIATION_ONLY: every unit of the fuzz binary identical, the instantiation unit's object not (code no
        fuzz unit instantiates: not reached, never equivalent)."""
        units = self.unit_order(mutant, targets)
        if not units:
            raise RuntimeError(f"no unit of the fuzz binary includes {mutant['file']}")
        scratch = self.base / "tce"        # one path: it is part of an object made from IR (see tce_object)
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        try:
            for entry in units:
                key = entry["file"]
                baseline, digest, error = self.tce_pair(key, entry, mutant, scratch)
                if digest is None:
                    return "invalid", f"{Path(key).name}: {first_error(error)}"
                if digest != baseline:
                    return "different", str(Path(key).relative_to(self.src) if Path(key).is_relative_to(self.src)
                                            else Path(key).relative_to(self.base))
            if self.instantiation and mutant["file"] in self.instantiation[1]:
                unit_name = CORE_INSTANTIATION_UNIT if self.subject.name == "core" else INSTANTIATION_UNIT
                baseline, digest, error = self.tce_pair(unit_name, self.instantiation[0], mutant, scratch)
                if digest is None:
                    return "invalid", f"{unit_name} (instantiation unit only): {first_error(error)}"
                if digest != baseline:
                    return INSTANTIATION_ONLY, (f"identical objects in all {len(units)} units of the fuzz binary; "
                                                f"{unit_name}'s differs: code no fuzz unit instantiates")
                return "equivalent", (f"identical objects in all {len(units)} units and in {unit_name} "
                                      f"(-O2 -g0)")
            return "equivalent", f"identical objects in all {len(units)} units (-O2 -g0)"
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def run_fuzzer(self, target, options, arguments, timeout, shared, binary=None, mutant_key=None):
        """One libFuzzer run of `target` over its committed corpus (and the shared seeds). With `binary` and
        `mutant_key`: the schemata binary with the mutant chosen (SERDIFF_MUTANT), instead of the job's own build."""
        binary = binary or self.build / "bin" / self.subject.binary
        crashes = self.base / "crashes"
        shutil.rmtree(crashes, ignore_errors=True)
        crashes.mkdir(parents=True)
        dictionary = self.src / "corpora" / "dicts" / f"{target}.dict"
        command = [str(binary), f"-rss_limit_mb={RSS_LIMIT_MB}", f"-max_len={options['max_len']}",
                   f"-timeout={INPUT_TIMEOUT}", f"-artifact_prefix={crashes}/"] + arguments
        if dictionary.exists():
            command.append(f"-dict={dictionary}")
        corpora = [self.src / "corpora" / target]
        if shared and (shared / target).is_dir():
            corpora.append(shared / target)
        started = time.time()
        try:
            result = subprocess.run(command + [str(c) for c in corpora if c.is_dir()], capture_output=True,
                                    env={**sanitizer_environment(), "FUZZ": target,
                                         **({schemata.ENVIRONMENT: str(mutant_key)} if mutant_key else {})},
                                    timeout=timeout,
                                    cwd=self.base)
            text, status = result.stderr.decode(errors="replace") + result.stdout.decode(errors="replace"), \
                result.returncode
        except subprocess.TimeoutExpired as expired:
            text, status = ((expired.stderr or b"") + (expired.stdout or b"")).decode(errors="replace"), "timeout"
        seconds = time.time() - started
        return status, text, seconds


def ccache_env(out):
    return {**os.environ, "CCACHE_DIR": str(out / "ccache"), "CCACHE_BASEDIR": str(out / "jobs"),
            "CCACHE_NOHASHDIR": "1", "CCACHE_MAXSIZE": "5G"}


def first_mismatch(text):
    """The first line that says why a replay failed (a mismatch headline, a sanitizer error), for a log line."""
    for line in text.splitlines():
        if "MISMATCH" in line or "ERROR:" in line or "runtime error:" in line or "failed on" in line:
            return line.strip("= ").strip()[:200]
    return text.strip().splitlines()[-1][:200] if text.strip() else "no output"


def failed_tests(text):
    """'unit: name, name' from ctest's 'The following tests FAILED:' list."""
    names = re.findall(r"^\s*\d+ - (\S+) \(", text.split("The following tests FAILED:")[-1], re.M)
    return "unit: " + (", ".join(names) if names else "ctest failed")


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()[:240]
    return text.strip().splitlines()[-1][:240] if text.strip() else "compile failed"


def classify(text, status):
    """The check that fired, from the engine's output."""
    mismatch = re.search(r"==== serdiff MISMATCH in (.*?) ====", text)
    if mismatch:
        return f"mismatch: {mismatch.group(1)}"
    for pattern, name in ((r"ERROR: AddressSanitizer: ([\w-]+)", "asan"), (r"runtime error: ([^\n]{0,120})", "ubsan"),
                          (r"ERROR: LeakSanitizer", "leak"), (r"ERROR: libFuzzer: timeout", "timeout"),
                          (r"ERROR: libFuzzer: out-of-memory", "out-of-memory"),
                          (r"ERROR: serdiff: (allocation-over-bound of \d+ bytes)", "allocation bound"),
                          (r"ERROR: libFuzzer: deadly signal", "crash (deadly signal)"),
                          (r"ERROR: libFuzzer: fuzz target exited", "fuzz target exited"),
                          (r"uncaught exception[^\n]{0,120}", "uncaught exception")):
        match = re.search(pattern, text)
        if match:
            return f"{name}: {match.group(1)}" if match.groups() else name
    if status == "timeout":
        return "timeout (engine did not stop)"
    return f"exit status {status}"


# ------------------------------------------------------------------------------------------- state

def load_state(path):
    return json.loads(path.read_text()) if path.exists() else None


def save_state(path, state):
    with lock:
        # The jobs' threads add keys to their mutants without the lock. json.dumps without an indent runs the C encoder,
        # which walks the whole state without giving up the GIL, so no key is added meanwhile (with an indent it walks
        # the dicts in Python, and a key added meanwhile raised "dictionary changed size during iteration").
        text = json.dumps(state)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(text)
        temporary.replace(path)


def plan(arguments, cli, out, subject=None, generator=generate):
    subject = subject or SerdiffSubject()
    lines = parse_lines(arguments.lines) if getattr(arguments, "lines", None) else {}
    lines = {subject.normalize(path): numbers for path, numbers in lines.items()}
    files = subject.expand([subject.normalize(f) for f in arguments.files]) or sorted(lines) or subject.default_files()
    subject.check_files(files)
    outside = sorted(set(lines) - set(files))
    if outside:
        sys.exit(f"mutate: --lines names {', '.join(outside)}, which --files leaves out")
    generated, dropped_total, per_file = [], {"comment": 0, "planted": 0}, {}
    plan_rev = getattr(arguments, "plan_rev", "") or ""
    plan_root = subject.root
    if plan_rev:
        # The plan of a run begun at an earlier commit (docs/mutation.md "Held-out measurement"): the same mutants
        # and ids from that commit's files, though a line-preserving fix changed one since; each mutant still applies
        # to the file as it is now (a mutant whose line changed is not run: process()).
        if subject.name != "serdiff":
            sys.exit("mutate: --plan-rev is for serdiff's own files")
        holder = tempfile.TemporaryDirectory(prefix="serdiff-plan-")
        plan_root = Path(holder.name)
        for path in files:
            shown = subprocess.run(["git", "show", f"{plan_rev}:{path}"], cwd=ROOT, capture_output=True)
            if shown.returncode != 0:
                sys.exit(f"mutate: --plan-rev {plan_rev}: no {path} there: {shown.stderr.decode().strip()}")
            (plan_root / path).parent.mkdir(parents=True, exist_ok=True)
            (plan_root / path).write_bytes(shown.stdout)
    for path in files:
        mutants, dropped = generator(cli, path, plan_root)
        if path in lines:
            # --lines: only the mutants of the lines named (a review of changed lines).
            all_count = len(mutants)
            mutants = [m for m in mutants if m["line"] in lines[path]]
            log(f"mutate: {path}: {len(mutants)} of its {all_count} mutants on the {len(lines[path])} line(s) "
                f"of --lines")
        log(f"mutate: {path}: {len(mutants)} mutants (dropped: {dropped['comment']} comment-only, "
            f"{dropped['planted']} on planted-bug hooks)")
        generated += mutants
        per_file[path] = len(mutants)
        for k in dropped_total:
            dropped_total[k] += dropped[k]
    ordered = sample_order(generated, arguments.seed)
    if arguments.only:
        wanted = set(arguments.only)
        ordered = [m for m in ordered if m["id"] in wanted]
        missing = wanted - {m["id"] for m in ordered}
        if missing:
            sys.exit(f"mutate: --only: no such mutant(s) {', '.join(sorted(missing))} (ids are file#number)")
    if arguments.shard:
        index, count = map(int, arguments.shard.split("/"))
        ordered = [m for n, m in enumerate(ordered) if n % count == index]
    for m in ordered:
        m["status"] = "pending"
    config = {"files": files, "sample": arguments.sample, "seed": arguments.seed, "time": arguments.time,
              "shard": arguments.shard, "unit": arguments.unit,
              "universalmutator": universalmutator_version()}
    config.update(subject.config())
    if plan_rev:
        config["plan_rev"] = plan_rev
    if lines:
        config["lines"] = format_lines(lines)
    return {"version": STATE_VERSION, "config": config,
            "generated": len(generated), "generated_per_file": per_file, "dropped": dropped_total,
            "mutants": ordered}


def selected(state):
    """The mutants this run handles: all, or the first ones in sample order until SAMPLE valid
    non-equivalent mutants are reached (invalid and equivalent ones do not count toward SAMPLE). A mutant counts as it
    was first measured: a survivor a re-run finds invalid (the suite now calls what it renamed) keeps its place, so the
    re-run does not draw another mutant into the sample."""
    sample = state["config"]["sample"]
    if not sample:
        return state["mutants"]
    chosen, counted = [], 0
    for m in state["mutants"]:
        if counted >= sample:
            break
        chosen.append(m)
        if first_status(m) not in ("invalid", "equivalent"):
            counted += 1
    return chosen


def line_changed(subject, mutant):
    """The file's line as it is now, where it is no longer the line the mutant was planned on (a fix since the plan
    was made, or PLAN_REV's commit); else None."""
    lines = subject.original(mutant["file"]).decode().split("\n")
    now = lines[mutant["line"] - 1] if mutant["line"] <= len(lines) else ""
    return None if now == mutant["original"] else now


def runnable_targets(targets, options, core):
    """The reaching targets a mutant runs: ANY_TARGET (merged reach, --reach-lcov) stands for every target of
    `options` not already named; the Core subject runs only its Core-backed targets (never the absent ones)."""
    named = [t for t in targets if t != ANY_TARGET]
    if ANY_TARGET in targets:
        named += [t for t in sorted(options) if t not in named]
    return [t for t in named if t in options] if core else named


def baseline_failures(subject, names, replay):
    """The targets whose committed corpus already fails on the unmutated tree, recorded in subject.head_failing
    ({target: why}); `replay(name)` is (status, output) of its replay. They stay runnable (a target left out once
    took its reach with it: every mutant only it reached was "not reached")."""
    for name in sorted(names):
        status, text = replay(name)
        if status != 0:
            subject.head_failing[name] = f"baseline replay (unmutated, ASan/UBSan): {classify(text, status)}"
            log(f"mutate: {name}: HEAD FAILING, its corpus already fails on the unmutated tree: "
                f"{classify(text, status)}; a mutant it reaches that no other target kills is killed, "
                f"{HEAD_ALREADY_FAILING}")
    return subject.head_failing


def judge_by_tce(job, mutant, targets):
    """The TCE step's verdict applied to the mutant: True when it is decided here (invalid, equivalent), else False
    with its targets cleared where the fuzz binary's units are identical and only the instantiation unit differs."""
    verdict, detail = job.tce(mutant, targets)
    if verdict == INSTANTIATION_ONLY:
        # Compiled into no unit of the fuzz binary, so no target can run it: not reached, not equivalent.
        targets.clear()
        mutant["targets"] = []
        mutant["reach"] = INSTANTIATION_ONLY
        mutant["differs_in"] = CORE_INSTANTIATION_UNIT if job.subject.name == "core" else INSTANTIATION_UNIT
        mutant["tce_detail"] = detail
        return False
    if verdict != "different":
        mutant["status"], mutant["detail"] = verdict, detail
        return True
    mutant["differs_in"] = detail
    return False


def not_reached(mutant, reach_kind):
    mutant["status"] = "survived"
    mutant["detail"] = {"not linked": "not reached: no line of the file is in the fuzz binary (only the CLI or "
                                      "unit tests link it)",
                        INSTANTIATION_ONLY: "not reached (instantiation-only): " + mutant.pop("tce_detail", "")}.get(
        reach_kind, "not reached: no target's corpus replay executes the line")
    mutant["not_reached"] = True


def kill_stages(job, mutant, targets, options, shared, seconds, fast=None, before_fuzz=None):
    """Replay, then fuzzing, then the targets HEAD already fails, as in the module's docstring; True when killed or
    decided. `fast`: (schemata binary, key), the mutant chosen at run time in the one build. `before_fuzz()`: run
    after the replay left the mutant alive; True stops (the schemata path's TCE decided the mutant)."""
    binary, key = fast or (None, None)
    failing = job.subject.head_failing
    # A target whose corpus already fails on the unmutated tree fails on every mutant too: it judges a mutant only
    # after the other targets that reach it (their replay and fuzzing) left it alive.
    healthy = [t for t in targets if t not in failing]
    already_failing = [t for t in targets if t in failing]
    # 1. Replay: every reaching target's committed corpus (and real-data seeds), no mutation.
    for target in healthy:
        status, text, took = job.run_fuzzer(target, options[target], ["-runs=0"], 900, shared, binary, key)
        if status != 0:
            mutant.update(status="killed", phase="replay", target=target, check=classify(text, status),
                          seconds=round(took, 1))
            return True
    if before_fuzz is not None and before_fuzz():
        return True
    # 2. Fuzz each reaching target for TIME seconds until one kills it (fresh corpus each time).
    spent = 0.0
    for target in healthy:
        scratch = job.base / "fuzz-corpus"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        status, text, took = job.run_fuzzer(
            target, options[target], [f"-max_total_time={seconds}", "-seed=1", str(scratch)],
            seconds + INPUT_TIMEOUT + 300, shared, binary, key)
        if status != 0:
            mutant.update(status="killed", phase="fuzz", target=target, check=classify(text, status),
                          seconds=round(spent + took, 1))
            return True
        spent += took
    # 3. The reaching targets that already fail on the unmutated tree: their replay tells the mutant apart only
    # as HEAD's finding does, so it is "killed, HEAD already failing", not a survivor (nor "not reached").
    for target in already_failing:
        status, text, took = job.run_fuzzer(target, options[target], ["-runs=0"], 900, shared, binary, key)
        check = (f"{HEAD_ALREADY_FAILING}: {classify(text, status)}" if status != 0 else
                 f"{HEAD_ALREADY_FAILING} ({failing[target]}); the mutant's replay passes")
        mutant.update(status="killed", phase="replay", target=target, check=check, head_failing=True,
                      seconds=round(spent + took, 1))
        return True
    return False


def process(job, mutant, state, options, shared, seconds, arguments, fast=None):
    """Judges one mutant. The rebuild way (fast=None): TCE, a build of the fuzz binary with the mutant, then the kill
    stages. The schemata way (fast=(binary, key)): the kill stages on the schemata binary with the mutant chosen,
    the TCE step run only when the replay left it alive (a killed mutant compiled, and its objects differ)."""
    started = time.time() - mutant.get("quick_seconds", 0.0)
    now = line_changed(job.subject, mutant)
    if now is not None:
        # The mutant no longer exists (its line was changed since the plan): invalid, not run against other code.
        mutant["status"], mutant["detail"] = "invalid", f"its line changed since the plan: now {now.strip()!r}"
        mutant["elapsed"] = 0.0
        return
    targets, reach_kind = targets_for(state, mutant["file"], mutant["line"])
    targets = runnable_targets(targets, options, job.subject.name == "core")
    mutant["targets"], mutant["reach"] = targets, reach_kind
    mutant["way"] = "schemata" if fast else "rebuild"
    try:
        if fast is not None:
            def tce_then_reach():
                decided = judge_by_tce(job, mutant, targets)
                if not decided and not targets:
                    not_reached(mutant, mutant["reach"])
                    return True
                return decided
            if not targets:
                tce_then_reach()      # invalid, equivalent, or not reached
                return
            if not kill_stages(job, mutant, targets, options, shared, seconds, fast, tce_then_reach):
                mutant["status"] = "survived"
                mutant["detail"] = f"no kill by replay nor {seconds} s of fuzzing per target"
            return
        if judge_by_tce(job, mutant, targets):
            return
        reach_kind = mutant["reach"]
        if not targets:
            not_reached(mutant, reach_kind)
            if arguments.unit:
                # UNIT=1: the unit tests are the only part of the suite that can kill it (run in the finally below).
                job.apply(mutant)
                build_started = time.time()
                result = job.ninja([job.subject.binary, "all"])
                mutant["build_seconds"] = round(time.time() - build_started, 1)
                if result.returncode != 0:
                    mutant.pop("not_reached")
                    mutant["status"], mutant["detail"] = "invalid", "unit build: " + first_error(result.stdout)
            return
        job.apply(mutant)
        build_started = time.time()
        result = job.ninja([job.subject.binary] + (["all"] if arguments.unit else []))
        mutant["build_seconds"] = round(time.time() - build_started, 1)
        if result.returncode != 0:
            mutant["status"], mutant["detail"] = "invalid", "fuzz build: " + first_error(result.stdout)
            return
        if not kill_stages(job, mutant, targets, options, shared, seconds):
            mutant["status"] = "survived"
            mutant["detail"] = f"no kill by replay nor {seconds} s of fuzzing per target"
    finally:
        if arguments.unit and mutant.get("status") in ("killed", "survived"):
            unit_started = time.time()
            result = subprocess.run(["ctest", "--test-dir", str(job.build), "-LE", "fuzz", "-j1", "--timeout", "300"],
                                    capture_output=True, text=True)
            mutant["unit_killed"] = result.returncode != 0
            if mutant["unit_killed"] and mutant["status"] == "survived":
                # UNIT=1 makes the unit tests part of the kill protocol, run last: a mutant the fuzz stages left
                # alive (reached or not) that ctest kills is killed, phase "unit" (it stays not reached).
                mutant.update(status="killed", phase="unit", target="ctest", check=failed_tests(result.stdout),
                              seconds=round(time.time() - unit_started, 1))
        job.restore(mutant["file"])
        mutant["elapsed"] = round(time.time() - started, 1)


SCHEMATA_ROUNDS = 8        # builds of one schemata binary before the mutants still failing it all go the rebuild way
# A compiler diagnostic's location: absolute, or relative to the build directory (ccache's CCACHE_BASEDIR makes the
# paths under the job trees relative).
ERROR_LOCATION = re.compile(r"^([^\s:][^:\n]*):(\d+):(\d+): (error|note): ?(.*)$", re.M)


def culprits(output, spans, compiled, file_of):
    """{key: the error} of the compiled mutants a schemata build's output blames: the alternatives (or the switched
    nodes) holding an error's location; when no error lies in one, the notes' locations (an error at a constant's use
    whose note points into the node). `spans`: {file: schemata.render()'s spans}; `file_of(location)`: the file of
    `spans` a printed location is, or None."""
    bad = {}
    for kind in ("error", "note"):
        for match in ERROR_LOCATION.finditer(output):
            location, line, column, severity, message = match.groups()
            path = file_of(location)
            if severity != kind or path is None:
                continue
            for key in schemata.owners(spans[path], int(line), int(column)):
                if key in compiled:
                    bad.setdefault(key, f"schemata build: {message.strip()[:200]}")
        if bad:
            break
    return bad


# The standard headers a header's quick check and schemata plan include before it when it does not compile alone:
# a header that uses std::memcpy without <cstring> (Core's util/obfuscation.h) compiles in every unit that includes
# it, since something before it brings <cstring> in. Only standard headers, so a mutant refused with them is refused
# in those units too.
STANDARD_PRELUDE = ("algorithm", "array", "cstddef", "cstdint", "cstring", "limits", "memory", "span", "string",
                    "type_traits", "utility", "vector")


def header_unit_text(header, prelude):
    """A unit that includes `header`, with STANDARD_PRELUDE's headers before it when `prelude`."""
    before = "".join(f"#include <{name}>\n" for name in STANDARD_PRELUDE) if prelude else ""
    return f'{before}#include "{header}"\n'


def plan_nodes(job, mutants, keys):
    """({key: node}, {key: why not}) for the mutants, per file, by tools/mutate/schemata.py plan (libclang, in VENV)."""
    nodes, unsupported = {}, {}
    by_file = {}
    for m in mutants:
        by_file.setdefault(m["file"], []).append(m)
    for path, items in sorted(by_file.items()):
        flags, directory, own = job.unit_flags(path)
        job.restore(path)
        unit = job.copy_of(path).resolve()
        for prelude in [False] if own else [False, True]:
            if not own:
                unit = job.base / "quick" / f"{path.replace('/', '_')}.plan.cpp"
                unit.parent.mkdir(parents=True, exist_ok=True)
                unit.write_text(header_unit_text(job.copy_of(path).resolve(), prelude))
            request = {"file": str(job.copy_of(path).resolve()), "arguments": ["-x", "c++"] + flags[1:],
                       "unit": str(unit),
                       "mutants": [{"key": keys[m["id"]], "line": m["line"], "original": m["original"],
                                    "mutated": m["mutated"]} for m in items]}
            with tempfile.NamedTemporaryFile("w", suffix=".json", dir=job.base, delete=False) as handle:
                json.dump(request, handle)
            try:
                result = subprocess.run([str(VENV / "bin" / "python"), str(ROOT / "tools" / "mutate" / "schemata.py"),
                                         "plan", handle.name], capture_output=True, text=True, cwd=directory)
            finally:
                os.unlink(handle.name)
            if result.returncode == 0:
                break
        if result.returncode != 0:
            log(f"mutate: {path}: no schemata ({(result.stderr.strip().splitlines() or ['planner failed'])[-1]}); "
                f"its mutants are rebuilt one at a time")
            for m in items:
                unsupported[keys[m["id"]]] = "the schemata planner failed on the file"
            continue
        planned = json.loads(result.stdout)
        nodes.update({int(k): v for k, v in planned["nodes"].items()})
        unsupported.update({int(k): v for k, v in planned["unsupported"].items()})
    return nodes, unsupported


def build_schemata(job, state, keys, candidates, options, shared, suite=None):
    """Builds the schemata binary in `job`'s tree with as many of the candidates as compile: every file's planned
    nodes rewritten (tools/mutate/schemata.py), the build's errors mapped back to the alternatives they are in, those
    mutants evicted (judged the rebuild way), again until it builds. Then the binary with no mutant chosen must
    replay every target's corpus as the unmutated tree does. Returns {"binary", "compiled", "evicted"} and records
    the build in state["schemata_builds"], with `suite`: the run's (its job trees' copy of the checkout, taken at
    their setup; the checkout as it is at build time, "+dirty" with an edit made since, is not what was built)."""
    started = time.time()
    by_key = {keys[m["id"]]: m for m in candidates}
    nodes, evicted = plan_nodes(job, candidates, keys)
    evicted = {k: f"not expressible: {why}" for k, why in evicted.items()}
    compiled = set(nodes)
    files = sorted({m["file"] for m in state["mutants"]})
    binary = job.build / "bin" / job.subject.binary
    rounds, built = 0, False
    while compiled and rounds < SCHEMATA_ROUNDS:
        rounds += 1
        spans = {}
        for path in files:
            mine = {k: nodes[k] for k in compiled if by_key[k]["file"] == path}
            if not mine:
                job.restore(path)
                continue
            text, spans[path] = schemata.render(job.subject.original(path), by_key, mine)
            target = job.copy_of(path)
            if not target.is_file() or target.read_bytes() != text:
                target.write_bytes(text)
        log(f"mutate: schemata build {rounds}: {len(compiled)} mutant(s) in {len(spans)} file(s) ...")
        result = subprocess.run(["cmake", "--build", str(job.build), "-j", str(job.build_jobs), "--target",
                                 job.subject.binary, "--", "-k", "0"], capture_output=True, text=True,
                                env=ccache_env(job.work))
        if result.returncode == 0:
            built = True
            break
        copies = {str(job.copy_of(path).resolve()): path for path in spans}
        bad = culprits(result.stdout, spans, compiled, lambda location: copies.get(str((job.build / location).resolve())))
        if not bad:
            # No error in a rewritten node (an error elsewhere, from a changed type): half the mutants go.
            ordered = sorted(compiled)
            bad = {k: f"schemata build failed outside the rewritten nodes: {first_error(result.stdout)}"
                   for k in ordered[len(ordered) // 2:]}
        for key, why in bad.items():
            compiled.discard(key)
            evicted[key] = why
    if not built:
        for key in compiled:
            evicted[key] = f"schemata build still failing after {rounds} build(s)"
        compiled = set()
    if compiled:
        # The original path must be the original: with no mutant chosen every target replays as on the unmutated tree.
        for name in sorted(options):
            status, text, _ = job.run_fuzzer(name, options[name], ["-runs=0"], 900, shared)
            if (status != 0) != (name in job.subject.head_failing):
                log(f"mutate: the schemata binary with no mutant chosen replays {name} "
                    f"{'failing' if status else 'clean'}, unlike the unmutated tree ({classify(text, status)}): "
                    f"schemata not used; every mutant is rebuilt one at a time")
                for key in compiled:
                    evicted[key] = f"schemata binary's original path differs on {name}"
                compiled = set()
                break
    seconds = round(time.time() - started, 1)
    record = {"seconds": seconds, "builds": rounds, "candidates": len(candidates), "compiled": len(compiled),
              "evicted": len(evicted), "suite": suite or current_suite()}
    state.setdefault("schemata_builds", []).append(record)
    log(f"mutate: schemata binary: {len(compiled)} of {len(candidates)} mutant(s) compiled in, {len(evicted)} "
        f"rebuilt one at a time; {rounds} build(s), {seconds} s")
    return {"binary": binary, "compiled": compiled, "evicted": evicted}


def import_results(state, path):
    """Takes the results of a committed report.json (tools/mutate/results/) for the same mutants, so a run
    continues across machines without the large state file, exactly as RESUME=1 continues it on one machine: every
    result is kept as first measured, survivors included (re-measuring them against a strengthened suite is
    RERUN_SURVIVORS=1 or RERUN=, reported as such). A mutant whose line changed since (id, line, original or
    mutated text differ) is not taken and runs again. Triage rows that name no survivor among the results taken are
    listed: a renumbered or re-run mutant would otherwise carry another mutant's verdict."""
    done = {m["id"]: m for m in json.loads(path.read_text())["mutants"]}
    taken = changed = 0
    for m in state["mutants"]:
        old = done.get(m["id"])
        if not old:
            continue
        if old["original"] == m["original"] and old["mutated"] == m["mutated"] and old["line"] == m["line"]:
            m.update(old)
            taken += 1
        else:
            changed += 1
    log(f"mutate: imported {taken} of {len(done)} results from {path}"
        + (f" ({changed} whose line changed run again)" if changed else ""))
    survivors = {m["id"] for m in state["mutants"] if m["status"] == "survived"}
    stray = sorted(key for key, (verdict, _) in load_triage(triage_of(state)).items()
                   if verdict in ("equivalent", "fixed") and key in done and key not in survivors)
    if stray:
        log(f"mutate: warning: {triage_of(state)} has rows for {', '.join(stray)}, which the imported results do not "
            f"show as survivors")
    return taken, changed, stray


def first_measured(m, key):
    """A mutant's `key` (reach, not_reached) as first measured: from its first result when a re-run kept it there;
    else its own, while its status is still the first one (a first result kept before the reach was: unknown)."""
    first = m.get("first_result")
    if first is not None and ("reach" in first or "not_reached" in first):
        return first.get(key)
    return m.get(key) if m["status"] == first_status(m) else None


def survived_not_reached(m):
    """Not reached, as counted, is a kind of survivor: with UNIT=1 ctest can still kill a mutant no fuzz target
    reaches (it keeps its not_reached flag, counted apart as killed_not_reached). As first measured: a survivor a
    re-run killed is still the not-reached survivor it first was."""
    return first_status(m) == "survived" and bool(first_measured(m, "not_reached"))


def progress(state, chosen, started_at, processed_now, building=0.0):
    """The progress line. The ETA is the mean time per mutant processed since the start, times the mutants left; the
    `building` seconds since the start (the schemata tree's setup and builds, paid once, not per mutant) are left
    out: counted in, a resumed run's first line after a 500-s build said "ETA 511 min" for a 40-minute rest."""
    done = [m for m in chosen if m["status"] != "pending"]
    count = lambda s: sum(1 for m in done if m["status"] == s)  # noqa: E731
    unreached = sum(1 for m in done if survived_not_reached(m))
    remaining = len(chosen) - len(done)
    eta = "?"
    if processed_now:
        per = max(0.0, time.time() - started_at - building) / processed_now
        eta = f"{per * remaining / 60:.0f} min"
    log(f"mutate: [{len(done)}/{len(chosen)}] killed {count('killed')} survived {count('survived')} "
        f"(not reached {unreached}) invalid {count('invalid')} equivalent {count('equivalent')}  ETA {eta}")


def current_suite():
    """The suite a mutant meets now: the checkout's commit, "+dirty" with uncommitted changes."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return (head or "unknown") + ("+dirty" if dirty else "")


def stale_coverage(state, suite):
    """The suite the reach map was computed at, where it is not `suite`; else None. Which targets reach a line is part
    of the suite a mutant meets: a map kept from an older suite sends a mutant only to the targets that reached its
    line then, and counts a line a strengthened target now runs as not reached, without running any target."""
    recorded = state.get("coverage", {}).get("suite", "unrecorded")
    return None if recorded == suite else recorded


RESULT_KEYS = ("detail", "not_reached", "targets", "reach", "differs_in", "build_seconds", "phase", "target", "check",
               "seconds", "elapsed", "unit_killed", "suite", "head_failing", "way", "quick_seconds", "quick_error",
               "tce_detail", "schemata_fallback")


def make_pending(mutant, rerun=False):
    """Forgets a mutant's result: it runs again. A re-run of a finished result (rerun=True: RERUN=,
    RERUN_SURVIVORS=1) keeps the first one (status, phase, target, suite) as "first_result" the first time, so the
    score as first measured still counts it as it was; a result cut short is no result and is simply dropped."""
    if rerun and mutant.get("status") in ("killed", "survived") and "first_result" not in mutant:
        mutant["first_result"] = {key: mutant[key] for key in ("status", "phase", "target", "suite", "reach",
                                                               "not_reached") if key in mutant}
    for key in RESULT_KEYS:
        mutant.pop(key, None)
    mutant["status"] = "pending"


def unfinished_to_pending(state):
    """Makes pending again every mutant a stopped run left unfinished, and returns their ids. A mutant is finished
    when it has its elapsed time (process() sets it last). One that is "running", or that already has a status but no
    elapsed time, was cut short: with UNIT=1 a survivor has its status before its ctest runs, and another job's save
    of the state can catch it then; stopped there, it would stay a survivor whose ctest never ran."""
    cut_short = []
    for m in state["mutants"]:
        if m["status"] == "running" or (m["status"] != "pending" and "elapsed" not in m):
            make_pending(m)
            cut_short.append(m["id"])
    return cut_short


def run(arguments):
    subject = arguments.subject_object
    if arguments.unit and subject.name == "core":
        sys.exit("mutate: --unit (UNIT=1) is for the serdiff subject: serdiff's unit tests do not run Core's code "
                 "(make test's Core half is the corpus replay, which every mutant gets anyway)")
    out = Path(arguments.out or subject.default_out()).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # --only runs keep their own state and report beside the main run's (only-state.json, only-report.*).
    prefix = "only-" if arguments.only else ""
    state_path = Path(arguments.state).resolve() if arguments.state else out / f"{prefix}state.json"
    cli = mutate_cli()
    state = load_state(state_path) if arguments.resume else None
    if arguments.resume and state is None:
        log(f"mutate: --resume but no {state_path}; starting afresh")
    if state is not None:
        recorded = subject_of_state(state)
        if recorded.name != subject.name or getattr(recorded, "tree", None) != getattr(subject, "tree", None):
            sys.exit(f"mutate: {state_path} is a run of {recorded.title}, not of {subject.title}: resume it with "
                     f"the same SUBJECT/CORE_SRC, or give another --out")
    # The suite each mutant runs against (recorded per mutant below), and the one the reach map was computed at.
    suite = current_suite()
    if state is None:
        state = plan(arguments, cli, out, subject)
        if subject.reach_lcov is not None:
            state["config"]["reach_lcov"] = str(subject.reach_lcov)
        state["coverage"] = dict(zip(("reach", "instrumented"), subject.coverage(arguments.jobs)), suite=suite)
        if arguments.import_results:
            import_results(state, Path(arguments.import_results))
        save_state(state_path, state)
    else:
        # A resumed run keeps its plan and coverage; SAMPLE/TIME may be raised.
        state["config"]["sample"] = arguments.sample if arguments.sample is not None else state["config"]["sample"]
        state["config"]["time"] = arguments.time
        cut_short = unfinished_to_pending(state)
        if cut_short:
            log(f"mutate: {len(cut_short)} mutant(s) the last run stopped before they finished will run again: "
                f"{' '.join(cut_short)}")
    if TRIAGE_OVERRIDE is not None and TRIAGE_OVERRIDE.is_relative_to(ROOT):
        state["config"]["triage"] = str(TRIAGE_OVERRIDE.relative_to(ROOT))
    if arguments.resume and (arguments.refresh_coverage or stale_coverage(state, suite)):
        if not arguments.refresh_coverage:
            log(f"mutate: the reach map is of suite {stale_coverage(state, suite)}, the checkout is {suite}: "
                f"recomputing it")
        state["coverage"] = dict(zip(("reach", "instrumented"), subject.coverage(arguments.jobs)), suite=suite)
    rerun_ids = set(arguments.rerun.replace(",", " ").split())
    unknown = rerun_ids - {m["id"] for m in state["mutants"]}
    if unknown:
        sys.exit(f"mutate: --rerun: no such mutant(s) {', '.join(sorted(unknown))} (ids are file#number)")
    if arguments.rerun_survivors or rerun_ids:
        # After strengthening: every survivor (reached or not), or the ones named, runs again against the
        # current suite.
        again = 0
        for m in state["mutants"]:
            if (m["status"] == "survived" and arguments.rerun_survivors) or m["id"] in rerun_ids:
                make_pending(m, rerun=True)
                again += 1
        log(f"mutate: {again} mutant(s) will run again")
    chosen = selected(state)
    log(f"mutate: {state['generated']} mutants generated over {len(state['config']['files'])} file(s); "
        f"state in {state_path}")

    for path in sorted({m["file"] for m in state["mutants"]}):
        subject.original(path)      # the versions this run mutates, before any job tree is set up
    jobs_count = max(1, arguments.jobs)
    build_jobs = max(1, (os.cpu_count() or 1) // jobs_count)
    work_dir = subject.work(out)
    jobs = [Job(i, out, build_jobs, arguments.unit, subject, work_dir) for i in range(jobs_count)]
    log(f"mutate: preparing {jobs_count} job tree(s) under {work_dir / 'jobs'} (first build is a full one) ...")
    for job in jobs:
        job.setup()
    binary = jobs[0].build / "bin" / subject.binary
    listing = subprocess.run([str(binary), "--list", "--json"], check=True, capture_output=True, text=True,
                             env={**os.environ, "FUZZ": ""}).stdout
    options = {e["name"]: e for e in json.loads(listing)}
    if subject.name == "core":
        # core_fuzz_libfuzzer lists the targets it does not build too, each marked "absent" with the reason.
        for name, entry in list(options.items()):
            if "absent" in entry:
                del options[name]
    shared = None
    if (SHARED_DATA / "blocks").is_dir():
        shared = work_dir / "shared-seeds"
        shutil.rmtree(shared, ignore_errors=True)
        subprocess.run([str(jobs[0].build / "bin" / "serdiff_corpus_gen"), "--shared-data", str(SHARED_DATA),
                        "--out", str(shared)], check=True, stdout=subprocess.DEVNULL)
    if subject.name == "core":
        # A target whose committed corpus already fails on the unmutated tree (ASan/UBSan build) is a finding in
        # that tree: it stays, with its reach, and judges a mutant only after the other reaching targets (process()).
        baseline_failures(subject, options,
                          lambda name: jobs[0].run_fuzzer(name, options[name], ["-runs=0"], 900, shared)[:2])
        log(f"mutate: Core-backed targets: {' '.join(sorted(options))}")
        if subject.head_failing:
            state["config"]["head_failing_targets"] = dict(subject.head_failing)
            save_state(state_path, state)

    started_at, processed, building = time.time(), [0], [0.0]
    free = list(jobs)
    free_lock = threading.Condition()
    keys = {m["id"]: index + 1 for index, m in enumerate(state["mutants"])}
    fast = {"binary": None, "compiled": set(), "evicted": {}, "round": None}

    def borrow():
        with free_lock:
            while not free:
                free_lock.wait()
            return free.pop()

    def give_back(job):
        with free_lock:
            free.append(job)
            free_lock.notify()

    def work(mutant):
        job = borrow()
        try:
            mutant["status"] = "running"
            mutant["suite"] = suite
            key = keys[mutant["id"]]
            chosen = (fast["binary"], key) if key in fast["compiled"] else None
            if fast["round"] is not None and chosen is None:
                mutant["schemata_fallback"] = fast["evicted"].get(key, "not in the schemata build")
            process(job, mutant, state, options, shared, state["config"]["time"], arguments, chosen)
        except Exception as error:  # a broken mutant run is recorded, not fatal to the whole analysis
            mutant["status"], mutant["detail"] = "error", f"{type(error).__name__}: {error}"
            job.restore(mutant["file"])
        finally:
            give_back(job)
        processed[0] += 1
        save_state(state_path, state)
        m = mutant
        log(f"mutate: {m['id']} line {m['line']}: {m['status']}"
            + (f" by {m['target']} ({m['phase']}, {m['seconds']} s): {m['check']}" if m["status"] == "killed"
               else f": {m.get('detail', '')}"))
        progress(state, selected(state), started_at, processed[0], building[0])

    def quick(mutant):
        job = borrow()
        try:
            checked = time.time()
            error = job.quick_check(mutant)
            mutant["quick_seconds"] = round(time.time() - checked, 2)
            if error is not None:
                mutant["quick_error"] = error
        finally:
            give_back(job)

    def settle_quick():
        # A selected mutant the quick check refused is invalid (one checked ahead of the selection waits until the
        # selection reaches it: it is not processed before).
        for m in selected(state):
            if m["status"] == "pending" and "quick_error" in m:
                m.update(status="invalid", detail=f"quick check: {m.pop('quick_error')}", way="quick check",
                         suite=suite, elapsed=m["quick_seconds"])
                processed[0] += 1

    def drain(allowed):
        # A job starts the next mutant as soon as it is free (a survivor fuzzes for minutes; a batch that waited
        # for its slowest mutant left the other jobs idle). The selection is re-read after every mutant: only
        # what can still count toward SAMPLE runs, and invalid/equivalent ones make room for the next.
        submitted = set()
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs_count) as pool:
            running = set()
            while True:
                for m in selected(state):
                    if len(running) >= jobs_count:
                        break
                    if m["status"] == "pending" and m["id"] not in submitted and (allowed is None
                                                                                  or m["id"] in allowed):
                        submitted.add(m["id"])
                        running.add(pool.submit(work, m))
                if not running:
                    break
                finished, running = concurrent.futures.wait(running,
                                                            return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    future.result()

    if arguments.schemata == "off" or arguments.unit:
        drain(None)
    else:
        schemata_job = None
        while any(m["status"] == "pending" for m in selected(state)):
            # A round: every pending mutant the selection needs passes the quick check (an invalid one makes room
            # for the next, checked in turn), with up to half as many more after it; the ones left are built into
            # one schemata binary, unless the last one already holds them all.
            while True:
                settle_quick()
                wanted = [m for m in selected(state) if m["status"] == "pending"]
                after = [m for m in state["mutants"] if m["status"] == "pending" and m not in wanted]
                fresh = [m for m in wanted + after[:len(wanted) // 2] if "quick_seconds" not in m]
                if not fresh:
                    break
                log(f"mutate: quick check of {len(fresh)} mutant(s) ...")
                with concurrent.futures.ThreadPoolExecutor(max_workers=jobs_count) as pool:
                    list(pool.map(quick, fresh))
                save_state(state_path, state)
            save_state(state_path, state)
            wanted = [m for m in selected(state) if m["status"] == "pending"]
            if not wanted:
                break
            # A mutant the last build left out (no node holds it, or its alternative did not compile) would be left
            # out again: only a mutant never planned calls for a new build.
            if not {keys[m["id"]] for m in wanted} <= fast["compiled"] | set(fast["evicted"]):
                candidates = wanted + [m for m in state["mutants"] if m["status"] == "pending" and m not in wanted
                                       and "quick_seconds" in m and "quick_error" not in m]
                build_started = time.time()
                if schemata_job is None:
                    schemata_job = Job("schemata", out, max(1, os.cpu_count() or 1), False, subject, work_dir)
                    log(f"mutate: preparing the schemata tree {schemata_job.base} (first build is a full one) ...")
                    schemata_job.setup()
                fast.update(build_schemata(schemata_job, state, keys, candidates, options, shared, suite))
                building[0] += time.time() - build_started
            fast["round"] = {m["id"] for m in wanted}
            drain(fast["round"])
    write_report(state, out, prefix)
    return 0


# ------------------------------------------------------------------------------------------ report

def percent(part, whole):
    """100 * part / whole to one decimal, a half rounded up (385/400 = 96.25 -> 96.3, as the docs write it; round()
    rounds a half to even: 96.2), computed on integers so no float error moves a value across a half; None when
    whole is 0."""
    return (2000 * part + whole) // (2 * whole) / 10 if whole else None


def first_status(mutant):
    """A mutant's status as first measured: a re-run (RERUN_SURVIVORS=1, RERUN=) against a strengthened suite
    replaces its result but keeps the first one in "first_result"."""
    return mutant.get("first_result", {}).get("status", mutant["status"])


def summarize(state):
    chosen = selected(state)
    done = [m for m in chosen if m["status"] not in ("pending", "running")]
    # Every count and the score are as first measured; a survivor killed only on a re-run is counted apart, and so is
    # one the re-run found invalid or equivalent (the suite changed under it: a renamed operator the suite now calls):
    # as first measured it is still a survivor, not a mutant left out.
    scored = [m for m in done if first_status(m) in ("killed", "survived")]
    killed = [m for m in scored if first_status(m) == "killed"]
    killed_on_rerun = [m for m in scored if m["status"] == "killed" and first_status(m) == "survived"]
    not_valid_on_rerun = [m for m in scored if m["status"] not in ("killed", "survived")]
    kill_times = [m["seconds"] for m in killed]
    job_seconds = sum(m.get("elapsed", 0) for m in done)
    per_file, per_operator, per_directory, per_suite = {}, {}, {}, {}
    for m in done:
        # The commit each mutant ran against: its kills and its cost (every done mutant's time, invalid and
        # equivalent ones too, over the suite's valid non-equivalent count), so a resumed run's legs can be compared.
        suite_row = per_suite.setdefault(m.get("suite", "unrecorded"), {"killed": 0, "valid": 0, "job_seconds": 0.0})
        suite_row["killed"] += m["status"] == "killed"
        suite_row["valid"] += m["status"] in ("killed", "survived")
        suite_row["job_seconds"] += m.get("elapsed", 0)
        keys = [(per_file, m["file"]), (per_operator, m["operator"])]
        if directory_of(m["file"]):
            keys.append((per_directory, directory_of(m["file"])))
        for table, key in keys:
            row = table.setdefault(key, {"killed": 0, "survived": 0, "not_reached": 0, "invalid": 0,
                                         "equivalent": 0, "error": 0})
            row[first_status(m) if first_status(m) in ("killed", "survived") else m["status"]] += 1
            row["not_reached"] += survived_not_reached(m)
    return {
        "config": state["config"], "generated": state["generated"],
        "generated_per_file": state["generated_per_file"], "dropped": state["dropped"],
        "selected": len(chosen), "done": len(done),
        "invalid": sum(1 for m in done if first_status(m) == "invalid"),
        "equivalent": sum(1 for m in done if first_status(m) == "equivalent"),
        "errors": sum(1 for m in done if first_status(m) == "error"),
        "valid_non_equivalent": len(scored), "killed": len(killed), "killed_on_rerun": len(killed_on_rerun),
        "not_valid_on_rerun": len(not_valid_on_rerun),
        "killed_by_replay": sum(1 for m in killed if m.get("phase") == "replay"),
        "killed_by_fuzzing": sum(1 for m in killed if m.get("phase") == "fuzz"),
        "killed_by_unit": sum(1 for m in killed if m.get("phase") == "unit"),
        # killed by a target whose corpus already fails on the unmutated tree, no other target having killed it
        "killed_head_failing": sum(1 for m in killed if m.get("head_failing")),
        "survived": len(scored) - len(killed),
        "survived_not_reached": sum(1 for m in scored if survived_not_reached(m)),
        # UNIT=1: mutants no fuzz target reaches that ctest killed.
        "killed_not_reached": sum(1 for m in killed if m.get("not_reached")),
        "survived_instantiation_only": sum(1 for m in scored if first_status(m) == "survived"
                                           and first_measured(m, "reach") == INSTANTIATION_ONLY),
        "score": percent(len(killed), len(scored)),
        # Medians of times recorded to 0.1 s: an even count averages two, so round the float sum's noise away.
        "median_seconds_to_kill": round(statistics.median(kill_times), 2) if kill_times else None,
        "median_seconds_to_kill_by_fuzzing": (round(statistics.median([m["seconds"] for m in killed
                                                                       if m["phase"] == "fuzz"]), 2)
                                              if any(m["phase"] == "fuzz" for m in killed) else None),
        "unit_killed": sum(1 for m in scored if m.get("unit_killed")) if state["config"].get("unit") else None,
        # What the run cost: each done mutant's own time (TCE, build, replay, fuzzing), summed over the jobs.
        "job_seconds": round(job_seconds),
        "job_minutes_per_valid": round(job_seconds / 60 / len(scored), 2) if scored else None,
        "per_file": per_file, "per_operator": per_operator,
        "per_suite": {suite: {**row, "job_seconds": round(row["job_seconds"]),
                              "job_minutes_per_valid": round(row["job_seconds"] / 60 / row["valid"], 2)
                              if row["valid"] else None}
                      for suite, row in per_suite.items()},
        # serialize/, model/, crypto/: each with its own score (absent for the Core subject)
        "per_directory": {d: {**row, "score": percent(row["killed"], row["killed"] + row["survived"])}
                          for d, row in sorted(per_directory.items())},
        "mutants": done,
        **cost_of_ways(state, done, job_seconds),
    }


def cost_of_ways(state, done, job_seconds):
    """A run that recorded its ways (the quick check, the schemata binary, the rebuild per mutant): the mean job-seconds
    per mutant processed (every done mutant's own time: its quick check, TCE, build, replay and fuzzing), the same per
    way, and the schemata builds apart (the first build of each job tree is in neither). {} for older runs."""
    if not any("way" in m for m in done):
        return {}
    per_way = {}
    for m in done:
        row = per_way.setdefault(m.get("way", "unrecorded"), {"processed": 0, "job_seconds": 0.0})
        row["processed"] += 1
        row["job_seconds"] += m.get("elapsed", 0)
    builds = state.get("schemata_builds", [])
    return {
        "job_seconds_per_processed": round(job_seconds / len(done), 2) if done else None,
        "per_way": {way: {"processed": row["processed"], "job_seconds": round(row["job_seconds"], 1),
                          "job_seconds_per_processed": round(row["job_seconds"] / row["processed"], 2)}
                    for way, row in sorted(per_way.items())},
        "schemata_builds": builds,
        "schemata_build_seconds": round(sum(b["seconds"] for b in builds), 1),
    }


def table(rows, header):
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    return "\n".join(lines)


def score_rows(per):
    rows = []
    for key, r in sorted(per.items()):
        r = {k: r.get(k, 0) for k in ("killed", "survived", "not_reached", "invalid", "equivalent")}
        scored = r["killed"] + r["survived"]
        rows.append((key, scored, r["killed"], r["survived"], r["not_reached"], r["invalid"], r["equivalent"],
                     f"{100.0 * r['killed'] / scored:.0f}%" if scored else "-"))
    return rows


TRIAGE_OVERRIDE = None   # --triage FILE: this run's triage file instead of the subject's (a held-out run)


def triage_of(state):
    """The triage file of a run: --triage, else the one the run recorded (config "triage"), else the subject's."""
    if TRIAGE_OVERRIDE is not None:
        return TRIAGE_OVERRIDE
    if state["config"].get("triage"):
        return ROOT / state["config"]["triage"]
    return subject_of_state(state).triage


def load_triage(path=TRIAGE):
    """{mutant id: (verdict, reason)} from tools/mutate/triage.tsv (tab-separated, '#' comments); the Core
    subject's from tools/mutate/triage-core.tsv."""
    triage = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                fields = line.split("\t")
                if len(fields) >= 3 and fields[0] != "id":
                    triage[fields[0]] = (fields[1], fields[2])
    return triage


def report_title(state, subject):
    """'serialize/' (as before model/ and crypto/ were mutated), 'serialize/, model/, crypto/', or the Core tree."""
    if subject.name == "core":
        return subject.title
    directories = [d + "/" for d in MUTATED_DIRS if any(directory_of(f) == d + "/" for f in state["config"]["files"])]
    return ", ".join(directories) or subject.title


def write_report(state, out, prefix=""):
    subject = subject_of_state(state)
    summary = summarize(state)
    triage_path = triage_of(state)
    triage = load_triage(triage_path)
    survivors = [m for m in summary["mutants"] if first_status(m) == "survived"]
    summary["survivors_triaged"] = {verdict: sum(1 for m in survivors if triage.get(m["id"], ("untriaged",))[0] == verdict)
                                    for verdict in ("equivalent", "fixed", "open", "untriaged")}
    # The score over the mutants not shown equivalent: survivors triaged "equivalent" (a reason why no input can
    # tell them apart) leave the denominator, as the TCE-equivalent ones already did.
    proven = summary["survivors_triaged"]["equivalent"]
    scored = summary["valid_non_equivalent"] - proven
    summary["score_without_triaged_equivalent"] = percent(summary["killed"], scored)
    # Two kinds of number (docs/mutation.md "Held-out measurement"): as first measured (the score above: the suite as
    # it was when each mutant ran) and after strengthening, where survivors triaged "fixed" (the suite was changed for
    # them and a re-run killed them) count as killed: a training score, since the suite was tuned on those mutants.
    fixed = summary["survivors_triaged"]["fixed"]
    valid = summary["valid_non_equivalent"]
    summary["triage_file"] = str(triage_path.relative_to(ROOT)) if triage_path.is_relative_to(ROOT) else str(triage_path)
    summary["score_after_strengthening"] = percent(summary["killed"] + fixed, valid)
    (out / f"{prefix}report.json").write_text(json.dumps(summary, indent=1))
    header = ("", "valid", "killed", "survived", "not reached", "invalid", "equivalent", "score")
    config = summary["config"]
    lines = [
        f"# Mutation analysis of {report_title(state, subject)}",
        "",
        f"universalmutator {config['universalmutator']}, seed {config['seed']}, SAMPLE={config['sample'] or 'all'}, "
        f"TIME={config['time']} s per target{', shard ' + config['shard'] if config.get('shard') else ''}"
        f"{', lines ' + config['lines'] if config.get('lines') else ''}.",
        "",
        f"- generated: {summary['generated']} (after dropping {summary['dropped']['comment']} comment-only and "
        f"{summary['dropped']['planted']} planted-hook mutants); selected {summary['selected']}, done {summary['done']}",
        f"- invalid (do not compile): {summary['invalid']}; equivalent (identical -O2 objects): {summary['equivalent']}"
        + (f"; errors: {summary['errors']}" if summary["errors"] else ""),
        f"- valid non-equivalent: {summary['valid_non_equivalent']}; killed {summary['killed']} "
        f"({summary['killed_by_replay']} by corpus replay, {summary['killed_by_fuzzing']} by fuzzing"
        + (f", {summary['killed_by_unit']} by the unit tests" if summary["killed_by_unit"] else "")
        + (f"; {summary['killed_head_failing']} of them killed, {HEAD_ALREADY_FAILING}: only by a target whose corpus "
           f"already fails on the unmutated tree" if summary["killed_head_failing"] else "") + "); "
        f"survived {summary['survived']}"
        + (f" ({summary['killed_on_rerun']} of them killed later, on a re-run against the suite strengthened for "
           f"them; counted as survivors here" if summary["killed_on_rerun"] else " (") +
        (f"; " if summary["killed_on_rerun"] else "")
        + (f"{summary['not_valid_on_rerun']} of them invalid or equivalent on a re-run against a later suite; "
           if summary["not_valid_on_rerun"] else "") + f"{summary['survived_not_reached']} not reached"
        + (f", {summary['survived_instantiation_only']} of them instantiation-only: compiled only in "
           f"{CORE_INSTANTIATION_UNIT if subject.name == 'core' else INSTANTIATION_UNIT}"
           if summary["survived_instantiation_only"] else "") + ")",
        f"- **score as first measured: {summary['score']}%** ({summary['killed']}/{summary['valid_non_equivalent']}); "
        f"median seconds to kill: {summary['median_seconds_to_kill']} "
        f"(by fuzzing only: {summary['median_seconds_to_kill_by_fuzzing']})",
        f"- score after strengthening: {summary['score_after_strengthening']}% "
        f"({summary['killed'] + summary['survivors_triaged']['fixed']}/{summary['valid_non_equivalent']}: the "
        f"{summary['survivors_triaged']['fixed']} survivors triaged fixed, killed on a re-run of the strengthened suite, "
        f"counted as killed; a training score)",
        f"- score without the {summary['survivors_triaged']['equivalent']} survivors triaged equivalent "
        f"({summary['triage_file']}): {summary['score_without_triaged_equivalent']}%",
    ]
    # Suites that ran a valid mutant (one that ran only invalid or equivalent ones has no score and no rate).
    suites = {suite: row for suite, row in summary["per_suite"].items() if row["valid"]}
    if len(suites) > 1:
        lines.append("- by suite (the commit each mutant ran against; job-minutes per valid non-equivalent mutant "
                     "counts every done mutant's time): " + "; ".join(
                         f"{suite}: {row['killed']}/{row['valid']} killed, {row['job_minutes_per_valid']} job-minutes"
                         for suite, row in suites.items()))
    if summary["job_minutes_per_valid"] is not None:
        lines.append(f"- cost: {summary['job_seconds'] / 3600:.1f} job-hours (each done mutant's TCE, build, replay "
                     f"and fuzzing, summed; its last run only, job setup not counted), "
                     f"{summary['job_minutes_per_valid']} job-minutes per valid non-equivalent mutant")
    if summary.get("per_way"):
        lines.append(f"- job-seconds per mutant processed: {summary['job_seconds_per_processed']} (" + "; ".join(
            f"{way}: {row['processed']} at {row['job_seconds_per_processed']} s" for way, row in
            summary["per_way"].items()) + f"); schemata builds apart: {len(summary['schemata_builds'])} binary(ies), "
            f"{summary['schemata_build_seconds']} s (the job trees' first builds counted in neither)")
    if config.get("head_failing_targets"):
        lines.append("- targets whose corpus already fails on the unmutated tree (kept, with their reach; a mutant "
                     f"only they kill is killed, {HEAD_ALREADY_FAILING}): " + "; ".join(
                         f"{target}: {why}" for target, why in sorted(config["head_failing_targets"].items())))
    if config.get("reach_lcov"):
        lines.append(f"- reach from {config['reach_lcov']} (--reach-lcov), no coverage build of its own")
    if config.get("left_out_targets"):
        lines.append("- targets left out (their corpus fails on the unmutated tree): " + "; ".join(
            f"{target}: {why}" for target, why in sorted(config["left_out_targets"].items())))
    if summary["unit_killed"] is not None:
        lines.append(f"- ctest alone (UNIT=1) kills {summary['unit_killed']} of {summary['valid_non_equivalent']}; "
                     f"{summary['killed_not_reached']} of the killed are mutants no fuzz target reaches")
    if len(summary["per_directory"]) > 1 or any(d != "serialize/" for d in summary["per_directory"]):
        # A section per directory (serialize/, model/, crypto/), each with its own score and its files.
        lines += ["", "## By directory", "", table(score_rows(summary["per_directory"]), ("directory",) + header[1:])]
        for directory, row in summary["per_directory"].items():
            files = {f: r for f, r in summary["per_file"].items() if directory_of(f) == directory}
            scored = row["killed"] + row["survived"]
            lines += ["", f"### {directory}: score {row['score']}% ({row['killed']}/{scored})" if scored
                      else f"### {directory}: no valid non-equivalent mutant yet", "",
                      table(score_rows(files), ("file",) + header[1:])]
    lines += ["", "## By file", "", table(score_rows(summary["per_file"]), ("file",) + header[1:]),
              "", "## By operator (universalmutator rule)", "",
              table(score_rows(summary["per_operator"]), ("rule",) + header[1:]), "", "## Survivors", ""]
    lines.insert(lines.index("## Survivors") + 2, f"Triage ({summary['triage_file']}): " + ", ".join(
        f"{count} {verdict}" for verdict, count in summary["survivors_triaged"].items()) + "\n")
    if not survivors:
        lines.append("None.")
    for m in survivors:
        lines += [f"### {m['id']} ({m['file']}:{m['line']}, {m['operator']})", "",
                  f"{m.get('detail', '')}; targets that ran: {', '.join(m.get('targets', [])) or 'none'} "
                  f"(reach by {m.get('reach', '?')})", "",
                  "Triage: " + (": ".join(triage[m["id"]]) if m["id"] in triage else "**untriaged**"), "", "```diff",
                  f"- {m['original'].strip()}", f"+ {m['mutated'].strip()}", "```", ""]
    text = "\n".join(lines) + "\n"
    (out / f"{prefix}report.md").write_text(text)
    log("")
    log(table(score_rows(summary["per_file"]), ("file",) + header[1:]))
    log("")
    log(table(score_rows(summary["per_operator"]), ("rule",) + header[1:]))
    log("")
    for line in lines[4:10]:
        log(line)
    log(f"mutate: report in {out / (prefix + 'report.md')} and {out / (prefix + 'report.json')}")
    from importlib import util  # tools/report/html.py by path (on sys.path its name would shadow the stdlib's html)
    spec = util.spec_from_file_location("serdiff_report_html", ROOT / "tools" / "report" / "html.py")
    page = util.module_from_spec(spec)
    spec.loader.exec_module(page)
    log(f"mutate: HTML page in {page.write_mutate_page(summary, out / (prefix + 'index.html'))}")


def merge_states(arguments):
    """Joins shard states (the nightly workflow) into one state and writes its report."""
    out = Path(arguments.out).resolve()
    states = [json.loads(Path(p).read_text()) for p in arguments.states]
    merged = states[0]
    merged["mutants"] = [m for s in states for m in s["mutants"]]
    merged["config"]["shard"] = None
    merged["config"]["sample"] = None
    out.mkdir(parents=True, exist_ok=True)
    (out / "state.json").write_text(json.dumps(merged, indent=1))
    write_report(merged, out)
    return 0


VERDICT_KEYS = ("status", "phase", "target")


def verdict_of(mutant):
    """(status, phase, killing target) as first measured; phase and target only for a kill."""
    first = mutant.get("first_result", {})
    status = first.get("status", mutant["status"])
    if status != "killed":
        return (status, None, None)
    return (status, first.get("phase", mutant.get("phase")), first.get("target", mutant.get("target")))


def compare_ways(first, second):
    """The two ways' verdicts on the mutants both judged: {"compared", "agree", "disagree": [(id, a, b)], "ways"}.
    A kill by another target of the same reaching set, or in another phase, is a disagreement too (reported apart
    from a status disagreement)."""
    a = {m["id"]: m for m in first["mutants"] if m["status"] not in ("pending", "running", "error")}
    b = {m["id"]: m for m in second["mutants"] if m["status"] not in ("pending", "running", "error")}
    both = [i for i in a if i in b]
    disagree = [(i, verdict_of(a[i]), verdict_of(b[i])) for i in both if verdict_of(a[i]) != verdict_of(b[i])]
    return {"compared": len(both), "agree": len(both) - len(disagree),
            "status_disagree": sum(1 for _, x, y in disagree if x[0] != y[0]), "disagree": disagree,
            "ways": {"first": sorted({m.get("way", "unrecorded") for m in a.values()}),
                     "second": sorted({m.get("way", "unrecorded") for m in b.values()})}}


def compare_states(arguments):
    """mutate.py compare A.json B.json: the verdicts of two runs of the same mutants (one each way); exit 1 on any
    disagreement of status, phase or killing target."""
    if len(arguments.states) != 2:
        sys.exit("mutate: compare takes two state files")
    first, second = (json.loads(Path(p).read_text()) for p in arguments.states)
    result = compare_ways(first, second)
    print(f"mutate compare: {result['compared']} mutant(s) judged by both; {result['agree']} agree; "
          f"{result['status_disagree']} differ in status, {len(result['disagree']) - result['status_disagree']} "
          f"only in phase or killing target (ways: {', '.join(result['ways']['first'])} / "
          f"{', '.join(result['ways']['second'])})")
    for mutant_id, x, y in result["disagree"]:
        print(f"  {mutant_id}: {' '.join(str(v) for v in x if v)}  vs  {' '.join(str(v) for v in y if v)}")
    if arguments.out:
        Path(arguments.out).mkdir(parents=True, exist_ok=True)
        (Path(arguments.out) / "compare.json").write_text(json.dumps(result, indent=1) + "\n")
    return 1 if result["disagree"] else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run", "report", "merge", "compare"])
    parser.add_argument("states", nargs="*", help="merge: shard state files")
    parser.add_argument("--files", default="", help="space/comma-separated files of serialize/ (default: all)")
    parser.add_argument("--sample", type=int, default=None, help="valid non-equivalent mutants to run (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time", type=int, default=60, help="fuzzing seconds per reaching target (default 60)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants at once, each with its own tree")
    parser.add_argument("--resume", action="store_true", help="continue the run recorded in the state file")
    parser.add_argument("--refresh-coverage", action="store_true",
                        help="with --resume: recompute which targets reach each line (after targets or seeds changed)")
    parser.add_argument("--rerun-survivors", action="store_true",
                        help="with --resume: run every survivor again (after the suite was strengthened)")
    parser.add_argument("--rerun", default="", help="with --resume: run these mutant ids again in the main state "
                        "(space/comma-separated), e.g. survivors a strengthening should now kill")
    parser.add_argument("--unit", action="store_true", help="also record whether ctest alone kills each mutant")
    parser.add_argument("--schemata", choices=["on", "off"], default="on",
                        help="on (default): mutants chosen at run time in one build, the rest rebuilt one at a time; "
                             "off: every mutant rebuilt (docs/mutation.md, Schemata)")
    parser.add_argument("--shard", default="", help="I/N: this run takes every N-th mutant from the I-th")
    parser.add_argument("--only", default="", help="re-run these mutant ids (file#number, space/comma-separated), "
                        "e.g. a survivor after strengthening; use with --state to keep the main run's state")
    parser.add_argument("--plan-rev", default="", help="plan the mutants from the files at this commit (a run "
                        "begun there; a later fix kept its line count), each applied to the file as it is now")
    parser.add_argument("--import-results", default="", help="a report.json whose results a fresh run takes over "
                        "(e.g. tools/mutate/results/report.json) instead of running those mutants again")
    parser.add_argument("--lines", action="append", default=[], metavar="FILE:1,5-9",
                        help="only the mutants of these lines (space-separated or repeated; FILE as --files names it)")
    parser.add_argument("--reach-lcov", default="", metavar="FILE",
                        help="the reach map from this lcov tracefile instead of a coverage build (make review-core's "
                             "coverage of HEAD): records under TN:<target> are that target's, others merged reach")
    parser.add_argument("--out", default=None, help="state and report (default: mutate-out, the Core subject's "
                        "mutate-out/core)")
    parser.add_argument("--state", default="", help="state file (default: <out>/state.json)")
    parser.add_argument("--triage", default="", help="this run's triage file (default: the subject's, "
                        "tools/mutate/triage.tsv or triage-core.tsv); a run records it for later reports")
    fuzz_subject.add_arguments(parser)
    arguments = parser.parse_args()
    name = fuzz_subject.select(arguments.subject, arguments.core_src, "")
    if arguments.out is None:
        arguments.out = str(ROOT / "mutate-out" / "core" if name == "core" else ROOT / "mutate-out")
    arguments.files = [f for f in re.split(r"[,\s]+", arguments.files) if f]
    arguments.only = [m for m in re.split(r"[,\s]+", arguments.only) if m]
    if arguments.only and not arguments.files:
        arguments.files = sorted({m.split("#")[0] for m in arguments.only})
    if arguments.sample == 0:
        arguments.sample = None
    if arguments.triage:
        global TRIAGE_OVERRIDE
        TRIAGE_OVERRIDE = Path(arguments.triage).resolve()
    if arguments.command == "report":
        state_path = Path(arguments.state) if arguments.state else Path(arguments.out) / "state.json"
        Path(arguments.out).mkdir(parents=True, exist_ok=True)
        write_report(json.loads(state_path.read_text()), Path(arguments.out))
        return 0
    if arguments.command == "merge":
        return merge_states(arguments)
    if arguments.command == "compare":
        return compare_states(arguments)
    arguments.subject_object = make_subject(name, fuzz_subject.core_src())
    if arguments.reach_lcov:
        arguments.subject_object.reach_lcov = Path(arguments.reach_lcov).resolve()
    return run(arguments)


if __name__ == "__main__":
    sys.exit(main())
