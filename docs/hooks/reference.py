"""The reference tables of the documentation, written from the code as the site is built (an MkDocs hook).

A page asks for a table with a marker on a line of its own:

- `<!-- reference: config -->`: every configuration key, section by section, from the config models
  (`intellagent.config.Config` and the models under it): its type, default, bounds and description;
- `<!-- reference: options -->`: every option of the command line, from its argparse parser
  (`intellagent.cli.parser`), with its help;
- `<!-- reference: overrides -->`: every keyword of the Python API that overrides the config, from the overrides'
  declaration (`intellagent.overrides.OVERRIDES`): what it takes, the config key it replaces, what it does.

So the tables cannot drift from the code. A key without a description, or a marker no table answers,
is a warning, which `mkdocs build --strict` (the test suite's build) turns into a failure.
"""

from __future__ import annotations

import argparse
import html
import json
import logging
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from intellagent.cli import parser as command_line
from intellagent.config import Config
from intellagent.llm.spec import ModelSpec
from intellagent.overrides import OVERRIDES, Override

log = logging.getLogger("mkdocs.hooks.reference")  # under mkdocs: a warning fails a strict build

MARKER = re.compile(r"^<!-- reference: (?P<name>[a-z]+) -->$", re.MULTILINE)

SPEC_FORM = "model"
"""How a model's type reads: a SPEC string (`openai:gpt-4o`) or a block of `ModelSpec`'s keys."""


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs' hook: each marker of the page replaced by its table."""
    def table(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in TABLES:
            log.warning("%s: no reference table is named %r; the tables are %s", page.file.src_path, name,
                        ", ".join(TABLES))
            return match.group(0)
        return TABLES[name]()
    return MARKER.sub(table, markdown)


# --- the configuration -------------------------------------------------------------------------------------

class Key:
    """One configuration key as the reference shows it: its dotted path and its field."""

    def __init__(self, path: str, field: FieldInfo) -> None:
        self.path, self.field = path, field

    @property
    def description(self) -> str:
        """What the key does: its field's description, else (a section) its model's docstring."""
        if self.field.description:
            return self.field.description
        block = block_of(self.field.annotation)
        return " ".join((block[1].__doc__ or "").split()) if block else ""

    def row(self) -> str:
        """The key's line of its section's table."""
        if not self.description:
            log.warning("configuration key %s has no description: give its Field one", self.path)
        cells = [f"`{self.path}`", type_text(self.field.annotation) + bounds_text(self.field),
                 default_text(self.field), _cell(self.description)]
        return "| " + " | ".join(cells) + " |"


def block_of(annotation: Any) -> tuple[str, type[BaseModel]] | None:
    """For a key whose value holds keys of its own — a section, a mapping of named blocks, a list of blocks —
    how its keys' paths go on from it (``, `.NAME`, `[]`) and the model of those keys. A model SPEC is not
    one: it reads as one value, and its block is shown once for every key that takes a model."""
    options = [option for option in members(annotation) if option is not type(None)]
    if len(options) != 1:
        return None
    origin, args = get_origin(options[0]), get_args(options[0])
    shapes = [("", options[0])]
    if origin is dict:
        shapes = [(".NAME", args[1])]
    elif origin is list:
        shapes = [("[]", args[0])]
    suffix, model = shapes[0]
    if isinstance(model, type) and issubclass(model, BaseModel) and model is not ModelSpec:
        return suffix, model
    return None


def sections(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, list[Key]]]:
    """Each section of a model's keys, its own first, as (its path, its keys); a key whose value holds keys of
    its own is listed in its section and then has a section of its own."""
    keys, nested = [], []
    for name, field in model.model_fields.items():
        path = f"{prefix}{field.alias or name}"
        if path.endswith(".NAME.name"):
            continue  # a named block's name is the key it is given under
        keys.append(Key(path, field))
        block = block_of(field.annotation)
        if block is not None:
            nested.append((path + block[0], block[1]))
    yield prefix.rstrip("."), keys
    for path, section in nested:
        yield from sections(section, f"{path}.")


def config_tables() -> str:
    """Every section's table, then the keys of a model's block, which every key that takes a model shares."""
    parts = []
    for path, keys in sections(Config):
        parts.append(f"### `{path}`\n" if path else "### The top level\n")
        parts.append(_table(keys))
    parts.append("### A model\n")
    parts.append("A key that takes a model (`llm.default` and every role under `llm`, `chatbot.llm`) takes a SPEC "
                 "string (`local`, `openai:MODEL`, …; see [Models](../models.md)) or a block of these keys:\n")
    for path, keys in sections(ModelSpec, "llm.ROLE."):
        parts.append(f"#### `{path}`\n" if path != "llm.ROLE" else "")
        parts.append(_table(keys))
    return "\n".join(part for part in parts if part)


