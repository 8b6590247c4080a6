#!/usr/bin/env python3
"""ctest review_core_logic: tools/review/review.py (make review-core) without a build: the changed-lines parser on a
real `git diff -U0` of a temporary git repository (replaced, added, deleted-only and multi-hunk changes, a deleted
file, a file outside the serialization list), BASE resolution and its errors, and the verdict / exit status on
synthetic results (a finding, one BASE has too, a changed code line not reached, a line without a counter, a
surviving mutant, a slower case, all clean), make mutate's report entries as the review's, the mutation plan, and the
mutation phase's reach taken from the review's own coverage."""
import contextlib
import io
import subprocess
import sys
import tempfile
import unittest
from unittest import mock
from pathlib import Path

REVIEW = Path(__file__).resolve().parents[1] / "tools" / "review" / "review.py"
sys.path.insert(0, str(REVIEW.parent))
import review  # noqa: E402


def git(tree, *arguments):
    return subprocess.run(["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
                          check=True, capture_output=True, text=True).stdout


def write(tree, name, lines):
    path = Path(tree) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))


class ChangedLines(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.tree = Path(self.scratch.name)
        git(self.tree, "init", "-q")
        write(self.tree, "src/serialize.h", [f"line {n}" for n in range(1, 31)])
        write(self.tree, "src/streams.h", [f"s {n}" for n in range(1, 11)])
        write(self.tree, "src/undo.h", ["u"])
        write(self.tree, "src/validation.cpp", ["v"])
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-qm", "base")
        self.base = git(self.tree, "rev-parse", "HEAD").strip()
        lines = [f"line {n}" for n in range(1, 31)]
        lines[2] = "line 3 changed"            # replaced: new line 3
        del lines[9]                           # deleted only (old line 10): no new line
        lines[19:19] = ["new a", "new b"]      # added after old line 20: new lines 20-21 (after the deletion)
        lines[-1] = "line 30 changed"          # a second far hunk: the last line, now 31
        write(self.tree, "src/serialize.h", lines)
        write(self.tree, "src/streams.h", [f"s {n}" for n in range(1, 11)] + ["appended"])
        (self.tree / "src" / "undo.h").unlink()
        write(self.tree, "src/validation.cpp", ["v changed"])
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-qm", "change")
        self.head = git(self.tree, "rev-parse", "HEAD").strip()

    def tearDown(self):
        self.scratch.cleanup()

    def test_mutation_plan_printed_for_the_workflow(self):
        # --mutation-plan (.github/workflows/review-mutation.yml's plan job): key=value lines on stdout, HEAD exported
        # for core_files' probe, nothing built; validation.cpp is not a serialization file, undo.h was deleted.
        with tempfile.TemporaryDirectory() as work, \
                mock.patch.object(review, "WORK", Path(work)), mock.patch.object(review, "HEAD_TREE", Path(work) / "head"):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(review.print_mutation_plan(self.tree, self.base), 0)
            plan = dict(line.split("=", 1) for line in out.getvalue().splitlines())
            self.assertEqual(plan["head"], self.head)
            self.assertEqual(plan["base"], self.base)
            self.assertEqual(plan["files"], "serialize.h streams.h")
            self.assertEqual(plan["lines"], "serialize.h:3,20-21,31 streams.h:11")
            self.assertEqual(plan["unmutated"], "")
            self.assertTrue((Path(work) / "head" / "src" / "serialize.h").is_file())

    def test_real_diff(self):
        changed = review.diff_lines(self.tree, self.base, self.head)
        self.assertEqual(changed, {"src/serialize.h": [3, 20, 21, 31], "src/streams.h": [11]})
        for line in changed["src/serialize.h"]:  # the numbers are HEAD's: each names a changed line of HEAD
            text = (self.tree / "src" / "serialize.h").read_text().splitlines()[line - 1]
            self.assertTrue(text.startswith("new") or text.endswith("changed"), text)

    def test_default_base_is_head_parent_without_a_default_branch_below_head(self):
        git(self.tree, "branch", "-m", "feature")
        head, base, how = review.resolve(self.tree)
        self.assertEqual((head, base), (self.head, self.base))
        self.assertIn("HEAD~1", how)

    def test_default_base_is_the_merge_base_with_master(self):
        git(self.tree, "branch", "-m", "feature")
        git(self.tree, "branch", "master", self.base)
        write(self.tree, "src/prevector.h", ["p"])
        git(self.tree, "add", "-A")
        git(self.tree, "commit", "-qm", "second")
        head, base, how = review.resolve(self.tree)
        self.assertEqual(base, self.base)  # not HEAD~1: the whole branch is reviewed
        self.assertIn("master", how)

    def test_errors(self):
        with self.assertRaisesRegex(review.Failure, "BASE=nope is not a commit"):
            review.resolve(self.tree, "nope")
        with tempfile.TemporaryDirectory() as plain:
            with self.assertRaisesRegex(review.Failure, "is not a git checkout"):
                review.resolve(plain)
        (self.tree / "sub" / "src").mkdir(parents=True)  # a tree inside another checkout is not one
        with self.assertRaisesRegex(review.Failure, "is not a git checkout .it lies inside"):
            review.resolve(self.tree / "sub")

    def test_verdict_only_applies_a_triage_to_the_last_review(self):
        with tempfile.TemporaryDirectory() as directory:
            out = Path(directory)
            r = results(mutated=("killed", "survived"))
            r.update({"head": self.head, "base": self.base})
            (out / "review.json").write_text(review.json.dumps(r))  # a review that stopped before its verdict
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(review.main(["--core-src", str(self.tree), "--verdict-only", "--out", directory]), 2)
            self.assertIn("did not finish", err.getvalue())
            r["status"] = 1
            (out / "review.json").write_text(review.json.dumps(r))
            triage = out / "triage.tsv"
            triage.write_text("streams.cpp#1\tequivalent\tthe general path, as BASE\n")
            with contextlib.redirect_stdout(io.StringIO()) as shown:
                status = review.main(["--core-src", str(self.tree), "--verdict-only", "--out", directory])
            self.assertEqual(status, 1)
            self.assertIn("1 mutant(s) of the changed lines survived", shown.getvalue())
            with contextlib.redirect_stdout(io.StringIO()) as shown:
                status = review.main(["--core-src", str(self.tree), "--verdict-only", "--triage", str(triage),
                                      "--out", directory])
            self.assertEqual(status, 0, shown.getvalue())
            self.assertEqual(review.json.loads((out / "review.json").read_text())["status"], 0)
            # Another HEAD than the one reviewed: refused.
            write(self.tree, "src/streams.h", ["moved on"])
            git(self.tree, "commit", "-qam", "later")
            with contextlib.redirect_stderr(io.StringIO()) as err:
                status = review.main(["--core-src", str(self.tree), "--base", self.base, "--verdict-only",
                                      "--out", directory])
            self.assertEqual(status, 2)
            self.assertIn("run the review again", err.getvalue())

    def test_no_changed_serialization_line_exits_0(self):
        write(self.tree, "src/validation.cpp", ["only outside"])
        git(self.tree, "commit", "-qam", "outside")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), tempfile.TemporaryDirectory() as results:
            status = review.main(["--core-src", str(self.tree), "--base", "HEAD~1", "--out", results])
        self.assertEqual(status, 0)
        self.assertIn("no changed serialization lines", out.getvalue())

    def test_not_a_checkout_exits_2_and_keeps_the_last_review(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
                tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as out:
            (Path(out) / "review.json").write_text("{}")
            self.assertEqual(review.main(["--core-src", plain, "--out", out]), 2)
            self.assertTrue((Path(out) / "review.json").exists())
        self.assertIn("is not a git checkout", err.getvalue())


class CoverageBuild(unittest.TestCase):
    def test_the_coverage_build_links_the_core_instantiation_unit(self):
        # Code no target instantiates must get counters at 0 (not reached), not no counter at all (docs/review.md).
        seen = {}

        def configure_and_build(directory, options, target, jobs):
            seen.update(directory=directory, options=options, target=target)

        original = review.planted.configure_and_build
        review.planted.configure_and_build = configure_and_build
        self.addCleanup(setattr, review.planted, "configure_and_build", original)
        binary = review.build_coverage(2)
        self.assertEqual(seen["target"], "core_fuzz_replay")
        self.assertIn("-DSERDIFF_CORE_REPLAY_INSTANTIATES=ON", seen["options"])
        self.assertIn("-DSERDIFF_SANITIZERS=", seen["options"])
        self.assertEqual(binary, review.COVERAGE_BUILD / "bin" / "core_fuzz_replay")
        cmake = (REVIEW.parents[2] / "fuzz_targets" / "CMakeLists.txt").read_text()
        self.assertIn("tools/mutate/instantiate_core.cpp", cmake)


class Parser(unittest.TestCase):
    def test_hunk_forms(self):
        diff = ("diff --git a/src/streams.h b/src/streams.h\n--- a/src/streams.h\n+++ b/src/streams.h\n"
                "@@ -5 +5 @@ x\n-a\n+b\n@@ -9,0 +10,3 @@\n+c\n+d\n+e\n@@ -20,2 +22,0 @@\n-f\n-g\n"
                "diff --git a/src/undo.h b/src/undo.h\n--- a/src/undo.h\n+++ /dev/null\n@@ -1 +0,0 @@\n-u\n")
        self.assertEqual(review.changed_lines(diff), {"src/streams.h": [5, 10, 11, 12]})

    def test_ranges(self):
        self.assertEqual(review.ranges([1, 2, 3, 7, 9, 10]), "1-3,7,9-10")
        self.assertEqual(review.ranges([]), "")


def mutants(*statuses):
    return [review.mutant_row({"id": f"streams.cpp#{n}", "file": "streams.cpp", "line": 40 + n, "original": "a < b",
                               "mutated": "a <= b", "status": "survived" if status == "not reached" else status,
                               "not_reached": status == "not reached", "target": "buffered_writer",
                               "phase": "fuzz", "check": "mismatch: file bytes", "detail": "no target failed"})
            for n, status in enumerate(statuses)]


def bench_rows(*instruction_ratios):
    return [{"group": "SerializeBlock", "block": "413567", "what": "serialize into a reused buffer", "base_ns": 2e5,
             "head_ns": 1e5, "speedup": 2.0, "instruction_ratio": ratio} for ratio in instruction_ratios]


def results(replay_ok=True, fuzz_ok=True, coverage=None, mutated=(), instruction_ratios=(1.0,)):
    return {"targets": ["compact_size", "varint"], "time": 5,
            "replay": [{"target": "compact_size", "ok": replay_ok, "files": 3, "input": "corpora/compact_size/x"},
                       {"target": "varint", "ok": True, "files": 4}],
            "fuzz": [{"target": "compact_size", "ok": fuzz_ok, "execs": 10, "what": "serdiff MISMATCH",
                      "input": "review-out/fuzz/compact_size/seeds/crash-1", "report": ["==== serdiff MISMATCH"]},
                     {"target": "varint", "ok": True, "execs": 20}],
            "coverage": coverage if coverage is not None else {"src/serialize.h": review.classify(
                {"src/serialize.h": [303, 304]}, {"src/serialize.h": {303: 5, 304: 2}})["src/serialize.h"]},
            "mutation": {"status": "measured", "command": "mutate.py ...", "mutants": mutants(*mutated),
                         "summary": {"generated": len(mutated)}},
            "bench": {"status": "measured", "rows": bench_rows(*instruction_ratios), "rounds": 3}}


class Verdict(unittest.TestCase):
    def test_clean(self):
        self.assertEqual(review.verdict(results()), (0, []))
        text = review.render(results())
        self.assertIn("nothing needs the reviewer's eyes (exit 0)", text)
        self.assertIn("2.00x", text)  # the benchmark's time ratio
        self.assertEqual(review.verdict(results(mutated=("killed", "invalid", "equivalent")))[0], 0)

    def test_benchmark_self_check_names_the_side_that_failed_it(self):
        r = results()
        r["bench"] = {"status": "error", "message": "build/review/bench-head/bin/serdiff_bench_core --name=head "
                      "failed with status 1: serdiff_bench_core: benchmark self-check failed: 413567:plain "
                      "head-buffered file size"}
        status, reasons = review.verdict(r)
        self.assertEqual(status, 1)
        self.assertTrue(reasons[0].startswith("benchmark not timed: HEAD fails the benchmark's own output check "
                                              "(413567:plain head-buffered file size)"), reasons)
        r["bench"] = {"status": "error", "message": "callgrind: no such file"}
        self.assertEqual(review.verdict(r)[1], ["benchmark failed: callgrind: no such file"])

    def test_surviving_mutant_needs_eyes_with_its_diff(self):
        r = results(mutated=("killed", "survived", "not reached"))
        status, reasons = review.verdict(r)
        self.assertEqual(status, 1)
        self.assertIn("2 mutant(s) of the changed lines survived", reasons[0])
        self.assertIn("streams.cpp#2 (src/streams.cpp:42, not reached)", reasons[0])
        text = review.render(r)
        self.assertIn("surviving mutant streams.cpp#1:", text)
        self.assertIn("-a < b", text)
        self.assertIn("+a <= b", text)
        self.assertIn("buffered_writer (fuzz): mismatch: file bytes", text)

    def test_triaged_survivor_is_a_note_not_a_failure(self):
        r = results(mutated=("killed", "survived", "not reached"))
        with tempfile.TemporaryDirectory() as directory:
            triage = Path(directory) / "triage.tsv"
            triage.write_text("# a comment\nid\tverdict\treason\nstreams.cpp#1\tequivalent\tthe fast path off is "
                              "BASE's path\nstreams.cpp#9\topen\tstale row\n")
            review.apply_triage(r["mutation"], str(triage))
            status, reasons = review.verdict(r)
            self.assertEqual(status, 1)  # streams.cpp#2 is still untriaged
            self.assertIn("1 mutant(s) of the changed lines survived: streams.cpp#2", reasons[0])
            self.assertTrue(any("1 surviving mutant(s) triaged" in n and "equivalent streams.cpp#1" in n
                                for n in r["notes"]), r["notes"])
            self.assertTrue(any("stale" in n and "streams.cpp#9" in n for n in r["notes"]), r["notes"])
            self.assertIn("(triaged equivalent: the fast path off is BASE's path)", review.render(r))
            triage.write_text("streams.cpp#1\tequivalent\tx\nstreams.cpp#2\topen\tno target makes such a file\n")
            r = results(mutated=("killed", "survived", "not reached"))
            review.apply_triage(r["mutation"], str(triage))
            self.assertEqual(review.verdict(r)[0], 0)
            triage.write_text("streams.cpp#1\tfixed\tx\n")
            with self.assertRaises(review.Failure):
                review.apply_triage(results(mutated=("survived",))["mutation"], str(triage))

    def test_a_target_base_lacks_is_not_called_same(self):
        # BASE an older tree without the target's class (the change adds it): compared with the reference alone.
        r = results()
        r["base_compared"] = True
        r["base_lacks"] = ["varint"]
        text = review.render(r)
        self.assertIn("not in BASE (reference only)", text)
        self.assertIn("| same ", text)  # compact_size still compared with BASE
        r["base_lacks"] = []
        self.assertNotIn("not in BASE", review.render(r))

    def test_base_difference_is_a_finding_with_both_outputs_unless_triaged_intended(self):
        # A fuzz finding whose report is HEAD differing from BASE (fuzz_targets/registry.cpp's report).
        r = results(fuzz_ok=False)
        r["base_compared"] = True
        r["fuzz"][0].update({"what": "primitive_stream (HEAD vs BASE): HEAD differs from BASE", "report": [
            "==== serdiff MISMATCH in primitive_stream (HEAD vs BASE): HEAD differs from BASE ====",
            "observation 12 of the target: primitive_stream VarInt: negative -1 (int32) in the non-negative signed mode",
            'HEAD: "wrote ff"', 'BASE: "wrote 7f"',
            "reference: not compared here (a rule of Core's own: docs/divergences.md)"]})
        with tempfile.TemporaryDirectory() as directory:
            review.on_base(r, 1)  # a HEAD-vs-BASE finding is the change's: nothing replayed on BASE
            found = r["fuzz"][0]["base_difference"]
            self.assertEqual((found["head"], found["base"], found["observation"][:2]), ('"wrote ff"', '"wrote 7f"', "12"))
            self.assertIs(r["fuzz"][0]["in_base"], False)
            status, reasons = review.verdict(r)
            self.assertEqual(status, 1)
            self.assertIn("compact_size: finding (primitive_stream (HEAD vs BASE)", reasons[0])
            text = review.render(r)
            self.assertIn("same as BASE", text)
            self.assertIn("DIFFERS: 12 of the target", text)
            self.assertIn('HEAD:      "wrote ff"', text)
            self.assertIn('BASE:      "wrote 7f"', text)
            self.assertIn("| same ", text)  # varint: replay and fuzz agree with the reference and BASE
            triage = Path(directory) / "triage.tsv"
            triage.write_text("base:compact_size\tintended\tthe fast path is meant to write the low byte\n")
            review.apply_triage({}, str(triage), r)
            r["replay"][0]["ok"] = True  # only the HEAD-vs-BASE finding is left
            status, reasons = review.verdict(r)
            self.assertEqual(status, 0, reasons)
            self.assertTrue(any("HEAD differs from BASE, triaged intended" in n for n in r["notes"]), r["notes"])
            triage.write_text("base:compact_size\tequivalent\tx\n")  # only "intended" accepts a difference
            with self.assertRaises(review.Failure):
                review.apply_triage({}, str(triage), r)

    def test_mutant_row(self):
        killed, survived = mutants("killed", "survived")
        self.assertEqual((killed["killed_by"], killed["how"], killed["file"]), ("buffered_writer", "fuzz",
                                                                                  "src/streams.cpp"))
        self.assertIsNone(survived["killed_by"])
        self.assertEqual(survived["detail"], "no target failed")

    def test_errored_mutant_needs_eyes(self):
        status, reasons = review.verdict(results(mutated=("killed", "error")))
        self.assertEqual(status, 1)
        self.assertIn("1 mutant(s) could not be judged", reasons[0])

    def test_instructions_not_counted_needs_eyes(self):
        r = results(instruction_ratios=(1.3, None))
        r["bench"]["message"] = "callgrind failed"
        status, reasons = review.verdict(r)
        self.assertEqual(status, 1)
        self.assertIn("instructions not counted", reasons[0])
        self.assertIn("callgrind failed", review.render(r))

    def test_slower_in_instructions_needs_eyes(self):
        self.assertEqual(review.verdict(results(instruction_ratios=(1.3, 0.96)))[0], 0)
        self.assertEqual(review.verdict(results(instruction_ratios=(1 / 1.05,)))[0], 1)  # exactly 5% more: flagged
        status, reasons = review.verdict(results(instruction_ratios=(1.3, 0.9)))
        self.assertEqual(status, 1)
        self.assertIn("slower: SerializeBlock 413567", reasons[0])

    def test_measurement_error_needs_eyes(self):
        r = results()
        r["mutation"] = {"status": "error", "message": "make mutate failed (status 1)"}
        self.assertEqual(review.verdict(r), (1, ["mutation analysis failed: make mutate failed (status 1)"]))

    def test_mutation_plan(self):
        files, lines, unmutated = review.mutation_plan({"src/streams.cpp": [5, 6, 7], "src/util/obfuscation.h": [9],
                                                        "src/primitives/block.cpp": [3]})
        self.assertEqual(files, "streams.cpp util/obfuscation.h")
        self.assertEqual(lines, "streams.cpp:5-7 util/obfuscation.h:9")
        self.assertEqual(unmutated, ["src/primitives/block.cpp"])

    def test_mutation_plan_block_storage_on_a_tree_block_store_drives(self):
        # node/blockstorage.cpp and flatfile.cpp are mutated where the HEAD tree's BlockManager is the one block_store
        # drives (subjects/core/probe.cmake's test), and listed as unmutated on an older tree.
        changed = {"src/node/blockstorage.cpp": [10, 11], "src/flatfile.cpp": [4], "src/serialize.h": [2]}
        with tempfile.TemporaryDirectory() as directory:
            src = Path(directory) / "src"
            (src / "node").mkdir(parents=True)
            (src / "kernel").mkdir()
            (src / "util").mkdir()
            (src / "kernel" / "cs_main.h").write_text("")
            (src / "util" / "log.h").write_text("")
            header = src / "node" / "blockstorage.h"
            header.write_text("    FlatFilePos WriteBlockToDisk(const CBlock& block, int nHeight);\n")
            with mock.patch.object(review, "HEAD_TREE", Path(directory)):
                files, lines, unmutated = review.mutation_plan(changed)
                self.assertEqual(files, "serialize.h")
                self.assertEqual(unmutated, ["src/flatfile.cpp", "src/node/blockstorage.cpp"])
                header.write_text("    FlatFilePos WriteBlock(const CBlock& block, int nHeight);\n"
                                  "    ReadRawBlockResult ReadRawBlock(const FlatFilePos& pos, "
                                  "std::optional<std::pair<size_t, size_t>> block_part = std::nullopt) const;\n")
                files, lines, unmutated = review.mutation_plan(changed)
                self.assertEqual(files, "node/blockstorage.cpp flatfile.cpp serialize.h")
                self.assertEqual(lines, "node/blockstorage.cpp:10-11 flatfile.cpp:4 serialize.h:2")
                self.assertEqual(unmutated, [])

    def test_finding(self):
        for r in (results(fuzz_ok=False), results(replay_ok=False)):
            status, reasons = review.verdict(r)
            self.assertEqual(status, 1)
            self.assertTrue(any(reason.startswith("compact_size:") for reason in reasons), reasons)
        self.assertIn("FINDING", review.render(results(fuzz_ok=False)))

    def test_finding_base_has_too_is_a_note(self):
        r = results(fuzz_ok=False)
        r["fuzz"][0]["in_base"] = True
        self.assertEqual(review.verdict(r), (0, []))
        self.assertIn("finding that BASE has too", r["notes"][0])
        self.assertIn("(BASE fails on it too)", review.render(r))
        r["replay"][0]["ok"] = False  # the same target's replay fails on an input BASE does not
        self.assertEqual(review.verdict(r)[0], 1)

    def test_line_not_reached(self):
        coverage = review.classify({"src/streams.h": [10, 11, 12, 13]},
                                   {"src/streams.h": {10: 1, 11: 0, 12: 0}})  # 13: no counter
        self.assertEqual(coverage["src/streams.h"]["not_reached"], [11, 12])
        self.assertEqual(coverage["src/streams.h"]["no_counter"], [13])
        status, reasons = review.verdict(results(coverage=coverage))
        self.assertEqual(status, 1)
        self.assertEqual(reasons, ["src/streams.h: changed code line(s) 11-12 not reached"])

    def test_no_counter_alone_is_clean(self):
        coverage = review.classify({"src/streams.h": [1, 2]}, {"src/streams.h": {2: 7}})
        self.assertEqual(review.verdict(results(coverage=coverage))[0], 0)

    def test_file_without_coverage_record_needs_eyes(self):
        coverage = review.classify({"src/undo.h": [4, 5]}, {"src/serialize.h": {1: 1}})
        self.assertEqual(coverage["src/undo.h"]["unmeasured"], [4, 5])
        status, reasons = review.verdict(results(coverage=coverage))
        self.assertEqual(status, 1)
        self.assertIn("src/undo.h: no coverage record", reasons[0])

    def test_lcov(self):
        with tempfile.TemporaryDirectory() as tree:
            text = (f"SF:{tree}/src/serialize.h\nDA:3,0\nDA:4,9\nDA:4,2\nend_of_record\n"
                    f"SF:/elsewhere/x.h\nDA:1,1\nend_of_record\n")
            self.assertEqual(review.parse_lcov(text, tree), {"src/serialize.h": {3: 0, 4: 9}})



class OneReachPerReview(unittest.TestCase):
    """The mutation phase takes its reach from the review's own coverage of HEAD (--reach-lcov
    review-out/coverage-targets.lcov), so a mutant of a line the coverage phase counted as reached is never "not
    reached"; a mutant only a target already failing on HEAD tells apart is killed, HEAD already failing."""

    def test_the_mutation_command_takes_the_reviews_lcov(self):
        with tempfile.TemporaryDirectory() as directory:
            out = Path(directory)
            self.assertIsNone(review.reach_lcov(out))            # no coverage phase yet: mutate's own build
            self.assertNotIn("--reach-lcov", review.mutation_command({"src/streams.h": [698]}, 30, None))
            # No TRIAGE=: no triage file, never triage-core.tsv (the pinned tree's ids); with one, the review's.
            command = review.mutation_command({"src/streams.h": [698]}, 30, None)
            self.assertEqual(command[command.index("--triage") + 1], "/dev/null")
            (out / "mine.tsv").write_text("id\tverdict\treason\n")
            command = review.mutation_command({"src/streams.h": [698]}, 30, None, out / "mine.tsv")
            self.assertEqual(Path(command[command.index("--triage") + 1]).resolve(), (out / "mine.tsv").resolve())
            (out / "coverage.lcov").write_text("SF:x\nDA:1,1\nend_of_record\n")
            self.assertEqual(review.reach_lcov(out), out / "coverage.lcov")
            (out / "coverage-targets.lcov").write_text("")      # empty (no Core file mapped): the merged one
            self.assertEqual(review.reach_lcov(out), out / "coverage.lcov")
            (out / "coverage-targets.lcov").write_text("TN:buffered_writer\nSF:x\nDA:1,1\nend_of_record\n")
            self.assertEqual(review.reach_lcov(out), out / "coverage-targets.lcov")
            command = review.mutation_command({"src/streams.h": [698, 700, 701, 702]}, 30, review.reach_lcov(out))
            self.assertEqual(command[command.index("--reach-lcov") + 1], str(out / "coverage-targets.lcov"))
            self.assertEqual(command[command.index("--lines") + 1], "streams.h:698,700-702")

    def test_per_target_sections_give_mutate_the_reviews_reach(self):
        with tempfile.TemporaryDirectory() as directory:
            tree = Path(directory)
            streams = tree / "src" / "streams.h"
            streams.parent.mkdir(parents=True)
            streams.write_text("x\n" * 800)
            # llvm-cov-19 export -format=lcov of each target's profile (no test name), as collect_coverage writes
            # them into coverage-targets.lcov; the merged coverage.lcov is their sum.
            exports = {"buffered_writer": f"SF:{streams}\nFN:690,_ZN1W5writeE\nDA:697,0\nDA:698,40000\n"
                                          f"DA:700,20304\nDA:701,20304\nDA:702,20304\nend_of_record\n",
                       "primitive_stream": f"TN:\nSF:{streams}\nDA:697,0\nDA:698,21456\nDA:700,0\n"
                                           f"end_of_record\n",
                       "compact_size": f"SF:{streams}\nDA:697,0\nDA:698,0\nend_of_record\n"}
            sections = "".join(review.tagged_lcov(target, text) for target, text in exports.items())
            self.assertEqual(review.tagged_lcov("compact_size", exports["compact_size"]),
                             f"TN:compact_size\nSF:{streams}\nDA:697,0\nDA:698,0\nend_of_record\n")
            merged = (f"SF:{streams}\nDA:697,0\nDA:698,61456\nDA:700,20304\nDA:701,20304\nDA:702,20304\n"
                      f"end_of_record\n")
            counted = review.classify({"src/streams.h": [697, 698, 699, 700, 701, 702]},
                                      review.parse_lcov(merged, tree))["src/streams.h"]
            self.assertEqual(counted["reached"], [698, 700, 701, 702])
            for text in (sections, merged):
                reach, instrumented = review.mutate_tool.reach_from_lcov(text, tree / "src", ["streams.h"])
                state = {"coverage": {"reach": reach, "instrumented": instrumented}}
                for line in counted["reached"]:
                    targets, _ = review.mutate_tool.targets_for(state, "streams.h", line)
                    self.assertTrue(targets, f"line {line}, reached in the review, has no target in mutate")
                self.assertEqual(review.mutate_tool.targets_for(state, "streams.h", 697)[0], [])
            reach, _ = review.mutate_tool.reach_from_lcov(sections, tree / "src", ["streams.h"])
            self.assertEqual(reach["streams.h"]["698"], {"buffered_writer": 40000, "primitive_stream": 21456})

    def test_killed_head_already_failing_is_a_note_not_a_survivor(self):
        row = review.mutant_row({"id": "streams.h#3", "file": "streams.h", "line": 698, "status": "killed",
                                 "phase": "replay", "target": "buffered_writer", "head_failing": True,
                                 "check": "HEAD already failing: mismatch: buffered_writer"})
        self.assertEqual((row["status"], row["killed_by"], row["head_already_failing"]),
                         ("killed", "buffered_writer", True))
        r = results()
        r["mutation"]["mutants"] = [row] + mutants("killed")
        status, reasons = review.verdict(r)
        self.assertEqual((status, reasons), (0, []))
        self.assertIn("1 mutant(s) killed, HEAD already failing", " ".join(r["notes"]))
        self.assertFalse(mutants("killed")[0]["head_already_failing"])


if __name__ == "__main__":
    unittest.main()
