"""The site's hook module, docs/hooks/reference.py, loaded by its path as MkDocs loads it."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType

HOOK = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "reference.py"


@cache
def reference_hook() -> ModuleType:
    """The module, loaded once."""
    spec = importlib.util.spec_from_file_location("reference_hook", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
