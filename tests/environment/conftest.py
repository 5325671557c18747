"""The library domain, a second domain defined only here, loaded through the generic environment layer."""

from collections.abc import Callable
from pathlib import Path

import pytest

from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment

LIBRARY = Path(__file__).resolve().parent / "library"

ConfigFactory = Callable[..., EnvironmentConfig]


def domain_config(folder: Path, **entries: str) -> ConfigFactory:
    """A builder of a test domain's config: each module a .py file of `folder`, entries replaced by keyword."""

    def build(**changes: str | None) -> EnvironmentConfig:
        given = {key: str(folder / name) for key, name in entries.items()}
        return EnvironmentConfig.model_validate({**given, **changes})

    return build


@pytest.fixture(scope="session")
def library_config() -> ConfigFactory:
    """Build the library domain's config (every module as a .py path), with entries replaced by keyword."""
    return domain_config(LIBRARY, policy="library.md", schema="schema.py", tools="tools.py",
                         validators="validators.py", background="background.py")


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
    return domain_config(PARCELS, policy="parcels.md", schema="schema.py", tools="tools.py",
                         background="background.py")


@pytest.fixture(scope="session")
def parcels(parcels_config: ConfigFactory) -> Environment:
    return load_environment(parcels_config())


@pytest.fixture
def depot(parcels: Environment, tmp_path: Path) -> Path:
    """The parcel desk's background world (seed 0) as an event's database."""
    path = tmp_path / "parcels.sqlite"
    parcels.create_database(path, seed=0)
    return path


WALLET = Path(__file__).resolve().parent / "wallet"
CARD, INSTALL = "4000123412341234", 70213


@pytest.fixture(scope="session")
def wallet_config() -> ConfigFactory:
    """Build the card desk's config (a dual-control domain: the customer's banking app is the user's side)."""
    return domain_config(WALLET, policy="wallet.md", schema="schema.py", tools="tools.py", user_tools="user_tools.py")


@pytest.fixture(scope="session")
def wallet(wallet_config: ConfigFactory) -> Environment:
    return load_environment(wallet_config())


def blocked_card_world(wallet: Environment, path: Path) -> Path:
    """Create at `path` a world in which the customer's card is blocked and their app has online payments off."""
    wallet.create_database(path, seed=0, background=False)
    with wallet.session(path) as session:
        session.add(wallet.table("cards")(card_number=CARD, holder="Ines Okafor", date_of_birth="1990-01-31",
                                          blocked=True))
        session.add(wallet.table("apps")(install_id=INSTALL, card_number=CARD,
                                         settings={"online_payments": False, "contactless": True}))
    return path


@pytest.fixture
def wallet_world(wallet: Environment, tmp_path: Path) -> Path:
    """The blocked card's world (`blocked_card_world`)."""
    return blocked_card_world(wallet, tmp_path / "wallet.sqlite")
