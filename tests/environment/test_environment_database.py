"""Per-event databases: creation, seeding, isolation, and the canonical dump and digest."""

from pathlib import Path

import pytest

from intellagent.environment import Environment, worlds


def test_a_new_database_has_every_table_and_no_rows_without_background(library: Environment, tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    library.create_database(path, seed=1, background=False)
    with library.session(path) as session:
        assert library.dump(session) == {"books": [], "loans": []}


def test_the_background_world_is_seeded(library: Environment, tmp_path: Path) -> None:
    first, again, other = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "c.sqlite"
    library.create_database(first, seed=7)
    library.create_database(again, seed=7)
    library.create_database(other, seed=8)
    assert first.read_bytes() == again.read_bytes()
    for path in (first, again, other):
        with library.session(path) as session:
            assert len(library.dump(session)["books"]) == 3
    assert worlds.root_digest(first) == worlds.root_digest(again) != worlds.root_digest(other)


def test_creating_a_database_replaces_an_old_file(library: Environment, shelf: Path) -> None:
    library.create_database(shelf, seed=0, background=False)
    with library.session(shelf) as session:
        assert library.dump(session)["books"] == []


def test_two_events_changing_the_same_row_do_not_see_each_other(library: Environment, tmp_path: Path) -> None:
    events = [tmp_path / "one.sqlite", tmp_path / "two.sqlite"]
    for path in events:
        library.create_database(path, seed=0, background=False)
        with library.session(path) as session:
            session.add(library.table("books")(isbn="111", title="Dune", copies=2))
    with library.session(events[0]) as one, library.session(events[1]) as two:
        library.call_tool(one, "lend_book", {"isbn": "111", "member": "Ada"})
        library.call_tool(two, "lend_book", {"isbn": "111", "member": "Bob"})
        library.call_tool(two, "lend_book", {"isbn": "111", "member": "Cy"})
    with library.session(events[0]) as one, library.session(events[1]) as two:
        assert [loan["member"] for loan in library.dump(one)["loans"]] == ["Ada"]
        assert [loan["member"] for loan in library.dump(two)["loans"]] == ["Bob", "Cy"]
        assert library.dump(one)["books"][0]["copies"] == 1
        assert library.dump(two)["books"][0]["copies"] == 0


def test_dump_sorts_rows_by_primary_key_so_it_ignores_write_order(library: Environment, tmp_path: Path) -> None:
    paths = [tmp_path / "forward.sqlite", tmp_path / "backward.sqlite"]
    books = [("333", "Kim"), ("111", "Dune"), ("222", "Emma")]
    for path, order in zip(paths, (books, books[::-1]), strict=True):
        library.create_database(path, seed=0, background=False)
        with library.session(path) as session:
            session.add_all(library.table("books")(isbn=isbn, title=title, copies=1) for isbn, title in order)
    with library.session(paths[0]) as forward, library.session(paths[1]) as backward:
        assert [book["isbn"] for book in library.dump(forward)["books"]] == ["111", "222", "333"]
        assert library.dump(forward)["books"][0] == {"isbn": "111", "title": "Dune", "copies": 1}
        assert library.dump(forward) == library.dump(backward)
    assert worlds.root_digest(paths[0]) == worlds.root_digest(paths[1])


def test_exact_numbers_keep_int_float_and_negative_zero(library: Environment, shelf: Path) -> None:
    loan = library.table("loans")
    with library.session(shelf) as session:
        fines = (("a", 2), ("b", 2.0), ("c", -0.0))
        session.add_all(loan(isbn="111", member=member, due="2024-06-01", fine=fine) for member, fine in fines)
    with library.session(shelf) as session:
        fines = [row["fine"] for row in library.dump(session)["loans"]]
    assert [(type(fine), str(fine)) for fine in fines] == [(int, "2"), (float, "2.0"), (float, "-0.0")]


def test_the_digest_tells_int_from_float(library: Environment, shelf: Path) -> None:
    loan = library.table("loans")
    digests = []
    for fine in (2, 2.0):
        with library.session(shelf) as session:
            session.merge(loan(isbn="111", member="a", due="2024-06-01", fine=fine))
        digests.append(worlds.root_digest(shelf))
    assert digests[0] != digests[1]


def test_a_session_needs_an_existing_database(library: Environment, tmp_path: Path) -> None:
    with (
        pytest.raises(FileNotFoundError, match="create it with create_database first"),
        library.session(tmp_path / "missing.sqlite"),
    ):
        pass


def _orm_dump(env: Environment, path: Path) -> dict:
    """The dump as every row's model serialises it: what the plain-row reading must equal."""
    from sqlmodel import select

    with env.session(path) as session:
        return {table.__tablename__: [row.model_dump(mode="json") for row in session.exec(
            select(table).order_by(*table.__table__.primary_key.columns)).all()] for table in env.tables}


def test_the_dump_of_a_whole_world_is_what_each_rows_model_would_serialise(tmp_path: Path) -> None:
    from intellagent.config import load_config
    from intellagent.environment.loading import load_environment

    airline = load_environment(load_config("airline.yml").environment)
    airline.create_database(tmp_path / "world.db", seed=3)
    with airline.session(tmp_path / "world.db") as session:
        dumped = airline.dump(session)
    assert sum(map(len, dumped.values())) > 1000
    assert dumped == _orm_dump(airline, tmp_path / "world.db")
    assert all(list(row) == list(table.model_fields) for table in airline.tables for row in dumped[table.__tablename__])


def test_a_table_whose_model_serialises_its_own_way_is_dumped_through_the_model(tmp_path: Path) -> None:
    from pydantic import field_serializer
    from sqlmodel import Field, SQLModel

    from intellagent.environment import database

    class Shelf(SQLModel, table=True):
        __tablename__ = "shelves_serialised"
        id: int = Field(primary_key=True)
        label: str

        @field_serializer("label")
        def _upper(self, label: str) -> str:
            return label.upper()

    database.create_database(tmp_path / "shelf.db", [Shelf], seed=1)
    with database.open_session(tmp_path / "shelf.db") as session:
        session.add(Shelf(id=1, label="poetry"))
    with database.open_session(tmp_path / "shelf.db") as session:
        assert database.dump(session, [Shelf]) == {"shelves_serialised": [{"id": 1, "label": "POETRY"}]}


def test_a_row_read_back_lists_its_fields_in_the_order_its_table_declares(tmp_path: Path) -> None:
    """SQLAlchemy fills a loaded row in an order that changes from process to process; a tool returning
    `row.model_dump()` must show the chatbot the same text in every process (a Ray worker, a replay)."""
    from sqlmodel import Field, SQLModel

    from intellagent.environment import database

    class Ledger(SQLModel, table=True):
        __tablename__ = "ledger_in_order"
        zeta: str = Field(primary_key=True)
        alpha: str
        mike: int
        bravo: float
        yankee: str
        charlie: int
        xray: str
        delta: str

    values = {"zeta": "z", "alpha": "a", "mike": 1, "bravo": 2.0, "yankee": "y", "charlie": 3, "xray": "x",
              "delta": "d"}
    database.create_database(tmp_path / "ledger.db", [Ledger], seed=1)
    with database.open_session(tmp_path / "ledger.db") as session:
        session.add(Ledger(**values))
    with database.open_session(tmp_path / "ledger.db") as session:
        row = session.get(Ledger, "z")
        assert list(row.model_dump()) == list(values)
        row.mike = 5
        session.commit()  # expires the row: reading it again refreshes it
        session.refresh(row)
        assert list(row.model_dump()) == list(values)
