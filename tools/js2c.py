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
whose function takes the binding and returns the exports of
internal/install. A module runs once, when it is first required, after
the modules it requires: what Install runs is internal/install and what
its top level requires, nothing more. The entry alone may also name an
export of a module it does not import, as `require('internal/x').name`
inside a function: that module runs the first time the function does
(the installed APIs that are made on first use). Each module is a function
written at the script's top level (not inside the linker's function),
called once with only what it imports: `module`, and `primordials`,
`binding` and a `require` that reaches only the modules it requires, as it
needs them.
A module's body keeps its lines: line N of src/js/x.js is line (offset of
x) + N of the script, and the offsets are listed in the generated file.
There is no loader at run time beyond a table of the modules' exports and
of the functions that run them.

The build fails (exit code 1, one line per problem) on a cycle, a missing
module, an import of a name the other module does not export, an imported
name the module never uses (a use in a string or a comment is none), an
export nothing imports (or the entry names lazily), a module nothing
reaches, a name of binding/constants/strings that src/layer_contract.h
does not define, a module.exports without `__proto__: null` first, a use
of binding, primordials or require outside an import statement (only the
entry may call require with a computed id; a lazy `require('id').name`
must name a module that exists and one of its exports), and a name a
module reads that it neither imports nor declares: a global, which user
code can replace after install. Only internal/primordials reads globals (once, at install); other
modules may read only undefined, NaN, Infinity and arguments. The layer
functions C++ reads (ASYNCCTX_LAYER_FUNCTIONS in the contract) must each be
exported by the module the table names.

The checks read tokens (tokenize below: strings, template literals with
their ${} expressions, regular expressions, comments), and treat a module
as one scope: a name declared anywhere in it counts as declared.

Lines that hold only comments are emptied (every context compiles the
layer, and the comments are most of its text); line numbers are kept, and
so are lines inside a template literal.
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

KEYWORDS = frozenset("""
    await break case catch class const continue debugger default delete do
    else export extends false finally for function if import in instanceof
    let new null return super switch this throw true try typeof
    var void while with yield
""".split())

# Names a module may read without declaring them: values of the language
# that no script can replace (undefined, NaN and Infinity are non-writable,
# non-configurable properties of the global object), `arguments`, and
# `module`, the parameter through which a module gives its exports.
LANGUAGE_NAMES = frozenset(["undefined", "NaN", "Infinity", "arguments",
                            "module"])

PUNCTUATORS = sorted("""
    >>>= ... === !== **= <<= >>= >>> &&= ||= ??= => == != <= >= && || ?? ?.
    ++ -- += -= *= /= %= &= |= ^= << >> ** { } ( ) [ ] ; , < > + - * / % & |
    ^ ! ~ ? : = . @
""".split(), key=len, reverse=True)
_REGEX_AFTER_KEYWORDS = frozenset(
    "return typeof instanceof in of new delete void throw case do else yield "
    "await".split())


class Token:
    __slots__ = ("kind", "value", "start", "end")

    def __init__(self, kind, value, start, end):
        self.kind, self.value, self.start, self.end = kind, value, start, end

    def __repr__(self):
        return "%s(%r)" % (self.kind, self.value)


