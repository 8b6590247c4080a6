#!/usr/bin/env python3
"""make test-planted: proves the fuzz targets find the planted bugs of tests/planted/bugs.tsv.

For each bug whose detector is a fuzz target: reconfigure build/planted (libFuzzer + ASan + UBSan,
RelWithDebInfo, only the bug's target, SERDIFF_PLANTED_BUG=<bug>, which reaches only what links the optimized
side, so only that recompiles), build the engine binary,
fuzz the target from its committed seeds until the first crash or the budget, and print a table
bug → target → detected? → seconds / execs to detection. Exit status 1 when a bug was missed.

With --subject core (make test-planted SUBJECT=core [CORE_SRC=DIR]) the defects are patches to Bitcoin Core's
own files (tests/planted/core/defects.tsv and <name>.patch): each is applied to a copy of the Core tree's src/
(build/planted-core/<name>/src; the tree given, or the pinned sdist, is never written), which
build/planted-core-build compiles into core_fuzz_libfuzzer; the unplanted tree's detector targets are fuzzed
first for --control seconds, where any crash is a false positive (docs/planted.md).

  tools/fuzz/planted.py run [--budget 120] [--bugs a,b] [--jobs 2] [--from-nothing]
                            [--subject core [--core-src DIR] [--control 30]]
  tools/fuzz/planted.py --check    # every bug of the manifest is hooked in serialize/, every hook is a bug;
                                   # every Core defect patch has a row of its manifest and the reverse
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as fuzz_run  # noqa: E402  (target options, RSS limit, the same libFuzzer flags as make fuzz)
import subject  # noqa: E402  (--subject/--core-src: serdiff's planted bugs or Core's planted defects)

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "planted"
OUT = ROOT / "fuzz-out" / "planted"

MANIFEST = ROOT / "tests" / "planted" / "bugs.tsv"
CORE_DEFECTS = ROOT / "tests" / "planted" / "core"
CORE_MANIFEST = CORE_DEFECTS / "defects.tsv"
# --base-only: changes to Core that only a comparison of HEAD with its BASE can see (docs/base.md), each built as
# HEAD against the unplanted tree as BASE; a row whose expect is "quiet" (a behaviour-preserving refactor) must
# report nothing.
CORE_BASE_DEFECTS = ROOT / "tests" / "planted" / "core-base"
CORE_BASE_MANIFEST = CORE_BASE_DEFECTS / "defects.tsv"
CORE_COPIES = ROOT / "build" / "planted-core"      # <name>/src: the patched copies; current → the one built
CORE_BUILD = ROOT / "build" / "planted-core-build"
CORE_OUT = ROOT / "fuzz-out" / "planted-core"
CONTROL = "(unplanted)"


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


# bug → (OPTIMIZATIONS.md row, the fuzz target expected to find it), for the bugs make test-planted hunts; a
# detector "test:<gtest filter>" is kept as that string (the unit tests of serdiff_tests the bug must fail).
PLANTED = {name: (bug["row"], bug["detector"] if bug["kind"] == "target" else f"test:{bug['detector']}")
           for name, bug in manifest().items() if bug["kind"] in ("target", "test")}
TESTS_BUILD = ROOT / "build" / "planted-tests"


def log(message):
    print(message, flush=True)


def check():
    """Every bug of the manifest has a SERDIFF_PLANTED(name) hook in serialize/, every hook names a bug of the
    manifest, every detector exists in its form, and every OPTIMIZATIONS.md row has a bug; every Core defect
    patch is a row of tests/planted/core/defects.tsv and the reverse (check_core)."""
    bugs = manifest()
    sources = "".join(p.read_text() for directory in ("serialize", "crypto") for p in (ROOT / directory).iterdir()
                      if p.suffix in (".h", ".cpp") and p.name != "planted.h")
    hooks = set(re.findall(r"SERDIFF_PLANTED\((\w+)\)", sources))
    problems = [f"{name}: no SERDIFF_PLANTED({name}) hook in serialize/ or crypto/" for name in bugs
                if name not in hooks]
    problems += [f"SERDIFF_PLANTED({name}) in serialize/ or crypto/ is not a bug of {MANIFEST.relative_to(ROOT)}"
                 for name in sorted(hooks) if name not in bugs]
    jobs = {p.stem for p in (ROOT / "ci" / "jobs").glob("*.sh")} - {"lib"}
    for name, bug in bugs.items():
        if bug["kind"] == "job" and bug["detector"] not in jobs:
            problems.append(f"{name}: detector job:{bug['detector']} is not a job of ci/jobs/")
        if bug["kind"] == "job" and bug["expect"] == "-":
            problems.append(f"{name}: a CI-job defect needs the report headline its job must print")
        if bug["kind"] not in ("target", "job", "test"):
            problems.append(f"{name}: detector kind {bug['kind']} is none of target, job, test")
        if bug["kind"] == "test" and not re.fullmatch(r"[A-Za-z0-9_.*:-]+", bug["detector"]):
            problems.append(f"{name}: detector test:{bug['detector']} is not a gtest filter")
    rows = {bug["row"] for bug in bugs.values()}
    problems += [f"OPTIMIZATIONS.md row {row} has no planted bug" for row in range(1, 13) if str(row) not in rows]
    kinds = {kind: sum(bug["kind"] == kind for bug in bugs.values()) for kind in ("target", "test", "job")}
    print(f"planted: {len(bugs)} bugs in {MANIFEST.relative_to(ROOT)} ({kinds['target']} hunted by fuzz targets, "
          f"{kinds['test']} by unit tests, {kinds['job']} by CI jobs), {len(hooks)} hooks in serialize/ and crypto/")
    core_problems = check_core()
    print(f"planted: {len(core_defects(strict=False))} Core defects in {shown(CORE_MANIFEST)}, "
          f"{len(list(CORE_DEFECTS.glob('*.patch')))} patches in {shown(CORE_DEFECTS)}/")
    print(f"planted: {len(core_defects(strict=False, base_only=True))} changes for HEAD vs BASE in "
          f"{shown(CORE_BASE_MANIFEST)}, {len(list(CORE_BASE_DEFECTS.glob('*.patch')))} patches in "
          f"{shown(CORE_BASE_DEFECTS)}/")
    for problem in problems + core_problems:
        print(f"  FAIL {problem}")
    return 1 if problems or core_problems else 0


def core_defects(strict=True, base_only=False):
    """Every planted Core defect: name → {file (the Core file its patch changes), target, expect, what, patch}. The
    BASE-only manifest has a fourth column, expect: "found" or "quiet" (a refactor that must report nothing)."""
    manifest_path, directory = (CORE_BASE_MANIFEST, CORE_BASE_DEFECTS) if base_only else (CORE_MANIFEST, CORE_DEFECTS)
    columns = 5 if base_only else 4
    defects = {}
    for number, line in enumerate(manifest_path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != columns or (base_only and fields[3] not in ("found", "quiet")):
            if strict:
                sys.exit(f"planted: {manifest_path.relative_to(ROOT)}:{number}: expected {columns} tab-separated "
                         f"fields (name, Core file, target, {'expect (found or quiet), ' if base_only else ''}what)")
            continue
        name, core_file, target, what = fields[0], fields[1], fields[2], fields[-1]
        defects[name] = {"file": core_file, "target": target, "what": what,
                         "expect": fields[3] if base_only else "found", "patch": directory / f"{name}.patch"}
    return defects


def patch_facts(patch):
    """What a Core defect patch says of itself: the files it changes (its +++ lines) and its comment header's
    Core file and detector (the manifest is the source; the header is for a reader, so it must agree)."""
    text = patch.read_text()
    changed = re.findall(r"^\+\+\+ b/(\S+)", text, re.MULTILINE)
    header_file = re.search(r"^# Core file:\s+([^\s,]+)", text, re.MULTILINE)
    header_target = re.search(r"^# Detector:\s+(\w+)", text, re.MULTILINE)
    return changed, header_file and header_file.group(1), header_target and header_target.group(1)


def check_core():
    """Both Core defect manifests agree with their patches."""
    return check_core_manifest(False) + check_core_manifest(True)


def check_core_manifest(base_only):
    """A Core defects' manifest and patches agree: a row per patch and a patch per row, each patch changing
    exactly its row's Core file, its header naming that file and detector, the detector a real target."""
    manifest_path, directory = (CORE_BASE_MANIFEST, CORE_BASE_DEFECTS) if base_only else (CORE_MANIFEST, CORE_DEFECTS)
    columns = 5 if base_only else 4
    try:
        defects = core_defects(strict=False, base_only=base_only)
    except OSError as error:
        return [f"{shown(manifest_path)}: {error}"]
    problems = []
    lines = [line for line in manifest_path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    problems += [f"{shown(manifest_path)}: a row without {columns} tab-separated fields: {line[:60]}"
                 for line in lines if len(line.split("\t")) != columns]
    patches = {p.stem for p in directory.glob("*.patch")}
    problems += [f"{shown(directory)}/{name}.patch is not a row of {manifest_path.name}"
                 for name in sorted(patches - defects.keys())]
    problems += [f"Core defect {name}: no {shown(directory)}/{name}.patch"
                 for name in defects if name not in patches]
    targets = {path.stem for path in (ROOT / "fuzz_targets").glob("*.cpp")} | set(object_target_names())
    for name, defect in defects.items():
        if name not in patches:
            continue
        changed, header_file, header_target = patch_facts(defect["patch"])
        if changed != [defect["file"]]:
            problems.append(f"Core defect {name}: its patch changes {', '.join(changed) or 'nothing'}, "
                            f"the manifest says {defect['file']}")
        if header_file != defect["file"] or header_target != defect["target"]:
            problems.append(f"Core defect {name}: the patch's header says {header_file} / {header_target}, "
                            f"the manifest {defect['file']} / {defect['target']}")
        if defect["target"] not in targets:
            problems.append(f"Core defect {name}: detector {defect['target']} is not a fuzz target")
    return problems


def shown(path):
    """A path as messages show it: relative to the repository when it is inside."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def object_target_names():
    """The targets fuzz_targets/objects.cpp registers, one per X(...) line of model/codec_table.h."""
    return re.findall(r"X\(([a-z_0-9]+), [A-Za-z]+, [a-z_0-9]+\)", (ROOT / "model" / "codec_table.h").read_text())


def configure_and_build(directory, options, binary, jobs):
    """Configures `directory` as make test-planted's trees are (libFuzzer + ASan + UBSan, RelWithDebInfo, no tests,
    no peers, plus `options`) and builds `binary` in it."""
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(directory), "-G", "Ninja",
                    "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSERDIFF_SANITIZERS=address,undefined",
                    "-DSERDIFF_FUZZ_ENGINE=libfuzzer", "-DSERDIFF_BUILD_TESTS=OFF", "-DSERDIFF_PEERS=OFF", *options],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(directory), "-j", str(jobs), "--target", binary],
                   check=True, stdout=subprocess.DEVNULL)
    return directory / "bin" / binary


def build(bug, target, jobs):
    if target.startswith("test:"):
        return configure_and_build(TESTS_BUILD, ["-DSERDIFF_BUILD_TESTS=ON", f"-DSERDIFF_PLANTED_BUG={bug}"],
                                   "serdiff_tests", jobs)
    return configure_and_build(BUILD, [f"-DSERDIFF_FUZZ_ONLY_TARGETS={target}", f"-DSERDIFF_PLANTED_BUG={bug}"],
                               "serdiff_fuzz_libfuzzer", jobs)


def run_tests(bug, detector, binary, out=OUT):
    """A "test:<gtest filter>" detector: serdiff_tests built with the bug runs the filter, which must fail (and
    the filter must select tests: a filter matching nothing would pass and prove nothing)."""
    work = out / bug / "tests"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    gtest_filter = detector.removeprefix("test:")
    started = time.time()
    completed = subprocess.run([str(binary), f"--gtest_filter={gtest_filter}", "--gtest_color=no"],
                               env=fuzz_run.sanitizer_environment(), capture_output=True, text=True, cwd=work)
    seconds = time.time() - started
    text = completed.stdout + completed.stderr
    (work / "tests.log").write_text(text)
    ran = re.search(r"\[==========\] (\d+) tests? from", text)
    failed = re.findall(r"^\[  FAILED  \] (\w+\.\w+)", text, re.MULTILINE)  # not "[  FAILED  ] 3 tests, ..."
    if not ran or ran.group(1) == "0":
        sys.exit(f"planted: {bug}: the filter {gtest_filter} selects no test of {binary}")
    detected = completed.returncode != 0 and bool(failed)
    return {"bug": bug, "target": detector, "detected": detected, "seconds": seconds, "execs": int(ran.group(1)),
            "what": f"{len(set(failed))} of {ran.group(1)} tests failed: {sorted(set(failed))[0]}" if detected else "",
            "crash": None}


def apply_patch(patch, directory, tree, dry_run=False):
    """Applies a Core defect's patch exactly (no fuzz) in `directory`; exits with patch's own words if it does not
    apply. With dry_run nothing is written (so `directory` may be the user's tree)."""
    applied = subprocess.run(["patch", "-p1", "--forward", "--batch", "--fuzz=0", "--no-backup-if-mismatch",
                              "--reject-file=-", "-i", str(patch)] + (["--dry-run"] if dry_run else []),
                             cwd=directory, capture_output=True, text=True)
    if applied.returncode != 0:
        sys.exit(f"planted: {patch.relative_to(ROOT)} does not apply to {tree}/src:\n"
                 f"{applied.stdout}{applied.stderr}".rstrip())


def core_copy(name, tree, patch=None):
    """build/planted-core/<name>/src: a copy of the tree's src/ (modification times kept) with `patch` applied."""
    copy = CORE_COPIES / name
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(tree / "src", copy / "src", symlinks=True)
    if patch:
        apply_patch(patch, copy, tree)
    return copy


def build_core(copy, targets, jobs, base=None):
    """core_fuzz_libfuzzer of build/planted-core-build, compiled from `copy`. The tree always compiles
    build/planted-core/current (a link to the copy), so its compile commands never change and only what a patch
    touches recompiles: the files whose contents differ from what the tree last compiled get a new
    modification time (the copies keep the originals', which the objects are newer than)."""
    CORE_BUILD.mkdir(parents=True, exist_ok=True)
    link = CORE_COPIES / ".current.new"
    link.unlink(missing_ok=True)
    link.symlink_to(copy.name)
    os.replace(link, CORE_COPIES / "current")
    state = CORE_BUILD / "planted-core-sources.json"
    compiled = json.loads(state.read_text()) if state.exists() else {}
    contents = {}
    for path in sorted((copy / "src").rglob("*")):
        if path.is_file() and not path.is_symlink():
            relative = str(path.relative_to(copy))
            contents[relative] = hashlib.sha1(path.read_bytes()).hexdigest()
            if compiled.get(relative) != contents[relative]:
                os.utime(path)
    state.unlink(missing_ok=True)  # a failed build leaves no record: the next one refreshes every file
    binary = configure_and_build(CORE_BUILD, ["-DSERDIFF_SUBJECTS=serdiff;core",
                                              f"-DSERDIFF_CORE_SRC={CORE_COPIES / 'current'}",
                                              f"-DSERDIFF_FUZZ_ONLY_TARGETS={';'.join(sorted(set(targets)))}",
                                              f"-DSERDIFF_CORE_BASE_SRC={base or ''}"],
                                 "core_fuzz_libfuzzer", jobs)
    state.write_text(json.dumps(contents) + "\n")
    return binary


def hunt(bug, target, binary, budget, from_seeds=True, out=OUT):
    """Fuzzes `target` from its seeds (or from nothing) until the first crash or `budget` seconds."""
    work = out / bug / ("seeds" if from_seeds else "scratch")
    shutil.rmtree(work, ignore_errors=True)
    (work / "corpus").mkdir(parents=True)
    options = fuzz_run.target_options(binary)[target]
    command = [str(binary), f"-max_total_time={budget}", f"-rss_limit_mb={fuzz_run.RSS_LIMIT_MB}",
               f"-max_len={options['max_len']}", "-timeout=30",
               "-print_final_stats=1", f"-artifact_prefix={work}/"] + options["libfuzzer_flags"].split()
    dictionary = ROOT / "corpora" / "dicts" / f"{target}.dict"
    if dictionary.exists():
        command.append(f"-dict={dictionary}")
    # New inputs go to the first directory, a scratch one: corpora/ stays untouched.
    command += [str(work / "corpus")] + ([str(ROOT / "corpora" / target)] if from_seeds else [])
    started = time.time()
    with open(work / "fuzz.log", "w") as log_file:
        status = subprocess.run(command, env={**fuzz_run.sanitizer_environment(), "FUZZ": target}, stdout=log_file,
                                stderr=subprocess.STDOUT, cwd=work).returncode
    seconds = time.time() - started
    text = (work / "fuzz.log").read_text(errors="replace")
    crashes = (sorted(work.glob("crash-*")) + sorted(work.glob("oom-*")) + sorted(work.glob("timeout-*")) +
               sorted(work.glob("leak-*")))
    executed = re.search(r"stat::number_of_executed_units:\s+(\d+)", text)
    progress = re.findall(r"^#(\d+)\s", text, re.MULTILINE)
    execs = int(executed.group(1)) if executed else int(progress[-1]) if progress else 0
    headline = re.search(r"==== serdiff MISMATCH in (.*) ====", text)
    what = headline.group(1) if headline else ("sanitizer: " + m.group(1) if (m := re.search(
        r"ERROR: (\w+Sanitizer: [^\n]*)", text)) else m.group(0) if (m := re.search(
        r"Bitcoin Core assertion failed: [^\n]*|Assertion [^\n]* failed[^\n]*|runtime error: [^\n]*"
        r"|libFuzzer: deadly signal", text)) else "")
    detected = status != 0 and bool(crashes)
    return {"bug": bug, "target": target, "detected": detected, "seconds": seconds, "execs": execs,
            "what": what if detected else "", "crash": crashes[0] if crashes else None}


def outcome(row):
    if row is None:
        return "-"
    return (f"{row['seconds']:.1f} s / {row['execs']}" if row["detected"]
            else f"NOT FOUND in {row['seconds']:.0f} s / {row['execs']}")


def table(rows, header=("bug", "row"), column=lambda r: str(PLANTED[r["bug"]][0])):
    """The markdown table of the hunts: `header` names the first two columns, `column` gives the second's cell
    (the OPTIMIZATIONS.md row of a serdiff bug, the Core file of a Core defect)."""
    header = (*header, "target", "detected", "from seeds: s / execs", "from nothing: s / execs", "first report")
    lines = [(r["bug"], column(r), r["target"], "yes" if r["detected"] else "NO", outcome(r),
              outcome(r.get("scratch")), r["what"][:70]) for r in rows]
    widths = [max(len(x[i]) for x in lines + [header]) for i in range(len(header))]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in lines]
    return "\n".join(out)


