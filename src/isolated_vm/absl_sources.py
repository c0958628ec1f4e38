#!/usr/bin/env python3
"""Prints, as a GN list, the .cc files of Abseil libraries and their deps.

    absl_sources.py <absl source root> <library>...

Reads the absl_cc_library() calls of the source tree's CMakeLists.txt files
(NAME, SRCS and HDRS, DEPS; TESTONLY libraries are skipped) and follows DEPS from the
named libraries (e.g. "status", "flat_hash_map"). Paths are relative to the
source root. Used by src/isolated_vm/BUILD.gn to compile the Abseil the
isolated-vm module links statically from Debian's source package.
"""
import os
import re
import sys

CALL = re.compile(r"absl_cc_library\s*\((.*?)\n\)", re.DOTALL)
KEYWORDS = {"NAME", "HDRS", "SRCS", "COPTS", "DEPS", "DEFINES", "LINKOPTS",
            "PUBLIC", "TESTONLY", "DATA"}


def parse(root):
    libraries = {}
    for dirpath, _, files in os.walk(os.path.join(root, "absl")):
        if "CMakeLists.txt" not in files:
            continue
        with open(os.path.join(dirpath, "CMakeLists.txt")) as f:
            text = re.sub(r"#[^\n]*", "", f.read())
        for call in CALL.finditer(text):
            fields, key = {}, None
            for token in call.group(1).split():
                if token in KEYWORDS:
                    key = token
                    fields.setdefault(key, [])
                elif key:
                    fields[key].append(token.strip('"'))
            if "TESTONLY" in fields or not fields.get("NAME"):
                continue
            rel = os.path.relpath(dirpath, root)
            libraries[fields["NAME"][0]] = (
                # Some .cc files are listed under HDRS (strings' escaping.cc).
                [os.path.join(rel, s)
                 for s in fields.get("SRCS", []) + fields.get("HDRS", [])
                 if s.endswith(".cc")],
                [d[len("absl::"):] for d in fields.get("DEPS", [])
                 if d.startswith("absl::")])
    return libraries


def main(argv):
    root, wanted = argv[1], argv[2:]
    libraries = parse(root)
    seen, sources, stack = set(), [], list(wanted)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in libraries:
            sys.stderr.write("absl_sources.py: no library %r in %s\n" %
                             (name, root))
            return 1
        srcs, deps = libraries[name]
        sources += srcs
        stack += deps
    print("[" + ", ".join('"%s"' % s for s in sorted(set(sources))) + "]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
