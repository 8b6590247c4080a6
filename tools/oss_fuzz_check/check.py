#!/usr/bin/env python3
"""make oss-fuzz-check: emulates OSS-Fuzz's build and check_build here, without Docker.

For each sanitizer x engine combination it sets up what OSS-Fuzz's base-builder `compile` would (CC, CXX,
CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, SRC, WORK, OUT), runs ci/oss-fuzz/build.sh on a copy of the tree,
then checks $OUT the way base-runner's bad_build_check and check_build do, plus a short fuzz run per
target: serdiff's targets ($OUT/<target>) and the Core subject's ($OUT/core_<target>, Bitcoin Core's own source
from the pinned sdist the Dockerfile unpacks). Before any build it checks the project files (project.yaml, Dockerfiles, build.sh, the
ClusterFuzzLite workflows) against OSS-Fuzz's presubmit rules. Flag values: docs/oss-fuzz.md.

  tools/oss_fuzz_check/check.py [--combinations oss-fuzz|all|address-libfuzzer,...] [--seconds 3] [--jobs 2]
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "build" / "oss-fuzz"
OSS_FUZZ_DIR = ROOT / "ci" / "oss-fuzz"
CORE_SDIST = ROOT / "subjects" / "core" / "sdist.txt"  # the pinned Core source (docs/core.md)
CORE_TREE = "bitcoin-core"  # where the Dockerfile unpacks it: $SRC/bitcoin-core
# The subjects build.sh emits, each as $OUT/<prefix><target> (fuzz_targets/CMakeLists.txt, docs/core.md).
SUBJECT_PREFIXES = {"serdiff": "", "core": "core_"}
CFLITE_DIR = ROOT / ".clusterfuzzlite"
WORKFLOWS = {"code-change": ROOT / ".github" / "workflows" / "cflite_pr.yml",
             "batch": ROOT / ".github" / "workflows" / "cflite_batch.yml"}

# --- OSS-Fuzz's build environment (infra/base-images/base-clang and base-builder) ----------------------
BASE_CFLAGS = ("-O1 -fno-omit-frame-pointer -gline-tables-only -Wno-error=incompatible-function-pointer-types "
               "-Wno-error=int-conversion -Wno-error=deprecated-declarations "
               "-Wno-error=implicit-function-declaration -Wno-error=implicit-int "
               "-Wno-error=unknown-warning-option -Wno-error=vla-cxx-extension "
               "-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION")
CXXFLAGS_EXTRA = "-stdlib=libc++"
UBSAN_CHECKS = ("array-bounds,bool,builtin,enum,function,integer-divide-by-zero,null,object-size,return,"
                "returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr")
SANITIZER_FLAGS = {
    "address": "-fsanitize=address -fsanitize-address-use-after-scope",
    # unsigned-integer-overflow is a coverage signal only: recoverable and silenced at run time.
    "undefined": f"-fsanitize={UBSAN_CHECKS},unsigned-integer-overflow -fno-sanitize-recover={UBSAN_CHECKS}",
    "memory": "-fsanitize=memory -fsanitize-memory-track-origins",
}
# libFuzzer builds add COVERAGE_FLAGS; AFL++ builds do not (afl-clang-fast instruments). Here AFL++'s
# compiler is Debian's LLVM 14, too old for C++20, so its instrumentation is replaced by the one OSS-Fuzz's
# own compile_afl falls back to (AFL_LLVM_MODE_WORKAROUND): clang with trace-pc-guard, whose callbacks
# afl-compiler-rt.o implements, and LIB_FUZZING_ENGINE = AFL++'s runtime + driver in one archive.
COVERAGE_FLAGS = {"libfuzzer": "-fsanitize=fuzzer-no-link", "afl": "-fsanitize-coverage=trace-pc-guard"}
# AFL++'s runtime and driver: $AFL_PATH, else the first of Debian's and a source install's directories.
AFL_LIB = next((Path(p) for p in (os.environ.get("AFL_PATH"), "/usr/lib/afl", "/usr/local/lib/afl")
                if p and (Path(p) / "libAFLDriver.a").exists()), Path("/usr/lib/afl"))


def llvm_prefix():
    """clang-19's LLVM prefix (libc++ headers and libraries), from llvm-config-19; Debian's path otherwise."""
    try:
        return Path(subprocess.run(["llvm-config-19", "--prefix"], capture_output=True, text=True,
                                   check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        return Path("/usr/lib/llvm-19")

# --- OSS-Fuzz's run-time environment (infra/base-images/base-runner/Dockerfile) -------------------------
RUN_ENV = {
    "ASAN_OPTIONS": "alloc_dealloc_mismatch=0:allocator_may_return_null=1:allocator_release_to_os_interval_ms=500:"
                    "check_malloc_usable_size=0:detect_container_overflow=1:detect_odr_violation=0:detect_leaks=1:"
                    "detect_stack_use_after_return=1:fast_unwind_on_fatal=0:handle_abort=1:handle_segv=1:"
                    "handle_sigill=1:max_uar_stack_size_log=16:print_scariness=1:quarantine_size_mb=10:"
                    "strict_memcmp=1:symbolize=1:use_sigaltstack=1:dedup_token_length=3",
    "MSAN_OPTIONS": "print_stats=1:symbolize=1:dedup_token_length=3",
    "UBSAN_OPTIONS": "print_stacktrace=1:print_summary=1:silence_unsigned_overflow=1:symbolize=1:dedup_token_length=3",
}
FUZZER_ARGS = ["-rss_limit_mb=2560", "-timeout=25"]

# --- bad_build_check thresholds ----------------------------------------------------------------------
MIN_EDGES = 100
SANITIZER_CALL_LIMITS = {  # sanitizer -> runtime -> (minimum, maximum) calls in the binary
    "address": {"asan": (1000, None), "msan": (None, 3), "ubsan": (None, 200), "dfsan": (None, 0)},
    "memory": {"asan": (None, 0), "msan": (1000, None), "ubsan": (None, 200), "dfsan": (None, 0)},
    "undefined": {"asan": (None, 0), "msan": (None, 3), "ubsan": (169, None), "dfsan": (None, 0)},
}

# --- OSS-Fuzz's presubmit (infra/presubmit.py, infra/constants.py) ------------------------------------
VALID_SECTIONS = {"architectures", "auto_ccs", "blackbox", "builds_per_day", "coverage_extra_args", "disabled",
                  "fuzzing_engines", "help_url", "homepage", "language", "labels", "main_repo", "primary_contact",
                  "run_tests", "sanitizers", "selective_unpack", "vendor_ccs", "view_restrictions",
                  "file_github_issue"}
ALLOWED_VALUES = {"sanitizers": {"address", "none", "memory", "undefined", "thread", "coverage", "introspector",
                                 "hwaddress"},
                  "architectures": {"i386", "x86_64", "aarch64"},
                  "fuzzing_engines": {"libfuzzer", "afl", "honggfuzz", "centipede", "none"}}
LANGUAGES = {"c", "c++", "go", "javascript", "jvm", "python", "rust", "swift", "ruby"}
LICENSE_URL = "http://www.apache.org/licenses/LICENSE-2.0"
PLACEHOLDER_DOMAIN = "serdiff.example"

# OSS-Fuzz builds AFL++ with ASan only (ENGINE_INFO in infra/build/functions/build_lib.py).
OSS_FUZZ_COMBINATIONS = [("address", "libfuzzer"), ("undefined", "libfuzzer"), ("memory", "libfuzzer"),
                         ("address", "afl")]
ALL_COMBINATIONS = [(s, e) for e in ("libfuzzer", "afl") for s in ("address", "undefined", "memory")]


def log(message):
    print(message, flush=True)


class Failures:
    def __init__(self):
        self.items = []

    def add(self, where, message):
        self.items.append(f"{where}: {message}")
        log(f"  FAIL {where}: {message}")


# ======================================================================================================
# Project files
# ======================================================================================================

def uncommented(text):
    return "\n".join(line.split("#")[0] for line in text.splitlines())


def instructions(dockerfile_text):
    """A Dockerfile's instructions, one string each: comments dropped, continuation lines joined."""
    result, current = [], ""
    for line in dockerfile_text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1].strip() + " "
            continue
        result.append(current + line.strip())
        current = ""
    if current:
        result.append(current.strip())
    return result