def selected(names, known, what="bug"):
    """The --bugs names (all of `known` when none), each checked."""
    chosen = [b for b in re.split(r"[,\s]+", names) if b] or list(known)
    unknown = [b for b in chosen if b not in known]
    if unknown:
        sys.exit(f"planted: unknown {what}(s) {' '.join(unknown)}; known: {' '.join(known)}")
    return chosen


def hunt_each(bugs, targets, prepare, arguments, out, hint):
    """For each bug: `prepare(bug, target)` builds the binary with it, then the target hunts it from the seeds
    (and from nothing with --from-nothing); one row per bug."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for index, bug in enumerate(bugs, 1):
        target = targets[bug]
        log(f"planted [{index}/{len(bugs)}] {bug}: building {target} with the bug ...")
        started = time.time()
        binary = prepare(bug, target)
        log(f"planted [{index}/{len(bugs)}] {bug}: built in {time.time() - started:.0f} s; " + (
            f"running serdiff_tests --gtest_filter={target[5:]} ..." if target.startswith("test:")
            else f"fuzzing {target} (budget {arguments.budget} s) ..."))
        if target.startswith("test:"):
            rows.append(run_tests(bug, target, binary, out))
            row = rows[-1]
            log(f"planted [{index}/{len(bugs)}] {bug}: " + (f"FOUND by {target}: {row['what']}" if row["detected"]
                else f"MISSED: the {row['execs']} tests of {target} pass with it"))
            continue
        row = hunt(bug, target, binary, arguments.budget, out=out)
        if arguments.from_nothing:
            # The same hunt without seeds or earlier findings: how long raw fuzzing takes (informative).
            row["scratch"] = hunt(bug, target, binary, arguments.budget, from_seeds=False, out=out)
            log(f"planted [{index}/{len(bugs)}] {bug}: from nothing: {outcome(row['scratch'])}")
        rows.append(row)
        log(f"planted [{index}/{len(bugs)}] {bug}: " + (
            f"FOUND by {target} after {row['seconds']:.1f} s, {row['execs']} execs: {row['what']}"
            if row["detected"] else f"MISSED by {target} in {row['seconds']:.0f} s ({row['execs']} execs)"))
        if row["crash"]:
            log(f"  replay: FUZZ={target} {hint} {row['crash'].relative_to(ROOT)}")
    return rows


def report(rows, out, result, quiet=()):
    """Writes and prints the table `result` of `rows`; 1 when a bug was missed, or one of `quiet` (a change that
    must report nothing) reported something."""
    (out / "table.md").write_text(result + "\n")
    log("\n" + result)
    missed = [r["bug"] for r in rows if not r["detected"] and r["bug"] not in quiet]
    noisy = [r["bug"] for r in rows if r["detected"] and r["bug"] in quiet]
    found = len(rows) - len(missed) - len(noisy)
    log(f"\nplanted: {found}/{len(rows)} as expected" + (f"; MISSED: {' '.join(missed)}" if missed else "")
        + (f"; REPORTED on a change that must report nothing: {' '.join(noisy)}" if noisy else "")
        + f" (table in {(out / 'table.md').relative_to(ROOT)})")
    return 1 if missed or noisy else 0


def run(arguments):
    bugs = selected(arguments.bugs, PLANTED)
    rows = hunt_each(bugs, {bug: PLANTED[bug][1] for bug in bugs},
                     lambda bug, target: build(bug, target, arguments.jobs), arguments, OUT, BINARY_HINT)
    return report(rows, OUT, table(rows))


def run_core(arguments):
    """make test-planted SUBJECT=core: the unplanted tree must stay quiet on every detector target for
    --control seconds (else a defect's detection would mean nothing), then each defect is hunted."""
    defects = core_defects(base_only=arguments.base_only)
    names = selected(arguments.bugs, defects, "Core defect")
    targets = {name: defects[name]["target"] for name in names}
    tree = subject.core_tree(subject.core_src(), "planted")
    # --base-only: every copy is HEAD and the unplanted tree is its BASE (the control: the tree against itself).
    base = tree if arguments.base_only else None
    quiet = [name for name in names if defects[name]["expect"] == "quiet"]
    for name in names:  # every patch must apply before anything is built
        apply_patch(defects[name]["patch"], tree, tree, dry_run=True)
    log(f"planted: {len(names)} Core defect(s), each patched into a copy of {tree}/src under "
        f"{CORE_COPIES.relative_to(ROOT)}/, built in {CORE_BUILD.relative_to(ROOT)}")
    log(f"planted: building the unplanted tree ({', '.join(sorted(set(targets.values())))}) ...")
    started = time.time()
    binary = build_core(core_copy("unplanted", tree), targets.values(), arguments.jobs, base)
    log(f"planted: built in {time.time() - started:.0f} s")
    absent = fuzz_run.absent_targets(binary)
    if base and not all(o.get("compared_with_base") for o in fuzz_run.target_options(binary).values()):
        sys.exit(f"planted: {binary} does not compare with BASE (libcore_base.so not linked): --base-only would "
                 f"prove nothing")
    unbuilt = sorted({t for t in targets.values() if t not in fuzz_run.target_options(binary)})
    if unbuilt:
        sys.exit("planted: detector target(s) not built for the Core subject: " + "; ".join(
            f"{t}: {absent.get(t, 'unknown target')}" for t in unbuilt))
    controls = []
    for target in dict.fromkeys(targets.values()) if arguments.control > 0 else ():
        control = hunt(f"unplanted-{target}", target, binary, arguments.control, out=CORE_OUT)
        controls.append(control)
        log(f"planted: control: {target} on the unplanted tree: " + (
            f"CRASHED after {control['seconds']:.1f} s: {control['what']} ({control['crash'].relative_to(ROOT)})"
            if control["detected"] else f"quiet for {control['seconds']:.0f} s / {control['execs']} execs"))
    noisy = [c["target"] for c in controls if c["detected"]]
    if noisy:
        log(f"planted: the unplanted Core tree already crashes {' '.join(noisy)} (a false positive of the harness or "
            f"a finding in Core): a planted defect's detection there would prove nothing; stopping")
        return 1
    rows = hunt_each(names, targets, lambda name, target: build_core(
        core_copy(name, tree, defects[name]["patch"]), targets.values(), arguments.jobs, base), arguments, CORE_OUT,
        CORE_BINARY_HINT)
    result = table(rows, ("defect", "Core file"), lambda r: defects[r["bug"]]["file"])
    if controls:
        result += "\n\nControl, the unplanted tree (" + str(tree) + "): " + "; ".join(
            f"{c['target']} quiet for {c['seconds']:.0f} s / {c['execs']} execs" for c in controls)
    return report(rows, CORE_OUT, result, quiet)


BINARY_HINT = "build/planted/bin/serdiff_fuzz_libfuzzer (configured for that bug)"
CORE_BINARY_HINT = "build/planted-core-build/bin/core_fuzz_libfuzzer (built from the last defect's copy)"


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
    parser.add_argument("--control", type=int, default=30,
                        help="with --subject core: seconds each detector target fuzzes the unplanted tree first, "
                             "where a crash is a false positive (default 30; 0: none)")
    parser.add_argument("--base-only", action="store_true",
                        help="with --subject core: the changes of tests/planted/core-base/, which only a comparison "
                             "with BASE can see, each built as HEAD with the unplanted tree as its BASE")
    subject.add_arguments(parser)
    arguments = parser.parse_args()
    if subject.select(arguments.subject, arguments.core_src, "") == "core":
        return run_core(arguments)
    return run(arguments)


if __name__ == "__main__":
    sys.exit(main())
