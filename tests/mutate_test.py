#!/usr/bin/env python3
"""ctest mutate_plan: tools/mutate/mutate.py's plan without building anything (universalmutator is replaced by a stub):
the Core subject's file list and its checks, the paths a Core job writes (copies under build/, never the Core tree),
--lines (parsing, and that it keeps only the mutants of the lines named), the report's title and triage file per
subject, IMPORT= (which survivors keep their first result), and that the serdiff subject's recorded config gains no
new key (its report stays as it was); the serdiff subject's files (serialize/, model/, crypto/), a file the fuzz
binary does not link (not reached), the report's section per directory with its own score (report.md, report.json,
index.html); equivalence by instantiation (a mutant that changes only the instantiation unit's object is not reached,
not equivalent; tools/mutate/instantiate.cpp compiles); one notion of reach per review: --reach-lcov,
a failing coverage replay that keeps its profile, a mutant only a target failing on HEAD tells apart killed, HEAD
already failing."""
import argparse
import contextlib
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "mutate"))
import mutate  # noqa: E402

BRIEF_FILES = ["serialize.h", "streams.h", "streams.cpp", "util/obfuscation.h", "prevector.h", "compressor.cpp",
               "undo.h", "primitives/transaction.h", "primitives/block.h", "util/golombrice.h"]


def stub_generator(lines_per_file=20):
    """universalmutator's stand-in: one mutant per line 1..lines_per_file of each file."""
    def generate(cli, path, root):
        mutants = [{"id": f"{path}#{n}", "file": path, "line": n, "rule": "builtin:stub:1", "operator": "stub",
                    "original": f"line {n}", "mutated": f"line {n} changed"} for n in range(1, lines_per_file + 1)]
        return mutants, {"comment": 0, "planted": 0}
    return generate


def arguments(**overrides):
    values = {"files": [], "lines": [], "seed": 1, "sample": None, "time": 10, "shard": "", "unit": False,
              "only": []}
    values.update(overrides)
    return argparse.Namespace(**values)


def quiet(function, *args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()):
        return function(*args, **kwargs)


class CoreTree(unittest.TestCase):
    """A fake Core tree holding the subject's files (the real one is fetched by the build, not by this test)."""

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="mutate-test-"))
        self.tree = self.directory / "bitcoin"
        for name in BRIEF_FILES + ["net.h"]:
            path = self.tree / "src" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"line {n}\n" for n in range(1, 21)))
        self.subject = mutate.CoreSubject(self.tree)

    def tearDown(self):
        shutil.rmtree(self.directory)


class HeaderPrelude(unittest.TestCase):
    """A header that compiles only after a standard header (Core's util/obfuscation.h uses std::memcpy without
    <cstring>) gets a quick check and a schemata plan with STANDARD_PRELUDE before it; a mutant that does not compile
    is still refused with the prelude."""

    def syntax_ok(self, directory, header_text, prelude):
        header = Path(directory) / "uses_memcpy.h"
        header.write_text(header_text)
        unit = Path(directory) / "unit.cpp"
        unit.write_text(mutate.header_unit_text(header, prelude))
        return subprocess.run(["clang++-19", "-std=c++20", "-fsyntax-only", str(unit)], capture_output=True).returncode == 0

    @unittest.skipUnless(shutil.which("clang++-19"), "clang++-19 not installed")
    def test_prelude_lets_the_header_compile_and_still_refuses_a_broken_mutant(self):
        original = "#pragma once\ninline void copy(char* to, const char* from) { std::memcpy(to, from, 1); }\n"
        broken = original.replace("std::memcpy(to, from, 1);", "std::memcpy(to, from, 1)")
        with tempfile.TemporaryDirectory() as directory:
            self.assertFalse(self.syntax_ok(directory, original, False))
            self.assertTrue(self.syntax_ok(directory, original, True))
            self.assertFalse(self.syntax_ok(directory, broken, True))


class CoreSubjectPlan(CoreTree):
    def test_block_storage_files_join_on_a_tree_block_store_drives(self):
        # subjects/core/probe.cmake's test: WriteBlock(block, height) and ReadRawBlock with a part range in
        # node/blockstorage.h, kernel/cs_main.h and util/log.h present. Then blockstorage.cpp and flatfile.cpp are
        # mutated (and --files may name them); on an older tree they are not the subject's files.
        src = self.tree / "src"
        for name in ("node/blockstorage.cpp", "flatfile.cpp", "kernel/cs_main.h", "util/log.h"):
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_text("line 1\n")
        header = src / "node" / "blockstorage.h"
        header.write_text("FlatFilePos WriteBlock(const CBlock& block, int nHeight);\n")
        self.assertEqual(self.subject.default_files(), BRIEF_FILES)
        with self.assertRaises(SystemExit):
            self.subject.check_files(["flatfile.cpp"])
        header.write_text("FlatFilePos WriteBlock(const CBlock& block, int nHeight);\n"
                          "ReadRawBlockResult ReadRawBlock(const FlatFilePos& pos, std::optional<std::pair<size_t, "
                          "size_t>> block_part = std::nullopt) const;\n")
        self.assertEqual(self.subject.default_files(), BRIEF_FILES + ["node/blockstorage.cpp", "flatfile.cpp"])
        self.assertEqual(self.subject.reach_files(), self.subject.default_files())
        self.subject.check_files(["flatfile.cpp", "node/blockstorage.cpp"])
        (src / "util" / "log.h").unlink()
        self.assertEqual(self.subject.default_files(), BRIEF_FILES)

    def test_the_core_files_are_the_ones_asked_for(self):
        self.assertEqual(list(mutate.CORE_FILES), BRIEF_FILES)
        self.assertEqual(self.subject.default_files(), BRIEF_FILES)
        state = quiet(mutate.plan, arguments(), None, None, self.subject, stub_generator())
        self.assertEqual(state["config"]["files"], BRIEF_FILES)
        self.assertEqual(state["config"]["subject"], "core")
        self.assertEqual(state["config"]["core_tree"], str(self.tree.resolve()))
        self.assertEqual(state["generated"], 20 * len(BRIEF_FILES))
        self.assertEqual({m["file"] for m in state["mutants"]}, set(BRIEF_FILES))
        # The seeded order puts every file's first mutant at the front.
        self.assertEqual({m["file"] for m in state["mutants"][:len(BRIEF_FILES)]}, set(BRIEF_FILES))

    def test_the_pinned_tree_has_every_file(self):
        pinned = ROOT / "build" / "core-source" / "bitcoin" / "src"
        if not pinned.is_dir():
            self.skipTest(f"{pinned} not fetched")
        self.assertEqual([f for f in BRIEF_FILES if not (pinned / f).is_file()], [])

    def test_files_select_among_them_and_src_prefix_is_accepted(self):
        state = quiet(mutate.plan, arguments(files=["src/streams.h", "util/obfuscation.h"]), None, None,
                      self.subject, stub_generator())
        self.assertEqual(state["config"]["files"], ["streams.h", "util/obfuscation.h"])
        self.assertTrue(all(m["id"].startswith(("streams.h#", "util/obfuscation.h#")) for m in state["mutants"]))

    def test_other_files_are_refused(self):
        for files in (["net.h"], ["serialize/serialize.h"], ["../streams.h"]):
            with self.assertRaises(SystemExit, msg=files):
                quiet(mutate.plan, arguments(files=files), None, None, self.subject, stub_generator())

    def test_a_job_writes_copies_under_build_never_the_tree(self):
        out = self.subject.default_out().resolve()
        self.assertEqual(out, ROOT / "mutate-out" / "core")
        self.assertEqual(self.subject.work(out), ROOT / "build" / "mutate-core")
        job = mutate.Job(0, out, 1, False, self.subject, self.subject.work(out))
        self.assertEqual(job.copy_of("streams.h"), ROOT / "build" / "mutate-core" / "jobs" / "0" / "core" / "src" /
                         "streams.h")
        self.assertEqual(job.build, ROOT / "build" / "mutate-core" / "jobs" / "0" / "build")
        self.assertIn(f"-DSERDIFF_CORE_SRC={job.base / 'core'}", self.subject.cmake_flags(job))
        self.assertEqual(self.subject.binary, "core_fuzz_libfuzzer")
        # Another --out keeps its job trees beside its state, as the serdiff subject does.
        elsewhere = self.directory / "out"
        self.assertEqual(self.subject.work(elsewhere), elsewhere)

    def test_sync_copies_src_and_rewrites_only_what_changed(self):
        job = mutate.Job(0, self.directory / "out", 1, False, self.subject, self.directory / "work")
        self.subject.sync(job)
        copy = job.copy_of("streams.h")
        self.assertEqual(copy.read_text(), (self.tree / "src" / "streams.h").read_text())
        untouched = job.copy_of("undo.h").stat().st_mtime_ns
        # A mutant left in the copy (a stopped run) is replaced by the original, with a new modification time.
        copy.write_text("mutated\n")
        os.utime(copy, ns=(1, 1))
        self.subject.sync(job)
        self.assertEqual(copy.read_text(), (self.tree / "src" / "streams.h").read_text())
        self.assertGreater(copy.stat().st_mtime_ns, 1)
        self.assertEqual(job.copy_of("undo.h").stat().st_mtime_ns, untouched)
        # apply/restore write the job's copy; the tree itself is never written.
        before = (self.tree / "src" / "streams.h").read_bytes()
        job.apply({"file": "streams.h", "line": 3, "mutated": "line 3 changed"})
        self.assertIn("line 3 changed", copy.read_text())
        job.restore("streams.h")
        self.assertEqual(copy.read_bytes(), before)
        self.assertEqual((self.tree / "src" / "streams.h").read_bytes(), before)


    def test_sync_removes_files_the_tree_no_longer_has(self):
        # A job tree kept from a run on another Core tree: its extra files (a newer tree's util/log.h, which the
        # configure-time probes read) go, its shared ones stay built.
        job = mutate.Job(0, self.directory / "out", 1, False, self.subject, self.directory / "work")
        self.subject.sync(job)
        stale = job.copy_of("util/log.h")
        stale.parent.mkdir(parents=True, exist_ok=True)
        stale.write_text("// from another tree\n")
        (stale.parent / "gone").mkdir()
        (stale.parent / "gone" / "x.h").write_text("")
        untouched = job.copy_of("undo.h").stat().st_mtime_ns
        self.subject.sync(job)
        self.assertFalse(stale.exists())
        self.assertFalse((stale.parent / "gone").exists())
        self.assertEqual(job.copy_of("undo.h").stat().st_mtime_ns, untouched)
        self.assertTrue(job.copy_of("streams.h").is_file())

    def test_an_edit_of_the_tree_during_a_run_does_not_reach_the_job(self):
        job = mutate.Job(0, self.directory / "out", 1, False, self.subject, self.directory / "work")
        self.subject.sync(job)
        before = (self.tree / "src" / "streams.h").read_bytes()
        self.assertEqual(self.subject.original("streams.h"), before)      # captured when the run starts
        (self.tree / "src" / "streams.h").write_text("edited while the run goes on\n")
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            job.apply({"file": "streams.h", "line": 3, "mutated": "line 3 changed"})
            job.restore("streams.h")
            job.apply({"file": "streams.h", "line": 4, "mutated": "line 4 changed"})
        copy = job.copy_of("streams.h").read_text()
        self.assertIn("line 4 changed", copy)
        self.assertIn("line 3\n", copy)
        self.assertNotIn("edited", copy)
        job.restore("streams.h")
        self.assertEqual(job.copy_of("streams.h").read_bytes(), before)
        self.assertEqual(output.getvalue().count("changed on disk since the run started"), 1)

    def test_the_corpora_are_a_copy_taken_at_setup(self):
        job = mutate.Job(0, self.directory / "out", 1, False, self.subject, self.directory / "work")
        copy = job.src / "corpora"
        copy.parent.mkdir(parents=True)
        copy.symlink_to(ROOT / "corpora")       # what job trees of earlier versions had
        job.snapshot_corpora()
        self.assertFalse(copy.is_symlink())
        seed = next(path for path in sorted((ROOT / "corpora" / "varint").iterdir()) if path.is_file())
        self.assertEqual((copy / "varint" / seed.name).read_bytes(), seed.read_bytes())
        self.assertTrue((copy / "dicts").is_dir())
        # A seed the checkout no longer has goes; one changed in the copy is put back.
        (copy / "varint" / "not-in-the-checkout").write_bytes(b"x")
        (copy / "varint" / seed.name).write_bytes(b"changed")
        job.snapshot_corpora()
        self.assertFalse((copy / "varint" / "not-in-the-checkout").exists())
        self.assertEqual((copy / "varint" / seed.name).read_bytes(), seed.read_bytes())

