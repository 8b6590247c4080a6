#!/usr/bin/env python3
"""Self-contained HTML pages of serdiff's JSON reports: one file each, inline CSS and inline SVG, no script, no
external resource of any kind (a Content-Security-Policy meta tag forbids them too), every string from the JSON
escaped. Missing or optional keys show "not measured"; nothing here raises on a partial report.

  python3 tools/report/html.py review review-out/review.json -o review-out/index.html
  python3 tools/report/html.py mutate mutate-out/report.json -o mutate-out/index.html
  python3 tools/report/html.py fuzz   fuzz-out/summary.json  -o fuzz-out/index.html

From Python, load this file by path under its own module name: its name would shadow the standard library's `html`
on sys.path (and tools/ on sys.path would make it `report`, bench/report.py's name):

  spec = importlib.util.spec_from_file_location("serdiff_report_html", ROOT / "tools" / "report" / "html.py")
  page = importlib.util.module_from_spec(spec); spec.loader.exec_module(page)
  page.write_review_page(results, out / "index.html")     # also write_mutate_page, write_fuzz_page

Stable hooks for tests (tests/html_report_test.py): id="verdict" (data-status), tr.target (data-target,
data-status agrees|finding|not-run), span.line (data-line; reached, not-reached, no-counter, unmeasured, context),
tr.mutant (data-id, data-status, data-line), article.finding, code.replay, svg#bench-chart (rect.bar per row),
svg.fuzz-plot (data-target, data-engine; polyline.exec-rate and polyline.coverage).
This module deliberately does not import the standard library's `html` (see above); esc() is its escaper.
"""
import argparse
import json
import math
import sys
from pathlib import Path

NOT_MEASURED = "not measured"

CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 40px;
color:#1d2329;background:#fff}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #d0d7de}
h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;
vertical-align:top}th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12.5px/1.4 ui-monospace,'DejaVu Sans Mono',monospace}pre{background:#f6f8fa;padding:8px;overflow-x:auto;
margin:4px 0}
.verdict{padding:10px 14px;border-radius:6px;margin:10px 0;border:1px solid}
.verdict[data-status="0"]{background:#e9f7ec;border-color:#2da44e}.verdict[data-status="1"]{background:#fdecec;
border-color:#cf222e}.verdict[data-status="unknown"]{background:#f3f5f7;border-color:#8c959f}
.ok,.agrees,.killed{color:#116329}.bad,.finding-cell,.survived{color:#a40e26;font-weight:600}
.muted,.not-measured{color:#6e7781;font-style:italic}
pre.excerpt{padding:0}pre.excerpt .line{display:block;padding:0 8px;white-space:pre}
.line .lineno{display:inline-block;width:5ch;color:#6e7781;text-align:right;margin-right:1ch;user-select:none}
.line.reached{background:#dafbe1}.line.not-reached{background:#ffd8d3}.line.no-counter{background:#eef1f4}
.line.unmeasured{background:#fff1c2}.line .state{float:right;color:#57606a;font-style:italic}
.gap{display:block;color:#8c959f;padding:0 8px}
.legend span{display:inline-block;padding:0 6px;margin-right:6px;border-radius:3px}
tr.mutant[data-status="killed"] td.status{color:#116329}tr.mutant[data-status="survived"] td.status{color:#a40e26;
font-weight:600}tr.mutant[data-status="invalid"] td.status,tr.mutant[data-status="equivalent"] td.status{color:#6e7781}
.diff .del{color:#a40e26}.diff .add{color:#116329}table.mutants{width:100%}td.change{width:60%}
pre.diff{white-space:pre-wrap;overflow-wrap:anywhere}td.detail{min-width:16ch}
article.finding{border:1px solid #cf222e;border-radius:6px;padding:6px 12px;margin:10px 0}
svg text{font:11px system-ui,sans-serif;fill:#1d2329}svg .bar{fill:#0969da}svg .bar.slower{fill:#cf222e}
svg .parity{stroke:#57606a;stroke-dasharray:3 3}svg .axis{stroke:#8c959f}
svg polyline{fill:none;stroke-width:2}svg .exec-rate{stroke:#0969da}svg .coverage{stroke:#bf8700}
svg circle.exec-rate{fill:#0969da}svg circle.coverage{fill:#bf8700}
svg .rss{stroke:#8250df;stroke-dasharray:4 2}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
"""


# -- building blocks ---------------------------------------------------------------------------------------------

def esc(value):
    """Text (or an attribute value) safe to put in HTML: & < > " ' replaced; None is empty."""
    if value is None:
        return ""
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#x27;"))


def attrs(**values):
    """' key="value"' pairs (underscores become dashes: data_status= → data-status=); None values are left out."""
    return "".join(f' {key.rstrip("_").replace("_", "-")}="{esc(value)}"' for key, value in values.items()
                   if value is not None)


def number(value, digits=None, unit=""):
    """A number for a cell; anything not a finite number is "not measured"."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float)
                                                                          and not math.isfinite(value)):
        return f'<span class="not-measured">{NOT_MEASURED}</span>'
    if digits is None:
        text = f"{value:,}" if isinstance(value, int) else f"{value:,.4g}"
    else:
        text = f"{value:,.{digits}f}"
    return esc(text + unit)


def text_or_missing(value):
    if value is None or value == "" or value == []:
        return f'<span class="not-measured">{NOT_MEASURED}</span>'
    return esc(value)


def as_dict(value):
    return value if isinstance(value, dict) else {}


def as_list(value):
    return value if isinstance(value, list) else []


def finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def ranges(lines):
    """[1, 2, 3, 7] → '1-3,7'."""
    lines = sorted({n for n in lines if isinstance(n, int)})
    out, start = [], None
    for index, line in enumerate(lines):
        if start is None:
            start = line
        if index + 1 == len(lines) or lines[index + 1] != line + 1:
            out.append(str(start) if start == line else f"{start}-{line}")
            start = None
    return ",".join(out)


def facts(pairs, id_=None):
    """A <dl> of (label, html, dd id) rows."""
    rows = "".join(f"<dt>{esc(label)}</dt><dd{attrs(id=dd_id)}>{value}</dd>" for label, value, dd_id in pairs)
    return f'<dl class="facts"{attrs(id=id_)}>{rows}</dl>'


def table(header, rows, id_=None, class_=None):
    """rows: (row attribute string, [cell html, ...]); cells starting with '<td' are taken as they are."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(f"<tr{row_attrs}>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells)
                   + "</tr>" for row_attrs, cells in rows)
    return f"<table{attrs(id=id_, class_=class_)}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def pre_lines(lines, class_):
    if isinstance(lines, str):
        lines = lines.splitlines()
    return f'<pre class="{class_}">' + "\n".join(esc(line) for line in as_list(lines)) + "</pre>"


def generic(value, class_):
    """Any JSON value, readably: a string or a list of lines in <pre>, a dict as a <dl>, else its JSON."""
    if value is None:
        return f'<span class="not-measured">{NOT_MEASURED}</span>'
    if isinstance(value, str):
        return pre_lines(value.splitlines(), class_)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return pre_lines([str(v) for v in value], class_)
    if isinstance(value, dict):
        return f'<dl class="facts {class_}">' + "".join(
            f"<dt>{esc(k)}</dt><dd>{generic(v, class_ + '-value') if isinstance(v, (dict, list)) else esc(v)}</dd>"
            for k, v in value.items()) + "</dl>"
    return pre_lines(json.dumps(value, indent=1).splitlines(), class_)


def document(title, body):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def write(text, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def diff_block(mutant):
    """A mutant's change: its unified diff if it has one, else - original / + mutated."""
    diff = mutant.get("diff")
    if isinstance(diff, str) and diff.strip():
        lines = diff.splitlines()
    else:
        lines = [f"- {str(mutant.get('original', '')).strip()}", f"+ {str(mutant.get('mutated', '')).strip()}"]
    out = []
    for line in lines:
        if line.startswith(("---", "+++", "@@")):
            continue  # the file and line are in their own columns
        kind = ("del" if line.startswith("-") and not line.startswith("---") else
                "add" if line.startswith("+") and not line.startswith("+++") else "ctx")
        out.append(f'<span class="{kind}">{esc(line)}</span>')
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


# -- the review page ---------------------------------------------------------------------------------------------

LINE_STATES = (("reached", "reached"), ("not_reached", "not-reached"), ("no_counter", "no-counter"),
               ("unmeasured", "unmeasured"))
STATE_WORDS = {"reached": "reached", "not-reached": "NOT reached", "no-counter": "no counter (not code)",
               "unmeasured": "unmeasured (no record of the file)"}


def same_file(a, b):
    """Whether two file names mean the same file: equal, or one is the other under a directory (src/x.h, x.h)."""
    a, b = str(a), str(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def review_part(results, key):
    """results[key] (the mutation or bench hook), else the older results['hooks'][key], else {}."""
    part = results.get(key)
    if isinstance(part, dict):
        return part
    return as_dict(as_dict(results.get("hooks")).get(key))


def measured(part):
    return part.get("status") == "measured"


def status_note(part, what):
    status = part.get("status") or NOT_MEASURED
    out = f'<p{attrs(class_="status-note", data_status=status)}>{esc(what)}: <strong>{esc(status)}</strong>'
    if part.get("message"):
        out += f" — {esc(part['message'])}"
    out += "</p>"
    if part.get("command"):
        out += f'<p>command: <code class="command">{esc(part["command"])}</code></p>'
    return out


def line_states(entry, changed):
    """{line: css state} of one changed file's coverage entry; lines it does not list are unmeasured."""
    states = {}
    for key, css in LINE_STATES:
        for line in as_list(entry.get(key)):
            if isinstance(line, int):
                states[line] = css
    for line in changed:
        states.setdefault(line, "unmeasured")
    return states


def excerpt_block(name, states, counts, excerpt, mutants_by_line):
    """The file's changed lines, coloured by state, with their source text (from `excerpts`) and context."""
    source = {}
    for item in as_list(excerpt):
        if isinstance(item, (list, tuple)) and len(item) >= 2 and isinstance(item[0], int):
            source[item[0]] = item[1]
    numbers = sorted(set(source) | set(states))
    out, previous = [], None
    for line in numbers:
        if previous is not None and line != previous + 1:
            out.append('<span class="gap">⋯</span>')
        previous = line
        css = states.get(line, "context")
        mark = []
        if css != "context":
            count = counts.get(str(line), counts.get(line)) if isinstance(counts, dict) else None
            mark.append(STATE_WORDS[css] + (f", count {count}" if count is not None else ""))
        if mutants_by_line.get(line):
            statuses = [m.get("status", "?") for m in mutants_by_line[line]]
            mark.append(f"{len(statuses)} mutant(s): " + ", ".join(f"{statuses.count(s)} {s}"
                                                                  for s in dict.fromkeys(statuses)))
        text = source.get(line)
        body = esc(text) if text is not None else '<span class="muted">(source not recorded)</span>'
        state = f'<span class="state">{esc("; ".join(mark))}</span>' if mark else ""
        out.append(f'<span{attrs(class_="line " + css, data_line=line, data_file=name)}>'
                   f'<span class="lineno">{line}</span>{body}{state}</span>')
    return '<pre class="excerpt">' + "".join(out) + "</pre>"


def mutant_table(mutants, id_=None, show_file=False):
    rows = []
    for m in sorted(mutants, key=lambda m: (str(m.get("file", "")), m.get("line") if isinstance(m.get("line"), int)
                                            else 0, str(m.get("id", "")))):
        status = str(m.get("status") or NOT_MEASURED)
        killer = m.get("killed_by") or m.get("target")
        how = m.get("how") or m.get("phase")
        by = (esc(killer) + (f" ({esc(how)})" if how else "")) if status == "killed" and killer else ""
        detail = " ".join(esc(x) for x in (m.get("check"), m.get("detail")) if x)
        triage = as_dict(m.get("triage"))
        if triage:
            detail += (f'<br><span class="triage">triaged <b>{esc(triage.get("verdict"))}</b>: '
                       f'{esc(triage.get("reason"))}</span>')
        if status == "survived" and as_list(m.get("targets")):
            detail += f'<br><span class="muted">targets that ran: {esc(", ".join(map(str, m["targets"])))}</span>'
        cells = [f'<td class="id"><code>{esc(m.get("id"))}</code></td>']
        if show_file:
            cells.append(f"<td>{esc(m.get('file'))}</td>")
        cells += [f'<td class="num line">{esc(m.get("line"))}</td>', f'<td class="status">{esc(status)}'
                  + (" (not reached)" if m.get("not_reached") else "") + "</td>",
                  esc(m.get("operator") or m.get("rule") or ""), f'<td class="change">{diff_block(m)}</td>',
                  f'<td class="killed-by">{by}</td>', f'<td class="detail">{detail}</td>']
        rows.append((attrs(class_="mutant", data_id=m.get("id"), data_status=status.replace(" ", "-"),
                           data_line=m.get("line"), data_file=m.get("file"),
                           data_not_reached="1" if m.get("not_reached") else None), cells))
    header = ["mutant"] + (["file"] if show_file else []) + ["line", "status", "operator", "original → mutated",
                                                             "killed by", "detail"]
    return table(header, rows, id_=id_, class_="mutants")


def finding_block(step, row):
    target = row.get("target")
    parts = [f"<h3>finding in <code>{esc(target)}</code> ({esc(step)})</h3>"]
    pairs = [("input", f'<code class="input">{text_or_missing(row.get("input"))}</code>', None)]
    if row.get("what"):
        pairs.append(("what", f'<span class="what">{esc(row["what"])}</span>', None))
    if row.get("status") is not None:
        pairs.append(("exit status", esc(row["status"]), None))
    if finite(row.get("input_size")):
        pairs.append(("input size", number(row["input_size"], unit=" bytes"), None))
    pairs.append(("replay", f'<code class="replay">{text_or_missing(row.get("replay"))}</code>', None))
    if "in_base" in row:
        pairs.append(("BASE", f'<span class="in-base"{attrs(data_in_base="1" if row["in_base"] else "0")}>'
                      + ("fails on it too: not introduced by the change" if row["in_base"] else
                         "agrees: new in HEAD") + "</span>", None))
    if row.get("base_replay"):
        pairs.append(("replay on BASE", f'<code class="base-replay">{esc(row["base_replay"])}</code>', None))
    if row.get("minimized_replay"):
        pairs.append(("replay minimized", f'<code class="minimized-replay">{esc(row["minimized_replay"])}</code>',
                      None))
    parts.append(facts(pairs))
    difference = row.get("base_difference")
    if isinstance(difference, dict):
        parts.append("<h4>HEAD against BASE</h4>" + facts(
            [(label, f'<code class="base-{key}">{text_or_missing(difference.get(key))}</code>', None)
             for key, label in (("observation", "observation"), ("head", "HEAD"), ("base", "BASE"),
                                ("reference", "reference"), ("agrees", "the reference agrees with"))
             if key in difference]))
    if "input_hex" in row:
        parts.append("<h4>input (hex)</h4>" + generic(row.get("input_hex"), "input-hex"))
    if "first_difference" in row:
        parts.append("<h4>first difference</h4>" + generic(row.get("first_difference"), "first-difference"))
    if "minimized" in row:
        size = f" ({number(row['minimized_size'], unit=' bytes')})" if finite(row.get("minimized_size")) else ""
        parts.append(f"<h4>minimized{size}</h4>" + generic(row.get("minimized"), "minimized"))
    if row.get("report"):
        parts.append("<h4>report</h4>" + pre_lines(row.get("report"), "report"))
    return f'<article{attrs(class_="finding", data_target=target, data_step=step)}>' + "".join(parts) + "</article>"


def bench_chart(rows, id_="bench-chart"):
    """One horizontal bar per row: base_ns / head_ns (> 1: HEAD faster), a dashed line at 1."""
    values = [r.get("speedup") if finite(r.get("speedup")) else
              (r["base_ns"] / r["head_ns"] if finite(r.get("base_ns")) and finite(r.get("head_ns")) and r["head_ns"]
               else None) for r in rows]
    top = max([1.0] + [v for v in values if v is not None]) * 1.15
    label_w, bar_w, row_h = 300, 380, 22
    height = row_h * len(rows) + 30
    scale = bar_w / top
    out = [f'<svg{attrs(id=id_, width=label_w + bar_w + 70, height=height)}'
           f' role="img"><title>speedup per benchmark (base / HEAD time; above 1: HEAD faster)</title>']
    for index, (row, value) in enumerate(zip(rows, values)):
        y = 6 + index * row_h
        label = " ".join(str(x) for x in (row.get("group"), row.get("block"), row.get("what")) if x)
        out.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end">{esc(label[:48])}</text>')
        if value is None:
            out.append(f'<text x="{label_w + 4}" y="{y + 14}" class="muted">{NOT_MEASURED}</text>')
            continue
        width = max(1.0, value * scale)
        bar = attrs(class_="bar" + (" slower" if value < 1 else ""), data_group=row.get("group"),
                    data_speedup=f"{value:.4g}")
        out.append(f'<rect{bar}'
                   f' x="{label_w}" y="{y + 2}" width="{width:.1f}" height="{row_h - 6}"></rect>')
        out.append(f'<text x="{label_w + width + 4:.1f}" y="{y + 14}">{value:.3f}×</text>')
    parity = label_w + scale
    out.append(f'<line class="parity" x1="{parity:.1f}" x2="{parity:.1f}" y1="0" y2="{height - 22}"></line>')
    out.append(f'<text x="{parity:.1f}" y="{height - 8}" text-anchor="middle">1× (no change)</text>')
    out.append("</svg>")
    return "".join(out)


def render_review(results):
    results = as_dict(results)
    mutation, bench = review_part(results, "mutation"), review_part(results, "bench")
    mutants = [m for m in as_list(mutation.get("mutants")) if isinstance(m, dict)]
    bench_rows = [r for r in as_list(bench.get("rows")) if isinstance(r, dict)]
    replays = {r.get("target"): r for r in as_list(results.get("replay")) if isinstance(r, dict)}
    fuzzes = {r.get("target"): r for r in as_list(results.get("fuzz")) if isinstance(r, dict)}
    head, base = results.get("head"), results.get("base")
    title = f"serdiff review: {str(head or '?')[:12]} against {str(base or '?')[:12]}"
    body = [f"<h1>{esc(title)}</h1>"]

    # the verdict
    status = results.get("status")
    status_key = str(status) if status in (0, 1) else "unknown"
    words = {"0": "nothing needs the reviewer's eyes (exit 0)", "1": "needs the reviewer's eyes (exit 1)",
             "unknown": f"verdict {NOT_MEASURED}" + (f" (status {status})" if status is not None else "")}[status_key]
    reasons = [r for r in as_list(results.get("reasons"))]
    verdict = (f'<section{attrs(id="verdict", class_="verdict", data_status=status_key)}>'
               f'<strong id="verdict-text">{esc(words)}</strong>')
    if results.get("message"):
        verdict += f'<p class="message">{esc(results["message"])}</p>'
    if reasons:
        verdict += '<ul id="reasons">' + "".join(f'<li class="reason">{esc(r)}</li>' for r in reasons) + "</ul>"
    notes = [n for n in as_list(results.get("notes"))]
    if notes:
        verdict += '<p>notes (not failing the change):</p><ul id="notes">' + "".join(
            f'<li class="note">{esc(n)}</li>' for n in notes) + "</ul>"
    body.append(verdict + "</section>")

    # the revisions
    body.append("<h2>Revisions</h2>" + facts([
        ("HEAD", f"<code>{text_or_missing(head)}</code>", "head"),
        ("BASE", f"<code>{text_or_missing(base)}</code>", "base"),
        ("BASE chosen by", text_or_missing(results.get("base_chosen_by")), "base-chosen-by"),
        ("Core checkout", f"<code>{text_or_missing(results.get('core_src'))}</code>", None),
        ("fuzzing per target", number(results.get("time"), unit=" s"), None)], id_="revisions"))

    # the per-target table
    targets = [t for t in as_list(results.get("targets"))]
    for name in list(replays) + list(fuzzes):
        if name is not None and name not in targets:
            targets.append(name)
    rows = []
    for target in targets:
        replayed, fuzzed = replays.get(target), fuzzes.get(target)
        failed = any(r is not None and r.get("ok") is False for r in (replayed, fuzzed))
        state = "finding" if failed else "agrees" if (replayed or fuzzed) else "not-run"

        def cell(row, what):
            if row is None:
                return f'<td class="not-measured">{NOT_MEASURED}</td>'
            if row.get("ok") is False:
                detail = f": {row.get('what')}" if row.get("what") else ""
                return f'<td class="finding-cell">FINDING{esc(detail[:80])}</td>'
            amount = row.get(what)
            return (f'<td class="agrees">agrees'
                    + (f" ({amount:,} {'inputs' if what == 'files' else 'execs'})" if finite(amount) else "")
                    + "</td>")
        if not mutants and not measured(mutation):
            mutation_cell = f'<td class="not-measured">{esc(mutation.get("status") or NOT_MEASURED)}</td>'
        else:
            killed = sum(1 for m in mutants if m.get("status") == "killed" and m.get("killed_by") == target)
            survived = sum(1 for m in mutants if m.get("status") == "survived"
                           and target in as_list(m.get("targets")))
            mutation_cell = (f'<td class="mutation"{attrs(data_killed=killed, data_survived=survived)}>'
                             f"{killed} killed" + (f", {survived} survived" if survived else "") + "</td>")
        differences = [r for r in (replayed, fuzzed) if r is not None and isinstance(r.get("base_difference"), dict)]
        if not results.get("base_compared"):
            base_cell = f'<td class="not-measured">{NOT_MEASURED}</td>'
        elif differences:
            base_cell = (f'<td class="base-differs">DIFFERS: '
                         f'{esc(str(differences[0]["base_difference"].get("observation", ""))[:80])}</td>')
        elif all(r is not None and r.get("ok") is True for r in (replayed, fuzzed)):
            base_cell = '<td class="base-same">same</td>'
        else:
            base_cell = '<td class="not-measured">-</td>'
        rows.append((attrs(class_="target", data_target=target, data_status=state),
                     [f"<td><code>{esc(target)}</code></td>", cell(replayed, "files"), cell(fuzzed, "execs"),
                      base_cell, mutation_cell]))
    body.append("<h2>Targets</h2>")
    if rows:
        body.append(table(["target", "corpus replay", f"fuzz {results.get('time', '?')} s", "same as BASE",
                           "mutants on changed lines"], rows, id_="targets"))
    else:
        body.append(f'<p class="not-measured" id="targets">no target ran ({NOT_MEASURED})</p>')
    absent = as_dict(results.get("absent_targets"))
    if absent:
        body.append('<details><summary>targets not run on Core</summary><ul>' + "".join(
            f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in absent.items()) + "</ul></details>")

    # the changed files
    changed = as_dict(results.get("changed"))
    coverage = as_dict(results.get("coverage"))
    excerpts = as_dict(results.get("excerpts"))
    names = list(changed)
    for name in list(coverage) + list(excerpts):
        if name not in names:
            names.append(name)
    body.append("<h2>Changed lines</h2>")
    body.append('<p class="legend"><span class="line reached">reached</span><span class="line not-reached">NOT '
                'reached</span><span class="line no-counter">no counter (not code)</span><span class="line '
                'unmeasured">unmeasured</span> · coverage of the corpora and the fuzz step\'s inputs'
                + (f" (<code>{esc(results['lcov'])}</code>)" if results.get("lcov") else "") + "</p>")
    if not names:
        body.append(f'<p class="not-measured">no changed serialization line recorded</p>')
    shown_mutants = set()
    for name in names:
        lines = [n for n in as_list(changed.get(name)) if isinstance(n, int)]
        entry = as_dict(coverage.get(name))
        if not entry:
            states = {line: "unmeasured" for line in lines}
        else:
            states = line_states(entry, lines)
        file_mutants = [m for m in mutants if same_file(m.get("file", ""), name)]
        shown_mutants.update(id(m) for m in file_mutants)
        by_line = {}
        for m in file_mutants:
            by_line.setdefault(m.get("line"), []).append(m)
        summary = ", ".join(f"{sum(1 for s in states.values() if s == css)} {STATE_WORDS[css]}"
                            for _, css in LINE_STATES if any(s == css for s in states.values()))
        section = [f'<section{attrs(class_="file", data_file=name)}><h3><code>{esc(name)}</code></h3>',
                   f"<p>changed lines {esc(ranges(lines)) or '-'}: {esc(summary) or NOT_MEASURED}"
                   + ("" if name in excerpts else " (source text not recorded)") + "</p>",
                   excerpt_block(name, states, entry.get("counts", {}), excerpts.get(name), by_line)]
        if file_mutants:
            # Killed and surviving mutants in view; the ones left out (invalid, equivalent) folded away.
            judged = [m for m in file_mutants if m.get("status") not in ("invalid", "equivalent")]
            left_out = [m for m in file_mutants if m.get("status") in ("invalid", "equivalent")]
            section.append(mutant_table(judged))
            if left_out:
                section.append(f"<details><summary>{len(left_out)} mutant(s) left out: invalid (do not compile) or "
                               f"equivalent (identical object code)</summary>{mutant_table(left_out)}</details>")
        body.append("".join(section) + "</section>")

    # the mutation summary, and mutants on files not listed above
    body.append('<h2>Mutants on the changed lines</h2><section id="mutation"'
                + attrs(data_status=mutation.get("status") or NOT_MEASURED) + ">" + status_note(mutation, "mutation"))
    summary = as_dict(mutation.get("summary"))
    if summary:
        keys = ("generated", "invalid", "equivalent", "killed", "survived", "not_reached")
        body.append(facts([(k.replace("_", " "), number(summary.get(k)), f"mutation-{k.replace('_', '-')}")
                           for k in keys] + [("score", number(summary.get("score"), 1, " %"), "mutation-score")]))
    if mutation.get("report"):
        body.append(f'<p>make mutate\'s report: <code class="mutation-report">{esc(mutation["report"])}</code></p>')
    if as_list(mutation.get("unmutated_files")):
        body.append("<p>changed files make mutate does not mutate: " + ", ".join(
            f"<code>{esc(name)}</code>" for name in mutation["unmutated_files"]) + "</p>")
    if as_dict(mutation.get("left_out_targets")):
        body.append("<p>targets left out (their corpus fails on the unmutated tree):</p><ul>" + "".join(
            f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in mutation["left_out_targets"].items()) + "</ul>")
    rest = [m for m in mutants if id(m) not in shown_mutants]
    if rest:
        body.append("<h3>mutants on other files</h3>" + mutant_table(rest, show_file=True))
    body.append("</section>")

    # the findings
    body.append('<h2>Findings</h2><section id="findings">')
    found = [("replay", r) for r in as_list(results.get("replay")) if isinstance(r, dict) and r.get("ok") is False]
    found += [("fuzz", r) for r in as_list(results.get("fuzz")) if isinstance(r, dict) and r.get("ok") is False]
    body.append("".join(finding_block(step, row) for step, row in found) or
                ('<p class="ok">none</p>' if results.get("replay") or results.get("fuzz")
                 else f'<p class="not-measured">{NOT_MEASURED}</p>'))
    body.append("</section>")

    # the benchmark
    body.append('<h2>Benchmark: BASE against HEAD</h2><section id="bench"'
                + attrs(data_status=bench.get("status") or NOT_MEASURED) + ">" + status_note(bench, "benchmark"))
    load = [x for x in as_list(bench.get("load")) if finite(x)]
    after = [x for x in as_list(bench.get("load_after")) if finite(x)]
    if load:
        body.append(f'<p id="bench-load">machine load (1, 5, 15 min): {esc(", ".join(f"{x:.2f}" for x in load))}'
                    + (f'; after: {esc(", ".join(f"{x:.2f}" for x in after))}' if after else "")
                    + (f"; {esc(bench['rounds'])} interleaved rounds" if finite(bench.get("rounds")) else "")
                    + "</p>")
    if bench_rows:
        rows = []
        for r in bench_rows:
            speed = r.get("speedup")
            rows.append((attrs(class_="bench-row", data_group=r.get("group")), [
                esc(r.get("group")), esc(r.get("block")), esc(r.get("what")),
                f'<td class="num">{number(r.get("base_ns"), 1, " ns")}</td>',
                f'<td class="num">{number(r.get("head_ns"), 1, " ns")}</td>',
                f'<td class="num {"ok" if finite(speed) and speed >= 1 else "bad" if finite(speed) else ""}">'
                f'{number(speed, 3, "×")}</td>',
                f'<td class="num">{number(r.get("base_instructions"), 0)}</td>',
                f'<td class="num">{number(r.get("head_instructions"), 0)}</td>',
                f'<td class="num">{number(r.get("instruction_ratio"), 3)}</td>']))
        body.append(table(["group", "block", "what", "BASE", "HEAD", "speedup (BASE/HEAD)", "BASE instructions",
                           "HEAD instructions", "instruction ratio"], rows, id_="bench-table"))
        body.append(bench_chart(bench_rows))
    body.append("</section>")
    return document(title, "\n".join(body))


def write_review_page(results, path):
    """review-out/index.html from review.py's results (the dict it writes to review.json)."""
    return write(render_review(results), path)


# -- the mutation page -------------------------------------------------------------------------------------------

def score_cell(row):
    scored = (row.get("killed") or 0) + (row.get("survived") or 0)
    return f'<td class="num">{100.0 * (row.get("killed") or 0) / scored:.0f}%</td>' if scored else "<td>-</td>"


def score_text(row):
    scored = (row.get("killed") or 0) + (row.get("survived") or 0)
    return f'{100.0 * (row.get("killed") or 0) / scored:.0f}%' if scored else "-"


def per_table(per, label, id_):
    rows = []
    for key, row in sorted(as_dict(per).items()):
        row = as_dict(row)
        rows.append((attrs(class_=id_.removeprefix("per-") + "-row", data_key=key),
                     [f"<td><code>{esc(key)}</code></td>"]
                     + [f'<td class="num">{number(row.get(k))}</td>' for k in
                        ("killed", "survived", "not_reached", "invalid", "equivalent", "error")]
                     + [score_cell(row)]))
    return table([label, "killed", "survived", "not reached", "invalid", "equivalent", "error", "score"], rows,
                 id_=id_)


def directory_of(name):
    """The report section of a mutated file: serialize/, model/, crypto/ (make mutate's directories); '' otherwise."""
    head, _, rest = str(name).partition("/")
    return f"{head}/" if rest and head in ("serialize", "model", "crypto") else ""


def per_directory(report):
    """report.json's per_directory, or (a report written before it) the sums of per_file by directory."""
    given = as_dict(report.get("per_directory"))
    if given:
        return given
    sums = {}
    for name, row in as_dict(report.get("per_file")).items():
        if directory_of(name):
            total = sums.setdefault(directory_of(name), {})
            for key, value in as_dict(row).items():
                if isinstance(value, int) and not isinstance(value, bool):
                    total[key] = total.get(key, 0) + value
    return sums


def render_mutate(report):
    report = as_dict(report)
    config = as_dict(report.get("config"))
    mutants = [m for m in as_list(report.get("mutants")) if isinstance(m, dict)]
    subject = config.get("subject") or "serdiff"
    title = f"serdiff mutation analysis ({subject})"
    body = [f"<h1>{esc(title)}</h1>"]
    score = report.get("score")
    body.append(f'<p class="verdict" data-status="{"unknown"}" id="score-line">score: <strong id="score">'
                f'{number(score, 1, " %")}</strong> ({number(report.get("killed"))} killed of '
                f'{number(report.get("valid_non_equivalent"))} valid non-equivalent mutants)</p>')
    body.append("<h2>Summary</h2>" + facts([
        ("generated", number(report.get("generated")), "generated"),
        ("selected / done", f"{number(report.get('selected'))} / {number(report.get('done'))}", None),
        ("invalid (do not compile)", number(report.get("invalid")), "invalid"),
        ("equivalent (identical objects)", number(report.get("equivalent")), "equivalent"),
        ("errors", number(report.get("errors")), None),
        ("killed", f"{number(report.get('killed'))} ({number(report.get('killed_by_replay'))} by corpus replay, "
                   f"{number(report.get('killed_by_fuzzing'))} by fuzzing)", "killed"),
        ("survived", f"{number(report.get('survived'))} ({number(report.get('survived_not_reached'))} not reached)",
         "survived"),
        ("score", number(score, 1, " %"), None),
        ("score without survivors triaged equivalent", number(report.get("score_without_triaged_equivalent"), 1,
                                                               " %"), None),
        ("survivors triaged", esc(", ".join(f"{v} {k}" for k, v in as_dict(report.get("survivors_triaged")).items()))
         or f'<span class="not-measured">{NOT_MEASURED}</span>', None),
        ("median seconds to kill", number(report.get("median_seconds_to_kill"), 2), None),
        ("configuration", esc(", ".join(f"{k}={v}" for k, v in config.items() if v not in (None, "", [], {}))),
         "config")], id_="summary"))
    directories = per_directory(report)
    if len(directories) > 1 or any(d != "serialize/" for d in directories):
        body.append("<h2>By directory</h2>" + per_table(directories, "directory", "per-directory"))
    body.append("<h2>By file</h2>" + per_table(report.get("per_file"), "file", "per-file"))
    body.append("<details><summary>By operator (universalmutator rule)</summary>"
                + per_table(report.get("per_operator"), "rule", "per-operator") + "</details>")
    body.append("<h2>Mutants, per file and line</h2>")
    if not mutants:
        body.append(f'<p class="not-measured">no mutant recorded ({NOT_MEASURED})</p>')
    by_file = {}
    for m in mutants:
        by_file.setdefault(str(m.get("file", "?")), []).append(m)
    # A section per directory (serialize/, model/, crypto/) with its own score when there is more than one.
    sectioned = len({directory_of(name) for name in by_file}) > 1
    current = None
    for name in sorted(by_file, key=lambda n: (directory_of(n), n)):
        if sectioned and directory_of(name) != current:
            if current is not None:
                body.append("</section>")
            current = directory_of(name)
            row = as_dict(directories.get(current))
            body.append(f'<section{attrs(class_="directory", data_directory=current or "other")}>'
                        f'<h3><code>{esc(current or "other")}</code>: score <span class="score">{score_text(row)}'
                        f'</span> ({number(row.get("killed"))} killed, {number(row.get("survived"))} survived, '
                        f'{number(row.get("not_reached"))} of them not reached)</h3>')
        file_mutants = by_file[name]
        counts = {}
        for m in file_mutants:
            counts[m.get("status", "?")] = counts.get(m.get("status", "?"), 0) + 1
        body.append(f'<section{attrs(class_="file", data_file=name)}><h3><code>{esc(name)}</code>: '
                    + esc(", ".join(f"{v} {k}" for k, v in sorted(counts.items()))) + "</h3>"
                    + mutant_table(file_mutants) + "</section>")
    if sectioned:
        body.append("</section>")
    return document(title, "\n".join(body))


def write_mutate_page(report, path):
    """<out>/index.html from make mutate's report.json dict (tools/mutate/mutate.py write_report)."""
    return write(render_mutate(report), path)


# -- the fuzz page -----------------------------------------------------------------------------------------------

def plot(run, width=560, height=170):
    """exec/s and coverage (edges) over the run's samples: one polyline each, each scaled to its own maximum."""
    samples = [s for s in as_list(run.get("samples")) if isinstance(s, dict) and finite(s.get("elapsed_s"))]
    left, right, top, bottom = 56, 56, 10, 24
    span = max([s["elapsed_s"] for s in samples] + [run.get("seconds") if finite(run.get("seconds")) else 0, 1])
    inner_w, inner_h = width - left - right, height - top - bottom

    def series(key):
        points = [(s["elapsed_s"], s[key]) for s in samples if finite(s.get(key))]
        peak = max([v for _, v in points] + [1])
        xy = [(left + inner_w * t / span, top + inner_h * (1 - v / peak)) for t, v in points]
        return peak, " ".join(f"{x:.1f},{y:.1f}" for x, y in xy), len(points), xy

    rate_peak, rate_points, rate_n, rate_xy = series("exec_per_s")
    cov_peak, cov_points, cov_n, cov_xy = series("edges")
    svg = attrs(class_="fuzz-plot", data_target=run.get("target"), data_engine=run.get("engine"), width=width,
                height=height)
    out = [f'<svg{svg}'
           f' role="img"><title>{esc(run.get("target"))} ({esc(run.get("engine"))}): exec/s and coverage over '
           f'time</title>',
           f'<line class="axis" x1="{left}" y1="{top + inner_h}" x2="{left + inner_w}" y2="{top + inner_h}"></line>',
           f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + inner_h}"></line>',
           f'<line class="axis" x1="{left + inner_w}" y1="{top}" x2="{left + inner_w}" y2="{top + inner_h}"></line>',
           f'<text x="{left}" y="{height - 6}">0 s</text>',
           f'<text x="{left + inner_w}" y="{height - 6}" text-anchor="end">{span:g} s</text>',
           f'<text x="{left - 4}" y="{top + 10}" text-anchor="end" class="exec-rate-label">{rate_peak:,.0f}</text>',
           f'<text x="{left - 4}" y="{top + inner_h}" text-anchor="end">0</text>',
           f'<text x="{left + inner_w + 4}" y="{top + 10}" class="coverage-label">'
           f'{f"{cov_peak:,.0f}" if cov_n else "-"}</text>',
           f'<text x="{left + inner_w + 4}" y="{top + inner_h}">0</text>']
    if rate_n:
        out.append(f'<polyline class="exec-rate" data-points="{rate_n}" points="{rate_points}"></polyline>')
    if cov_n:
        out.append(f'<polyline class="coverage" data-points="{cov_n}" points="{cov_points}"></polyline>')
    for css, xy in (("exec-rate", rate_xy), ("coverage", cov_xy)):  # dots: a single sample shows too
        if len(xy) <= 120:
            out += [f'<circle class="dot {css}" cx="{x:.1f}" cy="{y:.1f}" r="2.5"></circle>' for x, y in xy]
    if not rate_n and not cov_n:
        out.append(f'<text x="{left + 8}" y="{top + inner_h / 2}" class="not-measured">no samples '
                   f'({NOT_MEASURED})</text>')
    out.append("</svg>")
    return "".join(out)


def run_state(run):
    if run.get("skipped"):
        return "skipped"
    if run.get("engine_failed"):
        return "engine-failed"
    if as_list(run.get("crashes")):
        return "crash"
    return "ok"


def render_fuzz(summary):
    summary = as_dict(summary)
    runs = [r for r in as_list(summary.get("runs")) if isinstance(r, dict)]
    findings = [f for f in as_list(summary.get("findings")) if isinstance(f, dict)]
    title = f"serdiff fuzzing ({summary.get('subject') or 'serdiff'})"
    body = [f"<h1>{esc(title)}</h1>"]
    bad = sum(1 for r in runs if run_state(r) in ("crash", "engine-failed"))
    status = "unknown" if not runs else "1" if bad or findings else "0"
    body.append(f'<section{attrs(id="verdict", class_="verdict", data_status=status)}><strong>'
                + esc({"unknown": f"no run recorded ({NOT_MEASURED})",
                       "0": f"{len(runs)} run(s), no crash",
                       "1": f"{len(runs)} run(s): {bad} with a crash or a failed engine, {len(findings)} unique "
                            f"finding(s)"}[status]) + "</strong></section>")
    body.append(facts([("subject", text_or_missing(summary.get("subject")), None),
                       ("Core source", esc(summary.get("core_src") or "-"), None)]))
    rows = []
    for r in runs:
        state = run_state(r)
        crashes = as_list(r.get("crashes"))
        rows.append((attrs(class_="run", data_target=r.get("target"), data_engine=r.get("engine"), data_status=state),
                     [f"<td><code>{esc(r.get('target'))}</code></td>", esc(r.get("engine")),
                      f'<td class="num">{number(r.get("seconds"), unit=" s")}</td>',
                      f'<td class="num">{number(r.get("execs"))}</td>',
                      f'<td class="num">{number(r.get("exec_per_s"))}</td>',
                      esc(r.get("coverage")) if r.get("coverage") not in (None, "-") else
                      f'<span class="not-measured">{NOT_MEASURED}</span>',
                      f"{number(r.get('corpus_before'))} → {number(r.get('corpus_after'))}",
                      f'<td class="num">{number(r.get("peak_rss_mb") or None, unit=" MB")}</td>',  # 0: none reported
                      ("skipped: " + esc(r.get("skipped"))) if state == "skipped" else
                      '<span class="bad">engine failed</span>' if state == "engine-failed" else
                      f'<span class="bad">{len(crashes)} crash file(s)</span>' if crashes else
                      '<span class="ok">0</span>',
                      f"<code>{esc(r.get('log'))}</code>"]))
    body.append("<h2>Runs</h2>")
    body.append(table(["target", "engine", "time", "execs", "exec/s", "coverage", "corpus before → after",
                       "peak RSS", "crashes", "log"], rows, id_="runs") if rows
                else f'<p class="not-measured">{NOT_MEASURED}</p>')
    body.append("<h2>Over time</h2><p class=\"legend\"><svg width=\"28\" height=\"8\"><polyline class=\"exec-rate\" "
                "points=\"0,4 28,4\"></polyline></svg> exec/s (left scale) <svg width=\"28\" height=\"8\"><polyline "
                "class=\"coverage\" points=\"0,4 28,4\"></polyline></svg> coverage, libFuzzer edges (right scale); "
                "one point per progress poll (every 10 s)</p>")
    for r in runs:
        if run_state(r) == "skipped":
            continue
        body.append(f'<section{attrs(class_="run-plot", data_target=r.get("target"), data_engine=r.get("engine"))}>'
                    f"<h3><code>{esc(r.get('target'))}</code> ({esc(r.get('engine'))})</h3>{plot(r)}</section>")
    body.append('<h2>Findings</h2><section id="findings">')
    for f in findings:
        pairs = [("kind", esc(f.get("kind")), None), ("signature", f"<code>{esc(f.get('signature'))}</code>", None),
                 ("replay", f'<code class="replay">{text_or_missing(f.get("replay"))}</code>', None),
                 ("minimized", f"{number(f.get('minimized_size'), unit=' bytes')} of "
                               f"{number(f.get('original_size'), unit=' bytes')} ({esc(f.get('method'))})", None),
                 ("saved in", f"<code>{text_or_missing(f.get('directory'))}</code>", None)]
        parts = [f"<h3>{esc(f.get('target'))}: {esc(f.get('headline'))}</h3>", facts(pairs)]
        if f.get("minimized_hex"):
            parts.append("<h4>minimized input (hex)</h4>" + pre_lines([f["minimized_hex"]], "input-hex"))
        if f.get("first_difference"):
            parts.append("<h4>first difference</h4>" + generic(f.get("first_difference"), "first-difference"))
        if f.get("explanation"):
            parts.append("<h4>explanation</h4>" + generic(f.get("explanation"), "explanation"))
        crashes = [c for c in as_list(f.get("crashes")) if isinstance(c, dict)]
        if crashes:
            parts.append("<ul>" + "".join(f"<li><code>{esc(c.get('path'))}</code> ({esc(c.get('engine'))}"
                                          f"{', from the seeds' if c.get('from_seeds') else ''})</li>"
                                          for c in crashes) + "</ul>")
        body.append(f'<article{attrs(class_="finding", data_target=f.get("target"))}>' + "".join(parts) + "</article>")
    if not findings:
        body.append('<p class="ok">none</p>' if runs else f'<p class="not-measured">{NOT_MEASURED}</p>')
    body.append("</section>")
    return document(title, "\n".join(body))


def write_fuzz_page(summary, path):
    """fuzz-out/index.html from tools/fuzz/run.py's summary dict (write_summary)."""
    return write(render_fuzz(summary), path)


# -- command line ------------------------------------------------------------------------------------------------

PAGES = {"review": write_review_page, "mutate": write_mutate_page, "fuzz": write_fuzz_page}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", choices=sorted(PAGES), help="which report the JSON is")
    parser.add_argument("json", help="review-out/review.json, mutate-out/report.json or fuzz-out/summary.json")
    parser.add_argument("-o", "--output", default=None, help="the HTML file (default: index.html next to the JSON)")
    arguments = parser.parse_args(argv)
    source = Path(arguments.json)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"html: cannot read {source}: {error}", file=sys.stderr)
        return 2
    output = Path(arguments.output) if arguments.output else source.parent / "index.html"
    PAGES[arguments.page](data, output)
    print(f"html: {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
