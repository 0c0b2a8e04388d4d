#!/usr/bin/env python3
"""Fails when a C++ file includes a header of a folder its folder may not include.

The rule is docs/architecture.md's table "Which folder may include which": one row per folder, the folders it
may include. A file belongs to the longest folder of the table that holds it (worker/trainer/model/x.cpp is
worker/trainer's); an include "a/b/c.h" names the longest folder of the table it lies in, or "gammalab" for the
generated gRPC headers. Includes of headers outside the table's folders (libraries) are not ruled; tests/ and
bench/ are not checked.
Usage: scripts/check_includes.py [REPO_ROOT]   (prints each violation as FILE:LINE: FOLDER includes HEADER; exit 1
if any, 2 if the table cannot be read)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def rules():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Which folder may include which", 1)
    if len(section) != 2:
        sys.exit("docs/architecture.md: no section 'Which folder may include which'")
    allowed = {}
    for line in section[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if not cells or len(cells) != 2 or cells[0] in ("folder", "") or set(cells[0]) <= set("-"):
            continue
        allowed[cells[0]] = {c.strip() for c in cells[1].split(",") if c.strip()}
    if not allowed:
        sys.exit("docs/architecture.md: the table of which folder may include which is empty")
    return allowed


def folder_of(path, folders):
    best = None
    for folder in folders:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def main():
    allowed = rules()
    folders = set(allowed)
    tops = {f.split("/")[0] for f in folders}
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
    violations = []
    for path in files.decode().split("\0"):
        if not path.endswith((".cpp", ".h", ".cc", ".hpp", ".in")):
            continue
        source = folder_of(path, folders)
        if source is None:
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header = m.group(1)
                if header.startswith("gammalab/"):
                    target = "gammalab"
                elif header.split("/")[0] in tops:
                    target = folder_of(header, folders)
                    if target is None:
                        violations.append(f"{path}:{number}: {source} includes {header}, a folder the table does not name")
                        continue
                else:
                    continue  # a library's header, or one beside the file
                if target != source and target not in allowed[source]:
                    violations.append(f"{path}:{number}: {source} includes {header} ({target}), which it may not "
                                      f"(docs/architecture.md)")
    for v in violations:
        print(v)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
