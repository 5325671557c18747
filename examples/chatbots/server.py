"""The help desk behind HTTP, to try the `http` and `openai` adapters with.

    python -m examples.chatbots.server --port 8765

serves two endpoints on 127.0.0.1:
- `POST /chat`: the `http` adapter's protocol, `{"session_id", "messages"}` in, `{"reply"}` out;
- `POST /v1/chat/completions`: an OpenAI-compatible chat endpoint, for the `openai` adapter
  (`base_url: http://127.0.0.1:8765/v1`, any `model` name).

A request that carries the dialog's MCP address (the `X-IntellAgent-MCP` header) is answered by acting
on that dialog's world: the desk calls its tools with the MCP SDK's client, as a deployed agent whose
tool server is configurable would. Without the header it only notes what it would do.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from examples.chatbots.desk import after_tool, answer, next_step

MCP_HEADER = "X-IntellAgent-MCP"


class DeskHandler(BaseHTTPRequestHandler):
    """Answers both protocols with the rule-based desk."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        world = self.headers.get(MCP_HEADER)
        if self.path == "/chat":
            self._send(200, {"reply": desk_reply(body["messages"], world)})
        elif self.path == "/v1/chat/completions":
            messages = [m for m in body["messages"] if m["role"] in ("user", "assistant")]
            self._send(200, completion_body(body.get("model", "desk"), desk_reply(messages, world)))
        else:
            self._send(404, {"error": {"message": f"no endpoint {self.path}"}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a dialog makes a request per turn."""


def desk_reply(messages: list[dict[str, str]], world: str | None) -> str:
    """The desk's reply, acting on the world at the MCP address `world` when there is one."""
    step = next_step(messages)
    if isinstance(step, str) or world is None:
        return answer(messages)
    return after_tool(step, asyncio.run(call_tool(world, step.name, step.arguments)), messages)


async def call_tool(url: str, name: str, arguments: dict[str, Any]) -> str:
    """Call one tool on an MCP server over streamable HTTP and return its text."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(name, arguments)
    return "".join(getattr(part, "text", "") for part in result.content)


def completion_body(model: str, text: str) -> dict[str, Any]:
    """An OpenAI chat completion whose answer is `text`."""
    return {
        "id": "desk",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def make_server(port: int = 8765) -> ThreadingHTTPServer:
    """The desk's server on 127.0.0.1:`port` (0: any free port), not yet serving."""
    return ThreadingHTTPServer(("127.0.0.1", port), DeskHandler)


def main() -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    server = make_server(parser.parse_args().port)
    print(f"help desk on http://127.0.0.1:{server.server_address[1]} (/chat and /v1/chat/completions)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
