#!/usr/bin/env python3
"""serdiff crash triage: replays crash inputs, minimizes them, groups them by signature and explains each
unique finding. `make fuzz` (tools/fuzz/run.py) calls it on the crashes of its run; `make triage DIR=...`
runs it on crash files from elsewhere (OSS-Fuzz, CI artifacts, AFL++ output directories).

  tools/fuzz/triage.py [--target NAME] [--bin-dir DIR] [--minimize-seconds 30] [--out DIR] PATH...

PATH is a crash file or a directory searched recursively for crash files: libFuzzer's crash-*, oom-*,
timeout-*, leak-*; OSS-Fuzz's clusterfuzz-testcase-*; run.py's afl-crash-*, afl-seed-crash-*; any file in
a directory named crashes/ (AFL++'s <out>/default/crashes/id:*). The target comes from --target, else from a path component named like a
target (fuzz-out/crashes/<target>/, <target>/default/crashes/, crash-<target>-...), else it is an error.

Per crash: the replay driver reproduces it and its report gives a signature — the target plus the
mismatch report's headline and the class of its first difference (byte offset range and whether the
lengths differ, the decoded field, the read operation), or the sanitizer's error type and top three
frames. The smallest crash of each signature and engine is minimized (libFuzzer -minimize_crash, or
afl-tmin for AFL++ crashes, each with a time budget) and replayed again; crashes are then grouped by
the minimized input's signature. Each unique finding gets one block: headline, first difference,
the minimized input in hex, a one-line replay command and, for object targets, what
`serdiff inspect TYPE --impl both` says about the input.
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
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import subject  # noqa: E402  (the binaries' names: <subject>_fuzz_*)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MINIMIZE_SECONDS = 30
REPLAY_TIMEOUT_SECONDS = 120
INSPECT_HEX_LIMIT = 4096      # larger inputs are passed to serdiff inspect as a file, not --hex
HEX_SHOWN = 256               # minimized input bytes printed in a finding block
CRASH_NAME = re.compile(r"^(crash|oom|timeout|leak|afl-crash|afl-seed-crash|clusterfuzz-testcase)-")

# A target's .codec (SERDIFF_FUZZ_TARGET) is a type of the codec table (model/codec_table.h), which is also
# its serdiff inspect TYPE; "" = none (a program target, or a peer target such as peer_transaction).


def log(message=""):
    print(message, flush=True)


def rel(path):
    path = Path(path)
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


@dataclass
class Crash:
    path: Path
    target: str
    engine: str = ""             # libfuzzer, afl or "" (unknown: a file from elsewhere)
    from_seeds: bool = False     # found while the engine replayed its seeds, before any mutation
    replay: object = None        # what replaying it gave (triage fills it)


@dataclass
class Replay:
    reproduced: bool
    status: int
    output: str
    signature: str = ""
    kind: str = ""               # mismatch, sanitizer, other
    headline: str = ""
    details: list = field(default_factory=list)


@dataclass
class Finding:
    target: str
    signature: str
    replay: Replay
    minimized: Path
    minimized_bytes: bytes
    original_size: int
    method: str
    crashes: list = field(default_factory=list)
    original_headlines: set = field(default_factory=set)
    replay_command: str = ""
    explanation: list = field(default_factory=list)
    directory: Path = None


# --- signatures -----------------------------------------------------------------------------------

def normalize(text):
    """Numbers and long hex runs out, so the same failure at another value has the same signature."""
    text = re.sub(r"\b[0-9a-f]{8,}\b", "H", text)
    return re.sub(r"\d+", "N", text).strip()


def offset_class(offset):
    if offset < 2:
        return str(offset)
    low = 1 << (offset.bit_length() - 1)
    return f"{low}-{2 * low - 1}"


def difference_class(details):
    """The class of a mismatch report's first difference (what the signature keeps of it)."""
    first = details[0] if details else ""
    m = re.match(r"first difference at offset (\d+) \(\w+ (\d+) bytes, \w+ (\d+) bytes\)", first)
    if m:
        offset, left, right = (int(g) for g in m.groups())
        lengths = "same length" if left == right else (
            "lengths differ, one a prefix of the other" if offset == min(left, right) else "lengths differ")
        return f"bytes at offset {offset_class(offset)}, {lengths}"
    if first.startswith("first difference at character"):
        optimized = next((line for line in details if re.match(r"(optimized|core): ", line)), "")
        fields = re.findall(r'"(\w+)":', optimized.split(">>>")[0])
        return f"value field {fields[-1]}" if fields else "value"
    if first.startswith("first differing read"):
        def operation(side):
            line = next((line for line in details if line.strip().startswith(side + ":")), "")
            m = re.search(r"#\d+ (\S+)", line)
            return m.group(1) if m else normalize(line.split(":", 1)[-1])[:60]
        side = "core" if any(line.strip().startswith("core:") for line in details) else "optimized"
        return f"read {operation(side)} vs {operation('reference')}"
    return normalize(" / ".join(details[:2]))[:160]


