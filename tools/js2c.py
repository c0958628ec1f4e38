#!/usr/bin/env python3
"""Links the JavaScript layer's modules into one script and embeds it in C++.

Usage: js2c.py --contract src/layer_contract.h OUTPUT.cc NAME MODULE.js...

Each file of src/js is a module in the style of Node.js's lib/internal:
its id is `internal/<file name without .js>`, and it says what it takes and
what it gives at its top level, one statement each:

    const { ReflectApply } = primordials;       // internal/primordials
    const { getFrame, constants } = binding;    // the native binding
    const { kInit } = constants;                // binding.constants
    const { frameWith } = require('internal/frames');
    ...
    module.exports = { runWith, lookup };

The modules are resolved here, at build time: the output is ONE script
whose function takes the binding, runs every module once, in an order
where each module runs after the modules it requires, and returns the
exports of internal/install. A module's body keeps its lines: line N of
src/js/x.js is line (offset of x) + N of the script, and the offsets are
listed in the generated file. There is no loader at run time beyond a
table of the modules' exports.

The build fails (exit code 1, one line per problem) on a cycle, a missing
module, an import of a name the other module does not export, an imported
name the module never uses, an export nothing imports, a module nothing
reaches, a name of binding/constants/strings that src/layer_contract.h
does not define, or a use of binding, primordials or require outside an
import statement (only the entry may call require with a computed id). The layer
functions C++ reads (ASYNCCTX_LAYER_FUNCTIONS in the contract) must each be
exported by the module the table names.

Lines that hold only a comment are emptied (every context compiles the
layer, and the comments are most of its text); line numbers are kept.
"""
import os
import re
import sys

ENTRY = "internal/install"
PRIMORDIALS = "internal/primordials"

IMPORT_RE = re.compile(
    r"^const\s*\{([^}]*)\}\s*=\s*"
    r"(primordials|binding|constants|strings|require\('([\w/]+)'\))\s*;",
    re.M)
EXPORTS_RE = re.compile(r"^module\.exports\s*=\s*\{(.*?)^\};", re.M | re.S)
IDENT = r"[A-Za-z_$][\w$]*"


class LinkError(Exception):
    pass


def split_top_level(text):
    """Splits `text` at commas outside of brackets and strings."""
    parts, depth, start, quote = [], 0, 0, None
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def parse_import_names(text):
    """`a, b: c` -> [("a", "a"), ("b", "c")] (imported name, local name)."""
    names = []
    for part in split_top_level(strip_comments(text)):
        m = re.fullmatch(r"(%s)(?:\s*:\s*(%s))?" % (IDENT, IDENT), part)
        if not m:
            raise LinkError("cannot read the import %r" % part)
        names.append((m.group(1), m.group(2) or m.group(1)))
    return names


def parse_export_names(text):
    names = []
    for part in split_top_level(strip_comments(text)):
        m = re.match(r"(%s)\s*(?:[:(]|$)" % IDENT, part)
        if not m:
            raise LinkError("cannot read the export %r" % part)
        if m.group(1) != "__proto__":
            names.append(m.group(1))
    return names


class Module:
    def __init__(self, path, source):
        self.path = path
        self.id = "internal/" + os.path.splitext(os.path.basename(path))[0]
        self.source = source
        # (source, module id or None, [(imported, local)])
        self.imports = []
        for m in IMPORT_RE.finditer(source):
            kind = "require" if m.group(3) else m.group(2)
            self.imports.append((kind, m.group(3), parse_import_names(
                m.group(1))))
        found = EXPORTS_RE.findall(source)
        if len(found) > 1:
            raise LinkError("%s: more than one module.exports" % path)
        self.exports = parse_export_names(found[0]) if found else []
        self.requires = [mid for kind, mid, _ in self.imports
                         if kind == "require"]
        if any(kind == "primordials" for kind, _, _ in self.imports):
            self.requires.append(PRIMORDIALS)


def parse_contract(text):
    def entries(macro):
        m = re.search(r"#define %s\(V\)(.*?)(?:\n\n|\Z)" % macro, text, re.S)
        if not m:
            raise LinkError("the contract has no %s" % macro)
        return re.findall(r"\bV\(([^)]*)\)", m.group(1))

    contract = {}
    contract["constants"] = {e.split(",")[0].strip()
                             for e in entries("ASYNCCTX_LAYER_CONSTANTS")}
    contract["binding"] = (
        {e.split(",")[0].strip()
         for e in entries("ASYNCCTX_BINDING_FUNCTIONS")} |
        {e.split(",")[0].strip()
         for e in entries("ASYNCCTX_BINDING_VALUES")})
    contract["strings"] = {e.split(",")[0].strip()
                           for e in entries("ASYNCCTX_LAYER_STRINGS")}
    contract["functions"] = []
    for e in entries("ASYNCCTX_LAYER_FUNCTIONS"):
        name, module = [x.strip() for x in e.split(",")[:2]]
        contract["functions"].append((name, module.strip('"')))
    return contract


