#!/usr/bin/env python3
"""make core-versions: the Core subject on every Core tree of the version matrix (docs/core.md "Core versions").

For each tree of subjects/core/versions.tsv (py-bitcoinkernel's sdists, Core 28.99 to 31.99): fetch it by hash
(subjects/core/fetch.sh into build/core-versions/<version>/), build the Core subject's libFuzzer and replay
binaries from it (build/core-versions/<version>/build, configured as make fuzz configures: run.configure_command),
replay every committed corpus through each target the tree has, then fuzz each target that replayed clean for
--time seconds from those seeds. One table, target x tree: agrees, finding (what the binary reported first),
absent (the reason the binary gives), or the tree's build failure (its first compiler error).

With --consecutive, each tree is also built with the tree before it as BASE (docs/base.md) and the same runs made:
a column "0.1.0a5 vs 0.1.0a4" whose "changed" cells are behaviour changes of Core's serialization code between the
two (HEAD vs BASE, the first difference each target saw, with the observation it was in).

  tools/core_versions.py [--versions 0.1.0a4,0.1.0a5] [--time 10] [--jobs 2] [--consecutive]
  tools/core_versions.py --render subjects/core/versions-matrix.json   (the recorded table docs/core.md shows)

Results in core-versions-out/ (matrix.json, matrix.md, a log per build, replay and fuzz run). Exit status 0:
every tree built and every target it has agrees; 1: a finding or a tree that does not build; 2: bad usage or a
fetch that failed. Not part of make test or .ci/run (five Core builds).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "fuzz"))
import run  # noqa: E402  (make fuzz's build flags, sanitizer environment and per-target options)

VERSIONS = ROOT / "subjects" / "core" / "versions.tsv"
WORK = ROOT / "build" / "core-versions"
OUT = ROOT / "core-versions-out"
REPLAY_TIMEOUT = 1800


def log(message):
    print(f"core-versions: {message}", flush=True)


def manifest():
    """[(package version, Core version, sha256)] from versions.tsv, in its order."""
    rows = []
    for number, line in enumerate(VERSIONS.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not re.fullmatch(r"[0-9a-f]{64}", fields[2]):
            raise SystemExit(f"{VERSIONS}:{number}: want 3 tab-separated fields (package version, Core version, "
                             f"sha256), got: {line}")
        rows.append(tuple(fields))
    return rows


def first_error(text):
    """The first compiler error of a build log (else its first CMake error, else ninja's FAILED line), or its last
    line; a source path inside this checkout is shown relative to it."""
    for pattern in (r"\berror: ", r"CMake Error", r"FAILED: "):
        for line in text.splitlines():
            if re.search(pattern, line):
                return line.strip().replace(f"{ROOT}/", "")[:300]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(empty log)"


def first_report(text):
    """What a failing replay or fuzz run reported first: serdiff's mismatch header (for HEAD vs BASE, with the
    observation that differed), a sanitizer's summary line."""
    changed = re.search(r"==== serdiff MISMATCH in (.*?\(HEAD vs BASE\)).*? ====\n(?:observation \d+ of the target: )?"
                        r"(.*)\nHEAD: (.*)\nBASE: (.*)", text)
    if changed:
        head, base = changed.group(3), changed.group(4)
        same = len(os.path.commonprefix([head, base]))
        start = max(0, same - 20)  # where the two values part, with a little of what they share before it
        def part(value):
            return ("…" if start else "") + value[start:start + 60] + ("…" if len(value) > start + 60 else "")
        return f"{changed.group(1)}: {changed.group(2).strip()}: HEAD {part(head)}, BASE {part(base)}"[:400]
    for pattern in (r"==== serdiff MISMATCH in (.*?) ====", r"SUMMARY: (.*)", r"ERROR: (.*)",
                    r"serdiff replay \(core\): (failed .*)"):
        found = re.search(pattern, text)
        if found:
            return found.group(1).strip()[:200]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


def fetch(version, sha256):
    destination = WORK / version
    destination.mkdir(parents=True, exist_ok=True)
    pin = destination / "pin.txt"
    wanted = f"py-bitcoinkernel=={version} \\\n    --hash=sha256:{sha256}\n"
    if not pin.exists() or pin.read_text() != wanted:
        pin.write_text(wanted)
    fetched = subprocess.run([str(ROOT / "subjects" / "core" / "fetch.sh"), str(destination), str(pin)],
                             capture_output=True, text=True)
    if fetched.returncode != 0:
        raise SystemExit(f"core-versions: fetching py-bitcoinkernel {version} failed: {fetched.stderr.strip()}")
    return Path(fetched.stdout.strip())