RUNTIME_FRAME = re.compile(r"^(__asan|__interceptor|__sanitizer|__ubsan|__msan|__lsan|___interceptor|abort|raise|"
                           r"__GI_|__libc|_start|fuzzer::|LLVMFuzzer|std::__|__cxa|__gnu_cxx|operator new|"
                           r"operator delete|malloc|calloc|realloc|free|memcpy|memmove|memset|strlen|"
                           r"serdiff::differential::report_mismatch|\(anonymous namespace\)::on_abort)")


def mangled_scope(name):
    """The leading nested names of a mangled symbol the symbolizer left as is (a lambda in a local class):
    _ZZZN7serdiff9optimized13decode_varint... → serdiff::optimized::decode_varint (inner)."""
    rest = name.lstrip("_Z").lstrip("N")
    parts = []
    while (m := re.match(r"(\d+)", rest)):
        length, rest = int(m.group(1)), rest[len(m.group(1)):]
        parts.append(rest[:length])
        rest = rest[length:]
    return "::".join(parts) + " (inner)" if parts else name


def frame_name(function):
    """A frame's function without template arguments, parameter lists, return type or const: the signature
    must not change with the integer type a template was instantiated for."""
    if function.startswith("_Z"):
        return mangled_scope(function)
    previous = None
    while previous != function:
        previous = function
        function = re.sub(r"\([^()]*\)", "", re.sub(r"<[^<>]*>", "", function))
    function = re.sub(r"\s+const$", "", function.strip())
    return function.split(" ")[-1] if function else function


def top_frames(text, count=3):
    frames = []
    for m in re.finditer(r"^\s*#\d+ 0x[0-9a-f]+ in (.+?)(?: /\S+| \(\S+\))?$", text, re.MULTILINE):
        function = frame_name(m.group(1).strip())
        if function and not RUNTIME_FRAME.match(function) and function not in frames:
            frames.append(function)
        if len(frames) == count:
            break
    return frames


def classify(target, replay):
    """Fills the replay's signature, kind, headline and details from its output."""
    text = replay.output
    m = re.search(r"==== serdiff MISMATCH in (.*?) ====\n(.*?)\ninput \(", text, re.DOTALL)
    if m:
        replay.kind, replay.headline = "mismatch", m.group(1)
        replay.details = m.group(2).splitlines()
        replay.signature = f"{target} | {replay.headline} | {difference_class(replay.details)}"
        return replay
    m = re.search(r"^(\S+?):(\d+):\d+: runtime error: (.*)$", text, re.MULTILINE)
    if m:
        where = f"{Path(m.group(1)).name}:{m.group(2)}"
        replay.kind, replay.headline = "sanitizer", f"UndefinedBehaviorSanitizer at {where}: {m.group(3)}"
        replay.details = [m.group(0)] + [f"  at {f}" for f in top_frames(text)]
        replay.signature = f"{target} | UBSan {where}: {normalize(m.group(3))}"
        return replay
    m = re.search(r"ERROR: (\w+Sanitizer|libFuzzer|serdiff): (.*)$", text, re.MULTILINE)
    if m:
        frames = top_frames(text)
        # A sanitizer's error type is its first word (heap-buffer-overflow, SEGV, ...); libFuzzer's is a phrase
        # (deadly signal, out-of-memory (malloc(N)), timeout after N seconds).
        error = m.group(2).split()[0] if m.group(1) != "libFuzzer" else normalize(m.group(2).split(" (")[0])
        replay.kind, replay.headline = "sanitizer", f"{m.group(1)}: {error}"
        line = re.search(r"ERROR: \w+: .*", text).group(0)
        replay.details = [line] + [f"  at {f}" for f in frames]
        replay.signature = f"{target} | {m.group(1)}: {error} | {' < '.join(frames)}"
        return replay
    replay.kind = "other"
    replay.headline = f"exit status {replay.status} without a report" if replay.reproduced else \
        "does not reproduce under the replay driver (timeout, out-of-memory or state from earlier inputs?)"
    tail = [line for line in text.splitlines() if line.strip()][-3:]
    replay.details = tail
    replay.signature = f"{target} | {replay.headline}"
    return replay


