"""The subject under test a fuzz tool works on (differential/subject.h, docs/core.md): "serdiff", serdiff's own
optimized serializer (serialize/), or "core", Bitcoin Core's own source from CORE_SRC or the pinned sdist.
Chosen with --subject/--core-src (make SUBJECT= CORE_SRC=); select() puts the choice in the environment, so the
tools a tool starts (triage, the planted-bug and mutation runners) work on the same subject."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SUBJECTS = ("serdiff", "core")


def current():
    return os.environ.get("SERDIFF_SUBJECT") or "serdiff"


def core_src():
    return os.environ.get("SERDIFF_CORE_SRC", "")


def core_base():
    """The BASE Core tree the Core subject's binaries compare HEAD with (docs/base.md): a
    directory, "pinned", or "" (none)."""
    return os.environ.get("SERDIFF_CORE_BASE", "")


def archive_src(tree, commit, directory):
    """`git archive` of `commit`'s src/ in the checkout `tree`, extracted into `directory` (git archive | tar -x;
    tarfile's extraction filter is missing from some Python 3.11 builds). The checkout is only read. Returns None, or
    git's (else tar's) words when it failed."""
    archive = subprocess.Popen(["git", "-C", str(tree), "archive", "--format=tar", commit, "src"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    extracted = subprocess.run(["tar", "-x", "-C", str(directory)], stdin=archive.stdout, capture_output=True, text=True)
    archive.stdout.close()
    error = archive.stderr.read().decode(errors="replace").strip()
    if archive.wait() != 0 or extracted.returncode != 0:
        return error or extracted.stderr.strip() or "failed"
    return None


def export_base(tree, revision):
    """`git archive` of `revision`'s src/ from the checkout `tree` into build/core-base/<commit>/src (the checkout is
    never written; an export already there is reused). Returns the directory; exits with git's words on failure."""
    resolved = subprocess.run(["git", "-C", str(tree), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
                              capture_output=True, text=True)
    if resolved.returncode != 0:
        sys.exit(f"error: CORE_BASE={revision} is not a commit of {tree} (git rev-parse --verify fails)")
    commit = resolved.stdout.strip()
    destination = ROOT / "build" / "core-base" / commit
    if (destination / ".complete").is_file():
        return destination
    shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True)
    error = archive_src(tree, commit, destination)
    if error is not None:
        sys.exit(f"error: git archive {commit} src in {tree} failed: {error}")
    (destination / ".complete").write_text(commit + "\n")
    return destination


def add_arguments(parser):
    parser.add_argument("--subject", default=None, choices=SUBJECTS,
                        help="the code under test: serdiff (default) or core (Bitcoin Core's source)")
    parser.add_argument("--core-src", default=None, metavar="DIR",
                        help="with --subject core: a Bitcoin Core tree (default: the pinned sdist, fetched)")
    parser.add_argument("--core-base", default=None, metavar="REV",
                        help="with --subject core: BASE, a revision of the --core-src checkout (or a Core tree's "
                             "directory, or 'pinned') whose behaviour every Core target compares HEAD's with")


def select(subject, core_source, base=None):
    """Validates and records the choice (None: keep what the environment says). Exits 2 on a bad one."""
    subject = subject or current()
    core_source = core_source if core_source is not None else core_src()
    base = base if base is not None else core_base()
    if base and subject != "core":
        sys.exit("error: CORE_BASE names the BASE of a Bitcoin Core change, which only SUBJECT=core (or CORE_SRC) builds")
    if base and base != "pinned" and not (Path(base).expanduser() / "src" / "serialize.h").is_file():
        if not core_source:
            sys.exit(f"error: CORE_BASE={base} is a revision, so CORE_SRC must name the git checkout it is in")
        base = str(export_base(Path(core_source).expanduser().resolve(), base))
    elif base and base != "pinned":
        base = str(Path(base).expanduser().resolve())
    os.environ["SERDIFF_CORE_BASE"] = base
    if core_source:
        if subject != "core":
            sys.exit("error: CORE_SRC names a Bitcoin Core tree, which only SUBJECT=core builds")
        tree = Path(core_source).expanduser().resolve()
        if not (tree / "src" / "serialize.h").is_file() or not (tree / "src" / "streams.cpp").is_file():
            sys.exit(f"error: CORE_SRC={core_source} is not a Bitcoin Core tree (no src/serialize.h and "
                     f"src/streams.cpp)")
        core_source = str(tree)
    os.environ["SERDIFF_SUBJECT"] = subject
    os.environ["SERDIFF_CORE_SRC"] = core_source
    return subject


def core_tree(core_source, tool):
    """The Core tree a tool works on (it copies it, never writes it): CORE_SRC, or the pinned sdist
    (subjects/core/fetch.sh, fetched once into build/core-source). `tool` names the tool in the error."""
    if core_source:
        return Path(core_source)
    fetched = subprocess.run([str(ROOT / "subjects" / "core" / "fetch.sh"), str(ROOT / "build" / "core-source")],
                             stdout=subprocess.PIPE, text=True)
    if fetched.returncode != 0:
        sys.exit(f"{tool}: fetching the pinned Bitcoin Core source failed (messages above); give CORE_SRC=DIR")
    return Path(fetched.stdout.strip().splitlines()[-1])


def binary_name(kind, subject=None):
    """The file name of a fuzz binary: serdiff_fuzz_libfuzzer, core_fuzz_replay, ..."""
    return f"{subject or current()}_fuzz_{kind}"


def cmake_arguments():
    """What a fuzz build tree is configured with for the current subject (the serdiff subject always builds)."""
    if current() != "core":
        return []
    return ["-DSERDIFF_SUBJECTS=serdiff;core", f"-DSERDIFF_CORE_SRC={core_src()}",
            f"-DSERDIFF_CORE_BASE_SRC={core_base()}"]


def describe():
    if current() != "core":
        return "the serdiff subject (serialize/)"
    base = f", compared with BASE {core_base()}" if core_base() else ""
    return f"the Core subject ({core_src() or 'the pinned py-bitcoinkernel sdist'}{base})"
