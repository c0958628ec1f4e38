#!/usr/bin/env python3
"""Runs OpenTelemetry's context managers in the shell, as a user would.

    test/js/shell/opentelemetry/check.py [--shell out/Default/asyncctx_shell]

Installs pinned versions of @opentelemetry/api and
@opentelemetry/context-async-hooks (and esbuild, and the npm `events`
package for the `require("events")` they make) with npm into
out/opentelemetry/, bundles them into one ES module whose only external
import is `node:async_hooks` (resolved by the shell to asyncctx's module),
then runs context_managers.mjs against the bundle. Nothing generated is
committed. Without network access npm fails and the check prints
`skip` and exits 0.

The package's CommonJS build calls `require("async_hooks")`; in an ES module
bundle esbuild turns that into a call of whatever `require` is in scope, so
the bundle's banner imports node:async_hooks and defines a `require` that
returns it. The import is a real one: the shell resolves it with
asyncctx::GetAsyncHooksModule().

Prints `ok`, `not ok` (with the difference) or `skip` (loudly: why, on
stdout and stderr), then `N passed, N failed` and, for a skip, `1 skipped`;
exits 1 on `not ok`. tools/test runs it as the suite "opentelemetry".
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from npm_install import npm_install, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(ROOT, "out", "opentelemetry")
PACKAGES = [
    "@opentelemetry/api@1.9.1",
    "@opentelemetry/context-async-hooks@2.12.1",
    "esbuild@0.28.2",
    "events@3.3.0",
]
BANNER = ("import __asyncHooks from 'node:async_hooks'; "
          "const require = (id) => { "
          "if (id === 'async_hooks' || id === 'node:async_hooks') "
          "return __asyncHooks; "
          "throw new Error('Cannot require ' + id); };")
ENTRY = """\
export { AsyncHooksContextManager, AsyncLocalStorageContextManager }
    from '@opentelemetry/context-async-hooks';
export { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
"""
EXPECTED = [
    "AsyncLocalStorageContextManager a,b a:await=a a:thenable=a a:timer=a "
    "b:await=b b:thenable=b b:timer=b outside=undefined",
    "AsyncHooksContextManager a,b a:await=a a:thenable=a a:timer=a "
    "b:await=b b:thenable=b b:timer=b outside=undefined",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shell", default=os.path.join(
        ROOT, "out", "Default", "asyncctx_shell"))
    shell = os.path.abspath(parser.parse_args().shell)

    esbuild = os.path.join(WORK, "node_modules", ".bin", "esbuild")
    why = npm_install(WORK, PACKAGES, [esbuild])
    if why:
        skip(why)
        print("0 passed, 0 failed")
        return None
    with open(os.path.join(WORK, "entry.mjs"), "w") as f:
        f.write(ENTRY)
    bundle = os.path.join(WORK, "otel.bundle.mjs")
    result = run([esbuild, "entry.mjs", "--bundle", "--format=esm",
                  "--platform=neutral", "--main-fields=module,main",
                  "--external:async_hooks", "--outfile=" + bundle,
                  "--log-level=warning", "--banner:js=" + BANNER], WORK)
    if result.returncode != 0:
        print("not ok - opentelemetry: esbuild failed\n" + result.stderr)
        print("0 passed, 1 failed")
        return 1
    test = os.path.join(WORK, "context_managers.mjs")
    shutil.copyfile(os.path.join(HERE, "context_managers.mjs"), test)
    result = run([shell, test], WORK, timeout=60)
    lines = result.stdout.splitlines()
    if result.returncode != 0 or lines != EXPECTED:
        print("not ok - opentelemetry: exit %d\nexpected:\n  %s\ngot:\n  %s\n%s"
              % (result.returncode, "\n  ".join(EXPECTED),
                 "\n  ".join(lines), result.stderr))
        print("0 passed, 1 failed")
        return 1
    print("ok - opentelemetry: both context managers keep each request's "
          "context")
    print("1 passed, 0 failed")
    return 0


def skip(why):
    # Loud: the suite line of tools/test notes it, and stderr says why.
    print("skip - opentelemetry: " + why)
    sys.stderr.write("check.py: SKIPPED, not run: %s\n" % why)
    print("1 skipped")
    return 0


if __name__ == "__main__":
    rc = main()
    if rc is None:
        rc = 0
    sys.exit(rc)
