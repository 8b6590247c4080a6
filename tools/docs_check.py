#!/usr/bin/env python3
"""Docs that cannot drift silently (ctest docs_check, part of `make test`).

Reads README.md, CHANGELOG.md and every docs/**/*.md of the repository and checks, against the Makefile and
the real binaries:
  (a) every `make <target>` and every `VAR=value` of a make command shown in code (code spans and code blocks)
      names a rule and a variable of the Makefile (a few environment variables are allowed: ENV_ALLOWED);
  (b) every relative link [text](path#anchor) resolves to an existing file or directory and, for a .md file, to
      a heading of it (GitHub's anchors: lowercase, punctuation other than - and _ dropped, spaces to -,
      -1, -2 for repeats);
  (c) every `serdiff <command> ... --option` shown in code is a command of `serdiff --help`, its first word
      after the command (a blockfile action, an inspect type) appears in `serdiff <command> --help`, and every
      --option appears in the help of serdiff or of that command;
  (d) every fuzz target a doc names is in the fuzz binary's `--list --json`: TARGETS=/TARGET=/FUZZ= values,
      --target/--targets arguments, corpora/<target> paths, and the cells of table columns headed "target".
Reference pages also stay short and current: README.md at most 150 lines, every other page (not CHANGELOG.md)
at most 300, no table cell over 400 characters, no heading with a date or "(third)" in it. Nowhere (notes
included) a tracker's number ("issue 30", "PR #12"; upstream owner/repo#N is fine), a file named after one
(issue30-rerun.json), or a word about how a page was made rather than what the project does (session, engineer,
tracker). The notes under docs/notes/ are history, kept as they were written otherwise: only their links, issue
numbers and those words are checked (a, c and d would make them rewrite what was run then).

Each problem is printed as file:line: message; the exit status is 1 when there is any, 2 on bad usage.

  tools/docs_check.py --serdiff build/asan/bin/serdiff --fuzz-binary build/asan/bin/serdiff_fuzz_replay .
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

# Environment variables a doc may set in a make command although the Makefile does not name them, each with the
# reason it is read anyway.
ENV_ALLOWED = {
    "ASAN_OPTIONS": "read by the sanitizer runtime of every binary make runs (docs/fuzzing.md, sanitizer policy)",
    "SERDIFF_DATA_DIR": "read from the environment by CMake, tools/fuzz/run.py and the CI jobs (README)",
}
README_LINES, PAGE_LINES = 150, 300  # a newcomer's ten minutes
TABLE_CELL_CHARS = 400
# Our own tracker's numbers (an upstream reference, owner/repo#N, is removed before this is matched): "issue 30",
# "issue #30", "PR 12"; and in a file name: issue30-rerun.json.
ISSUE_NUMBER = re.compile(r"\b(?:[Ii]ssues?|PRs?|[Pp]ull requests?) #?\d+")
ISSUE_FILE_NAME = re.compile(r"(?i)issue[-_ ]?\d+")
# How a page was made rather than what the project does.
PROCESS_WORDS = re.compile(r"(?i)\b(?:sessions?|engineers?|tracker)\b")
# Directories of a checkout that hold no committed file names to check (builds, outputs, VCS data).
SKIPPED_DIRECTORIES = re.compile(r"^(?:\..*|build.*|.*-out(?:\.prev)?|__pycache__|node_modules)$")
PLACEHOLDER = re.compile(r"[<>…]|\.\.\.|^[A-Z][A-Z_]*$")  # <target>, ..., TYPE: not names to check


def github_slug(heading):
    """GitHub's anchor for a heading's text (the rendered text: code ticks, emphasis and link targets removed)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Doc:
    """A markdown file split into what is code (with line numbers) and what is prose."""

    def __init__(self, path, root):
        self.path = path
        self.rel = path.relative_to(root).as_posix()
        self.lines = path.read_text(encoding="utf-8").split("\n")
        self.code = []      # (line, text): each code-block line, each code span
        self.prose = []     # (line, text): lines outside code blocks
        self.tables = []    # [(line, [cells])]: each table's rows, header first
        self.anchors = set()
        self._parse()

    def _parse(self):
        in_block, fence = False, ""
        paragraph = []  # (line, text) of the current run of prose lines, for code spans across line breaks
        seen = {}
        table = []

        def flush_paragraph():
            if not paragraph:
                return
            joined = "\n".join(text for _, text in paragraph)
            starts = []
            offset = 0
            for number, text in paragraph:
                starts.append((offset, number))
                offset += len(text) + 1
            for match in re.finditer(r"(`+)(.+?)\1", joined, re.S):
                number = max(n for start, n in starts if start <= match.start())
                self.code.append((number, match.group(2).replace("\n", " ").strip()))
            paragraph.clear()

        def flush_table():
            if len(table) >= 2:
                self.tables.append(list(table))
            table.clear()

        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if in_block:
                if stripped.startswith(fence):
                    in_block = False
                else:
                    self.code.append((number, line))
                continue
            match = re.match(r"^(```+|~~~+)", stripped)
            if match:
                flush_paragraph()
                flush_table()
                in_block, fence = True, match.group(1)
                continue
            self.prose.append((number, line))
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                slug = github_slug(heading.group(1))
                count = seen.get(slug, 0)
                seen[slug] = count + 1
                self.anchors.add(slug if count == 0 else f"{slug}-{count}")
            for anchor in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                self.anchors.add(anchor)
            if stripped.startswith("|"):
                cells = [cell.strip() for cell in stripped.strip("|").split("|")]
                if not all(re.fullmatch(r":?-+:?", cell) for cell in cells if cell):
                    table.append((number, cells))
            else:
                flush_table()
            if stripped:
                paragraph.append((number, line))
            else:
                flush_paragraph()
        flush_paragraph()
        flush_table()


