"""The import graph of the library: every module it imports is the file its name spells, no module takes part in
a cycle, no two folders import each other, a stage's graph imports no other stage's, and the artifacts stand on
nothing else.

Every import counts, wherever it is written: at the top of a module, inside a function, or under
`TYPE_CHECKING` for annotations only; a cycle of annotations is a cycle of the design all the same. The modules
are read as a tool that reads imports finds them, by walking intellagent/: `graphs/` is there as the link
intellagent/graphs (see `intellagent.bundled`).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

from intellagent.pipeline import PIPELINE

ROOT = Path(__file__).resolve().parents[2]


def modules(library: Path = ROOT / "intellagent") -> dict[str, Path]:
    """Every module of the library, by the dotted name its path under the library's folder spells (links followed)."""
    found = {}
    for folder, _, files in sorted(os.walk(library, followlinks=True)):
        for file in sorted(files):
            if file.endswith(".py"):
                parts = (Path(folder) / file).relative_to(library.parent).with_suffix("").parts
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = Path(folder) / file
    return found


def statements(name: str, path: Path) -> Iterator[tuple[str, list[str]]]:
    """Each import of module `name`: the module it names and the names it takes from it (`import a.b` and
    `importlib.import_module("a.b")`: `a.b` and none; `from a import b, c`: `a`, and b and c), relative imports
    made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            yield ".".join([*anchor, *([node.module] if node.module else [])]), [alias.name for alias in node.names]
        elif _imports_by_name(node):
            yield node.args[0].value, []  # type: ignore[attr-defined]


def imported(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The library's modules that module `name` imports: `from a import b` names module `a.b` when there is
    one, else `a`."""
    for base, names in statements(name, path):
        for target in [f"{base}.{each}" if f"{base}.{each}" in known else base for each in names] or [base]:
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


def unspelled(found: dict[str, Path]) -> list[tuple[str, str]]:
    """(module, imported) of each import of the library whose module is no file its name spells."""
    return sorted({(name, target) for name, path in found.items() for target, _ in statements(name, path)
                   if target.partition(".")[0] == "intellagent" and target not in found})


def test_every_module_the_library_imports_is_the_file_its_name_spells() -> None:
    missing = unspelled(modules())

    assert not missing, f"imported by a name no file under intellagent/ spells (a tool reading imports loses them): " \
                        f"{missing}"


def test_a_module_imported_by_a_name_its_path_does_not_spell_is_found(tmp_path: Path) -> None:
    (tmp_path / "intellagent").mkdir()
    (tmp_path / "intellagent" / "__init__.py").touch()
    (tmp_path / "intellagent" / "pipeline.py").write_text("from intellagent.graphs import describe\n"
                                                           "from intellagent import pipeline\n")

    assert unspelled(modules(tmp_path / "intellagent")) == [("intellagent.pipeline", "intellagent.graphs")]


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
