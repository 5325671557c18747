"""The errors a user acts on, each mapped to the exit code the command line returns."""


class IntellAgentError(Exception):
    """Base of the errors that end a run with a one-line message."""

    exit_code = 1


class UsageError(IntellAgentError):
    """A bad command line, config or input file: the message names the problem and the fix."""

    exit_code = 2


class RunAborted(IntellAgentError):
    """The run stopped early (budget exhausted, too many errors, a permanent LLM error); artifacts stay."""

    exit_code = 3


def failure_reason(error: Exception) -> str:
    """An item's failure in one line: our errors speak for themselves; others are named by their type."""
    return str(error) if isinstance(error, IntellAgentError) else f"{type(error).__name__}: {error}"
