#!/usr/bin/env python3
"""ctest mutate_schemata: make mutate's two ways give one verdict, on a program small enough to run every mutant of it
both ways. universalmutator's mutants of tests/schemata_fixture.cpp (seeded sample) are each compiled as written and
run; the same mutants go into one schemata build (tools/mutate/schemata.py: the libclang plan, the rewrite, the
build's errors mapped back to the mutants they are in, those left out, again until it builds) and each is run there
with SERDIFF_MUTANT chosen. Checked: the schemata program with no mutant chosen behaves as the original; no mutant that
fails to compile as written is in the schemata build; every mutant in it prints and exits as it does compiled as
written; most valid mutants are in it (the way is used, not bypassed); and the error map finds the culprit of a build
error (a mutant the switch cannot carry is left out, the others stay)."""
import json
import random
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "mutate"))
import mutate  # noqa: E402
import schemata  # noqa: E402

FIXTURE = "tests/schemata_fixture.cpp"
COMPILER = "clang++-19"
FLAGS = ["-std=c++20", "-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-w"]
SAMPLE = 45
SEED = 20261129


def compile_program(source, output, extra=()):
    return subprocess.run([COMPILER] + FLAGS + list(extra) + ["-x", "c++", str(source), "-o", str(output)],
                          capture_output=True, text=True)


def run_program(binary, key=None):
    environment = {"PATH": "/usr/bin:/bin", "ASAN_OPTIONS": "detect_leaks=0"}
    if key is not None:
        environment[schemata.ENVIRONMENT] = str(key)
    try:
        result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=20, env=environment)
    except subprocess.TimeoutExpired:
        return ("timeout", "")
    # A sanitizer report's text names addresses; its first line's kind is what both ways must share.
    report = next((line.split(" on ")[0] for line in result.stderr.splitlines()
                   if "ERROR:" in line or "runtime error:" in line), "")
    report = report.split("runtime error:")[-1].strip() if "runtime error:" in report else report
    return (result.returncode, result.stdout + report)


