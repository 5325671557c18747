"""Load a domain from its config: policy text, table, tool, validator and background modules.

Everything is checked here, before any stage spends an LLM call on it, and every problem is one
`UsageError` line that names the config key, the file or module, and the fix.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from sqlalchemy.schema import sort_tables
from sqlmodel import Session, SQLModel

from intellagent.config import EnvironmentConfig
from intellagent.environment.checks import Check
from intellagent.environment.environment import Environment, TauDomain
from intellagent.environment.tools import Tool
from intellagent.environment.validators import Validator, is_table
from intellagent.errors import UsageError
from intellagent.imports import import_user_module


def load_environment(config: EnvironmentConfig) -> Environment:
    """Import and check the domain named by `config`.

    Raises:
        UsageError: a file or module is missing or fails to import, a module defines none of what it
            should, a tool lacks a docstring or type hints, a table lacks a primary key, a validator
            names a table the schema does not have, or the user's tools have no table of theirs to act on.
    """
    policy = _read_policy(Path(config.policy))
    tables = _tables(_import(config.schema_module, "schema"), config.schema_module)
    tools = _tools(_import(config.tools, "tools"), config.tools)
    user_tools = _user_tools(config.user_tools, tables, tools) if config.user_tools else []
    validators: list[Validator] = []
    if config.validators:
        validators = _validators(_import(config.validators, "validators"), config.validators, tables)
    background = None
    if config.background:
        background = _background(_import(config.background, "background"), config.background)
    checks: list[Check] = []
    if config.checks:
        checks = _members(_import(config.checks, "checks"), lambda value: isinstance(value, Check))
        if not checks:
            raise UsageError(f"environment.checks: {config.checks} defines no check; add a @check function or "
                             "remove `checks` from the config")
    tau = as_tau_domain(_import(config.tau, "tau"), config.tau) if config.tau else None
    sync = _sync(_import(config.sync, "sync"), config.sync) if config.sync else None
    solo_policy = _read_policy(Path(config.solo_policy), key="solo_policy") if config.solo_policy else None
    if (sync or solo_policy) and not user_tools:
        key = "sync" if sync else "solo_policy"
        raise UsageError(f"environment.{key} is for a domain whose user has tools of its own; set "
                         f"environment.user_tools, or remove environment.{key}")
    return Environment(
        name=Path(config.policy).stem,
        policy=policy,
        tables=tables,
        tools=tools,
        validators=validators,
        background=background,
        checks=checks,
        tau=tau,
        user_tools=user_tools,
        sync=sync,
        solo_policy=solo_policy,
    )


def _read_policy(path: Path, *, key: str = "policy") -> str:
    if not path.is_file():
        raise UsageError(f"environment.{key}: file {path} not found; fix the path")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"environment.{key}: {path} is not UTF-8 text ({error.reason} at byte {error.start}); "
                         "save it as UTF-8") from None
    if not text.strip():
        raise UsageError(f"environment.{key}: {path} is empty; write the chatbot's policy in it")
    return text


def _sync(module: ModuleType, reference: str) -> Callable[[Session], None]:
    function = getattr(module, "sync", None)
    if not callable(function):
        raise UsageError(f"environment.sync: {reference} has no sync(session) function; define one that carries a "
                         "change made on one side of the world to the other, or remove `sync` from the config")
    return cast(Callable[[Session], None], function)


def _import(reference: str, key: str) -> ModuleType:
    """A module from a dotted name or a .py path, with any failure as one line naming `environment.<key>`."""
    name = _module_name(Path(reference), key) if reference.endswith(".py") else reference
    return import_user_module(
        name, where=f"environment.{key}", shown=reference,
        not_found="give a dotted name importable from the project folder (package.module) or the path of a .py file",
    )


def _module_name(path: Path, key: str) -> str:
    """The name to import a .py file under, so that it is never imported twice under two names.

    A file already imported keeps the name it was imported under (the example domain's files are
    `intellagent.db_schemas.…`, though their folder is also a top-level package in a checkout). A file
    inside an importable package gets its package name; any other file becomes a module of a package
    made for its folder, so that relative imports between a domain's modules still work.
    """
    path = path.resolve()
    if not path.is_file():
        raise UsageError(f"environment.{key}: file {path} not found; fix the path")
    imported = next((name for name, module in list(sys.modules.items())
                     if getattr(module, "__file__", None) == str(path)), None)
    if imported is not None:
        return imported
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) > 1 and _resolves_to(".".join(parts), path):
        return ".".join(parts)
    package = "intellagent_domain_" + hashlib.sha256(str(path.parent).encode()).hexdigest()[:12]
    if package not in sys.modules:
        spec = importlib.util.spec_from_loader(package, loader=None, is_package=True)
        assert spec is not None and spec.submodule_search_locations is not None
        spec.submodule_search_locations.append(str(path.parent))
        sys.modules[package] = importlib.util.module_from_spec(spec)
    return f"{package}.{path.stem}"


def _resolves_to(name: str, path: Path) -> bool:
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        return False
    return spec is not None and spec.origin is not None and Path(spec.origin).resolve() == path


def _members(module: ModuleType, wanted: Callable[[Any], bool]) -> list[Any]:
    """The module's top-level objects that pass `wanted`, once each, in definition order."""
    found: list[Any] = []
    for value in vars(module).values():
        if wanted(value) and not any(value is seen for seen in found):
            found.append(value)
    return found


