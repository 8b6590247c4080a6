#!/usr/bin/env python3
"""make review-core CORE_SRC=DIR [BASE=REV] [TIME=S]: what serdiff says about a Bitcoin Core serialization change.

DIR is a git checkout of Core; the change reviewed is BASE..HEAD (BASE: the merge-base of HEAD with the upstream or
default branch, else HEAD~1). DIR is never written: both revisions are exported with `git archive` under
build/review/. Phases (docs/review.md):
  1. export    HEAD's and BASE's src/ into build/review/head and build/review/base, both commit ids recorded
  2. diff      the changed lines of the serialization files (SERIALIZATION_FILES), {file: [HEAD line numbers]}
  3. fuzz      the Core subject built from the HEAD export (ASan+UBSan, libFuzzer; build/review/build-fuzz):
               every Core-backed target replays corpora/<target>, then fuzzes TIME s from a scratch corpus
  4. coverage  a clang source-based coverage build of core_fuzz_replay (build/review/build-cov) runs the corpora
               and the fuzz step's new inputs; per changed line: reached / not reached / no counter
  5. mutation  tools/mutate/mutate.py on exactly the changed lines of make mutate's Core files (every mutant
               universalmutator makes there; invalid and equivalent removed as make mutate does), job trees in
               build/review/mutation; per mutant killed (by which target and check) / survived (with its diff)
  6. bench     tools/review/bench_compare.py: serdiff_bench_core built from BASE and from HEAD, interleaved rounds,
               callgrind instructions beside the times (build/review/bench-base, build/review/bench-head)
  7. verdict   the tables on stdout, review-out/review.json, review-out/index.html (tools/report/html.py)
A finding is replayed on a build of BASE too (build/review/build-fuzz-base): one BASE already has is reported as
such and does not count against the change.
Exit status: 0 nothing needs the reviewer's eyes (no new finding, every changed code line reached, no surviving
mutant, no case slower in instructions; or no changed serialization line), 1 something does, 2 a usage or build
error.

  tools/review/review.py --core-src DIR [--base REV] [--time 10] [--jobs 2] [--out review-out]
                         [--no-mutation] [--no-bench] [--rounds 5]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import planted  # noqa: E402  (configure_and_build and hunt: the Core subject's libFuzzer build and a scratch hunt)
import run as fuzz_run  # noqa: E402  (target options, the sanitizer environment)
import subject as fuzz_subject  # noqa: E402  (archive_src: a commit's src/ out of a checkout)
sys.path.insert(0, str(ROOT / "tools" / "mutate"))
sys.path.insert(0, str(ROOT / "tools" / "review"))
import mutate as mutate_tool  # noqa: E402  (core_files(): the files make mutate SUBJECT=core mutates)

WORK = ROOT / "build" / "review"
HEAD_TREE = WORK / "head"          # src/ of HEAD, synced by content so a rebuild recompiles only what changed
BASE_TREE = WORK / "base"          # src/ of BASE: its findings replay and its benchmark build
FUZZ_BUILD = WORK / "build-fuzz"
BASE_FUZZ_BUILD = WORK / "build-fuzz-base"
MUTATION_WORK = WORK / "mutation"  # make mutate's state, report and job trees of a review
COVERAGE_BUILD = WORK / "build-cov"

# Bitcoin Core's serialization files, relative to the tree: the only ones whose changes a review looks at.
SERIALIZATION_FILES = (
    "src/serialize.h", "src/streams.h", "src/streams.cpp", "src/util/obfuscation.h", "src/prevector.h",
    "src/compressor.cpp", "src/compressor.h", "src/undo.h", "src/primitives/transaction.h",
    "src/primitives/block.h", "src/primitives/transaction.cpp", "src/primitives/block.cpp", "src/util/golombrice.h",
    # Core's block storage (block_store on a tree of the v31 cycle; on an older tree its lines have no counter).
    "src/node/blockstorage.cpp", "src/node/blockstorage.h", "src/flatfile.cpp", "src/flatfile.h",
)
NOT_MEASURED = "not measured"
# A case whose HEAD runs this fraction more instructions than BASE is a slowdown the verdict names.
SLOWER_INSTRUCTIONS = 1 / 1.05  # HEAD at 5% or more instructions above BASE
# Candidates for the branch a change is reviewed against, first that resolves wins (BASE not given).
DEFAULT_BRANCHES = ("@{upstream}", "refs/remotes/upstream/HEAD", "refs/remotes/origin/HEAD", "upstream/master",
                    "origin/master", "upstream/main", "origin/main", "master", "main")
REPORT_LINES = 12
# Wall-clock limits of the replays (a HEAD that loops forever on a seed must not hang the review): a whole corpus
# directory, one input.
DIRECTORY_TIMEOUT = 1800
INPUT_TIMEOUT = 120


class Failure(Exception):
    """A usage or build error: the message is printed and the exit status is 2."""


STARTED = time.time()


def log(message):
    print(f"review [{time.time() - STARTED:6.1f} s] {message}", flush=True)


def shown(path):
    return planted.shown(Path(path))


def git(tree, *arguments, check=True):
    result = subprocess.run(["git", "-C", str(tree), *arguments], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise Failure(f"git {' '.join(arguments)} in {tree} failed: {result.stderr.strip()}")
    return result


# -- phase 1: the revisions and their export ---------------------------------------------------------------------

def resolve(tree, base=None):
    """(head, base, how the base was chosen); Failure when DIR is not a git checkout or BASE is unknown."""
    tree = Path(tree)
    if not tree.is_dir():
        raise Failure(f"CORE_SRC={tree}: no such directory")
    top = git(tree, "rev-parse", "--show-toplevel", check=False)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != tree.resolve():
        inside = f" (it lies inside the checkout {top.stdout.strip()})" if top.returncode == 0 else ""
        raise Failure(f"CORE_SRC={tree} is not a git checkout{inside}: review-core compares two commits of one; "
                      f"make fuzz SUBJECT=core CORE_SRC={tree} fuzzes a plain tree")
    head = git(tree, "rev-parse", "--verify", "HEAD^{commit}", check=False)
    if head.returncode != 0:
        raise Failure(f"CORE_SRC={tree}: the checkout has no HEAD commit")
    head = head.stdout.strip()
    if base:
        found = git(tree, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}", check=False)
        if found.returncode != 0:
            raise Failure(f"BASE={base} is not a commit of {tree} (git rev-parse --verify {base} fails)")
        return head, found.stdout.strip(), f"BASE={base}"
    for branch in DEFAULT_BRANCHES:
        found = git(tree, "rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}", check=False)
        if found.returncode != 0:
            continue
        merge_base = git(tree, "merge-base", "HEAD", found.stdout.strip(), check=False).stdout.strip()
        if merge_base and merge_base != head:
            return head, merge_base, f"merge-base of HEAD and {branch}"
    parent = git(tree, "rev-parse", "--verify", "--quiet", "HEAD~1^{commit}", check=False)
    if parent.returncode != 0:
        raise Failure(f"CORE_SRC={tree}: no BASE given, no upstream or default branch below HEAD, and HEAD has no "
                      f"parent: give BASE=REV")
    return head, parent.stdout.strip(), "HEAD~1 (no upstream or default branch below HEAD)"


def sync(source, destination):
    """Makes `destination` hold exactly `source`'s files; a file whose contents are unchanged keeps its modification
    time (so the build trees recompile only what the change touched), a new or changed one gets now."""
    destination.mkdir(parents=True, exist_ok=True)
    wanted = set()
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        wanted.add(relative)
        target = destination / relative
        if path.is_symlink():
            if not target.is_symlink() or os.readlink(target) != os.readlink(path):
                if target.exists() or target.is_symlink():
                    shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
                target.symlink_to(os.readlink(path))
        elif path.is_dir():
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                target.unlink()
            target.mkdir(exist_ok=True)
        elif not target.is_file() or target.is_symlink() or target.read_bytes() != path.read_bytes():
            if target.is_symlink() or target.is_dir():
                shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
            shutil.copyfile(path, target)
            shutil.copymode(path, target)
    for path in sorted(destination.rglob("*"), reverse=True):
        if path.relative_to(destination) not in wanted:
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()


def export(tree, commit, destination):
    """`git archive` of the commit's src/ into destination/src (DIR's index, work tree and refs stay untouched)."""
    WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=WORK) as scratch:
        error = fuzz_subject.archive_src(tree, commit, scratch)
        if error is not None:
            raise Failure(f"git archive {commit} src in {tree} failed: {error}")
        if not (Path(scratch) / "src" / "serialize.h").is_file():
            raise Failure(f"commit {commit[:12]} of {tree} has no src/serialize.h: not a Bitcoin Core tree")
        sync(Path(scratch) / "src", destination / "src")
    (destination / "COMMIT").write_text(commit + "\n")


# -- phase 2: the changed lines ------------------------------------------------------------------------------------

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(diff):
    """{file: [line numbers in the new side]} of a `git diff -U0` text: the added or replaced lines of each hunk
    (a pure deletion adds none); a deleted file has none."""
    changed, current = {}, None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = line[4:].split("\t")[0]
            current = None if name == "/dev/null" else name[2:] if name.startswith("b/") else name
            continue
        match = HUNK.match(line)
        if match and current:
            start, count = int(match.group(1)), int(match.group(2) if match.group(2) is not None else 1)
            if count:
                changed.setdefault(current, []).extend(range(start, start + count))
    return {name: sorted(set(lines)) for name, lines in changed.items() if lines}


def diff_lines(tree, base, head):
    diff = git(tree, "diff", "-U0", "--no-color", "--no-ext-diff", base, head, "--", *SERIALIZATION_FILES).stdout
    return changed_lines(diff)


def ranges(lines):
    """[1, 2, 3, 7] → '1-3,7'."""
    out, start = [], None
    for index, line in enumerate(lines):
        if start is None:
            start = line
        if index + 1 == len(lines) or lines[index + 1] != line + 1:
            out.append(str(start) if start == line else f"{start}-{line}")
            start = None
    return ",".join(out)


# -- phase 3: build, replay, fuzz ----------------------------------------------------------------------------------

def core_options(base=True):
    """The Core subject from the HEAD export; with `base`, BASE's export built into libcore_base.so beside it, so
    every target compares HEAD with BASE as well as with the reference (docs/base.md)."""
    return ["-DSERDIFF_SUBJECTS=serdiff;core", f"-DSERDIFF_CORE_SRC={HEAD_TREE}",
            f"-DSERDIFF_CORE_BASE_SRC={BASE_TREE if base else ''}"]


def build_fuzz(jobs):
    """core_fuzz_libfuzzer and core_fuzz_replay of the HEAD export, configured as make test-planted's trees
    (ASan+UBSan, libFuzzer, RelWithDebInfo: tools/fuzz/planted.py's configure_and_build)."""
    try:
        binary = planted.configure_and_build(FUZZ_BUILD, core_options(), "core_fuzz_libfuzzer", jobs)
        subprocess.run(["cmake", "--build", str(FUZZ_BUILD), "-j", str(jobs), "--target", "core_fuzz_replay"],
                       check=True, stdout=subprocess.DEVNULL)
    except subprocess.CalledProcessError as error:
        raise Failure(f"building the Core subject from {shown(HEAD_TREE)} in {shown(FUZZ_BUILD)} failed "
                      f"(status {error.returncode}){build_messages(FUZZ_BUILD, error, jobs)}")
    return binary, FUZZ_BUILD / "bin" / "core_fuzz_replay"


def build_messages(directory, error, jobs):
    """The compiler's messages of a failed build (planted.configure_and_build discards them): the failed command is
    run again (only what failed recompiles), its output kept in <directory>.log, the error lines shown."""
    command = error.cmd if isinstance(error.cmd, list) else []
    if "--build" not in command:
        return f": configuring failed: cmake -S {ROOT} -B {shown(directory)} prints why"
    log_path = directory.parent / f"{directory.name}.log"
    again = subprocess.run(command, capture_output=True, text=True)
    log_path.write_text(again.stdout + again.stderr)
    errors = [line for line in (again.stdout + again.stderr).splitlines() if "error" in line.lower()][:15]
    return f"; the build's messages are in {shown(log_path)}:\n  " + "\n  ".join(errors)


def report_head(text, lines=REPORT_LINES):
    """The first lines of a failure report: from the mismatch headline or sanitizer/assertion line on."""
    all_lines = text.splitlines()
    for index, line in enumerate(all_lines):
        if re.search(r"==== serdiff MISMATCH|ERROR: \w+Sanitizer|runtime error:|assertion failed|Assertion .* "
                     r"failed|deadly signal|==\d+==ERROR", line, re.IGNORECASE):
            head = all_lines[index:index + lines]
            ends = [n for n, text in enumerate(head) if "==== end of mismatch report" in text]
            return head[:ends[0] + 1] if ends else head
    return all_lines[-lines:]


def replay(replay_binary, target):
    """corpora/<target> through the ASan replay driver; a failure names the input when it can."""
    corpus = ROOT / "corpora" / target
    if not corpus.is_dir():
        return {"target": target, "ok": True, "files": 0, "note": f"no corpora/{target}/"}
    command = [str(replay_binary), "--target", target, str(corpus)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, errors="replace",
                                env=fuzz_run.sanitizer_environment(), timeout=DIRECTORY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"target": target, "ok": False, "files": sum(1 for p in corpus.rglob("*") if p.is_file()),
                "status": "timeout", "input": str(shown(corpus)), "what": f"replay exceeded {DIRECTORY_TIMEOUT} s",
                "report": [f"the replay of {shown(corpus)} did not finish in {DIRECTORY_TIMEOUT} s (a hang?)"],
                "replay": f"{shown(replay_binary)} --target {target} {shown(corpus)}"}
    text = result.stdout + result.stderr
    files = sum(1 for p in corpus.rglob("*") if p.is_file())
    if result.returncode == 0:
        return {"target": target, "ok": True, "files": files, "summary": text.strip().splitlines()[-1:]}
    failing = failing_input(replay_binary, target, corpus, text)
    return {"target": target, "ok": False, "files": files, "status": result.returncode,
            "input": str(shown(failing)) if failing else str(shown(corpus)), "report": report_head(text),
            "replay": f"{shown(replay_binary)} --target {target} {shown(failing or corpus)}"}


def failing_input(replay_binary, target, corpus, text):
    """The corpus file the replay failed on: named in its report, else found by replaying file by file."""
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        if str(path) in text:
            return path
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        try:
            failed = subprocess.run([str(replay_binary), "--target", target, str(path)], capture_output=True,
                                    env=fuzz_run.sanitizer_environment(), timeout=INPUT_TIMEOUT).returncode != 0
        except subprocess.TimeoutExpired:
            failed = True
        if failed:
            return path
    return None


def fuzz(binary, replay_binary, target, seconds, out):
    """`seconds` of libFuzzer from corpora/<target>, new inputs into a scratch directory first (planted.hunt:
    corpora/ is never libFuzzer's first, written, directory)."""
    hunt = planted.hunt(target, target, binary, seconds, out=out)
    work = out / target / "seeds"
    row = {"target": target, "ok": not hunt["detected"], "seconds": round(hunt["seconds"], 1),
           "execs": hunt["execs"], "scratch_corpus": str(shown(work / "corpus")), "log": str(shown(work / "fuzz.log"))}
    if hunt["detected"]:
        row.update({"what": hunt["what"], "input": str(shown(hunt["crash"])),
                    "report": report_head((work / "fuzz.log").read_text(errors="replace")),
                    "replay": f"{shown(replay_binary)} --target {target} {shown(hunt['crash'])}"})
    elif hunt["crash"] is None and not hunt["execs"]:
        row.update({"ok": False, "what": "libFuzzer did not run (see its log)",
                    "report": report_head((work / "fuzz.log").read_text(errors="replace"))})
    return row


# -- phase 4: changed-line coverage ----------------------------------------------------------------------------------

def build_coverage(jobs):
    """core_fuzz_replay of the HEAD export with clang source-based coverage (no sanitizers, Debug)."""
    # subjects/core includes Core's src/ as a SYSTEM directory (its warnings are not serdiff's), and clang maps no
    # coverage in system headers unless told to: without -system-headers-coverage serialize.h, streams.h and the
    # other headers would have no counter at all.
    flags = "-fprofile-instr-generate -fcoverage-mapping -mllvm -system-headers-coverage"
    try:
        planted.configure_and_build(COVERAGE_BUILD, core_options(base=False) + [
            "-DSERDIFF_SANITIZERS=", "-DSERDIFF_FUZZ_ENGINE=none", "-DCMAKE_BUILD_TYPE=Debug",
            "-DSERDIFF_CORE_REPLAY_INSTANTIATES=ON",  # uninstantiated code gets counters at 0: not reached
            f"-DCMAKE_CXX_FLAGS={flags}", f"-DCMAKE_C_FLAGS={flags}",
            "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate"], "core_fuzz_replay", jobs)
    except subprocess.CalledProcessError as error:
        raise Failure(f"the coverage build of {shown(HEAD_TREE)} in {shown(COVERAGE_BUILD)} failed "
                      f"(status {error.returncode}){build_messages(COVERAGE_BUILD, error, jobs)}")
    return COVERAGE_BUILD / "bin" / "core_fuzz_replay"


def collect_coverage(binary, inputs, out):
    """Runs each target's inputs through the coverage binary, merges the profiles, exports lcov; {file: {line:
    count}} for the files under the HEAD export. A directory whose replay fails (a finding) is replayed file by
    file, so the files after the failing one still count; a failing input's own counters count too (the mismatch
    report writes the profile before it aborts: differential/compare.cpp). Each target's profiles are kept apart:
    out/coverage.lcov has their sum, out/coverage-targets.lcov the same counters per target (a "TN:<target>"
    section each, make mutate's files only), the reach the mutation phase takes (--reach-lcov): one notion of reach
    per review."""
    profiles = out / "profiles"
    shutil.rmtree(profiles, ignore_errors=True)
    profiles.mkdir(parents=True)
    for target, directories in inputs.items():
        environment = {**os.environ, "LLVM_PROFILE_FILE": str(profiles / target / "%m.profraw")}
        for directory in directories:
            if not directory.is_dir() or not any(directory.iterdir()):
                continue
            try:
                failed = subprocess.run([str(binary), "--target", target, str(directory)], env=environment,
                                        capture_output=True, timeout=DIRECTORY_TIMEOUT).returncode != 0
            except subprocess.TimeoutExpired:
                failed = True
            if failed:
                for path in sorted(p for p in directory.rglob("*") if p.is_file()):
                    try:
                        subprocess.run([str(binary), "--target", target, str(path)], env=environment,
                                       capture_output=True, timeout=INPUT_TIMEOUT)
                    except subprocess.TimeoutExpired:
                        pass
    raw = sorted(map(str, profiles.glob("*/*.profraw")))
    if not raw:
        raise Failure("the coverage replay wrote no profile")
    merged = out / "merged.profdata"
    sources = [str(HEAD_TREE / "src" / name) for name in mutate_tool.core_files(HEAD_TREE / "src")
               if (HEAD_TREE / "src" / name).is_file()]
    sections = []
    try:
        subprocess.run(["llvm-profdata-19", "merge", "-sparse", "-o", str(merged), *raw], check=True,
                       capture_output=True)
        lcov = subprocess.run(["llvm-cov-19", "export", str(binary), f"-instr-profile={merged}", "-format=lcov"],
                              check=True, capture_output=True, text=True, errors="replace").stdout
        for directory in sorted(p for p in profiles.iterdir() if p.is_dir()):
            own = sorted(map(str, directory.glob("*.profraw")))
            if not own or not sources:
                continue
            data = profiles / f"{directory.name}.profdata"
            subprocess.run(["llvm-profdata-19", "merge", "-sparse", "-o", str(data), *own], check=True,
                           capture_output=True)
            sections.append(tagged_lcov(directory.name, subprocess.run(
                ["llvm-cov-19", "export", str(binary), f"-instr-profile={data}", "-format=lcov", *sources],
                check=True, capture_output=True, text=True, errors="replace").stdout))
    except (OSError, subprocess.CalledProcessError) as error:
        raise Failure(f"merging or exporting the coverage failed (llvm-profdata-19/llvm-cov-19 from llvm-19): "
                      f"{getattr(error, 'stderr', '') or error}")
    (out / "coverage.lcov").write_text(lcov)
    (out / "coverage-targets.lcov").write_text("".join(sections))
    shutil.rmtree(profiles, ignore_errors=True)
    return parse_lcov(lcov, HEAD_TREE)


def tagged_lcov(target, text):
    """An lcov export of one target's counters with "TN:<target>" before its records (any test name llvm-cov wrote
    replaced): a section of coverage-targets.lcov, read by make mutate --reach-lcov as that target's reach."""
    lines = [line for line in text.splitlines() if not line.startswith("TN:")]
    return "".join(f"TN:{target}\n" + "".join(f"{line}\n" for line in record.strip("\n").splitlines())
                   + "end_of_record\n" for record in "\n".join(lines).split("end_of_record") if record.strip())


def parse_lcov(text, tree):
    """{path relative to tree: {line: count}} from lcov DA records of the files under `tree`."""
    counts, current = {}, None
    tree = Path(tree).resolve()
    for line in text.splitlines():
        if line.startswith("SF:"):
            path = Path(line[3:]).resolve()
            current = str(path.relative_to(tree)) if path.is_relative_to(tree) else None
        elif line.startswith("DA:") and current:
            number, count = line[3:].split(",")[:2]
            lines = counts.setdefault(current, {})
            lines[int(number)] = max(lines.get(int(number), 0), int(count))
        elif line == "end_of_record":
            current = None
    return counts


def classify(changed, counts):
    """Per changed file: each line reached (count > 0), not reached (a counter at 0), or no counter (not code, or
    code this build never compiles, such as a template nothing instantiates)."""
    result = {}
    for name, lines in changed.items():
        if name not in counts:  # the coverage build has no record of the file: nothing about its lines is known
            result[name] = {"reached": [], "not_reached": [], "no_counter": [], "counts": {}, "unmeasured": lines}
            continue
        file_counts = counts[name]
        entry = {"reached": [], "not_reached": [], "no_counter": [], "counts": {}, "unmeasured": []}
        for line in lines:
            if line not in file_counts:
                entry["no_counter"].append(line)
            else:
                entry["counts"][str(line)] = file_counts[line]
                entry["reached" if file_counts[line] > 0 else "not_reached"].append(line)
        result[name] = entry
    return result


# -- phase 5: the verdict ------------------------------------------------------------------------------------------

# -- the findings on BASE ------------------------------------------------------------------------------------------

BASE_DIFFERENCE = "(HEAD vs BASE)"  # in the headline of a report of HEAD differing from BASE (fuzz_targets/registry.cpp)


def base_difference(row):
    """A finding that is HEAD differing from BASE: its report's HEAD, BASE and reference lines, as
    row["base_difference"] ({"head", "base", "reference", "agrees", "observation"}); None for any other finding."""
    report = row.get("report", [])
    if not any(BASE_DIFFERENCE in line for line in report[:2]) and BASE_DIFFERENCE not in (row.get("what") or ""):
        return None
    found = {}
    for line in report:
        for key, prefix in (("observation", "observation "), ("head", "HEAD: "), ("base", "BASE: "),
                            ("reference", "reference: "), ("agrees", "the reference agrees with: ")):
            if line.startswith(prefix) and key not in found:
                found[key] = line[len(prefix):].strip()
    row["base_difference"] = found
    return found


def on_base(results, jobs):
    """Each failing input replayed on BASE alone (the review's fuzz binary with SERDIFF_BASE_ALONE=1: BASE is built
    once, into libcore_base.so): row["in_base"] True when BASE fails on it the same way (not the change's). A finding
    that is HEAD differing from BASE is the change's by definition."""
    for row in results.get("replay", []) + results.get("fuzz", []):
        if not row["ok"] and base_difference(row) is not None:
            row["in_base"] = False
    failing = [row for row in results.get("replay", []) + results.get("fuzz", [])
               if not row["ok"] and "base_difference" not in row and row.get("input")
               and Path(ROOT / row["input"]).is_file()]
    if not failing:
        return
    binary = FUZZ_BUILD / "bin" / "core_fuzz_replay"
    log(f"findings: {len(failing)} failing input(s); replaying them on BASE alone ({shown(binary)}, "
        f"SERDIFF_BASE_ALONE=1) to see whether BASE fails on them too ...")
    for row in failing:
        try:
            result = subprocess.run([str(binary), "--target", row["target"], str(ROOT / row["input"])],
                                    capture_output=True, text=True, errors="replace",
                                    env={**fuzz_run.sanitizer_environment(), "SERDIFF_BASE_ALONE": "1"},
                                    timeout=INPUT_TIMEOUT)
            base_head = report_head(result.stdout + result.stderr)[:1] if result.returncode != 0 else []
        except subprocess.TimeoutExpired:
            base_head = ["timeout"]
        # BASE has the finding only if it fails the same way (the same report headline); a BASE that fails
        # otherwise on this input does not excuse HEAD's failure.
        row["in_base"] = bool(base_head) and base_head == [line for line in row.get("report", [])[:1]]
        if base_head and not row["in_base"]:
            row["base_fails_otherwise"] = base_head[0]
        row["base_replay"] = f"SERDIFF_BASE_ALONE=1 {shown(binary)} --target {row['target']} {row['input']}"
        log(f"findings: {row['target']} {row['input']}: " + ("BASE fails on it too (not introduced by the change)"
                                                             if row["in_base"] else "BASE agrees: new in HEAD"))


def finding_details(row):
    """The input's first bytes in hex and the report's first-difference line, for the report."""
    path = ROOT / row["input"] if row.get("input") else None
    if path is not None and path.is_file():
        data = path.read_bytes()
        row["input_size"] = len(data)
        row["input_hex"] = data[:512].hex() + ("..." if len(data) > 512 else "")
    for line in row.get("report", []):
        if "first difference" in line or "first differing" in line or "rejected" in line or "runtime error" in line:
            row["first_difference"] = line.strip()
            break


def minimize(binary, row, seconds=30):
    """libFuzzer's -minimize_crash on a fuzz finding (bounded): the smallest input that still fails."""
    if not row.get("input") or not (ROOT / row["input"]).is_file():
        return
    target_out = ROOT / row["input"]
    minimized = target_out.with_name(target_out.name + ".min")
    options = fuzz_run.target_options(binary)[row["target"]]
    command = [str(binary), "-minimize_crash=1", f"-max_total_time={seconds}", f"-exact_artifact_path={minimized}",
               f"-max_len={options['max_len']}", "-timeout=30", *options["libfuzzer_flags"].split(), str(target_out)]
    try:
        subprocess.run(command, capture_output=True, env={**fuzz_run.sanitizer_environment(), "FUZZ": row["target"]},
                       timeout=seconds * 4)
    except subprocess.TimeoutExpired:
        return
    if minimized.is_file() and minimized.stat().st_size < target_out.stat().st_size:
        row["minimized"] = str(shown(minimized))
        row["minimized_size"] = minimized.stat().st_size
        row["minimized_replay"] = f"{shown(FUZZ_BUILD / 'bin' / 'core_fuzz_replay')} --target {row['target']} " \
                                  f"{shown(minimized)}"


# -- phase 5: mutation of the changed lines --------------------------------------------------------------------------

def mutation_plan(changed):
    """(--files, --lines, changed files make mutate does not mutate) for the changed lines."""
    relative = {name.removeprefix("src/"): lines for name, lines in changed.items()}
    mutable = mutate_tool.core_files(HEAD_TREE / "src")
    mutated = {name: lines for name, lines in relative.items() if name in mutable}
    files = " ".join(mutated)
    lines = " ".join(f"{name}:{ranges(numbers)}" for name, numbers in mutated.items())
    return files, lines, sorted(f"src/{name}" for name in relative if name not in mutable)


def reach_lcov(out):
    """The review's own coverage of HEAD for the mutation phase: per target (coverage-targets.lcov), else merged
    (coverage.lcov: every target runs on a mutant of a reached line); None before the coverage phase wrote one."""
    for name in ("coverage-targets.lcov", "coverage.lcov"):
        if (out / name).is_file() and (out / name).stat().st_size:
            return out / name
    return None


def mutation_command(changed, seconds, lcov=None, triage=None):
    """make mutate SUBJECT=core on the changed lines; with `lcov` (reach_lcov) its reach is the review's coverage of
    HEAD, not a coverage build of its own: a mutant of a line the review counted as reached is never "not reached".
    Its report's triage is the review's (TRIAGE=), else none: tools/mutate/triage-core.tsv names mutants of the pinned
    tree, whose ids a change's mutants reuse for other lines."""
    files, lines, _ = mutation_plan(changed)
    return (["python3", "tools/mutate/mutate.py", "run", "--subject", "core", "--core-src", str(shown(HEAD_TREE)),
             "--files", files, "--lines", lines, "--time", str(seconds), "--out", str(shown(MUTATION_WORK)),
             "--jobs", "1", "--triage", str(shown(Path(triage).resolve())) if triage else "/dev/null"]
            + (["--reach-lcov", str(shown(Path(lcov).resolve()))] if lcov else []))


def unified(mutant):
    """A mutant as a one-line unified diff of its file."""
    name = f"src/{mutant['file']}"
    return (f"--- a/{name}\n+++ b/{name} (mutant {mutant['id']})\n@@ -{mutant['line']} +{mutant['line']} @@\n"
            f"-{mutant.get('original', '')}\n+{mutant.get('mutated', '')}\n")


def mutant_row(mutant):
    """make mutate's report entry as the review's (the keys the HTML page reads)."""
    status = mutant["status"]
    if status == "survived" and mutant.get("not_reached"):
        status = "not reached"
    killed = status == "killed"
    return {"id": mutant["id"], "file": f"src/{mutant['file']}", "line": mutant["line"],
            "original": mutant.get("original", ""), "mutated": mutant.get("mutated", ""), "status": status,
            "operator": mutant.get("operator", ""), "targets": mutant.get("targets", []),
            "killed_by": mutant.get("target") if killed else None,
            # killed only by a target whose corpus already fails on HEAD (its check: "HEAD already failing: ...")
            "head_already_failing": killed and bool(mutant.get("head_failing")),
            "how": mutant.get("phase") if killed else None,
            "detail": (mutant.get("check") if killed else mutant.get("detail")) or "", "diff": unified(mutant)}


TRIAGE_VERDICTS = ("equivalent", "open")
# A row "base:TARGET<TAB>intended<TAB>reason" of the same file accepts TARGET's HEAD-vs-BASE differences (a change of
# behaviour the pull request means to make): listed in the notes, not failing the review.
BASE_TRIAGE_VERDICTS = ("intended",)


def apply_triage(entry, path, results=None):
    """The reviewer's triage of surviving mutants (TRIAGE=FILE, make mutate's triage.tsv format: id, verdict, reason):
    a survivor with a row keeps its status and gains "triage" (verdict, reason), and no longer fails the review;
    rows naming no survivor of this run are listed in entry["triage_unused"] (a stale triage is visible)."""
    if not path:
        return
    path = Path(path)
    if not path.is_file():
        raise Failure(f"TRIAGE={path}: no such file (tab-separated: mutant id, verdict, reason; "
                      f"verdicts {' or '.join(TRIAGE_VERDICTS)})")
    rows = mutate_tool.load_triage(path)
    for mutant_id, (verdict, _) in rows.items():
        allowed = BASE_TRIAGE_VERDICTS if mutant_id.startswith("base:") else TRIAGE_VERDICTS
        if verdict not in allowed:
            raise Failure(f"TRIAGE={path}: {mutant_id}: verdict {verdict!r} is not {' or '.join(allowed)}")
    if results is not None:
        results["base_triage"] = {mutant_id[5:]: {"verdict": verdict, "reason": reason}
                                  for mutant_id, (verdict, reason) in rows.items() if mutant_id.startswith("base:")}
    rows = {mutant_id: row for mutant_id, row in rows.items() if not mutant_id.startswith("base:")}
    survivors = {m["id"]: m for m in entry.get("mutants", []) if m["status"] in ("survived", "not reached")}
    for mutant_id, (verdict, reason) in rows.items():
        if mutant_id in survivors:
            survivors[mutant_id]["triage"] = {"verdict": verdict, "reason": reason}
    entry["triage_file"] = str(shown(path.resolve()))
    entry["triage_unused"] = sorted(set(rows) - set(survivors))


def mutation(changed, seconds, out, triage=None):
    """make mutate SUBJECT=core on exactly the changed lines (every mutant there): the review's "mutation" entry."""
    files, lines, unmutated = mutation_plan(changed)
    command = mutation_command(changed, seconds, reach_lcov(out), triage)
    shown_command = " ".join(f"'{c}'" if " " in c or ":" in c else c for c in command)
    entry = {"status": NOT_MEASURED, "command": shown_command, "unmutated_files": unmutated}
    if not files:
        entry["message"] = (f"no changed line in the files make mutate SUBJECT=core mutates "
                            f"({' '.join(mutate_tool.core_files(HEAD_TREE / 'src'))})")
        return entry
    report = MUTATION_WORK / "report.json"
    report.unlink(missing_ok=True)
    log_path = out / "mutation.log"
    log(f"phase 5/7 mutation: {shown_command} (log: {shown(log_path)})")
    with open(log_path, "w") as log_file:
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   errors="replace")
        for line in process.stdout:
            log_file.write(line)
            log_file.flush()
            if re.search(r"mutate: \S+#\d+ line|generated|Core-backed targets|LEFT OUT|HEAD FAILING|reach from|progress|\d+/\d+ done", line):
                log(f"phase 5/7 mutation: {line.strip().removeprefix('mutate: ')}")
        process.wait()
    if process.returncode != 0 or not report.is_file():
        tail = log_path.read_text(errors="replace").strip().splitlines()[-6:]
        entry.update({"status": "error", "message": f"make mutate failed (status {process.returncode}): "
                      + " | ".join(tail)})
        return entry
    data = json.loads(report.read_text())
    mutants = [mutant_row(m) for m in data.get("mutants", []) if m.get("status") != "pending"]
    summary = {key: data.get(key) for key in ("generated", "selected", "invalid", "equivalent", "errors", "killed",
                                               "survived", "survived_not_reached", "score",
                                               # what judging them cost (make mutate's ways: quick check, schemata
                                               # binary, rebuild per mutant), the schemata builds apart
                                               "job_seconds_per_processed", "per_way", "schemata_build_seconds")}
    summary["not_reached"] = summary.pop("survived_not_reached")
    entry.update({"status": "measured", "summary": summary, "mutants": mutants,
                  "left_out_targets": data.get("config", {}).get("left_out_targets", {}),
                  "head_failing_targets": data.get("config", {}).get("head_failing_targets", {}),
                  "report": str(shown(out / "mutation" / "report.md"))})
    (out / "mutation").mkdir(parents=True, exist_ok=True)
    for name in ("report.md", "report.json", "index.html"):
        if (MUTATION_WORK / name).is_file():
            shutil.copy(MUTATION_WORK / name, out / "mutation" / name)
    return entry


