"""What the library imports it declares: every package outside the standard library that a module of `intellagent/`
or `graphs/` imports is a dependency of pyproject.toml (or of one of its extras), not one that happens to be
installed because another package pulled it in; and HTTP goes through one client library, the OpenAI client's."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = {"intellagent", "graphs", "db_schemas"}


def imported_packages(*folders: Path) -> dict[str, list[str]]:
    """The top-level names of the packages outside the standard library that the modules under `folders` import,
    each with the modules that do."""
    found: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            for top in dict.fromkeys(name.partition(".")[0] for name in _imported(path)):
                if top not in sys.stdlib_module_names and top not in OURS:
                    found.setdefault(top, []).append(path.relative_to(ROOT).as_posix())
    return found


def _imported(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module


def declared_distributions(pyproject: Path) -> set[str]:
    """The distributions pyproject.toml depends on, in its dependencies and every extra, by normalised name."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"].values()
    requirements = [*project["dependencies"], *(requirement for extra in extras for requirement in extra)]
    return {_normalised(re.match(r"[A-Za-z0-9._-]+", requirement).group(0)) for requirement in requirements}


def undeclared(imported: dict[str, list[str]], declared: set[str]) -> dict[str, list[str]]:
    """The imported packages whose distribution is not declared, each with the modules that import it."""
    providers = packages_distributions()
    return {top: modules for top, modules in imported.items()
            if not {_normalised(name) for name in providers.get(top, [top])} & declared}


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_package_the_library_imports_is_declared_in_pyproject() -> None:
    imported = imported_packages(ROOT / "intellagent", ROOT / "graphs")

    missing = undeclared(imported, declared_distributions(ROOT / "pyproject.toml"))

    assert "pydantic" in imported and not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_a_package_imported_but_not_declared_is_found(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["pydantic>=2"]\n'
                                             '[project.optional-dependencies]\nmcp = ["mcp>=2.3"]\n')
    imported = {"pydantic": ["a.py"], "mcp": ["b.py"], "httpx2": ["c.py", "d.py"]}

    assert undeclared(imported, declared_distributions(tmp_path / "pyproject.toml")) == {"httpx2": ["c.py", "d.py"]}


def test_the_library_speaks_http_through_the_openai_client_s_library_only() -> None:
    imported = imported_packages(ROOT / "intellagent", ROOT / "graphs")

    assert "httpx2" in imported and "httpx" not in imported, f"httpx imported by {imported.get('httpx')}"
