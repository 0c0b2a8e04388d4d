#!/usr/bin/env python3
"""Clang's thread-safety analysis (-Wthread-safety -Werror) over every translation unit that takes a lock the
annotations describe: the build is GCC, which reads ABSL_GUARDED_BY and friends as nothing, so without this
pass the annotations would be comments.

A translation unit is checked when it, or a project header it includes directly, carries a lock annotation or
an absl::Mutex. Each is parsed by clang (-fsyntax-only: no code generated) with the flags the build gave it
(compile_commands.json), less GCC's own.
Usage: scripts/check_thread_safety.py BUILD_DIR [--clang clang++-14] [--jobs 2] [--root REPO]
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ANNOTATED = re.compile(r"ABSL_(GUARDED_BY|PT_GUARDED_BY|EXCLUSIVE_LOCKS_REQUIRED|SHARED_LOCKS_REQUIRED|"
                       r"LOCKS_EXCLUDED|LOCK_RETURNED|ACQUIRE|RELEASE)|absl::Mutex\b")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Folders whose code is the services' (the trainer's LibTorch code takes no annotated lock).
CHECKED_FOLDERS = ("server/", "worker/", "http/", "cli/", "core/", "log/", "rpc/")


def has_annotation(path, cache):
    """Whether the file at `path` carries an annotation or an absl::Mutex (False when it cannot be read)."""
    if path not in cache:
        try:
            cache[path] = bool(ANNOTATED.search(open(path, encoding="utf-8").read()))
        except OSError:
            cache[path] = False
    return cache[path]


def annotated(path, root, cache):
    """Whether `path` or a project header it includes directly carries an annotation."""
    if has_annotation(path, cache):
        return True
    text = open(path, encoding="utf-8").read()
    return any(has_annotation(os.path.join(root, header), cache) for header in INCLUDE.findall(text))


def clang_command(entry, clang):
    """The build's command for one file, run by clang for its analysis only."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = [clang]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-fdiagnostics-color"):
            continue
        out.append(a)
    return out + ["-fsyntax-only", "-Wthread-safety", "-Wthread-safety-beta", "-Werror=thread-safety",
                  "-Werror=thread-safety-beta", "-Wno-unknown-warning-option", "-Wno-error=unknown-warning-option"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--clang", default="clang++-14")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the source tree the build's files are under (default: this repository)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    entries = json.load(open(os.path.join(args.build, "compile_commands.json")))
    cache = {}
    units = []
    for e in entries:
        source = os.path.normpath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(source, root)
        if rel.startswith(CHECKED_FOLDERS) and "/trainer/" not in rel and annotated(source, root, cache):
            units.append((rel, e))
    if not units:
        print("no translation unit takes an annotated lock: nothing checked (is BUILD the services' build?)")
        return 1

    def check(unit):
        rel, e = unit
        r = subprocess.run(clang_command(e, args.clang), cwd=e["directory"], capture_output=True, text=True)
        return rel, r.returncode, r.stderr

    print(f"checking {len(units)} translation units: {' '.join(sorted(u[0] for u in units))}")
    failed = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for rel, code, err in pool.map(check, sorted(units, key=lambda u: u[0])):
            if code != 0:
                failed += 1
                print(f"{rel}: thread-safety analysis failed\n{err}")
    print(f"{len(units) - failed} of {len(units)} translation units pass clang's thread-safety analysis")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