def _tables(module: ModuleType, reference: str) -> list[type[SQLModel]]:
    tables: list[type[SQLModel]] = _members(module, is_table)
    if not tables:
        raise UsageError(
            f"environment.schema: {reference} defines no table; add a class declared `class Name(SQLModel, table=True)`"
        )
    by_name = {table.__tablename__: table for table in tables}
    for table in tables:
        side = table.__table__.info.get("side", "company")  # type: ignore[attr-defined]
        if side not in ("company", "user"):
            raise UsageError(f"environment.schema: table {table.__tablename__} is marked as side {side!r}; mark a "
                             "table of the user's device or app `{\"side\": \"user\"}`, and leave the others unmarked")
    for table in tables:
        for foreign_key in table.__table__.foreign_keys:  # type: ignore[attr-defined]
            target = foreign_key.target_fullname.split(".")[0]
            if target not in by_name:
                raise UsageError(
                    f"environment.schema: table {table.__tablename__} refers to table {target}, which {reference} "
                    "does not define; define it there or drop the foreign key"
                )
    ordered = sort_tables([table.__table__ for table in tables])  # type: ignore[attr-defined]
    return [by_name[table.name] for table in ordered]


def _tools(module: ModuleType, reference: str, key: str = "tools") -> list[Tool]:
    tools: list[Tool] = _members(module, lambda value: isinstance(value, Tool))
    if not tools:
        raise UsageError(
            f"environment.{key}: {reference} defines no tool; decorate a typed function with @tool(writes=...)"
        )
    names = [tool.name for tool in tools]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise UsageError(f"environment.{key}: {reference} has two tools named {duplicates[0]}; rename one")
    return tools


def _user_tools(reference: str, tables: list[type[SQLModel]], tools: list[Tool]) -> list[Tool]:
    """The user's own tools, marked as the user's side; they need a table of that side to act on, and names of
    their own (a dialog's transcript tells the two sides' calls by name too)."""
    found = _tools(_import(reference, "user_tools"), reference, "user_tools")
    if not any(Environment.side(table) == "user" for table in tables):
        raise UsageError("environment.user_tools: the schema marks no table as the user's; give the table of the "
                         "user's device or app `__table_args__ = {\"info\": {\"side\": \"user\"}}`")
    chatbot = {tool.name for tool in tools}
    shared = next((tool.name for tool in found if tool.name in chatbot), None)
    if shared is not None:
        raise UsageError(f"environment.user_tools: {shared} is also one of the chatbot's tools; rename one of them")
    return [replace(tool, side="user") for tool in found]


def _validators(module: ModuleType, reference: str, tables: list[type[SQLModel]]) -> list[Validator]:
    validators: list[Validator] = _members(module, lambda value: isinstance(value, Validator))
    if not validators:
        raise UsageError(
            f"environment.validators: {reference} defines no validator; add a @validator(Table) function or "
            "remove `validators` from the config"
        )
    for check in validators:
        for table in (check.table, *check.related):
            if table not in tables:
                known = ", ".join(table.__name__ for table in tables)
                verb = "validates" if table is check.table else "reads"
                raise UsageError(
                    f"environment.validators: {check.name} {verb} {table.__name__}, which is not a table of the "
                    f"schema module; name one of {known}"
                )
    return validators


def _background(module: ModuleType, reference: str) -> Callable[[Session, int], None]:
    generate = getattr(module, "generate", None)
    try:
        inspect.signature(generate).bind(None, 0)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise UsageError(
            f"environment.background: {reference} has no generate(session, seed) function; add one"
        ) from None
    return generate  # type: ignore[return-value]


def as_tau_domain(module: ModuleType, reference: str) -> TauDomain:
    """The module named by `environment.tau` (`reference`), checked to define both functions.

    Raises:
        UsageError: it lacks one of them.
    """
    missing = [function for function in ("build_tau_database", "export_tau")
               if not callable(getattr(module, function, None))]
    if missing:
        raise UsageError(f"environment.tau: {reference} defines no {missing[0]}(); a domain's τ-bench module defines "
                         "build_tau_database(env, folder, path) and export_tau(session)")
    return cast(TauDomain, module)
