#!/usr/bin/env python3
"""Runs asyncctx's JavaScript tests in the shell.

    test/js/run_tests.py [--shell PATH | --node PATH] [--filter SUBSTR]
                         [-j N] [FILE...]

Two kinds of files, found anywhere under test/js/:

  *_test.js    Named cases using test/js/harness.js. Run as
               `asyncctx_shell test/js/harness.js FILE`; every `ok - NAME`
               line is a pass, every `not ok - NAME: ...` a failure. A file
               that crashes, times out, exits non-zero or never prints
               `# done` counts as one more failure, named after the file.

  *_expect.js  One case each (*_expect.mjs: an ES module), run alone (no
               harness) to check what the shell itself does: exit codes,
               uncaught errors, stderr. Header comments at the top of the
               file say what to expect:
                   // expect-exit: 1            (default 0)
                   // expect-stderr: REGEX      (Python regex; may repeat)
                   // expect-stdout: REGEX      (may repeat)
                   // args: --expose-gc         (shell flags before the file)
                   // expect-max-rss-mb: 100    (peak resident memory; not
                                                checked under a sanitizer or
                                                ASYNCCTX_SHELL_PREFIX)

--node PATH runs the given *_test.js files in real Node.js instead
(test/js/node_host.js: harness.js and the file as two scripts, as the
shell runs them), for the files written to pass in both; tools/test runs
test/js/lib/diagnostics_channel_test.js so under Node 24.

Any sanitizer report in a file's output fails it, whatever its exit code.
Files run as separate processes, two at a time, each with a 60 s timeout.
ASYNCCTX_SHELL_PREFIX (e.g. "valgrind -q") is put in front of the shell.
The last line printed is `N passed, N failed`; the exit code is 1 if
anything failed.
"""

import argparse
import atexit
import concurrent.futures
import os
import re
import shlex
import signal
import subprocess
import tempfile
import sys
import threading
import time

TEST_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TEST_DIR))
HARNESS = os.path.join(TEST_DIR, "harness.js")
DEFAULT_SHELL = os.path.join(ROOT, "out", "Default", "asyncctx_shell")

SANITIZER_REPORT = re.compile(
    r"ERROR: (Address|Leak|Thread|Memory|UndefinedBehavior)Sanitizer"
    r"|WARNING: ThreadSanitizer"
    r"|SUMMARY: \w*Sanitizer"
    r"|^\S+:\d+:\d+: runtime error: ", re.MULTILINE)

DIRECTIVE = re.compile(r"^//\s*([a-z-]+)\s*:\s?(.*?)\s*$")
KNOWN_DIRECTIVES = ("expect-exit", "expect-stderr", "expect-stdout", "args",
                    "expect-max-rss-mb")

# Whether the shell under test measures its own memory truthfully: not under
# a sanitizer (shadow memory, quarantine) or a prefix such as valgrind. Set
# by main().
RSS_MEANINGFUL = [True]


class Result:
    def __init__(self, path):
        self.path = path
        self.passed = []        # case names
        self.failed = []        # (case name, detail)
        self.skipped = []
        self.seconds = 0.0
        self.output = ""


def rel(path):
    return os.path.relpath(path, ROOT)


def discover(paths, filter_text):
    if paths:
        files = [os.path.abspath(p) for p in paths]
    else:
        files = []
        for dirpath, dirnames, filenames in os.walk(TEST_DIR):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(("_test.js", "_expect.js", "_expect.mjs")):
                    files.append(os.path.join(dirpath, name))
    if filter_text:
        files = [f for f in files if filter_text in rel(f)]
    return files