def link(modules, contract):
    """Checks the modules; returns them in an order to run them in."""
    errors = []
    by_id = {}
    for module in modules:
        if module.id in by_id:
            errors.append("%s: two modules named %s" % (module.path,
                                                        module.id))
        by_id[module.id] = module
    if ENTRY not in by_id:
        errors.append("there is no module %s (the entry)" % ENTRY)
    for module in modules:
        body = strip_comments(IMPORT_RE.sub("", module.source))
        # Everything a module takes is in its import statements.
        for m in re.finditer(r"(?<![\w$.])(binding|primordials)\s*[.\[]",
                             body):
            errors.append("%s: reads %s outside an import statement" %
                          (module.path, m.group(1)))
        if module.id != ENTRY and re.search(r"(?<![\w$.])require\s*\(",
                                            body):
            errors.append("%s: calls require outside an import statement" %
                          module.path)
        for kind, _, _ in module.imports:
            if kind in ("constants", "strings"):
                body += " " + kind  # read by its own import statement
        for kind, mid, names in module.imports:
            if kind == "require":
                target = by_id.get(mid)
                if target is None:
                    errors.append("%s: requires %s, which does not exist" %
                                  (module.path, mid))
                    continue
                available, what = set(target.exports), mid
            elif kind == "primordials":
                target = by_id.get(PRIMORDIALS)
                available = set(target.exports) if target else set()
                what = PRIMORDIALS
            else:
                available = contract[kind]
                what = "%s (src/layer_contract.h)" % kind
            for imported, local in names:
                if imported not in available:
                    errors.append("%s: imports %s, which %s does not export" %
                                  (module.path, imported, what))
                if not re.search(r"(?<![\w$.])%s(?![\w$])" %
                                 re.escape(local), body):
                    errors.append("%s: imports %s and never uses it" %
                                  (module.path, local))
        if module.id == PRIMORDIALS and module.requires:
            errors.append("%s: primordials take nothing" % module.path)
    imported = {(mid, name) for name, mid in contract["functions"]}
    for module in modules:
        for kind, mid, names in module.imports:
            if kind == "primordials":
                mid = PRIMORDIALS
            imported |= {(mid, name) for name, _ in names}
    for module in modules:
        if module.id == ENTRY:
            continue
        for name in module.exports:
            if (module.id, name) not in imported:
                errors.append("%s: exports %s, which nothing imports" %
                              (module.path, name))
    for name, mid in contract["functions"]:
        target = by_id.get(mid)
        if target is None or name not in target.exports:
            errors.append("ASYNCCTX_LAYER_FUNCTIONS: %s does not export %s" %
                          (mid, name))
    if errors:
        raise LinkError("\n".join(errors))

    # Depth-first from the roots; a module on the current path again is a
    # cycle.
    order, state = [], {}

    def visit(mid, path):
        if state.get(mid) == "done":
            return
        if state.get(mid) == "active":
            cycle = path[path.index(mid):] + [mid]
            raise LinkError("a cycle of requires: " + " -> ".join(cycle))
        state[mid] = "active"
        for dep in by_id[mid].requires:
            visit(dep, path + [mid])
        state[mid] = "done"
        order.append(by_id[mid])

    # The entry runs last: it reads the functions of the table from their
    # modules.
    visit(PRIMORDIALS, [])
    for _, mid in contract["functions"]:
        visit(mid, [])
    visit(ENTRY, [])
    unused = [m.path for m in modules if m.id not in state]
    if unused:
        raise LinkError("modules nothing requires: " + ", ".join(unused))
    return order


def empty_comment_lines(text):
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("//"):
            lines[i] = ""
    return lines


def generate(order):
    """The script, and [(module id, line offset)]."""
    # Line 1 is no code: V8 places an error thrown before any of the layer's
    # code runs there (src/runtime_impl.cc relies on it).
    lines = [
        "// The asyncctx JavaScript layer, linked by tools/js2c.py.",
        "'use strict';",
        "(function(binding) {",
        "const modules = {__proto__: null};",
        "const require = (id) => modules[id];",
    ]
    offsets = []
    for module in order:
        body = empty_comment_lines(module.source.rstrip("\n"))
        # The module's first line (its copyright comment) holds the opening
        # of its function, so its lines keep their numbers.
        offsets.append((module.id, len(lines)))
        params = "module" if module.id == PRIMORDIALS else \
            "module, primordials"
        args = "{__proto__: null, exports: undefined}"
        if module.id != PRIMORDIALS:
            args += ", modules['%s']" % PRIMORDIALS
        lines.append("modules['%s'] = (function(%s) {" % (module.id, params))
        lines.extend(body[1:])
        lines.append("return module.exports;")
        lines.append("})(%s);" % args)
    lines.append("return modules['%s'];" % ENTRY)
    lines.append("});")
    return "\n".join(lines) + "\n", offsets


def read_modules(paths):
    modules = []
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        data.decode("ascii")  # the JS layer is ASCII only
        source = data.decode("ascii")
        if not source.startswith("//"):
            raise LinkError("%s: the first line must be a comment" % path)
        modules.append(Module(path, source))
    return modules


def main(argv):
    if len(argv) < 6 or argv[1] != "--contract":
        sys.stderr.write(__doc__)
        return 2
    contract_path, out_path, name = argv[2], argv[3], argv[4]
    try:
        with open(contract_path) as f:
            contract = parse_contract(f.read())
        order = link(read_modules(argv[5:]), contract)
    except LinkError as e:
        sys.stderr.write("js2c.py: error: %s\n" % str(e).replace(
            "\n", "\njs2c.py: error: "))
        return 1
    script, offsets = generate(order)
    data = script.encode("ascii")
    ident = "k" + name + "Source"
    parts = ["// Generated by tools/js2c.py. Do not edit.\n//\n",
             "// Line offsets of the modules in the script:\n"]
    for mid, offset in offsets:
        parts.append("//   %-32s %d\n" % (mid, offset))
    parts += ['\n#include "src/js_sources.h"\n\n',
              "namespace asyncctx {\nnamespace internal {\n\n",
              "const char %s[] = {\n" % ident]
    for i in range(0, len(data), 20):
        parts.append("  " + ", ".join(str(b) for b in data[i:i + 20]) + ",\n")
    parts.append("  0};\n")
    parts.append("const size_t %sLength = %d;\n\n" % (ident, len(data)))
    parts.append("}  // namespace internal\n}  // namespace asyncctx\n")
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    with open(out_path, "w") as f:
        f.write("".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