def pinned_core_sdist():
    """(version, sha256) of the Core source subjects/core/sdist.txt pins (py-bitcoinkernel==V --hash=sha256:H)."""
    text = CORE_SDIST.read_text()
    version = re.search(r"^py-bitcoinkernel==(\S+)", text, re.MULTILINE)
    digest = re.search(r"--hash=sha256:([0-9a-f]{64})", text)
    if not version or not digest:
        sys.exit(f"oss-fuzz-check: {CORE_SDIST} pins no py-bitcoinkernel==VERSION --hash=sha256:HASH")
    return version.group(1), digest.group(1)


def core_fetch_command(dockerfile_text):
    """The Dockerfile's RUN command that unpacks the Core sdist into $SRC/bitcoin-core (None: there is none)."""
    for instruction in instructions(dockerfile_text):
        if instruction.startswith("RUN ") and "py_bitcoinkernel-" in instruction:
            return instruction[len("RUN "):]
    return None


def check_project_files(failures):
    import yaml  # PyYAML: Debian's python3-yaml (OSS-Fuzz's presubmit parses project.yaml with it too)
    notes = []
    project_yaml = OSS_FUZZ_DIR / "project.yaml"
    data = yaml.safe_load(project_yaml.read_text())
    where = "ci/oss-fuzz/project.yaml"
    for name in data:
        if name not in VALID_SECTIONS:
            failures.add(where, f"'{name}' is not a section OSS-Fuzz accepts")
    for section, allowed in ALLOWED_VALUES.items():
        for value in data.get(section, []):
            if value not in allowed:
                failures.add(where, f"{section}: '{value}' is not one of {sorted(allowed)}")
    if "main_repo" not in data:
        failures.add(where, "main_repo is missing (required)")
    if data.get("language") not in LANGUAGES:
        failures.add(where, f"language '{data.get('language')}' is not one of {sorted(LANGUAGES)}")
    emails = ([data["primary_contact"]] if data.get("primary_contact") else []) + list(data.get("auto_ccs") or [])
    for email in emails:
        if "@" not in email or "." not in email:
            failures.add(where, f"'{email}' is not an email address")
    # What serdiff's entry must carry (docs/oss-fuzz.md).
    if data.get("language") != "c++":
        failures.add(where, "language must be c++")
    if set(data.get("sanitizers", [])) != {"address", "undefined", "memory"}:
        failures.add(where, "sanitizers must be address, undefined and memory")
    if set(data.get("fuzzing_engines", [])) != {"libfuzzer", "afl"}:
        failures.add(where, "fuzzing_engines must be libfuzzer and afl")
    if not data.get("primary_contact"):
        failures.add(where, "primary_contact is missing (OSS-Fuzz needs someone to send reports to)")
    placeholders = [k for k in ("homepage", "main_repo", "primary_contact")
                    if PLACEHOLDER_DOMAIN in str(data.get(k, ""))]
    if placeholders:
        notes.append(f"{where}: placeholders to replace before submitting: {', '.join(placeholders)}")

    cflite = yaml.safe_load((CFLITE_DIR / "project.yaml").read_text())
    if cflite.get("language") != "c++":
        failures.add(".clusterfuzzlite/project.yaml", "language must be c++")

    # build.sh: OSS-Fuzz's presubmit (no -lFuzzingEngine, license notice) and its conventions.
    build_sh = (OSS_FUZZ_DIR / "build.sh").read_text()
    code = uncommented(build_sh)
    where = "ci/oss-fuzz/build.sh"
    if "-lFuzzingEngine" in code:
        failures.add(where, "uses the deprecated -lFuzzingEngine; link $LIB_FUZZING_ENGINE")
    for variable in ("$CC", "$CXX", "$CFLAGS", "$CXXFLAGS", "$LIB_FUZZING_ENGINE", "$OUT", "$WORK", "$SRC"):
        if not re.search(re.escape(variable) + r"\b", code):
            failures.add(where, f"does not use {variable}")
    if re.search(r"-fsanitize=|\bclang(\+\+)?(-\d+)?\s", code):
        failures.add(where, "hard-codes a compiler or sanitizer flag; both come from OSS-Fuzz's environment")
    for output in ("_seed_corpus.zip", ".dict", ".options"):
        if output not in code:
            failures.add(where, f"does not write $OUT/<target>{output}")
    # The Core subject: both subjects configured, Core's tree from $SRC (the Dockerfile's), both engines built.
    if not re.search(r"-DSERDIFF_SUBJECTS=\"?serdiff;core", code):
        failures.add(where, "does not configure both subjects (-DSERDIFF_SUBJECTS=\"serdiff;core\")")
    if not re.search(r"-DSERDIFF_CORE_SRC=\"?\$(\{)?(SRC|core_tree)", code):
        failures.add(where, f"does not pass the Dockerfile's Core tree ($SRC/{CORE_TREE}) as -DSERDIFF_CORE_SRC")
    if "core_fuzz_engine" not in code or "core_" not in code.replace("core_fuzz_engine", ""):
        failures.add(where, "does not build core_fuzz_engine and emit its targets as $OUT/core_<target>")
    for path in (OSS_FUZZ_DIR / "build.sh", OSS_FUZZ_DIR / "Dockerfile"):
        if LICENSE_URL not in path.read_text():
            failures.add(str(path.relative_to(ROOT)), "lacks the Apache-2.0 URL OSS-Fuzz's presubmit requires for files under projects/")

    # Dockerfiles: base image, clone of main_repo, build.sh in $SRC; ClusterFuzzLite's shares the setup.
    docker = (OSS_FUZZ_DIR / "Dockerfile").read_text()
    where = "ci/oss-fuzz/Dockerfile"
    if not re.search(r"^FROM gcr\.io/oss-fuzz-base/base-builder\s*$", docker, re.MULTILINE):
        failures.add(where, "must start FROM gcr.io/oss-fuzz-base/base-builder")
    if not re.search(r"^RUN git clone .*" + re.escape(str(data.get("main_repo"))) + r" serdiff\s*$", docker,
                     re.MULTILINE):
        failures.add(where, "does not clone main_repo into $SRC/serdiff")
    if not re.search(r"^COPY build\.sh \$SRC/\s*$", docker, re.MULTILINE):
        failures.add(where, "does not COPY build.sh $SRC/")
    cflite_docker = (CFLITE_DIR / "Dockerfile").read_text()
    where = ".clusterfuzzlite/Dockerfile"
    if not re.search(r"^FROM gcr\.io/oss-fuzz-base/base-builder(:v1)?\s*$", cflite_docker, re.MULTILINE):
        failures.add(where, "must start FROM gcr.io/oss-fuzz-base/base-builder")
    for line in ("COPY . $SRC/serdiff", "COPY ci/oss-fuzz/build.sh $SRC/"):
        if line not in cflite_docker.splitlines():
            failures.add(where, f"lacks '{line}'")
    setup = [i for i in instructions(docker) if i.startswith("RUN") and "serdiff" not in i]
    cflite_setup = [i for i in instructions(cflite_docker) if i.startswith("RUN")]
    if setup != cflite_setup:
        failures.add(where, "its RUN lines differ from ci/oss-fuzz/Dockerfile's (the two builds must match)")
    # The Core source: the sdist subjects/core/sdist.txt pins, by the same hash, unpacked into $SRC/bitcoin-core.
    version, digest = pinned_core_sdist()
    fetch = core_fetch_command(docker)
    where = "ci/oss-fuzz/Dockerfile"
    if fetch is None:
        failures.add(where, "does not fetch the Core sdist (a RUN step with py_bitcoinkernel-<version>.tar.gz)")
    else:
        if f"py_bitcoinkernel-{version}.tar.gz" not in fetch:
            failures.add(where, f"fetches another py-bitcoinkernel sdist than subjects/core/sdist.txt's {version}")
        if not re.search(r"\b" + digest + r"\b", fetch) or "sha256sum -c" not in fetch:
            failures.add(where, f"does not check the Core sdist against subjects/core/sdist.txt's sha256 {digest[:12]}...")
        if not re.search(r"(-C|mv \S+) " + re.escape(CORE_TREE) + r"\b", fetch):
            failures.add(where, f"does not unpack the Core tree into $SRC/{CORE_TREE}")

    # ClusterFuzzLite workflows: the two modes, the project's sanitizers, the same language.
    for mode, path in WORKFLOWS.items():
        where = str(path.relative_to(ROOT))
        if not path.exists():
            failures.add(where, "missing")
            continue
        workflow = yaml.safe_load(path.read_text())
        text = path.read_text()
        if f"mode: '{mode}'" not in text and f'mode: "{mode}"' not in text and f"mode: {mode}" not in text:
            failures.add(where, f"does not run ClusterFuzzLite in {mode} mode")
        jobs = list(workflow.get("jobs", {}).values())
        sanitizers = set(jobs[0].get("strategy", {}).get("matrix", {}).get("sanitizer", [])) if jobs else set()
        if sanitizers != set(data.get("sanitizers", [])):
            failures.add(where, f"sanitizer matrix {sorted(sanitizers)} differs from project.yaml's")
        triggers = workflow.get(True, workflow.get("on", {}))  # YAML 1.1 reads a bare `on` as True
        expected = "pull_request" if mode == "code-change" else "schedule"
        if expected not in (triggers or {}):
            failures.add(where, f"is not triggered by {expected}")
    return notes


