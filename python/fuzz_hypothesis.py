"""`make fuzz ENGINE=hypothesis`: every Hypothesis property as one coverage-guided fuzzer driven by atheris.

The first input byte picks a property; the rest is handed to that property's fuzz_one_input, so libFuzzer's
mutations become Hypothesis choices. A failing property raises, atheris records a crash file, and replaying
that file (`python fuzz_hypothesis.py --replay FILE`) reruns it. The parent process prints the summary.
Usage: fuzz_hypothesis.py [--seconds N] [--replay FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parent
# The source tree's serdiff/ has no compiled extension: import the installed package, not this directory's.
sys.path = [entry for entry in sys.path if Path(entry or ".").resolve() != PYTHON_DIR]
WORK_DIR = PYTHON_DIR.parent / "build" / "fuzz-hypothesis"
STATS_FILE = WORK_DIR / "stats.json"


def properties():
    """The property tests of tests/test_properties.py, loaded with the test suite's Hypothesis profile."""
    sys.path.insert(0, str(PYTHON_DIR / "tests"))
    import conftest  # noqa: F401  (registers and loads the profile: no deadline, the example database)
    import test_properties
    return [(name, getattr(test_properties, name)) for name in sorted(dir(test_properties))
            if name.startswith("test_") and hasattr(getattr(test_properties, name), "hypothesis")]


def run_child(libfuzzer_arguments: list[str]) -> None:
    import atheris
    with atheris.instrument_imports(include=["serdiff"]):
        import serdiff.spec_codec  # noqa: F401  (instrumented: Python-side coverage guides the mutations)
        import serdiff.strategies  # noqa: F401
    named = properties()
    runs = {name: 0 for name, _ in named}
    last_write = [0.0]

    def write_stats():
        STATS_FILE.write_text(json.dumps(runs))
        last_write[0] = time.monotonic()

    def one_input(data: bytes) -> None:
        if not data:
            return
        name, test = named[data[0] % len(named)]
        runs[name] += 1
        if time.monotonic() - last_write[0] > 1:
            write_stats()
        try:
            test.hypothesis.fuzz_one_input(data[1:])
        except BaseException:
            write_stats()
            print(f"\nfuzz_hypothesis: property {name} failed", file=sys.stderr)
            raise

    atheris.Setup([sys.argv[0]] + libfuzzer_arguments, one_input)
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60, help="fuzzing time (default 60)")
    parser.add_argument("--replay", metavar="FILE", help="rerun one crash or corpus file and exit")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child is not None:
        run_child(arguments.child)
        return 0

    corpus = WORK_DIR / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    STATS_FILE.unlink(missing_ok=True)
    if arguments.replay:
        libfuzzer = [arguments.replay]
        print(f"fuzz_hypothesis: replaying {arguments.replay}", flush=True)
    else:
        libfuzzer = [str(corpus), f"-max_total_time={arguments.seconds}", f"-artifact_prefix={WORK_DIR}/",
                     "-print_final_stats=1", "-rss_limit_mb=4096"]
        print(f"fuzz_hypothesis: fuzzing every property for {arguments.seconds}s (corpus {corpus})", flush=True)
    started = time.monotonic()
    child = subprocess.run([sys.executable, __file__, "--child", *libfuzzer], stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, PYTHONUNBUFFERED="1"))
    elapsed = time.monotonic() - started
    log = child.stderr
    (WORK_DIR / "last-run.log").write_text(log)

    runs = json.loads(STATS_FILE.read_text()) if STATS_FILE.exists() else {}
    final_stats = [line for line in log.splitlines() if line.startswith("stat::")]
    crash_files = [line.split("Test unit written to ")[1] for line in log.splitlines()
                   if "Test unit written to" in line]
    print(f"\nfuzz_hypothesis summary ({elapsed:.0f}s, {sum(runs.values())} inputs, "
          f"{len(list(corpus.iterdir()))} corpus files):")
    for name, count in runs.items():
        print(f"  {count:8d}  {name}")
    for line in final_stats:
        if any(key in line for key in ("number_of_executed_units", "average_exec_per_sec", "new_units_added")):
            print("  " + line.strip())
    if child.returncode != 0:
        failure = log[log.find("Falsifying example") if "Falsifying example" in log else max(0, len(log) - 4000):]
        print("\n" + failure.strip()[:6000], file=sys.stderr)
        print(f"\nfuzz_hypothesis: FAILED (exit {child.returncode}); crash files: {', '.join(crash_files) or 'none'};"
              f" replay with: build/python-venv/bin/python python/fuzz_hypothesis.py --replay FILE"
              f"; full log: {WORK_DIR / 'last-run.log'}", file=sys.stderr)
        return 1
    print("fuzz_hypothesis: no property failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