# --- tools ----------------------------------------------------------------------------------------

class Tools:
    """The binaries of one build tree: replay driver, engine binaries (for minimizing), serdiff CLI."""

    def __init__(self, bin_dir, engine_bin_dirs=None):
        self.bin_dir = Path(bin_dir).resolve()
        dirs = dict(engine_bin_dirs or {})
        self.engine_binaries = {}
        for engine in ("libfuzzer", "afl"):
            directory = Path(dirs.get(engine, self.bin_dir)).resolve()
            binary = directory / subject.binary_name(engine)
            if binary.exists():
                self.engine_binaries[engine] = binary
        self.replay = self.bin_dir / subject.binary_name("replay")
        if not self.replay.exists():
            sys.exit(f"triage: no replay driver at {self.replay} (build it: make fuzz-build)")
        self._cli = None
        self._options = None

    @property
    def cli(self):
        """The serdiff CLI of the same tree (same code, same planted bug), built on first use when missing."""
        if self._cli is None:
            path = self.bin_dir / "serdiff"
            if not path.exists() and (self.bin_dir.parent / "CMakeCache.txt").exists():
                log(f"triage: building the serdiff CLI in {rel(self.bin_dir.parent)} to explain findings ...")
                subprocess.run(["cmake", "--build", str(self.bin_dir.parent), "-j", "2", "--target", "serdiff"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self._cli = path if path.exists() else False
        return self._cli or None

    def options(self):
        if self._options is None:
            listing = subprocess.run([str(self.replay), "--list", "--json"], check=True, capture_output=True,
                                     text=True).stdout
            self._options = {entry["name"]: entry for entry in json.loads(listing)}
        return self._options


def replay(tools, target, path):
    try:
        result = subprocess.run([str(tools.replay), "--target", target, str(path)], capture_output=True,
                                text=True, errors="replace", timeout=REPLAY_TIMEOUT_SECONDS,
                                env={**os.environ, "FUZZ": target})
        status, output = result.returncode, result.stdout + result.stderr
    except subprocess.TimeoutExpired as timeout:
        status, output = -1, f"replay timed out after {REPLAY_TIMEOUT_SECONDS} s\n" + str(timeout.stderr or "")
    return classify(target, Replay(reproduced=status != 0, status=status, output=output))


def minimize(tools, crash, seconds, work):
    """Minimizes one crash input: libFuzzer -minimize_crash, or afl-tmin for an AFL++ crash. Returns
    (path of the smallest crashing input, how it was made)."""
    work.mkdir(parents=True, exist_ok=True)
    out = work / "minimized"
    out.unlink(missing_ok=True)
    engine = crash.engine if crash.engine in tools.engine_binaries else next(iter(tools.engine_binaries), "")
    if seconds <= 0 or not engine:
        return crash.path, "not minimized" + ("" if engine else " (no engine binary)")
    environment = {**os.environ, "FUZZ": crash.target}
    started = time.time()
    max_len = max(tools.options().get(crash.target, {}).get("max_len", 0), crash.path.stat().st_size)
    if engine == "libfuzzer":
        command = [str(tools.engine_binaries["libfuzzer"]), "-minimize_crash=1", f"-max_total_time={seconds}",
                   f"-exact_artifact_path={out}", f"-max_len={max_len}", "-timeout=30", "-rss_limit_mb=2048",
                   str(crash.path)]
        method = "libFuzzer -minimize_crash"
        try:
            subprocess.run(command, env=environment, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=seconds + 60)
        except subprocess.TimeoutExpired:
            pass
    else:
        command = ["afl-tmin", "-i", str(crash.path), "-o", str(out), "-m", "none", "-t", "5000", "--",
                   str(tools.engine_binaries["afl"])]
        method = "afl-tmin"
        environment.update({"AFL_SKIP_CPUFREQ": "1", "AFL_NO_AFFINITY": "1", "AFL_FORKSRV_INIT_TMOUT": "60000"})
        try:
            subprocess.run(command, env=environment, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=seconds)
        except subprocess.TimeoutExpired:
            method += f" (stopped at the {seconds} s budget)"
    elapsed = time.time() - started
    if out.exists() and 0 < out.stat().st_size < crash.path.stat().st_size:
        return out, f"{method}, {elapsed:.1f} s"
    return crash.path, f"{method} made nothing smaller ({elapsed:.1f} s)"


def explain(tools, target, replay_result, minimized, data, originals=()):
    """Object targets: what serdiff inspect --impl both says about the input (and, when both sides decode the
    minimized input alike, about the crash inputs it came from, reported under another headline); targets
    without a codec (programs, peers): the report."""
    if not replay_result.reproduced:
        return [f"(nothing to explain: it does not fail with {rel(tools.replay)}; was it found with another build, "
                "another sanitizer or a planted bug?)"]
    codec = tools.options().get(target, {}).get("codec", "")
    if subject.current() == "core":
        # serdiff inspect decodes with serdiff's optimized side, not with Core: a Core finding is explained by the
        # Core binary's own report, which shows Core's side (HEAD), BASE's when the binary compares with one
        # (docs/base.md), and the reference's.
        rest = replay_result.details[:16]
        return [f"(the Core subject: {rel(tools.replay)}'s report of Core's code"
                + (" against BASE and" if subject.core_base() else " against")
                + " the reference is the explanation; in full in report.txt)"] + [f"  {line}" for line in rest]
    if not codec:
        rest = replay_result.details[4:16]  # the first 4 lines are the block's difference already
        return ["(no serdiff inspect type for this target: the report is the explanation; in full in report.txt)"] + \
            [f"  {line}" for line in rest]
    lines = inspect(tools, target, replay_result.headline, minimized, data)
    if len(lines) > 1 and "decode this input alike" in lines[1]:
        for path, headline in originals:
            if headline == replay_result.headline:
                continue
            more = inspect(tools, target, headline, path, Path(path).read_bytes())
            if len(more) > 1 and more[1].startswith("  they disagree"):
                lines += [f"the crash input before minimizing ({headline}):"] + more
                break
    return lines


def inspect(tools, target, headline, minimized, data):
    """`serdiff inspect TYPE --impl both` of one input, TYPE (and --int, --no-range-check) from the target's
    .codec and the report's label; the command and a short verdict."""
    if tools.cli is None:
        return [f"(no serdiff CLI in {rel(tools.bin_dir)} to explain with)"]
    kind = tools.options()[target]["codec"]
    label = headline
    extra = []
    if kind == "transaction" and "(no witness)" in label:
        extra = ["--no-witness"]
    if kind == "varint":
        m = re.search(r"varint\((\w+)\)", label)
        extra = ["--int", m.group(1) if m else "u64"]
    if kind == "compact_size" and "no range check" in label:
        extra = ["--no-range-check"]
    source = ["--hex", data.hex()] if len(data) <= INSPECT_HEX_LIMIT else [str(minimized)]
    command = [str(tools.cli), "inspect", kind, "--impl", "both"] + extra + source
    shown = [rel(tools.cli), "inspect", kind, "--impl", "both"] + extra + (
        ["--hex", data.hex()] if len(data) <= 64 else ["--hex", "<minimized input>"] if source[0] == "--hex"
        else [rel(minimized)])
    result = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=120)
    lines = [" ".join(shown) + f"   (exit {result.returncode})"]
    try:
        verdict = json.loads(result.stdout)
    except json.JSONDecodeError:  # e.g. a sanitizer crash: the CLI of the same tree trips over it too
        return lines + ["  no verdict: the CLI failed on this input as well:"] + \
            [f"  {line}" for line in (result.stdout + result.stderr).splitlines()[:6]]

    def side(name):
        s = verdict.get(name, {})
        if not s.get("ok"):
            return f"{name:>9}: rejected: {s.get('error', '?')}"
        hex_text = s.get("reencoded_hex", "")
        return (f"{name:>9}: accepted, consumed {s.get('consumed')}, size {s.get('size')}, re-encoded "
                f"{hex_text[:64]}{'...' if len(hex_text) > 64 else ''}")

    if verdict.get("agree"):
        lines.append("  both implementations decode this input alike, so the difference is in the step the report "
                     "names (encoding the value the target derives from the input), shown above:")
    else:
        lines.append(f"  they disagree: {verdict.get('difference', '?')}")
    lines += ["  " + side("optimized"), "  " + side("reference")]
    return lines


# --- finding crash files --------------------------------------------------------------------------

def looks_like_crash(path):
    """libFuzzer's and OSS-Fuzz's crash names, run.py's AFL++ harvest, or any file AFL++ (or anyone) put in a
    directory named crashes/ (its README.txt aside). AFL++'s queue/ and hangs/ are not crashes."""
    if not path.is_file() or path.name.startswith(".") or path.name == "README.txt":
        return False
    return CRASH_NAME.match(path.name) is not None or path.parent.name == "crashes"


def guess_target(path, targets):
    for part in reversed(path.parts[:-1]):
        if part in targets:
            return part
    for name in sorted(targets, key=len, reverse=True):
        if re.search(rf"(^|[-_./]){re.escape(name)}([-_.]|$)", path.name):
            return name
    return None


def find_crashes(paths, targets, target=None):
    crashes, unknown = [], []
    for root in paths:
        root = Path(root)
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if looks_like_crash(p))
        for path in files:
            name = target or guess_target(path.resolve(), targets)
            if name is None:
                unknown.append(path)
                continue
            engine = "afl" if (path.name.startswith("id:") or path.name.startswith("afl-")) else \
                "libfuzzer" if re.match(r"(crash|oom|timeout|leak)-", path.name) else ""
            crashes.append(Crash(path=path.resolve(), target=name, engine=engine,
                                 from_seeds=path.name.startswith("afl-seed-crash-")))
    return crashes, unknown


