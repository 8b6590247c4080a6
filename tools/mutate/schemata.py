#!/usr/bin/env python3
"""Mutant schemata for make mutate (docs/mutation.md, "Schemata"): the mutants of a file compiled into one build,
each behind a run-time switch, so a mutant is judged by running the one binary with SERDIFF_MUTANT=<number> instead
of rebuilding the fuzz binary per mutant.

A universalmutator mutant replaces one line. Its changed span (the bytes between the common prefix and suffix of the
original and mutated line) lies inside some node of the file's syntax tree (libclang, PyPI `clang` pinned to the
compiler's major, on Debian's libclang1-19). The smallest node that holds the span and can carry a switch is
rewritten, with every mutant of the node as an alternative:

  a statement of a block (`x += 1;`, `return a;`, `if (...) {...}`; never a declaration, a case label or a label):
      { if (SERDIFF_MUTANT(k1)) { <mutant 1's statement> } else if ... else { <original statement> } }
  an expression inside a function body:
      (SERDIFF_MUTANT(k1) ? static_cast<decltype((<original>))>(<mutant 1's expression>) : ... : (<original>))

The statement keeps the mutant's text exactly as written, in the same place; the expression form casts the mutant
to the original's type and value category, so the original path (no mutant chosen) keeps its type, overloads and
value. What the form cannot carry does not compile (a constant expression, a template argument, a member function
name, a braced list, a bit-field, a lambda's type): the build's errors are mapped back to the alternatives and those
mutants are judged the slow way, rebuilt one at a time (mutate.py). A mutant is never judged by a schemata binary
that did not compile it.

  schemata.py plan INPUT.json   (run with build/python-venv's python; libclang)
      INPUT: {"file": path, "arguments": [compile flags], "unit": source to parse (the file itself or a unit that
              includes it), "mutants": [{"key": int, "line": n, "original": text, "mutated": text}]}
      prints {"nodes": {key: [start, end, form]}, "unsupported": {key: why}}
render() (importable without libclang) writes the file with the planned nodes.
"""
import json
import re
import sys

SWITCH = "SERDIFF_MUTANT"
ENVIRONMENT = "SERDIFF_MUTANT"
PROLOGUE = (
    "#ifndef SERDIFF_SCHEMATA_SWITCH\n"
    "#define SERDIFF_SCHEMATA_SWITCH\n"
    "#include <cstdlib>\n"
    "// make mutate's schemata switch (tools/mutate/schemata.py): the mutant chosen by SERDIFF_MUTANT, read once.\n"
    "inline int serdiff_schemata_chosen() { const char* v = std::getenv(\"SERDIFF_MUTANT\"); "
    "return v ? std::atoi(v) : 0; }\n"
    "inline const int serdiff_schemata_mutant = serdiff_schemata_chosen();\n"
    f"#define {SWITCH}(k) (serdiff_schemata_mutant == (k))\n"
    "#endif\n")

# Line numbers of the copies of a node written over several lines (render()): far above any source line.
MULTILINE_BASE = 10_000_000
MULTILINE_STRIDE = 100_000
# Statements a switch cannot wrap: a declaration's names would leave their scope; labels belong to the block.
UNWRAPPABLE = {"DECL_STMT", "CASE_STMT", "DEFAULT_STMT", "LABEL_STMT", "NULL_STMT", "COMPOUND_STMT"}
# Expressions that cannot stand in a conditional expression or be cast (names of functions to call, braced lists,
# the operand of sizeof/alignof, which is not evaluated: a switch there changes nothing at run time).
NO_EXPRESSION = {"MEMBER_REF_EXPR", "OVERLOADED_DECL_REF", "INIT_LIST_EXPR", "TYPE_REF", "TEMPLATE_REF",
                 "NAMESPACE_REF", "CXX_UNARY_EXPR", "PACK_EXPANSION_EXPR", "SIZE_OF_PACK_EXPR",
                 # A string literal is an array: the cast to its type cannot take another length (its call can).
                 "STRING_LITERAL"}
# An element of a braced list: the switch's expression is not a constant, so a narrowing the literal was allowed
# becomes an error; the list's declaration is the node then (or none: the rebuild way).
NO_EXPRESSION_IN = {"INIT_LIST_EXPR"}
UNEVALUATED = {"CXX_UNARY_EXPR", "STATIC_ASSERT"}
FUNCTION_NAMES = {"FUNCTION_DECL", "CXX_METHOD", "FUNCTION_TEMPLATE", "CONSTRUCTOR", "DESTRUCTOR",
                  "CONVERSION_FUNCTION"}


def line_starts(data):
    starts, position = [0], 0
    while True:
        position = data.find(b"\n", position)
        if position < 0:
            return starts
        position += 1
        starts.append(position)