def tokenize(text):
    """The tokens of `text`: kinds ident, private, num, str (strings, regex
    literals and the literal parts of templates), punct and comment.

    A template's ${} expressions are tokenized as code. A `/` starts a
    regular expression where an expression may begin (after an operator,
    an opening bracket or a keyword such as `return`), and is a division
    after a name, a number, a literal or a closing bracket."""
    tokens, i, n = [], 0, len(text)
    braces = []  # "{" or "`" (the `}` that resumes a template)

    def error(what):
        line = text.count("\n", 0, i) + 1
        raise LinkError("line %d: %s" % (line, what))

    def template_part(i):
        # From inside a template literal to its end or to a `${`.
        start = i
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
            elif c == "`":
                tokens.append(Token("str", text[start:i + 1], start, i + 1))
                return i + 1
            elif text.startswith("${", i):
                tokens.append(Token("str", text[start:i + 2], start, i + 2))
                braces.append("`")
                return i + 2
            else:
                i += 1
        error("an unterminated template literal")

    def regex_allowed():
        for t in reversed(tokens):
            if t.kind == "comment":
                continue
            if t.kind == "punct":
                return t.value not in (")", "]", "}")
            if t.kind == "ident":
                return t.value in _REGEX_AFTER_KEYWORDS
            return False
        return True

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            tokens.append(Token("comment", text[i:end], i, end))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                error("an unterminated comment")
            tokens.append(Token("comment", text[i:end + 2], i, end + 2))
            i = end + 2
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\n":
                    error("an unterminated string")
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                error("an unterminated string")
            tokens.append(Token("str", text[i:j + 1], i, j + 1))
            i = j + 1
        elif c == "`":
            i = template_part(i + 1)
        elif c == "}" and braces and braces[-1] == "`":
            braces.pop()
            i = template_part(i + 1)
        elif c == "/" and regex_allowed():
            j, in_class = i + 1, False
            while j < n and (in_class or text[j] != "/"):
                if text[j] == "\n":
                    error("an unterminated regular expression")
                if text[j] == "\\":
                    j += 1
                elif text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            tokens.append(Token("str", text[i:j], i, j))
            i = j
        elif c.isalpha() or c in "_$#":
            m = re.compile(r"#?[A-Za-z_$][\w$]*").match(text, i)
            if not m:
                error("a stray %r" % c)
            kind = "private" if c == "#" else "ident"
            tokens.append(Token(kind, m.group(), i, m.end()))
            i = m.end()
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            m = re.compile(r"(?:0[xXoObB][\da-fA-F_]+|[\d_]*\.?[\d_]*"
                           r"(?:[eE][+-]?\d+)?)n?").match(text, i)
            tokens.append(Token("num", m.group(), i, m.end()))
            i = m.end()
        else:
            for p in PUNCTUATORS:
                if text.startswith(p, i):
                    # `a?.5:b` is a conditional, not an optional chain.
                    if p == "?." and i + 2 < n and text[i + 2].isdigit():
                        continue
                    break
            else:
                error("a stray %r" % c)
            if p == "{":
                braces.append("{")
            elif p == "}" and braces:
                braces.pop()
            tokens.append(Token("punct", p, i, i + len(p)))
            i += len(p)
    if braces:
        error("unbalanced braces")
    return tokens


