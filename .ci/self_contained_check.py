#!/usr/bin/env python3
"""Fails when a file of the repository refers to a path outside it.

The repository must stand alone: a clone into an empty folder builds, tests and reads well
without anything beside it. Three checks over every tracked (or new, not ignored) text file:

1. no mention of the workspace's sibling folders (`../shared`, `shared/data`, `shared/SPEC`);
2. every relative path token starting with `../` (after a space, quote, bracket or `=`),
   resolved from the file's folder, stays inside the repository (in Rust sources, tokens of
   only dots and slashes are boards in text form and are skipped); a `"/../` string (the
   `concat!(env!("CARGO_MANIFEST_DIR"), "/../x")` idiom) is resolved from the repository root;
3. every relative Markdown link `[text](target)` resolves to a file or folder that exists in
   the repository.

Usage: python3 .ci/self_contained_check.py   (from anywhere; exit 1 and one line per fault)
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = re.compile(r"\.\./shared\b|\bshared/(?:data|SPEC)")
UP_TOKEN = re.compile(r"""(?:^|(?<=[\s"'(\[=,`]))((?:\.\./)+[\w.\-/]*)""")
MANIFEST_UP = re.compile(r'"(/\.\./[\w.\-/]*)')
MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def tracked_files():
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode()
    return [ROOT / p for p in out.split("\0") if p]


def inside(path: Path) -> bool:
    try:
        path.resolve().relative_to(ROOT)
        return True
    except ValueError:
        return False


def main() -> int:
    me = Path(__file__).resolve()
    faults = []
    for file in tracked_files():
        if file.resolve() == me or not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary
        rel = file.relative_to(ROOT)
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{rel}:{number}"
            if FORBIDDEN.search(line):
                faults.append(f"{where}: refers to a folder beside the repository: {line.strip()}")
                continue
            for token in UP_TOKEN.findall(line):
                if file.suffix == ".rs" and not token.strip("./"):
                    continue  # a board in text form ("../.."), not a path
                if not inside(file.parent / token):
                    faults.append(f"{where}: {token} leaves the repository")
            for token in MANIFEST_UP.findall(line):
                if not inside(ROOT / token.lstrip("/")):
                    faults.append(f"{where}: {token} (from the crate root) leaves the repository")
            if file.suffix == ".md":
                for target in MD_LINK.findall(line):
                    if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^mailto:", target):
                        continue  # URL or in-page anchor
                    target_path = file.parent / target.split("#", 1)[0]
                    if not inside(target_path) or not target_path.exists():
                        faults.append(f"{where}: link {target} does not resolve inside the repository")
    for fault in faults:
        print(f"self-contained-check: {fault}")
    if faults:
        print(f"self-contained-check: {len(faults)} fault(s)")
        return 1
    print("self-contained-check: no path leaves the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
