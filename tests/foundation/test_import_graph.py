"""The import graph of the library: no module takes part in a cycle, no two folders import each other, a stage's
graph imports no other stage's, and the artifacts stand on nothing else.

Every import counts, wherever it is written: at the top of a module, inside a function, or under
`TYPE_CHECKING` for annotations only; a cycle of annotations is a cycle of the design all the same.
`graphs/` is the package `intellagent.graphs` (see `intellagent.bundled`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

from intellagent.pipeline import PIPELINE

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"intellagent": ROOT / "intellagent", "intellagent.graphs": ROOT / "graphs"}


def modules() -> dict[str, Path]:
    """Every module of the library, by its dotted name."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join([package, *parts[:-1]] + ([] if parts[-1] == "__init__" else [parts[-1]]))
            found[name] = path
    return found


def imported(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The library's modules that module `name` imports: `from a import b` names module `a.b` when there is
    one, else `a`; `importlib.import_module("a.b")` counts as `import a.b`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        elif _imports_by_name(node):
            targets = [node.args[0].value]  # type: ignore[attr-defined]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def _imports_by_name(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))


def import_graph() -> nx.DiGraph:
    """Module → the modules it imports."""
    found = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(found)
    for name, path in found.items():
        graph.add_edges_from((name, target) for target in imported(name, path, set(found)))
    return graph


def test_no_module_takes_part_in_an_import_cycle() -> None:
    graph = import_graph()

    circles = [component for component in nx.strongly_connected_components(graph) if len(component) > 1]

    shown = [" → ".join([*(edge[0] for edge in nx.find_cycle(graph.subgraph(circle))), "…"]) for circle in circles]
    assert not circles, f"{len(circles)} import cycle(s): " + "; ".join(shown)


def test_the_artifacts_import_no_other_part_of_the_library() -> None:
    graph = import_graph()

    outside = sorted({(module, target) for module, target in graph.edges
                      if module.startswith("intellagent.artifacts") and not target.startswith("intellagent.artifacts")})

    assert not outside, f"the artifacts must stand on nothing else: {outside}"


def test_a_stages_graph_imports_no_other_stages_graph() -> None:
    graph = import_graph()
    stages = {f"intellagent.graphs.{stage.name}" for stage in PIPELINE}

    crossing = sorted((module, target) for module, target in graph.edges if module in stages and target in stages)

    assert not crossing, f"a stage runs another only through the pipeline: {crossing}"


def folder(module: str) -> str:
    """The part of the library a module belongs to: its folder (`intellagent.reports.html` → `reports`,
    `intellagent.graphs.report` → `graphs`), or itself for a module at the top (`intellagent.config` → `config`)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def two_way_ties(graph: nx.DiGraph) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each pair of folders that import each other, with the imports that tie them both ways."""
    across: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module, target in graph.edges:
        if folder(module) != folder(target):
            across.setdefault((folder(module), folder(target)), []).append((module, target))
    return {(one, other): sorted(edges + across[(other, one)]) for (one, other), edges in sorted(across.items())
            if one < other and (other, one) in across}


def test_no_two_folders_of_the_library_import_each_other() -> None:
    ties = two_way_ties(import_graph())

    shown = [f"{one} ↔ {other} ({', '.join(f'{a} → {b}' for a, b in edges)})" for (one, other), edges in ties.items()]
    assert not ties, f"{len(ties)} two-way tie(s) between folders: " + "; ".join(shown)


def test_a_tie_through_modules_that_are_not_in_a_cycle_is_found() -> None:
    graph = nx.DiGraph([("intellagent.config", "intellagent.llm.spec"), ("intellagent.llm.roles", "intellagent.config"),
                        ("intellagent.reports.html", "intellagent.artifacts.run_report")])

    assert two_way_ties(graph) == {("config", "llm"): [("intellagent.config", "intellagent.llm.spec"),
                                                       ("intellagent.llm.roles", "intellagent.config")]}