def _matching(tokens, i):
    """The index of the bracket that closes tokens[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].kind != "punct":
            continue
        if tokens[j].value in pairs:
            depth += 1
        elif tokens[j].value in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise LinkError("unbalanced brackets")


def _skip_expression(tokens, i, stops):
    """From tokens[i], past one expression: to the first of `stops` outside
    brackets (or the end of the enclosing bracket)."""
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "punct":
            if t.value in stops:
                return i
            if t.value in ("(", "[", "{"):
                i = _matching(tokens, i) + 1
                continue
            if t.value in (")", "]", "}"):
                return i
        i += 1
    return i


def _pattern(tokens, i, names):
    """Adds the names a binding pattern at tokens[i] binds; returns the index
    after it (and after a default value)."""
    t = tokens[i]
    if t.kind == "ident":
        names.add(t.value)
        i += 1
    elif t.kind == "punct" and t.value == "[":
        end = _matching(tokens, i)
        i += 1
        while i < end:
            t = tokens[i]
            if t.kind == "punct" and t.value == ",":
                i += 1
                continue
            if t.kind == "punct" and t.value == "...":
                i += 1
            i = _pattern(tokens, i, names)
        i = end + 1
    elif t.kind == "punct" and t.value == "{":
        end = _matching(tokens, i)
        i += 1
        while i < end:
            t = tokens[i]
            if t.kind == "punct" and t.value == ",":
                i += 1
                continue
            if t.kind == "punct" and t.value == "...":
                i = _pattern(tokens, i + 1, names)
                continue
            if t.kind == "punct" and t.value == "[":
                i = _matching(tokens, i) + 1  # a computed key
            elif (i + 1 < end and tokens[i + 1].kind == "punct" and
                  tokens[i + 1].value == ":"):
                i += 1
            else:
                i = _pattern(tokens, i, names)  # shorthand
                continue
            if tokens[i].kind == "punct" and tokens[i].value == ":":
                i = _pattern(tokens, i + 1, names)
        i = end + 1
    else:
        raise LinkError("cannot read the binding at %r" % t.value)
    if i < len(tokens) and tokens[i].kind == "punct" and tokens[i].value == "=":
        i = _skip_expression(tokens, i + 1, (",", ";"))
    return i


def _parameters(tokens, open_paren, names):
    end = _matching(tokens, open_paren)
    i = open_paren + 1
    while i < end:
        t = tokens[i]
        if t.kind == "punct" and t.value in (",", "..."):
            i += 1
            continue
        i = _pattern(tokens, i, names)
    return end


def analyze(tokens):
    """(declared names, referenced names) of a module's code tokens.

    The module is read as one scope: a name declared anywhere in it (a
    variable, function, class, parameter or catch binding) counts as
    declared everywhere. A reference is a name read as a variable: not a
    property after `.` or `?.`, not an object key or a method's name."""
    code = [t for t in tokens if t.kind != "comment"]
    declared, refs = set(), []
    n = len(code)

    def punct(k, *values):
        return 0 <= k < n and code[k].kind == "punct" and \
            code[k].value in values

    def ident(k, *values):
        return 0 <= k < n and code[k].kind == "ident" and \
            (not values or code[k].value in values)

    for k, t in enumerate(code):
        if t.kind == "ident" and t.value in ("const", "let", "var"):
            j = k + 1
            while True:
                j = _pattern(code, j, declared)
                if not punct(j, ","):
                    break
                j += 1
        elif ident(k, "function", "class"):
            j = k + 1
            if punct(j, "*"):
                j += 1
            if ident(j) and code[j].value not in ("extends",):
                declared.add(code[j].value)
                j += 1
            if t.value == "function" and punct(j, "("):
                _parameters(code, j, declared)
        elif ident(k, "catch") and punct(k + 1, "("):
            _parameters(code, k + 1, declared)
        elif punct(k, "=>"):
            if ident(k - 1):
                declared.add(code[k - 1].value)
            elif punct(k - 1, ")"):
                depth, j = 0, k - 1
                while j >= 0:
                    if punct(j, ")", "]", "}"):
                        depth += 1
                    elif punct(j, "(", "[", "{"):
                        depth -= 1
                        if depth == 0:
                            break
                    j -= 1
                _parameters(code, j, declared)
        elif (t.kind == "ident" and t.value not in KEYWORDS and
              punct(k + 1, "(") and not ident(k - 1, "function") and
              not punct(k - 1, ".", "?.") and
              punct(_matching(code, k + 1) + 1, "{")):
            # A method: `name(parameters) {`.
            _parameters(code, k + 1, declared)
            continue

    def contextual(k):
        """Whether code[k] is a contextual keyword where it stands."""
        v = code[k].value
        if v in ("get", "set", "static", "async"):
            if ident(k + 1) or punct(k + 1, "[", "*", "{") or \
                    (k + 1 < n and code[k + 1].kind == "private"):
                return True
            return v == "async" and punct(k + 1, "(") and \
                punct(_matching(code, k + 1) + 1, "=>")
        if v == "of":  # for (const x of xs)
            return ident(k - 1) or punct(k - 1, "]", "}")
        return False

    for k, t in enumerate(code):
        if t.kind != "ident" or t.value in KEYWORDS or contextual(k):
            continue
        if punct(k - 1, ".", "?."):
            continue  # a property
        if punct(k + 1, ":") and punct(k - 1, "{", ","):
            continue  # a key
        if (punct(k + 1, "(") and not ident(k - 1, "function") and
                punct(_matching(code, k + 1) + 1, "{")):
            continue  # a method's name
        refs.append(t)
    return declared, refs


