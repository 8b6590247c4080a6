#!/usr/bin/env python3
"""make coverage: which OPTIMIZATIONS.md fast-path lines the committed corpora reach.

Builds the replay driver with clang-19 source-based coverage (build/coverage, no sanitizers), replays
corpora/<target>/ through every registered target, merges the profiles, writes the llvm-cov report for
serialize/ (build/coverage/report.txt), and prints a table: each "OPTIMIZATIONS.md row N" comment in
serialize/ → the code line it marks (the comment's own line when it trails code, else the next code
line) → its execution count. Exit status 1 when a row has no executed line.

  tools/fuzz/coverage.py [--jobs 2]
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "coverage"
ROW_MARK = re.compile(r"OPTIMIZATIONS\.md rows? ([0-9][0-9,–\- and]*)")
# Rows whose marker sits on a declaration (no code follows it): the line of the definition that does the
# row's work. Row 11's marker is on read_block_record in block_store.h; the one-call payload read after
# the size check is in read_framed (block_store.cpp).
ROW_CODE = {11: ("serialize/block_store.cpp", "in.read(std::as_writable_bytes(std::span{record.payload}));")}


def log(message):
    print(message, flush=True)


def build(jobs):
    flags = "-fprofile-instr-generate -fcoverage-mapping"
    subprocess.run(["cmake", "-S", str(ROOT), "-B", str(BUILD), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                    "-DCMAKE_C_COMPILER=clang-19", "-DCMAKE_CXX_COMPILER=clang++-19",
                    f"-DCMAKE_CXX_FLAGS={flags}", f"-DCMAKE_C_FLAGS={flags}",
                    "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate", "-DSERDIFF_BUILD_TESTS=OFF",
                    "-DSERDIFF_PEERS=OFF"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(BUILD), "-j", str(jobs), "--target", "serdiff_fuzz_replay"],
                   check=True, stdout=subprocess.DEVNULL)
    return BUILD / "bin" / "serdiff_fuzz_replay"


def replay_all(binary):
    profiles = BUILD / "profiles"
    profiles.mkdir(exist_ok=True)
    for old in profiles.glob("*.profraw"):
        old.unlink()
    targets = subprocess.run([str(binary), "--list"], check=True, capture_output=True, text=True).stdout.split()
    for target in targets:
        corpus = ROOT / "corpora" / target
        if not corpus.is_dir():
            log(f"coverage: {target}: no corpora/{target}/, skipped")
            continue
        environment = {**os.environ, "LLVM_PROFILE_FILE": str(profiles / f"{target}.profraw")}
        result = subprocess.run([str(binary), "--target", target, str(corpus)], env=environment,
                                capture_output=True, text=True)
        summary = (result.stdout + result.stderr).strip().splitlines()
        log(f"coverage: {target}: {summary[-1] if summary else 'no output'}")
        if result.returncode != 0:
            sys.exit(f"coverage: replaying corpora/{target} failed (status {result.returncode})")
    merged = BUILD / "merged.profdata"
    subprocess.run(["llvm-profdata-19", "merge", "-sparse", "-o", str(merged)] + sorted(map(str, profiles.glob("*.profraw"))),
                   check=True)
    return merged


def line_counts(binary, profile, sources):
    """{(file, line): count or None} from llvm-cov show (instantiations merged into one count per line)."""
    text = subprocess.run(["llvm-cov-19", "show", str(binary), f"-instr-profile={profile}",
                           "-show-instantiations=false", "-use-color=false"] + [str(s) for s in sources],
                          check=True, capture_output=True, text=True).stdout
    counts, current = {}, None
    for line in text.splitlines():
        if line.startswith("/") and line.endswith(":"):
            current = Path(line[:-1]).resolve()
            continue
        match = re.match(r"^\s*(\d+)\|\s*([0-9.]+[kMGTE]?)?\|(.*)$", line)
        if match and current:
            counts[(current, int(match.group(1)))] = (match.group(2), match.group(3))
    return counts


def parse_count(text):
    if not text:
        return None
    scale = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "E": 1e18}
    return float(text[:-1]) * scale[text[-1]] if text[-1] in scale else float(text)


def rows_of(mark):
    numbers = []
    for low, high in re.findall(r"(\d+)(?:\s*[–-]\s*(\d+))?", mark):
        numbers += list(range(int(low), int(high or low) + 1))
    return numbers


def row_table(counts, sources):
    rows = []
    for source in sources:
        lines = source.read_text().splitlines()
        for number, text in enumerate(lines, 1):
            mark = ROW_MARK.search(text)
            if not mark:
                continue
            # The marked code: this line when code precedes the comment, else the next line with a count.
            target = number if not text.lstrip().startswith("//") else None
            if target is None:
                for following in range(number + 1, min(number + 12, len(lines) + 1)):
                    if counts.get((source.resolve(), following), (None,))[0]:
                        target = following
                        break
            if target is None:
                continue  # a comment on a declaration or a concept; ROW_CODE names the code where needed
            count = counts.get((source.resolve(), target), (None, ""))[0]
            # A function's opening brace carries its entry count; show the signature line instead.
            shown = target - 1 if lines[target - 1].strip() == "{" and target > 1 else target
            rows.append({"rows": rows_of(mark.group(1)), "file": source.relative_to(ROOT), "line": target,
                         "count": count, "code": lines[shown - 1].strip()[:70]})
    for row, (path, code) in ROW_CODE.items():
        lines = (ROOT / path).read_text().splitlines()
        for number, text in enumerate(lines, 1):
            if code in text:
                count = counts.get(((ROOT / path).resolve(), number), (None, ""))[0]
                rows.append({"rows": [row], "file": Path(path), "line": number, "count": count, "code": text.strip()[:70]})
    return sorted(rows, key=lambda e: (min(e["rows"]), str(e["file"]), e["line"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args()
    log(f"coverage: building {BUILD.relative_to(ROOT)} (clang-19 -fprofile-instr-generate -fcoverage-mapping) ...")
    binary = build(arguments.jobs)
    profile = replay_all(binary)
    # planted.h's comments name rows too, but it holds no fast path.
    sources = sorted(p for p in (ROOT / "serialize").iterdir() if p.suffix in (".h", ".cpp") and p.name != "planted.h")
    report = subprocess.run(["llvm-cov-19", "report", str(binary), f"-instr-profile={profile}"] + [str(s) for s in sources],
                            check=True, capture_output=True, text=True).stdout
    (BUILD / "report.txt").write_text(report)
    log("\n" + report)
    entries = row_table(line_counts(binary, profile, sources), sources)
    header = "| row | marked line | count | code |\n|---|---|---|---|"
    body = [f"| {', '.join(map(str, e['rows']))} | {e['file']}:{e['line']} | "
            f"{e['count'] if parse_count(e['count']) else '**0**'} | `{e['code']}` |" for e in entries]
    table = "\n".join([header] + body)
    (BUILD / "rows.md").write_text(table + "\n")
    log(table)
    covered = {row for e in entries if parse_count(e["count"]) for row in e["rows"]}
    missing = [row for row in range(1, 13) if row not in covered]
    log(f"\ncoverage: rows with an executed fast-path line: {len(covered & set(range(1, 13)))}/12"
        + (f"; NOT REACHED: {missing}" if missing else "") + f" (report: {(BUILD / 'report.txt').relative_to(ROOT)})")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