# ======================================================================================================
# The emulated image: $SRC with the project, secp256k1 and build.sh
# ======================================================================================================

def run(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def prepare_source(src):
    """$SRC as the Dockerfile leaves it: the project tree (as git would check it out), secp256k1, build.sh."""
    project = src / "serdiff"
    files = run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True).stdout
    wanted = {Path(name) for name in files.decode().split("\0") if name and (ROOT / name).is_file()}
    for existing in [p for p in project.rglob("*") if p.is_file()] if project.exists() else []:
        if existing.relative_to(project) not in wanted:
            existing.unlink()
    for relative in wanted:
        source, target = ROOT / relative, project / relative
        stat = source.stat()
        if target.exists() and target.stat().st_size == stat.st_size and target.stat().st_mtime_ns == stat.st_mtime_ns:
            continue  # unchanged: keep its time stamp so the kept $WORK builds stay incremental
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    shutil.copy2(OSS_FUZZ_DIR / "build.sh", src / "build.sh")
    prepare_secp256k1(src)
    prepare_core_source(src)


def prepare_core_source(src):
    """$SRC/bitcoin-core as the Dockerfile leaves it: its own RUN command (download, sha256 check, unpack) run
    in a scratch directory standing in for $SRC, so the Dockerfile's step itself is what is exercised."""
    _, digest = pinned_core_sdist()
    target, stamp = src / CORE_TREE, src / f".{CORE_TREE}-sha256"
    if stamp.exists() and stamp.read_text() == digest and (target / "src" / "serialize.h").exists():
        return
    command = core_fetch_command((OSS_FUZZ_DIR / "Dockerfile").read_text())
    if command is None:
        sys.exit("oss-fuzz-check: ci/oss-fuzz/Dockerfile has no RUN step fetching the Core sdist")
    scratch = BASE / "downloads" / "core-run"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    log("oss-fuzz-check: running the Dockerfile's Core sdist step (download, sha256 check, unpack)")
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=scratch, capture_output=True, text=True)
    if result.returncode != 0 or not (scratch / CORE_TREE / "src" / "serialize.h").exists():
        sys.exit(f"oss-fuzz-check: the Dockerfile's Core sdist step failed (exit {result.returncode}) or left no "
                 f"{CORE_TREE}/src/serialize.h:\n{result.stdout}{result.stderr}")
    shutil.rmtree(target, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    shutil.move(str(scratch / CORE_TREE), str(target))
    shutil.rmtree(scratch, ignore_errors=True)
    stamp.write_text(digest)


def prepare_secp256k1(src):
    """Stands in for the Dockerfile's `git clone --branch vX.Y.Z .../secp256k1` with Debian's source of the
    same release (no GitHub access needed): apt-get source, unpacked into $SRC/secp256k1."""
    docker = (OSS_FUZZ_DIR / "Dockerfile").read_text()
    match = re.search(r"git clone .*--branch v(\S+) \S+/secp256k1 secp256k1", docker)
    if not match:
        sys.exit("oss-fuzz-check: ci/oss-fuzz/Dockerfile does not clone a tagged secp256k1 release")
    version = match.group(1)
    target = src / "secp256k1"
    stamp = target / ".serdiff-version"
    if stamp.exists() and stamp.read_text() == version:
        return
    downloads = BASE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    tarball = downloads / f"libsecp256k1_{version}.orig.tar.xz"
    if not tarball.exists():
        log(f"oss-fuzz-check: fetching Debian's libsecp256k1 {version} source (stands in for the Dockerfile's clone)")
        result = subprocess.run(["apt-get", "source", "--download-only", "libsecp256k1"], cwd=downloads,
                                capture_output=True, text=True)
        if result.returncode != 0 or not tarball.exists():
            sys.exit(f"oss-fuzz-check: could not get libsecp256k1 {version} source with apt-get source "
                     f"(needs a deb-src entry; Debian 12 ships {version}):\n{result.stderr}")
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    run(["tar", "-xJf", str(tarball), "-C", str(target), "--strip-components=1"])
    stamp.write_text(version)


def check_tools(combinations):
    """What the base images provide and this machine may lack (ci/install-deps.sh covers the rest)."""
    missing = [tool for tool in ("clang-19", "clang++-19", "zip", "objdump", "file", "ar", "cmake", "ninja")
               if not shutil.which(tool)]
    packages = {"zip": "zip", "objdump": "binutils", "ar": "binutils", "file": "file"}
    wanted = sorted({packages.get(tool, tool) for tool in missing})
    # OSS-Fuzz compiles C++ against libc++ (-stdlib=libc++): Debian's libc++-19-dev and libc++abi-19-dev.
    if not (llvm_prefix() / "include/c++/v1/vector").exists():
        wanted.append("libc++-19-dev")
    if not list((llvm_prefix() / "lib").glob("libc++abi.*")):
        wanted.append("libc++abi-19-dev")
    if any(engine == "afl" for _, engine in combinations):
        if not shutil.which("afl-fuzz") or not (AFL_LIB / "libAFLDriver.a").exists():
            wanted.append("afl++")
    if wanted:
        sys.exit(f"oss-fuzz-check: missing {', '.join(wanted)}: apt-get install {' '.join(wanted)}")


def manifest(directory):
    """Path -> (size, mtime) of every file: build.sh must leave $SRC as it found it."""
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in directory.rglob("*") if p.is_file()}


