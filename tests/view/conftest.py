"""Fixtures of the viewer's tests: the shelf of run folders of `run_shelf`, made once per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.view.runs import Catalogue, find_runs
from tests.view.run_shelf import shelve


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of run folders."""
    base = tmp_path_factory.mktemp("shelf")
    (base / "config").mkdir()
    return shelve(base / "runs", base / "config")


@pytest.fixture(scope="module")
def catalogue(shelf: Path) -> Catalogue:
    """The shelf as the viewer reads it."""
    return find_runs(shelf)
