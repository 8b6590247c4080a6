#!/usr/bin/env python3
"""The record of a long `make fuzz` run (a soak, docs/fuzzing.md "Soak"), from the summary JSON it wrote.

For each target × engine run: at 1, 10, 30 and 60 minutes (and at the run's end) the executions so far, the
exec/s over the interval since the previous point (not libFuzzer's average since the start, which hides a
slowdown), edges and features (when the run recorded them), peak RSS so far and, when the run sampled it
(make fuzz reads /proc for libFuzzer), the RSS at that moment; then peak RSS, corpus growth and crashes.
A run is flagged when an interval's rate falls below a quarter of its first minute's, or when its memory
still grows late: the lowest RSS of the last quarter of the run 64 MB or more above the lowest of the
quarter before (a leak lifts the floor; one large input lifts only the peak), or, for a run without RSS
samples, the peak RSS rising by 64 MB or more in the second half. Those are what a soak is for.

  tools/fuzz/soak.py fuzz-out/summary.json [more summary JSON files ...]
"""
import json
import sys

POINTS_S = (60, 600, 1800, 3600)


def timeline(run):
    """(seconds, sample) for each distinct reading of the run. libFuzzer prints a status line only on new
    coverage and at powers of two executions, so a sample can repeat a line for minutes: its time is then the
    line's own (its executions over its exec/s, which libFuzzer averages since the start), not the poll's."""
    points = []
    for sample in run.get("samples") or []:
        if points and sample["execs"] == points[-1][1]["execs"]:
            continue
        seconds = sample["elapsed_s"]
        if run.get("engine") == "libfuzzer" and sample.get("exec_per_s"):
            seconds = min(seconds, sample["execs"] / sample["exec_per_s"])
        points.append((seconds, sample))
    return points


def rows(run):
    """(minute point s, execs, exec/s over the interval since the previous point, edges/ft, RSS MB) at each of
    POINTS_S the run reached and at its end; an end within a minute of the previous point is left out."""
    points = timeline(run)
    if not points:
        return []
    end = points[-1][0]
    wanted = [p for p in POINTS_S if p < end]
    if not wanted or end - wanted[-1] >= 60:
        wanted.append(end)
    out, previous = [], (0, 0)
    for point in wanted:
        earlier = [(seconds, sample) for seconds, sample in points if seconds <= point]
        if not earlier or earlier[-1][0] <= previous[0]:
            continue
        seconds, sample = earlier[-1]
        rate = (sample["execs"] - previous[1]) / (seconds - previous[0])
        coverage = f"{sample['edges']}/{sample['features']}" if sample.get("edges") is not None else "-"
        out.append((point, sample["execs"], round(rate), coverage, sample["rss_mb"], sample.get("rss_now_mb")))
        previous = (seconds, sample["execs"])
    return out


def flags(run, table):
    found = []
    slowest = min(table[1:], key=lambda row: row[2]) if len(table) >= 2 else None
    if slowest and table[0][2] > 0 and slowest[2] < table[0][2] / 4:
        found.append(f"exec/s fell from {table[0][2]:,} in the first minute to {slowest[2]:,} in the interval "
                     f"ending at minute {slowest[0] / 60:.0f}")
    samples = run.get("samples") or []
    now = [s["rss_now_mb"] for s in samples if s.get("rss_now_mb") is not None]
    if now:
        third, last = now[len(now) // 2:3 * len(now) // 4], now[3 * len(now) // 4:]
        if third and last and min(last) - min(third) >= 64:
            found.append(f"RSS still rising late: its lowest in the last quarter of the run {min(last)} MB, "
                         f"in the quarter before {min(third)} MB")
        return found
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
        if not table:
            lines += ["(no progress samples: the run was shorter than one 10-s poll)", ""]
            continue
        sampled_now = any(row[5] is not None for row in table)
        lines.append("| minute | execs | exec/s in the interval | edges/ft | peak RSS MB |" +
                     (" RSS now MB |" if sampled_now else ""))
        lines.append("|---:|---:|---:|---|---:|" + ("---:|" if sampled_now else ""))
        for elapsed, execs, rate, coverage, rss, rss_now in table:
            lines.append(f"| {elapsed / 60:.0f} | {execs:,} | {rate:,} | {coverage} | {rss} |" +
                         (f" {rss_now if rss_now is not None else '-'} |" if sampled_now else ""))
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