# ======================================================================================================
# One combination: the environment compile sets, build.sh, then the checks
# ======================================================================================================

def msan_libcxx():
    prefix = Path(os.environ.get("SERDIFF_MSAN_LIBCXX", ROOT / "build" / "msan-libcxx"))
    if not (prefix / ".built-from").exists():
        log(f"oss-fuzz-check: building the MSan libc++ into {prefix} (ci/build-msan-libcxx.sh)")
        if subprocess.run([str(ROOT / "ci" / "build-msan-libcxx.sh"), str(prefix)]).returncode != 0:
            sys.exit(f"oss-fuzz-check: ci/build-msan-libcxx.sh failed; the MSan build needs its libc++ in {prefix} "
                     "(or set SERDIFF_MSAN_LIBCXX to an existing one)")
    return prefix


def afl_engine_archive():
    """OSS-Fuzz's LIB_FUZZING_ENGINE for AFL++ is an archive of AFL++'s runtime and driver (compile_afl)."""
    archive = BASE / "engines" / "libAFLFuzzingEngine.a"
    if archive.exists():
        return archive
    scratch = BASE / "engines" / "afl-objects"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    run(["ar", "x", str(AFL_LIB / "libAFLDriver.a")], cwd=scratch)
    shutil.copy2(AFL_LIB / "afl-compiler-rt.o", scratch / "afl-compiler-rt.o")
    run(["ar", "rcs", str(archive)] + sorted(str(p) for p in scratch.glob("*.o")))
    return archive