class GitCheckout(unittest.TestCase):
    """A small git repository standing for the checkout (mutate.ROOT)."""

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.directory)
        git = lambda *a: subprocess.run(["git", *a], cwd=self.directory, check=True, capture_output=True)
        git("init", "-q")
        (self.directory / "kept.h").write_text("// tracked\n")
        git("add", "kept.h")
        (self.directory / "new.cpp").write_text("// untracked, not ignored: a source not yet committed\n")
        for name in ("mutate-out-speed/state.json", "mutate-out-speed/jobs/0/src/kept.h", "build/x.o",
                     "corpora/varint/seed"):
            (self.directory / name).parent.mkdir(parents=True, exist_ok=True)
            (self.directory / name).write_text("x")
        patcher = mock.patch.object(mutate, "ROOT", self.directory)
        patcher.start()
        self.addCleanup(patcher.stop)


class CheckoutListing(GitCheckout):
    """What a job tree copies of the checkout: a MUTATE_OUT= directory inside it is not copied (it was: each job tree
    held a copy of every job tree, and another run's sync died on a scratch file gone meanwhile)."""

    def test_the_run_output_inside_the_checkout_is_not_copied(self):
        everything = mutate.tracked_files()
        self.assertIn("mutate-out-speed/state.json", everything)      # what the listing held before
        listed = mutate.tracked_files((self.directory / "mutate-out-speed", self.directory / "mutate-out-speed"))
        self.assertEqual(sorted(listed), ["kept.h", "new.cpp"])
        # An output directory outside the checkout, or the checkout itself, takes nothing out.
        self.assertEqual(sorted(mutate.tracked_files((self.directory.parent / "elsewhere", self.directory))),
                         sorted(everything))


class CoverageBuildStamp(GitCheckout):
    """A coverage build compiles the checkout in place and trusts file times: files that changed since its last build
    (a frozen clone mounted over the worktree compiled older files into it with newer object times) are touched."""

    def commit(self, name, text):
        (self.directory / name).write_text(text)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x"], cwd=self.directory,
                       check=True, capture_output=True)

    def test_files_changed_since_the_last_build_are_touched(self):
        build = self.directory / "build" / "coverage"
        subprocess.run(["git", "add", "new.cpp"], cwd=self.directory, check=True)
        self.commit("kept.h", "// one\n")
        mutate.touch_what_changed_since_the_last_build(build)()        # the first build records its checkout
        old = 1_000_000_000
        for name in ("kept.h", "new.cpp"):
            os.utime(self.directory / name, (old, old))
        # The same checkout: nothing touched.
        mutate.touch_what_changed_since_the_last_build(build)
        self.assertEqual((self.directory / "kept.h").stat().st_mtime, old)
        # A commit that changed kept.h, its file time left old (as the mount left it): kept.h is touched, new.cpp not.
        self.commit("kept.h", "// two\n")
        os.utime(self.directory / "kept.h", (old, old))
        record = mutate.touch_what_changed_since_the_last_build(build)
        self.assertGreater((self.directory / "kept.h").stat().st_mtime, old)
        self.assertEqual((self.directory / "new.cpp").stat().st_mtime, old)
        record()
        # A build made with uncommitted changes: what they were is not known, so every tracked file is touched next.
        (self.directory / "kept.h").write_text("// three, not committed\n")
        mutate.touch_what_changed_since_the_last_build(build)()
        subprocess.run(["git", "checkout", "kept.h"], cwd=self.directory, check=True, capture_output=True)
        for name in ("kept.h", "new.cpp"):
            os.utime(self.directory / name, (old, old))
        mutate.touch_what_changed_since_the_last_build(build)
        self.assertGreater((self.directory / "new.cpp").stat().st_mtime, old)


class LinesFilter(CoreTree):
    def test_parse(self):
        self.assertEqual(mutate.parse_lines(["streams.h:1,5-9"]), {"streams.h": {1, 5, 6, 7, 8, 9}})
        self.assertEqual(mutate.parse_lines(["a.h:3 b.h:4-5", "a.h:7"]), {"a.h": {3, 7}, "b.h": {4, 5}})
        self.assertEqual(mutate.format_lines({"streams.h": {1, 5, 6, 7, 8, 9}, "a.h": {2}}), "a.h:2 streams.h:1,5-9")
        for bad in ("streams.h", "streams.h:", ":3", "streams.h:0", "streams.h:9-5", "streams.h:x", "streams.h:1,,2"):
            with self.assertRaises(SystemExit, msg=bad):
                quiet(mutate.parse_lines, [bad])

    def test_only_the_mutants_of_the_lines_named(self):
        state = quiet(mutate.plan, arguments(lines=["streams.h:3,5-6 src/undo.h:20"]), None, None, self.subject,
                      stub_generator())
        self.assertEqual(state["config"]["files"], ["streams.h", "undo.h"])
        self.assertEqual(sorted((m["file"], m["line"]) for m in state["mutants"]),
                         [("streams.h", 3), ("streams.h", 5), ("streams.h", 6), ("undo.h", 20)])
        self.assertEqual(state["generated_per_file"], {"streams.h": 3, "undo.h": 1})
        self.assertEqual(state["config"]["lines"], "streams.h:3,5-6 undo.h:20")

    def test_files_without_lines_keep_all_their_mutants(self):
        state = quiet(mutate.plan, arguments(files=["streams.h", "undo.h"], lines=["undo.h:2"]), None, None,
                      self.subject, stub_generator())
        self.assertEqual(state["generated_per_file"], {"streams.h": 20, "undo.h": 1})

    def test_lines_of_a_file_left_out_are_refused(self):
        with self.assertRaises(SystemExit):
            quiet(mutate.plan, arguments(files=["streams.h"], lines=["undo.h:2"]), None, None, self.subject,
                  stub_generator())

    def test_serdiff_lines(self):
        state = quiet(mutate.plan, arguments(lines=["serialize/streams.h:10-12"]), None, None,
                      mutate.SerdiffSubject(), stub_generator())
        self.assertEqual(sorted(m["line"] for m in state["mutants"]), [10, 11, 12])


class RecordedTriage(unittest.TestCase):
    """Each committed run's survivors have a triage row, and every "equivalent" row names the file:line of its
    invariant (docs/mutation.md's rule); a survivor added to a results file without its triage fails here."""

    RUNS = [("tools/mutate/results/heldout-serialize.json", "tools/mutate/triage-heldout.tsv"),
            ("tools/mutate/results/heldout-model.json", "tools/mutate/triage-heldout-model.tsv"),
            ("tools/mutate/results/core-heldout.json", "tools/mutate/triage-core-heldout.tsv")]

    def test_survivors_triaged_and_equivalents_name_their_lines(self):
        import re
        for results, triage_file in self.RUNS:
            # As first measured: a survivor a re-run in the run's own state killed keeps its row (triaged fixed).
            survivors = {m["id"] for m in json.loads((ROOT / results).read_text())["mutants"]
                         if mutate.first_status(m) == "survived"}
            triage = mutate.load_triage(ROOT / triage_file)
            self.assertTrue(survivors, results)
            self.assertEqual(sorted(survivors - set(triage)), [], f"{results}: survivors without a row in {triage_file}")
            for mutant, (verdict, reason) in triage.items():
                self.assertIn(verdict, ("equivalent", "fixed", "open"), mutant)
                if verdict == "equivalent":
                    self.assertRegex(reason, r"[\w/]+\.(h|cpp):\d+", f"{mutant}: an equivalent row names no file:line")


