"""Validating proposed rows: column types, foreign keys, then the domain's validators."""

import re
from pathlib import Path

import pytest
from sqlmodel import Field, Session, SQLModel

from intellagent.environment import Environment, RowRejected, validator
from intellagent.environment.validators import row_problems


def test_an_acceptable_row_has_no_problems(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        assert library.validate(library.table("books")(isbn="333", title="Kim", copies=1), session) == []


def test_a_validator_can_repair_the_row_in_place(library: Environment, shelf: Path) -> None:
    book = library.table("books")(isbn="333", title="  Kim ", copies=1)
    with library.session(shelf) as session:
        assert library.validate(book, session) == []
    assert book.title == "Kim"  # type: ignore[attr-defined]


def test_a_rejected_row_gets_the_validators_message(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        problems = library.validate(library.table("books")(isbn="333", title="Kim", copies=-1), session)
    assert problems == ["copies is -1; use 0 or more"]


def test_column_types_are_checked_first(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        problems = library.validate(library.table("books")(isbn="333", title="Kim", copies="many"), session)
    assert problems == [
        "books.copies: Input should be a valid integer, unable to parse string as an integer (got 'many')"
    ]


def test_a_foreign_key_must_point_at_an_existing_row(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        problems = library.validate(library.table("loans")(isbn="999", member="Ada", due="2024-06-01"), session)
    assert problems == ["loans: isbn='999' matches no row of books; refer to an existing one"]


def test_only_rows_of_the_domain_can_be_validated(library: Environment, shelf: Path) -> None:
    class Stranger(SQLModel):
        name: str

    with library.session(shelf) as session, pytest.raises(KeyError, match="not a table of library"):
        library.validate(Stranger(name="x"), session)  # type: ignore[arg-type]


def test_a_crashing_validator_is_reported_not_raised(library: Environment, shelf: Path) -> None:
    books = library.table("books")

    @validator(books)
    def divides(row: SQLModel, session: Session) -> None:
        raise ZeroDivisionError("division by zero")

    @validator(books)
    def rejects(row: SQLModel, session: Session) -> None:
        raise RowRejected("no")

    with library.session(shelf) as session:
        problems = row_problems(books(isbn="333", title="Kim", copies=1), session, [divides, rejects])
    raised = divides.check.__code__.co_firstlineno + 2  # the line of its raise, which the message points to
    assert re.fullmatch(rf"divides \(\S*test_environment_validators\.py:{raised}\) could not check the row "
                        r"\(ZeroDivisionError: division by zero\)", problems[0]), problems[0]
    assert problems[1:] == ["no"]


def test_validator_needs_a_table_class() -> None:
    class NotATable(SQLModel):
        id: int = Field(primary_key=True)

    with pytest.raises(Exception, match="needs a SQLModel table class"):
        validator(NotATable)


def test_checking_an_event_besides_its_background_loads_and_checks_only_the_rows_it_changed(
    library: Environment, tmp_path: Path
) -> None:
    from sqlalchemy import event

    world = tmp_path / "world.sqlite"
    library.create_database(world, seed=4)
    with library.session(world) as session:
        background = library.dump(session)
        kept = background["books"][0]["isbn"]
        session.get(library.table("books"), kept).copies = -1  # the row the event changed, now broken
        session.add(library.table("loans")(isbn="999", member="ann", due="2025-01-01"))  # a new row, broken too
    assert len(background["books"]) == 3  # two of them unchanged

    loaded = []
    listeners = [(library.table(name), lambda target, context: loaded.append(target)) for name in ("books", "loans")]
    for table, listener in listeners:
        event.listen(table, "load", listener)
    try:
        with library.session(world) as session:
            problems = list(library.broken_rows(session, besides=background))
    finally:
        for table, listener in listeners:
            event.remove(table, "load", listener)
    assert [p.split(" breaks ")[0] for p in problems] == [f"books row ('{kept}')", "loans row ('999', 'ann')"]
    assert len(loaded) == 2  # the other rows were compared as plain rows, never made objects


def test_checking_a_whole_world_finds_every_dangling_reference_with_one_query_per_reference(
    library: Environment, tmp_path: Path
) -> None:
    from sqlalchemy import event

    world = tmp_path / "world.sqlite"
    library.create_database(world, seed=4)
    loans = library.table("loans")
    with library.session(world) as session:
        isbn = library.dump(session)["books"][0]["isbn"]
        session.add_all([loans(isbn=isbn, member=f"m{n}", due="2025-01-01") for n in range(20)])
        session.add_all([loans(isbn="999", member="ann", due="2025-01-01"),
                         loans(isbn="998", member="bo", due="2025-01-01")])
    statements: list[str] = []

    def count(connection, cursor, statement, *args) -> None:
        statements.append(statement)

    with library.session(world) as session:
        event.listen(session.connection(), "before_cursor_execute", count)
        try:
            problems = list(library.broken_rows(session))
        finally:
            event.remove(session.connection(), "before_cursor_execute", count)
    assert problems == [
        f"loans row ('{isbn}', '{member}') breaks foreign keys: loans: isbn='{isbn}' matches no row of books; "
        "refer to an existing one" for isbn, member in (("998", "bo"), ("999", "ann"))
    ]
    assert len(statements) == 3  # the books, the loans, and once the keys the loans may name (not once per loan)


def test_a_tables_own_field_validator_still_judges_its_types() -> None:
    from pydantic import field_validator

    class Shout(SQLModel, table=True):
        __tablename__ = "shouts"
        id: int = Field(primary_key=True)
        text: str

        @field_validator("text")
        @classmethod
        def loud(cls, value: str) -> str:
            if value != value.upper():
                raise ValueError("must be in capitals")
            return value

    with Session() as session:
        assert row_problems(Shout(id=1, text="HEY"), session, []) == []
        assert row_problems(Shout(id=2, text="hey"), session, []) == [
            "shouts.text: Value error, must be in capitals (got 'hey')"]
