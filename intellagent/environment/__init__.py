"""The environment layer: a domain's policy, tables, tools and validators, and per-event databases.

Nothing here knows any particular domain; a domain is a policy document plus modules named in the
config (see `EnvironmentConfig`).
"""

from intellagent.environment.database import ExactNumber, Number
from intellagent.environment.environment import Environment
from intellagent.environment.loading import load_environment
from intellagent.environment.tools import InjectedSession, Tool, tool
from intellagent.environment.validators import RowRejected, Validator, validator

__all__ = [
    "Environment",
    "ExactNumber",
    "InjectedSession",
    "Number",
    "RowRejected",
    "Tool",
    "Validator",
    "load_environment",
    "tool",
    "validator",
]
