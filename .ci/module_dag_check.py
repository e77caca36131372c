#!/usr/bin/env python3
"""Fails when sibling modules of a crate import each other in a cycle.

Checks both crates of the workspace: the engine (engine/src) and the service (src). Every
path a file names outside `#[cfg(test)]` code and comments (`crate::a::b`, `super::x`,
`self::x`, in `use` lines and in expressions alike) is resolved to the module it points into.
A reference from module S to module T adds an edge between the two siblings where their paths
part (`crate::transport::status` named in `server/observe.rs` adds server -> transport), and
each folder's sibling graph must be a DAG. Usage: python3 .ci/module_dag_check.py (exit 1 on a
cycle).
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [ROOT / "engine" / "src", ROOT / "src"]
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^{}]*)\}")


def module_path(src: Path, path: Path) -> tuple:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


TEST_MODULE_FILE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+(\w+)\s*;")


def code_of(path: Path) -> str:
    """The file's code outside tests: `#[cfg(test)] mod x;` lines are dropped (their files are
    test modules, see `test_modules`), and an inline `#[cfg(test)]` item ends the code (test
    modules sit at the end of a file)."""
    text = TEST_MODULE_FILE.sub("", path.read_text(encoding="utf-8"))
    text = text.split("#[cfg(test)]", 1)[0]
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def test_modules(src: Path, files: dict) -> set:
    """Modules declared `#[cfg(test)] mod x;`: test code in a file of its own."""
    found = set()
    for here, path in files.items():
        for name in TEST_MODULE_FILE.findall(path.read_text(encoding="utf-8")):
            found.add(here + (name,))
    return found


def references(text: str):
    for anchor, rest, group in GROUP.findall(text):
        for item in group.split(","):
            item = item.strip()
            if item and item != "self":
                yield anchor, rest + "::" + item.split(" as ")[0].strip()
    for anchor, rest in PATH.findall(GROUP.sub("", text)):
        yield anchor, rest


def resolve(anchor: str, rest: str, here: tuple, modules: set) -> tuple:
    base = () if anchor == "crate" else here[:-1] if anchor == "super" else here
    path = base + tuple(p for p in rest.split("::") if p)
    while path and path not in modules:
        path = path[:-1]
    return path


def check(src: Path) -> tuple:
    files = {module_path(src, p): p for p in src.rglob("*.rs")}
    modules = set(files)
    for test_module in test_modules(src, files):
        files.pop(test_module, None)
    graphs = {}
    for here, path in files.items():
        for anchor, rest in references(code_of(path)):
            target = resolve(anchor, rest, here, modules)
            common = next((i for i, (a, b) in enumerate(zip(here, target)) if a != b), None)
            if common is not None:
                graphs.setdefault(here[:common], {}).setdefault(here[common], set()).add(
                    target[common])
    cycles = []
    for parent, graph in sorted(graphs.items()):
        state, stack = {}, []

        def visit(node):
            state[node] = "open"
            stack.append(node)
            for nxt in sorted(graph.get(node, ())):
                if state.get(nxt) == "open":
                    cycles.append("::".join(parent + (" -> ".join(stack[stack.index(nxt):] + [nxt]),)))
                elif nxt not in state:
                    visit(nxt)
            stack.pop()
            state[node] = "done"

        for node in sorted(graph):
            if node not in state:
                visit(node)
    edges = sum(len(v) for g in graphs.values() for v in g.values())
    return len(modules), edges, cycles


def main() -> int:
    failed = False
    for src in CRATES:
        count, edges, cycles = check(src)
        name = src.relative_to(ROOT)
        for cycle in cycles:
            print(f"module-dag-check: {name}: import cycle: {cycle}")
        failed |= bool(cycles)
        if not cycles:
            print(f"module-dag-check: {name}: {count} modules, {edges} sibling imports, no cycle")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
