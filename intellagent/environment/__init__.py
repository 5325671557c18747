"""The environment layer: a domain's policy, tables, tools and validators, and per-event databases.

Nothing here knows any particular domain. A domain is a policy document plus modules named in the
config's `environment:` section (dotted names or .py paths):

- `schema`: SQLModel classes declared with `table=True`, each with a primary key. Use `Number` with
  `sa_type=ExactNumber` for a number whose int-or-float type matters.
- `tools`: typed functions with a Google-style docstring (an `Args:` entry per argument), decorated
  with `@tool(writes=...)`. A parameter typed `InjectedSession` receives the event's database session
  and is left out of the schema the chatbot sees. Return a string or any JSON-serialisable value.
  Populate learns how to generate each column from its type and the background world's rows; a
  field's `schema_extra=generation(...)` overrides that (choices, a date format, a Faker provider,
  or inheriting the same-named column of a referenced row).
- `validators` (optional): `@validator(Table)` functions `(row, session) -> None` that raise
  `RowRejected("what to change")` or repair the row in place; `@validator(Table, related=(Other,))`
  for a rule that also reads related rows, run once a world is whole (`world_rules`).
- `background` (optional): `generate(session, seed)`, adding the base world every event starts from.
- `checks` (optional): `@check` functions of a dialog's `Trace` (`checks`; see `intellagent.checks`).
- `tau` (optional): what plays τ-bench's published tasks on the domain's tables (`TauDomain`).

`load_environment(config.environment)` imports and checks all of it and returns an `Environment`.
"""

from intellagent.environment.database import ExactNumber, Number
from intellagent.environment.environment import Environment
from intellagent.environment.generation import Generation, generation
from intellagent.environment.loading import load_environment
from intellagent.environment.tools import InjectedSession, Tool, tool
from intellagent.environment.validators import RowRejected, Validator, validator

__all__ = [
    "Environment",
    "ExactNumber",
    "Generation",
    "InjectedSession",
    "Number",
    "RowRejected",
    "Tool",
    "Validator",
    "generation",
    "load_environment",
    "tool",
    "validator",
]
