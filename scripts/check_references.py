#!/usr/bin/env python3
"""Fails when a comment, doc or script names a repository path that does not exist.

Docs are read whole, code and configs in their comments (a string in code is the code's business, and its
tests'); a reference is a token that starts with one of the repository's top-level folders
("core/scaling/law.h", "docs/variants.md", "web/tools/") or is a relative Markdown link in a doc
("[laws](scaling-laws.md)"). A reference holds when the path exists in the tree, as a file or a folder, is one
the build or the tests write (ignored by git), or names a binary the build makes ("server/gammalab-server"). Wildcards ("tests/service/*_test.cpp") hold when they match
something; a "{a,b}" list holds when each of its expansions does; "path:123" names a line of an existing file.
A file whose first lines say "check-references: off" is skipped: a test fixture that must name missing paths.
Usage: scripts/check_references.py [REPO_ROOT]   (prints each stale reference as FILE:LINE: PATH; exit 1 if any)
"""
import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
TEXT_SUFFIXES = (".cpp", ".h", ".cc", ".hpp", ".js", ".mjs", ".py", ".sh", ".yaml", ".yml", ".md", ".cmake",
                 ".txt", ".proto", ".html", ".css", ".json", ".service", ".toml", ".in")
TEXT_NAMES = ("Makefile", "CMakeLists.txt", "Dockerfile", "Containerfile", "run")
# A path token: a top-level folder, then path characters. Placeholders in capitals (SWEEP, NAME) are not paths.
PATH_CHARS = r"[A-Za-z0-9_.*{},+-]"


def tracked_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [f for f in out.decode().split("\0") if f]


def ignored(path):
    """Whether git ignores `path` as a file or a folder (a build or test output: not in the source tree)."""
    return any(subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "--no-index", p]).returncode == 0
               for p in (path, path + "/"))


def executables(files):
    """The names of the binaries CMake builds (add_executable), which live in the build tree."""
    names = set()
    for f in files:
        if os.path.basename(f) == "CMakeLists.txt":
            names |= set(re.findall(r"add_executable\(\s*([\w.-]+)", open(os.path.join(ROOT, f)).read()))
    return names


# Where a line's comment starts, by language: code and configs are checked in their comments only.
SLASH_COMMENTS = (".cpp", ".h", ".cc", ".hpp", ".js", ".mjs", ".proto", ".css")
HASH_COMMENTS = (".py", ".sh", ".yaml", ".yml", ".cmake", ".txt", ".toml", ".in", ".service", "Makefile", "run",
                 "Dockerfile", "Containerfile")


def checked_part(name, line, in_block):
    """The part of `line` that is prose in file `name`, and whether a /* block continues after it."""
    if name.endswith((".md", ".html")):
        return line, False
    if name.endswith(SLASH_COMMENTS):
        text = ""
        if in_block:
            end = line.find("*/")
            if end < 0:
                return line, True
            text, line, in_block = line[:end], line[end + 2:], False
        at = line.find("//")
        block = line.find("/*")
        if block >= 0 and (at < 0 or block < at):
            end = line.find("*/", block + 2)
            return text + line[block:] if end < 0 else text + line[block:end], end < 0
        return text + (line[at:] if at >= 0 else ""), False
    if name.endswith(HASH_COMMENTS):
        at = line.find("#")
        return (line[at:] if at >= 0 else ""), False
    return "", False  # JSON and other data: no comments


def expansions(token):
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    return [e for alt in m.group(1).split(",") for e in expansions(token[:m.start()] + alt + token[m.end():])]


def exists(path, tree, folders):
    path = path.rstrip("/")
    if any(c in path for c in "*?["):
        return any(fnmatch.fnmatch(f, path) for f in tree) or any(fnmatch.fnmatch(d, path) for d in folders)
    return path in tree or path in folders or os.path.basename(path) in BINARIES or ignored(path)


def clean(token):
    token = re.sub(r":\d+(-\d+)?$", "", token)     # path:123 names a line
    token = token.rstrip(".,;:)'\"`")              # sentence punctuation after a path
    return token


BINARIES = set()


def main():
    files = tracked_files()
    BINARIES.update(executables(files))
    tree = set(files)
    # Every folder that holds a tracked file, and every folder above it.
    folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    tops = sorted({f.split("/")[0] for f in files if "/" in f and not f.startswith(".")}, key=len, reverse=True)
    top_pattern = re.compile(r"(?<![A-Za-z0-9_./-])((?:%s)/%s*)" % ("|".join(map(re.escape, tops)), PATH_CHARS))
    # A file named without its top-level folder ("fit_view.cpp", "store/fits.cpp"): some tracked file ends so.
    file_pattern = re.compile(r"(?<![A-Za-z0-9_./*-])([A-Za-z0-9_][A-Za-z0-9_/-]*\.(?:cpp|h|js|py|sh|md|yaml|proto))(?![A-Za-z0-9_])")
    suffixes = {f.split("/", i)[-1] for f in files for i in range(f.count("/") + 1)}
    link_pattern = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    stale = []
    for f in files:
        if not (f.endswith(TEXT_SUFFIXES) or os.path.basename(f) in TEXT_NAMES) or f.endswith("package-lock.json"):
            continue
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        if "check-references: off" in "\n".join(text.splitlines()[:5]):
            continue
        in_block = False
        for lineno, full in enumerate(text.splitlines(), 1):
            line, in_block = checked_part(f, full, in_block)
            for m in top_pattern.finditer(line):
                token = clean(m.group(1))
                if re.search(r"/[A-Z][A-Z_]+(/|\.|$)", token) or token.endswith("/..."):
                    continue  # a placeholder (docs/img/results/SWEEP/...), not a path
                if not all(exists(e, tree, folders) for e in expansions(token)):
                    stale.append(f"{f}:{lineno}: {token}")
            for m in file_pattern.finditer(line):
                token = m.group(1)
                # Bare names are checked for C++ sources only: a bare "x.h" or "x.yaml" is as often a system
                # header or an example file as one of ours.
                if "/" not in token and not token.endswith(".cpp"):
                    continue
                if token.split("/")[0] in tops or token in suffixes:
                    continue
                if re.search(r"(^|/)[A-Z][A-Z_]+(/|\.)", token) or token.startswith(("my", "your", "new")):
                    continue  # a placeholder or an example name
                stale.append(f"{f}:{lineno}: {token}")
            if f.endswith(".md"):
                for m in link_pattern.finditer(line):
                    target = m.group(1)
                    if re.match(r"^[a-z]+:", target):
                        continue  # a URL
                    path = os.path.normpath(os.path.join(os.path.dirname(f), target))
                    if not exists(path, tree, folders):
                        stale.append(f"{f}:{lineno}: link {target}")
    for s in stale:
        print(s)
    if stale:
        print(f"{len(stale)} reference(s) to paths that do not exist (fix the text, or the path)", file=sys.stderr)
        return 1
    print(f"every repository path named in {len(files)} tracked files exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
