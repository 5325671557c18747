"""The folders that ship with IntellAgent: graphs, prompts, policies, db_schemas and configs.

A checkout keeps them at the top level, beside `intellagent/`, where a newcomer sees the architecture;
the wheel maps them inside the package (pyproject.toml), so that installing IntellAgent adds one
top-level package to site-packages and shadows no module of the user's. Code imports the Python ones
as `intellagent.graphs` and `intellagent.db_schemas` in both, and finds the files of the others with `bundled`.
The stages are imported by the library itself (the pipeline), so in a checkout too their name is their path:
intellagent/graphs is a link to graphs/, which a tool that reads imports follows as Python does. The example
domains are loaded by name from a config, and an editable install maps `intellagent.db_schemas` onto db_schemas/.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def bundled(folder: str) -> Path:
    """The bundled folder `folder` (say "prompts"): inside the installed package, or beside it in a checkout."""
    inside = _PACKAGE / folder
    return inside if inside.is_dir() else _PACKAGE.parent / folder


def current_module_name(name: str) -> str:
    """The name to import `name` by: a config written when the example domains were the top-level package
    `db_schemas` (`db_schemas.airline.tools`) names `intellagent.db_schemas.airline.tools`, unless the user
    has a `db_schemas` package of their own."""
    if name.partition(".")[0] == "db_schemas" and importlib.util.find_spec("db_schemas") is None:
        return f"intellagent.{name}"
    return name