def run_process(cmd, timeout, usage=None):
    """Returns (returncode or None on timeout, stdout, stderr, seconds).

    When `usage` is a dict, usage["max_rss_kb"] receives the process's peak
    resident set size (wait4's ru_maxrss, in KiB on Linux)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    chunks = {"out": b"", "err": b""}

    def read(name, stream):
        chunks[name] = stream.read()

    readers = [threading.Thread(target=read, args=("out", proc.stdout)),
               threading.Thread(target=read, args=("err", proc.stderr))]
    for reader in readers:
        reader.start()
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    # wait4, not Popen.wait: it also gives this child's own peak RSS.
    _, status, rusage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if not timed_out.is_set():
        # The shell is gone; a grandchild holding the pipes must not hang us.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for reader in readers:
        reader.join()
    proc.stdout.close()
    proc.stderr.close()
    if usage is not None:
        usage["max_rss_kb"] = rusage.ru_maxrss
    rc = None if timed_out.is_set() else proc.returncode
    return (rc, chunks["out"].decode("utf-8", "replace"),
            chunks["err"].decode("utf-8", "replace"),
            time.monotonic() - start)


def describe_exit(rc, timeout):
    if rc is None:
        return "timed out after %d s" % timeout
    if rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit code %d" % rc


def tail(text, lines=25):
    rows = text.rstrip("\n").splitlines()
    if not rows:
        return ""
    if len(rows) > lines:
        rows = ["... (%d lines before)" % (len(rows) - lines)] + rows[-lines:]
    return "\n".join(rows)


def indent(text, prefix="    "):
    return "\n".join(prefix + line for line in text.splitlines())


def process_output(stdout, stderr):
    parts = []
    if stderr.strip():
        parts.append("stderr:\n" + indent(tail(stderr)))
    if stdout.strip():
        parts.append("stdout:\n" + indent(tail(stdout)))
    return "\n".join(parts)


# A script run before harness.js (and before each *_expect.js) that declares `const V8_VERSION = [major,
# minor]`, the V8 of the shell under test (from `asyncctx_shell --version`),
# for the cases whose expected result differs by V8 generation (a global
# lexical binding: no property of globalThis). Set by main().
V8_PRELUDE = []


def is_sanitized(shell):
    """True if the shell binary was built with a sanitizer runtime."""
    with open(shell, "rb") as f:
        data = f.read()
    return any(marker in data for marker in
               (b"__asan_init", b"__tsan_init", b"__msan_init"))


def write_v8_prelude(shell_cmd):
    p = subprocess.run(shell_cmd + ["--version"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"^V8 (\d+)\.(\d+)", p.stdout, re.MULTILINE)
    if not m:
        return []
    fd, path = tempfile.mkstemp(prefix="asyncctx-v8-", suffix=".js")
    with os.fdopen(fd, "w") as f:
        f.write("// The V8 of the shell under test (test/js/run_tests.py).\n"
                "const V8_VERSION = Object.freeze([%s, %s]);\n" % m.groups())
    atexit.register(os.remove, path)
    return [path]


def run_test_file(path, shell_cmd, timeout):
    result = Result(path)
    cmd = shell_cmd + V8_PRELUDE + [rel(HARNESS), rel(path)]
    rc, out, err, result.seconds = run_process(cmd, timeout)
    result.output = out + err

    done = False
    current = None  # the failure whose stack lines follow
    for line in out.splitlines():
        if line.startswith("ok - "):
            current = None
            name = line[len("ok - "):]
            if name.endswith(" # SKIP"):
                result.skipped.append(name[:-len(" # SKIP")])
            else:
                result.passed.append(name)
        elif line.startswith("not ok - "):
            rest = line[len("not ok - "):]
            name, _, message = rest.partition(": ")
            current = [name, message]
            result.failed.append(current)
        elif line.startswith("# done"):
            done = True
            current = None
        elif current is not None and line[:1] in (" ", "\t"):
            current[1] += "\n" + line

    problems = []
    if rc != 0:
        problems.append(describe_exit(rc, timeout))
    if not done and rc == 0:
        problems.append("no '# done' line (did the event loop stop early?)")
    if done and rc == 0 and not (result.passed or result.failed or
                                 result.skipped):
        problems.append("no test cases")
    if SANITIZER_REPORT.search(result.output):
        problems.append("sanitizer report")
    if problems:
        ran = len(result.passed) + len(result.failed)
        detail = "; ".join(problems)
        if not done:
            detail += " after %d case%s" % (ran, "" if ran == 1 else "s")
            if ran:
                last = (result.passed + [f[0] for f in result.failed])[-1]
                detail += " (last reported: %s)" % last
        output = process_output(out, err)
        if output:
            detail += "\n" + output
        result.failed.append([None, detail])
    return result


def parse_expectations(path):
    expect = {"exit": 0, "stderr": [], "stdout": [], "args": []}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if not line.startswith("//"):
                break
            m = DIRECTIVE.match(line)
            if not m:
                continue
            key, value = m.groups()
            if key not in KNOWN_DIRECTIVES:
                if key.startswith("expect"):
                    raise ValueError("unknown directive '// %s:'" % key)
                continue
            if key == "expect-exit":
                expect["exit"] = int(value)
            elif key == "expect-stderr":
                expect["stderr"].append(re.compile(value, re.MULTILINE))
            elif key == "expect-stdout":
                expect["stdout"].append(re.compile(value, re.MULTILINE))
            elif key == "args":
                expect["args"] += shlex.split(value)
            elif key == "expect-max-rss-mb":
                expect["max_rss_mb"] = float(value)
    return expect


def run_expect_file(path, shell_cmd, timeout):
    result = Result(path)
    name = os.path.basename(path)
    try:
        expect = parse_expectations(path)
    except (ValueError, re.error) as e:
        result.failed.append([None, "bad header: %s" % e])
        return result
    cmd = shell_cmd + expect["args"] + V8_PRELUDE + [rel(path)]
    usage = {}
    rc, out, err, result.seconds = run_process(cmd, timeout, usage)
    result.output = out + err
    problems = []
    max_rss_mb = expect.get("max_rss_mb")
    if (max_rss_mb is not None and RSS_MEANINGFUL[0] and
            "max_rss_kb" in usage):
        rss_mb = usage["max_rss_kb"] / 1024.0
        if rss_mb > max_rss_mb:
            problems.append("peak RSS %.1f MB, expected at most %g MB" % (
                rss_mb, max_rss_mb))
    if rc != expect["exit"]:
        problems.append("%s, expected exit code %d" % (
            describe_exit(rc, timeout), expect["exit"]))
    for regex in expect["stderr"]:
        if not regex.search(err):
            problems.append("stderr does not match /%s/" % regex.pattern)
    for regex in expect["stdout"]:
        if not regex.search(out):
            problems.append("stdout does not match /%s/" % regex.pattern)
    if SANITIZER_REPORT.search(result.output):
        problems.append("sanitizer report")
    if problems:
        detail = "; ".join(problems)
        output = process_output(out, err)
        if output:
            detail += "\n" + output
        result.failed.append([None, detail])
    else:
        result.passed.append(name)
    return result


def run_file(path, shell_cmd, timeout):
    if path.endswith(("_expect.js", "_expect.mjs")):
        return run_expect_file(path, shell_cmd, timeout)
    return run_test_file(path, shell_cmd, timeout)


def display_name(path, case):
    """A failure is named after its case, or after the file (case None)."""
    return rel(path) if case is None else "%s: %s" % (rel(path), case)


def report_file(result, verbose):
    cases = len(result.passed) + len(result.failed)
    status = "FAIL" if result.failed else "ok  "
    extra = ""
    if result.failed:
        extra = ", %d failed" % len(result.failed)
    if result.skipped:
        extra += ", %d skipped" % len(result.skipped)
    lines = ["%s %s (%d case%s%s, %.1f s)" % (
        status, rel(result.path), cases, "" if cases == 1 else "s", extra,
        result.seconds)]
    for name, detail in result.failed:
        head, _, rest = detail.partition("\n")
        lines.append("  not ok - %s: %s" % (display_name(result.path, name),
                                             head))
        if rest:
            lines.append(indent(rest, "  "))
    if verbose and result.output.strip():
        lines.append(indent(result.output.rstrip("\n"), "  | "))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        prog="test/js/run_tests.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*",
                        help="test files to run (default: all under test/js)")
    parser.add_argument("--shell", default=DEFAULT_SHELL,
                        help="the shell binary (default: out/Default/"
                             "asyncctx_shell)")
    parser.add_argument("--node", default=None,
                        help="run the *_test.js FILEs in this node binary "
                             "(test/js/node_host.js) instead of the shell")
    parser.add_argument("--filter", default="",
                        help="only files whose path contains SUBSTR")
    parser.add_argument("-j", "--jobs", type=int, default=2,
                        help="files run in parallel (default 2)")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds per file (default 60)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every file's full output")
    args = parser.parse_args()

    shell = os.path.abspath(args.node or args.shell)
    if args.node and not args.files:
        print("error: --node needs the test files to run (only some are "
              "written for Node)")
        print("0 passed, 1 failed")
        return 1
    if not os.access(shell, os.X_OK):
        print("error: shell not found or not executable: %s (build it with "
              "`ninja -C out/Default asyncctx_shell`)" % args.shell)
        print("0 passed, 1 failed")
        return 1
    shell_cmd = shlex.split(os.environ.get("ASYNCCTX_SHELL_PREFIX", "")) + \
        [shell]
    if args.node:
        shell_cmd = [shell, os.path.join(TEST_DIR, "node_host.js")]
    V8_PRELUDE[:] = write_v8_prelude(shell_cmd)
    RSS_MEANINGFUL[0] = (not os.environ.get("ASYNCCTX_SHELL_PREFIX") and
                         not is_sanitized(shell))

    files = discover(args.files, args.filter)
    if not files:
        print("no test files%s" % (" match --filter %r" % args.filter
                                   if args.filter else ""))

    lock = threading.Lock()
    results = []

    def job(path):
        result = run_file(path, shell_cmd, args.timeout)
        with lock:
            print(report_file(result, args.verbose), flush=True)
            results.append(result)

    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for future in [pool.submit(job, f) for f in files]:
            future.result()

    passed = sum(len(r.passed) for r in results)
    failed = sum(len(r.failed) for r in results)
    skipped = sum(len(r.skipped) for r in results)
    if failed:
        print("\nFailures:")
        for r in sorted(results, key=lambda r: r.path):
            for name, _ in r.failed:
                print("  " + display_name(r.path, name))
    if skipped:
        print("%d skipped" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