def install_time(tokens):
    """The starts of the tokens that run once, when the module runs: at the
    top level (outside braces), in a statement before any `=>`."""
    starts, depth, arrow = set(), 0, False
    for t in tokens:
        if t.kind == "punct":
            if t.value in ("{", "}"):
                depth += 1 if t.value == "{" else -1
            elif t.value == "=>":
                arrow = True
            elif t.value == ";" and depth == 0:
                arrow = False
        elif depth == 0 and not arrow:
            starts.add(t.start)
    return starts


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
        self.tokens = tokenize(source)
        code_starts = {t.start for t in self.tokens if t.kind == "ident"}
        # (source, module id or None, [(imported, local)]); the statements
        # are at the top level: at the start of a line, not in a comment or
        # a string.
        self.imports = []
        spans = []
        for m in IMPORT_RE.finditer(source):
            if m.start() not in code_starts:
                continue
            kind = "require" if m.group(3) else m.group(2)
            self.imports.append((kind, m.group(3), parse_import_names(
                m.group(1))))
            spans.append((m.start(), m.end()))
        found = [m for m in EXPORTS_RE.finditer(source)
                 if m.start() in code_starts]
        if len(found) > 1:
            raise LinkError("%s: more than one module.exports" % path)
        self.exports = parse_export_names(found[0].group(1)) if found else []
        self.null_prototype_exports = bool(found) and re.match(
            r"\s*__proto__\s*:\s*null\s*,", strip_comments(found[0].group(1)))
        self.requires = [mid for kind, mid, _ in self.imports
                         if kind == "require"]
        if any(kind == "primordials" for kind, _, _ in self.imports):
            self.requires.append(PRIMORDIALS)
        self.declared, refs = analyze(self.tokens)

        def in_import(t):
            return any(a <= t.start < b for a, b in spans)

        # The names the module reads outside its import statements.
        self.references = [t for t in refs if not in_import(t)]
        # The entry's `require('internal/x').name` outside its import
        # statements: (module id, name, token), made on first use.
        self.lazy_imports = []
        if self.id == ENTRY:
            code = [t for t in self.tokens if t.kind != "comment"]
            for k in range(len(code) - 5):
                t = code[k]
                if (t.kind == "ident" and t.value == "require" and
                        not in_import(t) and
                        [x.value for x in (code[k + 1], code[k + 3],
                                           code[k + 4])] == ["(", ")", "."]
                        and code[k + 2].kind == "str" and
                        code[k + 5].kind == "ident"):
                    self.lazy_imports.append((code[k + 2].value[1:-1],
                                              code[k + 5].value, t))
        self.params = ["module"]
        if any(kind == "primordials" for kind, _, _ in self.imports):
            self.params.append("primordials")
        if any(kind == "binding" for kind, _, _ in self.imports):
            self.params.append("binding")
        if any(kind == "require" for kind, _, _ in self.imports) or \
                self.id == ENTRY:
            self.params.append("require")

    def line_of(self, token):
        return self.source.count("\n", 0, token.start) + 1


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
        # Everything a module takes is in its import statements: any other
        # name it reads is declared in it or is a name of the language.
        # Only internal/primordials reads globals (once, at install).
        imported_locals = {local for _, _, names in module.imports
                           for _, local in names}
        known = module.declared | imported_locals | LANGUAGE_NAMES
        reported = set()
        at_install = install_time(module.tokens)
        for t in module.references:
            if t.value in known or t.value in reported:
                continue
            if t.value == "require" and module.id == ENTRY:
                continue
            if t.value in ("binding", "primordials", "require"):
                errors.append("%s:%d: uses %s outside an import statement" %
                              (module.path, module.line_of(t), t.value))
            elif module.id == PRIMORDIALS:
                if t.start not in at_install:
                    errors.append(
                        "%s:%d: reads the global %s after install (capture "
                        "it in a top-level const)" %
                        (module.path, module.line_of(t), t.value))
            else:
                errors.append(
                    "%s:%d: reads %s, which it neither imports nor declares "
                    "(a global that user code can replace)" %
                    (module.path, module.line_of(t), t.value))
            reported.add(t.value)
        used = {t.value for t in module.references}
        for kind, _, _ in module.imports:
            if kind in ("constants", "strings"):
                used.add(kind)  # read by its own import statement
                if kind not in imported_locals:
                    errors.append("%s: reads %s without importing it from "
                                  "binding" % (module.path, kind))
        if module.exports and not module.null_prototype_exports:
            errors.append("%s: module.exports must begin with "
                          "`__proto__: null`" % module.path)
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
                if local not in used:
                    errors.append("%s: imports %s and never uses it" %
                                  (module.path, local))
        if module.id == PRIMORDIALS and module.requires:
            errors.append("%s: primordials take nothing" % module.path)
    for module in modules:
        module.reachable = [mid for _, mid in contract["functions"]] + \
            [mid for mid, _, _ in module.lazy_imports] \
            if module.id == ENTRY else []
        for mid, name, t in module.lazy_imports:
            target = by_id.get(mid)
            if target is None:
                errors.append("%s:%d: requires %s, which does not exist" %
                              (module.path, module.line_of(t), mid))
            elif name not in target.exports:
                errors.append("%s:%d: reads %s of %s, which it does not "
                              "export" % (module.path, module.line_of(t),
                                          name, mid))
    imported = {(mid, name) for name, mid in contract["functions"]}
    for module in modules:
        imported |= {(mid, name) for mid, name, _ in module.lazy_imports}
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

    # The entry comes last: it reads the functions of the table from their
    # modules, and names the modules made on first use.
    visit(PRIMORDIALS, [])
    for _, mid in contract["functions"]:
        visit(mid, [])
    for mid, _, _ in by_id[ENTRY].lazy_imports:
        visit(mid, [])
    visit(ENTRY, [])
    unused = [m.path for m in modules if m.id not in state]
    if unused:
        raise LinkError("modules nothing requires: " + ", ".join(unused))
    return order