class Makefile:
    def __init__(self, path):
        text = path.read_text(encoding="utf-8")
        self.targets, self.patterns, self.variables = set(), [], set()
        for line in text.split("\n"):
            if line.startswith("\t") or line.startswith("#"):
                continue
            assign = re.match(r"^\s*(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|::|\+|!)?=", line)
            if assign:
                self.variables.add(assign.group(1))
                continue
            rule = re.match(r"^([^:=#\s][^:=#]*?)\s*::?(?!=)", line)
            if rule:
                for name in rule.group(1).split():
                    if "%" in name:
                        self.patterns.append(re.compile("^" + re.escape(name).replace("%", ".+") + "$"))
                    elif not name.startswith("."):
                        self.targets.add(name)
            phony = re.match(r"^\.PHONY\s*:(.*)", line)
            if phony:
                self.targets.update(phony.group(1).split())
        # Variables the rules read without assigning them (RESUME, UNIT, ONLY, IMPORT, ...).
        self.variables.update(re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", text))
        self.variables.update(re.findall(r"\$\((?:origin|if|or|filter)\s+\$?\(?([A-Za-z_][A-Za-z0-9_]*)", text))

    def has_target(self, name):
        return name in self.targets or any(pattern.match(name) for pattern in self.patterns)


def run(command, stdout_only=False):
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "FUZZ": ""}, timeout=120)
    return result.returncode, result.stdout if stdout_only else result.stdout + result.stderr


class Cli:
    """What `serdiff --help` and `serdiff <command> --help` accept."""

    def __init__(self, binary):
        code, text = run([binary, "--help"])
        if code != 0:
            sys.exit(f"docs_check: {binary} --help exited {code}:\n{text}")
        commands_part = text.split("commands:", 1)[-1]
        self.commands = set(re.findall(r"^  ([a-z][\w-]*)", commands_part, re.M))
        if not self.commands:
            sys.exit(f"docs_check: no commands found in the output of {binary} --help")
        self.help = {None: text}
        for command in self.commands - {"help"}:
            self.help[command] = run([binary, command, "--help"])[1]
        self.options = {command: set(re.findall(r"(?<![\w-])(--[a-z][\w-]*|-h)\b", text))
                        for command, text in self.help.items()}

    def words(self, command):
        return set(re.findall(r"[\w-]+", self.help.get(command, "")))


def split_command(text):
    """Shell words of one command line, up to the first separator or comment."""
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = []
        for word in lexer:
            if word and set(word) <= set(";&|()"):
                break
            words.append(word)
        return words
    except ValueError:  # an unbalanced quote in a fragment: plain words
        return text.split("#", 1)[0].split()


def target_names(value):
    return [name for name in re.split(r"[\s,]+", value) if name]


def _json(root, relative):
    return json.loads((root / relative).read_text(encoding="utf-8"))