# --- what the engines' logs say ---------------------------------------------------------------------

def found_replaying_seeds(engine, log_path, crash_names):
    """True when a run's crashes came before any mutation: libFuzzer crashed before its "INITED" line (it was
    still running the corpus), or every AFL++ crash is a seed it skipped in its dry run."""
    if engine == "afl":
        return bool(crash_names) and all(name.startswith("afl-seed-crash-") for name in crash_names)
    try:
        text = Path(log_path).read_text(errors="replace")
    except FileNotFoundError:
        return False
    return re.search(r"^#\d+\s+INITED", text, re.MULTILINE) is None


def afl_crashing_seeds(log_path, seeds_dir):
    """The seeds AFL++ ran in its dry run that crashed (skipped under AFL_SKIP_CRASHES, named in its log as
    its queue entry 'id:N,time:0,execs:0,orig:<seed file name>')."""
    try:
        text = re.sub(r"\x1b\[[0-9;]*m", "", Path(log_path).read_text(errors="replace"))
    except FileNotFoundError:
        return []
    found = []
    for name in re.findall(r"Test case '([^']+)' results in a crash", text):
        original = name.split("orig:", 1)[1] if "orig:" in name else Path(name).name
        for candidate in (Path(name), Path(seeds_dir) / original):
            if candidate.is_file() and candidate not in found:
                found.append(candidate)
                break
    return found