def _table(keys: list[Key]) -> str:
    head = "| key | type | default | what it does |\n| --- | --- | --- | --- |\n"
    return head + "\n".join(key.row() for key in keys) + "\n"


def type_text(annotation: Any, *, inside: bool = False) -> str:
    """A type in a reader's words: `int`, `"a" \\| "b"`, `list of str`, `mapping of str to float`, a `section` of
    keys, or (`inside` a list or mapping) a `block` of them."""
    options = members(annotation)
    if len(options) > 1:
        shown = [type_text(a, inside=inside) for a in options if a is not type(None)]
        return " or ".join(dict.fromkeys(shown)) + (" or null" if type(None) in options else "")
    annotation = options[0]
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " \\| ".join(f"`{json.dumps(a)}`" for a in args)
    if origin is list:
        item = type_text(args[0], inside=True)
        return f"list of {'blocks' if item == 'block' else item}"
    if origin is dict:
        return f"mapping of {type_text(args[0], inside=True)} to {type_text(args[1], inside=True)}"
    if origin is tuple:
        return "[" + ", ".join(type_text(a, inside=True) for a in args) + "]"
    if annotation is ModelSpec:
        return SPEC_FORM
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "block" if inside else "section"
    if annotation is Path:
        return "path"
    return getattr(annotation, "__name__", str(annotation))


def members(annotation: Any) -> list[Any]:
    """The members of a union (one for any other type), each without its `Annotated` metadata."""
    if get_origin(annotation) is Annotated:
        return members(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        return [option for arg in get_args(annotation) for option in members(arg)]
    return [annotation]


def default_text(field: FieldInfo) -> str:
    """A field's default as it would be written in YAML, or *required*."""
    if field.is_required():
        return "*required*"
    block = block_of(field.annotation)
    if block is not None and block[0] == "":
        return "its keys' defaults"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, ModelSpec):
        return f"`{value.label}`"
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, tuple):
        value = list(value)
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def bounds_text(field: FieldInfo) -> str:
    """The bounds a field's value must keep, to follow its type (`, ≥ 1`; none: nothing)."""
    signs = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    bounds = [f"{signs[name]} {getattr(item, name)}" for item in field.metadata for name in signs
              if getattr(item, name, None) is not None]
    return f", {', '.join(bounds)}" if bounds else ""


def _cell(text: str) -> str:
    """Text as one cell of a Markdown table: on one line, its pipes and angle brackets shown as themselves."""
    return html.escape(" ".join(text.split()), quote=False).replace("|", "\\|")


# --- the command line --------------------------------------------------------------------------------------

def option_table() -> str:
    """Every option of `run.py` (and of the installed `intellagent` command), in the parser's order."""
    rows = ["| option | meaning |", "| --- | --- |"]
    for action in command_line()._actions:
        if isinstance(action, argparse._HelpAction):
            rows.append("| `-h`, `--help` | show the options, the model SPECs and the exit codes, and exit |")
            continue
        if not action.help:
            log.warning("command-line option %s has no help: give it one", "/".join(action.option_strings))
        rows.append(f"| {option_text(action)} | {_cell((action.help or '').replace('%%', '%'))} |")
    return "\n".join(rows) + "\n"


def option_text(action: argparse.Action) -> str:
    """How an option is written: `--executor local|ray`, `--trials K|auto`, `--fresh`."""
    if action.nargs == 0:
        value = ""
    elif action.choices:
        value = " " + "|".join(str(choice) for choice in action.choices)  # a code span keeps its pipes
    else:
        value = " " + (action.metavar or action.dest.upper())
    return ", ".join(f"`{option}{value}`" for option in action.option_strings)


# --- the Python API's overrides -----------------------------------------------------------------------------

def override_table() -> str:
    """Every keyword of the Python API that overrides the config, in the declaration's order."""
    rows = ["| keyword | takes | replaces | what it does |", "| --- | --- | --- | --- |"]
    rows += [f"| `{override.name}` | {_cell(_takes(override))} | `{override.key}` | {_cell(override.help)} |"
             for override in OVERRIDES if override.api]
    return "\n".join(rows) + "\n"


def _takes(override: Override) -> str:
    """What an override's keyword takes, in a few words: one of its choices, True, or its flag's value."""
    if override.choices:
        return " or ".join(f"`{choice}`" for choice in override.choices)
    if override.switch:
        return "`True`"
    return override.metavar or ("a mapping of names to rates" if override.type == dict[str, float] else "a value")


TABLES = {"config": config_tables, "options": option_table, "overrides": override_table}
