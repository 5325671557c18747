"""The dialog's world as the chatbot under test reaches it: the domain's tools bound to the dialog's database.

Whatever the chatbot is built with, its calls on the world go through one `DialogWorld`: the built-in
agent's, a Python or LangGraph chatbot's through the LangChain tools it is handed (`langchain_tools`),
an endpoint's through the run's MCP server. Each call is validated against the tool's schema, runs off
the event loop and one at a time per dialog, is cut off after `timeout` seconds, and is recorded with
its result, so the transcript shows it, the checks judge it, and its writes land in the dialog's own
database, never in the event's. The simulated user's own tools (`environment.user_tools`) act on the same
world through `act`, under the same rules, and are never among the chatbot's.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.tools import BaseTool, StructuredTool

from intellagent.artifacts import ToolCall
from intellagent.imports import error_line

if TYPE_CHECKING:
    from intellagent.environment import Environment
    from intellagent.environment.tools import Side

TOOL_TIMEOUT = 10.0
"""Seconds a tool may run unless the domain says otherwise (`environment.tool_timeout`): a domain tool is a
database lookup or write, so a slower one is stuck."""


class DialogWorld:
    """The domain's tools on one dialog's database, recording every call.

    Args:
        environment: the domain.
        database: the dialog's database file.
        timeout: seconds a call may run before the chatbot is told it failed.
    """

    def __init__(self, environment: Environment, database: Path, *, timeout: float = TOOL_TIMEOUT) -> None:
        self.environment = environment
        self.database = database
        self.timeout = timeout
        self._turn = threading.Lock()  # one call at a time: a dialog's writes happen in a definite order
        self._made: list[ToolCall] = []
        self._tools: list[BaseTool] | None = None

    def run(self, name: str, arguments: Any) -> str:
        """Run a tool and return what the chatbot sees (an `Error: ...` text when it failed); never raises.

        Not recorded: for a chatbot that records its own calls, as the built-in agent does.
        """
        with self._turn:
            return self._run_limited(name, arguments)

    async def arun(self, name: str, arguments: Any) -> str:
        """`run`, from the event loop: the tool runs in a worker thread, so other dialogs go on meanwhile."""
        return await asyncio.to_thread(self.run, name, arguments)

    def call(self, name: str, arguments: Any) -> str:
        """`run`, recorded for the transcript (see `taken`)."""
        with self._turn:
            result = self._run_limited(name, arguments)
            shown = dict(arguments) if isinstance(arguments, Mapping) else {"(arguments)": arguments}
            self._made.append(ToolCall(id="", name=name, arguments=shown, result=result))
        return result

    async def acall(self, name: str, arguments: Any) -> str:
        """`call`, from the event loop."""
        return await asyncio.to_thread(self.call, name, arguments)

    async def act(self, name: str, arguments: Any) -> ToolCall:
        """The simulated user's call of one of its own tools, with its result (an `Error: ...` text when it
        failed); run like the chatbot's, one call at a time with them, but never among the calls `taken`
        returns: the transcript records it as the user's."""

        def run() -> str:
            with self._turn:
                return self._run_limited(name, arguments, by="user")

        result = await asyncio.to_thread(run)
        shown = dict(arguments) if isinstance(arguments, Mapping) else {"(arguments)": arguments}
        return ToolCall(id="", name=name, arguments=shown, result=result)

    def taken(self) -> list[ToolCall]:
        """The calls made since the last time this was asked, in order."""
        with self._turn:
            made, self._made = self._made, []
        return made

    def langchain_tools(self) -> list[BaseTool]:
        """The domain's tools as LangChain tools, with the schemas the built-in agent sees.

        Arguments are passed through unvalidated by LangChain, so a call that does not fit its schema
        is still run here, answered with the reason, and recorded like any other.
        """
        if self._tools is None:
            self._tools = [self._langchain_tool(tool.name, tool.description, tool.parameters)
                           for tool in self.environment.tools]
        return self._tools

    def _langchain_tool(self, name: str, description: str, parameters: dict[str, Any]) -> BaseTool:
        def run(**arguments: Any) -> str:
            return self.call(name, arguments)

        async def arun(**arguments: Any) -> str:
            return await self.acall(name, arguments)

        return StructuredTool(name=name, description=description, args_schema=parameters, func=run, coroutine=arun)

    def _run_limited(self, name: str, arguments: Any, *, by: Side = "company") -> str:
        """The tool's answer, or a timeout notice if it is still running after `timeout` seconds.

        The tool runs in a daemon thread of its own: a stuck one cannot be stopped from Python, but it
        no longer holds up the dialog, and the process can still exit.
        """
        answer: list[str] = []

        def work() -> None:
            try:
                with self.environment.session(self.database) as session:
                    answer.append(self.environment.call_tool(session, name, arguments, by=by))
            except Exception as error:  # the database itself failed (call_tool answers the tool's own errors)
                answer.append(f"Error: {error_line(error)}")

        worker = threading.Thread(target=work, name=f"tool {name}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if not answer:
            return f"Error: {name} did not finish within {self.timeout:g} s; nothing it returns later is seen"
        return answer[0]