def harvest_afl_seed_crashes(log_path, seeds_dir, crashes_dir):
    """Saves AFL++'s crashing seeds as afl-seed-crash-<sha1> in crashes_dir (replacing an afl-crash-<sha1> of
    the same content: AFL++ can list a skipped seed among its crashes too)."""
    for seed in afl_crashing_seeds(log_path, seeds_dir):
        digest = hashlib.sha1(seed.read_bytes()).hexdigest()
        Path(crashes_dir).mkdir(parents=True, exist_ok=True)
        (Path(crashes_dir) / f"afl-crash-{digest}").unlink(missing_ok=True)
        shutil.copyfile(seed, Path(crashes_dir) / f"afl-seed-crash-{digest}")


# --- triage ---------------------------------------------------------------------------------------

def triage(crashes, tools, minimize_seconds=DEFAULT_MINIMIZE_SECONDS, out_dir=None, progress=log):
    """Replays, minimizes and groups `crashes`; returns the unique findings (most crash files first)."""
    out_dir = Path(out_dir or ROOT / "fuzz-out" / "findings")
    first = {}
    for crash in crashes:
        crash.replay = replay(tools, crash.target, crash.path)
        # Representatives: the smallest crash per (original signature, engine).
        key = (crash.replay.signature, crash.engine)
        if key not in first or crash.path.stat().st_size < first[key].path.stat().st_size:
            first[key] = crash
    minimized_signature = {}
    for (signature, engine), crash in first.items():
        progress(f"triage: minimizing {rel(crash.path)} ({crash.path.stat().st_size} bytes, {engine or 'any engine'}, "
                 f"budget {minimize_seconds} s): {crash.replay.headline}")
        work = out_dir / "work" / hashlib.sha1(f"{signature}|{engine}".encode()).hexdigest()[:12]
        path, method = minimize(tools, crash, minimize_seconds, work) if crash.replay.reproduced else \
            (crash.path, "not minimized (does not reproduce)")
        again = replay(tools, crash.target, path) if path != crash.path else crash.replay
        if not again.reproduced and crash.replay.reproduced:  # a minimizer's output must still fail
            path, method, again = crash.path, method + "; its output did not reproduce, kept the original", crash.replay
        minimized_signature[(signature, engine)] = (path, method, again, crash.path.stat().st_size)

    findings = {}
    for crash in crashes:
        path, method, again, original_size = minimized_signature[(crash.replay.signature, crash.engine)]
        finding = findings.get(again.signature)
        data = path.read_bytes()
        if finding is None or len(data) < len(finding.minimized_bytes):
            previous = finding
            finding = Finding(target=crash.target, signature=again.signature, replay=again, minimized=path,
                              minimized_bytes=data, original_size=original_size, method=method)
            if previous:
                finding.crashes, finding.original_headlines = previous.crashes, previous.original_headlines
            findings[again.signature] = finding
        finding.crashes.append(crash)
        finding.original_headlines.add(crash.replay.headline)

    result = sorted(findings.values(), key=lambda f: (-len(f.crashes), f.target, f.signature))
    for finding in result:
        digest = hashlib.sha1(finding.signature.encode()).hexdigest()[:10]
        finding.directory = out_dir / f"{finding.target}-{digest}"
        finding.directory.mkdir(parents=True, exist_ok=True)
        saved = finding.directory / "minimized"
        saved.write_bytes(finding.minimized_bytes)
        finding.minimized = saved
        (finding.directory / "report.txt").write_text(finding.replay.output)
        finding.replay_command = f"{rel(tools.replay)} --target {finding.target} {rel(saved)}"
        originals = sorted(((c.path, c.replay.headline) for c in finding.crashes if c.replay.reproduced),
                           key=lambda item: item[0].stat().st_size)
        finding.explanation = explain(tools, finding.target, finding.replay, saved, finding.minimized_bytes,
                                      originals)
    shutil.rmtree(out_dir / "work", ignore_errors=True)
    return result