def empty_comment_lines(module):
    """The module's lines, with each line that holds only comments (outside
    any string or template literal) emptied."""
    lines = module.source.rstrip("\n").split("\n")
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1

    def lines_of(tokens):
        found, line = set(), 0
        for t in tokens:
            while line + 1 < len(starts) and starts[line + 1] <= t.start:
                line += 1
            last = line
            while last + 1 < len(starts) and starts[last + 1] < t.end:
                last += 1
            found.update(range(line, last + 1))
        return found

    # A line is kept if any code is on it, or inside a token of code that
    # spans lines (a template literal).
    keep = lines_of(t for t in module.tokens if t.kind != "comment")
    comment_lines = lines_of(t for t in module.tokens if t.kind == "comment")
    return [("" if i in comment_lines and i not in keep else text)
            for i, text in enumerate(lines)]


def generate(order):
    """The script, and [(module id, line offset)].

    The script is `((makeModule) => function(binding) {...})((function() {
    switch (arguments[0]) { case 0: return (function(...) {...}); ... }
    }))`:
    each module is a function written inside a function that declares no
    name, so its only scope is its own parameters, named by what it imports
    (module, primordials, binding, require); the linker's table of modules
    and the binding are not in its scope. A module's function is made
    (makeModule(index)) only when the module runs: V8 gives each function it
    makes a cell per function literal inside it, so a context pays nothing
    for the modules it never runs. Each module gets a `require` that reaches
    only the modules it imports (the entry's also reaches the modules of
    ASYNCCTX_LAYER_FUNCTIONS, through the ids the binding lists, and the
    modules it names lazily). A module runs at its first `require`, and its
    exports are kept; one whose function threw runs again at the next (its
    exports never escaped)."""
    # Line 1 is no code: V8 places an error thrown before any of the layer's
    # code runs there (src/runtime_impl.cc relies on it).
    lines = [
        "// The asyncctx JavaScript layer, linked by tools/js2c.py.",
        "'use strict';",
        "((makeModule) => function(binding) {",
        "const modules = {__proto__: null};",
        "const loaders = {__proto__: null};",
        "const load = (id) => {",
        "  const loaded = modules[id];",
        "  return loaded !== undefined ? loaded : (modules[id] = loaders[id]());",
        "};",
        "const requireOf = (table) => (id) =>",
        "  (table[id] === true ? load(id) : undefined);",
    ]
    for index, module in enumerate(order):
        args = []
        for param in module.params:
            if param == "module":
                args.append("{__proto__: null, exports: undefined}")
            elif param == "primordials":
                args.append("load('%s')" % PRIMORDIALS)
            elif param == "binding":
                args.append("binding")
            else:
                ids = sorted(set(module.requires) - {PRIMORDIALS} |
                             set(module.reachable))
                args.append("requireOf({__proto__: null%s})" % "".join(
                    ", '%s': true" % mid for mid in ids))
        lines.append("loaders['%s'] = () => makeModule(%d)(%s);" % (
            module.id, index, ", ".join(args)))
    lines.append("return load('%s');" % ENTRY)
    # `arguments`, not a parameter: the modules' functions have their own.
    lines.append("})((function() {")
    lines.append("switch (arguments[0]) {")
    offsets = []
    for index, module in enumerate(order):
        body = empty_comment_lines(module)
        # The module's first line (its copyright comment) holds the opening
        # of its function, so its lines keep their numbers.
        offsets.append((module.id, len(lines)))
        # In parentheses: V8 compiles it eagerly (with the script, so that
        # the code cache holds it too, whether or not Install runs it).
        lines.append("case %d: return (function(%s) {" % (
            index, ", ".join(module.params)))
        lines.extend(body[1:])
        lines.append("return module.exports;")
        lines.append("});")
    lines.append("}")
    lines.append("}));")
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
