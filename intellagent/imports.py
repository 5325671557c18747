"""Importing the user's own modules (a domain's tables and tools, a chatbot), every failure one line."""

from __future__ import annotations

import importlib
from types import ModuleType

from intellagent.bundled import current_module_name
from intellagent.errors import UsageError


def import_user_module(name: str, *, where: str, shown: str | None = None, not_found: str) -> ModuleType:
    """Import module `name`, turning any failure into a `UsageError` that starts with `where`.

    Args:
        name: the dotted module name.
        where: the config key the module was named by, e.g. `environment.tools`.
        shown: how the message names the module (the path the user wrote, say); default `name`.
        not_found: the fix to suggest when the module itself does not exist.
    """
    shown = shown or name
    try:
        return importlib.import_module(current_module_name(name))
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise UsageError(f"{where}: module {shown} not found; {not_found}") from None
        raise UsageError(f"{where}: importing {shown} failed: {error_line(exc)}; fix the import") from None
    except UsageError as exc:  # the module's own declarations were refused (a tool without a docstring, say)
        raise UsageError(f"{where}: {exc}") from None
    except Exception as exc:
        # SQLAlchemy refuses a table without a primary key while the module is imported; say how to fix it.
        keyless = "primary key" in str(exc)
        fix = "mark one field of that table with Field(primary_key=True)" if keyless else "fix the module"
        raise UsageError(f"{where}: importing {shown} failed: {type(exc).__name__}: {error_line(exc)}; {fix}") from None


def error_line(exc: BaseException) -> str:
    """The first line of an exception's message (or its class name), for one-line error reports."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