def build_environment(sanitizer, engine, src, work, out):
    cflags = f"{BASE_CFLAGS} {SANITIZER_FLAGS[sanitizer]} {COVERAGE_FLAGS[engine]}"
    cxxflags = f"{cflags} {CXXFLAGS_EXTRA}"
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8",
           "SRC": str(src), "WORK": str(work), "OUT": str(out), "SANITIZER": sanitizer, "FUZZING_ENGINE": engine,
           "ARCHITECTURE": "x86_64", "FUZZING_LANGUAGE": "c++", "CC": "clang-19", "CXX": "clang++-19",
           "CFLAGS": cflags, "CXXFLAGS": cxxflags,
           "LIB_FUZZING_ENGINE": "-fsanitize=fuzzer" if engine == "libfuzzer" else str(afl_engine_archive()),
           # compile_afl's settings for the build itself
           **({"ASAN_OPTIONS": "detect_leaks=0:symbolize=0:detect_odr_violation=0:abort_on_error=1"}
              if engine == "afl" else {})}
    link_flags = []
    if engine == "libfuzzer":
        # OSS-Fuzz's libFuzzer carries a private libc++; Debian's libclang_rt.fuzzer is built against
        # libstdc++ (std::__cxx11, a namespace apart from libc++'s std::__1), so it needs that at link.
        # Named by file: with -stdlib=libc++ clang's driver turns a plain -lstdc++ into -lc++.
        link_flags.append("-l:libstdc++.so.6")
    if sanitizer == "memory":
        # OSS-Fuzz's image swaps in its MSan-built libc++ for the default one; here the project's stands in.
        prefix = msan_libcxx()
        env["CXXFLAGS"] += f" -nostdinc++ -isystem {prefix}/include/c++/v1"
        link_flags += [f"-L{prefix}/lib", f"-Wl,-rpath,{prefix}/lib"]
    if link_flags:
        env["LDFLAGS"] = " ".join(link_flags)
    return env


def expected_targets(project):
    """{$OUT name: (subject, target)} from the sources, as fuzz_targets/CMakeLists.txt finds them (not from the
    binaries' lists): fuzz_targets/<name>.cpp and objects.cpp's one target per object type of model/codec_table.h,
    each as <target> (serdiff) and, unless subjects/core/absent_targets.tsv names it, as core_<target> (Core)."""
    names = {p.stem for p in (project / "fuzz_targets").glob("*.cpp")}
    object_types = re.findall(r"X\(([a-z_0-9]+), [A-Za-z]+, [a-z_0-9]+\)", (project / "model" / "codec_table.h").read_text())
    targets = sorted((names - {"registry", "engine_main", "replay_main", "objects"}) | set(object_types))
    absent = set(re.findall(r"^([a-z_0-9]+)\t", (project / "subjects" / "core" / "absent_targets.tsv").read_text(),
                            re.MULTILINE))
    expected = {SUBJECT_PREFIXES["serdiff"] + t: ("serdiff", t) for t in targets}
    expected.update({SUBJECT_PREFIXES["core"] + t: ("core", t) for t in targets if t not in absent})
    return expected


def engine_functions(engine_archive):
    """Functions an engine archive defines: AFL++'s runtime calls ASan hooks itself, whatever the build."""
    if not engine_archive or not Path(engine_archive).is_file():
        return set()
    symbols = subprocess.run(["nm", "--defined-only", engine_archive], capture_output=True, text=True).stdout
    return {line.split()[-1] for line in symbols.splitlines() if re.match(r"^[0-9a-f]+ [tT] ", line)}