def changed_span(old, new):
    """(start, end) of `old` that `new` replaces: what lies between their common prefix and common suffix."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - suffix


def mutant_span(data, starts, mutant):
    """(A, B, replacement bytes): the mutant replaces data[A:B] with the replacement."""
    original, mutated = mutant["original"].encode(), mutant["mutated"].encode()
    start, end = changed_span(original, mutated)
    base = starts[mutant["line"] - 1]
    return base + start, base + end, mutated[start:len(mutated) - (len(original) - end)]


def collect(path, arguments, unit):
    """[(start, end, form)] of the nodes of `path` that can carry a switch (libclang)."""
    import clang.cindex as ci
    library = "/usr/lib/llvm-19/lib/libclang-19.so.1"
    if not ci.Config.loaded:
        ci.Config.set_library_file(library)
    tu = ci.Index.create().parse(unit, args=arguments)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise SystemExit(f"schemata: {unit} does not parse: {errors[0]}")
    target = str(path)
    nodes = []

    def kind_name(cursor):
        try:
            return cursor.kind.name
        except ValueError:
            return "UNKNOWN"

    def walk(cursor, ancestors):
        for child in cursor.get_children():
            location = child.extent.start
            if location.file is None or location.file.name != target:
                # Another file's declarations (the standard library, other headers): never entered, except the
                # translation unit's namespaces that span files are entered only when they start in this one.
                continue
            name = kind_name(child)
            parent = ancestors[-1] if ancestors else "TRANSLATION_UNIT"
            in_body = "COMPOUND_STMT" in ancestors
            unevaluated = any(a in UNEVALUATED for a in ancestors)
            start, end = child.extent.start.offset, child.extent.end.offset
            if in_body and not unevaluated and end > start and child.extent.end.file is not None \
                    and child.extent.end.file.name == target:
                if parent == "COMPOUND_STMT" and name not in UNWRAPPABLE and (child.kind.is_statement()
                                                                              or child.kind.is_expression()):
                    nodes.append((start, end, "stmt"))
                elif child.kind.is_expression() and name not in NO_EXPRESSION and parent not in NO_EXPRESSION_IN \
                        and not (
                        name == "DECL_REF_EXPR" and child.referenced is not None
                        and kind_name(child.referenced) in FUNCTION_NAMES):
                    nodes.append((start, end, "expr"))
            walk(child, ancestors + [name])

    walk(tu.cursor, [])
    with open(target, "rb") as handle:
        data = handle.read()
    def unfit(start, end):
        text = data[start:end]
        # An implicit conversion of a string literal has the literal's extent (and its array type); a braced list
        # (std::min({a, b, c})) has none of its own; a called name (an overload set, a function template, whatever
        # the kind libclang gives it in a template) cannot be cast to its own type.
        if text.lstrip(b"uUL8R").startswith(b'"') or text.startswith(b"{"):
            return True
        return re.fullmatch(rb"[A-Za-z_][\w:]*(<[^()]*>)?", text) is not None and \
            data[end:end + 64].lstrip().startswith(b"(")
    return [n for n in nodes if not (n[2] == "expr" and unfit(n[0], n[1]))]


def plan(request):
    path = request["file"]
    with open(path, "rb") as handle:
        data = handle.read()
    starts = line_starts(data)
    nodes = []
    for start, end, form in collect(path, request["arguments"], request.get("unit") or path):
        if form == "stmt":
            # A statement's own semicolon goes with it (a deletion, /*...*/, takes it too).
            rest = data[end:]
            stripped = rest.lstrip(b" \t")
            if stripped.startswith(b";"):
                end += len(rest) - len(stripped) + 1
        nodes.append((start, end, form))
    chosen, unsupported = {}, {}
    for mutant in request["mutants"]:
        if mutant["original"].lstrip().startswith("#") or mutant["mutated"].lstrip().startswith("#"):
            unsupported[mutant["key"]] = "a preprocessor line"
            continue
        a, b, _ = mutant_span(data, starts, mutant)
        holding = [n for n in nodes if n[0] <= a and b <= n[1]]
        if not holding:
            unsupported[mutant["key"]] = "no statement or expression of a function body holds the change"
            continue
        chosen[mutant["key"]] = list(min(holding, key=lambda n: (n[1] - n[0], n[2] != "stmt")))
    return {"nodes": chosen, "unsupported": unsupported}


def render(data, mutants, nodes):
    """The file with the planned nodes rewritten. `mutants`: {key: {line, original, mutated}}; `nodes`: {key: [start,
    end, form]}. Returns (bytes, spans): spans is a list of (first line, first column, last line, last column,
    owner) as the compiler reports positions (1-based; the lines after a multi-line node renumbered by #line to their
    original numbers); owner is a mutant's key for its alternative, or the tuple of a node's keys for the whole
    switched node (owners() reads them)."""
    starts = line_starts(data)
    # Nested nodes join the outermost: its alternatives carry the inner mutants' changes.
    order = sorted({(n[0], n[1], n[2]) for n in nodes.values()}, key=lambda n: (n[0], -n[1]))
    outer = []
    for node in order:
        if outer and node[0] < outer[-1][1]:
            if node[1] > outer[-1][1]:
                outer[-1] = (outer[-1][0], node[1], outer[-1][2])
            continue
        outer.append(node)
    members = {node: [] for node in outer}
    for key in sorted(nodes):
        start, end = nodes[key][0], nodes[key][1]
        for node in outer:
            if node[0] <= start and end <= node[1]:
                members[node].append(key)
                break
    pieces, cursor, marks = [], 0, []   # marks: (output offset start, end, key or None for the node's switch)

    def emit(text, key=None):
        position = sum(len(p) for p in pieces)
        pieces.append(text)
        if key is not None:
            marks.append((position, position + len(text), key))

    for number, node in enumerate(outer):
        start, end, form = node
        if not members[node]:
            continue
        emit(data[cursor:start])
        original = data[start:end]
        if b"\n" in original:
            # A node over several lines is written several times: its copies get line numbers of their own (from
            # MULTILINE_BASE up, one range per node), so an error's line belongs to one place of the output.
            emit(f"\n#line {MULTILINE_BASE + number * MULTILINE_STRIDE}\n".encode())
        node_start = sum(len(p) for p in pieces)
        alternatives = []
        for key in members[node]:
            a, b, replacement = mutant_span(data, starts, mutants[key])
            alternatives.append((key, data[start:a] + replacement + data[b:end]))
        if form == "stmt":
            emit(b"{ ")
            for index, (key, text) in enumerate(alternatives):
                emit((b"if (" if index == 0 else b" else if (") + f"{SWITCH}({key})) {{ ".encode())
                emit(text, key)
                emit(b" }")
            emit(b" else { ")
            emit(original)
            emit(b" } }")
        else:
            emit(b"(")
            for key, text in alternatives:
                emit(f"{SWITCH}({key}) ? static_cast<decltype((".encode())
                emit(original)
                emit(b"))>(")
                emit(text, key)
                emit(b") : ")
            emit(b"(")
            emit(original)
            emit(b"))")
        node_end = sum(len(p) for p in pieces)
        marks.append((node_start, node_end, tuple(members[node])))
        if b"\n" in original:
            # Lines after the node keep their numbers (assertion messages, the error map).
            line = data.count(b"\n", 0, end) + 1
            if original.count(b"\n") * (len(members[node]) + 2) >= MULTILINE_STRIDE:
                raise ValueError(f"a switched node of {original.count(b'{chr(10)}') + 1} lines with "
                                 f"{len(members[node])} mutants overflows its #line range")
            emit(f"\n#line {line}\n".encode() + b" " * (end - starts[line - 1]))
        cursor = end
    emit(data[cursor:])
    output = b"".join(pieces)
    if marks:
        output = PROLOGUE.encode() + f"#line 1\n".encode() + output
        shift = len(PROLOGUE) + len("#line 1\n")
        marks = [(s + shift, e + shift, k) for s, e, k in marks]
    return output, positions(output, marks)


def positions(output, marks):
    """marks -> [(first line, first column, last line, last column, key)] in the compiler's numbering."""
    reported, physical_starts = [], line_starts(output)
    number = 1
    for index, start in enumerate(physical_starts):
        end = physical_starts[index + 1] if index + 1 < len(physical_starts) else len(output)
        text = output[start:end]
        reported.append(number)
        if text.startswith(b"#line "):
            number = int(text.split()[1])
        else:
            number += 1

    def where(offset):
        low, high = 0, len(physical_starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if physical_starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return reported[low], offset - physical_starts[low] + 1
    return [where(s) + where(max(s, e - 1)) + (k,) for s, e, k in marks]


def owners(spans, line, column):
    """The mutant keys an error at (line, column) belongs to: the alternatives holding it, else every mutant of the
    node whose switch holds it; [] when the position is in no rewritten node."""
    def inside(span):
        first_line, first_column, last_line, last_column = span[:4]
        return (first_line, first_column) <= (line, column) <= (last_line, last_column)
    alternatives = [s[4] for s in spans if isinstance(s[4], int) and inside(s)]
    if alternatives:
        return alternatives
    found = []
    for span in spans:
        if isinstance(span[4], tuple) and inside(span):
            found += list(span[4])
    if not found:
        # The compiler may put an error at a line's start (a missing token): the line of a node is enough.
        for span in spans:
            if isinstance(span[4], tuple) and span[0] <= line <= span[2]:
                found += list(span[4])
    return found


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "plan":
        sys.exit(__doc__)
    with open(sys.argv[2]) as handle:
        request = json.load(handle)
    json.dump(plan(request), sys.stdout)


if __name__ == "__main__":
    main()