class SerdiffUnchanged(unittest.TestCase):
    def test_default_plan_records_what_it_recorded_before(self):
        state = quiet(mutate.plan, arguments(), None, None, mutate.SerdiffSubject(), stub_generator())
        self.assertEqual(state["config"]["files"], mutate.mutable_sources())
        self.assertNotIn("serialize/planted.h", state["config"]["files"])
        self.assertEqual(set(state["config"]), {"files", "sample", "seed", "time", "shard", "unit", "universalmutator"})
        subject = mutate.SerdiffSubject()
        out = subject.default_out()
        self.assertEqual(out, ROOT / "mutate-out")
        job = mutate.Job(0, out, 1, False)
        self.assertEqual(job.base, ROOT / "mutate-out" / "jobs" / "0")
        self.assertEqual(job.copy_of("serialize/streams.h"), ROOT / "mutate-out" / "jobs" / "0" / "src" /
                         "serialize" / "streams.h")
        self.assertEqual(subject.binary, "serdiff_fuzz_libfuzzer")
        self.assertEqual(mutate.subject_of_state(state).name, "serdiff")

    def test_serdiff_files_are_checked_as_before(self):
        with self.assertRaises(SystemExit):
            quiet(mutate.plan, arguments(files=["serialize/planted.h"]), None, None, mutate.SerdiffSubject(),
                  stub_generator())


class PlanRevision(unittest.TestCase):
    """PLAN_REV: a held-out run begun at an earlier commit keeps its plan (the mutants and ids of that commit's files)
    after a line-preserving fix; a mutant whose line the fix changed is not run (invalid), the others are."""

    def test_plan_reads_the_files_of_the_revision(self):
        seen = {}

        def generate(cli, path, root):
            seen[path] = (root / path).read_bytes()
            return stub_generator()(cli, path, root)
        rev = subprocess.run(["git", "rev-list", "--max-count=1", "HEAD", "--", "serialize/streams.h"], cwd=ROOT,
                             capture_output=True, text=True).stdout.strip()
        if not rev or subprocess.run(["git", "cat-file", "-e", f"{rev}~1:serialize/streams.h"], cwd=ROOT,
                                     capture_output=True).returncode != 0:
            self.skipTest("no git history here (a shallow clone)")
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"], plan_rev=rev + "~1"), None, None,
                      mutate.SerdiffSubject(), generate)
        before = subprocess.run(["git", "show", f"{rev}~1:serialize/streams.h"], cwd=ROOT, capture_output=True).stdout
        self.assertEqual(seen["serialize/streams.h"], before)
        self.assertEqual(state["config"]["plan_rev"], rev + "~1")
        with self.assertRaises(SystemExit):
            quiet(mutate.plan, arguments(files=["serialize/streams.h"], plan_rev="no-such-revision"), None, None,
                  mutate.SerdiffSubject(), generate)

    def test_a_mutant_whose_line_changed_is_invalid_and_not_run(self):
        subject = mutate.SerdiffSubject()
        lines = subject.original("serialize/streams.h").decode().split("\n")
        same = {"file": "serialize/streams.h", "line": 3, "original": lines[2]}
        self.assertIsNone(mutate.line_changed(subject, same))
        changed = dict(same, original=lines[2] + " // as it was")
        self.assertEqual(mutate.line_changed(subject, changed), lines[2])

        class NoJob:
            pass
        job = NoJob()
        job.subject = subject  # process() must return before it touches anything else of the job
        mutant = dict(changed, id="serialize/streams.h#1", status="pending")
        mutate.process(job, mutant, {"mutants": [mutant]}, {}, None, 1, arguments())
        self.assertEqual(mutant["status"], "invalid")
        self.assertIn("its line changed since the plan", mutant["detail"])


class ReachFollowsTheSuite(unittest.TestCase):
    """A resumed run recomputes the reach map when the checkout is not the suite it was computed at: a map from an
    older suite counted a line a strengthened target now runs as not reached, with no target run (held-out
    streams.h#87, DataStream::write's one-byte branch, reached since 6fb69df)."""

    def test_stale_only_when_the_suite_differs(self):
        self.assertIsNone(mutate.stale_coverage({"coverage": {"reach": {}, "instrumented": {}, "suite": "abc1234"}},
                                                "abc1234"))
        self.assertEqual(mutate.stale_coverage({"coverage": {"reach": {}, "instrumented": {}, "suite": "abc1234"}},
                                               "def5678"), "abc1234")
        self.assertEqual(mutate.stale_coverage({"coverage": {"reach": {}, "instrumented": {}, "suite": "abc1234"}},
                                               "abc1234+dirty"), "abc1234")
        # A state written before the map recorded its suite is stale: its suite is unknown.
        self.assertEqual(mutate.stale_coverage({"coverage": {"reach": {}, "instrumented": {}}}, "abc1234"),
                         "unrecorded")

    def test_current_suite_is_the_checkout(self):
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
        if not head:
            self.skipTest("not a git checkout")
        self.assertIn(mutate.current_suite(), (head, head + "+dirty"))


class StoppedRunResumes(unittest.TestCase):
    """A run stopped while a mutant was in its last stage resumes that mutant from the start: with UNIT=1 a survivor
    gets its status before its ctest runs, and another job's save can record it then (held-out model run,
    block_check.cpp#627: saved as survived with no ctest result)."""

    def test_unfinished_mutants_run_again(self):
        state = {"mutants": [
            {"id": "a#1", "status": "survived", "detail": "no kill", "targets": [], "elapsed": 12.0},
            {"id": "a#2", "status": "survived", "detail": "no kill", "targets": []},      # ctest cut short
            {"id": "a#3", "status": "running"},
            {"id": "a#4", "status": "killed", "phase": "replay", "elapsed": 3.0, "unit_killed": True},
            {"id": "a#5", "status": "pending"},
            {"id": "a#6", "status": "invalid", "detail": "error", "elapsed": 0.5},
            {"id": "a#7", "status": "invalid", "detail": "its line changed since the plan", "elapsed": 0.0},
        ]}
        self.assertEqual(mutate.unfinished_to_pending(state), ["a#2", "a#3"])
        by_id = {m["id"]: m for m in state["mutants"]}
        self.assertEqual(by_id["a#2"], {"id": "a#2", "status": "pending"})
        self.assertEqual(by_id["a#3"], {"id": "a#3", "status": "pending"})
        self.assertEqual(by_id["a#1"]["status"], "survived")
        self.assertEqual(by_id["a#4"]["unit_killed"], True)
        self.assertEqual(by_id["a#6"]["status"], "invalid")
        self.assertEqual(by_id["a#7"]["status"], "invalid")   # elapsed 0.0 is an elapsed time
        self.assertEqual(mutate.unfinished_to_pending(state), [])


class SerdiffFiles(unittest.TestCase):
    """serialize/, model/ and crypto/ are the serdiff subject's files: a directory named in --files stands
    for its sources, and the recorded run's set (serialize/ alone) is FILES=serialize/."""

    def test_default_files_are_the_three_directories(self):
        files = mutate.SerdiffSubject().default_files()
        self.assertEqual({f.split("/")[0] for f in files}, {"serialize", "model", "crypto"})
        for name in ("model/model.h", "model/model.cpp", "model/codec_table.h", "model/file_record.h",
                     "crypto/crypto.cpp", "crypto/crypto.h", "crypto/block_check.cpp", "crypto/block_check.h",
                     "serialize/serialize.h", "serialize/codec.cpp"):
            self.assertIn(name, files)
        self.assertNotIn("serialize/planted.h", files)
        self.assertEqual(files, sorted(files))
        state = quiet(mutate.plan, arguments(), None, None, mutate.SerdiffSubject(), stub_generator())
        # Even a small sample starts with every file, the new directories' included.
        self.assertEqual({m["file"] for m in state["mutants"][:len(files)]}, set(files))

    def test_a_directory_stands_for_its_sources(self):
        subject = mutate.SerdiffSubject()
        state = quiet(mutate.plan, arguments(files=["serialize/"]), None, None, subject, stub_generator())
        self.assertEqual(state["config"]["files"], mutate.optimized_sources())   # the recorded run's 12 files
        state = quiet(mutate.plan, arguments(files=["model", "crypto/crypto.cpp"]), None, None, subject,
                      stub_generator())
        self.assertEqual(state["config"]["files"], mutate.optimized_sources(("model",)) + ["crypto/crypto.cpp"])

    def test_other_files_are_refused(self):
        for files in (["serialize/planted.h"], ["differential/compare.h"], ["model/nonexistent.h"], ["streams.h"]):
            with self.assertRaises(SystemExit, msg=files):
                quiet(mutate.plan, arguments(files=files), None, None, mutate.SerdiffSubject(), stub_generator())

    def test_a_file_the_fuzz_binary_does_not_link_is_not_reached(self):
        state = {"coverage": {"reach": {"model/model.h": {"10": {"transaction": 3}}},
                              "instrumented": {"model/model.h": [10, 12], "crypto/block_check.cpp": []}}}
        self.assertEqual(mutate.targets_for(state, "model/model.h", 10), (["transaction"], "line"))
        self.assertEqual(mutate.targets_for(state, "model/model.h", 12), ([], "line"))
        # crypto/block_check.cpp: only the CLI (serdiff blockfile scan --verify) and the unit tests link it.
        self.assertEqual(mutate.targets_for(state, "crypto/block_check.cpp", 30), ([], "not linked"))
        self.assertEqual(mutate.targets_for(state, "crypto/block_check.h", 30), ([], "not linked"))

    def test_failed_unit_tests_are_named(self):
        text = ("50% tests passed, 1 tests failed out of 2\n\nThe following tests FAILED:\n"
                "\t  7 - block_verify (Failed)\n\t  9 - model_json (Subprocess aborted)\n")
        self.assertEqual(mutate.failed_tests(text), "unit: block_verify, model_json")