def sanitizer_calls(binary, skipped_functions):
    """bad_build_check's count of calls into each sanitizer runtime (objdump -d), minus the engine's own."""
    counts = dict.fromkeys(("asan", "msan", "ubsan", "dfsan"), 0)
    text = subprocess.run(["objdump", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    function = ""
    for line in text.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if header:
            function = header.group(1)
            continue
        call = re.search(r"\bcall[q]?\s+[0-9a-f]+\s+<__(asan|msan|ubsan|dfsan)", line)
        if call and function not in skipped_functions:
            counts[call.group(1)] += 1
    return counts


def check_binary_once(binary, sanitizer, engine, engine_archive, failures, where):
    """bad_build_check's check_architecture and check_mixed_sanitizers (every target is the same binary)."""
    description = subprocess.run(["file", "-L", str(binary)], capture_output=True, text=True).stdout
    if "x86-64" not in description:
        failures.add(where, f"not an x86-64 binary: {description.strip()}")
    calls = sanitizer_calls(binary, engine_functions(engine_archive))
    # bad_build_check skips the UBSan mix check for engines other than libFuzzer.
    if not (sanitizer == "undefined" and engine != "libfuzzer"):
        for runtime, (low, high) in SANITIZER_CALL_LIMITS[sanitizer].items():
            if low is not None and calls[runtime] < low:
                failures.add(where, f"does not seem to be compiled with {runtime} ({calls[runtime]} calls)")
            if high is not None and calls[runtime] > high:
                failures.add(where, f"{sanitizer} build seems compiled with {runtime} too ({calls[runtime]} calls)")
    return calls


def run_logged(command, env, log_path, timeout, stdin=None, cwd=None):
    with open(log_path, "ab") as log_file:
        log_file.write(("$ " + " ".join(str(c) for c in command) + "\n").encode())
        log_file.flush()
        # A session of its own, so a timeout ends the whole tree (afl-fuzz leaves its fork server behind).
        process = subprocess.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT, stdin=stdin, cwd=cwd,
                                   start_new_session=True)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            log_file.write(f"\n[oss-fuzz-check: timed out after {timeout} s]\n".encode())
            return None


def libfuzzer_options(out, target):
    options = []
    options_file = out / f"{target}.options"
    section = None
    for line in options_file.read_text().splitlines() if options_file.exists() else []:
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and section == "libfuzzer":
            key, value = (part.strip() for part in line.split("=", 1))
            options.append(f"-{key}={value}")
    if (out / f"{target}.dict").exists():
        options.append(f"-dict={out / (target + '.dict')}")
    return options


def check_target_libfuzzer(target, out, env, logs, seconds, failures):
    """bad_build_check's check_engine, check_startup_crash and check_seed_corpus, then a short fuzz run."""
    binary = out / target
    where = f"{out.name}/{target}"
    log_path = logs / f"{target}.log"
    log_path.unlink(missing_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{target}-", dir=logs))
    try:
        # check_engine: coverage instrumentation present and wide enough.
        run_logged([binary, "-seed=1337", "-runs=4"], env, log_path, 120, cwd=scratch)
        text = log_path.read_text(errors="replace")
        if "no interesting inputs were found" in text:
            failures.add(where, "no coverage instrumentation (libFuzzer found no interesting inputs)")
        edges = re.search(r"INFO: Loaded \d+ modules?\s+\((\d+) (?:inline 8-bit counters|guards)\)", text)
        if not edges or int(edges.group(1)) < MIN_EDGES:
            failures.add(where, f"partial coverage instrumentation ({edges.group(1) if edges else 'no'} edges)")
        # check_startup_crash: four runs through run_fuzzer's arguments, no seed corpus.
        options = FUZZER_ARGS + libfuzzer_options(out, target)
        status = run_logged([binary, "-seed=1337", "-runs=4"] + options, env, log_path, 120, cwd=scratch)
        if status != 0 or "Done 4 runs" not in log_path.read_text(errors="replace"):
            failures.add(where, "startup crash or exit (no 'Done 4 runs')")
        # check_seed_corpus: every seed once (-runs=0), no crash, no leak.
        corpus = scratch / "corpus"
        corpus.mkdir()
        seed_zip = out / f"{target}_seed_corpus.zip"
        seeds = 0
        seed_replay_seconds = 0.0
        if seed_zip.exists():
            with zipfile.ZipFile(seed_zip) as archive:
                archive.extractall(corpus)
                seeds = len([n for n in archive.namelist() if not n.endswith("/")])
            replay_start = time.time()
            status = run_logged([binary, "-runs=0"] + options + [corpus], env, log_path, 600, cwd=scratch)
            seed_replay_seconds = time.time() - replay_start
            if status != 0:
                failures.add(where, f"crashes or leaks on its seed corpus (exit {status})")
        # A short fuzz run from the seeds, as ClusterFuzz would start. libFuzzer runs every seed before
        # -max_total_time counts (core_primitive_stream under MSan: 1,557 seeds in 93 s on a loaded machine), so
        # the run may take the seed replay again on top of its seconds.
        start = time.time()
        status = run_logged([binary, f"-max_total_time={seconds}", "-print_final_stats=1"] + options + [corpus],
                            env, log_path, seconds + 120 + int(2 * seed_replay_seconds), cwd=scratch)
        if status != 0:
            failures.add(where, f"{seconds} s fuzz run failed (exit {status}); see {log_path}")
        execs = re.findall(r"stat::number_of_executed_units:\s+(\d+)", log_path.read_text(errors="replace"))
        return {"seeds": seeds, "execs": int(execs[-1]) if execs else 0, "fuzz_seconds": time.time() - start,
                "edges": int(edges.group(1)) if edges else 0}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check_target_afl(target, out, env, logs, seconds, failures):
    """The seed corpus replayed through the binary, then bad_build_check's afl-fuzz start and a short run."""
    binary = out / target
    where = f"{out.name}/{target}"
    log_path = logs / f"{target}.log"
    log_path.unlink(missing_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{target}-", dir=logs))
    try:
        seeds_dir = scratch / "seeds"
        seeds_dir.mkdir()
        seed_zip = out / f"{target}_seed_corpus.zip"
        if seed_zip.exists():
            with zipfile.ZipFile(seed_zip) as archive:
                archive.extractall(seeds_dir)
        seeds = [p for p in seeds_dir.rglob("*") if p.is_file()]
        # The seed corpus without the fuzzer: AFL++'s driver runs each file named on its command line
        # (it skips empty files, which the libFuzzer builds run).
        non_empty = [seed for seed in seeds if seed.stat().st_size > 0]
        if non_empty:
            status = run_logged([binary] + non_empty, env, log_path, 600, cwd=scratch)
            ran = log_path.read_text(errors="replace").count("Execution successful.")
            if status != 0 or ran != len(non_empty):
                failures.add(where, f"crashes or leaks on its seed corpus (exit {status}, {ran} of {len(non_empty)} ran)")
        # check_engine / check_startup_crash for AFL++: afl-fuzz must get going, and a short run.
        afl_in = scratch / "afl-in"
        afl_in.mkdir()
        for seed in non_empty:  # afl-fuzz refuses empty test cases
            shutil.copy2(seed, afl_in / hashlib.sha1(seed.read_bytes()).hexdigest())
        if not any(afl_in.iterdir()):
            (afl_in / "one-byte").write_bytes(b"\0")
        command = ["afl-fuzz", "-i", afl_in, "-o", scratch / "afl-out", "-V", str(seconds), "-m", "none",
                   "-t", "5000"]
        if (out / f"{target}.dict").exists():
            command += ["-x", out / f"{target}.dict"]
        # afl-fuzz insists on sanitizers that abort without symbolizing (it reads the signal, not the report).
        afl_env = {**env, "AFL_SKIP_CPUFREQ": "1", "AFL_NO_UI": "1", "AFL_NO_AFFINITY": "1",
                   "AFL_FORKSRV_INIT_TMOUT": "30000", "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
                   "ASAN_OPTIONS": env["ASAN_OPTIONS"].replace("symbolize=1", "symbolize=0") + ":abort_on_error=1",
                   "MSAN_OPTIONS": env["MSAN_OPTIONS"].replace("symbolize=1", "symbolize=0") + ":exit_code=86",
                   "UBSAN_OPTIONS": env["UBSAN_OPTIONS"].replace("symbolize=1", "symbolize=0") +
                   ":halt_on_error=1:abort_on_error=1"}
        start = time.time()
        status = run_logged(command + ["--", binary], afl_env, log_path, seconds + 180, cwd=scratch)
        text = log_path.read_text(errors="replace")
        if "All set and ready to roll" not in text:
            failures.add(where, f"afl-fuzz did not start fuzzing; see {log_path}")
        if re.search(r"target binary (crashed|terminated)", text):
            failures.add(where, "the target crashed or terminated under afl-fuzz at startup")
        crashes = list((scratch / "afl-out" / "default" / "crashes").glob("id:*"))
        if status != 0 or crashes:
            failures.add(where, f"{seconds} s afl-fuzz run: exit {status}, {len(crashes)} crash(es)")
        stats = scratch / "afl-out" / "default" / "fuzzer_stats"
        execs = re.search(r"execs_done\s*:\s*(\d+)", stats.read_text()) if stats.exists() else None
        return {"seeds": len(seeds), "execs": int(execs.group(1)) if execs else 0,
                "fuzz_seconds": time.time() - start, "edges": None}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check_combination(sanitizer, engine, src, seconds, jobs, failures):
    name = f"{sanitizer}-{engine}"
    work, out, logs = BASE / "work" / name, BASE / "out" / name, BASE / "logs" / name
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(logs, ignore_errors=True)
    for directory in (work, out, logs):
        directory.mkdir(parents=True, exist_ok=True)
    env = build_environment(sanitizer, engine, src, work, out)
    log(f"== {name}: build.sh (CFLAGS={env['CFLAGS']}; LIB_FUZZING_ENGINE={env['LIB_FUZZING_ENGINE']})")
    before = manifest(src)
    start = time.time()
    # compile runs `bash -eux $SRC/build.sh` from the Dockerfile's WORKDIR.
    with open(logs / "build.log", "wb") as build_log:
        status = subprocess.run(["bash", "-eux", str(src / "build.sh")], env=env, cwd=src / "serdiff",
                                stdout=build_log, stderr=subprocess.STDOUT).returncode
    build_seconds = time.time() - start
    if status != 0:
        failures.add(name, f"build.sh failed (exit {status}); tail of {logs / 'build.log'}:\n" +
                     "\n".join((logs / "build.log").read_text(errors="replace").splitlines()[-25:]))
        return {"build": build_seconds, "check": 0, "targets": {}}
    changed = sorted(str(p.relative_to(src)) for p in set(before) ^ set(manifest(src)) |
                     {p for p in before if p.exists() and before[p] != (p.stat().st_size, p.stat().st_mtime_ns)})
    if changed:
        failures.add(name, f"build.sh wrote outside $OUT and $WORK: {', '.join(changed[:10])}")
    log(f"   built in {build_seconds:.0f} s")

    # check_build: every target present, with its seed corpus, dictionary and options; nothing stray.
    start = time.time()
    project = src / "serdiff"
    targets = expected_targets(project)
    for target, (subject, source_target) in targets.items():
        binary = out / target
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            failures.add(f"{name}/{target}", "missing from $OUT")
            continue
        if (project / "corpora" / source_target).is_dir() and not (out / f"{target}_seed_corpus.zip").exists():
            failures.add(f"{name}/{target}", f"no seed corpus zip although corpora/{source_target}/ exists")
        if (project / "corpora" / "dicts" / f"{source_target}.dict").exists() and not (out / f"{target}.dict").exists():
            failures.add(f"{name}/{target}", f"no dictionary although corpora/dicts/{source_target}.dict exists")
        if not re.search(r"^\[libfuzzer\]\s*\nmax_len = \d+\s*$", (out / f"{target}.options").read_text()
                         if (out / f"{target}.options").exists() else "", re.MULTILINE):
            failures.add(f"{name}/{target}", "no .options with a [libfuzzer] max_len")
    # targets_list's rule: an executable without '.' in its name that holds LLVMFuzzerTestOneInput is a target.
    for path in out.iterdir():
        if path.is_file() and os.access(path, os.X_OK) and "." not in path.name and path.name not in targets:
            if b"LLVMFuzzerTestOneInput" in path.read_bytes():
                failures.add(name, f"$OUT/{path.name} is a fuzz target with no fuzz_targets/{path.name}.cpp")
    present = [t for t in targets if (out / t).is_file()]
    if not present:
        return {"build": build_seconds, "check": time.time() - start, "targets": {}}
    # Every target of a subject is a copy of that subject's one engine binary: each binary checked once.
    for subject in SUBJECT_PREFIXES:
        first = next((t for t in present if targets[t][0] == subject), None)
        if first is None:
            continue
        calls = check_binary_once(out / first, sanitizer, engine,
                                  env["LIB_FUZZING_ENGINE"] if engine == "afl" else None, failures,
                                  f"{name} ({subject} binary)")
        log(f"   sanitizer calls in the {subject} binary: {calls}")

    run_env = {**env, **RUN_ENV}
    for key in ("CFLAGS", "CXXFLAGS", "LDFLAGS"):
        run_env.pop(key, None)
    checker = check_target_libfuzzer if engine == "libfuzzer" else check_target_afl
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(checker, t, out, run_env, logs, seconds, failures): t for t in present}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    return {"build": build_seconds, "check": time.time() - start, "targets": results,
            "subjects": {t: targets[t][0] for t in results}}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--combinations", default="oss-fuzz",
                        help="oss-fuzz (what OSS-Fuzz builds: libFuzzer x ASan/UBSan/MSan, AFL++ x ASan), all "
                             "(every sanitizer x engine), or a comma list like address-afl,memory-libfuzzer")
    parser.add_argument("--seconds", type=int, default=3, help="fuzzing time per target")
    parser.add_argument("--jobs", type=int, default=2, help="targets checked at once")
    parser.add_argument("--files-only", action="store_true", help="only check the project files")
    args = parser.parse_args()
    if args.combinations == "oss-fuzz":
        combinations = OSS_FUZZ_COMBINATIONS
    elif args.combinations == "all":
        combinations = ALL_COMBINATIONS
    else:
        combinations = [tuple(c.split("-", 1)) for c in args.combinations.split(",")]
        for sanitizer, engine in combinations:
            if sanitizer not in SANITIZER_FLAGS or engine not in COVERAGE_FLAGS:
                sys.exit(f"oss-fuzz-check: unknown combination {sanitizer}-{engine}")

    total_start = time.time()
    failures = Failures()
    log("== project files (OSS-Fuzz presubmit rules, build.sh conventions, ClusterFuzzLite workflows)")
    notes = check_project_files(failures)
    for note in notes:
        log(f"  NOTE {note}")
    if args.files_only:
        return report(failures, {}, total_start)

    check_tools(combinations)
    if any(sanitizer == "memory" for sanitizer, _ in combinations):
        msan_libcxx()  # before any build: it may take minutes, and a failure should stop the run early
    src = BASE / "src"
    prepare_source(src)
    summary = {}
    for sanitizer, engine in combinations:
        failures_before = len(failures.items)
        result = check_combination(sanitizer, engine, src, args.seconds, args.jobs, failures)
        summary[f"{sanitizer}-{engine}"] = (result, len(failures.items) - failures_before)
    return report(failures, summary, total_start)


def report(failures, summary, total_start):
    if summary:
        # Targets, seeds and executions per subject: serdiff's $OUT/<target>, then Core's $OUT/core_<target>.
        log("\ncombination            build    checks  targets (serdiff+core)  seeds (serdiff+core)  "
            "fuzz execs (serdiff+core)  result")
        for name, (result, failed) in summary.items():
            targets, subjects = result["targets"], result.get("subjects", {})
            def per_subject(value):
                return "+".join(str(sum(value(r) for t, r in targets.items() if subjects.get(t) == s))
                                for s in SUBJECT_PREFIXES)
            counts = per_subject(lambda r: 1)
            seeds = per_subject(lambda r: r["seeds"])
            execs = per_subject(lambda r: r["execs"])
            log(f"{name:<22} {result['build']:>5.0f} s  {result['check']:>5.0f} s  {counts:>22}  {seeds:>20}  "
                f"{execs:>25}  {'ok' if failed == 0 else f'{failed} failure(s)'}")
    log(f"\noss-fuzz-check: {len(failures.items)} failure(s) in {time.time() - total_start:.0f} s")
    return 1 if failures.items else 0


if __name__ == "__main__":
    sys.exit(main())