# -- phase 6: BASE against HEAD, Core's own serialization benchmarks --------------------------------------------------

def bench(out, jobs, rounds):
    """tools/review/bench_compare.py on the two exports: the review's "bench" entry."""
    try:
        import bench_compare  # noqa: E402  (tools/review/bench_compare.py)
    except ImportError as error:
        return {"status": "error", "message": f"tools/review/bench_compare.py: {error}"}
    return bench_compare.compare(BASE_TREE, HEAD_TREE, out / "bench", jobs=jobs, rounds=rounds,
                                 log=lambda message: log(f"phase 6/7 bench: {message}"))


def excerpts(changed, context=2):
    """{file: [[line, text], ...]}: the changed lines of the HEAD export with `context` lines around them."""
    out = {}
    for name, lines in changed.items():
        path = HEAD_TREE / name
        if not path.is_file():
            continue
        text = path.read_text(errors="replace").splitlines()
        keep = sorted({n for line in lines for n in range(line - context, line + context + 1) if 1 <= n <= len(text)})
        out[name] = [[n, text[n - 1]] for n in keep]
    return out


def verdict(results):
    """(exit status, reasons) of a review's results: 1 when a target failed (replay or fuzz) on an input BASE does
    not fail on, a changed code line was not reached, a mutant of a changed line survived, a case runs more than
    1/SLOWER_INSTRUCTIONS times BASE's instructions, or a measurement failed; else 0. A finding BASE has too is
    listed (notes) without failing the change."""
    reasons, notes, failed, old = [], [], {}, {}
    for step, row in [("replay", r) for r in results.get("replay", [])] + [("fuzz", r) for r in results.get("fuzz", [])]:
        if not row["ok"]:
            (old if row.get("in_base") else failed).setdefault(row["target"], []).append(
                f"{step}: {row.get('input', '?')}")
    what = {row["target"]: row.get("what") for row in results.get("fuzz", []) if not row["ok"]}
    accepted = results.get("base_triage", {})
    for target in list(failed):
        rows = [r for r in results.get("replay", []) + results.get("fuzz", [])
                if r["target"] == target and not r["ok"] and not r.get("in_base")]
        if target in accepted and rows and all(r.get("base_difference") is not None for r in rows):
            notes.append(f"{target}: HEAD differs from BASE, triaged {accepted[target]['verdict']}: "
                         f"{accepted[target]['reason']}; " + "; ".join(failed.pop(target)))
    for target, steps in failed.items():
        reasons.append(f"{target}: finding{' (' + what[target] + ')' if what.get(target) else ''}; "
                       + "; ".join(steps))
    for target, steps in old.items():
        notes.append(f"{target}: finding that BASE has too (not introduced by the change); " + "; ".join(steps))
    for name, entry in results.get("coverage", {}).items():
        if entry["not_reached"]:
            reasons.append(f"{name}: changed code line(s) {ranges(entry['not_reached'])} not reached")
        if entry.get("unmeasured"):
            reasons.append(f"{name}: no coverage record of the file (not compiled into the Core subject, or not "
                           f"instrumented): line(s) {ranges(entry['unmeasured'])} unmeasured")
    mutation_entry = results.get("mutation", {})
    errored = [m["id"] for m in mutation_entry.get("mutants", []) if m["status"] == "error"]
    if errored:
        reasons.append(f"{len(errored)} mutant(s) could not be judged (their run failed: see the mutation report): "
                       + " ".join(errored[:10]) + (" ..." if len(errored) > 10 else ""))
    if mutation_entry.get("status") == "error":
        reasons.append(f"mutation analysis failed: {mutation_entry.get('message', '')}")
    survivors = [m for m in mutation_entry.get("mutants", []) if m["status"] in ("survived", "not reached")
                 and not m.get("triage")]
    triaged = [m for m in mutation_entry.get("mutants", []) if m.get("triage")]
    if triaged:
        by_verdict = {}
        for m in triaged:
            by_verdict.setdefault(m["triage"]["verdict"], []).append(m["id"])
        notes.append(f"{len(triaged)} surviving mutant(s) triaged in {mutation_entry.get('triage_file')} (each "
                     f"reason beside its diff): " + "; ".join(f"{verdict} {' '.join(ids)}"
                                                             for verdict, ids in sorted(by_verdict.items())))
    already = [m["id"] for m in mutation_entry.get("mutants", []) if m.get("head_already_failing")]
    if already:
        notes.append(f"{len(already)} mutant(s) killed, HEAD already failing (only a target whose corpus fails on "
                     f"HEAD told them apart): " + " ".join(already[:10]) + (" ..." if len(already) > 10 else ""))
    if mutation_entry.get("triage_unused"):
        notes.append(f"triage rows that name no survivor of this run (stale?): {' '.join(mutation_entry['triage_unused'])}")
    if survivors:
        reasons.append(f"{len(survivors)} mutant(s) of the changed lines survived: "
                       + ", ".join(f"{m['id']} ({m['file']}:{m['line']}{', not reached' if m['status'] == 'not reached' else ''})"
                                   for m in survivors[:10]) + (" ..." if len(survivors) > 10 else ""))
    if mutation_entry.get("unmutated_files") and mutation_entry.get("status") != NOT_MEASURED:
        notes.append(f"not mutated (not one of make mutate's Core files): {' '.join(mutation_entry['unmutated_files'])}")
    bench_entry = results.get("bench", {})
    if bench_entry.get("status") == "error":
        message = bench_entry.get("message", "")
        check = re.search(r"benchmark self-check failed: (.*)", message)
        if check:  # the benchmark's own output check (bench/core_cases.cpp) refused what one side wrote or read
            side = re.search(r"--name=(\w+)", message)
            side = side.group(1).upper() if side else "a side"
            reasons.append(f"benchmark not timed: {side} fails the benchmark's own output check "
                           f"({check.group(1).strip()}): its bytes differ from what the case expects; {message}")
        else:
            reasons.append(f"benchmark failed: {message}")
    if bench_entry.get("status") == "measured" and any(row.get("instruction_ratio") is None
                                                        for row in bench_entry.get("rows", [])):
        reasons.append("benchmark: instructions not counted, so a slowdown cannot be judged: "
                       + (bench_entry.get("message") or "callgrind gave no count"))
    for row in bench_entry.get("rows", []):
        ratio = row.get("instruction_ratio")
        if ratio is not None and ratio <= SLOWER_INSTRUCTIONS:
            reasons.append(f"slower: {row['group']} {row['block']} ({row.get('what', '')}) runs {1 / ratio:.2f}x "
                           f"BASE's instructions")
    results["notes"] = notes
    return (1 if reasons else 0), reasons


