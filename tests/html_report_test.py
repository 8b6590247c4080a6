#!/usr/bin/env python3
"""ctest html_report: the HTML pages of tools/report/html.py (review, mutate, fuzz), rendered from the fixtures in
tests/html/ and loaded in headless chromium (`--dump-dom`); the DOM chromium built is parsed and checked: the
verdict and its status, the per-target rows, the changed lines' reached / not-reached classes, a survived mutant's
diff, the finding's replay command, one benchmark bar per row, the fuzz plots' point counts, hostile strings shown
as text (no element added), no external resource, and "not measured" where a report lacks a part.

Needs chromium: make test installs it through ci/install-deps.sh; without it this test fails (it does not skip).
SERDIFF_CHROMIUM=/path/to/chrome picks another binary."""
import copy
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "html"
# Loaded by path under its own name: tools/report/html.py would shadow the standard library's html on sys.path.
_spec = importlib.util.spec_from_file_location("serdiff_report_html", ROOT / "tools" / "report" / "html.py")
page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page)

CHROMIUM_SECONDS = 120
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HOSTILE = "<script>document.title='pwned'</script>\"><img src=x onerror=alert(1)>"


def chromium():
    for candidate in (os.environ.get("SERDIFF_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    sys.exit("html_report: FAILED: no chromium binary (chromium, chromium-browser, google-chrome or "
             "$SERDIFF_CHROMIUM) on PATH; make test installs it through ci/install-deps.sh (run ci/install-deps.sh, "
             "or apt-get install chromium)")


def dump_dom(path, scratch):
    """The DOM headless chromium builds from the file, serialized (chromium --dump-dom)."""
    profile = tempfile.mkdtemp(dir=scratch, prefix="profile-")
    environment = {**os.environ, "HOME": profile, "XDG_CONFIG_HOME": profile, "XDG_CACHE_HOME": profile}
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--disable-background-networking", f"--user-data-dir={profile}",
               "--dump-dom", Path(path).resolve().as_uri()]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=CHROMIUM_SECONDS, env=environment)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"chromium did not finish within {CHROMIUM_SECONDS} s: {' '.join(command)}")
    if result.returncode != 0 or "</html>" not in result.stdout:
        raise AssertionError(f"chromium --dump-dom {path} failed (status {result.returncode}):\n"
                             + result.stderr[-2000:])
    return result.stdout


class Node:
    def __init__(self, tag, attributes, parent):
        self.tag, self.attrs, self.parent, self.children, self.parts = tag, dict(attributes), parent, [], []

    @property
    def classes(self):
        return (self.attrs.get("class") or "").split()

    def text(self):
        return "".join(part if isinstance(part, str) else part.text() for part in self.parts)

    def walk(self):
        for child in self.children:
            yield child
            yield from child.walk()

    def find_all(self, tag=None, cls=None, **wanted):
        """Descendants with that tag, class and attributes (data_line= means data-line=)."""
        wanted = {k.replace("_", "-"): str(v) for k, v in wanted.items()}
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)
                and all(n.attrs.get(k) == v for k, v in wanted.items())]

    def one(self, tag=None, cls=None, **wanted):
        found = self.find_all(tag, cls, **wanted)
        if len(found) != 1:
            raise AssertionError(f"expected one <{tag or '*'} class={cls} {wanted}>, found {len(found)}")
        return found[0]