class Report(CoreTree):
    def report(self, state):
        out = self.directory / "report"
        out.mkdir()
        state["mutants"][0].update(status="killed", phase="replay", target="primitive_stream", check="mismatch: x",
                                   seconds=0.1)
        state["mutants"][1].update(status="survived", detail="no kill", targets=["primitive_stream"], reach="line")
        state["mutants"][2].update(status="invalid", detail="error")
        quiet(mutate.write_report, state, out)
        return (out / "report.md").read_text(), json.loads((out / "report.json").read_text())

    def test_core_report(self):
        state = quiet(mutate.plan, arguments(files=["streams.h"]), None, None, self.subject, stub_generator())
        state["config"]["left_out_targets"] = {"buffered_writer": "coverage replay: MISMATCH"}
        text, summary = self.report(state)
        self.assertIn("targets left out (their corpus fails on the unmutated tree): buffered_writer", text)
        self.assertTrue(text.startswith(f"# Mutation analysis of Bitcoin Core's src/ ({self.tree.resolve()})"))
        self.assertIn("tools/mutate/triage-core.tsv", text)
        self.assertNotIn("tools/mutate/triage.tsv", text)
        self.assertEqual((summary["killed"], summary["survived"], summary["invalid"]), (1, 1, 1))

    def test_serdiff_sections_per_directory(self):
        files = ["serialize/streams.h", "model/model.h", "crypto/block_check.cpp"]
        state = quiet(mutate.plan, arguments(files=files), None, None, mutate.SerdiffSubject(), stub_generator(4))
        by_file = {}
        for m in state["mutants"]:
            by_file.setdefault(m["file"], []).append(m)
        by_file["serialize/streams.h"][0].update(status="killed", phase="replay", target="prevector", check="x",
                                                 seconds=0.1)
        by_file["serialize/streams.h"][1].update(status="equivalent", detail="identical")
        by_file["model/model.h"][0].update(status="killed", phase="replay", target="transaction", check="x",
                                           seconds=0.2)
        by_file["model/model.h"][1].update(status="survived", detail="no kill", targets=["transaction"], reach="line")
        by_file["crypto/block_check.cpp"][0].update(status="survived", not_reached=True, targets=[], reach="not linked",
                                                    detail="not reached: no line of the file is in the fuzz binary")
        by_file["crypto/block_check.cpp"][1].update(status="invalid", detail="error")
        out = Path(tempfile.mkdtemp(prefix="mutate-test-report-"))
        self.addCleanup(shutil.rmtree, out)
        quiet(mutate.write_report, state, out)
        text, summary = (out / "report.md").read_text(), json.loads((out / "report.json").read_text())
        self.assertTrue(text.startswith("# Mutation analysis of serialize/, model/, crypto/\n"))
        directories = summary["per_directory"]
        self.assertEqual(sorted(directories), ["crypto/", "model/", "serialize/"])
        self.assertEqual((directories["serialize/"]["killed"], directories["serialize/"]["equivalent"],
                          directories["serialize/"]["score"]), (1, 1, 100.0))
        self.assertEqual((directories["model/"]["killed"], directories["model/"]["survived"],
                          directories["model/"]["score"]), (1, 1, 50.0))
        self.assertEqual((directories["crypto/"]["survived"], directories["crypto/"]["not_reached"],
                          directories["crypto/"]["invalid"], directories["crypto/"]["score"]), (1, 1, 1, 0.0))
        self.assertEqual((summary["killed"], summary["survived"], summary["survived_not_reached"]), (2, 2, 1))
        self.assertIn("## By directory", text)
        self.assertIn("### serialize/: score 100.0% (1/1)", text)
        self.assertIn("### model/: score 50.0% (1/2)", text)
        self.assertIn("### crypto/: score 0.0% (0/1)", text)
        page = (out / "index.html").read_text()
        self.assertIn('id="per-directory"', page)
        for directory in ("serialize/", "model/", "crypto/"):
            self.assertIn(f'<section class="directory" data-directory="{directory}">', page)
        self.assertEqual(page.count('<section class="file"'), 3)

    def test_first_measured_and_after_strengthening(self):
        # --triage: the run's own triage file; "fixed" survivors count as killed only in the second number.
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"]), None, None, mutate.SerdiffSubject(),
                      stub_generator(6))  # the fifth and sixth stay pending until the end
        ids = [m["id"] for m in state["mutants"][:4]]
        state["mutants"][0].update(status="killed", phase="replay", target="prevector", check="x", seconds=0.1,
                                   elapsed=60.0)
        for m in state["mutants"][1:4]:
            m.update(status="survived", detail="no kill", targets=["prevector"], reach="line", elapsed=300.0)
        out = Path(tempfile.mkdtemp(prefix="mutate-test-triage-"))
        self.addCleanup(shutil.rmtree, out)
        triage = out / "triage-heldout.tsv"
        triage.write_text("# a held-out run's triage\nid\tverdict\treason\tevidence\n"
                          f"{ids[1]}\tfixed\ta new check\tre-run\n{ids[2]}\tequivalent\tfile.h:1 says so\t-\n")
        mutate.TRIAGE_OVERRIDE = triage
        self.addCleanup(setattr, mutate, "TRIAGE_OVERRIDE", None)
        quiet(mutate.write_report, state, out)
        text, summary = (out / "report.md").read_text(), json.loads((out / "report.json").read_text())
        self.assertEqual((summary["score"], summary["score_after_strengthening"]), (25.0, 50.0))
        self.assertEqual(summary["survivors_triaged"], {"equivalent": 1, "fixed": 1, "open": 0, "untriaged": 1})
        self.assertEqual(summary["score_without_triaged_equivalent"], 33.3)
        self.assertIn("**score as first measured: 25.0%** (1/4)", text)
        self.assertIn("score after strengthening: 50.0% (2/4", text)
        self.assertIn(f"({triage})", text)
        self.assertEqual((summary["job_seconds"], summary["job_minutes_per_valid"]), (960, 4.0))
        self.assertIn("- cost: 0.3 job-hours (each done mutant's TCE, build, replay and fuzzing, summed; its last run "
                      "only, job setup not counted), 4.0 job-minutes per valid non-equivalent mutant", text)
        self.assertNotIn("tools/mutate/triage.tsv", text)
        self.assertNotIn("- by suite", text)  # one suite (unrecorded here): nothing to compare
        # A resumed run's two suites: each one's kills and cost, an invalid mutant's time counted in its suite's.
        state["mutants"][0]["suite"] = "aaa1111"
        for m in state["mutants"][1:4]:
            m["suite"] = "bbb2222"
        state["mutants"][4].update(status="invalid", elapsed=120.0, suite="bbb2222")
        state["mutants"][5].update(status="invalid", elapsed=30.0, suite="ccc3333")  # no valid mutant: not printed
        quiet(mutate.write_report, state, out)
        text, summary = (out / "report.md").read_text(), json.loads((out / "report.json").read_text())
        self.assertEqual(summary["per_suite"], {
            "aaa1111": {"killed": 1, "valid": 1, "job_seconds": 60, "job_minutes_per_valid": 1.0},
            "bbb2222": {"killed": 0, "valid": 3, "job_seconds": 1020, "job_minutes_per_valid": 5.67},
            "ccc3333": {"killed": 0, "valid": 0, "job_seconds": 30, "job_minutes_per_valid": None}})
        self.assertIn("aaa1111: 1/1 killed, 1.0 job-minutes; bbb2222: 0/3 killed, 5.67 job-minutes\n", text)
        # A run given --triage records it, so a later report without the option reads the same file.
        mutate.TRIAGE_OVERRIDE = None
        state["config"]["triage"] = "tools/mutate/triage-heldout.tsv"
        self.assertEqual(mutate.triage_of(state), mutate.ROOT / "tools/mutate/triage-heldout.tsv")

    def test_a_survivor_killed_on_a_re_run_stays_a_survivor_as_first_measured(self):
        # RERUN_SURVIVORS=1 replaces a survivor's result; the score as first measured must still count it as it
        # was (the recorded training run's report once printed 93.8% "as first measured" for 88.0%).
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"]), None, None, mutate.SerdiffSubject(),
                      stub_generator(3))
        first, second, third = state["mutants"][:3]
        first.update(status="killed", phase="replay", target="prevector", check="x", seconds=0.1, elapsed=1.0)
        for m in (second, third):
            m.update(status="survived", detail="no kill", targets=["prevector"], reach="line", elapsed=1.0,
                     suite="aaa1111")
        mutate.make_pending(second, rerun=True)
        self.assertEqual(second["first_result"], {"status": "survived", "suite": "aaa1111", "reach": "line"})
        second.update(status="killed", phase="replay", target="prevector", check="y", seconds=0.1, elapsed=1.0)
        mutate.make_pending(second, rerun=True)  # a second re-run keeps the first result, not the re-run's
        self.assertEqual(second["first_result"]["status"], "survived")
        second.update(status="killed", phase="replay", target="prevector", check="y", seconds=0.1, elapsed=1.0)
        out = Path(tempfile.mkdtemp(prefix="mutate-test-rerun-"))
        self.addCleanup(shutil.rmtree, out)
        triage = out / "triage.tsv"
        triage.write_text(f"id\tverdict\treason\tevidence\n{second['id']}\tfixed\ta new check\tre-run\n")
        mutate.TRIAGE_OVERRIDE = triage
        self.addCleanup(setattr, mutate, "TRIAGE_OVERRIDE", None)
        quiet(mutate.write_report, state, out)
        summary = json.loads((out / "report.json").read_text())
        self.assertEqual((summary["score"], summary["killed"], summary["killed_on_rerun"], summary["survived"]),
                         (33.3, 1, 1, 2))
        self.assertEqual(summary["survivors_triaged"], {"equivalent": 0, "fixed": 1, "open": 0, "untriaged": 1})
        self.assertEqual(summary["score_after_strengthening"], 66.7)
        self.assertIn("**score as first measured: 33.3%** (1/3)", (out / "report.md").read_text())

    def test_a_re_run_that_finds_a_survivor_invalid_or_reached_leaves_the_first_measurement_alone(self):
        # A not-reached survivor killed on a re-run is still a not-reached survivor as first measured; one the re-run
        # found invalid (the suite now calls what it renamed) still counts as a survivor, not as a mutant left out.
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"]), None, None, mutate.SerdiffSubject(),
                      stub_generator(6))
        killed, unreached, renamed, kept = state["mutants"][:4]
        killed.update(status="killed", phase="replay", target="prevector", check="x", seconds=0.1, elapsed=1.0)
        unreached.update(status="survived", detail="not reached", targets=[], reach="instantiation-only",
                         not_reached=True, elapsed=1.0, suite="aaa1111")
        for m in (renamed, kept):
            m.update(status="survived", detail="no kill", targets=["prevector"], reach="line", elapsed=1.0,
                     suite="aaa1111")
        for m in (unreached, renamed):
            mutate.make_pending(m, rerun=True)
        unreached.update(status="killed", phase="replay", target="prevector", check="y", seconds=0.1, elapsed=1.0,
                         reach="line", targets=["prevector"], suite="bbb2222")
        renamed.update(status="invalid", detail="fuzz build: no operator<", elapsed=1.0, suite="bbb2222")
        out = Path(tempfile.mkdtemp(prefix="mutate-test-rerun-"))
        self.addCleanup(shutil.rmtree, out)
        quiet(mutate.write_report, state, out)
        summary = json.loads((out / "report.json").read_text())
        self.assertEqual((summary["valid_non_equivalent"], summary["killed"], summary["survived"],
                          summary["survived_not_reached"], summary["survived_instantiation_only"],
                          summary["killed_on_rerun"], summary["not_valid_on_rerun"], summary["invalid"]),
                         (4, 1, 3, 1, 1, 1, 1, 0))
        self.assertEqual(summary["score"], 25.0)
        self.assertEqual(summary["per_file"]["serialize/streams.h"]["survived"], 3)
        self.assertIn("1 of them invalid or equivalent on a re-run against a later suite", (out / "report.md").read_text())
        # The sample stays the one first measured: with SAMPLE=4, the re-run's invalid mutant does not make room for
        # a fifth (it would run against the later suite and enter the score).
        state["config"]["sample"] = 4
        self.assertEqual([m["id"] for m in mutate.selected(state)], [m["id"] for m in state["mutants"][:4]])

    def test_tce_compiles_with_the_sanitizers_but_without_coverage(self):
        # The kills run under ASan/UBSan: code only they add (container annotations) must be compared too.
        entry = {"directory": "/b", "file": "/s/x.cpp", "command": "ccache clang++-19 -DX -O1 -g "
                 "-fsanitize=address,undefined,fuzzer-no-link -fsanitize-ignorelist=/s/i.txt "
                 "-fno-sanitize-recover=all -fsanitize-coverage=trace-pc-guard -MD -MT x.o -MF x.d -o x.o -c /s/x.cpp"}
        self.assertEqual(mutate.Job.tce_arguments(entry),
                         ["clang++-19", "-DX", "-fsanitize=address,undefined", "-fsanitize-ignorelist=/s/i.txt",
                          "-fno-sanitize-recover=all", "-c", "/s/x.cpp"])
        entry["command"] = "clang++-19 -fsanitize=fuzzer-no-link -c /s/x.cpp"
        self.assertEqual(mutate.Job.tce_arguments(entry), ["clang++-19", "-c", "/s/x.cpp"])

    def test_scores_round_a_half_up(self):
        # The recorded run's 385/400 is 96.25: round() made it 96.2 (a half to even), the docs write 96.3.
        self.assertEqual([mutate.percent(385, 400), mutate.percent(375, 400), mutate.percent(1, 3),
                          mutate.percent(2, 3), mutate.percent(0, 5), mutate.percent(4, 4), mutate.percent(1, 0)],
                         [96.3, 93.8, 33.3, 66.7, 0.0, 100.0, None])
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"]), None, None, mutate.SerdiffSubject(),
                      stub_generator(16))
        state["mutants"][0].update(status="killed", phase="replay", target="prevector", check="x", seconds=0.1,
                                   elapsed=1.0)
        for m in state["mutants"][1:]:
            m.update(status="survived", detail="no kill", targets=["prevector"], reach="line", elapsed=1.0)
        out = Path(tempfile.mkdtemp(prefix="mutate-test-round-"))
        self.addCleanup(shutil.rmtree, out)
        triage = out / "triage.tsv"
        triage.write_text("id\tverdict\treason\tevidence\n"
                          + "".join(f"{m['id']}\tfixed\ta new check\tre-run\n" for m in state["mutants"][1:5]))
        mutate.TRIAGE_OVERRIDE = triage
        self.addCleanup(setattr, mutate, "TRIAGE_OVERRIDE", None)
        quiet(mutate.write_report, state, out)
        text, summary = (out / "report.md").read_text(), json.loads((out / "report.json").read_text())
        # 1/16 = 6.25 and 5/16 = 31.25: round() gave 6.2 and 31.2.
        self.assertEqual((summary["score"], summary["per_directory"]["serialize/"]["score"],
                          summary["score_without_triaged_equivalent"], summary["score_after_strengthening"]),
                         (6.3, 6.3, 6.3, 31.3))
        self.assertIn("**score as first measured: 6.3%** (1/16)", text)
        self.assertIn("score after strengthening: 31.3% (5/16", text)

    def test_not_reached_counts_survivors_only_and_ctest_kills_apart(self):
        # UNIT=1: a mutant no fuzz target reaches keeps not_reached when ctest kills it; "survived (N not reached)"
        # counts survivors only, and the killed ones are counted apart.
        state = quiet(mutate.plan, arguments(files=["crypto/block_check.cpp"]), None, None, mutate.SerdiffSubject(),
                      stub_generator(3))
        state["config"]["unit"] = True
        unreached = dict(reach="not linked", targets=[], not_reached=True, elapsed=60.0)
        state["mutants"][0].update(status="survived", detail="not reached", **unreached)
        state["mutants"][1].update(status="killed", phase="unit", target="ctest", check="unit: T.t", seconds=5.0,
                                   unit_killed=True, **unreached)
        state["mutants"][2].update(status="killed", phase="unit", target="ctest", check="unit: T.t", seconds=5.0,
                                   unit_killed=True, reach="line", targets=["block"], elapsed=60.0)
        out = Path(tempfile.mkdtemp(prefix="mutate-test-unit-"))
        self.addCleanup(shutil.rmtree, out)
        quiet(mutate.write_report, state, out)
        text, summary = (out / "report.md").read_text(), json.loads((out / "report.json").read_text())
        self.assertEqual((summary["survived"], summary["survived_not_reached"], summary["killed_not_reached"]),
                         (1, 1, 1))
        self.assertEqual(summary["per_directory"]["crypto/"]["not_reached"], 1)
        self.assertIn("survived 1 (1 not reached", text)
        self.assertIn("- ctest alone (UNIT=1) kills 2 of 3; 1 of the killed are mutants no fuzz target reaches", text)
        log = io.StringIO()
        with contextlib.redirect_stderr(log), contextlib.redirect_stdout(log):
            mutate.progress(state, state["mutants"], time.time(), 0)
        self.assertIn("killed 2 survived 1 (not reached 1)", log.getvalue())
        # The ETA leaves the schemata builds out: 3 processed in 630 s, 600 s of it building, is 10 s each, and 60 are
        # left: 10 minutes (210 with the builds counted in).
        pending = [dict(m, status="pending") for m in state["mutants"][:3]]
        for building, eta in ((600.0, "ETA 10 min\n"), (0.0, "ETA 210 min\n")):
            log = io.StringIO()
            with contextlib.redirect_stderr(log), contextlib.redirect_stdout(log):
                mutate.progress(state, state["mutants"] + pending * 20, time.time() - 630, 3, building)
            self.assertIn(eta, log.getvalue())

    def test_import_keeps_every_first_measured_result(self):
        # IMPORT=: a held-out run continues from its committed report as RESUME=1 would: every result kept, survivors
        # included whatever their triage; a mutant whose line changed runs again; a settled triage row that names no
        # imported survivor is reported.
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"]), None, None, mutate.SerdiffSubject(),
                      stub_generator(6))
        ids = [m["id"] for m in state["mutants"]]
        recorded = [dict(m) for m in state["mutants"][:5]]
        recorded[0].update(status="killed", phase="replay", target="prevector", check="x", seconds=0.1, suite="abc")
        for m in recorded[1:4]:
            m.update(status="survived", detail="no kill", targets=["prevector"], reach="line", suite="abc")
        recorded[4].update(status="survived", detail="no kill", targets=["prevector"], reach="line", suite="abc",
                           original="a line since changed")
        out = Path(tempfile.mkdtemp(prefix="mutate-test-import-"))
        self.addCleanup(shutil.rmtree, out)
        (out / "report.json").write_text(json.dumps({"mutants": recorded}))
        triage = out / "triage-heldout.tsv"
        triage.write_text("id\tverdict\treason\tevidence\n"
                          f"{ids[1]}\tfixed\ta new check\tre-run\n{ids[2]}\tequivalent\tfile.h:1 says so\t-\n"
                          f"{ids[0]}\tfixed\ta stray row\t-\n")
        mutate.TRIAGE_OVERRIDE = triage
        self.addCleanup(setattr, mutate, "TRIAGE_OVERRIDE", None)
        taken, changed, stray = quiet(mutate.import_results, state, out / "report.json")
        self.assertEqual((taken, changed, stray), (4, 1, [ids[0]]))
        status = {m["id"]: (m["status"], m.get("suite")) for m in state["mutants"]}
        self.assertEqual(status[ids[0]], ("killed", "abc"))
        for key in ids[1:4]:        # fixed, equivalent and untriaged survivors alike keep their first result
            self.assertEqual(status[key], ("survived", "abc"))
        self.assertEqual(status[ids[4]], ("pending", None))
        self.assertEqual(status[ids[5]], ("pending", None))

    def test_serdiff_report_title(self):
        state = quiet(mutate.plan, arguments(files=["serialize/streams.h"]), None, None, mutate.SerdiffSubject(),
                      stub_generator())
        text, _ = self.report(state)
        self.assertTrue(text.startswith("# Mutation analysis of serialize/\n"))
        self.assertIn("(tools/mutate/triage.tsv)", text)