def table(header, rows):
    widths = [max(len(str(x[i])) for x in rows + [header]) for i in range(len(header))]
    out = ["| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join(out)


def ratio_cell(value):
    return "-" if value is None else f"{value:.2f}x"


def render(results):
    """The verdict tables: per target, per changed file, mutants, benchmark, findings, then the reasons."""
    replays = {row["target"]: row for row in results.get("replay", [])}
    fuzzes = {row["target"]: row for row in results.get("fuzz", [])}
    mutation_entry, bench_entry = results.get("mutation", {}), results.get("bench", {})
    mutants = mutation_entry.get("mutants", [])
    rows = []
    for target in results.get("targets", []):
        replayed, fuzzed = replays.get(target), fuzzes.get(target)
        replay_cell = "-" if replayed is None else (f"agrees ({replayed['files']} inputs)" if replayed["ok"] else
                                                     "FINDING" + (" (BASE too)" if replayed.get("in_base") else ""))
        fuzz_cell = "-" if fuzzed is None else (f"agrees ({fuzzed['execs']} execs)" if fuzzed["ok"]
                                                else f"FINDING{' (BASE too)' if fuzzed.get('in_base') else ''}: "
                                                     f"{(fuzzed.get('what') or '')[:60]}")
        differences = [r for r in (replayed, fuzzed) if r is not None and r.get("base_difference") is not None]
        base_cell = ("-" if not results.get("base_compared") else
                     "not in BASE (reference only)" if target in results.get("base_lacks", ()) else
                     f"DIFFERS: {differences[0]['base_difference'].get('observation', '')[:50]}" if differences else
                     "same" if all(r is not None and r["ok"] for r in (replayed, fuzzed)) else "-")
        kills = sum(1 for m in mutants if m.get("killed_by") == target)
        mutation_cell = (f"kills {kills}" if mutation_entry.get("status") == "measured" else
                         mutation_entry.get("status", NOT_MEASURED))
        rows.append((target, replay_cell, fuzz_cell, base_cell, mutation_cell))
    out = [table(("target", "corpus replay", f"fuzz {results.get('time', '?')} s", "same as BASE",
                  "mutants of changed lines"), rows)]
    for row in results.get("replay", []) + results.get("fuzz", []):
        found = row.get("base_difference")
        if found is not None:
            out.append(f"HEAD differs from BASE in {row['target']} ({row.get('input', '?')}): observation "
                       f"{found.get('observation', '?')}\n  HEAD:      {found.get('head', '?')}\n  BASE:      "
                       f"{found.get('base', '?')}\n  reference: {found.get('reference', '?')}"
                       + (f"\n  the reference agrees with: {found['agrees']}" if found.get("agrees") else ""))
    file_rows = []
    for name, entry in results.get("coverage", {}).items():
        on_file = [m for m in mutants if m["file"] == name]
        counts = {status: sum(1 for m in on_file if m["status"] == status)
                  for status in ("killed", "survived", "not reached", "invalid", "equivalent")}
        file_rows.append((name, len(entry["reached"]) + len(entry["not_reached"]) + len(entry["no_counter"])
                          + len(entry.get("unmeasured", [])), ranges(entry["reached"]) or "-",
                          ranges(entry["not_reached"]) or "-", ranges(entry["no_counter"]) or "-",
                          ranges(entry.get("unmeasured", [])) or "-",
                          (f"{counts['killed']} killed, {counts['survived'] + counts['not reached']} survived "
                           f"({counts['invalid']} invalid, {counts['equivalent']} equivalent left out)")
                          if mutation_entry.get("status") == "measured" else mutation_entry.get("status", NOT_MEASURED)))
    if file_rows:
        out.append(table(("changed file", "lines", "reached", "NOT reached", "no counter (not code)",
                          "UNMEASURED (no record of the file)", "mutants"), file_rows))
    if mutation_entry.get("status") == "measured":
        summary = mutation_entry.get("summary", {})
        out.append(f"mutation ({mutation_entry['command']}): {summary.get('generated')} mutants of the changed lines, "
                   f"{summary.get('invalid')} invalid, {summary.get('equivalent')} equivalent, {summary.get('killed')} "
                   f"killed, {(summary.get('survived') or 0)} survived ({summary.get('not_reached')} of them not "
                   f"reached); score {summary.get('score')}")
        killed_rows = [(m["id"], f"{m['file']}:{m['line']}", m["status"],
                        (f"{m['killed_by']} ({m['how']}): {m['detail']}" if m["status"] == "killed" else m["detail"])[:90])
                       for m in mutants if m["status"] in ("killed", "survived", "not reached", "error")]
        if killed_rows:
            out.append(table(("mutant", "line", "status", "killed by / why it survived"), killed_rows))
        for m in mutants:
            if m["status"] in ("survived", "not reached"):
                triage = (f" (triaged {m['triage']['verdict']}: {m['triage']['reason']})" if m.get("triage") else "")
                out.append(f"surviving mutant {m['id']}{triage}:\n"
                           + "".join(f"  {line}\n" for line in m["diff"].splitlines()))
    elif mutation_entry:
        out.append(f"mutation: {mutation_entry.get('status')}: {mutation_entry.get('message', '')}")
    if bench_entry.get("status") == "measured":
        bench_rows = [(row["group"], row["block"], row.get("what", ""), f"{row['base_ns'] / 1e3:.1f}",
                       f"{row['head_ns'] / 1e3:.1f}", ratio_cell(row.get("speedup")),
                       ratio_cell(row.get("instruction_ratio"))) for row in bench_entry.get("rows", [])]
        out.append(table(("benchmark", "block", "case", "BASE us", "HEAD us", "speed-up (time)",
                          "speed-up (instructions)"), bench_rows)
                   + f"\n{bench_entry.get('rounds', '?')} interleaved rounds, load {bench_entry.get('load')} at the "
                     f"start, {bench_entry.get('load_after')} at the end; > 1x: HEAD faster"
                   + (f"\n{bench_entry['message']}" if bench_entry.get("message") else ""))
    elif bench_entry:
        out.append(f"benchmark: {bench_entry.get('status')}: {bench_entry.get('message', '')}")
    reported = set()
    for row in results.get("replay", []) + results.get("fuzz", []):
        if not row["ok"] and row["target"] not in reported:  # a target's first failure (its replay's, if any)
            reported.add(row["target"])
            out.append(f"finding in {row['target']}" + (" (BASE fails on it too)" if row.get("in_base") else
                                                         " (BASE agrees: new in HEAD)" if "in_base" in row else "")
                       + f": input {row.get('input', '?')}"
                       + (f" (minimized: {row['minimized']}, {row['minimized_size']} bytes)" if row.get("minimized")
                          else "")
                       + f"\n  replay: {row.get('minimized_replay') or row.get('replay', '-')}"
                       + "".join(f"\n  | {line}" for line in row.get("report", [])))
    status, reasons = verdict(results)
    for note in results.get("notes", []):
        out.append(f"note: {note}")
    out.append("verdict: " + ("nothing needs the reviewer's eyes (exit 0)" if status == 0 else
                              "needs the reviewer's eyes (exit 1):" + "".join(f"\n  - {r}" for r in reasons)))
    return "\n\n".join(out)


def write(results, out):
    """review.json, and index.html from it (tools/report/html.py; a page that cannot be written is said, the JSON
    stays)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "review.json").write_text(json.dumps(results, indent=2) + "\n")
    try:
        from importlib import util  # by path: tools/report/ is not put on sys.path (its html.py is not the stdlib's)
        spec = util.spec_from_file_location("serdiff_report_html", ROOT / "tools" / "report" / "html.py")
        module = util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.write_review_page(results, out / "index.html")
        return out / "index.html"
    except (OSError, ImportError, AttributeError) as error:
        log(f"review: the HTML page was not written ({type(error).__name__}: {error}); review.json has everything")
        return None


def finish(results, out):
    """The verdict into the results, review.json and the page written, the tables printed; the exit status."""
    status, reasons = verdict(results)
    results.update({"status": status, "reasons": reasons})
    page = write(results, out)
    print("\n" + render(results) + f"\n\nreview: everything in {shown(out / 'review.json')}"
          + (f", the page {shown(page)}" if page else "")
          + f"\nreview: exit status {status} (make reports any non-zero status as its own Error)", flush=True)
    return status


def reverdict(arguments, out):
    """--verdict-only: the verdict of the last review (out/review.json) again with the triage given, nothing rebuilt
    or re-run; refused when DIR's HEAD or BASE is not the one reviewed."""
    path = out / "review.json"
    if not path.is_file():
        raise Failure(f"--verdict-only (VERDICT_ONLY=1): no {shown(path)}: run the review first")
    try:
        results = json.loads(path.read_text())
    except ValueError as error:
        raise Failure(f"--verdict-only: {shown(path)} is not valid JSON ({error}): run the review again")
    if "status" not in results:
        raise Failure(f"--verdict-only: {shown(path)} is from a review that did not finish (no verdict was "
                      f"written): run the review again")
    tree = Path(arguments.core_src).expanduser().resolve()
    head, base, _ = resolve(tree, arguments.base or results.get("base"))
    if (head, base) != (results.get("head"), results.get("base")):
        raise Failure(f"--verdict-only: {shown(path)} reviewed {results.get('head', '?')[:12]} against "
                      f"{results.get('base', '?')[:12]}, not {head[:12]} against {base[:12]}: run the review again")
    entry = results.get("mutation", {})
    for m in entry.get("mutants", []):
        m.pop("triage", None)
    entry.pop("triage_unused", None)
    entry.pop("triage_file", None)
    results.pop("base_triage", None)
    apply_triage(entry, arguments.triage, results)
    log(f"verdict only: {shown(path)} of HEAD {head[:12]} against BASE {base[:12]}, triage "
        f"{arguments.triage or '(none)'}; nothing rebuilt or re-run")
    return finish(results, out)


def review(arguments):
    out = Path(arguments.out) if Path(arguments.out).is_absolute() else ROOT / arguments.out
    tree = Path(arguments.core_src).expanduser().resolve() if arguments.core_src else None
    if tree is None:
        raise Failure("CORE_SRC=DIR is required: a git checkout of Bitcoin Core (make review-core CORE_SRC=DIR "
                      "[BASE=REV] [TIME=S])")
    if arguments.triage:
        apply_triage({}, arguments.triage)  # a missing file or a bad verdict fails now, not after the mutants
    if arguments.time < 1 or arguments.rounds < 1:
        raise Failure(f"TIME and ROUNDS must be at least 1 (got TIME={arguments.time}, ROUNDS={arguments.rounds})")
    if arguments.verdict_only:
        return reverdict(arguments, out)
    if arguments.mutation_plan:
        return print_mutation_plan(tree, arguments.base)
    log(f"phase 1/7 export: resolving HEAD and BASE in {tree}")
    head, base, how = resolve(tree, arguments.base)
    # A new review starts from nothing: no page, verdict or phase output of the last one is left to be mistaken
    # for this one's (a review that stops with exit 2 once started leaves no review.json). A CORE_SRC or BASE
    # that does not resolve stops before this, and the last review's output stays.
    for stale in ("review.json", "index.html", "mutation.log", "coverage.lcov", "coverage-targets.lcov",
                  "merged.profdata"):
        (out / stale).unlink(missing_ok=True)
    for stale in ("mutation", "bench", "fuzz", "profiles"):
        shutil.rmtree(out / stale, ignore_errors=True)
    results = {"core_src": str(tree), "head": head, "base": base, "base_chosen_by": how, "time": arguments.time,
               "serialization_files": list(SERIALIZATION_FILES)}
    log(f"phase 1/7 export: HEAD {head[:12]}, BASE {base[:12]} ({how})")
    # The diff first (it reads only DIR's object store): with no changed serialization line nothing is exported.
    changed = diff_lines(tree, base, head)
    results["changed"] = changed
    if not changed:
        results.update({"status": 0, "reasons": [], "message": "no changed serialization lines"})
        write(results, out)
        log(f"no changed serialization lines between BASE {base[:12]} and HEAD {head[:12]} (files: "
            f"{' '.join(SERIALIZATION_FILES)}): nothing to review; {shown(out / 'review.json')}")
        return 0
    log(f"phase 1/7 export: git archive of both into {shown(HEAD_TREE)} and {shown(BASE_TREE)}")
    export(tree, head, HEAD_TREE)
    export(tree, base, BASE_TREE)
    log("phase 2/7 diff: git diff -U0 BASE HEAD over the serialization files")
    for name, lines in changed.items():
        log(f"phase 2/7 diff: {name}: {len(lines)} changed line(s): {ranges(lines)}")
    log(f"phase 3/7 fuzz: building the Core subject (ASan+UBSan, libFuzzer) in {shown(FUZZ_BUILD)} ...")
    binary, replay_binary = build_fuzz(arguments.jobs)
    targets = [name for name, options in fuzz_run.target_options(replay_binary).items()
               if options.get("subject") == "core"]
    results["targets"] = targets
    # Every target compares HEAD with BASE too (core_options): the binaries say so in --list --json.
    for built in (replay_binary, binary):
        unlinked = [name for name, options in fuzz_run.target_options(built).items()
                    if options.get("subject") == "core" and not options.get("compared_with_base")
                    and not options.get("base_lacks_target")]
        if unlinked:
            raise Failure(f"{shown(built)} does not compare {', '.join(unlinked)} with BASE (libcore_base.so not "
                          f"linked): a review would say 'same as BASE' unchecked")
    results["base_compared"] = True
    # Targets BASE's tree does not have (an older tree, as when the change adds the class): compared with the
    # reference alone, and the table says so instead of "same".
    results["base_lacks"] = sorted(name for name, options in fuzz_run.target_options(replay_binary).items()
                                   if options.get("base_lacks_target"))
    for name in results["base_lacks"]:
        log(f"phase 3/7 fuzz: BASE's tree has no {name}: HEAD's is compared with the reference alone")
    results["absent_targets"] = fuzz_run.absent_targets(replay_binary)
    log(f"phase 3/7 fuzz: built; {len(targets)} Core-backed targets: {' '.join(targets)}")
    results["replay"], results["fuzz"] = [], []
    for target in targets:
        row = replay(replay_binary, target)
        results["replay"].append(row)
        log(f"phase 3/7 fuzz: replay {target}: " + (f"agrees ({row['files']} inputs)" if row["ok"] else
                                                    f"FAILS on {row['input']}"))
    fuzz_out = out / "fuzz"
    shutil.rmtree(fuzz_out, ignore_errors=True)
    for target in targets:
        row = fuzz(binary, replay_binary, target, arguments.time, fuzz_out)
        results["fuzz"].append(row)
        log(f"phase 3/7 fuzz: fuzz {target} {arguments.time} s: " + (
            f"agrees ({row['execs']} execs)" if row["ok"] else f"FINDING: {row.get('what')} ({row.get('input')})"))
    log(f"phase 4/7 coverage: building core_fuzz_replay with -fprofile-instr-generate -fcoverage-mapping in "
        f"{shown(COVERAGE_BUILD)} ...")
    coverage_binary = build_coverage(arguments.jobs)
    inputs = {t: [ROOT / "corpora" / t, fuzz_out / t / "seeds" / "corpus"] for t in targets}
    log("phase 4/7 coverage: running the corpora and the fuzz step's new inputs through it")
    counts = collect_coverage(coverage_binary, inputs, out)
    results["coverage"] = classify(changed, counts)
    results["lcov"] = str(shown(out / "coverage.lcov"))
    results["lcov_targets"] = str(shown(out / "coverage-targets.lcov"))
    for name, entry in results["coverage"].items():
        log(f"phase 4/7 coverage: {name}: reached {ranges(entry['reached']) or '-'}; not reached "
            f"{ranges(entry['not_reached']) or '-'}; no counter {ranges(entry['no_counter']) or '-'}")
    results["excerpts"] = excerpts(changed)
    for row in results["replay"] + results["fuzz"]:
        if not row["ok"]:
            finding_details(row)
    for row in results["fuzz"]:
        if not row["ok"] and row.get("input"):
            minimize(binary, row)
    on_base(results, arguments.jobs)
    if arguments.triage:
        apply_triage({}, arguments.triage, results)  # the rows accepting HEAD-vs-BASE differences (base:TARGET)
    write(results, out)  # what is known so far, should a later phase take long or fail
    if arguments.no_mutation:
        results["mutation"] = {"status": NOT_MEASURED, "message": "--no-mutation (MUTATION=0)",
                               "command": " ".join(mutation_command(changed, arguments.time, reach_lcov(out),
                                                                    arguments.triage))}
    else:
        log("phase 5/7 mutation: every mutant of the changed lines (invalid and equivalent ones removed) ...")
        results["mutation"] = mutation(changed, arguments.time, out, arguments.triage)
        apply_triage(results["mutation"], arguments.triage, results)
        summary = results["mutation"].get("summary", {})
        log(f"phase 5/7 mutation: {results['mutation']['status']}: " + (
            f"{summary.get('killed')} killed, {summary.get('survived')} survived, {summary.get('invalid')} invalid, "
            f"{summary.get('equivalent')} equivalent" if summary else results["mutation"].get("message", "")))
    write(results, out)
    if arguments.no_bench:
        results["bench"] = {"status": NOT_MEASURED, "message": "--no-bench (BENCH=0)"}
    else:
        log(f"phase 6/7 bench: serdiff_bench_core from BASE and from HEAD, {arguments.rounds} interleaved rounds, "
            f"callgrind ...")
        results["bench"] = bench(out, arguments.jobs, arguments.rounds)
        log(f"phase 6/7 bench: {results['bench'].get('status')} {results['bench'].get('message', '')}")
    log("phase 7/7 verdict")
    return finish(results, out)


def print_mutation_plan(tree, base):
    """--mutation-plan: the mutation phase's make mutate arguments for the change, one key=value per line on stdout
    (GITHUB_OUTPUT's format: .github/workflows/review-mutation.yml shards the phase over a matrix with them). HEAD is
    exported (build/review/head) for core_files' probe of the tree; nothing is built."""
    head, base, how = resolve(tree, base)
    changed = diff_lines(tree, base, head)
    if changed:
        export(tree, head, HEAD_TREE)
    files, lines, unmutated = mutation_plan(changed)
    print(f"review: mutation plan: HEAD {head[:12]}, BASE {base[:12]} ({how}): "
          f"{sum(len(v) for v in changed.values())} changed line(s) in {len(changed)} file(s); mutated: {files or 'none'}",
          file=sys.stderr, flush=True)
    print(f"head={head}\nbase={base}\nfiles={files}\nlines={lines}\nunmutated={' '.join(unmutated)}", flush=True)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--core-src", default="", metavar="DIR", help="a git checkout of Bitcoin Core (required)")
    parser.add_argument("--base", default="", metavar="REV",
                        help="the revision the change is reviewed against (default: the merge-base of HEAD with the "
                             "upstream or default branch, else HEAD~1)")
    parser.add_argument("--time", type=int, default=10, help="seconds of fuzzing per Core-backed target (default 10)")
    parser.add_argument("--jobs", type=int, default=2, help="build parallelism (default 2)")
    parser.add_argument("--out", default="review-out", help="where review.json goes (default review-out)")
    parser.add_argument("--no-mutation", action="store_true", help="skip the mutation analysis (MUTATION=0)")
    parser.add_argument("--no-bench", action="store_true", help="skip the BASE/HEAD benchmark (BENCH=0)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved benchmark rounds (default 5)")
    parser.add_argument("--verdict-only", action="store_true",
                        help="the last review's verdict again (review-out/review.json) with --triage applied, "
                             "nothing rebuilt or re-run (VERDICT_ONLY=1)")
    parser.add_argument("--mutation-plan", action="store_true",
                        help="print the mutation phase's FILES and LINES for the change (key=value lines) and stop")
    parser.add_argument("--triage", default="", metavar="FILE",
                        help="the reviewer's triage of surviving mutants (TRIAGE=FILE; tab-separated id, verdict "
                             "equivalent|open, reason): a triaged survivor is shown with its reason and does not "
                             "fail the review")
    arguments = parser.parse_args(argv)
    try:
        return review(arguments)
    except Failure as error:
        print(f"review: error: {error}", file=sys.stderr, flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
