#!/usr/bin/env python3
"""Runs clang-tidy on every project C++ file in the compile database, in
parallel, skipping a file that already passed with the same inputs: its own
text, the project headers it includes (protocol.json for the generated
header), its compile command (with the checkout's paths made relative),
.clang-tidy and the clang-tidy version. A full pass costs ~12 s of CPU per file; a warm one, a
second. Findings are printed; exit 1 when there are any.

Files listed in scripts/tidy-pending.txt are not checked yet: a baseline of
files not yet brought clean, to shrink, never to grow.

usage: tidy_cached.py CLANG_TIDY BUILD_DIR ROOT [--all | --list-unverified]
"""

import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys

OURS = ("core/", "widgets/", "app/", "tests/", "benchmarks/", "probe/cupti/", "probe/aoti_runner/")


INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"]+)"', re.M)


# The generated headers (core's and the AOTInductor runner's), and the
# source both are generated from.
GENERATED = ("core/events/protocol_generated.h", "probe/aoti_runner/protocol_generated.h")
GENERATED_FROM = "probe/compilescope_probe/protocol.json"


def project_includes(root: str, rel: str) -> list[str]:
    """The file and every project header it includes, directly or not
    (includes are written from the repository root, but for probe/aoti_runner's,
    which name a file beside the includer). A file that reaches the generated
    header gets its source instead."""
    seen: list[str] = []
    stack = [rel]
    while stack:
        path = stack.pop()
        if path in GENERATED:
            path = GENERATED_FROM
            if path in seen:
                continue
            seen.append(path)
            continue
        if path in seen or not os.path.isfile(os.path.join(root, path)):
            continue
        seen.append(path)
        text = open(os.path.join(root, path), "rb").read()
        for m in INCLUDE.findall(text):
            inc = m.decode()
            beside = os.path.join(os.path.dirname(path), inc)
            if not os.path.isfile(os.path.join(root, inc)) and os.path.isfile(
                os.path.join(root, beside)
            ):
                inc = beside
            stack.append(inc)
    return sorted(seen)


def portable(command: str, root: str, build: str) -> str:
    """The compile command with the checkout's and build folder's paths made
    relative, so a clone elsewhere finds the passes of this one."""
    return command.replace(os.path.abspath(build), "<build>").replace(root, "<root>")


def main() -> int:
    tidy, build, root = sys.argv[1:4]
    recheck_all = "--all" in sys.argv[4:]
    cache = os.environ.get("COMPILESCOPE_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "compilescope",
        "clang-tidy",
    )
    os.makedirs(cache, exist_ok=True)
    entries = {}
    for e in json.load(open(os.path.join(build, "compile_commands.json"))):
        rel = os.path.relpath(e["file"], root)
        if rel.startswith(OURS):
            entries[rel] = e.get("command") or " ".join(e.get("arguments", []))

    common = hashlib.sha256()
    version = subprocess.run([tidy, "--version"], capture_output=True, text=True).stdout
    common.update(version.encode())
    common.update(open(os.path.join(root, ".clang-tidy"), "rb").read())

    pending_file = os.path.join(root, "scripts", "tidy-pending.txt")
    pending = set()
    if os.path.exists(pending_file):
        for line in open(pending_file):
            line = line.split("#", 1)[0].strip()
            if line:
                pending.add(line)

    todo = []
    for rel, command in sorted(entries.items()):
        if rel in pending and not recheck_all:
            continue
        key = common.copy()
        key.update(portable(command, root, build).encode())
        for path in project_includes(root, rel):
            key.update(path.encode())
            key.update(open(os.path.join(root, path), "rb").read())
        digest = key.hexdigest()
        if recheck_all or not os.path.exists(os.path.join(cache, digest)):
            todo.append((rel, digest))
    checked = [r for r in entries if r not in pending or recheck_all]
    print(
        f"{len(checked)} files ({len(entries) - len(checked)} pending in scripts/tidy-pending.txt),"
        f" {len(checked) - len(todo)} unchanged since they passed"
    )
    if "--list-unverified" in sys.argv[4:]:
        print("\n".join(rel for rel, _ in todo))
        return 0

    def check(item):
        rel, digest = item
        r = subprocess.run(
            [tidy, "-p", build, "--quiet", os.path.join(root, rel)], capture_output=True, text=True
        )
        findings = [
            line
            for line in (r.stdout + r.stderr).splitlines()
            if line
            and not line.endswith("generated.")
            and not line.startswith("Suppressed ")
            and not line.startswith("Use -header-filter")
            and not line.startswith("Use -system")
        ]
        ok = r.returncode == 0 and not any(": warning: " in f or ": error: " in f for f in findings)
        if ok:
            open(os.path.join(cache, digest), "w").close()
        return rel, ok, findings

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for rel, ok, findings in pool.map(check, todo):
            if not ok:
                failed += 1
                print("\n".join(findings) or f"{rel}: clang-tidy failed")
    if failed:
        print(f"clang-tidy: findings in {failed} file(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