def _tsv_rows(root, relative):
    return [line.split("\t") for line in (root / relative).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def _score(record, field="score"):
    """A percentage of a mutation report as its pages print it (one decimal)."""
    return f"{record[field]:.1f}"


def _strengthened(record):
    """(score after strengthening, killed after it) of a mutation report: the survivors triaged fixed count as killed."""
    return _score(record, "score_after_strengthening"), str(record["killed"] + record["survivors_triaged"]["fixed"])


def _bench_block_row(root):
    """README's make bench numbers from bench/records/bench.json: block 413,567's serialize (reused buffer) and
    deserialize times in µs for the optimized side, rust-bitcoin and btcd, the goals met, the commit and the loads."""
    record = _json(root, "bench/records/bench.json")
    rows = {(r["group"], r["subject"], r["implementation"]): r["ns_per_op"] for r in record["benchmarks"]}
    times = [f"{rows[(group, '413567', implementation)] / 1000:,.1f}"
             for group, implementations in (("SerializeBlock", ("optimized-reused", "rust-bitcoin", "btcd")),
                                            ("DeserializeBlock", ("optimized", "rust-bitcoin", "btcd")))
             for implementation in implementations]
    goals = [g for g in record["goals"] if g["met"] is not None]
    machine = record["machine"]
    return (*times, str(sum(1 for g in goals if g["met"])), str(len(goals)), machine["git_commit"],
            f"{machine['load_average_at_start'][0]:.1f}", f"{machine['load_average_after'][0]:.1f}")


def _fuzz_bench_rates(root):
    """README's make fuzz-bench numbers: the median exec/CPU-s of four targets and the empty ceiling over the three
    records, merged as tools/fuzz/bench.py --render merges them (its load_results), their commit(s) and the lowest and
    highest 1-minute load."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "fuzz"))
    import bench as fuzz_bench  # noqa: E402  (tools/fuzz/bench.py: make fuzz-bench)
    side = fuzz_bench.load_results(",".join(str(root / f"bench/records/fuzz-bench-{n}.json") for n in (1, 2, 3)))
    rates = {row["target"]: row["exec_per_cpu_sec"] for row in side["targets"]}
    loads = sorted(load for run in side["runs"] for load in (run["load_before"][0], run["load_after"][0]))
    return (*(f"{rates[name]:,}" for name in ("transaction", "block", "compact_size", "obfuscation")),
            f"{side['ceiling']['exec_per_cpu_sec']:,}",
            ", ".join(sorted({run.get("commit") or "?" for run in side["runs"]})), f"{loads[0]:.1f}", f"{loads[-1]:.1f}")


# Numbers that a command measured, each checked against the record it came from (the record's path is named in
# the problem). A rule: the page, a pattern whose groups are the numbers, the record, and a
# function giving the numbers the record holds (strings, in the pattern's order) from the repository root and the
# fuzz binary's target names. A rule whose sentence is gone is a problem too: reword the rule with the sentence.
RECORD_RULES = [
    # The schemata way's cost (docs/mutation-schemata.md "Cost"): its table and the schemata build, from the record.
    ("docs/mutation-schemata.md", r"\| quick check \(invalid\) \| (\d+) \| ([\d.]+) \|\n\| schemata binary \| (\d+) \| "
                                  r"([\d.]+) \|\n\| rebuilt one at a time \| (\d+) \| ([\d.]+) \|\n\| \*\*all\*\* "
                                  r"\(`job_seconds_per_processed`\) \| (\d+) \| \*\*([\d.]+)\*\* \|",
     "tools/mutate/results/speed-core.json",
     lambda root, targets: (lambda r: tuple(str(v) for way in ("quick check", "schemata", "rebuild")
                                            for v in (r["per_way"][way]["processed"],
                                                      r["per_way"][way]["job_seconds_per_processed"]))
                            + (str(r["done"]), str(r["job_seconds_per_processed"])))(
         _json(root, "tools/mutate/results/speed-core.json"))),
    ("docs/mutation-schemata.md", r"Not met: ([\d.]+) job-seconds per mutant processed, over 5\.\n\n\| way \| mutants \| "
                                  r"job-seconds each \(`per_way`\) \|\n\|---\|---\|---\|\n\| quick check \(invalid\) \| (\d+) \| "
                                  r"([\d.]+) \|\n\| schemata binary \| (\d+) \| ([\d.]+) \|\n\| rebuilt one at a time \| (\d+) \| "
                                  r"([\d.]+) \|\n\| \*\*all\*\* \(`job_seconds_per_processed`\) \| (\d+) \| \*\*([\d.]+)\*\* \|",
     "tools/mutate/results/speed-serdiff.json",
     lambda root, targets: (lambda r: (str(r["job_seconds_per_processed"]),)
                            + tuple(str(v) for way in ("quick check", "schemata", "rebuild")
                                    for v in (r["per_way"][way]["processed"],
                                              r["per_way"][way]["job_seconds_per_processed"]))
                            + (str(r["done"]), str(r["job_seconds_per_processed"])))(
         _json(root, "tools/mutate/results/speed-serdiff.json"))),
    ("docs/mutation-schemata.md", r"\*\*All (\d+) agree\*\* in status, phase and killing target",
     "tools/mutate/results/speed-core-compare.json",
     lambda root, targets: (lambda r: (str(r["compared"]) if r["agree"] == r["compared"] else "not all",))(
         _json(root, "tools/mutate/results/speed-core-compare.json"))),
    ("docs/mutation-core.md", r"at ([\d.]+) job-seconds per mutant processed on `serialize.h` and `streams.h`",
     "tools/mutate/results/speed-core.json",
     lambda root, targets: (str(_json(root, "tools/mutate/results/speed-core.json")["job_seconds_per_processed"]),)),
    ("README.md", r"one core: `transaction` ([\d,]+), `block` ([\d,]+), `compact_size` ([\d,]+), `obfuscation` ([\d,]+); "
                  r"the empty target ([\d,]+) \(medians of three runs, ([\w, ]+), load ([\d.]+)-([\d.]+)\)",
     "bench/records/fuzz-bench-{1,2,3}.json", lambda root, targets: _fuzz_bench_rates(root)),
    ("README.md", r"block 413,567: serialize ([\d.,]+) µs \(rust-bitcoin ([\d.,]+), btcd ([\d.,]+)\), deserialize "
                  r"([\d.,]+) µs \(([\d.,]+), ([\d.,]+)\); (\d+) of (\d+) goals met \((\w+), load ([\d.]+) at the "
                  r"start, ([\d.]+) at the end\)",
     "bench/records/bench.json", lambda root, targets: _bench_block_row(root)),
    ("README.md", r"(\d+) of (\d+) targets run on Core's source",
     "the fuzz binary's --list --json and subjects/core/absent_targets.tsv",
     lambda root, targets: (str(len(targets) - len(_tsv_rows(root, "subjects/core/absent_targets.tsv"))),
                            str(len(targets)))),
    ("README.md", r"all (\d+) defects planted in Core's files found by their targets", "tests/planted/core/defects.tsv",
     lambda root, targets: (str(len(_tsv_rows(root, "tests/planted/core/defects.tsv"))),)),
    ("README.md", r"(\d+) planted bugs, each found by its detector \((\d+) by a fuzz target from the seeds, (\d+) by "
                  r"tests, (\d+) by a CI job\)", "tests/planted/bugs.tsv (its detector column)",
     lambda root, targets: (lambda rows: (str(len(rows)), *(str(sum(1 for row in rows if len(row) > 2 and
                                                                     row[2].startswith(kind + ":")))
                                                         for kind in ("target", "test", "job"))))(
         _tsv_rows(root, "tests/planted/bugs.tsv"))),
    ("README.md", r"Core's own files (\d+\.\d)% \((\d+)/(\d+)\) as first measured, (\d+\.\d)% \((\d+)/\d+\) after",
     "tools/mutate/results/core-heldout.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]),
                                       *_strengthened(r)))(_json(root, "tools/mutate/results/core-heldout.json"))),
    ("README.md", r"the training sample of `serialize/` (\d+\.\d)% \((\d+)/(\d+)\) as first measured, (\d+\.\d)% "
                  r"\((\d+)/\d+\) after strengthening",
     "tools/mutate/results/report.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]), *_strengthened(r)))(
         _json(root, "tools/mutate/results/report.json"))),
    ("README.md", r"\(held out\): `serialize/` (\d+\.\d)% \((\d+)/(\d+)\)", "tools/mutate/results/heldout-serialize.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"])))(
         _json(root, "tools/mutate/results/heldout-serialize.json"))),
    ("README.md", r"`model/` and `crypto/` (\d+\.\d)% \((\d+)/(\d+)\)", "tools/mutate/results/heldout-model.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"])))(
         _json(root, "tools/mutate/results/heldout-model.json"))),
    ("docs/mutation.md", r"seed 3001[^\n]*? \| \*\*(\d+\.\d)%\*\* \((\d+)/(\d+)\) \| (\d+\.\d)% \((\d+)/\d+\)",
     "tools/mutate/results/heldout-serialize.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]), *_strengthened(r)))(
         _json(root, "tools/mutate/results/heldout-serialize.json"))),
    ("docs/mutation.md", r"seed 3002[^\n]*? \| \*\*(\d+\.\d)%\*\* \((\d+)/(\d+)\) \| (\d+\.\d)% \((\d+)/\d+\)",
     "tools/mutate/results/heldout-model.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]), *_strengthened(r)))(
         _json(root, "tools/mutate/results/heldout-model.json"))),
    ("docs/mutation.md", r"seed 2026[^\n]*? \| \*\*(\d+\.\d)%\*\* \((\d+)/(\d+)\) \| (\d+\.\d)% \((\d+)/\d+\)",
     "tools/mutate/results/core-report.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]), *_strengthened(r)))(
         _json(root, "tools/mutate/results/core-report.json"))),
    ("docs/mutation.md", r"seed 1, [^\n]*? \| \*\*(\d+\.\d)%\*\* \((\d+)/(\d+)\) \| (\d+\.\d)% \((\d+)/\d+\)",
     "tools/mutate/results/report.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]), *_strengthened(r)))(
         _json(root, "tools/mutate/results/report.json"))),
    ("docs/core.md", r"both have, (\d+) behave the same and (\d+)\s+changed", "subjects/core/versions-consecutive.json",
     lambda root, targets: (lambda pair: (str(sum(1 for o in pair.values() if o["state"] == "agrees")),
                                          str(sum(1 for o in pair.values() if o["state"] == "finding" and
                                                  "(HEAD vs BASE)" in o["what"]))))(
         _json(root, "subjects/core/versions-consecutive.json")["trees"]["0.1.0a5 vs 0.1.0a4"]["targets"])),
    ("docs/mutation-core.md", r"score (\d+)/(\d+) = (\d+\.\d)%", "tools/mutate/results/core-report.json",
     lambda root, targets: (lambda r: (str(r["killed"]), str(r["valid_non_equivalent"]), _score(r)))(
         _json(root, "tools/mutate/results/core-report.json"))),
    ("docs/mutation-core.md", r"\*\*As first measured: (\d+)/(\d+) = (\d+\.\d)%\*\* \((\d+) killed, all by corpus replay; "
                              r"(\d+) survived, (\d+) of them not\s+reached, (\d+) instantiation-only\)\. ([\d,]+) processed: "
                              r"(\d+) invalid, (\d+) equivalent",
     "tools/mutate/results/core-heldout-first.json",
     lambda root, targets: (lambda r: (str(r["killed"]), str(r["valid_non_equivalent"]), _score(r), str(r["killed"]),
                                       str(r["survived"]), str(r["survived_not_reached"]),
                                       str(r["survived_instantiation_only"]), f"{r['done']:,}", str(r["invalid"]),
                                       str(r["equivalent"])))(_json(root, "tools/mutate/results/core-heldout-first.json"))),
    ("docs/mutation-core.md", r"\*\*Cost\*\*: ([\d,]+) job-seconds for the ([\d,]+) mutants processed, ([\d.]+) each",
     "tools/mutate/results/core-heldout-first.json",
     lambda root, targets: (lambda r: (f"{r['job_seconds']:,}", f"{r['done']:,}", str(r["job_seconds_per_processed"])))(
         _json(root, "tools/mutate/results/core-heldout-first.json"))),
    ("docs/mutation-core.md", r"\*\*After the new targets: (\d+)/(\d+) = (\d+\.\d)%\.\*\*",
     "tools/mutate/results/core-heldout.json",
     lambda root, targets: (lambda r: (_strengthened(r)[1], str(r["valid_non_equivalent"]), _strengthened(r)[0]))(
         _json(root, "tools/mutate/results/core-heldout.json"))),
    ("docs/mutation.md", r"seed 5050[^\n]*? \| \*\*(\d+\.\d)%\*\* \((\d+)/(\d+)\) \| (\d+\.\d)% \((\d+)/\d+\)",
     "tools/mutate/results/core-heldout.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"]), *_strengthened(r)))(
         _json(root, "tools/mutate/results/core-heldout.json"))),
    ("docs/mutation-heldout.md", r"\*\*score as first measured\*\* \| \*\*(\d+\.\d)%\*\* \((\d+)/(\d+):",
     "tools/mutate/results/heldout-serialize.json",
     lambda root, targets: (lambda r: (_score(r), str(r["killed"]), str(r["valid_non_equivalent"])))(
         _json(root, "tools/mutate/results/heldout-serialize.json"))),
]


# Tables a page shows exactly as a tool renders them from a record: (page, record, how to render it).
def _core_versions_table(record_path):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import core_versions  # noqa: E402  (tools/core_versions.py: make core-versions' table)
    return core_versions.render(json.loads(record_path.read_text(encoding="utf-8")))


def _tool_output(root, script, *arguments):
    """What one of this checkout's scripts (bench/report.py summary, tools/fuzz/bench.py --render) prints for the
    records of the tree at `root` (the arguments are paths relative to it)."""
    tools_root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(tools_root / script), *arguments], cwd=root, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise ValueError(f"{script} {' '.join(arguments)} failed: {done.stderr.strip()}")
    return done.stdout.rstrip("\n")


FUZZ_BENCH_RECORDS = ",".join(f"bench/records/fuzz-bench-{n}.json" for n in (1, 2, 3))

GENERATED_TABLES = [
    ("docs/core.md", "subjects/core/versions-matrix.json", "tools/core_versions.py --render",
     lambda root: _core_versions_table(root / "subjects/core/versions-matrix.json")),
    ("docs/bench.md", "bench/records/bench.json", "bench/report.py summary",
     lambda root: _tool_output(root, "bench/report.py", "summary", "bench/records/bench.json")),
    ("docs/bench.md", "bench/records/callgrind.json", "bench/report.py summary",
     lambda root: _tool_output(root, "bench/report.py", "summary", "bench/records/callgrind.json")),
    ("docs/bench.md", FUZZ_BENCH_RECORDS, "tools/fuzz/bench.py --render",
     lambda root: _tool_output(root, "tools/fuzz/bench.py", "--render", FUZZ_BENCH_RECORDS)),
]


def check_records(checker, root, fuzz_targets):
    for page, record, command, render in GENERATED_TABLES:
        path = root / page
        if not path.is_file():
            continue
        missing = [one for one in record.split(",") if not (root / one).is_file()]
        if missing:
            checker.problems.append(f"{page}: its table's record {', '.join(missing)} is missing")
            continue
        checker.counts["records"] = checker.counts.get("records", 0) + 1
        try:
            rendered = render(root)
        except (OSError, ValueError, KeyError) as error:
            checker.problems.append(f"{page}: {record} cannot be rendered: {error}")
            continue
        if rendered not in path.read_text(encoding="utf-8"):
            checker.problems.append(f"{page}: its table of {record} is not what `{command} {record}` prints: "
                                    f"paste that output in place of the old table")
    for page, pattern, record, expected in RECORD_RULES:
        path = root / page
        if not path.is_file():
            continue
        doc = checker.doc(path)
        text = "\n".join(doc.lines)
        found = re.search(pattern, text)
        if not found:
            checker.problems.append(f"{page}: no sentence matching the rule for {record} (tools/docs_check.py "
                                    f"RECORD_RULES): reword the rule with the sentence, or drop the number")
            continue
        try:
            wanted = tuple(expected(root, fuzz_targets))
        except (OSError, ValueError, KeyError) as error:
            checker.problems.append(f"{page}: {record} cannot be read: {error}")
            continue
        said = found.groups()
        line = text.count("\n", 0, found.start()) + 1
        if said != wanted:
            checker.problems.append(f"{page}:{line}: says {', '.join(said)} where {record} gives {', '.join(wanted)}")
        checker.counts["records"] = checker.counts.get("records", 0) + 1


class Checker:
    def __init__(self, root, cli, fuzz_targets, makefile):
        self.root, self.cli, self.fuzz_targets, self.makefile = root, cli, fuzz_targets, makefile
        self.problems = []
        self.docs = {}
        self.counts = dict(files=0, links=0, make=0, serdiff=0, targets=0)

    def problem(self, doc, line, message):
        self.problems.append(f"{doc.rel}:{line}: {message}")

    def doc(self, path):
        path = path.resolve()
        if path not in self.docs:
            self.docs[path] = Doc(path, self.root)
        return self.docs[path]

    def check(self, doc, history):
        self.counts["files"] += 1
        self.check_links(doc)
        for line, text in doc.prose:
            plain = re.sub(r"`[^`]*`|\]\([^)]*\)|[\w-]+/[\w.-]+#\d+", "", text)
            if ISSUE_NUMBER.search(plain):
                self.problem(doc, line, "a tracker issue number (an upstream one is owner/repo#N): say what the change "
                                        "was instead")
            word = PROCESS_WORDS.search(plain)
            if word:
                self.problem(doc, line, f"'{word.group(0)}': the docs speak of the project, not of who ran what or "
                                        "how the page was made; say what was run and measured")
        if history:
            return
        limit = README_LINES if doc.rel == "README.md" else PAGE_LINES
        length = len(doc.lines) - (1 if doc.lines and doc.lines[-1] == "" else 0)
        if doc.rel != "CHANGELOG.md" and length > limit:
            self.problem(doc, limit + 1, f"{length} lines: a reference page keeps to {limit} (history goes to docs/notes/)")
        for line, text in doc.prose:
            heading = re.match(r"^#{1,6}\s+(.*)", text)
            if heading and doc.rel != "CHANGELOG.md" and re.search(r"\b20\d\d-\d\d-\d\d\b|\((?:second|third|fourth|fifth|later|again)\)",
                                     heading.group(1)):
                self.problem(doc, line, "a dated section in a reference page: move it to docs/notes/YYYY-MM-DD-topic.md")
        for line, text in doc.code:
            self.check_code(doc, line, text)
        self.check_tables(doc)

    # (b) links and anchors
    def check_links(self, doc):
        for line, text in doc.prose:
            text = re.sub(r"`[^`]*`", "", text)
            for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                    continue
                self.counts["links"] += 1
                path_part, _, anchor = target.partition("#")
                path = doc.path if not path_part else (doc.path.parent / path_part)
                if not path.exists():
                    self.problem(doc, line, f"broken link: {target} ({path_part} does not exist)")
                    continue
                if anchor and path.suffix == ".md" and path.is_file():
                    if anchor not in self.doc(path).anchors:
                        where = "this file" if not path_part else path_part
                        self.problem(doc, line, f"broken link: {target} (no heading with anchor #{anchor} in {where})")

    # (a), (c), (d) in code
    def check_code(self, doc, line, text):
        text = re.sub(r"<[^<>]*>", "<x>", text)  # <file or directory>: one placeholder word
        for match in re.finditer(r"(?:^|(?<=[\s;&|(]))make(?=\s|$)", text):
            # Environment assignments right before `make` are variables too (ASAN_OPTIONS=... make fuzz).
            before = split_command(text[:match.start()].rsplit(";", 1)[-1].rsplit("&&", 1)[-1])
            env = [word.split("=", 1)[0] for word in before if re.match(r"^[A-Za-z_]\w*=", word)]
            words = split_command(text[match.end():])
            self.check_make(doc, line, env, words)
        for match in re.finditer(r"(?:^|(?<=[\s;&|(/]))serdiff\s+([a-z][\w-]*)", text):
            # Up to a comment or the next command; a synopsis' [--a x|y] [--b] stays in (its | is not a pipe).
            rest = re.split(r"\s#|;|&&|\|\||\s\|\s", text[match.end():], maxsplit=1)[0]
            self.check_serdiff(doc, line, match.group(1), rest)
        self.check_target_mentions(doc, line, text)

    def check_make(self, doc, line, env, words):
        self.counts["make"] += 1
        for name in env:
            if name not in self.makefile.variables and name not in ENV_ALLOWED:
                self.problem(doc, line, f"environment variable {name} is neither a Makefile variable nor in "
                                        "docs_check.py's ENV_ALLOWED")
        for word in words:
            assign = re.match(r"^([A-Za-z_]\w*)=(.*)$", word, re.S)
            if assign:
                if assign.group(1) not in self.makefile.variables and assign.group(1) not in ENV_ALLOWED:
                    self.problem(doc, line, f"make variable {assign.group(1)} is not in the Makefile")
            elif word.startswith("-") or PLACEHOLDER.search(word):
                continue
            elif re.fullmatch(r"[a-z][\w.-]*", word):
                if not self.makefile.has_target(word):
                    self.problem(doc, line, f"make target '{word}' is not a rule of the Makefile")
            else:
                break  # prose after a command in a code span

    def check_serdiff(self, doc, line, command, rest):
        self.counts["serdiff"] += 1
        if command not in self.cli.commands:
            self.problem(doc, line, f"serdiff command '{command}' is not in serdiff --help "
                                    f"(commands: {' '.join(sorted(self.cli.commands))})")
            return
        allowed = self.cli.options[None] | self.cli.options.get(command, set())
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", rest):
            if option not in allowed:
                self.problem(doc, line, f"serdiff {command}: option {option} is not in its --help")
        words = rest.split()
        first = words[0].strip("[]()") if words else ""
        if re.fullmatch(r"[a-z][\w-]*", first) and first not in self.cli.words(command):
            self.problem(doc, line, f"serdiff {command} {first}: '{first}' does not appear in serdiff {command} --help")

    def check_target(self, doc, line, name, where):
        if PLACEHOLDER.search(name) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            return
        self.counts["targets"] += 1
        if name not in self.fuzz_targets:
            self.problem(doc, line, f"fuzz target '{name}' ({where}) is not in the fuzz binary's --list --json")

    def check_target_mentions(self, doc, line, text):
        words = split_command(text)
        for index, word in enumerate(words):
            assign = re.match(r"^(TARGETS|TARGET|FUZZ)=(.*)$", word, re.S)
            if assign:
                for name in target_names(assign.group(2)):
                    self.check_target(doc, line, name, f"{assign.group(1)}=")
            option = re.match(r"^--(targets?)(?:=(.*))?$", word)
            if option:
                value = option.group(2) if option.group(2) is not None else (
                    words[index + 1] if index + 1 < len(words) else "")
                for name in target_names(value):
                    self.check_target(doc, line, name, f"--{option.group(1)}")
        for name in re.findall(r"(?<![\w/.-])corpora/(?!dicts\b)([A-Za-z0-9_<>]+)", text):
            self.check_target(doc, line, name, "corpora/<target>")
        for name in re.findall(r"corpora/dicts/([A-Za-z0-9_]+)\.dict", text):
            self.check_target(doc, line, name, "corpora/dicts/<target>.dict")

    def check_tables(self, doc):
        for rows in doc.tables:
            for line, cells in rows:
                for cell in cells:
                    if len(cell) > TABLE_CELL_CHARS:
                        self.problem(doc, line, f"a table cell of {len(cell)} characters: keep cells to "
                                                f"{TABLE_CELL_CHARS} (prose or a note below the table says the rest)")
            header_line, header = rows[0]
            columns = [i for i, cell in enumerate(header) if cell.strip("*` ").lower() in ("target", "targets")]
            for line, cells in rows[1:]:
                for column in columns:
                    if column >= len(cells):
                        continue
                    cell = cells[column]
                    spans = re.findall(r"`([^`]+)`", cell)
                    names = spans if spans else ([cell] if re.fullmatch(r"[a-z][a-z0-9_]*", cell) else [])
                    for name in names:
                        self.check_target(doc, line, name, "a table's target column")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serdiff", required=True, help="the serdiff CLI")
    parser.add_argument("--fuzz-binary", required=True, help="a fuzz binary (serdiff_fuzz_replay): --list --json")
    parser.add_argument("root", nargs="?", default=Path(__file__).resolve().parents[1], type=Path,
                        help="the repository (default: this script's)")
    args = parser.parse_args()
    root = args.root.resolve()

    code, listing = run([args.fuzz_binary, "--list", "--json"], stdout_only=True)
    try:
        fuzz_targets = {entry["name"] for entry in json.loads(listing)}
    except (ValueError, TypeError, KeyError) as error:
        sys.exit(f"docs_check: {args.fuzz_binary} --list --json (exit {code}) is not a list of targets: {error}")
    checker = Checker(root, Cli(args.serdiff), fuzz_targets, Makefile(root / "Makefile"))

    paths = [root / "README.md", root / "CHANGELOG.md", *sorted((root / "docs").rglob("*.md"))]
    notes = root / "docs" / "notes"
    for path in paths:
        if path.is_file():
            checker.check(checker.doc(path), history=notes in path.resolve().parents)

    check_records(checker, root, fuzz_targets)
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not SKIPPED_DIRECTORIES.match(d))
        for name in sorted(files + subdirectories):
            if ISSUE_FILE_NAME.search(name):
                where = (Path(directory) / name).relative_to(root).as_posix()
                checker.problems.append(f"{where}: a file named after a tracker issue: name it by what it holds")

    for problem in checker.problems:
        print(problem)
    counts = checker.counts
    print(f"docs_check: {counts['files']} files, {counts['links']} links, {counts['make']} make commands, "
          f"{counts['serdiff']} serdiff commands, {counts['targets']} fuzz target names, "
          f"{counts.get('records', 0)} numbers checked against their records: "
          f"{len(checker.problems)} problem(s)", file=sys.stderr)
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main())