def build(column, tree, jobs, logs, base_tree=None, base_version=None):
    """Builds core_fuzz_libfuzzer and core_fuzz_replay from the tree (with base_tree as BASE when given: in
    build/core-versions/<version>/build-vs-<base version>); (bin dir, None) or (None, first error)."""
    version = column.split(" ")[0]
    directory = WORK / version / (f"build-vs-{base_version}" if base_tree else "build")
    log_path = logs / f"{slug(column)}-build.log"
    with open(log_path, "w") as out:
        for command in (run.configure_command("libfuzzer", directory) + [
                            "-DSERDIFF_PEERS=OFF", "-DSERDIFF_SUBJECTS=serdiff;core", f"-DSERDIFF_CORE_SRC={tree}",
                            f"-DSERDIFF_CORE_BASE_SRC={base_tree or ''}"],
                        ["cmake", "--build", str(directory), "-j", str(jobs), "--target", "core_fuzz_libfuzzer",
                         "core_fuzz_replay"]):
            out.write("$ " + " ".join(command) + "\n")
            out.flush()
            if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                return None, first_error(log_path.read_text(errors="replace"))
    return directory / "bin", None


def shown(path):
    """A path as the record keeps it: relative to the checkout when inside it (a record is committed)."""
    path = Path(path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def slug(column):
    """A column's name as a file-name part: "0.1.0a5 vs 0.1.0a4" -> "0.1.0a5-vs-0.1.0a4"."""
    return column.replace(" ", "-")


def listing(binary):
    """{target: None (built) or the reason it is absent} from the binary's --list --json."""
    text = subprocess.run([str(binary), "--list", "--json"], check=True, capture_output=True, text=True,
                          env={**os.environ, "FUZZ": ""}).stdout
    return {entry["name"]: entry.get("absent") for entry in json.loads(text)}


def replay(bin_dir, target, logs, column):
    log_path = logs / f"{slug(column)}-{target}-replay.log"
    command = [str(bin_dir / "core_fuzz_replay"), "--target", target, str(ROOT / "corpora" / target)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=REPLAY_TIMEOUT,
                                env=run.sanitizer_environment())
    except subprocess.TimeoutExpired:
        log_path.write_text("timed out\n")
        return {"state": "finding", "what": f"corpus replay did not finish in {REPLAY_TIMEOUT} s"}
    log_path.write_text(result.stdout + result.stderr)
    if result.returncode == 0:
        files = re.search(r"(\d+) files", result.stdout + result.stderr)
        return {"state": "agrees", "replayed": int(files.group(1)) if files else None}
    return {"state": "finding", "what": first_report(result.stdout + result.stderr), "log": shown(log_path)}


def fuzz(bin_dir, target, options, seconds, logs, column):
    log_path = logs / f"{slug(column)}-{target}-fuzz.log"
    artifacts = OUT / "crashes" / slug(column) / target
    artifacts.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        command = run.libfuzzer_command(bin_dir / "core_fuzz_libfuzzer", target, options, seconds, artifacts,
                                        [scratch, ROOT / "corpora" / target])
        result = subprocess.run(command, capture_output=True, text=True, env={**run.sanitizer_environment(),
                                                                               "FUZZ": target})
    text = result.stdout + result.stderr
    log_path.write_text(text)
    execs = re.search(r"stat::number_of_executed_units:\s+(\d+)", text)
    if result.returncode == 0:
        return {"state": "agrees", "execs": int(execs.group(1)) if execs else None}
    return {"state": "finding", "what": first_report(text), "log": shown(log_path),
            "inputs": sorted(p.name for p in artifacts.iterdir())}


def cell(entry, reasons=None):
    """A table cell; with `reasons` (a list shared by the table), an absent target's reason is numbered once and the
    cell names its number, so that a reason every tree shares does not fill every column."""
    state = entry["state"]
    if state == "agrees":
        return "agrees"
    if state == "absent":
        if reasons is None:
            return f"absent: {entry['reason']}"
        if entry["reason"] not in reasons:
            reasons.append(entry["reason"])
        return f"absent [{reasons.index(entry['reason']) + 1}]"
    if state == "no build":
        return "does not build"
    if "(HEAD vs BASE)" in entry["what"]:
        return f"**changed**: {entry['what']}"
    return f"**finding**: {entry['what']}"


def render(results):
    trees = list(results["trees"])
    targets = sorted({t for tree in results["trees"].values() for t in tree.get("targets", {})})
    header = "| target | " + " | ".join(f"{v} (Core {results['trees'][v]['core']})" for v in trees) + " |"
    lines = [header, "|---|" + "---|" * len(trees)]
    reasons = []
    for target in targets:
        cells = []
        for version in trees:
            tree = results["trees"][version]
            if tree.get("build_error"):
                cells.append("does not build")
            else:
                cells.append(cell(tree["targets"].get(target, {"state": "absent", "reason": "not listed"}), reasons))
        lines.append(f"| {target} | " + " | ".join(cells) + " |")
    notes = [f"[{number}] {reason}" for number, reason in enumerate(reasons, 1)]
    notes += [f"- {v}: does not build: `{t['build_error']}`" for v, t in results["trees"].items()
              if t.get("build_error")]
    return "\n".join(lines + ([""] + [note + ("  " if note.startswith("[") else "") for note in notes]
                              if notes else [])) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", default="", help="comma- or space-separated package versions (default: all)")
    parser.add_argument("--time", type=int, default=10, help="seconds of libFuzzer per target and tree (default 10)")
    parser.add_argument("--jobs", type=int, default=2, help="build parallelism (default 2)")
    parser.add_argument("--render", metavar="MATRIX_JSON", help="print the table of a recorded matrix.json and stop")
    parser.add_argument("--consecutive", action="store_true",
                        help="also build each tree with the one before it as BASE and list what changed")
    arguments = parser.parse_args(argv)
    if arguments.render:
        print(render(json.loads(Path(arguments.render).read_text())), end="")
        return 0
    rows = manifest()
    wanted = [v for v in re.split(r"[,\s]+", arguments.versions) if v]
    unknown = [v for v in wanted if v not in {row[0] for row in rows}]
    if unknown:
        print(f"core-versions: unknown version(s) {' '.join(unknown)}; known: {' '.join(r[0] for r in rows)}",
              file=sys.stderr)
        return 2
    if arguments.time < 1:
        print("core-versions: --time must be at least 1", file=sys.stderr)
        return 2
    rows = [row for row in rows if not wanted or row[0] in wanted]
    logs = OUT / "logs"
    shutil.rmtree(OUT, ignore_errors=True)
    logs.mkdir(parents=True)
    results = {"time": arguments.time, "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "load_before": os.getloadavg()[0], "trees": {}}
    trees = {}
    for index, (version, core, sha256) in enumerate(rows, 1):
        log(f"[{index}/{len(rows)}] {version} (Core {core}): fetching ...")
        trees[version] = fetch(version, sha256)
    # Columns: each tree alone, then (--consecutive) each tree with the one before it as BASE.
    columns = [(version, core, version, None) for version, core, _ in rows]
    if arguments.consecutive:
        columns += [(f"{head[0]} vs {base[0]}", f"{head[1]} vs {base[1]}", head[0], base[0])
                    for base, head in zip(rows, rows[1:])]
    for index, (column, core, version, base_version) in enumerate(columns, 1):
        started = time.time()
        where = f"[{index}/{len(columns)}] {column}"
        base_tree = trees[base_version] if base_version else None
        log(f"{where}: building the Core subject from {trees[version]}"
            + (f", BASE {base_tree}" if base_tree else "") + " ...")
        bin_dir, error = build(column, trees[version], arguments.jobs, logs, base_tree, base_version)
        entry = {"core": core, "tree": shown(trees[version]), "targets": {}}
        if base_tree:
            entry["base_tree"] = shown(base_tree)
        results["trees"][column] = entry
        if error:
            entry["build_error"] = error
            log(f"{where}: does not build: {error}")
            continue
        options = run.target_options(bin_dir / "core_fuzz_replay")
        for target, reason in listing(bin_dir / "core_fuzz_replay").items():
            if reason:
                entry["targets"][target] = {"state": "absent", "reason": reason}
                continue
            outcome = replay(bin_dir, target, logs, column)
            if outcome["state"] == "agrees":
                replayed = outcome.get("replayed")
                outcome = fuzz(bin_dir, target, options[target], arguments.time, logs, column)
                outcome["replayed"] = replayed
            entry["targets"][target] = outcome
            log(f"{where} {target}: {cell(outcome)}")
        entry["seconds"] = round(time.time() - started)
    results["load_after"] = os.getloadavg()[0]
    (OUT / "matrix.json").write_text(json.dumps(results, indent=1) + "\n")
    table = render(results)
    (OUT / "matrix.md").write_text(table)
    print()
    print(table)
    # A difference from the tree before is what --consecutive is for (listed, not a failure); a finding is.
    failing = [v for v, t in results["trees"].items()
               if t.get("build_error") or any(o["state"] == "finding" and "(HEAD vs BASE)" not in o["what"]
                                              for o in t["targets"].values())]
    changed = sum(1 for t in results["trees"].values() for o in t["targets"].values()
                  if o["state"] == "finding" and "(HEAD vs BASE)" in o["what"])
    log(f"{len(results['trees']) - len(failing)} of {len(results['trees'])} column(s) built and agree with the "
        f"reference on every target they have" + (f"; {changed} target(s) changed from the tree before"
                                                     if arguments.consecutive else "")
        + f"; results in {OUT.relative_to(ROOT)}/ (matrix.md, matrix.json, logs/)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
