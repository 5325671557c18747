"""The scratch copy of the background world: each attempt sees the background, and leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from intellagent.environment import Environment, load_environment, worlds
from intellagent.environment.database import connect
from intellagent.populate import ScratchWorld
from tests.populate.conftest import shop_config


@pytest.fixture
def shop(tmp_path: Path) -> Environment:
    return load_environment(shop_config(tmp_path).environment)


@pytest.fixture
def background(shop: Environment, tmp_path: Path) -> Path:
    """The shop's tables, with one customer."""
    path = tmp_path / "background.sqlite"
    shop.create_database(path, seed=1, background=False)
    with connect(path) as connection, connection.begin():
        connection.exec_driver_sql("INSERT INTO shop_customers VALUES ('ada_byron_12', 'Ada', 'Byron', "
                                   "'ada@example.com', 'basic', NULL)")
    return path


def ada(shop: Environment, tier: str = "vip") -> SQLModel:
    return shop.table("shop_customers")(customer_id="ada_byron_12", first_name="Ada", last_name="Byron",
                                        email="ada@example.com", tier=tier)


def lamp(shop: Environment, sku: str = "SKU-1") -> SQLModel:
    return shop.table("shop_products")(sku=sku, name="Lamp", price=20, stock=3)


def test_an_attempt_sees_its_own_writes_as_changes_and_the_next_attempt_sees_the_background(
        shop: Environment, background: Path) -> None:
    before = worlds.root_digest(background)
    with ScratchWorld.open(background) as scratch:
        with scratch.attempt() as session:
            session.merge(ada(shop, tier="vip"))
            session.add(lamp(shop))
            session.commit()  # a session's commit stays inside its attempt
            found = scratch.changes(tables={"shop_customers", "shop_products"})
        with scratch.attempt() as session:
            assert session.get(shop.table("shop_customers"), "ada_byron_12").tier == "basic"
            assert session.get(shop.table("shop_products"), "SKU-1") is None
            assert scratch.changes() == {}

    assert found["shop_customers"].rows == [["ada_byron_12", "Ada", "Byron", "ada@example.com", "vip", None]]
    assert found["shop_products"].rows == [["SKU-1", "Lamp", 20, 3]]
    assert worlds.root_digest(background) == before


def test_a_failed_flush_and_an_exception_inside_an_attempt_are_undone(shop: Environment, background: Path) -> None:
    with ScratchWorld.open(background) as scratch:
        with scratch.attempt() as session:
            session.add(lamp(shop))
            session.flush()
            session.add(ada(shop))  # the background has this key already
            with pytest.raises(IntegrityError):
                session.flush()
            session.rollback()
            assert scratch.changes() == {}
        with pytest.raises(RuntimeError), scratch.attempt() as session:
            session.add(lamp(shop, sku="SKU-2"))
            session.flush()
            raise RuntimeError("the check failed half way")
        with scratch.attempt():
            assert scratch.changes() == {}


def test_the_copy_is_a_file_of_its_own_removed_on_exit(background: Path) -> None:
    with ScratchWorld.open(background) as scratch, scratch.attempt() as session:
        files = {name: Path(file) for _, name, file in session.connection().exec_driver_sql("PRAGMA database_list")}
        assert files["main"].is_file() and files["main"] != background and files["base"] == background

    assert not files["main"].exists() and background.is_file()
