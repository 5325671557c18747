"""The library domain, a second domain defined only here, loaded through the generic environment layer."""

from collections.abc import Callable
from pathlib import Path

import pytest

from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment

LIBRARY = Path(__file__).resolve().parent / "library"

ConfigFactory = Callable[..., EnvironmentConfig]


@pytest.fixture(scope="session")
def library_config() -> ConfigFactory:
    """Build the library domain's config (every module as a .py path), with entries replaced by keyword."""

    def build(**changes: str | None) -> EnvironmentConfig:
        entries = {
            "policy": str(LIBRARY / "library.md"),
            "schema": str(LIBRARY / "schema.py"),
            "tools": str(LIBRARY / "tools.py"),
            "validators": str(LIBRARY / "validators.py"),
            "background": str(LIBRARY / "background.py"),
            **changes,
        }
        return EnvironmentConfig.model_validate(entries)

    return build


@pytest.fixture(scope="session")
def library(library_config: ConfigFactory) -> Environment:
    return load_environment(library_config())


@pytest.fixture
def shelf(library: Environment, tmp_path: Path) -> Path:
    """An event database holding two known books: Dune (2 copies) and Emma (none left)."""
    path = tmp_path / "event.sqlite"
    library.create_database(path, seed=0, background=False)
    with library.session(path) as session:
        session.add(library.table("books")(isbn="111", title="Dune", copies=2))
        session.add(library.table("books")(isbn="222", title="Emma", copies=0))
    return path


PARCELS = Path(__file__).resolve().parent / "parcels"


@pytest.fixture(scope="session")
def parcels_config() -> ConfigFactory:
    """Build the parcel desk's config (ids of digits only, a tool with no argument), entries replaced by keyword."""

    def build(**changes: str | None) -> EnvironmentConfig:
        entries = {
            "policy": str(PARCELS / "parcels.md"),
            "schema": str(PARCELS / "schema.py"),
            "tools": str(PARCELS / "tools.py"),
            "background": str(PARCELS / "background.py"),
            **changes,
        }
        return EnvironmentConfig.model_validate(entries)

    return build


@pytest.fixture(scope="session")
def parcels(parcels_config: ConfigFactory) -> Environment:
    return load_environment(parcels_config())


@pytest.fixture
def depot(parcels: Environment, tmp_path: Path) -> Path:
    """The parcel desk's background world (seed 0) as an event's database."""
    path = tmp_path / "parcels.sqlite"
    parcels.create_database(path, seed=0)
    return path