def finding_block(index, total, finding):
    engines = sorted({c.engine or "?" for c in finding.crashes})
    seeds = sorted({c.engine or "?" for c in finding.crashes if c.from_seeds})
    lines = [f"FINDING {index}/{total}  {finding.target}: {finding.replay.headline}",
             f"  found by:   {', '.join(engines)} ({len(finding.crashes)} crash file(s))"
             + (f"; by {', '.join(seeds)} while replaying seeds" if seeds else ""),
             f"  signature:  {finding.signature}"]
    lines += [f"  {'difference:' if i == 0 else '           '} {line}"
              for i, line in enumerate(finding.replay.details[:4])]
    data = finding.minimized_bytes
    lines.append(f"  minimized:  {len(data)} bytes (from {finding.original_size}; {finding.method}): "
                 f"{data[:HEX_SHOWN].hex()}{'...' if len(data) > HEX_SHOWN else ''}")
    lines.append(f"  replay:     {finding.replay_command}")
    lines += [f"  {'explain:' if i == 0 else '        '}    {line}" for i, line in enumerate(finding.explanation)]
    other = sorted(h for h in finding.original_headlines if h != finding.replay.headline)
    if other:
        lines.append(f"  before minimizing also reported as: {'; '.join(other)}")
    directories = sorted({rel(c.path.parent) for c in finding.crashes})
    names = [c.path.name for c in finding.crashes]
    lines.append(f"  crash files: {len(names)} in {', '.join(d + '/' for d in directories)}: "
                 + ", ".join(n[:24] for n in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else ""))
    lines.append(f"  saved in:   {rel(finding.directory)}/ (minimized, report.txt)")
    return "\n".join(lines)