class FakeJob:
    """A job whose compiles, builds and fuzzer runs are stand-ins: every mutant differs (TCE) and builds; a target
    of `failing_on_head` fails on every tree, one of `kills` fails once a mutant is applied."""

    def __init__(self, subject, base, failing_on_head=(), kills=(), tce=("different", "streams.cpp")):
        self.subject, self.base = subject, base
        self.failing_on_head, self.kills = set(failing_on_head), set(kills)
        self.mutated, self.calls, self.verdict = False, [], tce

    def tce(self, mutant, targets):
        self.calls.append(("tce", mutant["id"]))
        return self.verdict

    def apply(self, mutant):
        self.mutated = True

    def restore(self, path):
        self.mutated = False

    def ninja(self, targets, timeout=3600):
        self.calls.append(("ninja",))
        return subprocess.CompletedProcess(targets, 0, "", "")

    def run_fuzzer(self, target, options, arguments, timeout, shared, binary=None, mutant_key=None):
        mutated = self.mutated or mutant_key is not None
        self.calls.append((target, "replay" if "-runs=0" in arguments else "fuzz", mutated))
        if target in self.failing_on_head or (mutated and target in self.kills):
            return 1, f"==== serdiff MISMATCH in {target}: the slip ====", 0.1
        return 0, "", 0.1


