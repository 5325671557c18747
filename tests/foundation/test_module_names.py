"""Each module of the library has a file name of its own: a name used in two folders says neither folder's job,
and a traceback, an editor's tab or a search by file name could mean either."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def repeated_names(*folders: Path) -> dict[str, list[str]]:
    """The module file names (a package's `__init__.py` aside) found in more than one place under `folders`."""
    places: dict[str, list[str]] = defaultdict(list)
    for folder in folders:
        for path in folder.rglob("*.py"):
            if path.name != "__init__.py":
                places[path.name].append(path.relative_to(folder.parent).as_posix())
    return {name: sorted(found) for name, found in places.items() if len(found) > 1}


def test_no_two_modules_of_the_library_share_a_file_name() -> None:
    repeated = repeated_names(ROOT / "intellagent", ROOT / "graphs")

    assert not repeated, f"file names used in more than one folder: {repeated}"


def test_a_name_used_in_two_folders_is_found(tmp_path: Path) -> None:
    for module in ("library/reports/personas.py", "library/describe/personas.py", "library/reports/__init__.py",
                   "library/describe/__init__.py", "stages/report.py"):
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).touch()

    assert repeated_names(tmp_path / "library", tmp_path / "stages") == {
        "personas.py": ["library/describe/personas.py", "library/reports/personas.py"]}
