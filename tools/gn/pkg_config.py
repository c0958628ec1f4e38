#!/usr/bin/env python3
"""Prints the libraries of Debian pkg-config packages as a GN list.

Used by third_party/*/BUILD.gn so that link lines follow what the installed
packages declare instead of hand-written lists.
"""
import subprocess
import sys


def main(argv):
    try:
        out = subprocess.check_output(["pkg-config", "--libs"] + argv[1:],
                                      text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("pkg-config failed for %s: %s\n"
                         "Run tools/bootstrap first.\n" % (argv[1:], e))
        return 1
    libs = []
    for flag in out.split():
        if flag.startswith("-l"):
            lib = flag[2:]
            if lib not in libs:
                libs.append(lib)
    print("[" + ", ".join('"%s"' % l for l in libs) + "]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