def print_findings(findings, crash_count):
    log("")
    log(f"triage: {crash_count} crash file(s) → {len(findings)} unique finding(s)")
    for index, finding in enumerate(findings, 1):
        log("")
        log(finding_block(index, len(findings), finding))


def findings_json(findings):
    return [{"target": f.target, "signature": f.signature, "headline": f.replay.headline, "kind": f.replay.kind,
             "first_difference": f.replay.details[:4], "minimized_hex": f.minimized_bytes.hex(),
             "minimized_size": len(f.minimized_bytes), "original_size": f.original_size, "method": f.method,
             "replay": f.replay_command, "explanation": f.explanation,
             "crashes": [{"path": rel(c.path), "engine": c.engine, "from_seeds": c.from_seeds} for c in f.crashes],
             "directory": rel(f.directory)} for f in findings]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="crash files or directories to search")
    parser.add_argument("--target", default=None, help="the target of every crash (default: guessed from paths)")
    parser.add_argument("--bin-dir", default=str(ROOT / "build" / "fuzz-libfuzzer" / "bin"),
                        help="build tree bin/ with <subject>_fuzz_replay (and <subject>_fuzz_<engine>, serdiff)")
    subject.add_arguments(parser)
    parser.add_argument("--minimize-seconds", type=int, default=DEFAULT_MINIMIZE_SECONDS,
                        help="time budget per minimization (0: do not minimize)")
    parser.add_argument("--out", default=str(ROOT / "fuzz-out" / "triage"), help="where findings are saved")
    arguments = parser.parse_args()
    subject.select(arguments.subject, arguments.core_src, arguments.core_base)
    tools = Tools(arguments.bin_dir)
    targets = tools.options()
    if arguments.target and arguments.target not in targets:
        sys.exit(f"triage: unknown target {arguments.target}; known: {' '.join(targets)}")
    crashes, unknown = find_crashes(arguments.paths, targets, arguments.target)
    for path in unknown:
        log(f"triage: {path}: cannot tell the target from the path; pass TARGET=<name> (--target)")
    if unknown and not crashes:
        return 2
    if not crashes:
        log(f"triage: no crash files in {' '.join(arguments.paths)}")
        return 0
    log(f"triage: {len(crashes)} crash file(s) for {', '.join(sorted({c.target for c in crashes}))}")
    findings = triage(crashes, tools, arguments.minimize_seconds, Path(arguments.out))
    print_findings(findings, len(crashes))
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "findings.json").write_text(json.dumps(findings_json(findings), indent=1) + "\n")
    log(f"\ntriage: findings in {rel(out)}/findings.json")
    return 1 if any(f.replay.reproduced for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
