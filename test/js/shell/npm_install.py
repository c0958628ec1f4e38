# Copyright 2026 the asyncctx authors. All rights reserved.
"""The npm-install step the shell's package checks share
(opentelemetry/check.py, dc_polyfill/check.py): pinned packages installed
once into an ignored directory under out/, nothing committed."""

import os
import shutil
import subprocess


def run(cmd, cwd, timeout=600):
    """Runs cmd in cwd and returns the CompletedProcess (text output)."""
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def npm_install(work, packages, needed):
    """Installs `packages` (name@version) with npm into `work` unless every
    path in `needed` (relative to work) already exists. Returns None when they
    all exist afterwards, or the reason to skip: npm missing or the install
    failing (the registry unreachable)."""
    os.makedirs(work, exist_ok=True)
    if all(os.path.exists(os.path.join(work, p)) for p in needed):
        return None
    if shutil.which("npm") is None:
        return "npm is not installed"
    if not os.path.exists(os.path.join(work, "package.json")):
        with open(os.path.join(work, "package.json"), "w") as f:
            f.write('{"private": true}\n')
    result = run(["npm", "install", "--no-audit", "--no-fund", "--silent"] +
                 packages, work)
    if result.returncode != 0 or not all(
            os.path.exists(os.path.join(work, p)) for p in needed):
        return "npm install failed (is the registry reachable?)"
    return None
