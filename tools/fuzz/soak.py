#!/usr/bin/env python3
"""The record of a long `make fuzz` run (a soak, docs/fuzzing.md "Soak"), from the summary JSON it wrote.

For each target × engine run: at 1, 10, 30 and 60 minutes (and at the run's end) the executions so far, the
exec/s over the interval since the previous point (not libFuzzer's average since the start, which hides a
slowdown), edges and features (when the run recorded them), RSS; then peak RSS, corpus growth and crashes.
A run whose interval rate fell below a quarter of its first interval's, or whose peak RSS still rose by 64 MB
or more in its second half, is flagged: those are what a soak is for. (RSS in the samples is the peak so far.)

  tools/fuzz/soak.py fuzz-out/summary.json [more summary JSON files ...]
"""
import json
import sys

POINTS_S = (60, 600, 1800, 3600)


def at(samples, seconds):
    """The last sample taken at or before `seconds`."""
    earlier = [s for s in samples if s["elapsed_s"] <= seconds]
    return earlier[-1] if earlier else None


def rows(run):
    samples = run.get("samples") or []
    if not samples:
        return []
    points = [p for p in POINTS_S if p < samples[-1]["elapsed_s"]] + [samples[-1]["elapsed_s"]]
    out, previous = [], {"elapsed_s": 0, "execs": 0}
    for point in points:
        sample = at(samples, point)
        if sample is None or sample["elapsed_s"] == previous["elapsed_s"]:
            continue
        rate = (sample["execs"] - previous["execs"]) / (sample["elapsed_s"] - previous["elapsed_s"])
        coverage = (f"{sample['edges']}/{sample['features']}" if sample.get("edges") is not None
                    else "-")
        out.append((sample["elapsed_s"], sample["execs"], round(rate), coverage, sample["rss_mb"]))
        previous = sample
    return out


def flags(run, table):
    found = []
    if len(table) >= 2 and table[0][2] > 0 and table[-1][2] < table[0][2] / 4:
        found.append(f"exec/s fell from {table[0][2]:,} to {table[-1][2]:,} per second")
    samples = run.get("samples") or []
    half = [s["rss_mb"] for s in samples[len(samples) // 2:]]
    if len(half) >= 2 and half[-1] - half[0] >= 64:
        found.append(f"peak RSS still rose in the second half of the run ({half[0]} → {half[-1]} MB)")
    return found


def render(summary):
    lines = []
    for run in summary["runs"]:
        if run.get("skipped"):
            continue
        table = rows(run)
        lines.append(f"{run['target']} ({run['engine']}, {run['seconds']} s): {run['execs']:,} execs, "
                     f"peak RSS {run['peak_rss_mb']} MB, corpus {run['corpus_before']} → {run['corpus_after']}, "
                     f"{len(run['crashes'])} crash file(s)" + (", ENGINE FAILED" if run.get("engine_failed") else ""))
        lines.append("| minute | execs | exec/s in the interval | edges/ft | RSS MB |")
        lines.append("|---:|---:|---:|---|---:|")
        for elapsed, execs, rate, coverage, rss in table:
            lines.append(f"| {elapsed / 60:.0f} | {execs:,} | {rate:,} | {coverage} | {rss} |")
        lines += [f"FLAG: {flag}" for flag in flags(run, table)]
        lines.append("")
    findings = summary.get("findings") or []
    lines.append(f"{len(findings)} unique finding(s)" +
                 "".join(f"\n- {f.get('signature', f)}" for f in findings))
    return "\n".join(lines)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        try:
            with open(path) as handle:
                summary = json.load(handle)
        except (OSError, ValueError) as error:
            sys.exit(f"soak: cannot read {path}: {error}")
        print(f"## {path}\n")
        print(render(summary))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
