"""Importing and running the user's own code (a domain's modules, a chatbot), every failure one line.

A failure of the user's code names what it is (the config key, the function called), where it raised
(the innermost line of the user's own files, not of Python's library or the framework), and the error:
"environment.background: generate (shop/background.py:12) raised ValueError: no such region".
"""

from __future__ import annotations

import importlib
import os
import sysconfig
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from intellagent.bundled import bundled, current_module_name
from intellagent.errors import IntellAgentError, UsageError

# Files that are not the user's: Python's library, installed packages, and the framework's own code (the example
# domains it ships are user code like any other).
_LIBRARIES = tuple(sorted({os.path.realpath(path) for key, path in sysconfig.get_paths().items()
                           if key in ("stdlib", "platstdlib", "purelib", "platlib")}))
_FRAMEWORK = (os.path.realpath(Path(__file__).parent), os.path.realpath(bundled("graphs")))
_SHIPPED_DOMAINS = os.path.realpath(bundled("db_schemas"))


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
        place = raised_at(exc.__traceback__)
        located = f" ({place})" if place else ""
        raise UsageError(f"{where}: importing {shown} failed{located}: {type(exc).__name__}: {error_line(exc)}; "
                         f"{fix}") from None


class DomainCodeError(UsageError):
    """The user's own code raised while the framework ran it; the message says which function, where and what."""


@contextmanager
def user_code(where: str, function: Callable[..., Any], *, fix: str) -> Iterator[None]:
    """Run the block as the user's `function`: whatever it raises becomes one `DomainCodeError` line.

    The framework's own errors pass as they are, and so does an interruption (Ctrl-C is not the domain's).

    Args:
        where: the config key that named the code, e.g. `environment.background`.
        function: the function the block calls, named in the message.
        fix: what the user should do, said last.
    """
    try:
        yield
    except IntellAgentError:
        raise
    except Exception as error:
        raise DomainCodeError(failure_line(error, where=where, function=function, fix=fix)) from error


def failure_line(error: BaseException, *, where: str, function: Callable[..., Any], fix: str) -> str:
    """The one line that reports `error`, raised by the user's `function` (see `user_code`)."""
    return f"{where}: {culprit(function, error)} raised {type(error).__name__}: {error_line(error)}; {fix}"


def culprit(function: Callable[..., Any], error: BaseException) -> str:
    """The user's `function` that raised `error`, and where: 'generate (shop/background.py:12)'. The place is the
    innermost line of the user's files in the traceback, else where the function is defined."""
    name = getattr(function, "__name__", None) or repr(function)
    place = raised_at(error.__traceback__)
    code = getattr(function, "__code__", None)
    if place is None and code is not None:
        place = f"{_shown(code.co_filename)}:{code.co_firstlineno}"
    return f"{name} ({place})" if place else name


def raised_at(traceback: TracebackType | None) -> str | None:
    """Where the user's code raised: 'file:line' of the innermost frame in the user's own files (with its function,
    when it is not the one the framework called); None when no frame is the user's."""
    own = []
    while traceback is not None:
        if _users(traceback.tb_frame.f_code.co_filename):
            own.append((traceback.tb_frame.f_code, traceback.tb_lineno))
        traceback = traceback.tb_next
    if not own:
        return None
    code, line = own[-1]
    inner = f"in {code.co_name}, " if code is not own[0][0] and code.co_name != "<module>" else ""
    return f"{inner}{_shown(code.co_filename)}:{line}"


def _users(filename: str) -> bool:
    if filename.startswith("<"):  # code made at run time (<string>, <frozen ...>): no file the user can open
        return False
    path = os.path.realpath(filename)
    if _inside(path, (_SHIPPED_DOMAINS,)):
        return True
    return not _inside(path, _LIBRARIES) and not _inside(path, _FRAMEWORK)


def _inside(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == folder or path.startswith(folder + os.sep) for folder in folders)


def _shown(filename: str) -> str:
    """A path as the user reads it: relative to the folder they run in, when it is inside it."""
    path = Path(filename).resolve()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def error_line(exc: BaseException) -> str:
    """The first line of an exception's message (or its class name), for one-line error reports."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