class ReachOfTheReview(unittest.TestCase):
    """make review-core's coverage phase counted streams.h 698-702 reached (61,456 and 20,304) while its
    mutation phase called 10 mutants there "not reached": make mutate's coverage replay deleted the profile of a
    target whose corpus fails on the unmutated tree (the slip's finding: buffered_writer, primitive_stream), and the
    ASan baseline replay then dropped those targets, so the lines only they reach had no target. Now the reach is
    the review's own lcov (--reach-lcov), a failing replay keeps its profile, and a mutant only a failing target
    tells apart is killed, HEAD already failing."""

    CHANGED = (698, 699, 700, 701, 702)

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="mutate-test-reach-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.tree = self.directory / "head"
        for name in ("streams.h", "serialize.h", "net.h"):
            path = self.tree / "src" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"line {n}\n" for n in range(1, 801)))
        self.subject = mutate.CoreSubject(self.tree)
        streams, net = self.tree / "src" / "streams.h", self.tree / "src" / "net.h"
        # The review's coverage.lcov (merged: no test name) and coverage-targets.lcov (a TN: section per target),
        # as llvm-cov-19 export writes them: 699 has no counter, 697 and 703 counters at 0.
        self.merged = (f"SF:{streams}\nDA:697,0\nDA:698,61456\nDA:700,20304\nDA:701,20304\nDA:702,20304\n"
                       f"DA:703,0\nDA:10,7\nend_of_record\nSF:{net}\nDA:5,3\nend_of_record\n"
                       f"SF:{ROOT}/fuzz_targets/registry.cpp\nDA:1,9\nend_of_record\n")
        self.per_target = (f"TN:buffered_writer\nSF:{streams}\nDA:697,0\nDA:698,40000\nDA:700,20304\n"
                           f"DA:701,20304\nDA:702,20304\nDA:703,0\nend_of_record\n"
                           f"TN:primitive_stream\nSF:{streams}\nDA:698,21456\nDA:700,0\nend_of_record\n"
                           f"TN:compact_size\nSF:{streams}\nDA:698,0\nDA:700,0\nDA:10,7\nend_of_record\n"
                           f"SF:{net}\nDA:5,3\nend_of_record\n")
        self.options = {name: {"max_len": 4096} for name in ("buffered_writer", "primitive_stream", "compact_size",
                                                             "prevector")}

    def lcov(self, name, text):
        path = self.directory / name
        path.write_text(text)
        return path

    def reached_lines(self, text):
        """The lines of streams.h the review calls reached: a DA count above 0 (review.parse_lcov)."""
        reached = set()
        for record in text.split("end_of_record"):
            if "streams.h" in record:
                reached |= {int(line[3:].split(",")[0]) for line in record.splitlines()
                            if line.startswith("DA:") and int(line.split(",")[1]) > 0}
        return sorted(reached & set(self.CHANGED))

    def state(self, path):
        self.subject.reach_lcov = path

        def no_build(*_):
            raise AssertionError("--reach-lcov started a coverage build of its own")
        with mock.patch.object(mutate, "core_coverage_map", no_build):
            reach, instrumented = quiet(self.subject.coverage, 1)
        return {"coverage": {"reach": reach, "instrumented": instrumented}}

    def mutant(self, line):
        return {"id": f"streams.h#{line}", "file": "streams.h", "line": line, "rule": "stub", "operator": "stub",
                "original": f"line {line}", "mutated": f"line {line} changed", "status": "pending"}

    def judge(self, state, line, job):
        quiet(mutate.baseline_failures, self.subject, self.options,
              lambda name: job.run_fuzzer(name, self.options[name], ["-runs=0"], 900, None)[:2])
        mutant = self.mutant(line)
        quiet(mutate.process, job, mutant, state, self.options, None, 1, arguments())
        return mutant

    def test_reach_from_the_reviews_lcov(self):
        state = self.state(self.lcov("coverage-targets.lcov", self.per_target))
        self.assertEqual(set(state["coverage"]["instrumented"]), {"streams.h"})   # net.h: not a Core file mutated
        self.assertEqual(mutate.targets_for(state, "streams.h", 698),
                         (["buffered_writer", "primitive_stream"], "line"))
        self.assertEqual(mutate.targets_for(state, "streams.h", 701), (["buffered_writer"], "line"))
        self.assertEqual(mutate.targets_for(state, "streams.h", 697), ([], "line"))
        self.assertEqual(mutate.targets_for(state, "streams.h", 10), (["compact_size"], "line"))
        # Merged reach (coverage.lcov, no test name): the line is reached, every target runs on its mutants.
        state = self.state(self.lcov("coverage.lcov", self.merged))
        targets, kind = mutate.targets_for(state, "streams.h", 700)
        self.assertEqual((targets, kind), ([mutate.ANY_TARGET], "line"))
        self.assertEqual(mutate.runnable_targets(targets, self.options, True), sorted(self.options))
        self.assertEqual(mutate.runnable_targets(["prevector", mutate.ANY_TARGET], self.options, True),
                         ["prevector", "buffered_writer", "compact_size", "primitive_stream"])
        self.assertEqual(mutate.runnable_targets(["absent_one", "prevector"], self.options, True), ["prevector"])
        # An lcov of another tree names no file under this one: refused, not a run where nothing is reached.
        with self.assertRaises(SystemExit):
            self.state(self.lcov("other.lcov", "SF:/elsewhere/src/streams.h\nDA:698,5\nend_of_record\n"))

    def test_a_line_the_review_counted_reached_is_never_not_reached(self):
        for name, text in (("coverage-targets.lcov", self.per_target), ("coverage.lcov", self.merged)):
            state = self.state(self.lcov(name, text))
            reached = self.reached_lines(text)
            self.assertEqual(reached, [698, 700, 701, 702], name)
            for line in self.CHANGED:
                self.subject.head_failing.clear()
                job = FakeJob(self.subject, self.directory / "job", failing_on_head=("buffered_writer",
                                                                                     "primitive_stream"))
                mutant = self.judge(state, line, job)
                if line in reached:
                    self.assertEqual(mutant["status"], "killed", (name, line, mutant))
                    self.assertFalse(mutant.get("not_reached"), (name, line))
                    self.assertTrue(mutant["head_failing"], (name, line))
                    self.assertIn(mutant["target"], ("buffered_writer", "primitive_stream"))
                    self.assertTrue(mutant["check"].startswith("HEAD already failing: mismatch: buffered_writer")
                                    or mutant["check"].startswith("HEAD already failing: mismatch: primitive_stream"),
                                    mutant["check"])
                    # The healthy targets that reach it ran first, replay then fuzzing; the failing ones last.
                    ran = [call[:2] for call in job.calls if len(call) == 3 and call[2]]
                    healthy = [t for t in mutant["targets"] if t not in self.subject.head_failing]
                    self.assertEqual(ran[:2 * len(healthy)], [(t, "replay") for t in healthy]
                                     + [(t, "fuzz") for t in healthy], (name, line))
                else:   # 699: no counter (the nearest lines stand for it); nothing the review counted is lost
                    self.assertNotEqual(mutant["status"], "pending")
        self.assertEqual(self.subject.head_failing["buffered_writer"],
                         "baseline replay (unmutated, ASan/UBSan): mismatch: buffered_writer: the slip")

    def test_a_target_that_kills_is_preferred_and_a_line_at_zero_stays_not_reached(self):
        state = self.state(self.lcov("coverage-targets.lcov", self.per_target))
        job = FakeJob(self.subject, self.directory / "job", failing_on_head=("buffered_writer",), kills=("primitive_stream",))
        mutant = self.judge(state, 698, job)
        self.assertEqual((mutant["status"], mutant["target"], mutant["phase"], mutant.get("head_failing")),
                         ("killed", "primitive_stream", "replay", None))
        job = FakeJob(self.subject, self.directory / "job", failing_on_head=("buffered_writer",))
        mutant = self.judge(state, 697, job)   # a counter at 0 in every target: not reached, as the review says
        self.assertEqual((mutant["status"], mutant["not_reached"]), ("survived", True))
        # A mutant that makes the failing target's replay pass is told apart from HEAD too.
        job = FakeJob(self.subject, self.directory / "job")
        self.subject.head_failing.clear()
        self.subject.head_failing["buffered_writer"] = "baseline replay: mismatch"
        mutant = self.mutant(701)
        quiet(mutate.process, job, mutant, state, self.options, None, 1, arguments())
        self.assertEqual((mutant["status"], mutant["head_failing"]), ("killed", True))
        self.assertIn("the mutant's replay passes", mutant["check"])
        mutate.make_pending(mutant)
        self.assertNotIn("head_failing", mutant)

    def test_a_failing_coverage_replay_keeps_its_profile(self):
        # A stand-in for core_fuzz_replay: appends what it ran to $LLVM_PROFILE_FILE (%m as the runtime expands it)
        # before it "aborts" (as differential/compare.cpp writes the counters first); fails on any input named bad*.
        fake = self.directory / "core_fuzz_replay"
        fake.write_text(f"#!{sys.executable}\n"
                        "import os, sys\n"
                        "path = sys.argv[3]\n"
                        "with open(os.environ['LLVM_PROFILE_FILE'].replace('%m', 'sig'), 'a') as f:\n"
                        "    f.write(os.path.basename(path) + '\\n')\n"
                        "names = os.listdir(path) if os.path.isdir(path) else [os.path.basename(path)]\n"
                        "sys.exit(134 if any(n.startswith('bad') for n in sorted(names)) else 0)\n")
        fake.chmod(0o755)
        corpus = self.directory / "corpora" / "buffered_writer"
        corpus.mkdir(parents=True)
        for name in ("a", "bad1", "c"):
            (corpus / name).write_bytes(b"x")
        profiles = self.directory / "profiles"
        ok, summary = mutate.replay_for_reach(fake, "buffered_writer", corpus, profiles)
        self.assertFalse(ok)
        self.assertIn("FAILS on the unmutated tree", summary)
        profile = profiles / "buffered_writer" / "sig.profraw"
        self.assertTrue(profile.is_file(), "a failing replay's profile was deleted")
        self.assertEqual(profile.read_text().split(), ["buffered_writer", "a", "bad1", "c"])
        (corpus / "bad1").unlink()
        ok, summary = mutate.replay_for_reach(fake, "buffered_writer", corpus, profiles)
        self.assertTrue(ok)
        self.assertEqual(profile.read_text().split(), ["buffered_writer"])   # a fresh directory per replay

    def test_report_names_the_failing_targets_and_the_kills(self):
        state = quiet(mutate.plan, arguments(files=["streams.h"], lines=["streams.h:698-702"]), None, None,
                      self.subject, stub_generator(800))
        state["config"]["head_failing_targets"] = {"buffered_writer": "baseline replay: mismatch: buffered_writer"}
        state["config"]["reach_lcov"] = "review-out/coverage-targets.lcov"
        state["mutants"][0].update(status="killed", phase="replay", target="buffered_writer", head_failing=True,
                                   check="HEAD already failing: mismatch: buffered_writer", seconds=0.1)
        state["mutants"][1].update(status="killed", phase="fuzz", target="compact_size", check="x", seconds=2.0)
        for m in state["mutants"][2:]:
            m.update(status="invalid", detail="error")
        out = self.directory / "report"
        out.mkdir()
        quiet(mutate.write_report, state, out)
        text, summary = (out / "report.md").read_text(), json.loads((out / "report.json").read_text())
        self.assertEqual((summary["killed"], summary["killed_head_failing"], summary["survived_not_reached"]),
                         (2, 1, 0))
        self.assertIn("1 of them killed, HEAD already failing", text)
        self.assertIn("targets whose corpus already fails on the unmutated tree (kept, with their reach", text)
        self.assertIn("reach from review-out/coverage-targets.lcov", text)


