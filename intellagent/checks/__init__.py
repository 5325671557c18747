"""Deterministic policy checks: rules a program can decide over a dialog's trace, with no LLM call.

A check is a function of a dialog's `Trace` (its messages, the tool calls with their arguments and
results, the database before and after) that yields a `Finding` for each breach, decorated with
`@check`; its docstring states the rule it enforces. Five come with the framework (`builtin`):
the chatbot's writes pass the domain's validators, a tool marked `@tool(confirm=True)` is called
only after the customer agreed, the ids, amounts and dates the chatbot states are grounded, a change
it says is done was made, and work it announces comes with a tool call in that turn. A
domain adds its own in a `checks` module (`@check` and `Check` are defined with the rest of what a domain
defines, in `intellagent.environment.checks`). Describe maps every check to the policies it enforces;
the report stage sets their findings beside the LLM judge's verdict. The rules language runs as checks
too (`compiled_checks`): a domain's rules file and the assertions describe compiles, over the values its terms
reach (`terms`), the user's yes (`consent`), a row's details (`disclosure`) and a procedure's steps
(`procedure_steps`).
"""

from intellagent.checks.running import check_trace, every_check, run_checks
from intellagent.checks.trace import Call, Trace
from intellagent.environment.checks import Check, check

__all__ = ["Call", "Check", "Trace", "check", "check_trace", "every_check", "run_checks"]
