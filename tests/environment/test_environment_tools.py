"""Tools: schemas derived from the functions, and calls that never raise."""

import json
from pathlib import Path

from pydantic import ConfigDict
from typing_extensions import TypedDict

from intellagent.environment import Environment
from intellagent.environment.tools import InjectedSession, tool


def test_schema_comes_from_signature_and_docstring_without_the_session(library: Environment) -> None:
    lend = library.tool("lend_book")
    assert lend.description == "Lend a copy of a book to a member."
    assert lend.parameters["properties"] == {
        "isbn": {"type": "string", "description": "The book's ISBN."},
        "member": {"type": "string", "description": "The member's name."},
    }
    assert lend.parameters["required"] == ["isbn", "member"]


def test_tool_schemas_are_in_function_calling_format(library: Environment) -> None:
    schemas = library.tool_schemas()
    assert [schema["type"] for schema in schemas] == ["function", "function"]
    assert schemas[0]["function"]["name"] == "find_book"
    assert set(schemas[0]["function"]) == {"name", "description", "parameters"}


def test_tools_declare_whether_they_write(library: Environment) -> None:
    assert [(t.name, t.writes, t.ends_dialog) for t in library.tools] == [
        ("find_book", False, False),
        ("lend_book", True, False),
    ]


def test_a_structured_result_is_returned_as_json(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        assert json.loads(library.call_tool(session, "find_book", {"isbn": "111"})) == {"title": "Dune", "copies": 2}


def test_a_successful_write_is_committed(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        assert library.call_tool(session, "lend_book", {"isbn": "111", "member": "Ada"}) == "lent Dune to Ada"
    with library.session(shelf) as session:
        assert session.get(library.table("books"), "111").copies == 1  # type: ignore[union-attr]
        assert session.get(library.table("loans"), ("111", "Ada")) is not None


def test_an_unknown_tool_is_an_error_naming_the_tools(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        reply = library.call_tool(session, "burn_book", {})
    assert reply == "Error: unknown tool 'burn_book'; the tools are find_book, lend_book"


def test_missing_arguments_are_an_error(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        reply = library.call_tool(session, "lend_book", {"isbn": "111"})
    assert reply == "Error: invalid arguments for lend_book: member: Field required"


def test_wrongly_typed_arguments_are_an_error(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        reply = library.call_tool(session, "find_book", {"isbn": ["111"]})
    assert reply.startswith("Error: invalid arguments for find_book: isbn: Input should be a valid string")


def test_unexpected_arguments_are_an_error(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        reply = library.call_tool(session, "find_book", {"isbn": "111", "session": "x"})
    assert reply == "Error: find_book got unexpected arguments session; its arguments are isbn"


def test_arguments_must_be_an_object(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        reply = library.call_tool(session, "find_book", "111")  # type: ignore[arg-type]
    assert reply == "Error: arguments of find_book must be a JSON object, got str"


def test_an_exception_becomes_an_error_and_its_writes_are_rolled_back(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        assert (
            library.call_tool(session, "lend_book", {"isbn": "111", "member": " "}) == "Error: member must not be blank"
        )
        assert library.call_tool(session, "lend_book", {"isbn": "999", "member": "Ada"}) == "Error: no book 999"
    with library.session(shelf) as session:
        assert session.get(library.table("books"), "111").copies == 2  # type: ignore[union-attr]


def test_a_write_the_database_refuses_is_an_error(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        library.call_tool(session, "lend_book", {"isbn": "111", "member": "Ada"})
        reply = library.call_tool(session, "lend_book", {"isbn": "111", "member": "Ada"})
        assert reply == "Error: (sqlite3.IntegrityError) UNIQUE constraint failed: loans.isbn, loans.member"
        assert session.get(library.table("books"), "111").copies == 1  # type: ignore[union-attr]


def test_a_tool_can_be_called_directly(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        assert library.tool("find_book")(session, isbn="222") == {"title": "Emma", "copies": 0}


def test_a_tool_whose_only_parameter_is_the_session_needs_no_args_section(parcels: Environment, depot: Path) -> None:
    listing = parcels.tool("list_depots")
    assert listing.description == "List every depot with its city."
    assert listing.parameters == {"properties": {}, "type": "object"}
    with parcels.session(depot) as session:
        depots = json.loads(parcels.call_tool(session, "list_depots", {}))
    assert sorted(depot["code"] for depot in depots) == ["LDS2", "LON3", "MAN1"]


class _Line(TypedDict):
    """A line of an order."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]
    sku: str
    properties: dict[str, str]


@tool(writes=True)
def _place(session: InjectedSession, lines: list[_Line], note: dict[str, str]) -> str:
    """Place an order.

    Args:
        lines: the order's lines.
        note: free-form notes.
    """
    return "placed"


def test_the_closed_schema_refuses_keys_only_where_the_fields_are_named() -> None:
    assert _place.parameters["properties"]["lines"]["items"]["additionalProperties"] is True  # callers may send more
    closed = _place.closed_parameters()
    line = closed["properties"]["lines"]["items"]
    assert closed["additionalProperties"] is False and line["additionalProperties"] is False
    assert set(line["properties"]) == {"sku", "properties"}  # a field named like the keyword is still a field
    assert line["properties"]["properties"].get("additionalProperties") is not False  # free-form: open
    assert closed["properties"]["note"].get("additionalProperties") is not False
    assert _place.parameters["properties"]["lines"]["items"]["additionalProperties"] is True  # not changed in place