class SchemataWay(unittest.TestCase):
    """process() with a schemata binary (fast=(binary, key)): no build per mutant; a replay kill needs no TCE; a mutant
    the replay leaves alive gets the TCE step before any fuzzing (an equivalent one is never fuzzed); one whose objects
    differ is fuzzed on the schemata binary with its key; the rebuild way still builds."""

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="serdiff-schemata-way-"))
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.subject = mutate.CoreSubject(self.directory)
        (self.directory / "src").mkdir()
        (self.directory / "src" / "streams.h").write_bytes(b"line 1\nline 2\n")
        self.options = {name: {"name": name, "max_len": 64} for name in ("stream", "varint")}
        self.state = {"coverage": {"reach": {"streams.h": {"1": ["stream", "varint"]}}, "instrumented": {}}}

    def judge(self, job, fast=("schemata-binary", 7)):
        mutant = {"id": "streams.h#1", "file": "streams.h", "line": 1, "rule": "stub", "operator": "stub",
                  "original": "line 1", "mutated": "line 1 changed", "status": "pending", "quick_seconds": 0.5}
        with mock.patch.object(mutate, "targets_for", lambda state, path, line: (["stream", "varint"], "executed")):
            quiet(mutate.process, job, mutant, self.state, self.options, None, 1, arguments(), fast)
        return mutant

    def test_replay_kill_without_tce_or_build(self):
        job = FakeJob(self.subject, self.directory, kills={"varint"})
        mutant = self.judge(job)
        self.assertEqual((mutant["status"], mutant["phase"], mutant["target"], mutant["way"]),
                         ("killed", "replay", "varint", "schemata"))
        self.assertNotIn(("ninja",), job.calls)
        self.assertNotIn(("tce", "streams.h#1"), job.calls)
        self.assertGreaterEqual(mutant["elapsed"], 0.5)     # the quick check's time is the mutant's too

    def test_equivalent_is_never_fuzzed(self):
        job = FakeJob(self.subject, self.directory, tce=("equivalent", "identical objects"))
        mutant = self.judge(job)
        self.assertEqual(mutant["status"], "equivalent")
        self.assertEqual([c[1] for c in job.calls if len(c) == 3], ["replay", "replay"])
        self.assertNotIn(("ninja",), job.calls)

    def test_different_is_fuzzed_with_its_key(self):
        job = FakeJob(self.subject, self.directory)
        mutant = self.judge(job)
        self.assertEqual(mutant["status"], "survived")
        self.assertEqual([c[:2] for c in job.calls if len(c) == 3],
                         [("stream", "replay"), ("varint", "replay"), ("stream", "fuzz"), ("varint", "fuzz")])
        self.assertTrue(all(c[2] for c in job.calls if len(c) == 3))
        self.assertEqual(job.calls.index(("tce", "streams.h#1")), 2, job.calls)

    def test_instantiation_only_is_not_reached(self):
        job = FakeJob(self.subject, self.directory, tce=(mutate.INSTANTIATION_ONLY, "only the unit's object"))
        mutant = self.judge(job)
        self.assertEqual((mutant["status"], mutant["reach"], mutant.get("not_reached")),
                         ("survived", mutate.INSTANTIATION_ONLY, True))
        self.assertNotIn("fuzz", [c[1] for c in job.calls if len(c) == 3])

    def test_rebuild_way_builds(self):
        job = FakeJob(self.subject, self.directory, kills={"stream"})
        mutant = self.judge(job, fast=None)
        self.assertEqual((mutant["status"], mutant["way"]), ("killed", "rebuild"))
        self.assertIn(("ninja",), job.calls)
        self.assertLess(job.calls.index(("tce", "streams.h#1")), job.calls.index(("ninja",)))


