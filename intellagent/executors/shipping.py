"""Objects sent to a Ray worker, with what belongs to the run's process left behind.

A chatbot given through the Python API, or a calibration mutant, may hold one of the run's models (the
`llm_agent` does) and the domain's environment. The models' cache and rate limits stay in the run's
process, and the environment is loaded once per worker, so each is pickled as a reference: on the worker,
a model becomes the worker's own model of that role and SPEC (a `RelayedLLM`, with the same request
options), and the environment the worker's.
"""

from __future__ import annotations

import io
import pickle
from typing import TYPE_CHECKING, Any

from ray import cloudpickle

from intellagent.environment import Environment
from intellagent.errors import IntellAgentError, UsageError, failure_reason
from intellagent.llm import LLM
from intellagent.stage import ItemFailed

if TYPE_CHECKING:
    from intellagent.context import RunContext


def pack(value: Any, *, what: str) -> bytes:
    """`value` pickled for a worker (functions and classes by value where they cannot be imported there).

    Args:
        what: what `value` is, for the error.

    Raises:
        UsageError: it cannot be pickled (a lock, an open connection), with the reason.
    """
    buffer = io.BytesIO()
    try:
        _Packer(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    except Exception as error:  # pickling fails with whatever the object's parts raise
        raise UsageError(f"executor ray: {what} cannot be sent to the Ray workers ({type(error).__name__}: "
                         f"{error}); name it in the config instead (chatbot.target), so that each worker "
                         "imports it, or run with the local executor") from error
    return buffer.getvalue()


def unpack(data: bytes, ctx: RunContext) -> Any:
    """A packed value, with the references to the run's models and environment resolved in `ctx`, a worker's."""
    return _Unpacker(io.BytesIO(data), ctx).load()


def travelling(error: Exception) -> Exception:
    """An exception as it can travel between the driver and a worker: itself, or, when it cannot be pickled (one
    of another library's may hold a connection or a lock), an `ItemFailed` with the same reason."""
    if isinstance(error, IntellAgentError):
        return error
    try:
        cloudpickle.dumps(error)
    except Exception:  # pickling fails with whatever the exception's parts raise
        return ItemFailed(failure_reason(error))
    return error


class _Packer(cloudpickle.CloudPickler):
    def persistent_id(self, obj: Any) -> tuple[Any, ...] | None:
        if isinstance(obj, LLM):
            return ("llm", obj.role, obj.spec, obj.options)
        if isinstance(obj, Environment):
            return ("environment",)
        return None


class _Unpacker(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, ctx: RunContext) -> None:
        super().__init__(file)
        self.ctx = ctx

    def persistent_load(self, pid: Any) -> Any:
        match pid:
            case ("llm", role, spec, options):
                model = self.ctx.llms.model(role, spec)
                return model.with_options(**options) if options else model
            case ("environment",):
                return self.ctx.environment
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")
