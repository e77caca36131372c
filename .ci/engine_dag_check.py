#!/usr/bin/env python3
"""Fails when the modules of src/engine import each other in a cycle.

The engine is meant to be a DAG: errors and positions at the leaves, rules above them. This
reads every `use super::X` / `use crate::engine::X` line (outside `#[cfg(test)]` modules) of
each top-level engine module (a folder module counts as one), builds the import graph and
prints any cycle. Usage: python3 .ci/engine_dag_check.py (exit 1 on a cycle).
"""

import re
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "src" / "engine"
USE = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+(?:super|crate::engine)::\{?([a-z_]+)", re.M)
USE_GROUP = re.compile(r"^\s*(?:pub\s+)?use\s+(?:super|crate::engine)::\{([^}]*)\}", re.M)


def module_of(path: Path) -> str:
    rel = path.relative_to(ENGINE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def main() -> int:
    modules = {module_of(p) for p in ENGINE.rglob("*.rs")} - {"mod"}
    graph = {m: set() for m in modules}
    for path in ENGINE.rglob("*.rs"):
        source = module_of(path)
        if source == "mod":
            continue
        text = path.read_text(encoding="utf-8").split("#[cfg(test)]", 1)[0]
        inside_folder = len(path.relative_to(ENGINE).parts) > 1
        names = set(USE.findall(text))
        for group in USE_GROUP.findall(text):
            names |= {item.strip().split("::")[0] for item in group.split(",") if item.strip()}
        for name in names:
            # `super::` inside a folder module points within that module.
            if inside_folder and re.search(rf"use\s+super::\{{?{name}\b", text):
                continue
            if name in modules and name != source:
                graph[source].add(name)
    cycles, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    for cycle in cycles:
        print("engine-dag-check: import cycle: " + " -> ".join(cycle))
    if cycles:
        return 1
    edges = sum(len(v) for v in graph.values())
    print(f"engine-dag-check: {len(graph)} modules, {edges} imports, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