def plan(path, mutants):
    request = {"file": str(path), "arguments": ["-x", "c++", "-std=c++20"], "unit": str(path),
               "mutants": [{"key": k, "line": m["line"], "original": m["original"], "mutated": m["mutated"]}
                           for k, m in mutants.items()]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(request, handle)
    result = subprocess.run([str(mutate.VENV / "bin" / "python"), str(ROOT / "tools" / "mutate" / "schemata.py"),
                             "plan", handle.name], capture_output=True, text=True)
    Path(handle.name).unlink()
    if result.returncode != 0:
        raise AssertionError(f"schemata.py plan failed: {result.stderr[-2000:]}")
    planned = json.loads(result.stdout)
    return {int(k): v for k, v in planned["nodes"].items()}, {int(k): v for k, v in planned["unsupported"].items()}


def build(directory, data, mutants, nodes):
    """({key compiled in}, {key: why evicted}): mutate.build_schemata's loop on one program, with its error map
    (mutate.culprits)."""
    compiled, evicted = set(nodes), {}
    source, binary = directory / "schemata.cpp", directory / "schemata"
    for _ in range(mutate.SCHEMATA_ROUNDS):
        text, spans = schemata.render(data, mutants, {k: nodes[k] for k in compiled})
        source.write_bytes(text)
        result = compile_program(source, binary, ["-ferror-limit=0"])
        if result.returncode == 0:
            return compiled, evicted
        bad = mutate.culprits(result.stderr, {"source": spans}, compiled,
                              lambda location: "source" if Path(location).resolve() == source.resolve() else None)
        if not bad:
            raise AssertionError(f"a schemata build error no mutant owns:\n{result.stderr[-3000:]}")
        compiled -= set(bad)
        evicted.update({k: "build" for k in bad})
    raise AssertionError("the schemata build did not converge")


class TwoWays(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="serdiff-schemata-test-"))
        cli = mutate.mutate_cli()
        generated, _ = mutate.generate(cli, FIXTURE, ROOT)
        random.Random(SEED).shuffle(generated)
        cls.mutants = {index + 1: m for index, m in enumerate(generated[:SAMPLE])}
        cls.data = (ROOT / FIXTURE).read_bytes()
        original = cls.directory / "original"
        result = compile_program(ROOT / FIXTURE, original)
        assert result.returncode == 0, result.stderr
        cls.expected = run_program(original)
        # Each mutant as written: compiled alone and run (None: it does not compile).
        cls.written = {}
        lines = cls.data.decode().split("\n")
        for key, m in cls.mutants.items():
            changed = lines[:]
            changed[m["line"] - 1] = m["mutated"]
            source, binary = cls.directory / f"m{key}.cpp", cls.directory / f"m{key}"
            source.write_text("\n".join(changed))
            built = compile_program(source, binary)
            cls.written[key] = run_program(binary) if built.returncode == 0 else None
        cls.nodes, cls.unsupported = plan(ROOT / FIXTURE, cls.mutants)
        # As make mutate does, only the mutants that pass the quick check (here: they compile) are candidates.
        candidates = {k: v for k, v in cls.nodes.items() if cls.written[k] is not None}
        cls.compiled, cls.evicted = build(cls.directory, cls.data, cls.mutants, candidates)
        cls.binary = cls.directory / "schemata"

    def test_original_path_is_the_original(self):
        self.assertEqual(run_program(self.binary), self.expected)
        self.assertEqual(run_program(self.binary, key=10 ** 6), self.expected)

    def test_each_mutant_behaves_as_written(self):
        self.assertTrue(self.compiled, "no mutant in the schemata build")
        for key in sorted(self.compiled):
            m = self.mutants[key]
            with self.subTest(mutant=key, line=m["line"], mutated=m["mutated"].strip()):
                self.assertIsNotNone(self.written[key])
                self.assertEqual(run_program(self.binary, key), self.written[key])

    def test_the_way_is_used(self):
        valid = [k for k, v in self.written.items() if v is not None]
        self.assertGreaterEqual(len(valid), 15, "the sample has too few valid mutants to say anything")
        # Most valid mutants are carried by the switch: the rest are judged the rebuild way (correct, but slow).
        self.assertGreaterEqual(len(self.compiled), 0.6 * len(valid),
                                f"{len(self.compiled)} of {len(valid)} valid mutants in the schemata build; "
                                f"left out: {self.evicted} {self.unsupported}")

    def test_error_map_finds_the_culprit(self):
        # A mutant the switch cannot carry, planted: a statement node whose alternative does not compile in place.
        data = b"int f(int x)\n{\n    int y = x + 1;\n    return y * 2;\n}\nint main() { return f(1) == 4 ? 0 : 1; }\n"
        path = self.directory / "culprit.cpp"
        path.write_bytes(data)
        mutants = {1: {"line": 4, "original": "    return y * 2;", "mutated": "    return y - 2;"},
                   2: {"line": 4, "original": "    return y * 2;", "mutated": "    return z * 2;"},
                   3: {"line": 3, "original": "    int y = x + 1;", "mutated": "    int y = x - 1;"}}
        nodes, unsupported = plan(path, mutants)
        self.assertEqual(set(nodes), {1, 2, 3}, unsupported)
        self.assertEqual(nodes[3][2], "expr", "a declaration's initializer is an expression node")
        directory = self.directory / "culprit"
        directory.mkdir()
        compiled, evicted = build(directory, data, mutants, nodes)
        self.assertEqual(compiled, {1, 3})
        self.assertEqual(set(evicted), {2})
        # f(1) is 4 unmutated (main exits 0); mutant 1 returns 2 - 2, mutant 3 returns 0 * 2 (main exits 1).
        self.assertEqual(run_program(directory / "schemata")[0], 0)
        self.assertEqual(run_program(directory / "schemata", 1)[0], 1)
        self.assertEqual(run_program(directory / "schemata", 3)[0], 1)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", str(cls.directory)])


if __name__ == "__main__":
    unittest.main()
