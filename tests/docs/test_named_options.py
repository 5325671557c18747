"""The options and configuration keys the documentation names exist in the code: a flag renamed or a key
removed leaves no page (nor the README) telling readers to use it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from intellagent.artifacts import Report
from intellagent.cli import parser, view_parser
from intellagent.config import Config
from tests.docs.site_hook import reference_hook

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
DOTTED_KEY = re.compile(r"`(?P<key>[a-z_]+(?:\.[A-Za-z_]+)+)")
FILE_SUFFIXES = {"json", "jsonl", "html", "xml", "sqlite", "yml", "md", "py", "mmd", "pseudo"}
DECLARED_FLAG = re.compile(r"""(?:add_argument|addoption)\(\s*["'](--[a-z][a-z0-9-]*)["']""")
OTHER_TOOLS = {"--strict"}  # mkdocs build's, which the development page names


def flags_of_the_project() -> set[str]:
    """Every option a command of the project declares: run.py's and its view's, the pytest plugin's, the
    benchmarks' and the example server's."""
    declared = {option for command in (parser(), view_parser()) for action in command._actions
                for option in action.option_strings}
    for path in [ROOT / "intellagent" / "pytest_plugin.py", *(ROOT / "benchmarks").glob("*.py"),
                 *(ROOT / "examples").rglob("*.py")]:
        declared |= set(DECLARED_FLAG.findall(path.read_text()))
    return declared | OTHER_TOOLS


def resolves(annotation: Any, parts: list[str]) -> bool:
    """Whether the dotted parts name a key under a value of this type (a mapping's keys are any name)."""
    if not parts:
        return True
    for option in reference_hook().members(annotation):
        if get_origin(option) is dict and resolves(get_args(option)[1], parts[1:]):
            return True
        if isinstance(option, type) and issubclass(option, BaseModel):
            fields = {field.alias or name: field for name, field in option.model_fields.items()}
            if parts[0] in fields and resolves(fields[parts[0]].annotation, parts[1:]):
                return True
    return False


def unknown_keys(text: str) -> list[str]:
    """The dotted names of configuration keys in the text's code spans that no config model has. A name under
    `report.` may also be an attribute of the report the Python API returns; a file name is no key."""
    sections = {field.alias or name for name, field in Config.model_fields.items()}
    unknown = []
    for match in DOTTED_KEY.finditer(text):
        parts = match.group("key").split(".")
        if parts[0] not in sections or parts[-1] in FILE_SUFFIXES:
            continue
        if not resolves(Config, parts) and not (parts[0] == "report" and resolves(Report, parts[1:])):
            unknown.append(match.group("key"))
    return unknown


@pytest.mark.parametrize("page", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_option_a_page_names_is_one_a_command_of_the_project_declares(page: Path) -> None:
    unknown = sorted(set(FLAG.findall(page.read_text())) - flags_of_the_project())
    assert not unknown, f"{page.relative_to(ROOT)} names options no command has: {unknown}"


@pytest.mark.parametrize("page", PAGES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_configuration_key_a_page_names_is_one_the_config_has(page: Path) -> None:
    unknown = unknown_keys(page.read_text())
    assert not unknown, f"{page.relative_to(ROOT)} names configuration keys the config does not have: {unknown}"


def test_a_key_the_config_lacks_is_found_and_a_file_name_or_report_attribute_is_not() -> None:
    text = "`simulate.max_turns`, `simulate.max_turn`, `report.json`, `report.gate`, `llm.user.rate.tokens_per_minute`"
    assert unknown_keys(text) == ["simulate.max_turn"]
