"""The domain's tools over the Model Context Protocol, so an agent behind an endpoint acts on the dialog's world.

The simulate stage starts one server per run when the chatbot under test is an endpoint (`http` or
`openai`), on 127.0.0.1 at a free port, and stops it when the stage ends. Each dialog has its own
address, `http://127.0.0.1:<port>/dialogs/<dialog id>/mcp`, sent with every request to the chatbot in
the `X-IntellAgent-MCP` header (and, for `http`, the body's `mcp_url`); an agent that speaks MCP
connects there instead of its production tool server. The server is stateless (streamable HTTP, JSON
answers), lists the tools with the schemas the built-in agent sees, and runs each call through the
dialog's `DialogWorld`: recorded for the transcript, time-limited, written to that dialog's database.
Dialogs never see each other's writes. Needs the `mcp` package (`pip install 'intellagent[mcp]'`).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server

from intellagent.chatbots.world import DialogWorld

if TYPE_CHECKING:
    from intellagent.environment import Environment


class WorldServer:
    """Serves every running dialog's world at its own MCP address.

    Args:
        environment: the domain whose tools are served.
    """

    def __init__(self, environment: Environment) -> None:
        self.tools = _listed(environment)
        self.worlds: dict[str, DialogWorld] = {}
        self.port = 0
        server = Server("intellagent-world", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        self.app = server.streamable_http_app(
            streamable_http_path="/dialogs/{dialog}/mcp", stateless_http=True, json_response=True
        )

    def url(self, dialog_id: str) -> str:
        """The MCP address of one dialog's world."""
        return f"http://127.0.0.1:{self.port}/dialogs/{dialog_id}/mcp"

    @contextmanager
    def hosting(self, dialog_id: str, world: DialogWorld) -> Iterator[str]:
        """Serve `world` at the dialog's address while the block runs; yields the address."""
        self.worlds[dialog_id] = world
        try:
            yield self.url(dialog_id)
        finally:
            self.worlds.pop(dialog_id, None)

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[WorldServer]:
        """Listen on 127.0.0.1 (a free port) while the block runs, on the running event loop."""
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        task = asyncio.create_task(server.serve(sockets=[listener]))
        try:
            while not server.started:
                if task.done():  # it could not start: say why
                    task.result()
                await asyncio.sleep(0.01)
            yield self
        finally:
            server.should_exit = True
            await task
            listener.close()

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        # A dialog's world lists its own chatbot's tools: a solo dialog's hold the user's too.
        world = self.worlds.get(ctx.request.path_params["dialog"])
        return types.ListToolsResult(tools=self.tools if world is None else _listed(world.environment))

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        dialog = ctx.request.path_params["dialog"]
        world = self.worlds.get(dialog)
        if world is None:
            result = f"Error: no dialog {dialog} is running; use the address sent with the current request"
        else:
            result = await world.acall(params.name, params.arguments or {})
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result)], is_error=result.startswith("Error:")
        )


def _listed(environment: Environment) -> list[types.Tool]:
    """The chatbot's tools of `environment` as MCP lists them."""
    return [types.Tool(name=tool.name, description=tool.description, input_schema=tool.parameters)
            for tool in environment.tools]