class Dom(HTMLParser):
    """A small tree of the dumped DOM (chromium's serialization is well formed: every element closed)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = self.current = Node("#document", {}, None)
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attributes):
        node = Node(tag, attributes, self.current)
        self.current.children.append(node)
        self.current.parts.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attributes):
        node = Node(tag, attributes, self.current)
        self.current.children.append(node)
        self.current.parts.append(node)

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.parts.append(data)


def points(polyline):
    return len(polyline.attrs.get("points", "").split())


class Pages(unittest.TestCase):
    """Every page rendered once into a scratch directory, loaded once in chromium."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory(prefix="serdiff-html-")
        cls.dir = Path(cls.scratch.name)
        cls.data = {name: json.loads((FIXTURES / f"{name}.json").read_text()) for name in
                    ("review", "review-hostile", "review-before-new-keys", "mutate-report", "fuzz-summary")}
        not_reached_everywhere = copy.deepcopy(cls.data["review"])
        for entry in not_reached_everywhere["coverage"].values():
            entry["not_reached"] = sorted(entry["reached"] + entry["not_reached"])
            entry["reached"] = []
        cls.data["review-nothing-reached"] = not_reached_everywhere
        writers = {"review": page.write_review_page, "mutate": page.write_mutate_page, "fuzz": page.write_fuzz_page}
        pages = {"review": "review", "review-hostile": "review", "review-before-new-keys": "review",
                 "review-nothing-reached": "review", "mutate-report": "mutate", "fuzz-summary": "fuzz"}
        cls.html, cls.dom = {}, {}
        for name, kind in pages.items():
            path = writers[kind](cls.data[name], cls.dir / f"{name}.html")
            cls.html[name] = path.read_text()
        # the recorded mutation run (tools/mutate/results/report.json, 1285 mutants): the real schema, at size
        cls.data["mutate-recorded"] = json.loads((ROOT / "tools" / "mutate" / "results" / "report.json").read_text())
        cls.html["mutate-recorded"] = page.write_mutate_page(cls.data["mutate-recorded"],
                                                             cls.dir / "mutate-recorded.html").read_text()
        for kind in writers:  # an empty report: every part missing
            path = writers[kind]({}, cls.dir / f"empty-{kind}.html")
            cls.html[f"empty-{kind}"] = path.read_text()
        for name in cls.html:
            cls.dom[name] = Dom(dump_dom(cls.dir / f"{name}.html", cls.dir)).root

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    # -- helpers ---------------------------------------------------------------------------------------------------

    def line(self, name, file, number):
        return self.dom[name].one("span", "line", data_file=file, data_line=number)

    def assert_line(self, name, file, number, state):
        node = self.line(name, file, number)
        self.assertIn(state, node.classes, f"{file}:{number} has classes {node.classes}, not {state}")

    # -- the review page -------------------------------------------------------------------------------------------

    def test_review_verdict_and_revisions(self):
        dom, data = self.dom["review"], self.data["review"]
        verdict = dom.one(id="verdict")
        self.assertEqual(verdict.attrs["data-status"], "1")
        self.assertIn("needs the reviewer's eyes (exit 1)", verdict.text())
        self.assertEqual([li.text() for li in dom.find_all("li", "reason")], data["reasons"])
        self.assertEqual(dom.one(id="head").text(), data["head"])
        self.assertEqual(dom.one(id="base").text(), data["base"])
        self.assertEqual(dom.one(id="base-chosen-by").text(), data["base_chosen_by"])

    def test_review_targets(self):
        rows = self.dom["review"].find_all("tr", "target")
        self.assertEqual([r.attrs["data-target"] for r in rows], self.data["review"]["targets"])
        status = {r.attrs["data-target"]: r.attrs["data-status"] for r in rows}
        self.assertEqual(status.pop("buffered_writer"), "finding")
        self.assertEqual(set(status.values()), {"agrees"})
        block = self.dom["review"].one("tr", "target", data_target="block")
        self.assertIn("1 killed", block.text())          # serialize.h#2231, killed by block (fuzz)
        self.assertNotIn("×", block.text())               # speed-ups are in the benchmark table, not per target
        self.assertIn("FINDING", self.dom["review"].one("tr", "target", data_target="buffered_writer").text())

    def test_review_changed_lines(self):
        self.assert_line("review", "src/serialize.h", 312, "reached")
        self.assert_line("review", "src/serialize.h", 315, "reached")
        self.assert_line("review", "src/streams.cpp", 55, "no-counter")
        self.assert_line("review", "src/streams.cpp", 56, "not-reached")
        self.assert_line("review", "src/streams.cpp", 57, "reached")
        self.assert_line("review", "src/streams.cpp", 53, "context")
        self.assertIn("numeric_limits<uint32_t>::max()", self.line("review", "src/serialize.h", 312).text())
        self.assertIn("count 4782", self.line("review", "src/serialize.h", 312).text())

    def test_review_check_can_fail(self):
        """The line checks tell the states apart: asserting the wrong state fails, and the same fixture with every
        line not reached renders every changed line not-reached."""
        with self.assertRaises(AssertionError):
            self.assert_line("review", "src/streams.cpp", 56, "reached")
        with self.assertRaises(AssertionError):
            self.assert_line("review", "src/serialize.h", 312, "not-reached")
        for file, lines in (("src/serialize.h", (312, 315)), ("src/streams.cpp", (56, 57))):
            for number in lines:
                self.assert_line("review-nothing-reached", file, number, "not-reached")
                self.assertNotIn("reached", self.line("review-nothing-reached", file, number).classes)

    def test_review_mutants(self):
        dom = self.dom["review"]
        mutants = dom.find_all("tr", "mutant")
        self.assertEqual(len(mutants), 6)
        survived = dom.one("tr", "mutant", data_status="survived")
        self.assertEqual(survived.attrs["data-id"], "streams.cpp#140")
        self.assertIn("+    return *m_position + 1;", survived.one("pre", "diff").text())
        self.assertIn("-    return *m_position;", survived.one("pre", "diff").text())
        killed = dom.one("tr", "mutant", data_id="serialize.h#2231")
        self.assertEqual(killed.attrs["data-status"], "killed")
        self.assertEqual(killed.one("td", "killed-by").text(), "block (fuzz)")
        self.assertEqual(dom.one("tr", "mutant", data_id="streams.cpp#131").attrs["data-status"], "not-reached")
        # The reviewer's triage beside the survivor; the diff shows the lines, not the unified-diff headers.
        self.assertEqual(dom.one("tr", "mutant", data_id="streams.cpp#131").one("span", "triage").text(),
                         "triaged open: no target makes an unseekable file")
        self.assertNotIn("@@", survived.one("pre", "diff").text())
        # Invalid and equivalent mutants are folded into a details element, the judged ones are not.
        folded = [d for d in dom.find_all("details") if d.find_all("tr", "mutant")]
        self.assertEqual(sorted(m.attrs["data-status"] for d in folded for m in d.find_all("tr", "mutant")),
                         ["equivalent", "invalid"])
        self.assertEqual(dom.one(id="mutation-score").text(), "50.0 %")

    def test_review_finding(self):
        finding = self.dom["review"].one("article", "finding")
        self.assertEqual(finding.attrs["data-target"], "buffered_writer")
        row = next(r for r in self.data["review"]["replay"] if not r["ok"])
        self.assertEqual(finding.one("code", "replay").text(), row["replay"])
        self.assertEqual(finding.one("code", "input").text(), row["input"])
        self.assertIn("0102030405ff07", finding.one("pre", "input-hex").text())
        self.assertIn("offset 5: optimized 06, reference 66", finding.one("pre", "first-difference").text())
        self.assertIn(">66< 07 08", finding.one("pre", "report").text())
        self.assertEqual(finding.one("span", "in-base").attrs["data-in-base"], "0")
        self.assertEqual(finding.one("code", "base-replay").text(), row["base_replay"])
        self.assertEqual([li.text() for li in self.dom["review"].find_all("li", "note")], self.data["review"]["notes"])

    def test_review_bench(self):
        dom, rows = self.dom["review"], self.data["review"]["bench"]["rows"]
        chart = dom.one("svg", id="bench-chart")
        bars = chart.find_all("rect", "bar")
        self.assertEqual(len(bars), len(rows))
        self.assertEqual([b.attrs["data-group"] for b in bars], [r["group"] for r in rows])
        widths = [float(b.attrs["width"]) for b in bars]
        self.assertGreater(widths[0], widths[1])          # 1.021 against 0.9735
        self.assertIn("slower", bars[1].classes)
        self.assertEqual(len(dom.find_all("tr", "bench-row")), len(rows))
        self.assertIn("1.02, 1.21, 1.33", dom.one(id="bench-load").text())

    def test_review_old_schema_and_empty(self):
        """review.json as review.py writes it before the new keys (hooks, no excerpts), and an empty one."""
        dom = self.dom["review-before-new-keys"]
        self.assertEqual(dom.one(id="verdict").attrs["data-status"], "0")
        self.assertEqual(dom.one(id="mutation").attrs["data-status"], "not yet measured")
        self.assertEqual(dom.one(id="bench").attrs["data-status"], "not yet measured")
        self.assertEqual(dom.find_all("svg", id="bench-chart"), [])
        self.assert_line("review-before-new-keys", "src/serialize.h", 312, "reached")
        self.assertIn("source not recorded", self.line("review-before-new-keys", "src/serialize.h", 312).text())
        self.assertIn("not yet measured", dom.one("tr", "target", data_target="block").text())
        empty = self.dom["empty-review"]
        self.assertEqual(empty.one(id="verdict").attrs["data-status"], "unknown")
        self.assertIn("not measured", empty.one(id="verdict").text())
        self.assertEqual(empty.find_all("tr", "target"), [])

    def test_hostile_strings_are_text(self):
        dom = self.dom["review-hostile"]
        self.assertEqual(dom.find_all("script"), [])
        self.assertEqual(dom.find_all("img"), [])
        self.assertEqual([n.tag for n in dom.walk() if any(k.startswith("on") for k in n.attrs)], [])
        self.assertIn(HOSTILE, [li.text() for li in dom.find_all("li", "reason")][-1])
        self.assertIn(HOSTILE, dom.one(id="base-chosen-by").text())
        self.assertIn(HOSTILE, dom.one("article", "finding").one("code", "replay").text())
        self.assertIn(HOSTILE, self.line("review-hostile", "src/streams.cpp", 53).text())
        self.assertIn(HOSTILE, dom.one("tr", "mutant", data_status="survived").one("pre", "diff").text())
        self.assertEqual(len(dom.find_all("tr", "target")), len(self.data["review-hostile"]["targets"]))
        self.assertNotIn("pwned", dom.one("head").one("title").text())

    def test_self_contained(self):
        """No tag that loads anything, no src/href attribute, no url() or @import in the CSS: in the file as written
        (every string from the JSON is escaped, so a '<' here opens a real tag) and in chromium's DOM."""
        loading = ("script", "link", "img", "iframe", "object", "embed", "image", "use", "audio", "video", "base")
        for name, text in self.html.items():
            for source, root in ((f"{name}.html", Dom(text).root), (f"chromium's DOM of {name}.html", self.dom[name])):
                self.assertEqual([f"<{n.tag} {' '.join(n.attrs)}>" for n in root.walk() if n.tag in loading
                                  or {"src", "href", "xlink:href", "srcset", "style"} & set(n.attrs)], [], source)
            style = "".join(re.findall(r"<style>(.*?)</style>", text, re.DOTALL))
            for needle in ("url(", "@import", "http", "//"):
                self.assertNotIn(needle, style, f"{name}.html's CSS contains {needle}")

    # -- the mutation page -----------------------------------------------------------------------------------------

    def test_mutate_page(self):
        dom, data = self.dom["mutate-report"], self.data["mutate-report"]
        self.assertEqual(dom.one(id="score").text(), f"{data['score']:.1f} %")
        mutants = dom.find_all("tr", "mutant")
        self.assertEqual(sorted(m.attrs["data-id"] for m in mutants), sorted(m["id"] for m in data["mutants"]))
        by_status = {}
        for m in mutants:
            by_status[m.attrs["data-status"]] = by_status.get(m.attrs["data-status"], 0) + 1
        self.assertEqual(by_status, {"killed": 4, "survived": 2, "invalid": 2, "equivalent": 1})
        self.assertEqual(len([m for m in mutants if m.attrs.get("data-not-reached") == "1"]), 1)
        self.assertEqual(sorted(s.attrs["data-file"] for s in dom.find_all("section", "file")),
                         sorted(data["per_file"]))
        self.assertEqual(len(dom.one(id="per-file").find_all("tr", "file-row")), len(data["per_file"]))
        survived = dom.one("tr", "mutant", data_id="serialize/file.h#726")
        self.assertEqual(survived.attrs["data-status"], "survived")
        self.assertIn("+ if (written != source.size() && std::ferror(m_file))", survived.one("pre", "diff").text())
        fuzz_kill = next(m for m in data["mutants"] if m.get("phase") == "fuzz")
        cell = dom.one("tr", "mutant", data_id=fuzz_kill["id"]).one("td", "killed-by").text()
        self.assertEqual(cell, f"{fuzz_kill['target']} (fuzz)")
        recorded, mutants = self.dom["mutate-recorded"], self.data["mutate-recorded"]["mutants"]
        self.assertEqual(len(recorded.find_all("tr", "mutant")), len(mutants))
        self.assertEqual(len(recorded.find_all("tr", "mutant", data_status="survived")),
                         sum(m["status"] == "survived" for m in mutants))
        self.assertEqual(recorded.one(id="score").text(), f"{self.data['mutate-recorded']['score']:.1f} %")
        empty = self.dom["empty-mutate"]
        self.assertIn("not measured", empty.one(id="score").text())
        self.assertEqual(empty.find_all("tr", "mutant"), [])

    # -- the fuzz page ---------------------------------------------------------------------------------------------

    def test_fuzz_page(self):
        dom, data = self.dom["fuzz-summary"], self.data["fuzz-summary"]
        rows = dom.find_all("tr", "run")
        self.assertEqual([(r.attrs["data-target"], r.attrs["data-engine"]) for r in rows],
                         [(r["target"], r["engine"]) for r in data["runs"]])
        status = {(r.attrs["data-target"], r.attrs["data-engine"]): r.attrs["data-status"] for r in rows}
        self.assertEqual(status[("block", "libfuzzer")], "crash")
        self.assertEqual(status[("block_store", "afl")], "skipped")
        self.assertEqual(status[("transaction", "libfuzzer")], "ok")
        self.assertEqual(dom.one(id="verdict").attrs["data-status"], "1")
        for run in data["runs"]:
            plots = dom.find_all("svg", "fuzz-plot", data_target=run["target"], data_engine=run["engine"])
            if run["skipped"]:
                self.assertEqual(plots, [])
                continue
            self.assertEqual(len(plots), 1)
            rate = plots[0].find_all("polyline", "exec-rate")
            coverage = plots[0].find_all("polyline", "coverage")
            self.assertEqual(points(rate[0]) if rate else 0,
                             sum(s["exec_per_s"] is not None for s in run["samples"]))
            self.assertEqual(points(coverage[0]) if coverage else 0,
                             sum(s["edges"] is not None for s in run["samples"]))
        transaction = dom.one("svg", "fuzz-plot", data_target="transaction", data_engine="libfuzzer")
        self.assertEqual(points(transaction.one("polyline", "exec-rate")), 6)
        self.assertEqual(points(transaction.one("polyline", "coverage")), 6)
        finding = dom.one("article", "finding")
        self.assertEqual(finding.one("code", "replay").text(), data["findings"][0]["replay"])
        self.assertIn("0100000000", finding.one("pre", "input-hex").text())
        empty = self.dom["empty-fuzz"]
        self.assertEqual(empty.one(id="verdict").attrs["data-status"], "unknown")
        self.assertEqual(empty.find_all("svg", "fuzz-plot"), [])


class CommandLine(unittest.TestCase):
    def test_cli_writes_each_page(self):
        with tempfile.TemporaryDirectory() as scratch:
            for kind, fixture in (("review", "review"), ("mutate", "mutate-report"), ("fuzz", "fuzz-summary")):
                out = Path(scratch) / f"{kind}.html"
                result = subprocess.run([sys.executable, str(ROOT / "tools" / "report" / "html.py"), kind,
                                         str(FIXTURES / f"{fixture}.json"), "-o", str(out)],
                                        capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertTrue(out.read_text().startswith("<!DOCTYPE html>"))
            missing = subprocess.run([sys.executable, str(ROOT / "tools" / "report" / "html.py"), "fuzz",
                                      str(Path(scratch) / "absent.json")], capture_output=True, text=True, timeout=60)
            self.assertEqual(missing.returncode, 2)


if __name__ == "__main__":
    chromium()  # fail first, with the message, when there is none
    unittest.main()