class EquivalenceByInstantiation(unittest.TestCase):
    """TCE on the fuzz binary's units plus the instantiation unit (tools/mutate/instantiate.cpp): a mutant of code no
    fuzz unit instantiates changes only the instantiation unit's object and is not reached, not equivalent."""

    FIXTURE = ("#pragma once\n"
               "template <typename T> struct Box {\n"
               "    T value;\n"
               "    T used() const { return value + 1; }\n"
               "    T unused() const { return value + 2; }\n"
               "};\n")

    def setUp(self):
        compiler = shutil.which("clang++-19") or shutil.which("clang++")
        if not compiler:
            self.skipTest("no clang++")
        self.directory = Path(tempfile.mkdtemp(prefix="mutate-test-tce-"))
        self.addCleanup(shutil.rmtree, self.directory)
        original = self.directory / "original"
        (original / "serialize").mkdir(parents=True)
        (original / "serialize" / "box.h").write_text(self.FIXTURE)
        subject = mutate.SerdiffSubject()
        subject.root = original                  # where apply/restore read the original
        self.job = mutate.Job(0, self.directory / "out", 1, False, subject, self.directory / "work")
        (self.job.src / "serialize").mkdir(parents=True)
        shutil.copy(original / "serialize" / "box.h", self.job.src / "serialize" / "box.h")
        units = {"fuzz.cpp": '#include "serialize/box.h"\nint fuzz(const Box<int>& b) { return b.used(); }\n',
                 "instantiate.cpp": '#include "serialize/box.h"\ntemplate struct Box<int>;\n'}
        entries = {}
        for name, text in units.items():
            (self.job.src / name).write_text(text)
            entries[name] = {"directory": str(self.job.src), "file": str(self.job.src / name),
                             "arguments": [compiler, "-std=c++20", f"-I{self.job.src}", "-c", str(self.job.src / name)]}
        self.job.units_of = {"serialize/box.h": [entries["fuzz.cpp"]]}
        self.job.instantiation = (entries["instantiate.cpp"], {"serialize/box.h"})

    def mutant(self, line, mutated):
        return {"id": f"serialize/box.h#{line}", "file": "serialize/box.h", "line": line, "mutated": mutated,
                "original": self.FIXTURE.splitlines()[line - 1], "operator": "stub", "rule": "stub"}

    def test_classes(self):
        verdict, detail = self.job.tce(self.mutant(4, "    T used() const { return value + 3; }"), [])
        self.assertEqual(verdict, "different")
        verdict, detail = self.job.tce(self.mutant(5, "    T unused() const { return value - 2; }"), [])
        self.assertEqual(verdict, mutate.INSTANTIATION_ONLY, detail)
        self.assertIn("instantiate.cpp", detail)
        verdict, _ = self.job.tce(self.mutant(5, "    T unused() const { return value + (2); }"), [])
        self.assertEqual(verdict, "equivalent")
        # Different IR (the operands swapped), the same -O2 object: the objects, made from the IR, decide.
        self.job.tce_baseline.clear()
        verdict, detail = self.job.tce(self.mutant(4, "    T used() const { return 1 + value; }"), [])
        self.assertEqual(verdict, "equivalent", detail)
        self.assertIn((str(self.job.src / "fuzz.cpp"), "object"), self.job.tce_baseline)
        # The unmutated object is cached from the call before; a real change still differs against it.
        self.assertEqual(self.job.tce(self.mutant(4, "    T used() const { return value - 1; }"), [])[0], "different")
        verdict, detail = self.job.tce(self.mutant(5, "    T unused() const { return value.nothing(); }"), [])
        self.assertEqual(verdict, "invalid")
        self.assertIn("instantiation unit", detail)
        # Without an instantiation unit the uninstantiated mutant would be equivalent: the unit is what tells.
        self.job.instantiation = None
        self.assertEqual(self.job.tce(self.mutant(5, "    T unused() const { return value - 2; }"), [])[0],
                         "equivalent")

    def test_an_instantiation_only_mutant_is_a_survivor_not_reached(self):
        mutant = self.mutant(5, "    T unused() const { return value - 2; }")
        state = {"coverage": {"reach": {"serialize/box.h": {"4": {"transaction": 1}}},
                              "instrumented": {"serialize/box.h": [4]}}}
        quiet(mutate.process, self.job, mutant, state, {}, None, 5, arguments())
        self.assertEqual((mutant["status"], mutant["not_reached"], mutant["reach"], mutant["targets"]),
                         ("survived", True, mutate.INSTANTIATION_ONLY, []))
        self.assertIn("instantiation-only", mutant["detail"])
        self.assertEqual((self.job.src / "serialize" / "box.h").read_text(), self.FIXTURE)  # put back after
        summary = mutate.summarize({"config": {"sample": None, "unit": False}, "generated": 1,
                                    "generated_per_file": {}, "dropped": {}, "mutants": [mutant]})
        self.assertEqual((summary["equivalent"], summary["survived"], summary["survived_not_reached"],
                          summary["survived_instantiation_only"], summary["score"]), (0, 1, 1, 1, 0.0))

    def test_the_instantiation_unit_takes_codec_cpp_flags_and_lists_its_headers(self):
        compiler = shutil.which("clang++-19") or shutil.which("clang++")
        self.job.src = ROOT                      # the checkout stands for a job's copy of it
        codec = {"directory": str(self.directory), "file": str(ROOT / "serialize" / "codec.cpp"),
                 "arguments": [compiler, "-std=c++20", f"-I{ROOT}", "-O2", "-fsanitize=address", "-o", "codec.o",
                               "-c", str(ROOT / "serialize" / "codec.cpp")]}
        entry, included = self.job.instantiation_unit({"serialize/serialize.h": [codec]})
        self.assertEqual(entry["file"], str((ROOT / mutate.INSTANTIATION_UNIT).resolve()))
        self.assertIn(str((ROOT / mutate.INSTANTIATION_UNIT).resolve()), entry["arguments"])
        self.assertNotIn(str(ROOT / "serialize" / "codec.cpp"), entry["arguments"])
        for header in ("serialize/streams.h", "serialize/prevector.h", "serialize/file.h", "serialize/serialize.h",
                       "model/model.h", "crypto/crypto.h"):
            self.assertIn(header, included)
        self.assertNotIn("serialize/codec.cpp", included)

    def test_the_instantiation_unit_compiles(self):
        # tools/mutate/instantiate.cpp against the current serialize/ (the TCE step stops if it does not).
        compiler = shutil.which("clang++-19") or shutil.which("clang++")
        result = subprocess.run([compiler, "-std=c++20", f"-I{ROOT}", "-fsyntax-only",
                                 str(ROOT / mutate.INSTANTIATION_UNIT)], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])

    def test_core_units_compile_the_target_then_the_adapter_first(self):
        # TCE stops at the first unit whose object differs: the reaching targets' units, then Core's adapter
        # (subjects/core/subject.cpp, which instantiates most of Core's headers), then the programs.
        job = mutate.Job(0, Path(tempfile.mkdtemp(prefix="mutate-test-order-")), 1, False,
                         mutate.CoreSubject(Path("/nonexistent/bitcoin")), Path(tempfile.mkdtemp(prefix="mutate-w-")))
        job.copy_of = lambda path: Path("/jobs/0/core/src") / path
        names = ["/j/src/differential/buffered_reader_program.cpp", "/j/src/fuzz_targets/prevector.cpp",
                 "/j/src/subjects/core/subject.cpp", "/j/src/fuzz_targets/bit_stream.cpp",
                 "/j/src/differential/stream_program.cpp"]
        job.units_of = {"streams.h": [{"file": name} for name in names]}
        order = [Path(e["file"]).name for e in job.unit_order({"file": "streams.h"}, ["bit_stream"])]
        self.assertEqual(order, ["bit_stream.cpp", "subject.cpp", "buffered_reader_program.cpp",
                                 "stream_program.cpp", "prevector.cpp"])

    def test_the_core_instantiation_unit_compiles_with_the_core_subjects_flags(self):
        # tools/mutate/instantiate_core.cpp against the Core tree this checkout's ASan build compiled (the pinned one,
        # or CORE_SRC), with subjects/core/subject.cpp's command as the TCE step takes it; it lists Core's files.
        commands = ROOT / "build" / "asan" / "compile_commands.json"
        entries = [e for e in json.loads(commands.read_text()) if e["file"].endswith("subjects/core/subject.cpp")] \
            if commands.is_file() else []
        if not entries:
            self.skipTest("no Core subject in build/asan")
        tree = Path(next(a for a in shlex.split(entries[0]["command"]) if a.endswith("bitcoin/src"))).parent
        job = mutate.Job(0, Path(tempfile.mkdtemp(prefix="mutate-test-core-unit-")), 1, False,
                         mutate.CoreSubject(tree), Path(tempfile.mkdtemp(prefix="mutate-test-core-work-")))
        job.src = ROOT
        job.subject.copy_root = lambda _job: tree / "src"
        entry, included = job.instantiation_unit({"serialize.h": entries})
        self.assertEqual(entry["file"], str((ROOT / mutate.CORE_INSTANTIATION_UNIT).resolve()))
        for header in ("serialize.h", "streams.h", "prevector.h", "undo.h", "primitives/transaction.h",
                       "primitives/block.h"):
            self.assertIn(header, included)
        result = subprocess.run(job.tce_arguments(entry) + ["-fsyntax-only"], cwd=entry["directory"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])


class QuickCheckAfterRewrites(unittest.TestCase):
    """The quick check's precompiled header holds the file's #include lines, so other mutable files (serdiff's
    headers, #pragma once) are in it. Every mutant of those files is written and restored in the job tree, which
    changes their timestamps: the check must still see them as the headers the PCH holds, not parse them again
    (that gave every valid mutant of a file "redefinition of ..." and called it invalid)."""

    BASE = "#pragma once\nstruct Base { int v; };\n"
    BOX = "#pragma once\n#include \"serialize/base.h\"\nstruct Box { Base b; int get() const { return b.v + 1; } };\n"

    def setUp(self):
        compiler = shutil.which("clang++-19")
        if not compiler:
            self.skipTest("no clang++-19")
        self.directory = Path(tempfile.mkdtemp(prefix="mutate-test-quick-"))
        self.addCleanup(shutil.rmtree, self.directory)
        original = self.directory / "original"
        subject = mutate.SerdiffSubject()
        subject.root = original
        self.job = mutate.Job(0, self.directory / "out", 1, False, subject, self.directory / "work")
        for tree in (original, self.job.src):
            (tree / "serialize").mkdir(parents=True)
            (tree / "serialize" / "base.h").write_text(self.BASE)
            (tree / "serialize" / "box.h").write_text(self.BOX)
        (self.job.src / "fuzz.cpp").write_text('#include "serialize/box.h"\nint fuzz(const Box& b) { return b.get(); }\n')
        entry = {"directory": str(self.job.src), "file": str(self.job.src / "fuzz.cpp"),
                 "arguments": [compiler, "-std=c++20", f"-I{self.job.src}", "-c", str(self.job.src / "fuzz.cpp")]}
        self.job.units_of = {"serialize/box.h": [entry]}
        self.job.instantiation = (entry, {"serialize/box.h", "serialize/base.h"})

    def mutant(self, mutated):
        return {"id": "serialize/box.h#1", "file": "serialize/box.h", "line": 3, "mutated": mutated,
                "original": self.BOX.splitlines()[2], "operator": "stub", "rule": "stub"}

    def test_a_restored_header_in_the_pch_does_not_make_valid_mutants_invalid(self):
        valid = self.mutant("struct Box { Base b; int get() const { return b.v + 2; } };")
        broken = self.mutant("struct Box { Base b; int get() const { return b.w + 1; } };")
        self.assertIsNone(self.job.quick_check(valid))
        self.assertIn("w", self.job.quick_check(broken) or "")
        # A mutant of base.h was applied and restored: same bytes, a later timestamp.
        self.job.restore("serialize/base.h")
        later = time.time() + 5
        os.utime(self.job.copy_of("serialize/base.h"), (later, later))
        self.assertIsNone(self.job.quick_check(valid))
        self.assertIsNotNone(self.job.quick_check(broken))


if __name__ == "__main__":
    unittest.main()
