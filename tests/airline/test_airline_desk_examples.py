"""The example help desks look a reservation up in the dialog's world and cancel it there after a yes."""

from __future__ import annotations

import asyncio
import json

import pytest

from examples.chatbots import desk, graph_desk
from intellagent.chatbots import ChatbotReply, ChatbotSession, DialogWorld
from intellagent.chatbots.http_endpoint import HTTPChatbot
from intellagent.chatbots.langgraph_app import LangGraphChatbot
from intellagent.chatbots.mcp_world import WorldServer
from intellagent.chatbots.python_callable import PythonChatbot
from intellagent.llm import Usage

RESERVATION = "4WQ150"  # chen_jackson_3290's business reservation in τ-bench's data


def reservation_status(airline, database) -> str | None:
    with airline.session(database) as session:
        found = airline.call_tool(session, "get_reservation_details", {"reservation_id": RESERVATION})
    return json.loads(found).get("status")


async def converse(conversation, world: DialogWorld, says: list[str]) -> list[ChatbotReply]:
    """The replies, each with its tool calls as the dialog records them: the world's, then the reported ones."""
    messages = [{"role": "assistant", "content": "Hello! How can I help you today?"}]
    replies = []
    for text in says:
        messages.append({"role": "user", "content": text})
        reply = await conversation.reply(messages)
        messages.append({"role": "assistant", "content": reply.content})
        replies.append(ChatbotReply(content=reply.content, tool_calls=[*world.taken(), *reply.tool_calls]))
    return replies


async def talk(airline, tau_db, chatbot, says):
    """Open the chatbot on a dialog whose world is the τ-bench database, served over MCP too, and converse."""
    world = DialogWorld(airline, tau_db)
    async with WorldServer(airline).serving() as server:
        with server.hosting("E001", world) as url:
            session = ChatbotSession(id="E001", database=tau_db, usage=Usage(), world=world, mcp_url=url)
            return await converse(chatbot.open(session), world, says)


@pytest.mark.parametrize("kind", ["python", "langgraph", "http"])
def test_the_example_desk_cancels_in_the_dialogs_world_after_a_yes(airline, tau_db, desk_server, kind):
    chatbot = {
        "python": lambda: PythonChatbot(desk.reply, name="desk"),
        "langgraph": lambda: LangGraphChatbot(graph_desk.build, name="graph_desk"),
        "http": lambda: HTTPChatbot(url=f"{desk_server}/chat", timeout=30),
    }[kind]()
    assert reservation_status(airline, tau_db) is None

    found, cancelled = asyncio.run(talk(airline, tau_db, chatbot, [f"Please cancel {RESERVATION}.", "yes"]))

    assert found.content == f"I found reservation {RESERVATION}. Shall I cancel it? Please answer yes to confirm."
    assert [(c.name, c.reported) for c in found.tool_calls] == [("get_reservation_details", False)]
    assert json.loads(found.tool_calls[0].result)["user_id"] == "chen_jackson_3290"
    assert cancelled.content.startswith(f"Reservation {RESERVATION} is cancelled")
    assert [c.name for c in cancelled.tool_calls] == ["cancel_reservation"]
    assert reservation_status(airline, tau_db) == "cancelled"

