"""Loading a domain: what a valid one gives, and the one-line error of each broken one."""

from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

import pytest

from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment
from intellagent.errors import UsageError
from tests.store import environment as store_environment

ConfigFactory = Callable[..., EnvironmentConfig]

REPO = Path(__file__).resolve().parents[2]


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(dedent(text))
    return str(path)


def load_error(config: EnvironmentConfig) -> str:
    with pytest.raises(UsageError) as caught:
        load_environment(config)
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def test_library_domain_loads_with_its_name_policy_tables_and_tools(library: Environment) -> None:
    assert library.name == "library"
    assert library.policy.startswith("# Library Desk Policy")
    assert [table.__tablename__ for table in library.tables] == ["books", "loans"]
    assert [tool.name for tool in library.tools] == ["find_book", "lend_book"]
    assert [check.name for check in library.validators] == ["copies_not_negative", "title_trimmed"]


def test_loading_twice_reuses_the_same_modules(library: Environment, library_config: ConfigFactory) -> None:
    again = load_environment(library_config())
    assert again.tables == library.tables


def test_table_lookup_lists_the_known_tables(library: Environment) -> None:
    assert library.table("loans").__name__ == "Loan"
    with pytest.raises(KeyError, match="books, loans"):
        library.table("members")


def test_validators_and_background_are_optional(library_config: ConfigFactory) -> None:
    env = load_environment(library_config(validators=None, background=None))
    assert env.validators == [] and env.background is None


def test_nothing_in_the_environment_layer_names_a_domain() -> None:
    sources = (REPO / "intellagent" / "environment").rglob("*.py")
    assert not [path.name for path in sources if "airline" in path.read_text().lower()]


def test_missing_policy_file(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(policy=str(tmp_path / "nowhere.md")))
    assert message.startswith("environment.policy: file") and "not found" in message


def test_empty_policy_file(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(policy=write(tmp_path, "blank.md", "\n  \n")))
    assert "is empty" in message


def test_missing_module_by_dotted_name(library_config: ConfigFactory) -> None:
    message = load_error(library_config(tools="nowhere.tools"))
    assert message.startswith("environment.tools: module nowhere.tools not found")


def test_missing_module_file(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(validators=str(tmp_path / "gone.py")))
    assert message.startswith("environment.validators: file") and "not found" in message


def test_module_that_fails_to_import(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(tools=write(tmp_path, "broken.py", "def oops(:\n")))
    assert message.startswith("environment.tools: importing") and "SyntaxError" in message


def test_tool_without_docstring(library_config: ConfigFactory, tmp_path: Path) -> None:
    tools = write(tmp_path, "tools.py", '''
        from intellagent.environment import tool

        @tool(writes=False)
        def shout(text: str) -> str:
            return text.upper()
    ''')
    message = load_error(library_config(tools=tools))
    assert "tool `shout`" in message and "has no docstring" in message


def test_tool_without_type_hints(library_config: ConfigFactory, tmp_path: Path) -> None:
    tools = write(tmp_path, "tools.py", '''
        from intellagent.environment import tool

        @tool(writes=False)
        def shout(text) -> str:
            """Shout.

            Args:
                text: what to shout.
            """
            return text.upper()
    ''')
    assert "parameter `text` has no type hint" in load_error(library_config(tools=tools))


def test_tool_argument_missing_from_docstring(library_config: ConfigFactory, tmp_path: Path) -> None:
    tools = write(tmp_path, "tools.py", '''
        from intellagent.environment import tool

        @tool(writes=False)
        def shout(text: str, times: int) -> str:
            """Shout.

            Args:
                text: what to shout.
            """
            return text.upper() * times
    ''')
    assert "argument `times` is not described" in load_error(library_config(tools=tools))


def test_a_tool_with_an_argument_and_no_args_section_is_told_which_argument_to_describe(
    library_config: ConfigFactory, tmp_path: Path
) -> None:
    tools = write(tmp_path, "tools.py", '''
        from intellagent.environment import InjectedSession, tool

        @tool(writes=False)
        def shout(session: InjectedSession, text: str) -> str:
            """Shout."""
            return text.upper()
    ''')
    assert "argument `text` is not described under `Args:`" in load_error(library_config(tools=tools))


def test_session_parameter_must_be_injected(library_config: ConfigFactory, tmp_path: Path) -> None:
    tools = write(tmp_path, "tools.py", '''
        from sqlmodel import Session
        from intellagent.environment import tool

        @tool(writes=False)
        def count(session: Session) -> int:
            """Count nothing."""
            return 0
    ''')
    assert "type it InjectedSession" in load_error(library_config(tools=tools))


def test_module_without_tools(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(tools=write(tmp_path, "tools.py", "def helper() -> None: ...\n")))
    assert message.startswith("environment.tools:") and "defines no tool" in message


def test_schema_without_tables(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(schema=write(tmp_path, "schema.py", "from sqlmodel import SQLModel\n")))
    assert message.startswith("environment.schema:") and "defines no table" in message


def test_table_without_primary_key(library_config: ConfigFactory, tmp_path: Path) -> None:
    schema = write(tmp_path, "schema.py", '''
        from sqlmodel import SQLModel

        class Shelf(SQLModel, table=True):
            __tablename__ = "keyless_shelves"
            label: str
    ''')
    message = load_error(library_config(schema=schema))
    assert "keyless_shelves" in message and "Field(primary_key=True)" in message


def test_validator_for_a_table_outside_the_schema(library_config: ConfigFactory, tmp_path: Path) -> None:
    validators = write(tmp_path, "validators.py", '''
        from sqlmodel import Field, SQLModel
        from intellagent.environment import validator

        class Stray(SQLModel, table=True):
            __tablename__ = "stray_rows"
            id: int = Field(primary_key=True)

        @validator(Stray)
        def stray_is_fine(row, session) -> None:
            pass
    ''')
    message = load_error(library_config(validators=validators))
    assert "stray_is_fine validates Stray, which is not a table of the schema module" in message


def test_validators_module_without_validators(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(validators=write(tmp_path, "validators.py", "RULES = []\n")))
    assert "defines no validator" in message


def test_background_module_without_generate(library_config: ConfigFactory, tmp_path: Path) -> None:
    message = load_error(library_config(background=write(tmp_path, "background.py", "def build() -> None: ...\n")))
    assert "has no generate(session, seed) function" in message



def test_world_rule_reading_a_table_outside_the_schema(tmp_path: Path) -> None:
    validators = write(tmp_path, "validators.py", '''
        from sqlmodel import Field, SQLModel
        from intellagent.environment import validator
        from tests.store.schema import Order

        class Note(SQLModel, table=True):
            __tablename__ = "stray_notes"
            id: int = Field(primary_key=True)

        @validator(Order, related=(Note,))
        def orders_have_notes(order, session) -> None:
            pass
    ''')
    message = load_error(EnvironmentConfig.model_validate(store_environment(validators=validators)))
    assert "orders_have_notes reads Note, which is not a table of the schema module" in message
