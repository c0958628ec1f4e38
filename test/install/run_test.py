#!/usr/bin/env python3
"""Installs asyncctx into a scratch prefix and builds programs against it.

    test/install/run_test.py [--out out/Default] [--work out/install-test]
                             [--no-build]

Steps, each printed as `ok - NAME` or `not ok - NAME: why`:

  install                   tools/install --prefix WORK/prefix (which builds
                              the libraries first unless --no-build)
  headers                   each installed header compiles on its own
  cmake (shared)            test/install/CMakeLists.txt with find_package(),
  cmake (static)              linking asyncctx::asyncctx / _static; the
                              program runs and prints what consumer.cc expects
  pkg-config (shared)       test/install/Makefile with asyncctx.pc /
  pkg-config (static)         asyncctx-static.pc; same check
  cmake (relocated prefix)  the installed tree moved elsewhere still works

The shared builds must load the installed libasyncctx.so; the static ones must
not need it. Ends with `N passed, N failed`; exits 1 if anything failed. The
work directory is kept for inspection and wiped at the next run.
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys

TEST_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(TEST_DIR))
TIMEOUT_S = 300

EXPECTED_OUTPUT = """\
asyncctx {version}
AsyncContext global: undefined
startTask(1): ERR_INVALID_ARG_TYPE
store after await: request-7
native key in host callback: 42
store read from C++: request-7
store in MakeCallback: request-7
native key outside: unset
"""


class Failure(Exception):
    pass


def run(cmd, env=None, cwd=ROOT):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=TIMEOUT_S)
    output = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        raise Failure("`%s` failed (exit %d):\n%s" % (
            " ".join(cmd), p.returncode, output.rstrip()))
    return output


def library_version():
    with open(os.path.join(ROOT, "include", "asyncctx", "version.h")) as f:
        return re.search(r'ASYNCCTX_VERSION_STRING "([^"]+)"',
                         f.read()).group(1)


def needed_libraries(binary):
    output = run(["readelf", "--dynamic", binary])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", output)


def check_program(binary, prefix, shared):
    """Runs the consumer and checks its output and how it links asyncctx."""
    expected = EXPECTED_OUTPUT.format(version=library_version())
    # No LD_LIBRARY_PATH: the packages' rpaths must be enough.
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    output = run([binary], env=env)
    if output != expected:
        raise Failure("output:\n%s\nexpected:\n%s" % (output, expected))
    needed = needed_libraries(binary)
    if shared:
        if "libasyncctx.so" not in needed:
            raise Failure("does not link libasyncctx.so (NEEDED: %s)" %
                          ", ".join(needed))
        # The loader must pick the installed copy, not the build's.
        ldd = run(["ldd", binary], env=env)
        where = re.search(r"libasyncctx\.so => (\S+)", ldd)
        installed = os.path.join(prefix, "lib", "libasyncctx.so")
        if not where or os.path.realpath(where.group(1)) != \
                os.path.realpath(installed):
            raise Failure("loads %s, not %s" % (
                where.group(1) if where else "no libasyncctx.so", installed))
    elif "libasyncctx.so" in needed:
        raise Failure("links libasyncctx.so although it asked for the static "
                      "library")


def step_install(ctx):
    run([os.path.join(ROOT, "tools", "install"), "--prefix", ctx.prefix,
         "--out", ctx.out] + (["--no-build"] if ctx.no_build else []))
    for path in ["include/asyncctx/asyncctx.h", "lib/libasyncctx.a",
                 "lib/libasyncctx.so", "lib/pkgconfig/asyncctx.pc",
                 "lib/pkgconfig/asyncctx-static.pc",
                 "lib/cmake/asyncctx/asyncctxConfig.cmake",
                 "lib/cmake/asyncctx/asyncctxConfigVersion.cmake"]:
        if not os.path.isfile(os.path.join(ctx.prefix, path)):
            raise Failure("%s was not installed" % path)
    # The installed shared library must export the public API.
    symbols = run(["nm", "--dynamic", "--defined-only", "--demangle",
                   os.path.join(ctx.prefix, "lib", "libasyncctx.so")])
    for name in ["asyncctx::Runtime::Create", "asyncctx::AsyncResource::"
                 "AsyncResource", "asyncctx::CallbackScope::CallbackScope",
                 "asyncctx::ContextKey::FromJavaScript",
                 "asyncctx::MakeCallback"]:
        if name not in symbols:
            raise Failure("libasyncctx.so does not export %s (public "
                          "declarations need default visibility; the build "
                          "uses -fvisibility=hidden)" % name)


def pkg_config_env(ctx, prefix=None):
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.join(prefix or ctx.prefix, "lib",
                                          "pkgconfig")
    return env


def step_headers(ctx):
    cflags = run(["pkg-config", "--cflags", "asyncctx"],
                 env=pkg_config_env(ctx)).split()
    for header in sorted(glob.glob(os.path.join(ctx.prefix, "include",
                                                "asyncctx", "*.h"))):
        run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
             "-Werror", "-x", "c++"] + cflags + [header])


def cmake_build(ctx, name, prefix, static):
    build = os.path.join(ctx.work, name)
    run(["cmake", "-S", TEST_DIR, "-B", build, "-G", "Ninja",
         "-DCMAKE_PREFIX_PATH=" + prefix,
         "-DCONSUMER_STATIC=" + ("ON" if static else "OFF")])
    run(["cmake", "--build", build])
    return os.path.join(build, "consumer")


def step_cmake(static):
    def step(ctx):
        name = "cmake-static" if static else "cmake-shared"
        check_program(cmake_build(ctx, name, ctx.prefix, static), ctx.prefix,
                      shared=not static)
    return step


def step_pkg_config(static):
    def step(ctx):
        build = os.path.join(ctx.work, "pkg-config-" + (
            "static" if static else "shared"))
        os.makedirs(build)
        run(["make", "-f", os.path.join(TEST_DIR, "Makefile"), "OUT=" + build,
             "PKG=" + ("asyncctx-static" if static else "asyncctx")],
            env=pkg_config_env(ctx))
        check_program(os.path.join(build, "consumer"), ctx.prefix,
                      shared=not static)
    return step


def step_relocated(ctx):
    moved = os.path.join(ctx.work, "moved-prefix")
    shutil.copytree(ctx.prefix, moved, symlinks=True)
    check_program(cmake_build(ctx, "cmake-relocated", moved, False), moved,
                  shared=True)


STEPS = [
    ("install", step_install),
    ("headers", step_headers),
    ("cmake (shared)", step_cmake(static=False)),
    ("cmake (static)", step_cmake(static=True)),
    ("pkg-config (shared)", step_pkg_config(static=False)),
    ("pkg-config (static)", step_pkg_config(static=True)),
    ("cmake (relocated prefix)", step_relocated),
]


class Context:
    def __init__(self, out, work, no_build):
        self.out = out
        self.no_build = no_build
        self.work = work
        self.prefix = os.path.join(work, "prefix")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(ROOT, "out", "Default"),
                        help="build directory with the libraries")
    parser.add_argument("--work", default=os.path.join(ROOT, "out",
                                                       "install-test"),
                        help="scratch directory (wiped first)")
    parser.add_argument("--no-build", action="store_true",
                        help="install what is built, without running ninja")
    args = parser.parse_args()
    ctx = Context(os.path.abspath(args.out), os.path.abspath(args.work),
                  args.no_build)
    shutil.rmtree(ctx.work, ignore_errors=True)
    os.makedirs(ctx.work)

    def attempt(name, step):
        try:
            step(ctx)
            return None
        except (Failure, subprocess.TimeoutExpired, OSError) as e:
            return str(e)

    counts = {"passed": 0, "failed": 0}

    def report(name, error):
        if error is None:
            print("ok - %s" % name)
            counts["passed"] += 1
        else:
            print("not ok - %s: %s" % (name, error))
            counts["failed"] += 1
        sys.stdout.flush()

    # The install first; the consumers after it are independent of each
    # other (each builds in a folder of its own) and run one per core.
    (install_name, install_step), rest = STEPS[0], STEPS[1:]
    error = attempt(install_name, install_step)
    report(install_name, error)
    if error is not None and not os.path.isfile(
            os.path.join(ctx.prefix, "lib", "libasyncctx.a")):
        for name, _ in rest:
            report(name, "skipped, nothing was installed")
    else:
        with concurrent.futures.ThreadPoolExecutor(
                os.cpu_count() or 2) as pool:
            errors = pool.map(lambda s: attempt(*s), rest)
            for (name, _), error in zip(rest, errors):
                report(name, error)
    passed, failed = counts["passed"], counts["failed"]
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
